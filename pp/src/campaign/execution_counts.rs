//! A check on records per execution (docs/campaigns.md, "Records per execution"): a
//! fragment's executions at p > 1 should be those of its p = 1 point.
//!
//! pp counts a fragment's executions as the intervals of the union of its runs on all
//! threads: runs that overlap count once. A fragment that runs concurrently on several
//! threads (inside the tasks of a parallel loop or a `join` recursion) therefore has fewer
//! executions at p > 1 than at p = 1, and per execution its p > 1 records are divided by a
//! different number than its baseline's: their amounts per execution are not comparable,
//! and a model fitted over p is wrong. Such a fragment belongs in `--per-iteration`, which
//! divides it by the run's iterations at every p.

use super::grid::Point;
use crate::analysis::Analysis;

/// How far a fragment's executions at p > 1 may be from its p = 1 point's before
/// [`execution_count_warnings`] warns, as a share of the p = 1 count (1%): a program whose
/// runs vary a little with timing stays quiet, a fragment counted once per overlap does not.
pub const EXECUTIONS_TOLERANCE: f64 = 0.01;

/// Warnings for the fragments whose executions in `reps` (the counted repetitions of
/// `point`, p > 1) differ from those in `baseline` (the analysis of `baseline_point`, the
/// p = 1 point of the same variables) by more than [`EXECUTIONS_TOLERANCE`]: one per
/// fragment, naming the point, the counts at p > 1 (their range over the repetitions) and
/// at p = 1, and suggesting `--per-iteration`. Fragments in `per_iteration` are divided by
/// the iterations, not their executions, and are not checked; neither is a fragment absent
/// from the baseline.
pub fn execution_count_warnings(
    point: &Point,
    reps: &[&Analysis],
    baseline_point: &Point,
    baseline: &Analysis,
    per_iteration: &[String],
) -> Vec<String> {
    let mut warnings = Vec::new();
    for base in &baseline.profiles {
        let (Some(tag), Some(at_one)) = (&base.tag, base.executions) else {
            continue;
        };
        if per_iteration.contains(tag) {
            continue;
        }
        let counts: Vec<u64> = reps
            .iter()
            .filter_map(|a| {
                let pr = a.profiles.iter().find(|pr| pr.tag.as_ref() == Some(tag))?;
                pr.executions
            })
            .collect();
        let (Some(&low), Some(&high)) = (counts.iter().min(), counts.iter().max()) else {
            continue;
        };
        let off = |k: u64| k.abs_diff(at_one) as f64 > EXECUTIONS_TOLERANCE * at_one as f64;
        if !(off(low) || off(high)) {
            continue;
        }
        let ran = if low == high {
            format!("{low}")
        } else {
            format!("{low} to {high}")
        };
        warnings.push(format!(
            "{}: fragment {tag} has {ran} executions against {at_one} at {}: runs that \
             overlap on several threads count once, so its records per execution are divided \
             by a different number than its baseline's; if it runs inside parallel tasks, \
             divide it by the iterations at every p: --per-iteration {tag}",
            point.label(),
            baseline_point.label()
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Options;

    /// `leaf` run `k` times, 1 µs each with 1 µs between; at p = 2 the even runs on thread
    /// 0 and the odd ones on thread 1 at the same times (pairs overlap and count once).
    fn trace(p: usize, k: usize) -> Analysis {
        let mut t = format!("pptrace 1\nprocessors {p}\n0 0 session_begin\n");
        t.push_str("0 0 frag_begin once\n1 0 frag_end once\n");
        for i in 0..k {
            let (thread, slot) = if p == 1 { (0, i) } else { (i % 2, i / 2) };
            let start = 10 + slot * 2000;
            t.push_str(&format!("{start} {thread} frag_begin leaf\n"));
            t.push_str(&format!("{} {thread} frag_end leaf\n", start + 1000));
        }
        t.push_str(&format!("{} 0 session_end\n", 20 + k * 2000));
        crate::analyze_bytes(t.into_bytes(), "t.pptrace", &Options::all_tags()).unwrap()
    }

    fn point(p: usize) -> Point {
        Point {
            values: vec![("n".into(), "8".into())],
            p,
        }
    }

    #[test]
    fn a_fragment_counted_once_per_overlap_is_warned_about_by_name_point_and_counts() {
        let one = trace(1, 8);
        let two = trace(2, 8);
        let w = execution_count_warnings(&point(2), &[&two], &point(1), &one, &[]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("n=8 p=2: fragment leaf has 4 executions against 8 at n=8 p=1"),
            "{w:?}"
        );
        assert!(w[0].ends_with("--per-iteration leaf"), "{w:?}");
        // Named per iteration, it is divided by the iterations at every p: no warning.
        let named = execution_count_warnings(&point(2), &[&two], &point(1), &one, &["leaf".into()]);
        assert!(named.is_empty(), "{named:?}");
    }

    #[test]
    fn equal_counts_and_counts_within_the_tolerance_are_quiet() {
        let one = trace(1, 8);
        let same = execution_count_warnings(&point(2), &[&one], &point(1), &one, &[]);
        assert!(same.is_empty(), "{same:?}");
        // 200 against 201 (0.5%) is within the tolerance; 200 against 8 is not.
        let base = trace(1, 201);
        let near = trace(1, 200);
        let w = execution_count_warnings(&point(2), &[&near], &point(1), &base, &[]);
        assert!(w.is_empty(), "{w:?}");
        let w = execution_count_warnings(&point(2), &[&near, &one], &point(1), &base, &[]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("has 8 to 200 executions against 201"),
            "{w:?}"
        );
    }
}
