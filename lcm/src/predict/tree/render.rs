//! `lcm tree`'s text: the recognized tree like Crovella's Figure 6.3, one numbered node
//! per line with its source line, rule, overrides, the variables it runs at and, for
//! fragments, its model.

use super::{div, item_env, Fragment, Node, NodeKind, SyncOp, NESTED_P};
use crate::predict::env::Env;
use lca::expr::Expr;
use std::fmt::Write as _;

/// The rule `lcm` applies at a node, in words (shown by `lcm tree`).
pub fn rule_of(node: &Node) -> String {
    match &node.kind {
        NodeKind::Serial { .. } => "serial: children in sequence, T = sum; n, p unchanged".into(),
        NodeKind::Parallel { .. } => format!(
            "parallel: {} tasks, each p/{} unless overridden; T = max; LI+ = sum_t (max T - T_t)*p_t",
            node.task_count(),
            node.task_count()
        ),
        NodeKind::ParallelLoop { count, .. } => {
            format!("{count} copies of each spawned task (counted in the parent's split)")
        }
        NodeKind::DataParallel { count, .. } => format!(
            "data-parallel: {count} items, one processor each, contending for the p processors"
        ),
        NodeKind::Loop { count, .. } => format!("sequential loop: body x {count}; n, p unchanged"),
        NodeKind::Pipeline { items, handoff, .. } => format!(
            "pipeline (material-oriented, van Gemund Ex. 3.5 / Eq. 3.16): {items} items through {} stage resources; fill + bottleneck{}",
            node.children.len(),
            handoff.map_or(String::new(), |h| format!("; {}", h.describe()))
        ),
        NodeKind::Locked { mutex } => {
            format!("mutual exclusion: fragments below use resource lock `{mutex}`")
        }
        NodeKind::Fragment(f) => match crate::predict::env::work_expr(&Fragment {
            categories: f
                .categories
                .iter()
                .map(|(c, _)| (c.clone(), Expr::Var(c.clone())))
                .collect(),
            ..f.clone()
        }) {
            Some(w) if f.executions.is_some() => format!(
                "fragment: T_f = ({w}) / {} / p_f at its own variables",
                f.executions.as_ref().map(|e| e.to_string()).unwrap_or_default()
            ),
            Some(w) => format!("fragment: T_f = ({w}) / p_f at its own variables"),
            None => "fragment: T_f = (sum of categories) / p_f; no model yet".into(),
        },
        NodeKind::Sync(SyncOp::Send(c)) => format!("condition synchronization: signal on `{c}`"),
        NodeKind::Sync(SyncOp::Recv(c)) => format!("condition synchronization: wait on `{c}`"),
        NodeKind::Sync(SyncOp::Barrier(b)) => {
            format!("barrier `{b}`: tasks split into phases at each wait")
        }
    }
}

fn headline(node: &Node) -> String {
    match &node.kind {
        NodeKind::Serial { label } => format!("serial {label}"),
        NodeKind::Parallel { construct } => format!("parallel {construct}"),
        NodeKind::ParallelLoop { construct, count } => {
            format!("parallel loop {construct} x {count}")
        }
        NodeKind::DataParallel { construct, count } => {
            format!("data-parallel {construct} over {count} items")
        }
        NodeKind::Loop {
            count, count_from, ..
        } => format!("loop x {count} ({count_from})"),
        NodeKind::Pipeline {
            items, channels, ..
        } => format!("pipeline over {items} items via {}", channels.join(", ")),
        NodeKind::Locked { mutex } => format!("locked {mutex}"),
        NodeKind::Fragment(f) => format!("fragment {}", f.name),
        NodeKind::Sync(SyncOp::Send(c)) => format!("send {c}"),
        NodeKind::Sync(SyncOp::Recv(c)) => format!("recv {c}"),
        NodeKind::Sync(SyncOp::Barrier(b)) => format!("barrier {b}"),
    }
}

/// Renders the tree like Crovella's Figure 6.3: one numbered node per line (preorder), its
/// source line, then its rule and (for fragments) its model on indented lines.
pub fn render(root: &Node, file: &str) -> String {
    let mut renderer = Renderer {
        file,
        counter: 0,
        out: String::new(),
    };
    let env = Env::root();
    renderer.node(root, "", "", &env, &env);
    renderer.out
}

