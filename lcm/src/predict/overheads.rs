//! Machine costs in the recognized tree: before composition, every parallel construct gets
//! explicit, named overhead fragments priced by the machine file's run-time costs
//! ([`super::machine::Costs`]), so they show in `lcm predict`'s breakdown and `lcm tree`
//! like any fragment (their names start with `machine `, their model's origin is the
//! machine file) and compose by the same rules.
//!
//! Rules (p: the construct's processors; each overhead is a fragment whose `rt` is
//! processor-seconds, so its time is `rt / p_f` at the processors it sits at):
//! - **fork/join** (`machine fork/join`): a parallel node (`join`, a scope) with T tasks
//!   first pays the fork/join latency of q = min(T, p) threads,
//!   `fork_join_base_s + fork_join_log2p_s * log2(q)` seconds, with all p processors held
//!   (rt = that * p);
//! - **tasks** (`machine task`): every task of a parallel node (each copy of a spawn loop)
//!   starts with `task_s` seconds on its processors;
//! - **parallel-iterator call** (`machine par items`): a data-parallel loop (a parallel
//!   iterator's call) pays, instead of the fork/join above, the machine's price of one
//!   parallel-iterator call on q = min(N, p) threads, `par_call_s_pQ` interpolated in
//!   log2(q) ([`super::machine::Costs::par_call_s_expr`]), with all p processors held: the
//!   kernel behind it measures what a small call costs from inside the pool beyond its
//!   items' work (splitting into jobs, steals, the reduction tree's joins), which holds the
//!   fork/join. A machine file without `par_call_s_pQ` keys charges the fork/join. The
//!   fragment carries the measured range p = 1 … `calibrated_p`, so a prediction at more
//!   than twice the threads the file measured is warned about;
//! - **items** (`machine par items`): a data-parallel loop of N items adds
//!   `N * par_item_s` processor-seconds, `N * par_item_s / p` seconds over its p processors.
//!   N is the loop's item count: from the source where the recognizer can
//!   (`(0..n).into_par_iter()`, `par_iter` over a collection of known length,
//!   `par_chunks(c)` of a length: ceil(len / c)), else from `// lcm: items = EXPR` (or
//!   `// lcm: iterations = EXPR`) on the statement;
//! - **hand-off** (`machine hand-off`): a pipeline's hand-offs depend on its stage times, so
//!   they are priced in the composition, not here ([`super::handoff`]).
//!
//! - **inside a fragment** (`machine par items`, `machine fork/join` before the fragment):
//!   a fragment is a leaf, so the parallel constructs written in its code are priced here,
//!   when its model was not measured with them ([`inner_costs`]: `// lcm: overheads =
//!   machine | measured`, by default `machine` for models written in the source and
//!   `measured` for models from a models file): per execution of the fragment and per
//!   construct, a fork/join of `min(threads, p)` threads with the fragment's p held and
//!   `par_item_s` per item (a parallel iterator) or `task_s` per task (`join`, `scope`),
//!   times the trip counts of the loops around it inside the fragment ([`inner_rt`]);
//! - **nested data-parallel loops** need nothing here: a loop nested in another one's item
//!   runs at `max(1, p / outer items)` processors ([`super::tree::item_env`]), and its
//!   fork/join and items are priced at that p like any loop's.
//!
//! Without run-time costs (no `--machine`, or an old machine file) the tree is unchanged.

use super::machine::Costs;
use super::tree::{mul, Fragment, InnerConstruct, InnerCosts, Node, NodeKind};
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
    let q = threads_used(threads);
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

/// The threads a construct of `threads` items or tasks runs on: `min(threads, p)`, 1 when
/// `threads` is a number at most 1.
fn threads_used(threads: Expr) -> Expr {
    match &threads {
        Expr::Num(v) if *v <= 1.0 => Expr::Num(1.0),
        _ => Expr::Call(Func::Min, vec![threads, p()]),
    }
}

/// The seconds of one parallel-iterator call over `items` items: the machine's
/// `par_call_s_pQ` at `min(items, p)` threads, or without those keys the fork/join.
pub fn par_call_s(items: Expr, costs: &Costs) -> Expr {
    costs
        .par_call_s_expr(&threads_used(items.clone()))
        .unwrap_or_else(|| fork_join_s(items))
}

/// The processor-seconds a parallel-iterator call over `items` items adds: its call price
/// with the p processors held and `par_item_s` per item.
fn par_call_rt(items: Expr, costs: &Costs) -> Expr {
    Expr::bin(
        BinOp::Add,
        mul(par_call_s(items.clone(), costs), p()),
        mul(items, var("par_item_s")),
    )
}

/// A `machine par items` overhead: with a par-call price, the range of p it was measured
/// over (warned about beyond twice that).
fn par_items(rt: Expr, line: usize, origin: &str, costs: &Costs) -> Node {
    let mut node = overhead("par items", rt, line, origin);
    if let (NodeKind::Fragment(f), false) = (&mut node.kind, costs.par_call_by_p.is_empty()) {
        f.ranges = vec![lca::range::VarRange::new(
            "p",
            1.0,
            costs.calibrated_p.max(1) as f64,
        )];
    }
    node
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
            referenced: Vec::new(),
            inside: Box::default(),
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
/// names the machine file in the fragments' model origin, `costs` are its run-time costs
/// (which keys it has). The terms are in the machine file's key names, bound at prediction
/// time ([`super::machine::Machine::bindings`]).
pub fn apply(node: Node, origin: &str, costs: &Costs) -> Node {
    let mut node = node;
    node.children = std::mem::take(&mut node.children)
        .into_iter()
        .map(|c| apply(c, origin, costs))
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
            let o = par_items(par_call_rt(count.clone(), costs), line, origin, costs);
            behind(o, node, "data-parallel with scheduling")
        }
        NodeKind::Fragment(_) => inside_fragment(node, origin, costs),
        _ => node,
    }
}

