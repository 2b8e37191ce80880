//! Barrier phases: tasks that wait on the same barrier split into phases composed in
//! sequence.
use crate::predict::tree::{Node, NodeKind, SyncOp};

/// Phases of a parallel node whose tasks all wait on the same barrier the same number of
/// times at their top level: phase k of each task is what it runs between waits k-1 and k.
/// Per phase, per task: the task and what it runs in that phase.
pub(super) type Phases<'a> = Vec<Vec<(&'a Node, Vec<Node>)>>;

pub(super) fn barrier_phases(n: &Node) -> Option<Phases<'_>> {
    let mut per_task = Vec::new();
    for t in &n.children {
        if !matches!(t.kind, NodeKind::Serial { .. }) {
            return None;
        }
        let mut phases = Vec::new();
        let mut current = Vec::new();
        for c in &t.children {
            if matches!(c.kind, NodeKind::Sync(SyncOp::Barrier(_))) {
                phases.push(std::mem::take(&mut current));
            } else {
                current.push(c.clone());
            }
        }
        phases.push(current);
        per_task.push((t, phases));
    }
    let k = per_task.first()?.1.len();
    if k < 2 || per_task.iter().any(|(_, p)| p.len() != k) {
        return None;
    }
    Some(
        (0..k)
            .map(|ph| per_task.iter().map(|(t, p)| (*t, p[ph].clone())).collect())
            .collect(),
    )
}
