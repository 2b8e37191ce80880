//! Command-line arguments of `pp-campaign` (clap derive) and their conversion to a
//! [`pp::campaign::Campaign`].

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use pp::campaign::{
    Campaign, CommandTemplate, ExecRunner, Grid, Iterations, PerExecution, Repeats,
};

const EXAMPLES: &str = "\
Examples:
  pp-campaign --grid size=256,512 --p 1..2 --reps 5 -o fft.pp -- ./fft2d -n {size} -p {p}
                                  5 quiet repetitions of 4 points, records in fft.pp
  lca model -f fft.pp -v size,p --all-tags --emit annotation > fft.models
                                  fit every fragment from them
  pp-campaign --grid keys=65536..1048576:*4 --p 1,2,4 --reps 3 --time-key time_s \\
      --note impl=locked -o hist.pp -- histogram --impl locked -n {keys} -p {p}
                                  the program's own timed region (it prints time_s=S)
  pp-campaign --grid size=64 --grid layout=row,col --p 1..4 -- ./prog {layout} {size}
  pp-campaign --grid n:iters=256:40,512:10 --p 1,2 --per-execution \\
      --iterations iters -o dp.pp -- ./fft2d -n {n} --iters {iters} -p {p}
                                  records per execution: each fragment's over its runs,
                                  the session's over the run's iterations; n and iters
                                  paired: 2 points per p, (256, 40) and (512, 10)
  OMP_TOOL_LIBRARIES=$HOME/.local/lib/libpplib.so \\
      pp-campaign --grid n=200,400 --p 1,2 -o omp.pp -- ./prog -n {n}
                                  an unmodified OpenMP program, recorded by pplib's
                                  OpenMP tool (every run inherits the environment)

Command: the words after `--`, one argument each (no shell); {NAME} is the point's value
  of grid variable NAME, {p} its processor count, {{ and }} literal braces. Every run
  inherits pp-campaign's environment and gets PPLIB_LOG (its own log file), and p in
  PPLIB_PROCESSORS, RAYON_NUM_THREADS and OMP_NUM_THREADS.

Grid: NAME=ITEMS (repeatable) and --p ITEMS; an item is a value, A..B, A..B:+K (step)
  or A..B:*K (factor). The points are every combination of the options' values and p:
  --grid n=256,512 --grid iters=40,10 is 4 points per p. Variables paired in one option,
  NAME:NAME=V:V,V:V (plain values), vary together: --grid n:iters=256:40,512:10 is 2.
  Points run round robin: one repetition of each per round, rounds in alternating
  order, after an unrecorded warm-up round.

Quiet: a repetition counts when the processor time other processes took while it ran
  was below 3% of the machine (from /proc); disturbed ones are repeated (up to --most
  rounds) after waiting for a quiet 100 ms window. Where /proc cannot be read, all count.

Records (docs/records.md): for every counted repetition, pp's profile of its log (the
  session and every fragment) with pc/ml from the median p = 1 repetition of the same
  variables, noted `VARIABLES rep=ROUND run_s=SECONDS` after --note's tokens. With
  --per-execution each fragment's record is divided by the times it ran in the run and
  the session's (and --per-iteration's fragments') by --iterations (the trip count of the
  program's outermost loop; 1 by default: the session stays whole). A fragment whose
  executions at p > 1 differ from its p = 1 point's (one run inside parallel tasks:
  overlapping runs count once) is warned about: name it in --per-iteration.

