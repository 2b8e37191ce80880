//! `lcm predict`, `compare`, `tree`, `calibrate`: arguments and their translation into
//! `lcm::predict` calls.
use clap::Args;
use lcm::calibrate::{calibrate, CalibrateOptions};
use lcm::predict::grid::{parse_grid, parse_set, Grid};
use lcm::predict::report;
use lcm::predict::{PredictError, PredictOptions, Program};
use std::path::PathBuf;

/// Options shared by predict and compare.
#[derive(Args, Debug, Clone)]
pub struct ModelOpts {
    /// Models file (`lca --emit annotation` output); replaces the source's models, or is what
    /// its derived fragments (`like`, `FRAGMENT.CATEGORY`) derive from.
    #[arg(long, value_name = "FILE")]
    models: Option<PathBuf>,
    /// Machine file written by `lcm calibrate` (prices of fork/join, tasks, items,
    /// hand-offs, transfers, shared lines and memory contention).
    #[arg(long, value_name = "FILE")]
    machine: Option<PathBuf>,
    /// Source of the version the models were measured on: its data movement is not counted twice.
    #[arg(long, value_name = "FILE")]
    measured: Option<PathBuf>,
    /// Function the program starts in.
    #[arg(long, default_value = "main", value_name = "NAME")]
    entry: String,
}

impl ModelOpts {
    pub(super) fn options(&self) -> PredictOptions {
        PredictOptions {
            entry: self.entry.clone(),
            models: self.models.clone(),
            machine: self.machine.clone(),
            measured: self.measured.clone(),
        }
    }
}

const PREDICT_EXAMPLES: &str = "Examples:
  lcm predict fft_tp.rs --set n=1024 --set p=8
  lcm predict fft_dp.rs --set n=1024 --grid p=1..16
  lcm predict fft_tp.rs --models fft.models --machine machine.txt --grid n=256,1024,p=1..8 --json
  lcm predict fft_tp.rs --measured fft_dp.rs --set n=512 --set p=4
  lcm predict fft_tp.rs --pamela
  lcm predict sharded.rs --models locked.models --set n=1e6 --set p=4 --set shards=64
  lcm predict sort.rs --entry run --models sort.models --grid n:iters=65536:32,262144:8 --grid p=1..4

A grid is every combination of its axes' values (--grid n=256,1024,p=1..8: 16 points).
Variables named together are paired, as in pp-campaign's --grid: NAME:NAME=V:V,V:V,...
gives them their values point by point (one plain number per name, no ranges A..B), and
the pair varies as one axis: --grid n:iters=65536:32,262144:8 --grid p=1..4 is 8 points,
not 16. The table has a column per varying variable, each paired one its own.

A restructured source may derive its fragments' models from the --models file
(`// lcm: like fill`, `// lcm: sl = fill.sl / shards`, `// lcm: contention = EXPR`;
docs/models.md, section Derived models); the rules' variables are bound with --set.

