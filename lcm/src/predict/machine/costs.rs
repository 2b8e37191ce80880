//! [`Costs`]: the run-time costs of parallel constructs a machine file holds (the keys are
//! described in the [parent module](super)), and the prices derived from them: a move of
//! bytes between processors, a small parallel call from inside a pool.

use super::keys::family;
use lca::expr::Expr;
use std::collections::BTreeMap;

/// Run-time costs of parallel constructs on a machine (see the module docs for each key).
#[derive(Debug, Clone, PartialEq)]
pub struct Costs {
    /// Fork/join latency at one thread, seconds (`fork_join_base_s`).
    pub fork_join_base_s: f64,
    /// Growth of the fork/join latency per doubling of threads, seconds (`fork_join_log2p_s`).
    pub fork_join_log2p_s: f64,
    /// Measured fork/join latency by threads (`fork_join_s_pQ`).
    pub fork_join_by_p: Vec<(usize, f64)>,
    /// Measured cost of one small parallel-iterator call by threads (`par_call_s_pQ`; empty
    /// in files without it).
    pub par_call_by_p: Vec<(usize, f64)>,
    /// Processor-seconds per spawned task (`task_s`).
    pub task_s: f64,
    /// Processor-seconds per parallel-iterator item (`par_item_s`).
    pub par_item_s: f64,
    /// One-way hand-off to a spinning thread, seconds (`handoff_spin_s`).
    pub handoff_spin_s: f64,
    /// One-way hand-off to a sleeping thread, seconds (`handoff_wake_s`).
    pub handoff_wake_s: f64,
    /// Seconds to read a buffer of so many bytes another thread wrote (`transfer_s_B`).
    pub transfer_by_bytes: Vec<(usize, f64)>,
    /// Seconds the waker spends waking a sleeping thread (`handoff_notify_s`; None in files
    /// without it).
    pub handoff_notify_s: Option<f64>,
    /// Longest wait a channel's receiver still spends spinning, seconds
    /// (`handoff_spin_window_s`; None in files without it).
    pub handoff_spin_window_s: Option<f64>,
    /// Seconds to read a buffer of so many bytes the reader wrote itself (`local_read_s_B`;
    /// empty in files without it).
    pub local_read_by_bytes: Vec<(usize, f64)>,
    /// Seconds a line written last by another processor adds to an atomic update
    /// (`line_bounce_s`; None in files without it).
    pub line_bounce_s: Option<f64>,
    /// Memory-bound slowdown with k threads at once (`mem_slowdown_kK`).
    pub mem_slowdown_by_k: Vec<(usize, f64)>,
    /// Threads the measurements went up to (`calibrated_p`).
    pub calibrated_p: usize,
}

impl Costs {
    /// The measured costs of a machine file's values, every one of
    /// [`COST_KEYS`](super::keys::COST_KEYS) present.
    pub(super) fn from_values(values: &BTreeMap<String, f64>) -> Costs {
        let fam = |prefix: &str| -> Vec<(usize, f64)> {
            values
                .iter()
                .filter_map(|(k, v)| match family(k) {
                    Some((p, n)) if p == prefix => Some((n, *v)),
                    _ => None,
                })
                .collect::<BTreeMap<_, _>>()
                .into_iter()
                .collect()
        };
        Costs {
            fork_join_base_s: values["fork_join_base_s"],
            fork_join_log2p_s: values["fork_join_log2p_s"],
            fork_join_by_p: fam("fork_join_s_p"),
            par_call_by_p: fam("par_call_s_p"),
            task_s: values["task_s"],
            par_item_s: values["par_item_s"],
            handoff_spin_s: values["handoff_spin_s"],
            handoff_wake_s: values["handoff_wake_s"],
            handoff_notify_s: values.get("handoff_notify_s").copied(),
            handoff_spin_window_s: values.get("handoff_spin_window_s").copied(),
            transfer_by_bytes: fam("transfer_s_"),
            local_read_by_bytes: fam("local_read_s_"),
            line_bounce_s: values.get("line_bounce_s").copied(),
            mem_slowdown_by_k: fam("mem_slowdown_k"),
            calibrated_p: values.get("calibrated_p").map_or(1, |x| *x as usize),
        }
    }

    /// What moving `bytes` written on one processor into another one's reads adds, seconds:
    /// `transfer(bytes) − local_read(bytes)` (at least 0), each interpolated linearly in
    /// bytes between the measured sizes, from 0 at 0 bytes, and beyond the largest size
    /// at its seconds per byte. Without `local_read_s_B` keys the whole transfer; None
    /// without `transfer_s_B` keys.
    pub fn move_s(&self, bytes: f64) -> Option<f64> {
        let t = interpolate(&self.transfer_by_bytes, bytes)?;
        let local = interpolate(&self.local_read_by_bytes, bytes).unwrap_or(0.0);
        Some((t - local).max(0.0))
    }

