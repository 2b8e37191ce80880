//! Where and why the predictions fall short: the report's and the binary's explanations.

use super::compare::PointResult;
use super::design::ProgramKind;
use super::{FragmentCheck, StudyResult};
use std::fmt::Write as _;

/// Where and why predictions fall short: every point over 15% error or ranked wrong, with
/// the fragments whose per-execution time was mispredicted most and the lost-cycles
/// categories of the measured run that the models did not foresee; then how the program's
/// predicted version is predicted, and what other load does to the measurements.
pub fn findings(r: &StudyResult) -> Vec<String> {
    let mut out: Vec<String> = r.points.iter().filter_map(|pt| shortfall(r, pt)).collect();
    if r.case.program == ProgramKind::Fft {
        out.push(fft_method(r));
    }
    if r.case.program == ProgramKind::Histogram {
        out.push(histogram_method(r));
    }
    if r.case.program == ProgramKind::Queens {
        out.push(queens_method(r));
    }
    if r.points.iter().any(|p| p.p > 1) {
        out.push(load_caveat(r));
    }
    out
}

/// One point's shortfall (None when it is within 15% and ranked right): the error, then
/// why, with the worst fragments and the measured session's categories.
fn shortfall(r: &StudyResult, pt: &PointResult) -> Option<String> {
    let other = r.case.other.name;
    let err = pt.err_pct();
    if err <= 15.0 && pt.ranking_correct() {
        return None;
    }
    let mut text = format!(
        "{}={} p={}: {other} predicted {:.4} s, measured {:.4} s ({}{:.1}%)",
        r.case.size_var,
        pt.n,
        pt.p,
        pt.predicted,
        pt.measured,
        if pt.predicted < pt.measured {
            "under by "
        } else {
            "over by "
        },
        err
    );
    ranking_notes(r, pt, &mut text);
    worst_fragments(r, pt, &mut text);
    session_shares(r, pt, &mut text);
    Some(text)
}

/// Machine drift between the phases, and why the ranking came out wrong.
fn ranking_notes(r: &StudyResult, pt: &PointResult, text: &mut String) {
    let (base, other) = (r.case.base.name, r.case.other.name);
    let drift = pt.drift();
    if drift.is_finite() && drift.abs() > 0.1 {
        let _ = write!(
            text,
            "; {base} took {:.4} s here when calibrated and {:.4} s again beside {other} \
             ({:+.0}%): the machine's speed changed between the phases by that much, \
             which no model carries",
            pt.calibrated_base,
            pt.measured_base,
            100.0 * drift
        );
    }
    if !pt.ranking_correct() && pt.too_close_to_call() {
        let _ = write!(
            text,
            "; the two predictions ({other} {:.4} s, {base} {:.4} s) differ by less than their uncertainty (±{:.0}%, {base}'s own prediction error here): too close to call",
            pt.predicted,
            pt.predicted_base,
            100.0 * pt.uncertainty
        );
    }
    if !pt.ranking_correct() && pt.measured_tie() {
        let _ = write!(
            text,
            "; measured tie: the two versions measured {:.1}% apart, within their run-to-run spread here ({:.1}%), so the measured ranking is noise",
            100.0 * pt.measured_margin().abs(),
            100.0 * pt.noise
        );
    }
    if !pt.ranking_correct() {
        let _ = write!(
            text,
            "; ranking wrong: predicted {} faster, measured {} faster ({base} {:.4} s predicted, {:.4} s measured)",
            if pt.predicted_better() { other } else { base },
            if pt.measured_better() { other } else { base },
            pt.predicted_base,
            pt.measured_base
        );
    }
}