The last line of a single-point prediction is exactly `predicted: T=SECONDS`. Its table
has a row per fragment instance: `line` is the fragment's own line; where an instance is
reached through calls, a `called at` column gives each call's line, outermost first, with
`xR` when the call runs R times per run of the function that makes it (a loop or items
around it): `alloc  61  42 x2` and `alloc  61  44` are the two calls of one function.
With --machine FILE (from `lcm calibrate`) the machine's run-time costs are added as named
fragments: `machine fork/join` before every join and scope
(fork_join_base_s + fork_join_log2p_s*log2(min(tasks, p))), `machine task` per task
(task_s), `machine par items` per data-parallel loop (one parallel-iterator call,
par_call_s_pQ at Q = min(items, p) interpolated in log2(Q), or the fork/join with a file
without it, plus items * par_item_s / p; items from
`(0..n)`, a vec![x; n] or collected range, par_chunks(c), or `// lcm: items = EXPR`) and
`machine hand-off` per item at every pipeline hand-off: per pair of neighbouring stages
the faster one waits D = |tau_a - tau_b| per item; within handoff_spin_window_s (w) it is
caught spinning and the receiving stage pays handoff_spin_s, beyond it the waiting stage parks
on a share of the items, D / (D + L) up to D = L + w and all of them beyond, L = max(0,
handoff_wake_s - handoff_notify_s) (woken late, it catches up before it parks again), and on
those adds handoff_wake_s and the other stage handoff_notify_s (a file without the window: every wait
spinning; `lcm tree --machine` prints the rule, the breakdown each stage's time per item
and each hand-off: which stage waits for which, for what, its regime and who pays; --json
gives its parked_share).
A parallel construct inside a fragment's code pays the same costs before the fragment when
its model was not measured with it: `// lcm: overheads = machine | measured` in the
fragment's block, by default machine for models written in the source, measured for models
from --models (`lcm tree --machine` says which applied). A data-parallel loop nested in
another one's item runs at max(1, p / outer items) processors.
Every numeric key of the machine file is a variable of the annotations (--set overrides).
Without --machine they are not applied and, for a source with such constructs, a note on
stderr says so.
A point beyond 2x the measured range (`// lcm: range`, written by lca) of a variable a
fragment's models use is warned about on stderr (naming the fragment and categories; the
values are the fragment's own: p is the processors it runs on, p/2 in a task given half) and
in --json (`warnings`: [{fragment, categories, variable, value, min, max}]). A category
model that evaluates negative at a point (ml: pc + ml below zero; in a derived fragment
also a measured model its rule refers to, e.g. merge.pc) is warned about on stderr, naming
the fragment, its line and the model, and in --json (`negative_models`: [{fragment, line,
model, value_s}]); nothing is clamped, and a negative predicted time is always warned about.
A fragment whose code is one parallel iterator with fewer items than its processors, while
its li leaves the processors without an item less idle time than they must have, is warned
about on stderr and in --json (`few_items`: [{fragment, line, loop_line, items, processors,
li_s, needed_s}]); nothing is changed: write li for them (docs/models.md).
JSON (--json): an array of points {bindings (every variable's value at the point: --set,
--grid and paired ones), seconds, warnings, negative_models, few_items, speedup, contributions{fragments,
load_imbalance_s, pipeline_s, idle_s, communication_s, synchronization_s, contention_s,
total_s}, accounting{...}}; speedup is T at the smallest p of the grid over T. Each of
accounting.fragments (the table's rows: name, line, executions, procs, time_s, work,
comm_s) has called_from: [{function, line, repeat}], the calls leading to it, outermost
first, empty in the entry function's own code.
A grid point the program cannot run at (a pipeline stage left with no processor, e.g. tp at
p = 1) is named on stderr with the reason and shown as `-` ({bindings, seconds: null, error}
in --json); the others are predicted. A grid with no point predicted fails (exit 1).";

/// Arguments of `lcm predict`.
#[derive(Args, Debug)]
#[command(after_help = PREDICT_EXAMPLES)]
pub struct PredictArgs {
    /// The annotated Rust source.
    file: PathBuf,
    /// A variable's value, NAME=VALUE (repeatable; p is the processors).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// A grid: NAME=A..B (integers), NAME=V1,V2,... ; several variables in one spec
    /// (n=256,512,p=1..8) or repeated, every combination a point; NAME:NAME=V:V,V:V,...
    /// pairs variables point by point (n:iters=65536:32,262144:8 is 2 points).
    #[arg(long = "grid", value_name = "SPEC")]
    grid: Vec<String>,
    /// Print the composed PAMELA model and stop.
    #[arg(long)]
    pamela: bool,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    opts: ModelOpts,
}

const TREE_EXAMPLES: &str = "Examples:
  lcm tree fft_tp.rs
  lcm tree fft_dp.rs --models fft.models
  lcm tree fft_tp.rs --pamela
  lcm tree fft_tp.rs --machine machine.txt

Each node: number (preorder), what it is, file:line, the rule lcm applies, and for
fragments the model. Warnings (stderr) name what was seen but not modeled.
With --machine, a fragment whose code holds parallel constructs says whether they pay
machine costs (`inner constructs: pay machine costs ...`, the added `machine` fragments
before it) or are covered by its measured model (`// lcm: overheads = machine | measured`,
docs/models.md), and a data-parallel loop nested in another one's item shows its
processors (`nested: p = max(1, p/items) ...`, also without --machine).";

