//! The readable account of a pipeline in `lcm predict`'s single-point report: the
//! pipeline's time, each stage's time per item (its hand-offs included) with the bottleneck
//! marked, and each hand-off saying which stage waits for which, for what, and who pays.
//!
//! Two comparisons are at work and the text names both. The bottleneck is the stage with
//! the largest items × seconds per item *with* its hand-offs (what the flow shop's time
//! rests on). Which stage waits is judged per pair of neighbours on their times *before*
//! hand-offs (the rule of [`super::handoff`]): the faster one waits for the slower one.
//! When the woken stage's `handoff_wake_s` exceeds its wait plus what the other stage pays,
//! the waiting stage comes out slower than the one it waits for; the report then says so,
//! and by how much T may be overstated (a stage that slow would not wait for every item).

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
        if let Some(note) = waiting_stage_came_out_slower(pl, h) {
            let _ = writeln!(o, "      {note}");
        }
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
                format!("stage {other} pays handoff_notify_s per item to wake it")
            } else {
                format!("stage {other} pays nothing to wake it (no handoff_notify_s in the machine file)")
            };
            format!(
                "asleep (longer than the spin window, {} s): {waker}, stage {waiting} handoff_wake_s",
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

/// A note when the stage that waits (judged before hand-offs) takes longer than the stage
/// it waits for once both carry their hand-offs: the rule's regime is then not what a run
/// does on every item, and T may be overstated by up to the difference over all items.
fn waiting_stage_came_out_slower(pl: &PipelineShare, h: &HandoffShare) -> Option<String> {
    if h.wait_s == 0.0 {
        return None;
    }
    let waiting = h.waiting_stage;
    let other = if waiting == h.to_stage {
        h.from_stage
    } else {
        h.to_stage
    };
    let (w, o) = (&pl.stages[waiting - 1], &pl.stages[other - 1]);
    let excess_s = w.items * w.tau_s - o.items * o.tau_s;
    (excess_s > 0.0).then(|| {
        format!(
            "stage {waiting} waits for stage {other}, yet with their hand-offs it is the slower of the two (by {} s over its items): the rule judges each wait once, on the times before hand-offs, and a stage that slow would not wait for every item, so T may be overstated by up to about that much",
            secs(excess_s)
        )
    })
}
