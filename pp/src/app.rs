//! What the `pp` command does, as a library function over a plain [`Config`] (the binary
//! only parses arguments into it and maps errors to exit codes).

use std::io::Write;
use std::path::PathBuf;

use pplib::log::LogReader;

use crate::analysis::{analyze, analyze_reader, analyze_with, Analysis, Engine, Options};
use crate::error::PpError;
use crate::plot::{plot, Bar};
use crate::record::format_record;
use crate::report::Report;
use crate::sweep::TagSelection;
use crate::table::analysis_text;
use crate::timeline::Timeline;

/// Everything the command line asked for.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Logs to profile, one analysis each.
    pub logs: Vec<PathBuf>,
    /// Tags, miss latency, histograms, truncation.
    pub options: Options,
    /// `-l`: print record lines with these note tokens first.
    pub line: Option<Vec<String>>,
    /// Per-thread tables.
    pub per_thread: bool,
    /// A p = 1 log giving `pc` and `ml`.
    pub baseline: Option<PathBuf>,
    /// JSON instead of text.
    pub json: bool,
    /// Write a Chrome trace-event timeline of the (single) log here.
    pub timeline: Option<PathBuf>,
    /// Write stacked bars of all profiles here (SVG).
    pub plot: Option<PathBuf>,
}

/// Runs the command: computes the analyses, writes the asked-for view to `out` and the
/// warnings (one line each, `pp: warning: ...`) to `warn`.
pub fn run(config: &Config, out: &mut dyn Write, warn: &mut dyn Write) -> Result<(), PpError> {
    let baseline = match &config.baseline {
        Some(path) => Some(analyze(path, &config.options)?),
        None => None,
    };
    // Per-thread rows are shown by `--per-thread` and `--json` only.
    let engine = if config.per_thread || config.json {
        Engine::Fast
    } else {
        Engine::FastTotals
    };
    let mut analyses = Vec::with_capacity(config.logs.len());
    for path in &config.logs {
        let mut a = match (&config.timeline, analyses.is_empty()) {
            (Some(tl), true) => {
                let reader = LogReader::open(path)?;
                let mut timeline = Timeline::create(
                    tl,
                    &path.display().to_string(),
                    reader.names().to_vec(),
                    reader.threads(),
                )?;
                let a = analyze_reader(&reader, &config.options, Some(&mut timeline))?;
                timeline.finish()?;
                a
            }
            _ => analyze_with(path, &config.options, engine)?,
        };
        if let Some(b) = &baseline {
            a.apply_baseline(b);
        }
        a.warnings.extend(missing_inputs(&a, &config.options));
        if let TagSelection::One(_) = config.options.tags {
            // `-t NAME` shows that fragment only; the session was computed alongside it.
            a.profiles.retain(|p| p.tag.is_some());
        }
        for w in &a.warnings {
            let _ = writeln!(warn, "pp: warning: {}: {w}", a.log.display());
        }
        analyses.push(a);
    }
    let note = config.line.clone().unwrap_or_default();
    if let Some(plot) = &config.plot {
        if let Some(w) = draw_plot(plot, &analyses, &note)? {
            let _ = writeln!(warn, "pp: warning: {w}");
        }
    }
    let write_err = |e: std::io::Error| PpError::Output {
        path: PathBuf::from("<stdout>"),
        message: e.to_string(),
    };
    if config.json {
        let report = Report::new(&analyses, &note);
        writeln!(out, "{}", report.to_json()).map_err(write_err)?;
    } else if let Some(note) = &config.line {
        for a in &analyses {
            for p in &a.profiles {
                writeln!(out, "{}", format_record(note, p)).map_err(write_err)?;
            }
        }
    } else {
        for (i, a) in analyses.iter().enumerate() {
            if i > 0 {
                writeln!(out).map_err(write_err)?;
            }
            write!(out, "{}", analysis_text(a, config.per_thread)).map_err(write_err)?;
        }
    }
    Ok(())
}

/// Warnings for options whose input the log lacks, so that they are not silently ignored.
fn missing_inputs(a: &Analysis, options: &Options) -> Option<String> {
    let session = a.profiles.first()?;
    match (options.miss_latency_ns, session.llc_misses) {
        (Some(_), None) => Some(
            "--miss-latency has nothing to multiply: the log has no llc_misses counter \
             samples (recorded without hardware counters?), so cl and rc are absent"
                .to_owned(),
        ),
        (None, Some(_)) => Some(
            "the log has llc_misses counters: give --miss-latency NS to turn them into cl \
             (communication loss)"
                .to_owned(),
        ),
        _ => None,
    }
}

fn draw_plot(
    path: &std::path::Path,
    analyses: &[Analysis],
    note: &[String],
) -> Result<Option<String>, PpError> {
    let several_logs = analyses.len() > 1;
    let mut bars = Vec::new();
    for a in analyses {
        for p in &a.profiles {
            let mut label = if note.is_empty() {
                format!("p={}", p.processors)
            } else {
                note.join(" ")
            };
            if several_logs && note.is_empty() {
                if let Some(stem) = a.log.file_stem() {
                    label = format!("{} {label}", stem.to_string_lossy());
                }
            }
            if let Some(tag) = &p.tag {
                label = format!("{label} {tag}");
            }
            bars.push(Bar { label, profile: p });
        }
    }
    plot(path, "lost cycles", &bars)
}
