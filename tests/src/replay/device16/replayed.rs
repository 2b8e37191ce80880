//! One program's replay: fit the measured version's records, predict both versions at the
//! study's points, score them, and the text every program's report shares (the per-point
//! table, the distance from the study's own predictions).

use super::Day;
use crate::replay::points::{study_points, Point};
use crate::replay::score::{
    err_pct, largest_difference_from_study_pct, ranking_right, score, summary_line, Score,
};
use crate::replay::{fit_models, predict, read, Versions};
use lca::expr::Bindings;
use lcm::predict::{Prediction, Program};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One program's replay: what the study measured and both versions' predictions.
pub struct Replayed {
    /// The study's points.
    pub points: Vec<Point>,
    /// The two versions' sources and the fitted models.
    pub versions: Versions,
    /// The fixture's machine file.
    pub machine: PathBuf,
    /// The predicted version's composed model.
    pub other_model: Program,
    /// Its predictions, one per point.
    pub other: Vec<Prediction>,
    /// The measured version's predictions, seconds, one per point.
    pub base: Vec<f64>,
    /// The score of both.
    pub score: Score,
}

impl Replayed {
    /// The predicted version's predictions, seconds, one per point.
    pub fn other_s(&self) -> Vec<f64> {
        self.other.iter().map(|p| p.seconds).collect()
    }
}

/// What [`replay`] needs of one program besides the fixture.
pub struct Program16<'a> {
    /// The fixture's subdirectory (`fft`, `queens`, `histogram`).
    pub program: &'a str,
    /// The measured version's records in it (`dp-per-execution.pp`).
    pub records: &'a str,
    /// The size variable the records are fitted over, with `p`.
    pub size_var: &'a str,
    /// The predicted version's and the measured version's sources.
    pub sources: (PathBuf, PathBuf),
    /// The function both start from.
    pub entry: &'a str,
}

/// Fits the fixture's records of `prog` over (size_var, p) and predicts both versions at
/// every point of its `points.json` with its `machine.txt`, binding `bind(point)`.
pub fn replay(
    day: &Day,
    prog: Program16,
    bind: &dyn Fn(&Point) -> Bindings,
    scratch: &Path,
) -> Replayed {
    let points = study_points(&read(&day.file(prog.program, "points.json")));
    let records_text = read(&day.file(prog.program, prog.records));
    let versions = Versions {
        other: prog.sources.0,
        base: prog.sources.1,
        entry: prog.entry.into(),
        models: fit_models(&records_text, prog.records, &[prog.size_var, "p"], scratch),
    };
    let machine = day.file(prog.program, "machine.txt");
    let other_model = versions.other_program(&machine);
    let base_model = versions.base_program(&machine);
    let other: Vec<Prediction> = points
        .iter()
        .map(|pt| predict(&other_model, &bind(pt)))
        .collect();
    let base: Vec<f64> = points
        .iter()
        .map(|pt| predict(&base_model, &bind(pt)).seconds)
        .collect();
    let other_s: Vec<f64> = other.iter().map(|p| p.seconds).collect();
    let score = score(&points, &other_s, &base);
    Replayed {
        points,
        versions,
        machine,
        other_model,
        other,
        base,
        score,
    }
}

/// How far the replay is from the study's own predictions, and the study's own score;
/// `names`: (predicted version, measured version).
pub fn against_the_study(r: &Replayed, names: (&str, &str)) -> String {
    let other_s = r.other_s();
    let (d_other, d_base) = largest_difference_from_study_pct(&r.points, &other_s, &r.base);
    let own_other: Vec<f64> = r.points.iter().map(|p| p.study_other_s).collect();
    let own_base: Vec<f64> = r.points.iter().map(|p| p.study_base_s).collect();
    let own = score(&r.points, &own_other, &own_base);
    format!(
        "largest difference from the study's own predictions: {} {d_other:.2e} %, {} {d_base:.2e} %\n\
         {}: mean |error| {:.1} %; {}",
        names.0,
        names.1,
        names.1,
        r.score.base_mean_err_pct,
        summary_line("the study's own", &own, r.points.len())
    )
}

/// The end of every program's report: [`against_the_study`], the drift diagnostic
/// ([`super::drift::drift_line`]) and the summary line `LABEL: points=N …`.
pub fn report_end(r: &Replayed, names: (&str, &str), label: &str) -> String {
    let drift = super::drift::drift_scaled(&r.points, &r.other_s(), &r.base);
    format!(
        "{}\n{}\n{}\n",
        against_the_study(r, names),
        super::drift::drift_line(drift.as_ref(), names, &r.score),
        summary_line(label, &r.score, r.points.len())
    )
}

/// The per-point table of a replay: both versions predicted and measured, the study's own
/// |error|, the ranking, and `extra(i)` per point under `extra_header`.
pub fn point_table(
    r: &Replayed,
    names: (&str, &str),
    extra_header: &str,
    extra: &dyn Fn(usize) -> String,
) -> String {
    let mut out = String::new();
    let (o, b) = names;
    let _ = writeln!(
        out,
        "{:>8} {:>3} {:>6} | {:>12} {:>12} {:>7} {:>7} | {:>12} {:>12} {:>7} | {:>6} | {extra_header}",
        "size",
        "p",
        "iters",
        format!("{o} pred"),
        format!("{o} meas"),
        "err%",
        "study%",
        format!("{b} pred"),
        format!("{b} meas"),
        "err%",
        "rank"
    );
    for (i, pt) in r.points.iter().enumerate() {
        let (po, pb) = (r.other[i].seconds, r.base[i]);
        let _ = writeln!(
            out,
            "{:>8} {:>3} {:>6} | {:>12.3} {:>12.3} {:>+7.1} {:>7.1} | {:>12.3} {:>12.3} {:>+7.1} | {:>6} | {}{}",
            pt.size,
            pt.p,
            pt.iters,
            po * 1e3,
            pt.other_s * 1e3,
            err_pct(po, pt.other_s),
            pt.study_err_pct,
            pb * 1e3,
            pt.base_s * 1e3,
            err_pct(pb, pt.base_s),
            if ranking_right(pt, po, pb) { "right" } else { "wrong" },
            extra(i),
            if pt.tie { " (measured tie)" } else { "" }
        );
    }
    let _ = writeln!(
        out,
        "(ms per run; study%: |error| of the study's own prediction)"
    );
    out
}
