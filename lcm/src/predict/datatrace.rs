//! Data traces (Crovella section 6.2.2): data moving between fragments whose least common
//! ancestor is a parallel node costs communication.
//!
//! Fragments are visited depth-first, left to right (the tree is already a tree: a followed
//! call is replicated at each call site). Each fragment is its own location for data. A
//! fragment with `// lcm: input X` whose last holder of X (the last fragment that wrote or read
//! it) has a parallel least common ancestor with it (parallel node, spawn loop, data-parallel
//! node, pipeline) receives X: one transfer, with `bytes` from the reader's
//! `// lcm: bytes = EXPR` (in the program's variables; 0 when absent). A machine file with
//! measured transfers (`transfer_s_B`, `local_read_s_B`: `lcm calibrate`) prices it as what
//! reading `bytes` written on another processor adds over reading them where they were
//! written, interpolated by bytes ([`super::machine::Costs::move_s`]); otherwise (or with
//! no `bytes`) `latency + bytes / bandwidth`. A reader fragment on p_f processors shares
//! the move among its threads: each reads its part at once, so the move adds its seconds
//! / p_f to the fragment's time and its seconds once to the processor time (the transfer
//! microbenchmark times one thread reading the whole item). Afterwards the reader holds X;
//! `// lcm: output X` makes the writer the holder.
//!
//! Movement the measured program already had is not counted twice: given the measured
//! version's source, its moves (item, writer fragment, reader fragment) are already inside the
//! fragment models. A move in both versions adds nothing; a move only in the predicted version
//! adds its cost before the reader; a move only in the measured version is subtracted from
//! every execution of the reader fragment (its model paid for a transfer that no longer
//! happens).
//!
//! Only receipts are priced. A fragment that writes afresh data another processor read last
//! (`output X` without `input X`) pays nothing here: a writer that computes what it stores
//! overlaps taking the lines back with its computation ([`crate::calibrate::claim`] has the
//! measurements; docs/machine.md, "Data moved between processors").

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
    let measured = match &m.bytes {
        Expr::Num(b) if *b == 0.0 => None,
        b => machine.costs.as_ref().and_then(|c| c.move_s_expr(b)),
    };
    if let Some(e) = measured {
        return e;
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::machine::Machine;

    fn a_move(bytes: Expr) -> Move {
        Move {
            item: "a".into(),
            from: "w".into(),
            from_line: 1,
            to: "r".into(),
            to_line: 2,
            to_index: 1,
            via_line: 1,
            bytes,
        }
    }

    #[test]
    fn measured_transfers_price_a_move_by_its_bytes() {
        // 4 KiB: 3 us from another processor, 1 us from its own cache: the move adds 2 us;
        // 64 KiB: 20 us against 4 us.
        let text = "latency_s = 1e-7\nbandwidth_bytes_per_s = 1e9\nfork_join_base_s = 1e-6\n\
            fork_join_log2p_s = 0\ntask_s = 0\npar_item_s = 0\nhandoff_spin_s = 1e-7\n\
            handoff_wake_s = 1e-5\ntransfer_s_4096 = 3e-6\ntransfer_s_65536 = 2e-5\n\
            local_read_s_4096 = 1e-6\nlocal_read_s_65536 = 4e-6\n";
        let m = Machine::parse("m.txt", text).unwrap();
        let cost = |bytes: Expr, n: f64| {
            let vars = std::collections::BTreeMap::from([("n".to_string(), n)]);
            move_cost(&a_move(bytes), &m).eval(&vars).unwrap()
        };
        let n_bytes = Expr::bin(BinOp::Mul, Expr::Num(16.0), Expr::Var("n".into()));
        assert!((cost(n_bytes.clone(), 256.0) - 2e-6).abs() < 1e-15);
        assert!((cost(n_bytes.clone(), 4096.0) - 16e-6).abs() < 1e-15);
        // Half-way between the sizes: half-way between the prices.
        assert!((cost(n_bytes, 2176.0) - 9e-6).abs() < 1e-15);
        // No `bytes =`: the latency alone, as without measured transfers.
        assert_eq!(cost(Expr::Num(0.0), 1.0), 1e-7);
        // A file with communication prices only: latency + bytes / bandwidth.
        let old =
            Machine::parse("o.txt", "latency_s = 1e-7\nbandwidth_bytes_per_s = 1e9\n").unwrap();
        let e = move_cost(&a_move(Expr::Num(4096.0)), &old);
        assert!((e.eval(&Default::default()).unwrap() - (1e-7 + 4.096e-6)).abs() < 1e-15);
    }
}