    /// [`Costs::move_s`] as an expression in the bytes (an expression in the program's
    /// variables): a sum of hinge terms `max(0, bytes − B)`, one per measured size.
    pub fn move_s_expr(&self, bytes: &lca::expr::Expr) -> Option<lca::expr::Expr> {
        use lca::expr::{BinOp, Expr, Func};
        let sizes: Vec<f64> = self
            .transfer_by_bytes
            .iter()
            .map(|(b, _)| *b as f64)
            .filter(|b| *b > 0.0)
            .collect();
        if sizes.is_empty() {
            return None;
        }
        // Knots: 0 and every size; the slope of move_s between knots, and beyond the last
        // size its seconds per byte.
        let mut knots = vec![0.0];
        knots.extend(sizes.iter().copied());
        let value = |x: f64| self.move_s(x).unwrap_or(0.0);
        let mut slopes: Vec<f64> = knots
            .windows(2)
            .map(|w| (value(w[1]) - value(w[0])) / (w[1] - w[0]))
            .collect();
        let last = *knots.last().unwrap_or(&1.0);
        slopes.push(value(last) / last);
        let mut e = Expr::bin(BinOp::Mul, Expr::Num(slopes[0]), bytes.clone());
        for (i, knot) in knots.iter().enumerate().skip(1) {
            let change = slopes[i] - slopes[i - 1];
            if change == 0.0 {
                continue;
            }
            let hinge = Expr::Call(
                Func::Max,
                vec![
                    Expr::Num(0.0),
                    Expr::bin(BinOp::Sub, bytes.clone(), Expr::Num(*knot)),
                ],
            );
            e = Expr::bin(
                BinOp::Add,
                e,
                Expr::bin(BinOp::Mul, Expr::Num(change), hinge),
            );
        }
        Some(Expr::Call(Func::Max, vec![Expr::Num(0.0), e]))
    }
}

/// The machine-key variable of the par-call price at `q` threads.
fn par_call_key(q: usize) -> Expr {
    Expr::Var(format!("par_call_s_p{q}"))
}

impl Costs {
    /// The seconds one parallel-iterator call on `threads` threads adds (an expression in
    /// the program's variables and the machine keys `par_call_s_pQ`): the measured
    /// `par_call_s_pQ` interpolated linearly in log2(threads) between the measured powers
    /// of two (and the largest measured Q), beyond the largest Q continued with the last
    /// segment's growth per doubling (a 2-thread file: `par_call_s_p1 + (par_call_s_p2 −
    /// par_call_s_p1) * log2(threads)`). None for a file without `par_call_s_pQ` keys.
    pub fn par_call_s_expr(&self, threads: &Expr) -> Option<Expr> {
        use lca::expr::{BinOp, Func};
        let largest = self.par_call_by_p.iter().map(|(q, _)| *q).max()?;
        let knots: Vec<usize> = self
            .par_call_by_p
            .iter()
            .map(|(q, _)| *q)
            .filter(|q| *q >= 1 && (q.is_power_of_two() || *q == largest))
            .collect();
        let mut e = par_call_key(*knots.first()?);
        let x = Expr::Call(Func::Log2, vec![threads.clone()]);
        for (i, w) in knots.windows(2).enumerate() {
            let (x0, x1) = ((w[0] as f64).log2(), (w[1] as f64).log2());
            let rise = Expr::bin(BinOp::Sub, par_call_key(w[1]), par_call_key(w[0]));
            // The share of the segment covered at `threads`: (x − x0) / (x1 − x0).
            let along = if x0 == 0.0 && x1 == 1.0 {
                x.clone()
            } else {
                Expr::bin(
                    BinOp::Div,
                    Expr::bin(BinOp::Sub, x.clone(), Expr::Num(x0)),
                    Expr::Num(x1 - x0),
                )
            };
            let last = i + 2 == knots.len();
            let share = if last {
                Expr::Call(Func::Max, vec![Expr::Num(0.0), along])
            } else {
                Expr::Call(
                    Func::Min,
                    vec![
                        Expr::Num(1.0),
                        Expr::Call(Func::Max, vec![Expr::Num(0.0), along]),
                    ],
                )
            };
            e = Expr::bin(BinOp::Add, e, Expr::bin(BinOp::Mul, rise, share));
        }
        Some(e)
    }
}

/// `table` (bytes, seconds) interpolated at `bytes` (see [`Costs::move_s`]); None when the
/// table is empty.
fn interpolate(table: &[(usize, f64)], bytes: f64) -> Option<f64> {
    let mut pts: Vec<(f64, f64)> = table
        .iter()
        .filter(|(b, _)| *b > 0)
        .map(|(b, t)| (*b as f64, *t))
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let &(lb, lt) = pts.last()?;
    let x = bytes.max(0.0);
    if x >= lb {
        return Some(lt * x / lb);
    }
    let mut prev = (0.0, 0.0);
    for &(b, t) in &pts {
        if x <= b {
            return Some(prev.1 + (t - prev.1) * (x - prev.0) / (b - prev.0));
        }
        prev = (b, t);
    }
    Some(lt)
}
