//! The readable account of a pipeline in `lcm predict`'s single-point report: the
//! pipeline's time, each stage's time per item (its hand-offs included) with the bottleneck
//! marked, and each hand-off saying which stage waits for which, for what, and who pays.
//!
//! Two comparisons are at work and the text names both. The bottleneck is the stage with
//! the largest items × seconds per item *with* its hand-offs (what the flow shop's time
//! rests on). Which stage waits is judged per pair of neighbours on their times *before*
//! hand-offs (the rule of [`super::handoff`]): the faster one waits for the slower one, and
//! past the spin window it parks on a share of its items, which the text gives. The rule
//! charges the waiting stage at most its slack, so it never comes out as the bottleneck
//! of the pair.

use super::account::{PipelineShare, StageShare};
use super::handoff::HandoffShare;
use super::report::{secs, signed, trim};
use std::fmt::Write as _;

/// A stage's label without the `stage K: ` prefix the recognizer gives it.
fn stage_label(s: &StageShare) -> &str {
    match s.label.split_once(": ") {
        Some((head, rest)) if head.starts_with("stage ") => rest,
        _ => &s.label,
    }
}

/// The pipeline's lines, indented under the overheads heading; `p` is the machine's
/// processors (the waiting's share of T is its processor-seconds over p); `notify`: the
/// machine file has `handoff_notify_s` (without it a wake-up costs the waker nothing).
pub fn pipeline_lines(pl: &PipelineShare, p: f64, notify: bool) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "  pipeline (line {}): {} stages, {} items, fill {} s, bottleneck stage {} (largest items x s/item, hand-offs included); T = {} s (phi/omega bound {}): {}",
        pl.line,
        pl.stages.len(),
        trim(pl.stages[0].items),
        secs(pl.fill_s),
        pl.bottleneck + 1,
        secs(pl.time_s),
        secs(pl.bound_s),
        signed(pl.waiting / p)
    );
    for (i, s) in pl.stages.iter().enumerate() {
        let handoffs = if pl.handoffs.is_empty() {
            String::new()
        } else {
            format!(" (of which hand-offs {} s)", secs(s.handoff_s))
        };
        let _ = writeln!(
            o,
            "    stage {} ({}): {} items x {} s{handoffs}{}",
            i + 1,
            stage_label(s),
            trim(s.items),
            secs(s.tau_s),
            if i == pl.bottleneck {
                ": the bottleneck"
            } else {
                ""
            }
        );
    }
    for h in &pl.handoffs {
        let _ = writeln!(o, "    {}", handoff_text(h, notify));
    }
    o
}

/// One hand-off: who waits for whom and for what, how long, in which regime, who pays.
fn handoff_text(h: &HandoffShare, notify: bool) -> String {
    let (from, to, waiting) = (h.from_stage, h.to_stage, h.waiting_stage);
    let waits = if h.wait_s == 0.0 {
        format!("stages {from} and {to} take equal time per item before hand-offs: neither waits")
    } else if waiting == to {
        format!(
            "stage {from} is slower by {} s per item before hand-offs, so stage {to} waits that long for each item from it",
            secs(h.wait_s)
        )
    } else {
        format!(
            "stage {to} is slower by {} s per item before hand-offs, so stage {from} waits that long for room to hand each item to it",
            secs(h.wait_s)
        )
    };
    let regime = match (h.regime.as_str(), h.window_s) {
        ("asleep", Some(w)) => {
            let other = if waiting == to { from } else { to };
            let waker = if notify {
                format!("stage {other} pays handoff_notify_s to wake it")
            } else {
                format!("stage {other} pays nothing to wake it (no handoff_notify_s in the machine file)")
            };
            let share = if h.parked_share >= 1.0 {
                "every item: on each".to_string()
            } else {
                format!(
                    "{:.0} % of the items, caught spinning on the others (stage {to} pays handoff_spin_s); on each it sleeps on",
                    100.0 * h.parked_share
                )
            };
            format!(
                "asleep (longer than the spin window, {} s) on {share}, {waker} and stage {waiting} pays handoff_wake_s",
                secs(w)
            )
        }
        (_, Some(w)) => format!(
            "caught spinning (within the spin window, {} s): stage {to} pays handoff_spin_s per item",
            secs(w)
        ),
        (_, None) => format!(
            "taken as caught spinning (no handoff_spin_window_s in the machine file): stage {to} pays handoff_spin_s per item"
        ),
    };
    format!("hand-off stage {from} -> {to}: {waits}; {regime} (machine hand-off)")
}
