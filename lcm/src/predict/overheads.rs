//! Machine costs in the recognized tree: before composition, every parallel construct gets
//! explicit, named overhead fragments priced by the machine file's run-time costs
//! ([`super::machine::Costs`]), so they show in `lcm predict`'s breakdown and `lcm tree`
//! like any fragment (their names start with `machine `, their model's origin is the
//! machine file) and compose by the same rules.
//!
//! Rules (p: the construct's processors; each overhead is a fragment whose `rt` is
//! processor-seconds, so its time is `rt / p_f` at the processors it sits at):
//! - **fork/join** (`machine fork/join`): a parallel node (`join`, a scope) with T tasks, and
//!   every data-parallel loop, first pays the fork/join latency of q = min(T, p) threads,
//!   `fork_join_base_s + fork_join_log2p_s * log2(q)` seconds, with all p processors held
//!   (rt = that * p);
//! - **tasks** (`machine task`): every task of a parallel node (each copy of a spawn loop)
//!   starts with `task_s` seconds on its processors;
//! - **items** (`machine par items`): a data-parallel loop of N items adds
//!   `N * par_item_s` processor-seconds, `N * par_item_s / p` seconds over its p processors.
//!   N is the loop's item count: from the source where the recognizer can
//!   (`(0..n).into_par_iter()`, `par_iter` over a collection of known length,
//!   `par_chunks(c)` of a length: ceil(len / c)), else from `// lcm: items = EXPR` (or
//!   `// lcm: iterations = EXPR`) on the statement;
//! - **hand-off** (`machine hand-off`): every pipeline stage after the first receives each
//!   item from the stage before: `handoff_spin_s` seconds per item, the cache-line hand-off
//!   to a waiting thread. A stage that sleeps while it waits pays `handoff_wake_s` instead;
//!   that depends on which stage is the bottleneck, so a restructuring rule that knows it
//!   says so with an annotation naming `handoff_wake_s` (every machine key is a variable).
//!
//! Without run-time costs (no `--machine`, or an old machine file) the tree is unchanged.

use super::tree::{mul, Fragment, Node, NodeKind};
use lca::expr::{BinOp, Expr, Func};

/// The prefix of every overhead fragment's name.
pub const PREFIX: &str = "machine ";

fn var(name: &str) -> Expr {
    Expr::Var(name.into())
}

fn p() -> Expr {
    var("p")
}

/// The fork/join latency of `min(threads, p)` threads, seconds (in machine-key variables).
pub fn fork_join_s(threads: Expr) -> Expr {
    let q = match &threads {
        Expr::Num(v) if *v <= 1.0 => Expr::Num(1.0),
        _ => Expr::Call(Func::Min, vec![threads, p()]),
    };
    let grow = match &q {
        Expr::Num(v) if *v == 1.0 => None,
        _ => Some(mul(
            var("fork_join_log2p_s"),
            Expr::Call(Func::Log2, vec![q]),
        )),
    };
    match grow {
        Some(g) => Expr::bin(BinOp::Add, var("fork_join_base_s"), g),
        None => var("fork_join_base_s"),
    }
}

/// An overhead fragment `machine NAME` with `rt = rt` at `line`.
fn overhead(name: &str, rt: Expr, line: usize, origin: &str) -> Node {
    Node::new(
        NodeKind::Fragment(Fragment {
            name: format!("{PREFIX}{name}"),
            categories: vec![("rt".into(), rt)],
            model_origin: origin.to_string(),
            executions: None,
            inputs: Vec::new(),
            ranges: Vec::new(),
            outputs: Vec::new(),
            bytes: None,
            end_line: line,
            inner_parallelism: Vec::new(),
        }),
        line,
    )
}

/// `node` preceded by `first` in one serial node that takes over `node`'s overrides (so
/// both see the variables `node` saw).
fn behind(first: Node, mut node: Node, label: &str) -> Node {
    let mut wrap = Node::new(
        NodeKind::Serial {
            label: label.to_string(),
        },
        node.line,
    );
    wrap.p_override = node.p_override.take();
    wrap.var_overrides = std::mem::take(&mut node.var_overrides);
    wrap.with_children(vec![first, node])
}

/// A task with `first` run at its start: inserted first into a serial task, else in front.
fn task_with(first: Node, mut task: Node) -> Node {
    if matches!(task.kind, NodeKind::Serial { .. }) {
        task.children.insert(0, first);
        task
    } else {
        behind(first, task, "task")
    }
}

/// The tree with the machine's overhead fragments added (see the module docs); `origin`
/// names the machine file in the fragments' model origin. The terms are in the machine
/// file's key names, bound at prediction time ([`super::machine::Machine::bindings`]).
pub fn apply(node: Node, origin: &str) -> Node {
    let mut node = node;
    node.children = std::mem::take(&mut node.children)
        .into_iter()
        .map(|c| apply(c, origin))
        .collect();
    let line = node.line;
    let per_task = || overhead("task", mul(var("task_s"), p()), line, origin);
    match &node.kind {
        NodeKind::Parallel { .. } => {
            let tasks = node.task_count();
            node.children = std::mem::take(&mut node.children)
                .into_iter()
                .map(|c| match c.kind {
                    NodeKind::ParallelLoop { .. } => {
                        let mut c = c;
                        c.children = std::mem::take(&mut c.children)
                            .into_iter()
                            .map(|t| task_with(per_task(), t))
                            .collect();
                        c
                    }
                    NodeKind::Pipeline { .. } => c,
                    _ => task_with(per_task(), c),
                })
                .collect();
            let fj = overhead("fork/join", mul(fork_join_s(tasks), p()), line, origin);
            behind(fj, node, "parallel with fork/join")
        }
        NodeKind::DataParallel { count, .. } => {
            let rt = Expr::bin(
                BinOp::Add,
                mul(fork_join_s(count.clone()), p()),
                mul(count.clone(), var("par_item_s")),
            );
            let o = overhead("par items", rt, line, origin);
            behind(o, node, "data-parallel with scheduling")
        }
        NodeKind::Pipeline { .. } => {
            for stage in node.children.iter_mut().skip(1) {
                let h = overhead(
                    "hand-off",
                    mul(var("handoff_spin_s"), p()),
                    stage.line,
                    origin,
                );
                let s = std::mem::replace(
                    stage,
                    Node::new(
                        NodeKind::Serial {
                            label: String::new(),
                        },
                        0,
                    ),
                );
                *stage = task_with(h, s);
            }
            node
        }
        _ => node,
    }
}

/// Whether the tree has a construct that machine costs would apply to (a parallel node, a
/// data-parallel loop or a pipeline).
pub fn has_costed_construct(node: &Node) -> bool {
    matches!(
        node.kind,
        NodeKind::Parallel { .. } | NodeKind::DataParallel { .. } | NodeKind::Pipeline { .. }
    ) || node.children.iter().any(has_costed_construct)
}

/// Whether a fragment name is one of the overheads this pass adds.
pub fn is_overhead(name: &str) -> bool {
    name.starts_with(PREFIX)
}