/// The processor-seconds of one execution of `c` inside a fragment at p processors, all
/// `times` over: a data-parallel loop's call price ([`par_call_s`]) with the p processors
/// held and `par_item_s` per item; a join's or scope's fork/join of `min(threads, p)`
/// threads with the p processors held and `task_s` per task.
pub fn inner_rt(c: &InnerConstruct, costs: &Costs) -> Expr {
    let once = if c.data_parallel {
        par_call_rt(c.threads.clone(), costs)
    } else {
        Expr::bin(
            BinOp::Add,
            mul(fork_join_s(c.threads.clone()), p()),
            mul(c.threads.clone(), var("task_s")),
        )
    };
    mul(c.times.clone(), once)
}

/// Whether the parallel constructs inside fragment `f`'s code pay machine costs: its
/// `// lcm: overheads =` line, else [`InnerCosts::default_for`] its models' origin.
pub fn inner_costs(f: &Fragment) -> InnerCosts {
    f.inside
        .overheads
        .unwrap_or_else(|| InnerCosts::default_for(&f.model_origin))
}

/// A fragment node with the machine costs of the parallel constructs inside its code: when
/// they pay ([`inner_costs`]), one overhead fragment per construct runs before it, at its
/// processors (`machine par items` for a data-parallel loop, `machine fork/join` for a join
/// or scope, with its tasks' starts); either way the fragment notes the rule for `lcm tree`.
fn inside_fragment(mut node: Node, origin: &str, costs: &Costs) -> Node {
    let NodeKind::Fragment(f) = &mut node.kind else {
        return node;
    };
    if f.inside.constructs.is_empty() {
        return node;
    }
    let rule = inner_costs(f);
    let how = match (rule, f.inside.overheads.is_some()) {
        (InnerCosts::Measured, true) => "`overheads = measured`",
        (InnerCosts::Machine, true) => "`overheads = machine`",
        (InnerCosts::Measured, false) => "default: models from a models file",
        (InnerCosts::Machine, false) => "default: models written in the source",
    };
    let names: Vec<&str> = f
        .inside
        .constructs
        .iter()
        .map(|c| c.what.as_str())
        .collect();
    if rule == InnerCosts::Measured {
        f.inside.rule = Some(format!(
            "covered by the measured model, no machine costs added ({how}): {}",
            names.join(", ")
        ));
        return node;
    }
    f.inside.rule = Some(format!(
        "pay machine costs, added before the fragment ({how}): {}",
        names.join(", ")
    ));
    let name = f.name.clone();
    let costs: Vec<Node> = f
        .inside
        .constructs
        .iter()
        .map(|c| {
            let from = format!("{origin}, inside {name}: {}", c.what);
            if c.data_parallel {
                par_items(inner_rt(c, costs), c.line, &from, costs)
            } else {
                overhead("fork/join", inner_rt(c, costs), c.line, &from)
            }
        })
        .collect();
    let mut wrap = Node::new(
        NodeKind::Serial {
            label: "fragment with machine costs inside".into(),
        },
        node.line,
    );
    wrap.p_override = node.p_override.take();
    wrap.var_overrides = std::mem::take(&mut node.var_overrides);
    let mut children = costs;
    children.push(node);
    wrap.with_children(children)
}

/// The notes of the fragments whose inner constructs were given machine costs (what their
/// pricing assumed or left out), as warnings on `file`: `lcm predict`, `compare` and `tree`
/// print them with the recognizer's.
pub fn inner_warnings(node: &Node, file: &str) -> Vec<super::error::Warning> {
    let mut out = Vec::new();
    for f in node.fragments() {
        if f.inside.rule.is_none() || inner_costs(f) != InnerCosts::Machine {
            continue;
        }
        out.extend(
            f.inside
                .notes
                .iter()
                .map(|(line, what)| super::error::Warning {
                    file: file.to_string(),
                    line: *line,
                    message: format!("fragment `{}`: {what}", f.name),
                }),
        );
    }
    out
}

/// Whether the tree has a construct that machine costs would apply to (a parallel node, a
/// data-parallel loop, a pipeline, or a fragment whose inner constructs pay them).
pub fn has_costed_construct(node: &Node) -> bool {
    let inside = match &node.kind {
        NodeKind::Fragment(f) => {
            !f.inside.constructs.is_empty() && inner_costs(f) == InnerCosts::Machine
        }
        _ => false,
    };
    inside
        || matches!(
            node.kind,
            NodeKind::Parallel { .. } | NodeKind::DataParallel { .. } | NodeKind::Pipeline { .. }
        )
        || node.children.iter().any(has_costed_construct)
}

/// Whether a fragment name is one of the overheads this pass adds.
pub fn is_overhead(name: &str) -> bool {
    name.starts_with(PREFIX)
}
