//! The hand-off rule of pipelines: what passing an item from one stage to the next costs,
//! chosen per hand-off by how long the waiting stage waits.
//!
//! In a pipeline (recognized by [`super::pipeline`]) every item goes from stage a to stage
//! a+1 over a channel; in steady state the faster of two neighbouring stages waits for the
//! slower one, `D = |tau_a − tau_b|` seconds per item (stage times per item without
//! hand-offs, the flow shop's): the downstream stage waits for its input when the upstream
//! one is slower, the upstream stage waits for room (a full bounded channel, or buffers
//! given back) when the downstream one is slower. A thread blocked on a channel spins for a
//! while before it parks (`handoff_spin_window_s`, `w`, measured by `lcm calibrate`); a
//! parked thread runs `handoff_wake_s` (`W`) after the hand-off that wakes it, later than a
//! spinning one would, and waking it costs the stage that hands over `handoff_notify_s`.
//!
//! **Which items park.** A wake-up is a delay of the waiting stage, not work: the woken
//! stage starts its item `W` late, finishes it late, and finds the next items already
//! waiting; it works through them back to back (it is the faster stage) until it is ahead
//! again and waits, and parks again only once a wait outlasts the window. The slower stage
//! keeps the pace throughout, as long as the items in flight cover the delay (below).
//! Per item the waiting stage gains `D` of slack, and on an item it parks on another
//! `handoff_notify_s` (`N`: the slower stage's wake-up call delays the next item); a park
//! spends `W` of it, and the wait that ended in the park another `D`. With `L = max(0,
//! W − N)`, the part of the wake-up the call does not cover, it parks in steady state on a
//! share
//!
//! - `0` of its items when `D ≤ w` (every wait is caught spinning),
//! - `D / (D + L)` when `w < D ≤ L + w` (after each wake-up it is behind and catches up
//!   over about `L / D` items),
//! - `1` when `D > L + w` (it is ahead again before the next item and parks on every one).
//!
//! A simulation of two stages with constant item times and of the FFT's pipeline (two
//! matrices in flight) gives these shares within a few hundredths where the items in flight
//! cover the delay (e.g. stages of 44.3 and 32.4 µs, `w` = 6.7 µs, item times varying by
//! 5 %: 0.49 parks per item with `W` = 20 µs and `N` = 7.9 µs, 0.49 here; 0.50 with 21.2
//! and 11.3 µs, 0.54 here; 0.25 with 42 and 7.9 µs in an unbounded channel, 0.26 here).
//!
//! Per item, with `s` that share, the stage that hands over (the slower one) pays
//! `s · handoff_notify_s`, the waiting stage adds `s · handoff_wake_s`, and the receiving
//! stage pays `handoff_spin_s` on the other `1 − s` (the item's trip of a cache line). The
//! waiting stage's time with its wake-ups stays below the slower stage's with its wake-up
//! calls (`s · (W − N) < D`): the wake-up latency shows in the breakdown and in the
//! pipeline's fill but never sets the pace. What makes a pipeline slower is the sender's
//! wake-up calls, on the share of items whose receiver parked. A larger `W` makes the
//! waiting stage park less often; a prediction does not jump when `D` crosses `w` by more
//! than `w / (w + L)` wake-up calls per item.
//!
//! Assumed: the items in flight (the channel's places, buffers handed back) cover the
//! woken stage's delay, roughly `W` below their number times the slower stage's time per
//! item less the faster one's. Beyond that the slower stage runs out of room or buffers, waits
//! (and may park) itself, and the pipeline stalls by about a wake-up per park, which the
//! rule does not price: in the FFT's pipeline above (two matrices) the simulation stalls
//! from `W` ≈ 22 µs on (80 µs per item at 42 µs), while the run measured with a machine
//! file of 42 µs took 51.1 µs per item: the run's wake-ups were shorter than that
//! calibration's. Also assumed: item times that vary less than `w − D` where `D ≤ w`. The
//! channel's own window edge is sharp (the calibration's receiver parks after almost none
//! or almost all of the waits on either side of it), so a mean wait just below the window
//! parks on the items that run long, which this rule, reading mean stage times, prices as
//! spinning (docs/models.md, "Pipelines and their hand-offs"). A stage with two neighbours adds what each of its hand-offs gives it. The
//! rule reads the stage times before hand-offs (one decision per hand-off, not iterated).
//! Without `handoff_spin_window_s` in the machine file every wait counts as caught spinning;
//! without `handoff_notify_s` a wake-up costs the waker nothing (`N` = 0). Without run-time
//! costs in the machine file (or no `--machine`) no hand-off is priced.
//!
//! The rule is an expression in the machine keys (`handoff_spin_s`, `handoff_wake_s`,
//! `handoff_notify_s`, `handoff_spin_window_s`), so the composed PAMELA model carries it and
//! `lcm predict`'s breakdown shows it as `machine hand-off` with each hand-off's regime and
//! parked share.

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
    /// The share of items (0 to 1) on which the waiting stage parks: 0 when spinning; asleep,
    /// `wait_s / (wait_s + L)` up to a wait of `L` beyond the window and 1 beyond that, `L`
    /// the part of `handoff_wake_s` that `handoff_notify_s` does not cover (module docs). The
    /// sender pays `handoff_notify_s` on these items.
    pub parked_share: f64,
    /// The spin window the regime was judged by (seconds; None: the machine file has no
    /// `handoff_spin_window_s`, and every wait is taken as caught spinning).
    pub window_s: Option<f64>,
}