Warnings: points with fewer quiet repetitions than --reps (how many of how many), points
  whose counted repetitions spread over 10% (median over fastest: their time is that
  uncertain; a spread from one run is not measured, shown as -). pp's checks of every
  profiled run (its threads preempted or disturbed, the recording's cost) are one line
  per check for the whole campaign: how many runs tripped it, the worst, how many of them
  the quiet gate counted quiet; --json's run_warnings lists them run by run
  (docs/campaigns.md).

Exit status: 0 success, 1 bad input (a run failed, a log could not be profiled, a file
  could not be written), 2 usage error.";

/// Run a program over a grid of sizes, p and repetitions, round robin behind a quiet-machine
/// gate, and write pp profile records (p = 1 baseline) for lca.
#[derive(Debug, Parser)]
#[command(name = "pp-campaign", version, after_help = literal_placeholders(EXAMPLES))]
pub struct Args {
    /// A size variable and its values: NAME=ITEMS (repeat for more variables: every
    /// combination), or variables paired step by step: NAME:NAME=V:V,V:V
    #[arg(long = "grid", value_name = "NAME=ITEMS")]
    pub grid: Vec<String>,

    /// Processor counts
    #[arg(long = "p", value_name = "ITEMS", default_value = "1,2")]
    pub p: String,

    /// Quiet repetitions per point
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub reps: usize,

    /// Most rounds, quiet or not [default: 3 x --reps]
    #[arg(long, value_name = "N")]
    pub most: Option<usize>,

    /// Unrecorded warm-up rounds
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub warmup: usize,

    /// Longest wait for quiet before the campaign, in seconds (a third of it after each
    /// round and each disturbed repetition)
    #[arg(long, value_name = "S", default_value_t = 2.0)]
    pub wait: f64,

    /// Longest total wait for quiet, in seconds: all waits together, the first one
    /// included; once spent, repetitions follow each other without waiting
    #[arg(long, value_name = "S", default_value_t = 120.0)]
    pub wait_budget: f64,

    /// Take a run's seconds from the last KEY=SECONDS token it prints, not the wall clock
    /// (time the region inside pplib::run's closure, in C after pp_start_profiling() or,
    /// under the OpenMP tool, after a first OpenMP call such as omp_get_max_threads(): a
    /// recorded run's first session calibrates pplib's clock for about 20 ms before it
    /// begins)
    #[arg(long, value_name = "KEY")]
    pub time_key: Option<String>,

    /// Records per execution: each fragment's amounts divided by the times it ran in the
    /// repetition, the session's by --iterations, as `lcm` counts a loop's fragments
    #[arg(long)]
    pub per_execution: bool,

    /// With --per-execution: the iterations of a run (the trip count of the program's
    /// outermost loop), a grid variable or a whole number; the session record is divided
    /// by it [default: 1, the session's record stays whole]
    #[arg(long, value_name = "VAR|N", requires = "per_execution")]
    pub iterations: Option<String>,

    /// With --per-execution: fragments divided by --iterations instead of their executions
    /// (comma-separated tags): their records are totals per iteration, for a fragment run a
    /// number of times per iteration that depends on the input
    #[arg(
        long,
        value_name = "TAGS",
        requires = "per_execution",
        value_delimiter = ','
    )]
    pub per_iteration: Vec<String>,

    /// key=value tokens written first in every record (such as impl=dp)
    #[arg(long, value_name = "NOTE", default_value = "")]
    pub note: String,

    /// Records file
    #[arg(short = 'o', long, value_name = "FILE", default_value = "campaign.pp")]
    pub out: PathBuf,

    /// Directory of the repetitions' logs [default: OUT.logs]
    #[arg(long, value_name = "DIR")]
    pub logs: Option<PathBuf>,

    /// Leave the counted repetitions' logs in the logs directory
    #[arg(long)]
    pub keep_logs: bool,

    /// The summary as JSON (fields documented in pp's `campaign::summary` module)
    #[arg(long)]
    pub json: bool,

    /// No progress lines on stderr
    #[arg(short, long)]
    pub quiet: bool,

    /// The program and its arguments, with {NAME} and {p} placeholders
    #[arg(last = true, value_name = "COMMAND", required = true)]
    pub command: Vec<String>,
}

/// `text` for clap's help with every `{n}` shown as written. Clap turns `{n}` into a line
/// break anywhere in help text and has no escape for it, so an ANSI reset (`ESC[0m`) goes
/// between `{` and `n}`: invisible on a terminal, and removed by clap when the help goes to
/// a pipe or a file, which then holds the literal `{n}`.
pub fn literal_placeholders(text: &str) -> String {
    text.replace("{n}", "{\x1b[0mn}")
}

fn seconds(name: &str, s: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| format!("--{name}: expected a non-negative number of seconds, found {s}"))
}

impl Args {
    /// The campaign; `Err` is a usage error (exit status 2).
    pub fn into_campaign(self) -> Result<Campaign, String> {
        let grid = Grid::parse(&self.grid, &self.p).map_err(|e| e.to_string())?;
        let template = CommandTemplate::parse(&self.command, &grid).map_err(|e| e.to_string())?;
        if self.reps == 0 {
            return Err("--reps: expected at least 1".into());
        }
        let mut repeats = Repeats::new(self.reps);
        if let Some(m) = self.most {
            if m < self.reps {
                return Err(format!(
                    "--most: expected at least --reps ({}), found {m}",
                    self.reps
                ));
            }
            repeats.most = m;
        }
        repeats.warmup = self.warmup;
        repeats.wait = seconds("wait", self.wait)?;
        let note = pp::parse_note(&self.note).map_err(|e| format!("--note: {e}"))?;
        if let Some(clash) = note.iter().find_map(|t| {
            let key = t.split_once('=').map_or(t.as_str(), |(k, _)| k);
            (grid.variables().any(|name| name == key) || ["rep", "run_s"].contains(&key))
                .then(|| key.to_string())
        }) {
            return Err(format!(
                "--note: key {clash} is written by the campaign itself (a grid variable, rep or run_s)"
            ));
        }
        let logs = self.logs.unwrap_or_else(|| {
            let mut name = self.out.clone().into_os_string();
            name.push(".logs");
            PathBuf::from(name)
        });
        let per_execution = if self.per_execution {
            let iterations = match &self.iterations {
                None => Iterations::Count(1),
                Some(text) => Iterations::parse(text).map_err(|e| e.to_string())?,
            };
            iterations.check(&grid).map_err(|e| e.to_string())?;
            if let Some(bad) = self.per_iteration.iter().find(|t| t.trim().is_empty()) {
                return Err(format!(
                    "--per-iteration: expected fragment tags separated by commas, found '{bad}'"
                ));
            }
            Some(PerExecution {
                iterations,
                per_iteration: self.per_iteration.clone(),
            })
        } else {
            None
        };
        Ok(Campaign {
            grid,
            runner: ExecRunner {
                template,
                time_key: self.time_key,
            },
            repeats,
            wait_budget: seconds("wait-budget", self.wait_budget)?,
            note,
            logs,
            keep_logs: self.keep_logs,
            per_execution,
        })
    }
}
