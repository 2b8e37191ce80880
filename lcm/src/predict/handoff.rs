//! The hand-off rule of pipelines: what passing an item from one stage to the next costs,
//! chosen per hand-off by how long the waiting stage waits.
//!
//! In a pipeline (recognized by [`super::pipeline`]) every item goes from stage a to stage
//! a+1 over a channel; in steady state the faster of two neighbouring stages waits for the
//! slower one, `|tau_a − tau_b|` seconds per item (stage times per item without hand-offs,
//! the flow shop's): the downstream stage waits for its input when the upstream one is
//! slower, the upstream stage waits for room (a full bounded channel, or buffers given
//! back) when the downstream one is slower. A thread blocked on a channel spins for a
//! while before it parks (`handoff_spin_window_s`, measured by `lcm calibrate`), so:
//!
//! - a wait of at most `handoff_spin_window_s` is caught spinning: the downstream stage pays
//!   `handoff_spin_s` per item (a cache-line hand-off);
//! - a longer wait sleeps: the stage that hands over (the slower one, which never waits)
//!   pays `handoff_notify_s` per item to wake the waiting one, and the woken stage's item
//!   starts `handoff_wake_s` later (added to its time per item).
//!
//! A stage with two neighbours adds what each of its hand-offs gives it. The rule reads
//! the stage times before hand-offs (one decision per hand-off, not iterated). Without
//! `handoff_spin_window_s` in the machine file every wait counts as caught spinning; without
//! `handoff_notify_s` a wake-up costs the waker nothing. Without run-time costs in the
//! machine file (or no `--machine`) no hand-off is priced.
//!
//! The rule is an expression in the machine keys (`handoff_spin_s`, `handoff_wake_s`,
//! `handoff_notify_s`, `handoff_spin_window_s`), so the composed PAMELA model carries it and
//! `lcm predict`'s breakdown shows it as `machine hand-off` with each hand-off's regime.

use super::machine::Costs;
use super::tree::{add, mul, Node, NodeKind};
use lca::expr::{BinOp, Expr, Func};
use serde::Serialize;

/// Which machine keys the rule may use (from the machine file's run-time costs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HandoffRule {
    /// The file has `handoff_spin_window_s`: waits are told apart by it.
    pub window: bool,
    /// The file has `handoff_notify_s`: the waker pays it.
    pub notify: bool,
}

/// What one hand-off does at an evaluated point.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HandoffShare {
    /// The stage (1-based) that hands items over.
    pub from_stage: usize,
    /// The stage (1-based) that receives them.
    pub to_stage: usize,
    /// The stage (1-based) that waits for the other (the faster one).
    pub waiting_stage: usize,
    /// Seconds it waits per item (difference of the stage times before hand-offs).
    pub wait_s: f64,
    /// `spinning` (wait within the spin window) or `asleep`.
    pub regime: String,
    /// The spin window the regime was judged by (seconds; None: the machine file has no
    /// `handoff_spin_window_s`, and every wait is taken as caught spinning).
    pub window_s: Option<f64>,
}

/// The name the hand-offs' work has in a prediction's breakdown.
pub const NAME: &str = "machine hand-off";

fn var(name: &str) -> Expr {
    Expr::Var(name.to_string())
}

/// 1 when `x` exceeds the spin window, else 0: `min(1, ceil(max(0, x − W) / W))`.
fn beyond_window(x: Expr) -> Expr {
    let w = var("handoff_spin_window_s");
    let over = Expr::Call(
        Func::Max,
        vec![Expr::Num(0.0), Expr::bin(BinOp::Sub, x, w.clone())],
    );
    Expr::Call(
        Func::Min,
        vec![
            Expr::Num(1.0),
            Expr::Call(Func::Ceil, vec![Expr::bin(BinOp::Div, over, w)]),
        ],
    )
}

impl HandoffRule {
    /// The rule a machine's run-time costs allow.
    pub fn of(costs: &Costs) -> HandoffRule {
        HandoffRule {
            window: costs.handoff_spin_window_s.is_some(),
            notify: costs.handoff_notify_s.is_some(),
        }
    }

    /// Seconds each stage adds per item for its hand-offs, as expressions in the stage times
    /// before hand-offs (`base`, one per stage) and the machine keys (see the module docs).
    pub fn per_item(&self, base: &[Expr]) -> Vec<Expr> {
        let mut out = vec![Expr::Num(0.0); base.len()];
        for a in 0..base.len().saturating_sub(1) {
            let b = a + 1;
            if !self.window {
                out[b] = add(out[b].clone(), var("handoff_spin_s"));
                continue;
            }
            let notify = if self.notify {
                var("handoff_notify_s")
            } else {
                Expr::Num(0.0)
            };
            let wake = var("handoff_wake_s");
            let diff = |x: &Expr, y: &Expr| Expr::bin(BinOp::Sub, x.clone(), y.clone());
            // The upstream stage waits for room; the downstream stage waits for input.
            let up_sleeps = beyond_window(diff(&base[b], &base[a]));
            let down_sleeps = beyond_window(diff(&base[a], &base[b]));
            let spins = Expr::bin(
                BinOp::Sub,
                Expr::Num(1.0),
                add(up_sleeps.clone(), down_sleeps.clone()),
            );
            let to_a = add(
                mul(up_sleeps.clone(), wake.clone()),
                mul(down_sleeps.clone(), notify.clone()),
            );
            let to_b = add(
                mul(spins, var("handoff_spin_s")),
                add(mul(down_sleeps, wake), mul(up_sleeps, notify)),
            );
            out[a] = add(out[a].clone(), to_a);
            out[b] = add(out[b].clone(), to_b);
        }
        out
    }