/// The name the hand-offs' work has in a prediction's breakdown.
pub const NAME: &str = "machine hand-off";

fn var(name: &str) -> Expr {
    Expr::Var(name.to_string())
}

/// 1 when `x` exceeds `t` (positive), else 0: `min(1, ceil(max(0, x − t) / t))`.
fn beyond(x: Expr, t: Expr) -> Expr {
    let over = Expr::Call(
        Func::Max,
        vec![Expr::Num(0.0), Expr::bin(BinOp::Sub, x, t.clone())],
    );
    Expr::Call(
        Func::Min,
        vec![
            Expr::Num(1.0),
            Expr::Call(Func::Ceil, vec![Expr::bin(BinOp::Div, over, t)]),
        ],
    )
}

/// The share of items on which a stage that waits `x` per item parks (see the module
/// docs), as an expression in the machine keys and `notify` (the wake-up call's price, 0
/// without `handoff_notify_s`): with `w` the spin window and `L = max(0, W − notify)` the
/// part of the wake-up `W` the call does not cover,
/// `beyond(x, w) · max(x / max(x + L, w), beyond(x, L + w))` (the inner `max` keeps the
/// quotient finite where `x` is negative or both are 0; the factor `beyond(x, w)` makes the
/// share 0 there).
fn parked_share(x: Expr, notify: &Expr) -> Expr {
    let w = var("handoff_spin_window_s");
    let lag = Expr::Call(
        Func::Max,
        vec![
            Expr::Num(0.0),
            Expr::bin(BinOp::Sub, var("handoff_wake_s"), notify.clone()),
        ],
    );
    let catch_up = Expr::bin(
        BinOp::Div,
        x.clone(),
        Expr::Call(
            Func::Max,
            vec![Expr::bin(BinOp::Add, x.clone(), lag.clone()), w.clone()],
        ),
    );
    let every = beyond(x.clone(), Expr::bin(BinOp::Add, lag, w.clone()));
    mul(beyond(x, w), Expr::Call(Func::Max, vec![catch_up, every]))
}

