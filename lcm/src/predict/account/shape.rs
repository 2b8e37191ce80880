//! [`Shape`]: the tree of a program with its equal subtrees found, so that [`super::totals`]
//! evaluates each once per environment.

use crate::predict::tree::{Node, NodeKind};
use lca::expr::Expr;
use std::collections::HashMap;

/// The structure of a tree for [`totals`](super::totals): a tree parallel to the [`Node`] tree in which
/// equal subtrees (same nodes, models, overrides, lines and communication) share an id,
/// so that a point evaluates each distinct subtree once per distinct environment, however
/// often calls, copies and loops repeat it. Built once per program.
#[derive(Debug, Clone)]
pub struct Shape {
    pub(super) id: usize,
    /// Index of a fragment's communication expression in `comm` (preorder among fragments).
    pub(super) comm_index: usize,
    pub(super) children: Vec<Shape>,
}

impl Shape {
    /// The shape of `root`; `comm[k]` as in [`account`](super::account).
    pub fn of(root: &Node, comm: &[Option<Expr>]) -> Shape {
        let mut ids = HashMap::new();
        let mut fragments = 0;
        Shape::build(root, comm, &mut ids, &mut fragments)
    }

    fn build(
        n: &Node,
        comm: &[Option<Expr>],
        ids: &mut HashMap<String, usize>,
        fragments: &mut usize,
    ) -> Shape {
        let comm_index = *fragments;
        let mut key = String::new();
        if let NodeKind::Fragment(_) = &n.kind {
            *fragments += 1;
            key = format!("{:?}", comm.get(comm_index).cloned().flatten());
        }
        let children: Vec<Shape> = n
            .children
            .iter()
            .map(|c| Shape::build(c, comm, ids, fragments))
            .collect();
        let child_ids: Vec<usize> = children.iter().map(|c| c.id).collect();
        key = format!(
            "{key}|{:?}|{}|{:?}|{:?}|{child_ids:?}",
            n.kind, n.line, n.p_override, n.var_overrides
        );
        let next = ids.len();
        let id = *ids.entry(key).or_insert(next);
        Shape {
            id,
            comm_index,
            children,
        }
    }
}

/// The shape of child `i` of the node shaped `sh`.
pub(super) fn child(sh: Option<&Shape>, i: usize) -> Option<&Shape> {
    sh.and_then(|s| s.children.get(i))
}