    /// The hand-offs of stages with times `base` (seconds per item before hand-offs), with
    /// the spin window `window_s` (None: every wait caught spinning).
    pub fn shares(base: &[f64], window_s: Option<f64>) -> Vec<HandoffShare> {
        base.windows(2)
            .enumerate()
            .map(|(a, w)| {
                let wait_s = (w[0] - w[1]).abs();
                let asleep = window_s.is_some_and(|x| wait_s > x);
                HandoffShare {
                    from_stage: a + 1,
                    to_stage: a + 2,
                    waiting_stage: if w[0] < w[1] { a + 1 } else { a + 2 },
                    wait_s,
                    regime: if asleep { "asleep" } else { "spinning" }.to_string(),
                    window_s,
                }
            })
            .collect()
    }

    /// One line for `lcm tree`: how the pipeline's hand-offs are priced.
    pub fn describe(&self) -> String {
        if !self.window {
            return "hand-offs: handoff_spin_s per item on each receiving stage (no handoff_spin_window_s in the machine file: every wait taken as caught spinning)".into();
        }
        format!(
            "hand-offs: per pair of stages the faster waits |tau_a - tau_b| per item; within handoff_spin_window_s the receiver pays handoff_spin_s, beyond it the waiting stage adds handoff_wake_s and the other {}",
            if self.notify {
                "handoff_notify_s"
            } else {
                "nothing (no handoff_notify_s in the machine file)"
            }
        )
    }
}

/// Marks every pipeline of the tree with the hand-off rule of `costs`.
pub fn apply(mut node: Node, costs: &Costs) -> Node {
    if let NodeKind::Pipeline { handoff, .. } = &mut node.kind {
        *handoff = Some(HandoffRule::of(costs));
    }
    node.children = std::mem::take(&mut node.children)
        .into_iter()
        .map(|c| apply(c, costs))
        .collect();
    node
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn eval(e: &Expr, window: f64) -> f64 {
        let b = BTreeMap::from([
            ("handoff_spin_s".to_string(), 1e-7),
            ("handoff_wake_s".to_string(), 1e-5),
            ("handoff_notify_s".to_string(), 3e-6),
            ("handoff_spin_window_s".to_string(), window),
        ]);
        e.eval(&b).unwrap()
    }

    fn per_item(rule: HandoffRule, taus: &[f64], window: f64) -> Vec<f64> {
        let base: Vec<Expr> = taus.iter().map(|t| Expr::Num(*t)).collect();
        rule.per_item(&base)
            .iter()
            .map(|e| eval(e, window))
            .collect()
    }

    const FULL: HandoffRule = HandoffRule {
        window: true,
        notify: true,
    };

    #[test]
    fn a_short_wait_is_caught_spinning() {
        // Stage 2 waits 3.5 µs per item, within a 5 µs window.
        let h = per_item(FULL, &[7.5e-6, 4e-6], 5e-6);
        assert_eq!(h, vec![0.0, 1e-7]);
    }

    #[test]
    fn a_long_wait_for_input_sleeps_and_the_sender_wakes_it() {
        // Stage 2 waits 20 µs per item: stage 1 pays the wake-up call, stage 2 the latency.
        let h = per_item(FULL, &[30e-6, 10e-6], 5e-6);
        assert_eq!(h, vec![3e-6, 1e-5]);
    }

    #[test]
    fn a_long_wait_for_room_sleeps_and_the_receiver_wakes_it() {
        let h = per_item(FULL, &[10e-6, 30e-6], 5e-6);
        assert_eq!(h, vec![1e-5, 3e-6]);
    }

    #[test]
    fn without_the_window_every_wait_spins_and_without_notify_the_waker_pays_nothing() {
        let old = HandoffRule {
            window: false,
            notify: true,
        };
        assert_eq!(per_item(old, &[30e-6, 10e-6], 5e-6), vec![0.0, 1e-7]);
        let no_notify = HandoffRule {
            window: true,
            notify: false,
        };
        assert_eq!(per_item(no_notify, &[30e-6, 10e-6], 5e-6), vec![0.0, 1e-5]);
    }

    #[test]
    fn a_middle_stage_adds_both_of_its_hand_offs() {
        // 1 -> 2: stage 2 waits 20 µs (asleep); 2 -> 3: stage 2 waits 1 µs for room (spinning).
        let h = per_item(FULL, &[30e-6, 10e-6, 11e-6], 5e-6);
        assert_eq!(h[0], 3e-6);
        assert!((h[1] - (1e-5 + 0.0)).abs() < 1e-18, "{h:?}");
        assert!((h[2] - 1e-7).abs() < 1e-18, "{h:?}");
        let s = HandoffRule::shares(&[30e-6, 10e-6, 11e-6], Some(5e-6));
        assert_eq!((s[0].waiting_stage, s[0].regime.as_str()), (2, "asleep"));
        assert_eq!((s[1].waiting_stage, s[1].regime.as_str()), (2, "spinning"));
    }
}