/// The environments of a node's children: (env, outer) per child, as composition uses them.
fn child_envs(node: &Node, env: &Env, outer: &Env) -> Vec<(Env, Env)> {
    match &node.kind {
        NodeKind::Parallel { .. } => {
            let tasks = env.subst(&node.task_count());
            let tenv = env.with("p", div(env.p(), tasks));
            node.children
                .iter()
                .map(|_| (tenv.clone(), env.clone()))
                .collect()
        }
        NodeKind::ParallelLoop { .. } | NodeKind::Pipeline { .. } => node
            .children
            .iter()
            .map(|_| (env.clone(), outer.clone()))
            .collect(),
        NodeKind::DataParallel { count, .. } => {
            let ienv = item_env(env, count);
            node.children
                .iter()
                .map(|_| (ienv.clone(), env.clone()))
                .collect()
        }
        _ => node
            .children
            .iter()
            .map(|_| (env.clone(), env.clone()))
            .collect(),
    }
}

/// The text rendered so far and the number of the last node.
struct Renderer<'a> {
    file: &'a str,
    counter: usize,
    out: String,
}

impl Renderer<'_> {
    /// Renders `node` (its first line after `first_prefix`, the others after `rest_prefix`)
    /// in environment `env` inside `outer`, then its children.
    fn node(&mut self, node: &Node, first_prefix: &str, rest_prefix: &str, env: &Env, outer: &Env) {
        let env = &env.enter(node, outer);
        self.counter += 1;
        let _ = writeln!(
            self.out,
            "{first_prefix}{} {}  ({}:{})",
            self.counter,
            headline(node),
            self.file,
            node.line
        );
        let detail_prefix = format!(
            "{rest_prefix}{}",
            if node.children.is_empty() {
                "   "
            } else {
                "│  "
            }
        );
        write_details(&mut self.out, &detail_prefix, node, env, outer);
        if let NodeKind::Fragment(f) = &node.kind {
            write_fragment(&mut self.out, &detail_prefix, f);
        }
        let n = node.children.len();
        let envs = child_envs(node, env, outer);
        for (i, c) in node.children.iter().enumerate() {
            let last = i + 1 == n;
            let first = format!("{rest_prefix}{}", if last { "└─ " } else { "├─ " });
            let rest = format!("{rest_prefix}{}", if last { "   " } else { "│  " });
            let (ce, co) = &envs[i];
            self.node(c, &first, &rest, ce, co);
        }
    }
}

/// A node's detail lines: its processor and variable overrides, its rule and, for a
/// fragment or a node whose processors differ from its parent's, the variables it runs at.
fn write_details(out: &mut String, prefix: &str, node: &Node, env: &Env, outer: &Env) {
    if node.is_nested_marked() {
        let _ = writeln!(
            out,
            "{prefix}nested: p = max(1, p/items) of the enclosing data-parallel loop = {}",
            env.p()
        );
    } else if let Some(p) = &node.p_override {
        let _ = writeln!(out, "{prefix}override: p = {p}");
    }
    for (v, e) in &node.var_overrides {
        let _ = writeln!(out, "{prefix}override: {v} = {e}");
    }
    let _ = writeln!(out, "{prefix}rule: {}", rule_of(node));
    let is_task = matches!(node.kind, NodeKind::Fragment(_)) || env.p() != outer.p();
    if is_task {
        let vars: Vec<String> = env
            .settings()
            .iter()
            .filter(|(k, _)| k.as_str() != NESTED_P)
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        if !vars.is_empty() {
            let _ = writeln!(out, "{prefix}runs at: {}", vars.join(", "));
        }
    }
}

/// A fragment's detail lines: its model and where it came from, executions, data, the
/// parallelism it covers and the rule for its inner constructs.
fn write_fragment(out: &mut String, prefix: &str, f: &Fragment) {
    if f.categories.is_empty() {
        let _ = writeln!(out, "{prefix}model: none (annotate it or pass --models)");
    } else {
        let _ = writeln!(
            out,
            "{prefix}model ({}): {}",
            f.model_origin,
            f.categories
                .iter()
                .map(|(c, e)| format!("{c} = {e}"))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    if let Some(k) = &f.executions {
        let _ = writeln!(out, "{prefix}models are totals over {k} executions");
    }
    if !f.inputs.is_empty() || !f.outputs.is_empty() {
        let _ = writeln!(
            out,
            "{prefix}data: in [{}] out [{}]",
            f.inputs.join(", "),
            f.outputs.join(", ")
        );
    }
    for inner in &f.inner_parallelism {
        let _ = writeln!(out, "{prefix}covers {inner}");
    }
    if let Some(rule) = &f.inside.rule {
        let _ = writeln!(out, "{prefix}inner constructs: {rule}");
    }
}
