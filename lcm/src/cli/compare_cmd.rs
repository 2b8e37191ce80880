//! `lcm compare`: arguments and their translation into `lcm::predict` calls.
use super::compare_times::{residuals_of, residuals_table, with_residuals_json};
use super::predict_cmd::{fail, grid_of, load, note_machine, GridBriefs, ModelOpts};
use clap::Args;
use lcm::predict::compare::{
    parse_uncertainty, residual_uncertainty, Comparison, Residual, DEFAULT_RELATIVE_UNCERTAINTY,
};
use lcm::predict::report::{self, PointMarks};
use lcm::predict::{negative, PredictError, Program};
use std::path::PathBuf;

const COMPARE_EXAMPLES: &str = "Examples:
  lcm compare fft_dp.rs fft_tp.rs --grid n=256,1024,p=1..16
  lcm compare fft_dp.rs fft_tp.rs --grid p=1..16 --set n=1024 --plot fft.svg
  lcm compare a.rs b.rs --grid n=64..1024 --set p=8 --x n --json

  lcm compare a.rs b.rs --grid p=1..16 --set n=1024 --uncertainty 10%
  lcm compare dp.rs tp.rs --models fft.models --grid p=1..16 --set n=1024 --times-a fft.pp --times-where impl=dp
  lcm compare a.rs b.rs --models a.models --entry run --grid n=65536,1048576 --grid p=1,2 --set iters=1 \\
      --times-a abc.pp --times-b abc.pp --times-where-a impl=a --times-where-b impl=b
  lcm compare a.rs b.rs --models a.models --entry run --grid n:iters=65536:32,262144:8 --grid p=1,2