/// The share of items on which a stage that waits `wait_s` per item parks, with spin window
/// `window_s`, wake-up price `wake_s` and wake-up call `notify_s` (0 without
/// `handoff_notify_s`): what the rule's expression gives.
pub fn parked_share_of(wait_s: f64, window_s: f64, wake_s: f64, notify_s: f64) -> f64 {
    let lag_s = (wake_s - notify_s).max(0.0);
    if wait_s <= window_s {
        0.0
    } else if wait_s > lag_s + window_s {
        1.0
    } else {
        wait_s / (wait_s + lag_s)
    }
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
            // The upstream stage waits for room, the downstream stage for input: the share of
            // items on which each parks (0 for the one that does not wait).
            let up_parks = parked_share(diff(&base[b], &base[a]), &notify);
            let down_parks = parked_share(diff(&base[a], &base[b]), &notify);
            let spins = Expr::bin(
                BinOp::Sub,
                Expr::Num(1.0),
                add(up_parks.clone(), down_parks.clone()),
            );
            let to_a = add(
                mul(up_parks.clone(), wake.clone()),
                mul(down_parks.clone(), notify.clone()),
            );
            let to_b = add(
                mul(spins, var("handoff_spin_s")),
                add(mul(down_parks, wake), mul(up_parks, notify)),
            );
            out[a] = add(out[a].clone(), to_a);
            out[b] = add(out[b].clone(), to_b);
        }
        out
    }

    /// The hand-offs of stages with times `base` (seconds per item before hand-offs), with
    /// the spin window `window_s` (None: every wait caught spinning), the wake-up price
    /// `wake_s` and the wake-up call `notify_s` (0 without `handoff_notify_s`).
    pub fn shares(
        base: &[f64],
        window_s: Option<f64>,
        wake_s: f64,
        notify_s: f64,
    ) -> Vec<HandoffShare> {
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
                    parked_share: window_s
                        .map_or(0.0, |x| parked_share_of(wait_s, x, wake_s, notify_s)),
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
            "hand-offs: per pair of stages the faster waits D = |tau_a - tau_b| per item; within handoff_spin_window_s (w) the receiver pays handoff_spin_s, beyond it the waiting stage parks on a share of the items (D/(D + L), 1 beyond D = L + w, L = handoff_wake_s less the wake-up call), adds handoff_wake_s on those and the other stage pays {} on them",
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
        // Stage 2 waits 20 µs per item, more than the wake-up (10 µs) beyond the 5 µs window:
        // it parks on every item; stage 1 pays the wake-up call, stage 2 the latency.
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
        let s = HandoffRule::shares(&[30e-6, 10e-6, 11e-6], Some(5e-6), 1e-5, 3e-6);
        assert_eq!((s[0].waiting_stage, s[0].regime.as_str()), (2, "asleep"));
        assert_eq!((s[1].waiting_stage, s[1].regime.as_str()), (2, "spinning"));
    }

    #[test]
    fn a_wait_shorter_than_a_wake_up_parks_on_a_share_of_the_items() {
        // Stage 2 waits 7 µs per item: beyond the 5 µs window, within the part of the
        // wake-up (10 µs) that the wake-up call (3 µs) does not cover, 7 µs, beyond it. After
        // each wake-up it is behind and catches up over the next item: it parks on
        // 7 / (7 + 7) = half of the items. Stage 1 pays half a wake-up call (1.5 µs), stage
        // 2 half the latency (5 µs) and a spinning hand-off on the other half (0.05 µs).
        let h = per_item(FULL, &[27e-6, 20e-6], 5e-6);
        assert!((h[0] - 1.5e-6).abs() < 1e-18, "{h:?}");
        assert!((h[1] - 5.05e-6).abs() < 1e-18, "{h:?}");
        // The same wait for room: the roles turn.
        let r = per_item(FULL, &[20e-6, 27e-6], 5e-6);
        assert!(
            (r[0] - 5e-6).abs() < 1e-18 && (r[1] - 1.55e-6).abs() < 1e-18,
            "{r:?}"
        );
        let s = HandoffRule::shares(&[27e-6, 20e-6], Some(5e-6), 1e-5, 3e-6);
        assert_eq!(s[0].regime, "asleep");
        assert!((s[0].parked_share - 0.5).abs() < 1e-12, "{s:?}");
        // Without the wake-up call's key the whole wake-up is to catch up: 7 / 17.
        let no_notify = HandoffRule {
            window: true,
            notify: false,
        };
        let n = per_item(no_notify, &[27e-6, 20e-6], 5e-6);
        assert!(
            (n[1] - (7.0 / 17.0 * 1e-5 + 10.0 / 17.0 * 1e-7)).abs() < 1e-18,
            "{n:?}"
        );
        // Spinning, and without the window: no park.
        assert_eq!(
            HandoffRule::shares(&[7.5e-6, 4e-6], Some(5e-6), 1e-5, 3e-6)[0].parked_share,
            0.0
        );
        assert_eq!(
            HandoffRule::shares(&[27e-6, 20e-6], None, 1e-5, 3e-6)[0].parked_share,
            0.0
        );
    }

    /// `rule`'s hand-offs of two stages `taus` at the given window, wake-up and call.
    fn per_item_at(taus: [f64; 2], window: f64, wake: f64, notify: f64) -> Vec<f64> {
        let base = [Expr::Num(taus[0]), Expr::Num(taus[1])];
        let b = BTreeMap::from([
            ("handoff_spin_s".to_string(), 1e-7),
            ("handoff_wake_s".to_string(), wake),
            ("handoff_notify_s".to_string(), notify),
            ("handoff_spin_window_s".to_string(), window),
        ]);
        FULL.per_item(&base)
            .iter()
            .map(|e| e.eval(&b).unwrap())
            .collect()
    }

    #[test]
    fn the_expression_and_the_number_give_the_same_share() {
        for window in [1e-6, 5e-6, 430e-6] {
            for (wake, notify) in [
                (1e-9, 3e-6),
                (1e-6, 3e-6),
                (1e-5, 3e-6),
                (4.2e-5, 7.9e-6),
                (3e-3, 1.1e-5),
            ] {
                for k in 0..=60 {
                    let d = 1e-7 * 1.3f64.powi(k);
                    let h = per_item_at([20e-6 + d, 20e-6], window, wake, notify);
                    let share = h[0] / notify;
                    let want = parked_share_of(d, window, wake, notify);
                    assert!(
                        (share - want).abs() < 1e-9,
                        "d {d} w {window} W {wake}: {share} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_waiting_stage_never_sets_the_pace_however_dear_its_wake_up() {
        // The waiting stage's time with its wake-ups stays below the slower stage's with its
        // wake-up calls, for any wait, window, wake-up and call: a dear wake-up makes it park
        // less often, it does not slow the pipeline.
        for window in [1e-6, 6.7e-6, 430e-6] {
            for wake in [1e-9, 1e-6, 2.1e-5, 4.2e-5, 1e-4, 3e-3] {
                for notify in [1e-6, 7.9e-6, 1.13e-5] {
                    for k in 0..=80 {
                        let d = 1e-7 * 1.25f64.powi(k);
                        if d <= window {
                            continue; // caught spinning: no wake-up
                        }
                        let taus = [20e-6 + d, 20e-6];
                        let h = per_item_at(taus, window, wake, notify);
                        // Stage 2's wake-ups: what it adds beyond its spinning hand-offs.
                        let share = h[0] / notify;
                        let wake_ups = h[1] - (1.0 - share) * 1e-7;
                        assert!(
                            taus[1] + wake_ups < taus[0] + h[0],
                            "d {d} w {window} W {wake} N {notify}: {h:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_share_grows_with_the_wait_and_steps_little_at_the_window() {
        let (window, wake, notify) = (6.7e-6, 4.2e-5, 7.9e-6);
        let lag = wake - notify;
        let mut last = 0.0;
        for k in 0..=400 {
            let d = 1e-7 * k as f64 * 2.0;
            let s = parked_share_of(d, window, wake, notify);
            assert!(s >= last, "{d}: {s} < {last}");
            last = s;
        }
        // Just past the window the stage parks on w / (w + W - N) of its items (16 %), not
        // on all of them: the price steps by that share of a wake-up call.
        let just = parked_share_of(window * 1.000001, window, wake, notify);
        assert!((just - window / (window + lag)).abs() < 1e-6, "{just}");
        assert_eq!(
            parked_share_of(window + lag + 1e-9, window, wake, notify),
            1.0
        );
        // A call dearer than the wake-up leaves nothing to catch up: every item parks.
        assert_eq!(parked_share_of(window * 1.01, window, 5e-6, 7.9e-6), 1.0);
    }

    #[test]
    fn the_2_core_fft_at_n_128_keeps_its_pace_with_either_wake_price() {
        // The study's tp at n = 128, p = 2 on the 2-core machine (stage times before
        // hand-offs as lcm predicted them: 44.25 and 32.41 µs; spin window 6.73 µs), with
        // the two calibrations' prices (wake-up 42.0 µs and call 7.9 µs; 21.2 and 11.3 µs):
        // charging the whole wake-up on every item past the window made stage 2 take 74.4
        // and 53.6 µs per item, and the 42 µs prediction of tp 46 % slow. Now stage 2 parks
        // on 11.84 / (11.84 + W - N) of its items, 0.26 and 0.54, and stage 1 keeps the pace
        // with either price, paying that share of the call.
        let taus = [44.25e-6, 32.41e-6];
        for (wake, notify) in [(4.2e-5, 7.9e-6), (2.12e-5, 1.13e-5)] {
            let h = per_item_at(taus, 6.727e-6, wake, notify);
            let share = 11.84e-6 / (11.84e-6 + wake - notify);
            assert!((h[0] - share * notify).abs() < 1e-12, "{h:?}");
            assert!(taus[1] + h[1] < taus[0] + h[0], "{h:?}");
        }
    }
}