/// Arguments of `lcm tree`.
#[derive(Args, Debug)]
#[command(after_help = TREE_EXAMPLES)]
pub struct TreeArgs {
    /// The annotated Rust source.
    file: PathBuf,
    /// Models file.
    #[arg(long, value_name = "FILE")]
    models: Option<PathBuf>,
    /// Function the program starts in.
    #[arg(long, default_value = "main", value_name = "NAME")]
    entry: String,
    /// Machine file (`lcm calibrate`): show the machine-cost overhead nodes it adds.
    #[arg(long, value_name = "FILE")]
    machine: Option<PathBuf>,
    /// Also print the composed PAMELA model.
    #[arg(long)]
    pamela: bool,
    /// The tree as JSON.
    #[arg(long)]
    json: bool,
}

const CALIBRATE_EXAMPLES: &str = "Examples:
  lcm calibrate -o machine.txt
  lcm calibrate --quick --json

Measures, with kernels that run no program's code: fork/join latency (broadcast) of a rayon pool of
q = 1..p threads (fork_join_s_pQ, fitted as fork_join_base_s + fork_join_log2p_s*log2(q)),
the cost of a task spawned in a scope (task_s), of a rayon::join in a recursion (join_s:
a binary join tree with empty leaves, processor-seconds per join beyond plain calls) and of
a parallel-iterator item (par_item_s, processor-seconds beyond a serial loop), the cost of one small parallel-iterator call issued
from inside a pool of q = 1..p threads beyond its items' work (par_call_s_pQ, a call of
par_call_items = 1000 items), hand-off
latency between two threads caught spinning (handoff_spin_s = latency_s), how much later a
channel receiver parked 1 ms or more runs after the send than a spinning one
(handoff_wake_s), what that wake-up adds to the send (handoff_notify_s), the longest wait a channel's receiver still
spends spinning before it parks (handoff_spin_window_s: hand-offs after delays swept from
0.5 us to 2 ms, the receiver's voluntary context switches telling whether it parked; absent
when no sweep showed the park), the time to
read a buffer another thread just wrote at a few sizes from L1 to beyond the last-level
cache (transfer_s_BYTES), copy bandwidth (bandwidth_bytes_per_s), the slowdown of a
STREAM triad when k threads run it at once (mem_slowdown_kK), and the price of an atomic
update of a line another processor wrote last with 2 threads (line_bounce_s) and K = 3..p
threads (line_bounce_s_kK) updating 64 shared lines at once, each thread pinned to a
processor of its own, with the growth per further thread over K >= 3
(line_bounce_per_thread_s), the whole trip of a line when each update's line depends
on the last (line_trip_s), and the same update under a lock of its own, the lock and the
data on two lines (line_lock_s). The transfer's writer and reader run pinned to two distinct
processors, drawn anew each repetition. line_bounce_s and line_trip_s are priced on up to 12 distinct pairs of
processors, each pair's median kept and their mean written (a program's threads use all
pairs); line_bounce_pair_spread is the dearest pair's price over the cheapest.

Every number is the median of the quiet repetitions of its kernel. A repetition is quiet
when other processes (and a VM's host, steal time) took under 3% of all processors' time
while it ran (/proc/stat against /proc/self/stat); one too short for a 10 ms tick, or
without /proc, counts as quiet (`unknown`; the summary says how many were too short to
judge). With no quiet repetition the median of all is
kept and the summary says so; a number no repetition gave (a stand-in) is marked so. Writes
the machine file lcm predict --machine reads (keys and units in its comments; with --json
too). `warning:` lines on stderr (and --json's warnings) name: a line price that no
repetition could measure (and what stands in), whose repetitions or pairs of processors
lie more than 2 times apart; transfers whose threads could not be pinned; line_trip_s more than 2 times from handoff_spin_s; handoff_notify_s or
handoff_spin_window_s left out; handoff_wake_s standing in, clamped to 1 ns, or with
repetitions more than 2 times apart; a handoff_spin_s over 10 us (a loaded machine); docs/machine.md says what each means. JSON
(--json): {file, latency_s, bandwidth_bytes_per_s,
keys{KEY: value}, kept{KEY: {repetitions, quiet, unknown, measured, low, high, pairs}},
warnings[]} (measured: kept repetitions that gave a number; low, high: the least and
largest of them, null when none; pairs: the pairs of processors whose prices the value is
the mean of, 0 for a median of repetitions).";

/// Arguments of `lcm calibrate`.
#[derive(Args, Debug)]
#[command(after_help = CALIBRATE_EXAMPLES)]
pub struct CalibrateArgs {
    /// Where to write the machine file.
    #[arg(
        short = 'o',
        long,
        default_value = "lcm-machine.txt",
        value_name = "FILE"
    )]
    output: PathBuf,
    /// Smaller, faster measurement.
    #[arg(long)]
    quick: bool,
    /// Print the result as JSON on stdout (the machine file is written as well).
    #[arg(long)]
    json: bool,
}

