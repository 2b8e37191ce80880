//! Command-line arguments of `pp` (clap derive) and their conversion to [`pp::app::Config`].

use std::path::PathBuf;

use clap::Parser;
use pp::app::Config;
use pp::{Options, TagSelection};

const EXAMPLES: &str = "\
Examples:
  PPLIB_LOG=run.pplog ./my_program      record a run (pplib)
  pp run.pplog                          the lost-cycles table of the session
  pp --all-tags run.pplog               the session and every fragment
  pp -t cols --per-thread run.pplog     fragment `cols`, per thread (Crovella Table 4.2)
  pp -l \"n=1024 impl=dp\" run.pplog >> fft.pp
                                        append record lines for lca
  pp --baseline p1.pplog p4.pplog       add pure computation and memory loss
  pp --histograms run.pplog             task and wait duration percentiles
  pp --timeline run.json run.pplog      open run.json in ui.perfetto.dev
  pp --plot lc.svg p1.pplog p2.pplog p4.pplog
                                        stacked bars, one per log (lc.png: PNG)

Categories (processor-seconds; li+ip+sl+wc+rt = tt = p x elapsed):
  li load imbalance, ip insufficient parallelism, sl synchronization loss,
  wc wasted computation, rt remaining time; with --baseline pc pure computation and
  ml memory loss; with llc_misses counters and --miss-latency cl communication loss
  (and rc resource contention); with cpu_ns counters os (descheduled Busy time);
  over: thread-time beyond p when oversubscribed. Unmeasured categories are absent.
  ml can be negative: the run computed in less processor time than its baseline (its
  data fit p processors' caches better, or noise); pc + ml = rt still holds.

Per thread (--per-thread): each thread's share of the categories. A row `(no thread)`
  holds idle processor-time (li, ip) at instants when no thread is idle because fewer
  threads exist than p (before the workers start, or a pool smaller than p): no thread
  was there to charge it to.

Recording cost: after the first table, the events recorded times the cost of one (measured
  by pplib at the session's end; estimated from the closest events in logs that predate
  that measure) as a share of tt; a warning above 2% (docs/event-logs.md, \"The cost of
  recording\").

-t NAME shows only fragment NAME (no session); --all-tags shows the session and every
  fragment. The names a log has are listed when NAME is not one of its fragments.

Exit status: 0 success, 1 bad input (the message names the file and line or byte
offset), 2 usage error.";

/// Lost-cycles (predicate) profiles from pplib event logs.
#[derive(Debug, Parser)]
#[command(name = "pp", version, after_help = EXAMPLES)]
pub struct Args {
    /// Logs to profile (binary pplib logs or .pptrace text traces), one profile each
    /// [default: $PPLIB_LOG, then pp.log]
    #[arg(value_name = "LOG")]
    pub logs: Vec<PathBuf>,

    /// Profile only the window of fragment NAME (union of the intervals in which it is open
    /// on some thread)
    #[arg(short = 't', long, value_name = "NAME", conflicts_with = "all_tags")]
    pub tag: Option<String>,

    /// Profile the session and every fragment, one profile each
    #[arg(long)]
    pub all_tags: bool,

    /// Print profile records (one line per profile, for lca), NOTE's key=value tokens first.
    /// A value without '=' is taken as a LOG
    #[arg(short = 'l', long = "line", value_name = "NOTE", num_args = 0..=1,
          default_missing_value = "", conflicts_with_all = ["json", "per_thread", "histograms"])]
    pub line: Option<String>,

    /// Also show the categories per thread
    #[arg(long)]
    pub per_thread: bool,

    /// A p = 1 run of the same program and input: adds pc (pure computation) and ml (memory
    /// loss) to every profile
    #[arg(long, value_name = "LOG1")]
    pub baseline: Option<PathBuf>,

    /// Nanoseconds per last-level-cache miss: with llc_misses counters gives cl (and rc with
    /// --baseline)
    #[arg(long, value_name = "NS")]
    pub miss_latency: Option<f64>,

    /// Task and wait duration percentiles (p50/p90/p99/max) per profile
    #[arg(long)]
    pub histograms: bool,

    /// Everything as JSON (fields documented in pp's `report` module)
    #[arg(long)]
    pub json: bool,

    /// Write a Chrome trace-event timeline (open in ui.perfetto.dev); one LOG only
    #[arg(long, value_name = "OUT.json")]
    pub timeline: Option<PathBuf>,

    /// Write stacked bars of the categories, one bar per profile: PNG for a .png name, else SVG
    #[arg(long, value_name = "OUT.svg|OUT.png")]
    pub plot: Option<PathBuf>,

    /// Profile the events before a truncation (with a warning) instead of failing
    #[arg(long)]
    pub allow_truncated: bool,

    /// Refuse a log with an end event that does not match its thread's innermost open
    /// construct (by default it is dropped with a warning and the rest is profiled)
    #[arg(long)]
    pub strict: bool,
}

impl Args {
    /// The plain configuration; `Err` is a usage error (exit status 2). `env_log` is the
    /// value of `$PPLIB_LOG`.
    pub fn into_config(self, env_log: Option<String>) -> Result<Config, String> {
        let mut logs = self.logs;
        let line = match self.line {
            None => None,
            Some(note) if !note.is_empty() && !note.contains('=') => {
                logs.insert(0, PathBuf::from(note));
                Some(Vec::new())
            }
            Some(note) => Some(pp::parse_note(&note).map_err(|e| e.to_string())?),
        };
        if logs.is_empty() {
            logs.push(PathBuf::from(
                env_log
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| "pp.log".to_owned()),
            ));
        }
        if let Some(ns) = self.miss_latency {
            if !(ns.is_finite() && ns >= 0.0) {
                return Err(format!(
                    "--miss-latency: expected a non-negative number of nanoseconds, found {ns}"
                ));
            }
        }
        for (flag, path) in [("--timeline", &self.timeline), ("--plot", &self.plot)] {
            if path.as_deref() == Some(std::path::Path::new("-")) {
                return Err(format!(
                    "{flag}: expected a file name, found '-' (the profile itself goes to the \
                     standard output)"
                ));
            }
        }
        if self.timeline.is_some() && logs.len() > 1 {
            return Err(format!(
                "--timeline writes one log's timeline: expected one LOG, found {}",
                logs.len()
            ));
        }
        let tags = match (self.tag, self.all_tags) {
            (Some(t), _) => TagSelection::One(t),
            (None, true) => TagSelection::All,
            (None, false) => TagSelection::None,
        };
        Ok(Config {
            logs,
            options: Options {
                tags,
                miss_latency_ns: self.miss_latency,
                histograms: self.histograms,
                allow_truncated: self.allow_truncated,
                strict: self.strict,
                sequential: false,
            },
            line,
            per_thread: self.per_thread,
            baseline: self.baseline,
            json: self.json,
            timeline: self.timeline,
            plot: self.plot,
        })
    }
}
