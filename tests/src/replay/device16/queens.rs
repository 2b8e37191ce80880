//! The n-queens study's replay: the loop version measured, the tree version predicted,
//! with the input's properties the study binds computed by `examples::queens`.

use super::replayed::{point_table, replay, report_end, Program16};
use super::{check, example_source, Bounds, Day};
use crate::replay::bindings;
use crate::replay::points::{study_points, Point};
use crate::replay::read;
use examples::queens;
use lca::expr::Bindings;
use std::collections::BTreeMap;

/// The queens study's variables at a point: k, p, iters, the board n, the depth-1 groups
/// holding the first k solutions (`groups`), both versions' useful-work spans (`span`,
/// `base_span`) and the work items each starts per count (`walked`, `base_walked`),
/// properties of the input that `examples::queens` computes.
pub struct QueensInputs {
    /// The board.
    board: u32,
    /// Per k: the groups needed, the loop version's items started per count and the useful
    /// work of each depth-2 item.
    by_k: BTreeMap<u64, (u64, u64, Vec<u64>)>,
    /// The depth-2 items per depth-1 group.
    group_sizes: Vec<usize>,
}

impl QueensInputs {
    /// The inputs of every k among `points` on the `board`×`board` board.
    pub fn of(points: &[Point], board: u32) -> QueensInputs {
        let mut by_k = BTreeMap::new();
        for pt in points {
            by_k.entry(pt.size).or_insert_with(|| {
                (
                    queens::groups_needed(board, pt.size),
                    queens::loop_items_walked(board, pt.size),
                    queens::useful_work_per_item(board, pt.size),
                )
            });
        }
        let group_sizes = queens::depth2_groups(board).iter().map(Vec::len).collect();
        QueensInputs {
            board,
            by_k,
            group_sizes,
        }
    }

    /// The bindings at `pt` (its k must be one [`QueensInputs::of`] saw).
    pub fn bindings(&self, pt: &Point) -> Bindings {
        let (groups, base_walked, work) = &self.by_k[&pt.size];
        let p = pt.p as usize;
        bindings(&[
            ("k", pt.size as f64),
            ("p", pt.p as f64),
            ("iters", pt.iters as f64),
            ("n", self.board as f64),
            ("groups", *groups as f64),
            ("span", queens::tree_span(work, p)),
            ("base_span", queens::loop_span(work, &self.group_sizes, p)),
            ("walked", queens::tree_items_walked(self.board) as f64),
            ("base_walked", *base_walked as f64),
        ])
    }
}

/// Replays the day's queens study on its board, prints its report (the table shows
/// `groups`, `span`, `base_span` and `base_walked` per point; last `replay16-queens: …`) and panics when
/// a number is worse than `bounds`.
pub fn queens_replay(day: &Day, bounds: &Bounds) {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let points = study_points(&read(&day.file("queens", "points.json")));
    let inputs = QueensInputs::of(&points, day.queens_board);
    let bind = |pt: &Point| inputs.bindings(pt);
    let r = replay(
        day,
        Program16 {
            program: "queens",
            records: "loop-per-execution.pp",
            size_var: "k",
            sources: (
                example_source("queens", "tree.rs"),
                example_source("queens", "loop_par.rs"),
            ),
            entry: "count",
        },
        &bind,
        tmp.path(),
    );
    assert_eq!(r.points.len(), bounds.points, "the study's points");
    let extra = |i: usize| {
        let b = bind(&r.points[i]);
        format!(
            "{:>6} {:>6.3} {:>9.3} {:>11}",
            b["groups"], b["span"], b["base_span"], b["base_walked"]
        )
    };
    let mut out = point_table(
        &r,
        ("tree", "loop"),
        "groups   span base_span base_walked",
        &extra,
    );
    out += &ratio_line(&r.points, &r.other_s(), &r.base);
    out += &report_end(&r, ("tree", "loop"), "replay16-queens");
    print!("{out}");
    check(&r, bounds);
}

/// A diagnostic line: per k, the mean over p of |predicted tree/loop − measured tree/loop|
/// in percentage points (both versions timed round robin), which judges the tree's rules
/// apart from how well the loop version's own models follow its times.
fn ratio_line(points: &[Point], tree_s: &[f64], loop_s: &[f64]) -> String {
    let mut by_k: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for ((pt, tree), base) in points.iter().zip(tree_s).zip(loop_s) {
        let gap = (tree / base - pt.other_s / pt.base_s).abs() * 100.0;
        by_k.entry(pt.size).or_default().push(gap);
    }
    let per_k: Vec<String> = by_k
        .iter()
        .map(|(k, gaps)| {
            let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
            format!("k={k} {mean:.1}")
        })
        .collect();
    format!(
        "diagnostic, not a prediction: tree/loop predicted against measured, mean |difference| over p in percentage points: {}\n",
        per_k.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(size: u64, p: u64, tree_s: f64, loop_s: f64) -> Point {
        Point {
            size,
            p,
            iters: 1,
            other_s: tree_s,
            base_s: loop_s,
            base_calibrated_s: None,
            tie: false,
            study_err_pct: 0.0,
            study_other_s: 0.0,
            study_base_s: 0.0,
        }
    }

    #[test]
    fn the_ratio_line_compares_the_versions_ratios_per_k() {
        // k = 10: measured 1.2 and 1.0 times the loop, predicted 1.1 and 1.1: 10 points
        // off at each p. k = 1000: predicted as measured, whatever the loop's own error.
        let points = [
            point(10, 1, 1.2, 1.0),
            point(10, 2, 1.0, 1.0),
            point(1000, 1, 3.0, 2.0),
        ];
        let line = ratio_line(&points, &[2.2, 1.1, 6.0], &[2.0, 1.0, 4.0]);
        assert_eq!(
            line,
            "diagnostic, not a prediction: tree/loop predicted against measured, mean \
             |difference| over p in percentage points: k=10 10.0, k=1000 0.0\n"
        );
    }
}