pub(super) fn fail(e: PredictError) -> i32 {
    if let PredictError::Io { path, source } = &e {
        if path == "standard output" {
            super::closed_or_failed(source);
        }
    }
    eprintln!("lcm: {}", super::pamela_cmd::shorten(&e.to_string()));
    match e {
        PredictError::Usage(_) => 2,
        _ => 1,
    }
}

pub(super) fn load(file: &std::path::Path, opts: &PredictOptions) -> Result<Program, PredictError> {
    let prog = Program::load(file, opts)?;
    for w in &prog.warnings {
        eprintln!("{w}");
    }
    for w in lcm::predict::overheads::inner_warnings(&prog.root, &prog.file) {
        eprintln!("{w}");
    }
    Ok(prog)
}

/// Says on stderr when a program with parallel constructs was predicted without machine
/// costs.
pub(super) fn note_machine(prog: &Program) {
    for note in prog.machine_stand_in_notes() {
        eprintln!("note: {}: {note}", prog.file);
    }
    if !lcm::predict::overheads::has_costed_construct(&prog.root) {
        return;
    }
    if let Some(note) = prog.machine.costs_note() {
        eprintln!("note: {}: {note}", prog.file);
    }
}

pub(super) fn grid_of(set: &[String], grid: &[String]) -> Result<Grid, PredictError> {
    let fixed = set
        .iter()
        .map(|s| parse_set(s))
        .collect::<Result<Vec<_>, _>>()?;
    let mut axes = Vec::new();
    for g in grid {
        axes.extend(parse_grid(g)?);
    }
    let grid = Grid::new(fixed, axes);
    grid.check_paired()?;
    grid.check_size()?;
    Ok(grid)
}

/// Prints on stderr the negative models found at `points` (`negatives[i]` at `points[i]`)
/// and each negative predicted time of `ts`.
fn warn_negative(
    prog: &Program,
    points: &[lca::expr::Bindings],
    ts: &[f64],
    negatives: &[Vec<lcm::predict::negative::NegativeModel>],
) {
    let found: Vec<_> = points
        .iter()
        .zip(negatives)
        .map(|(b, n)| (b, n.as_slice()))
        .collect();
    for line in lcm::predict::negative::warning_lines(&found) {
        eprintln!("{}: {line}", prog.file);
    }
    for (b, t) in points.iter().zip(ts) {
        if let Some(w) = lcm::predict::negative::negative_time_warning(&prog.file, b, *t) {
            eprintln!("{w}");
        }
    }
}

/// Prints the fragments flagged for too few items ([`lcm::predict::few_items`]).
pub(super) fn warn_few_items(prog: &Program, found: &[lcm::predict::few_items::FewItems]) {
    for line in lcm::predict::few_items::warning_lines(found) {
        eprintln!("{}: {line}", prog.file);
    }
}

/// `lcm predict`.
/// One version's brief predictions along a grid that goes on past a point the program cannot
/// run at (a pipeline stage left with no processor at p = 1): no time there, and a line for
/// stderr saying why; only a version predicted at no point fails.
#[derive(Default)]
pub(super) struct GridBriefs {
    failed: Vec<String>,
    first_error: Option<PredictError>,
    predicted: usize,
}

impl GridBriefs {
    /// `prog`'s brief prediction at `b`, or None (noted) when it has none there.
    pub(super) fn at(
        &mut self,
        prog: &Program,
        b: &lca::expr::Bindings,
    ) -> Option<lcm::predict::program::Brief> {
        match prog.predict_brief(b) {
            Ok(x) => {
                self.predicted += 1;
                Some(x)
            }
            Err(e) => {
                let at = report::point_text(b);
                self.failed
                    .push(format!("{}: no prediction at {at}: {e}", prog.file));
                self.first_error.get_or_insert(e);
                None
            }
        }
    }