Prints both predictions per point, their relative uncertainty (+-%), the better version and
the predicted crossovers (where the better version changes along a grid variable,
interpolated linearly). A paired axis (--grid n:iters=65536:32,262144:8, as for predict:
the pairs' values go together) is one axis: its crossovers are reported along it, every
paired variable interpolated, in the order the pairs were given (`crossover: n:iters ~
1.64e5:20 (between n:iters = 65536:32 and 262144:8, p=2): b better after it, in the order
of the pairs`). Two predictions that differ by less than their uncertainty
(|T_a - T_b| / min(T_a, T_b) < u) are a `tie`: neither is named better, and a crossover is
reported only between points where different versions win outside the uncertainty. The
models carry no interval, so u is 5% (a quiet machine's run-to-run spread) unless
--uncertainty sets it (for example to how far the measured version's own prediction was
from its measurement).

With --times-a FILE (--times-b FILE) the measured run times of that version set u per
point. FILE holds profile records as `pp -l` or `pp-campaign` write them: the session
records (no tag=) with tt, selected by --times-where (both files) and --times-where-a /
--times-where-b (that file only; both must match). Records that differ only in
pp-campaign's rep= and run_s= are one point, its time the median of tt/p. Records per
execution (pp-campaign --per-execution --iterations VAR, said in the file's # header) are
multiplied back by their iterations: lcm predicts the whole run composed from --entry, so
the measured time compared is the whole session, tt/p x VAR. The version is predicted at
every measured point, and a compared point's u is the largest of |predicted - measured| /
measured and the run-to-run spread of the records (interquartile range / median
from four runs on, (max - min) / median for two or three) at its nearest
measured point(s) (log distance over the shared variables, the iteration variable left
out; 5% for a point measured once), at least --uncertainty when given; the readable output
lists each measured point's error.

Beyond a fragment's measured range its models' error grows: where the models file's range
line carries a growth (`// lcm: range n = 64..1024 (beyond: +4.2% per 2x)`, written by
`lca model --emit annotation`, which refits without the values above half the largest and
measures how much worse the refit predicts them per doubling), u grows by that growth times
the doublings the point lies beyond, the fragments weighed by their share of the predicted
time, the larger of the two versions' (JSON: extrapolation_widening). No growth is known
for a variable with fewer than three values at or below half its largest (p = 1..2): there
only the `*` mark says the models extrapolate.

The plot shades each curve's band T*(1 +- u/2): where the two bands overlap the
predictions tie. A row marked `*` lies beyond 2x a fragment's measured range of either
version (the models extrapolate; the warning is on stderr), a row marked `!` uses a model
that evaluates negative there (or a negative time; warned on stderr, not clamped); a
crossover among such points says so on its line. A point where a version has no
prediction (named on stderr) or a time that is not positive is not compared: it shows `-`,
is counted apart in the summary (`not compared`) and is never a tie nor a crossover's end.
A crossover's position is printed to the digits its interpolation can mean (3 significant
digits of the spacing of the two grid values around it; whole numbers on an integral grid
more than 10 apart); --json's `at` is the full number.
JSON (--json): {a, b, uncertainty{relative, from}, points: [{bindings, t_a, t_b,
uncertainty, extrapolation_widening, relative_difference, better (a|b|tie|not_compared), compared,
beyond_measured_range, negative, warnings_a, warnings_b, negative_a, negative_b,
uncertainty_from}], counts{a, b, tie, not_compared}, crossovers: [{variable, between, at,
others, better_after, beyond_measured_range, negative, paired}], measured: [{version, bindings,
measured_s, runs, spread, lines, iterations, iterations_variable, predicted_s,
relative_error}]}; better is `not_compared` and compared false where a version has no
prediction (its t_ null) or a time that is not positive, `tie` only where both were
compared; bindings hold every variable of the point, paired ones included; a crossover
along a paired axis has variable `n:iters`, between and at of its first variable, and
paired {variables, between, at} with every paired variable's values (absent along one
variable); counts are the points of each verdict; uncertainty_from is `default` or
`--uncertainty`, or the measured points that set u; negative_a/_b: [{fragment, line,
model, value_s}].";

/// Arguments of `lcm compare`.
#[derive(Args, Debug)]
#[command(after_help = COMPARE_EXAMPLES)]
pub struct CompareArgs {
    /// First version.
    a: PathBuf,
    /// Second version.
    b: PathBuf,
    /// Fixed values, NAME=VALUE.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Grid (as for predict: NAME=VALUES, or NAME:NAME=V:V,V:V,... for paired variables).
    #[arg(long = "grid", value_name = "SPEC")]
    grid: Vec<String>,
    /// Write an SVG plot of time against the x variable.
    #[arg(long, value_name = "OUT.svg")]
    plot: Option<PathBuf>,
    /// The plot's x variable (default p if on the grid, else the first grid variable).
    #[arg(long, value_name = "NAME")]
    x: Option<String>,
    /// Relative uncertainty of the predictions, a fraction (0.05) or percentage (5%):
    /// differences below it are ties (default 5%).
    #[arg(long, value_name = "U")]
    uncertainty: Option<String>,
    /// Measured run times of version a: profile records as `pp -l` or `pp-campaign` write
    /// them (the file `lca` fitted). Each compared point's uncertainty becomes a's relative
    /// prediction error, or the records' spread if larger, at its nearest measured point(s).
    #[arg(long, value_name = "FILE")]
    times_a: Option<PathBuf>,
    /// Measured run times of version b (as --times-a).
    #[arg(long, value_name = "FILE")]
    times_b: Option<PathBuf>,
    /// Which records of both --times files count, as `lca -x` selects them
    /// (`impl=dp`, `n>=256 && impl=dp`).
    #[arg(long, value_name = "EXPR")]
    times_where: Option<String>,
    /// Which records of the --times-a file are version a's (with --times-where, both must
    /// match): `impl=a` when both versions' records are in one file.
    #[arg(long, value_name = "EXPR")]
    times_where_a: Option<String>,
    /// Which records of the --times-b file are version b's (as --times-where-a).
    #[arg(long, value_name = "EXPR")]
    times_where_b: Option<String>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    opts: ModelOpts,
}

/// The residuals of the versions with a --times file.
fn residuals(
    a: &CompareArgs,
    versions: [&Program; 2],
    grid: &lcm::predict::grid::Grid,
) -> Result<Vec<Residual>, PredictError> {
    let mut out = Vec::new();
    let files = [
        ("a", versions[0], &a.times_a, &a.times_where_a),
        ("b", versions[1], &a.times_b, &a.times_where_b),
    ];
    for (version, _, times, own) in &files {
        if own.is_some() && times.is_none() {
            return Err(PredictError::Usage(format!(
                "--times-where-{version}: expected --times-{version} FILE to select from, found none"
            )));
        }
    }
    for (version, prog, times, own) in files {
        let Some(path) = times else {
            continue;
        };
        let selects: Vec<&str> = [&a.times_where, own]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        out.extend(residuals_of(version, prog, path, grid, &selects)?);
    }
    Ok(out)
}

/// Prints on stderr `prog`'s range warnings and negative models at the compared `points`
/// (`part` picks the version's from each point's marks) and each negative time of `ts`.
fn warn_marks(
    prog: &Program,
    points: &[lca::expr::Bindings],
    ts: &[f64],
    marks: &[PointMarks],
    part: impl Fn(
        &PointMarks,
    ) -> (
        &Vec<lca::range::RangeWarning>,
        &Vec<negative::NegativeModel>,
    ),
) {
    let range: Vec<_> = marks.iter().flat_map(|m| part(m).0).cloned().collect();
    for line in report::range_warning_lines(&range) {
        eprintln!("{}: {line}", prog.file);
    }
    let found: Vec<(&lca::expr::Bindings, &[negative::NegativeModel])> = points
        .iter()
        .zip(marks)
        .map(|(b, m)| (b, part(m).1.as_slice()))
        .collect();
    for line in negative::warning_lines(&found) {
        eprintln!("{}: {line}", prog.file);
    }
    for (b, t) in points.iter().zip(ts) {
        if let Some(w) = negative::negative_time_warning(&prog.file, b, *t) {
            eprintln!("{w}");
        }
    }
}

/// `lcm compare`.
pub fn run_compare(a: CompareArgs) -> i32 {
    let run = || -> Result<(), PredictError> {
        let opts = a.opts.options();
        let pa = load(&a.a, &opts)?;
        let pb = load(&a.b, &opts)?;
        let grid = grid_of(&a.set, &a.grid)?;
        let floor = a
            .uncertainty
            .as_deref()
            .map(parse_uncertainty)
            .transpose()?;
        let (u, from) = match floor {
            Some(f) => (f, "--uncertainty"),
            None => (DEFAULT_RELATIVE_UNCERTAINTY, "default"),
        };
        let residuals = residuals(&a, [&pa, &pb], &grid)?;
        let points = grid.points();
        let mut ta = Vec::new();
        let mut tb = Vec::new();
        let mut marks = Vec::new();
        // A grid goes on past a point a version cannot run at (GridBriefs).
        let (mut briefs_a, mut briefs_b) = (GridBriefs::default(), GridBriefs::default());
        let (mut few_a, mut few_b) = (Vec::new(), Vec::new());
        for b in &points {
            let mut m = PointMarks::default();
            let x = briefs_a.at(&pa, b);
            ta.push(x.as_ref().map_or(f64::NAN, |x| x.seconds));
            if let Some(x) = x {
                (m.range_a, m.negative_a) = (x.range_warnings, x.negative_models);
                m.widening = m.widening.max(x.extrapolation_error);
                few_a.extend(x.few_items);
            }
            let y = briefs_b.at(&pb, b);
            tb.push(y.as_ref().map_or(f64::NAN, |y| y.seconds));
            if let Some(y) = y {
                (m.range_b, m.negative_b) = (y.range_warnings, y.negative_models);
                m.widening = m.widening.max(y.extrapolation_error);
                few_b.extend(y.few_items);
            }
            marks.push(m);
        }
        briefs_a.finish()?;
        briefs_b.finish()?;
        note_machine(&pa);
        note_machine(&pb);
        warn_marks(&pa, &points, &ta, &marks, |m| (&m.range_a, &m.negative_a));
        warn_marks(&pb, &points, &tb, &marks, |m| (&m.range_b, &m.negative_b));
        super::predict_cmd::warn_few_items(&pa, &few_a);
        super::predict_cmd::warn_few_items(&pb, &few_b);
        let per_point: Vec<(f64, Vec<&Residual>)> = points
            .iter()
            .map(|b| residual_uncertainty(b, &residuals, DEFAULT_RELATIVE_UNCERTAINTY, floor))
            .collect();
        // Beyond the measured ranges the models' own error grows (lca::extrapolation).
        let us: Vec<f64> = per_point
            .iter()
            .zip(&marks)
            .map(|((v, _), m)| v + m.widening)
            .collect();
        let cmp = Comparison::new(&grid.varying_axes(), points, ta, tb, us);
        if a.json {
            let text = report::compare_json(&pa.file, &pb.file, &cmp, (u, from), &marks);
            outln!(
                "{}",
                with_residuals_json(&text, &residuals, &per_point, from)
            );
        } else {
            out!(
                "{}",
                report::compare_table(&pa.file, &pb.file, &grid, &cmp, &marks)
            );
            out!("{}", residuals_table(&residuals, &per_point, floor));
        }
        if let Some(out) = &a.plot {
            let x = a.x.clone().unwrap_or_else(|| grid.default_x());
            report::compare_plot(out, &pa.file, &pb.file, &grid, &cmp, &x)?;
            if !a.json {
                outln!("plot: {}", out.display());
            }
        }
        Ok(())
    };
    match run() {
        Ok(()) => 0,
        Err(e) => fail(e),
    }
}