/// The two fragments whose per-execution time was mispredicted most at this point
/// (weighted by the iterations).
fn worst_fragments(r: &StudyResult, pt: &PointResult, text: &mut String) {
    let mut worst: Vec<&FragmentCheck> = r
        .fragment_checks
        .iter()
        .filter(|c| c.n == pt.n && c.p == pt.p && c.measured > 0.0)
        .collect();
    worst.sort_by(|a, b| {
        let ea = (a.predicted - a.measured).abs() * r.iters_of(a.n) as f64;
        let eb = (b.predicted - b.measured).abs() * r.iters_of(b.n) as f64;
        eb.total_cmp(&ea)
    });
    for c in worst.iter().take(2) {
        let _ = write!(
            text,
            "; fragment {} on {} thread(s): {:.3e} s per execution predicted, {:.3e} s measured",
            c.fragment, c.p_fragment, c.predicted, c.measured
        );
    }
}

/// The measured session's lost-cycles shares of the predicted version at this point, with
/// what a large sl or ml means.
fn session_shares(r: &StudyResult, pt: &PointResult, text: &mut String) {
    let other = r.case.other.name;
    if let Some(run) = r.other_runs.iter().find(|x| x.n == pt.n && x.p == pt.p) {
        let tt = run.session.get("tt").copied().unwrap_or(0.0);
        if tt > 0.0 {
            let share = |k: &str| 100.0 * run.session.get(k).copied().unwrap_or(0.0) / tt;
            let _ = write!(
                text,
                "; measured {other} session: sl {:.0}%, li {:.0}%, ip {:.0}%, ml {:.0}% of tt",
                share("sl"),
                share("li"),
                share("ip"),
                share("ml")
            );
            if share("sl") > 10.0 {
                let _ = write!(text, " (the tasks wait for each other on the channel: the stages are unbalanced, or the hand-off per iteration costs more than the fragment models carry)");
            }
            if share("ml") > 10.0 {
                let _ = write!(text, " (work inflation at p = {}: the processors did more work than one does alone, from sharing caches and memory bandwidth or from speculative work that pplib could not mark as wasted because it ended after the answer was known; the p_f = 1 fragment models, measured alone, do not carry it)", pt.p);
            }
        }
    }
}

/// How the FFT's task-parallel version is predicted from the data-parallel one.
fn fft_method(r: &StudyResult) -> String {
    let (base, other) = (r.case.base.name, r.case.other.name);
    format!(
        "How {other} is predicted from {base}: with {} cores each task of {other} gets {} \
         thread(s); its fragments are {base}'s models at that p (`like`), with the rules \
         written in {other}'s source, in the machine file's keys (`lcm calibrate`; \
         docs/machine.md) and nothing the study measures itself: (a) the two tasks run at \
         once, so each fragment's work slows by the memory contention the rule in the source \
         derives from `mem_slowdown_kK`; (b) task B's transpose reads the matrix task A \
         wrote on its own processor (`// lcm: input a`, `bytes = 16*n^2`): lcm prices what \
         reading those bytes from another processor's cache adds over reading them where \
         they were written (`transfer_s_B` − `local_read_s_B`, interpolated by bytes); \
         (c) lcm recognizes the two task loops linked by the channel as a pipeline and \
         prices each hand-off from the stage times: when the faster stage waits per item \
         no longer than the channel's spin window (`handoff_spin_window_s`) it is caught \
         spinning (`handoff_spin_s`), when it waits longer it parks on a share of the items \
         (its wait over the wait plus the part of `handoff_wake_s` that `handoff_notify_s` \
         does not cover, every item once it waits that much beyond the window: woken late, \
         it catches up before it parks again): on those the other stage pays the wake-up \
         call (`handoff_notify_s`) and the \
         woken one starts `handoff_wake_s` late, which never makes it the slower stage. The \
         matrices are allocated before the tasks start (`alloc`, once \
         per matrix: {base} allocates two, {other} three), priced per allocation by \
         {base}'s model. Not priced: the matrix's cache lines going back to task A when \
         its `init` overwrites the matrix B has read.",
        r.cores,
        (r.cores / 2).max(1),
    )
}

