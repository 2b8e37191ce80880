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
                let _ = write!(text, " (work inflation at p = {}: the tasks run at once and share caches and memory bandwidth, which the p_f = 1 fragment models, measured alone, do not carry)", pt.p);
            }
        }
    }
}

/// How the FFT's task-parallel version is predicted from the data-parallel one.
fn fft_method(r: &StudyResult) -> String {
    let (base, other) = (r.case.base.name, r.case.other.name);
    let co: Vec<String> = r
        .co_run
        .iter()
        .filter(|(f, _)| !r.case.setup.contains(&f.as_str()))
        .map(|(f, k)| format!("{f} +{:.0}%", 100.0 * k))
        .collect();
    format!(
        "How {other} is predicted from {base}: with {} cores each task of {other} gets {} \
         thread(s); its fragments are {base}'s models at that p, plus (a) the slowdown \
         measured when {base} runs beside a second instance of the program's kernels \
         (co-run calibration, as a share of pure computation: {}), since {other}'s two tasks \
         share the machine, (b) the move of the matrix that task A hands to task B \
         (`// lcm: input a` on transpose): task B's transpose reads lines that sit in \
         task A's cache, which {base}'s p = 1 run found in its own; measured at every \
         size by a microbenchmark of the program's kernels (a transpose of a matrix \
         written by another thread, while that thread goes on writing the next matrix, against \
         one written by the transposing thread) and added to transpose as `ml`: {}, and \
         (c) the hand-off between the tasks, measured by a microbenchmark of the \
         pipeline's wiring at the predicted stage times (blocked threads are woken \
         through the kernel; the median of its quiet runs, since a run's waits either \
         are caught while the waiting thread spins or sleep until woken) and added to \
         the first fragment of each stage as `sl`: {}. \
         The matrices are allocated before the tasks start (`alloc`, once per matrix: \
         {base} allocates two, {other} three; the first write to each fresh page faults, \
         some 7 ms per matrix at n = 1024 here), priced per allocation by {base}'s \
         model. Not priced: the matrix's cache lines going back to task A when its `init` \
         overwrites the matrix B has read (whole lines overwritten are only invalidated \
         in B's cache, not copied back).",
        r.cores,
        (r.cores / 2).max(1),
        if co.is_empty() {
            "none".to_string()
        } else {
            co.join(", ")
        },
        {
            let mut seen = Vec::new();
            r.handoffs
                .iter()
                .filter(|h| {
                    let new = !seen.contains(&h.n);
                    seen.push(h.n);
                    new
                })
                .map(|h| format!("{}={}: {:.1} µs", r.case.size_var, h.n, 1e6 * h.transfer))
                .collect::<Vec<_>>()
                .join(", ")
        },
        r.handoffs
            .iter()
            .map(|h| format!(
                "{}={} p={}: {:.1} µs per item (stages {:.1} µs and {:.1} µs)",
                r.case.size_var,
                h.n,
                h.p,
                1e6 * h.seconds,
                1e6 * h.stages[0],
                1e6 * h.stages[1]
            ))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// How the sharded histogram is predicted from the single-lock one.
fn histogram_method(r: &StudyResult) -> String {
    let (base, other) = (r.case.base.name, r.case.other.name);
    let kernel = r.kernels.map_or(
        "the kernel microbenchmark gave nothing usable, so the locked version's memory loss \
         was kept"
            .to_string(),
        |k| {
            format!(
                "the kernel microbenchmark (uninstrumented, before {other} ran) timed {base}'s \
                 kernel at {:.1} ns per key and {other}'s at {:.1} ns on one thread (work \
                 ratio {:.3}, applied to pc), and {other}'s at {:.1} ns of processor time per \
                 key on two threads at once: {:.1} ns per key lost to the two processors \
                 fighting over the same shards' lock and bucket lines, which replaces \
                 {base}'s memory loss (the bouncing of its one lock's line, paid while the \
                 lock serializes the threads)",
                1e9 * k.base_key_s,
                1e9 * k.other_key_s,
                k.work_ratio(),
                1e9 * k.concurrent_key_s,
                1e9 * k.concurrent_loss_s()
            )
        },
    );
    format!(
        "How {other} is predicted from {base}: {base}'s fitted models (load imbalance, \
         insufficient parallelism, the same loop), with the synchronization loss (sl) \
         divided by the {} shards (with keys spread evenly an increment finds its shard's \
         lock held 1/{} as often); {kernel}. Not modelled: the chance that an increment \
         finds its shard's lock held while the other thread is preempted (other load on \
         the host), and that the price of a line moving between the two processors \
         changes during the study: on a virtual machine it depends on where the host \
         places the two virtual processors (two hyperthreads of one core share their \
         caches; two cores meet only in the last-level cache), which the guest cannot \
         see, so the microbenchmark's price and the runs' may differ.",
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
         Why the two versions' predictions coincide where nothing more is modelled: at \
         p = 1 both do exactly the serial search (same pc, every overhead vanishes), and \
         where the first group holds the first k solutions (groups = 1) {base} is one \
         parallel loop too. What differs, and is modelled: {other}'s speculation. Its \
         parallel loop hands each thread a contiguous block of the items (rayon's halving); \
         a thread whose block lies after the item that completes the quota only speculates \
         until the quota is met and cannot help, so a count lasts as long as the largest \
         block's useful work: `span` (that share of the useful work, from the serial \
         search's work per item; 1 at p = 2 until the first half of the items is needed) \
         gives {other}'s `wc = pc * (p * span - 1)` in place of {base}'s (speculation \
         within one group). Not modelled: {other}'s fixed cost per count for the items it \
         passes over (all of the board's, against the needed groups' in {base}), which \
         shows at small k."
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
