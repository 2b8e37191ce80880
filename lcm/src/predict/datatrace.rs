//! Data traces (Crovella section 6.2.2): data moving between fragments whose least common
//! ancestor is a parallel node costs communication.
//!
//! Fragments are visited depth-first, left to right (the tree is already a tree: a followed
//! call is replicated at each call site). Each fragment is its own location for data. A
//! fragment with `// lcm: input X` whose last holder of X (the last fragment that wrote or read
//! it) has a parallel least common ancestor with it (parallel node, spawn loop, data-parallel
//! node, pipeline) receives X: one transfer priced `latency + bytes / bandwidth` by the machine
//! file, with `bytes` from the reader's `// lcm: bytes = EXPR` (in the program's variables; 0
//! when absent: latency only). Afterwards the reader holds X; `// lcm: output X` makes the
//! writer the holder.
//!
//! Movement the measured program already had is not counted twice: given the measured
//! version's source, its moves (item, writer fragment, reader fragment) are already inside the
//! fragment models. A move in both versions adds nothing; a move only in the predicted version
//! adds its cost before the reader; a move only in the measured version is subtracted from
//! every execution of the reader fragment (its model paid for a transfer that no longer
//! happens).

use super::machine::Machine;
use super::tree::{add, mul, Node, NodeKind};
use lca::expr::{BinOp, Expr};
use std::collections::HashMap;

/// One data movement between fragments.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    /// The data item.
    pub item: String,
    /// The fragment that held it.
    pub from: String,
    /// Line of that fragment.
    pub from_line: usize,
    /// The fragment that reads it.
    pub to: String,
    /// Line of the reader.
    pub to_line: usize,
    /// Preorder index of the reader among the fragment instances.
    pub to_index: usize,
    /// Line of the parallel node that separates them.
    pub via_line: usize,
    /// Bytes moved (expression in the program's variables).
    pub bytes: Expr,
}

impl Move {
    /// Identity across program versions: (item, writer, reader).
    pub fn key(&self) -> (String, String, String) {
        (self.item.clone(), self.from.clone(), self.to.clone())
    }
}

struct Visit {
    path: Vec<usize>,
    kinds: Vec<(bool, usize)>,
}

fn is_parallel(k: &NodeKind) -> bool {
    matches!(
        k,
        NodeKind::Parallel { .. }
            | NodeKind::ParallelLoop { .. }
            | NodeKind::DataParallel { .. }
            | NodeKind::Pipeline { .. }
    )
}

/// All data moves of a program, in visiting order.
pub fn moves(root: &Node) -> Vec<Move> {
    let mut holders: HashMap<String, (Vec<usize>, String, usize)> = HashMap::new();
    let mut out = Vec::new();
    let mut counter = 0usize;
    let mut v = Visit {
        path: Vec::new(),
        kinds: vec![(is_parallel(&root.kind), root.line)],
    };
    walk(root, &mut v, &mut holders, &mut out, &mut counter);
    out
}

fn walk(
    n: &Node,
    v: &mut Visit,
    holders: &mut HashMap<String, (Vec<usize>, String, usize)>,
    out: &mut Vec<Move>,
    counter: &mut usize,
) {
    if let NodeKind::Fragment(f) = &n.kind {
        let idx = *counter;
        *counter += 1;
        for item in &f.inputs {
            if let Some((hpath, hname, hline)) = holders.get(item) {
                let common = hpath
                    .iter()
                    .zip(&v.path)
                    .take_while(|(a, b)| a == b)
                    .count();
                let same = common == hpath.len() && common == v.path.len();
                let (par, via) = v.kinds[common];
                if !same && par {
                    out.push(Move {
                        item: item.clone(),
                        from: hname.clone(),
                        from_line: *hline,
                        to: f.name.clone(),
                        to_line: n.line,
                        to_index: idx,
                        via_line: via,
                        bytes: f.bytes.clone().unwrap_or(Expr::Num(0.0)),
                    });
                }
            }
            holders.insert(item.clone(), (v.path.clone(), f.name.clone(), n.line));
        }
        for item in &f.outputs {
            holders.insert(item.clone(), (v.path.clone(), f.name.clone(), n.line));
        }
    }
    for (i, c) in n.children.iter().enumerate() {
        v.path.push(i);
        v.kinds.push((is_parallel(&c.kind), c.line));
        walk(c, v, holders, out, counter);
        v.path.pop();
        v.kinds.pop();
    }
}

/// The cost of one move in seconds, as an expression.
pub fn move_cost(m: &Move, machine: &Machine) -> Expr {
    let lat = Expr::Num(machine.latency_s);
    match &m.bytes {
        Expr::Num(b) if *b == 0.0 => lat,
        b => add(
            lat,
            mul(b.clone(), Expr::Num(1.0 / machine.bandwidth_bytes_per_s)),
        ),
    }
}

/// Communication adjustment per fragment instance (index = preorder position): the cost of
/// moves new in this version minus the cost of measured moves that no longer happen.
/// `measured`: the measured version's moves (None: every move is new).
pub fn adjustments(
    root: &Node,
    machine: &Machine,
    measured: Option<&[Move]>,
) -> (Vec<Option<Expr>>, Vec<Move>, Vec<Move>) {
    let here = moves(root);
    let frags = root.fragments();
    let mut adj: Vec<Option<Expr>> = vec![None; frags.len()];
    let mut push = |k: usize, e: Expr, sign: f64| {
        let e = if sign < 0.0 {
            Expr::Neg(Box::new(e))
        } else {
            e
        };
        adj[k] = Some(match adj[k].take() {
            None => e,
            Some(a) => Expr::bin(BinOp::Add, a, e),
        });
    };
    let mut added = Vec::new();
    let mut removed = Vec::new();
    let measured_keys: Vec<_> = measured
        .map(|m| m.iter().map(Move::key).collect())
        .unwrap_or_default();
    for m in &here {
        if measured_keys.contains(&m.key()) {
            continue;
        }
        push(m.to_index, move_cost(m, machine), 1.0);
        added.push(m.clone());
    }
    if let Some(ms) = measured {
        let here_keys: Vec<_> = here.iter().map(Move::key).collect();
        for m in ms {
            if here_keys.contains(&m.key()) {
                continue;
            }
            let mut any = false;
            for (k, f) in frags.iter().enumerate() {
                if f.name == m.to {
                    push(k, move_cost(m, machine), -1.0);
                    any = true;
                }
            }
            if any {
                removed.push(m.clone());
            }
        }
    }
    (adj, added, removed)
}