    /// The first error when no point was predicted; otherwise the failed points' lines on
    /// stderr.
    pub(super) fn finish(self) -> Result<(), PredictError> {
        if self.predicted == 0 {
            if let Some(e) = self.first_error {
                return Err(e);
            }
        }
        for line in &self.failed {
            eprintln!("{line}");
        }
        Ok(())
    }
}

pub fn run_predict(a: PredictArgs) -> i32 {
    let run = || -> Result<(), PredictError> {
        if a.pamela {
            let m = lcm::predict::program::compose_file(&a.file, &a.opts.options())?;
            out!("{}", m.text);
            return Ok(());
        }
        let prog = load(&a.file, &a.opts.options())?;
        let grid = grid_of(&a.set, &a.grid)?;
        let points = grid.points();
        if !grid.is_single() {
            // Times first (the table needs nothing else; --json, the speedups), without the
            // per-instance breakdown; --json then streams one point's breakdown at a time.
            let mut ts = Vec::with_capacity(points.len());
            let mut warnings = Vec::new();
            let mut negatives = Vec::new();
            let mut few = Vec::new();
            let mut briefs = GridBriefs::default();
            for b in &points {
                let brief = briefs.at(&prog, b);
                ts.push(brief.as_ref().map_or(f64::NAN, |x| x.seconds));
                if let Some(brief) = brief {
                    warnings.extend(brief.range_warnings);
                    few.extend(brief.few_items);
                    negatives.push(brief.negative_models);
                } else {
                    negatives.push(Vec::new());
                }
            }
            briefs.finish()?;
            note_machine(&prog);
            for line in report::range_warning_lines(&warnings) {
                eprintln!("{}: {line}", prog.file);
            }
            warn_negative(&prog, &points, &ts, &negatives);
            warn_few_items(&prog, &few);
            if a.json {
                let stdout = std::io::stdout();
                let mut out = std::io::BufWriter::new(stdout.lock());
                report::write_predictions_json(&mut out, &points, &ts, |i| {
                    prog.predict(&points[i])
                })?;
                return std::io::Write::flush(&mut out).map_err(|e| PredictError::Io {
                    path: "standard output".into(),
                    source: e,
                });
            }
            out!("{}", report::table_of(&prog.file, &points, &ts, &grid));
            return Ok(());
        }
        let mut preds = Vec::new();
        for b in &points {
            preds.push(prog.predict(b)?);
        }
        note_machine(&prog);
        let warnings: Vec<_> = preds
            .iter()
            .flat_map(|p| p.accounting.range_warnings.iter().cloned())
            .collect();
        for line in report::range_warning_lines(&warnings) {
            eprintln!("{}: {line}", prog.file);
        }
        let ts: Vec<f64> = preds.iter().map(|p| p.seconds).collect();
        let negatives: Vec<_> = preds
            .iter()
            .map(|p| p.accounting.negative_models.clone())
            .collect();
        warn_negative(&prog, &points, &ts, &negatives);
        let few: Vec<_> = preds
            .iter()
            .flat_map(|p| p.accounting.few_items.iter().cloned())
            .collect();
        warn_few_items(&prog, &few);
        if a.json {
            outln!("{}", report::predictions_json(&preds, &grid));
        } else {
            out!("{}", report::single(&prog, &preds[0]));
        }
        Ok(())
    };
    match run() {
        Ok(()) => 0,
        Err(e) => fail(e),
    }
}

