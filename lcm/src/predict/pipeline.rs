//! Producer/consumer chains: parallel tasks whose bodies are loops linked by channels
//! (task k sends what task k+1 receives, once per iteration) become a pipeline node whose
//! stages are the loop bodies. Composition turns it into van Gemund's material-oriented
//! pipeline (Example 3.5): every data set is a process that `use`s each stage's resource in
//! turn, so both the fill (one data set through all stages) and the bottleneck (the slowest
//! stage times the number of data sets) come out.

use super::tree::{Node, NodeKind, SyncOp};
use lca::expr::Expr;

struct Stage {
    task: usize,
    count: Expr,
    over_channel: Option<String>,
    body: Vec<Node>,
    sends: Vec<String>,
    recvs: Vec<String>,
    line: usize,
}

/// The loop a task consists of (ignoring children without fragments or synchronization,
/// looking through followed calls).
fn task_loop(task: &Node) -> Option<&Node> {
    let relevant: Vec<&Node> = task
        .children
        .iter()
        .filter(|c| c.has_fragment() || c.has_sync())
        .collect();
    if relevant.len() != 1 {
        return None;
    }
    let only = relevant[0];
    match &only.kind {
        NodeKind::Loop { .. } => Some(only),
        NodeKind::Serial { .. } if only.p_override.is_none() => task_loop(only),
        _ => None,
    }
}

/// Channel operations directly in a loop body (looking through serial wrappers, not into
/// nested loops or parallel nodes).
fn syncs(nodes: &[Node], sends: &mut Vec<String>, recvs: &mut Vec<String>) {
    for n in nodes {
        match &n.kind {
            NodeKind::Sync(SyncOp::Send(c)) => sends.push(c.clone()),
            NodeKind::Sync(SyncOp::Recv(c)) => recvs.push(c.clone()),
            NodeKind::Serial { .. } => syncs(&n.children, sends, recvs),
            _ => {}
        }
    }
}

fn strip_channel_ops(nodes: Vec<Node>, chans: &[String]) -> Vec<Node> {
    nodes
        .into_iter()
        .filter(|n| {
            !matches!(&n.kind, NodeKind::Sync(SyncOp::Send(c)) | NodeKind::Sync(SyncOp::Recv(c)) if chans.contains(c))
        })
        .map(|mut n| {
            if matches!(n.kind, NodeKind::Serial { .. }) {
                n.children = strip_channel_ops(std::mem::take(&mut n.children), chans);
            }
            n
        })
        .collect()
}

/// The tasks of parallel node `node` that are one loop each, as stages: the loop's count,
/// body and channel operations.
fn task_stages(node: &Node) -> Vec<Stage> {
    node.children
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let lp = task_loop(t)?;
            let NodeKind::Loop {
                count,
                over_channel,
                ..
            } = &lp.kind
            else {
                return None;
            };
            let (mut sends, mut recvs) = (Vec::new(), Vec::new());
            syncs(&lp.children, &mut sends, &mut recvs);
            Some(Stage {
                task: i,
                count: count.clone(),
                over_channel: over_channel.clone(),
                body: lp.children.clone(),
                sends,
                recvs,
                line: lp.line,
            })
        })
        .collect()
}

/// The chain of stages linked by channels (indices into `stages`) and the channels between
/// them: from a stage that sends and receives nothing any other stage sends, each next
/// stage the first not yet in the chain that receives what the last one sends. None when
/// there is no start or the chain has one stage.
fn channel_chain(stages: &[Stage]) -> Option<(Vec<usize>, Vec<String>)> {
    let sent_by_someone = |c: &String| stages.iter().any(|s| s.sends.contains(c));
    let start = stages
        .iter()
        .position(|s| !s.sends.is_empty() && !s.recvs.iter().any(sent_by_someone))?;
    let mut chain = vec![start];
    let mut channels = Vec::new();
    let mut last = start;
    loop {
        let cur = &stages[last];
        let next = cur.sends.iter().find_map(|c| {
            (0..stages.len())
                .find(|&i| !chain.contains(&i) && stages[i].recvs.contains(c))
                .map(|i| (i, c.clone()))
        });
        match next {
            Some((i, c)) => {
                chain.push(i);
                channels.push(c);
                last = i;
            }
            None => break,
        }
    }
    if chain.len() < 2 {
        return None;
    }
    Some((chain, channels))
}

/// The pipeline node of `chain` (stages of `node`'s tasks linked by `channels`): one
/// serial stage per loop body, channel operations removed, with its task's processor and
/// variable overrides; a stage whose loop runs over its channel handles the items of the
/// stage before it.
fn pipeline_node(node: &Node, stages: &[Stage], chain: &[usize], channels: Vec<String>) -> Node {
    let items = stages[chain[0]].count.clone();
    let mut stage_items: Vec<Expr> = Vec::new();
    let mut stage_nodes = Vec::new();
    for (k, &si) in chain.iter().enumerate() {
        let s = &stages[si];
        let this_items = if s.over_channel.is_some() && k > 0 {
            stage_items[k - 1].clone()
        } else {
            s.count.clone()
        };
        stage_items.push(this_items);
        let task = &node.children[s.task];
        let label = match &task.kind {
            NodeKind::Serial { label } => label.clone(),
            _ => format!("task {}", s.task + 1),
        };
        let mut st = Node::new(
            NodeKind::Serial {
                label: format!("stage {}: {label} loop body", k + 1),
            },
            s.line,
        )
        .with_children(strip_channel_ops(s.body.clone(), &channels));
        st.p_override = task.p_override.clone();
        st.var_overrides = task.var_overrides.clone();
        stage_nodes.push(st);
    }
    let line = node.children[stages[chain[0]].task].line;
    Node::new(
        NodeKind::Pipeline {
            items,
            stage_items,
            channels,
            handoff: None,
        },
        line,
    )
    .with_children(stage_nodes)
}

/// Replaces a chain of channel-linked task loops inside parallel node `node` by a
/// [`NodeKind::Pipeline`]; returns the node unchanged when there is no such chain.
pub fn restructure(mut node: Node) -> Node {
    let stages = task_stages(&node);
    let Some((chain, channels)) = channel_chain(&stages) else {
        return node;
    };
    let pipe = pipeline_node(&node, &stages, &chain, channels);
    // The pipeline takes the place of the chain's first task; the chain's other tasks go.
    let first_task = stages[chain[0]].task;
    let chain_tasks: Vec<usize> = chain.iter().map(|&si| stages[si].task).collect();
    let mut children = Vec::new();
    for (i, c) in std::mem::take(&mut node.children).into_iter().enumerate() {
        if i == first_task {
            children.push(pipe.clone());
        } else if !chain_tasks.contains(&i) {
            children.push(c);
        }
    }
    node.children = children;
    node
}
