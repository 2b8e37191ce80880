//! Spawned tasks: markers left by `spawn` calls, collected by the enclosing scope.

use super::super::tree::{Node, NodeKind};
use super::SPAWN_LABEL;

pub(super) fn is_spawn(n: &Node) -> bool {
    matches!(&n.kind, NodeKind::Serial { label } if label.starts_with(SPAWN_LABEL))
}

pub(super) fn is_spawn_loop(n: &Node) -> bool {
    matches!(n.kind, NodeKind::Loop { .. })
        && !n.children.is_empty()
        && n.children.iter().all(|c| is_spawn(c) || is_spawn_loop(c))
}

/// Splits a scope body into spawned tasks (spawn loops become parallel loops) and the rest.
pub(super) fn split_spawns(body: Vec<Node>) -> (Vec<Node>, Vec<Node>) {
    let mut tasks = Vec::new();
    let mut rest = Vec::new();
    for n in body {
        if is_spawn(&n) {
            tasks.push(n);
        } else if is_spawn_loop(&n) {
            let NodeKind::Loop { count, .. } = &n.kind else {
                unreachable!("is_spawn_loop holds for loop nodes only")
            };
            let count = count.clone();
            let (inner, _) = split_spawns(n.children.clone());
            let mut pl = Node::new(
                NodeKind::ParallelLoop {
                    construct: "spawn in loop".into(),
                    count,
                },
                n.line,
            )
            .with_children(inner);
            pl.p_override = n.p_override.clone();
            tasks.push(pl);
        } else if let NodeKind::Serial { label } = &n.kind {
            if (label == "annotated statement" || label.starts_with("call "))
                && n.children.iter().any(|c| is_spawn(c) || is_spawn_loop(c))
            {
                let (t, r) = split_spawns(n.children);
                tasks.extend(t);
                rest.extend(r);
                continue;
            }
            rest.push(n);
        } else {
            rest.push(n);
        }
    }
    (tasks, rest)
}