/// `lcm tree`.
pub fn run_tree(a: TreeArgs) -> i32 {
    let run = || -> Result<(), PredictError> {
        let opts = PredictOptions {
            entry: a.entry.clone(),
            models: a.models.clone(),
            machine: a.machine.clone(),
            ..PredictOptions::default()
        };
        let text = lcm::read_input(&a.file).map_err(|e| PredictError::Io {
            path: a.file.display().to_string(),
            source: e,
        })?;
        let name = a.file.display().to_string();
        let models_text = match &a.models {
            Some(p) => Some((
                p.display().to_string(),
                lcm::read_input(p).map_err(|e| PredictError::Io {
                    path: p.display().to_string(),
                    source: e,
                })?,
            )),
            None => None,
        };
        let (root, warnings) = lcm::predict::program::structure(
            &name,
            &text,
            &opts.entry,
            models_text.as_ref().map(|(n, t)| (n.as_str(), t.as_str())),
        )?;
        for w in &warnings {
            eprintln!("{w}");
        }
        let root = match &a.machine {
            Some(path) => {
                let m = lcm::predict::machine::Machine::load(path)?;
                match &m.costs {
                    Some(costs) => lcm::predict::handoff::apply(
                        lcm::predict::overheads::apply(root, &m.origin, costs),
                        costs,
                    ),
                    None => root,
                }
            }
            None => root,
        };
        for w in lcm::predict::overheads::inner_warnings(&root, &name) {
            eprintln!("{w}");
        }
        if a.json {
            outln!("{}", report::tree_json(&root));
        } else {
            out!("{}", lcm::predict::tree::render(&root, &name));
        }
        if a.pamela {
            let prog = Program::from_source(&name, &text, &opts)?;
            out!("\n{}", prog.model.text);
        }
        Ok(())
    };
    match run() {
        Ok(()) => 0,
        Err(e) => fail(e),
    }
}

/// `lcm calibrate`.
pub fn run_calibrate(a: CalibrateArgs) -> i32 {
    let opts = if a.quick {
        CalibrateOptions::quick()
    } else {
        CalibrateOptions::full()
    };
    let c = calibrate(&opts);
    let text = c.machine.to_text();
    if let Err(e) = std::fs::write(&a.output, &text) {
        return fail(PredictError::Io {
            path: a.output.display().to_string(),
            source: e,
        });
    }
    let keys = c.machine.bindings();
    if a.json {
        let kept: serde_json::Map<String, serde_json::Value> = c
            .kept
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    serde_json::json!({
                        "repetitions": v.repetitions,
                        "quiet": v.quiet,
                        "unknown": v.unknown,
                        "measured": v.measured,
                        "low": v.low.is_finite().then_some(v.low),
                        "high": v.high.is_finite().then_some(v.high),
                        "pairs": v.pairs,
                    }),
                )
            })
            .collect();
        outln!(
            "{}",
            lcm::json_out::compact(&serde_json::json!({
                "latency_s": c.machine.latency_s,
                "bandwidth_bytes_per_s": c.machine.bandwidth_bytes_per_s,
                "keys": keys,
                "kept": kept,
                "warnings": c.warnings,
                "file": a.output.display().to_string(),
            }))
        );
    } else {
        for (k, v) in &keys {
            let how = match c.kept.get(k) {
                Some(x) if x.measured == 0 => format!(
                    "  (no repetition of {} gave a number: a stand-in, see the warnings)",
                    x.repetitions
                ),
                Some(x) if x.pairs > 0 => format!(
                    "  (mean over {} pairs of processors of each pair's median; {} quiet of {} repetitions)",
                    x.pairs, x.quiet, x.repetitions
                ),
                Some(x) if x.quiet == 0 => {
                    format!("  (median of all {}: none quiet)", x.repetitions)
                }
                Some(x) => format!(
                    "  (median of {} quiet of {}{})",
                    x.quiet,
                    x.repetitions,
                    if x.unknown > 0 {
                        format!("; {} of them too short to judge, counted quiet", x.unknown)
                    } else {
                        String::new()
                    }
                ),
                None => String::new(),
            };
            outln!("{k} = {}{how}", summary_value(*v));
        }
        outln!("machine file: {}", a.output.display());
    }
    for w in &c.warnings {
        eprintln!("warning: {w}");
    }
    0
}

/// A value in `lcm calibrate`'s summary: whole numbers (calibrated_p, mem_slowdown_k1, a
/// slope of 0) as written, the measured prices with five significant digits.
fn summary_value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v}")
    } else {
        format!("{v:.4e}")
    }
}

#[cfg(test)]
mod tests {
    use super::summary_value;

    #[test]
    fn the_calibrate_summary_writes_whole_numbers_as_such() {
        assert_eq!(summary_value(2.0), "2");
        assert_eq!(summary_value(0.0), "0");
        assert_eq!(summary_value(1.0), "1");
        assert_eq!(summary_value(1.6196e-7), "1.6196e-7");
        assert_eq!(summary_value(0.99735), "9.9735e-1");
    }
}