/// How the sharded histogram is predicted from the single-lock one.
fn histogram_method(r: &StudyResult) -> String {
    let (base, other) = (r.case.base.name, r.case.other.name);
    format!(
        "How {other} is predicted from {base}: {base}'s fitted models (fork/join, \
         insufficient parallelism, pure computation, the same loop), with the \
         synchronization loss (sl) divided by the {} shards (with keys spread evenly an \
         increment finds its shard's lock held 1/{} as often), and in place of {base}'s \
         memory loss (its one lock's line bouncing while the lock serializes the threads) \
         the shards the threads now update at once: a key's shard was last updated by \
         another processor with the chance (p − 1)/p, and its update then moves the \
         shard's lock line and its bucket line, priced at the machine file's \
         `line_lock_s` (`lcm calibrate`: an update under a lock of its own, on two lines), \
         plus its `line_bounce_per_thread_s` per line for each \
         processor beyond two (`lcm calibrate`: threads pinned to processors of their own \
         updating shared lines at once); its load imbalance is {base}'s scaled by how much \
         shorter an item now is. Not \
         modelled: the chance that an increment finds its shard's lock held while the \
         other thread is preempted (other load on the host), and that the price of a line \
         moving between the two processors changes during the study: on a virtual machine \
         it depends on where the host places the two virtual processors, which the guest \
         cannot see.",
        crate::histogram::SHARDS,
        crate::histogram::SHARDS
    )
}

/// How tree-parallel n-queens is predicted from loop-parallel n-queens.
fn queens_method(r: &StudyResult) -> String {
    let (base, other) = (r.case.base.name, r.case.other.name);
    format!(
        "How {other} is predicted from {base}: {base}'s models per count, divided by its trip count `groups` for {base}'s own loop; \
         {other} is one parallel loop over all groups' items, so the load imbalance and \
         insufficient parallelism paid at the end of each of {base}'s loops are paid once. \
         Why the two versions' predictions lie close: at p = 1 both do the serial \
         search (same pc, the overheads of parallel execution vanish), and \
         where the first group holds the first k solutions (groups = 1) {base} is one \
         parallel loop too. What differs, and is modelled: {other}'s speculation. Its \
         parallel loop hands each thread a contiguous block of the items (rayon's halving); \
         a thread whose block lies after the item that completes the quota only speculates \
         until the quota is met and cannot help, so a count lasts as long as the largest \
         block's useful work: `span` (that share of the useful work, from the serial \
         search's work per item; 1 at p = 2 until the first half of the items is needed) \
         gives {other}'s `wc = pc * (p * span - 1)` in place of {base}'s (speculation \
         within one group). {other} also starts every item of the board each count \
         (`walked`), needed or not, where {base} starts those of the groups it visits \
         (`base_walked`): each further item pays a parallel iterator's price of a cheap \
         item at p threads (`par_item_s` and its share of `par_call_s_pQ`, machine keys). \
         Not modelled: the check each such item runs (a few nanoseconds on one thread, \
         {other}'s own code), which shows at small k and p = 1."
    )
}

/// What other load on the machine does to the p > 1 measurements, and how the study
/// guards against it.
fn load_caveat(r: &StudyResult) -> String {
    format!(
        "All p > 1 measurements are sensitive to other load on the machine. The study \
             times every point's repetitions round robin with all other points of its phase, \
             counts only repetitions during which other processes held less than {:.0}% of \
             the machine, and keeps the fastest (see *Measurement conditions*: load average \
             {} before, {} after). On a virtual machine, other guests on the same host slow \
             it in ways no counter inside shows: the spread of the counted repetitions \
             (median − kept) measures that; run the study on a quiet machine for numbers \
             that reflect the programs.",
        100.0 * super::load::QUIET_SHARE,
        r.conditions
            .load_before
            .map_or("unknown".to_string(), |l| format!("{:.2}", l.0)),
        r.conditions
            .load_after
            .map_or("unknown".to_string(), |l| format!("{:.2}", l.0)),
    )
}
