//! Opening a log and computing its profiles: the entry points of the library.

mod pipelines;

use std::path::{Path, PathBuf};

use pplib::log::{LogError, LogReader, Position, ThreadId};
use serde::Serialize;

use crate::baseline::command_line_differences;
use crate::checks::{recording_warnings, thread_count_warnings};
use crate::disturbance::Disturbance;
use crate::error::{shorten, PpError};
use crate::profile::Profile;
use crate::record::{format_record, profile_record, ProfileRecord};
use crate::recording::{event_cost, RecordingCost};
use crate::stack::MAX_DEPTH;
use crate::sweep::{
    CounterRoles, Dropped, Observer, Sweep, SweepConfig, SweepError, SweepErrorKind, SweepResult,
    TagSelection, ThreadCounts,
};
use pipelines::run_pipeline;

/// Logs with more threads than this are decoded by the merge thread (one lane or decoder
/// thread per log thread would be too many).
pub const MAX_DECODER_THREADS: usize = 64;

/// Logs with more threads than this are profiled by the reference pipeline
/// ([`crate::merge`], O(log T) per event for T threads), even with [`Engine::Fast`]: the
/// fast pipeline's merge looks at every lane at each frontier ([`crate::pipeline`]), and a
/// log of many short threads has about one frontier per thread, so its cost would grow
/// as T², and each lane keeps batches of its own.
pub const MAX_LANES: usize = 1024;

/// Which pipeline computes the profiles. Both give the same profiles, warnings and
/// errors (held to it by `tests/engines.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// Lanes, a merge of their transitions, and the global sweep ([`crate::pipeline`]);
    /// with an observer (timelines), duration histograms or more than [`MAX_LANES`]
    /// threads, the reference.
    #[default]
    Fast,
    /// [`Engine::Fast`] keeping the window totals only: profiles without per-thread rows
    /// (empty [`Profile::threads`]), for the views that show none (default table, record
    /// lines, plots); less work per event. See [`Sweep::totals_only`].
    FastTotals,
    /// The merge of the decoded events into [`Sweep::event`] ([`crate::merge`]): the
    /// reference the fast pipeline is checked against.
    Reference,
}

/// What to compute.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Fragment windows besides the session.
    pub tags: TagSelection,
    /// Nanoseconds per last-level-cache miss; with `llc_misses` counters gives `cl`.
    pub miss_latency_ns: Option<f64>,
    /// Collect task and wait duration percentiles.
    pub histograms: bool,
    /// Profile what precedes a truncation (with a warning) instead of failing.
    pub allow_truncated: bool,
    /// Fail on an end event that does not match the innermost open construct of its
    /// thread. By default such an event is dropped with a warning that gives its position,
    /// and the rest of the log is profiled as if it were absent (`docs/event-logs.md`).
    pub strict: bool,
    /// Decode, merge and sweep on the calling thread only. By default, with several cores,
    /// the sweep runs on the calling thread and the merge (with the lanes or decoding) on
    /// a thread of its own; with more than two cores each log thread's lane (fast
    /// pipeline) or stream decoding (reference) also gets a thread of its own.
    pub sequential: bool,
}

impl Options {
    /// The session and every fragment.
    pub fn all_tags() -> Options {
        Options {
            tags: TagSelection::All,
            ..Options::default()
        }
    }
}

/// The profiles of one log.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The log file.
    pub log: PathBuf,
    /// p.
    pub processors: u32,
    /// The clock of the time stamps (from the header).
    pub clock: String,
    /// Events read.
    pub events: u64,
    /// Thread ids in the log.
    pub threads: Vec<u32>,
    /// The command line of the recorded run (empty for `.pptrace` traces).
    pub command_line: Vec<String>,
    /// The session profile first, then one per selected fragment (order of first
    /// appearance in the log).
    pub profiles: Vec<Profile>,
    /// Non-fatal findings, one line each.
    pub warnings: Vec<String>,
    /// The threads that appeared and recorded work (compared with p by
    /// `crate::checks`).
    pub thread_counts: ThreadCounts,
    /// Whether the run was disturbed: its Busy threads lost too much time or were
    /// preempted too often ([`crate::disturbance`]; a warning says how).
    pub disturbed: bool,
    /// The measures behind [`Analysis::disturbed`] (`os` share, switches and their rate).
    pub disturbance: Disturbance,
    /// What the recording itself cost, per thread and against the session's `tt`
    /// ([`crate::recording`]; a warning says when it is too much).
    pub recording: RecordingCost,
}

impl Analysis {
    /// The session profile.
    pub fn session(&self) -> &Profile {
        &self.profiles[0]
    }

    /// The profile of fragment `tag`, if it was computed.
    pub fn tag(&self, tag: &str) -> Option<&Profile> {
        self.profiles.iter().find(|p| p.tag.as_deref() == Some(tag))
    }

    /// Adds `pc`, `ml` (and `rc`) to every profile from the profile of the same window in
    /// `baseline` (a p = 1 run of the same program and input). Returns warnings: a baseline
    /// that was not run at p = 1, of another program or with other arguments (see
    /// `crate::baseline`), windows the baseline lacks (those stay without `pc`/`ml`).
    pub fn apply_baseline(&mut self, baseline: &Analysis) -> Vec<String> {
        let mut warnings = Vec::new();
        if baseline.processors != 1 {
            warnings.push(format!(
                "{}: baseline has p = {}, expected p = 1; pc and ml use it anyway",
                baseline.log.display(),
                baseline.processors
            ));
        }
        for w in command_line_differences(&self.command_line, &baseline.command_line) {
            warnings.push(format!("{}: {w}", baseline.log.display()));
        }
        for prof in &mut self.profiles {
            match baseline.profiles.iter().find(|b| b.tag == prof.tag) {
                Some(b) => prof.apply_baseline(b),
                None => warnings.push(format!(
                    "{}: baseline has no window {:?}; no pc/ml for it",
                    baseline.log.display(),
                    prof.window_name()
                )),
            }
        }
        self.warnings.extend(warnings.iter().cloned());
        warnings
    }

    /// The record lines (docs/records.md), one per profile, with the note tokens first.
    pub fn record_lines(&self, note: &[String]) -> Vec<String> {
        self.profiles
            .iter()
            .map(|p| format_record(note, p))
            .collect()
    }

    /// The records as values (what [`Analysis::record_lines`] writes), one per profile,
    /// for `lca` in the same process (`lca::record::Record::from_profile`).
    pub fn records(&self, note: &[String]) -> Vec<ProfileRecord> {
        self.profiles
            .iter()
            .map(|p| profile_record(note, p))
            .collect()
    }
}

/// Opens the log at `path` (binary or `.pptrace`) and computes its profiles.
pub fn analyze(path: &Path, options: &Options) -> Result<Analysis, PpError> {
    analyze_with(path, options, Engine::Fast)
}

/// [`analyze`] with the pipeline chosen by `engine`.
pub fn analyze_with(path: &Path, options: &Options, engine: Engine) -> Result<Analysis, PpError> {
    let reader = LogReader::open(path)?;
    analyze_reader_with(&reader, options, None, engine)
}

/// Computes the profiles of an opened log; `observer` (for timelines) sees every interval.
pub fn analyze_reader(
    reader: &LogReader,
    options: &Options,
    observer: Option<&mut dyn Observer>,
) -> Result<Analysis, PpError> {
    analyze_reader_with(reader, options, observer, Engine::Fast)
}

/// [`analyze_reader`] with the pipeline chosen by `engine`.
pub fn analyze_reader_with(
    reader: &LogReader,
    options: &Options,
    mut observer: Option<&mut dyn Observer>,
    engine: Engine,
) -> Result<Analysis, PpError> {
    let header = reader.header();
    let path = reader.path().to_owned();
    if header.processors == 0 {
        return Err(PpError::NoProcessors { path });
    }
    let streams = reader.streams();
    let threads: Vec<_> = streams.iter().map(|s| s.thread()).collect();
    let mut sweep = new_sweep(reader, options, &threads);
    let (mut warnings, truncation_reported, events_per_slot) = run_pipeline(
        reader,
        streams,
        &threads,
        &mut sweep,
        options,
        observer.as_mut().map(|o| &mut **o as &mut dyn Observer),
        engine,
    )?;
    warnings.extend(dropped_end_warnings(&path, sweep.take_dropped()));
    if let (Some(pos), false) = (reader.truncated(), truncation_reported) {
        warnings.push(unreported_truncation(&path, pos, options)?);
    }
    warnings.sort();
    warnings.dedup();
    let result = sweep.finish(observer);
    warnings.extend(result.warnings.iter().cloned());
    if let TagSelection::One(tag) = &options.tags {
        if result.windows.len() < 2 {
            return Err(no_such_tag(reader, tag));
        }
    }
    Ok(assemble(
        reader,
        options,
        result,
        warnings,
        &threads,
        events_per_slot,
    ))
}

/// The sweep of a log of `threads` (its header gives p and the counters), set up for
/// `options`.
fn new_sweep(reader: &LogReader, options: &Options, threads: &[ThreadId]) -> Sweep {
    let header = reader.header();
    let config = SweepConfig {
        processors: header.processors,
        tags: options.tags.clone(),
        histograms: options.histograms,
        counters: CounterRoles::from_names(&header.counters),
    };
    let mut sweep = Sweep::new(config, reader.names().to_vec(), threads);
    if !options.strict {
        sweep.drop_unmatched_ends();
    }
    sweep
}

/// The warning for a log truncated where no thread stream saw it (e.g. before any event
/// was written); an error unless `options` allow a truncated log.
fn unreported_truncation(path: &Path, pos: Position, options: &Options) -> Result<String, PpError> {
    let e = LogError::Truncated {
        path: path.to_owned(),
        pos,
        detail: "the log ends before its end marker".to_owned(),
    };
    if options.allow_truncated {
        Ok(format!("{e}; profiling the events before it"))
    } else {
        Err(PpError::Log(e))
    }
}

/// The analysis of a finished sweep: a profile per window, with the warnings so far and
/// those about the threads that ran, the run's disturbance and what the recording cost
/// (from the events read per thread, `events_per_slot`).
fn assemble(
    reader: &LogReader,
    options: &Options,
    result: SweepResult,
    mut warnings: Vec<String>,
    threads: &[ThreadId],
    events_per_slot: Vec<u64>,
) -> Analysis {
    let header = reader.header();
    let profiles: Vec<Profile> = result
        .windows
        .iter()
        .map(|w| Profile::from_window(&result, w, options.miss_latency_ns))
        .collect();
    warnings.extend(thread_count_warnings(header.processors, &result.threads));
    let disturbance = Disturbance::of(&profiles[0]);
    warnings.extend(disturbance.warnings());
    let events_per_thread: Vec<_> = threads.iter().copied().zip(events_per_slot).collect();
    let recording = RecordingCost::new(&events_per_thread, event_cost(reader), &profiles[0]);
    warnings.extend(recording_warnings(&recording));
    Analysis {
        log: reader.path().to_owned(),
        processors: header.processors,
        clock: header.clock.clone(),
        events: result.events,
        threads: threads.iter().map(|t| t.0).collect(),
        command_line: header.process.command_line.clone(),
        profiles,
        warnings,
        thread_counts: result.threads,
        disturbed: disturbance.disturbed(),
        disturbance,
        recording,
    }
}

/// At most this many names are listed in a message: a log's string table can be as large
/// as the log.
const LISTED_NAMES: usize = 8;

/// The first [`LISTED_NAMES`] names, shortened ([`shorten`]), comma separated; `none` if there are none.
fn name_list(names: &[String]) -> String {
    if names.is_empty() {
        return "none".to_owned();
    }
    let mut list: Vec<String> = names
        .iter()
        .take(LISTED_NAMES)
        .map(|n| shorten(n))
        .collect();
    if names.len() > LISTED_NAMES {
        list.push(format!("... ({} more)", names.len() - LISTED_NAMES));
    }
    list.join(", ")
}

/// The error for `--tag NAME` when the log has no fragment NAME. The log's string table
/// holds fragment names and wait kinds alike; a scan of every thread's `frag_begin` events
/// tells them apart, so the message lists the fragments, and the other names as wait kinds.
fn no_such_tag(reader: &LogReader, tag: &str) -> PpError {
    let names = reader.names();
    let (mut fragments, mut wait_kinds) = (Vec::new(), Vec::new());
    for (name, fragment) in names.iter().zip(fragment_names(reader, names.len())) {
        match fragment {
            true => fragments.push(name.clone()),
            false => wait_kinds.push(name.clone()),
        }
    }
    PpError::NoSuchTag {
        path: reader.path().to_owned(),
        tag: shorten(tag),
        available: name_list(&fragments),
        wait_kinds: name_list(&wait_kinds),
    }
}

/// Which of the log's `count` names some `frag_begin` event uses (a name read up to a
/// stream's error counts as far as it was read).
fn fragment_names(reader: &LogReader, count: usize) -> Vec<bool> {
    let mut used = vec![false; count];
    let mut batch = pplib::log::EventBatch::new();
    for mut stream in reader.streams() {
        while stream.next_batch(&mut batch).is_ok() && !batch.is_empty() {
            for e in batch.events() {
                if e.code == pplib::log::EventCode::FragBegin {
                    if let Some(u) = used.get_mut(e.name().0 as usize) {
                        *u = true;
                    }
                }
            }
        }
    }
    used
}

/// The warnings for events dropped because their thread's stack could not take them (an
/// end event that matched no open construct, a begin event past [`MAX_DEPTH`]): one a
/// dropped event (its position, thread, and what was expected), at most
/// [`Dropped::LISTED`], then how many more of each kind there were.
fn dropped_end_warnings(path: &Path, dropped: Dropped) -> Vec<String> {
    let mut more_unmatched = dropped.unmatched;
    let mut more_too_deep = dropped.too_deep;
    for e in &dropped.first {
        match e.kind {
            SweepErrorKind::Unmatched => more_unmatched -= 1,
            SweepErrorKind::TooDeep => more_too_deep -= 1,
        }
    }
    let mut out: Vec<String> = dropped
        .first
        .into_iter()
        .map(|e| {
            // The log's name goes before every warning already.
            let message = unmatched(path, e).to_string();
            let prefix = format!("{}: ", path.display());
            format!(
                "{}; dropped, the rest is profiled as if it were not there (--strict refuses \
                 the log)",
                message.strip_prefix(&prefix).unwrap_or(&message)
            )
        })
        .collect();
    if more_unmatched > 0 {
        out.push(format!(
            "{more_unmatched} more unmatched end events dropped"
        ));
    }
    if more_too_deep > 0 {
        out.push(format!(
            "{more_too_deep} more begin events dropped past {MAX_DEPTH} open constructs"
        ));
    }
    out
}

/// The error for an event its thread's stack cannot take: an end event that matches no
/// begin, a begin event past [`MAX_DEPTH`].
fn unmatched(path: &Path, e: SweepError) -> PpError {
    match e.kind {
        SweepErrorKind::Unmatched => PpError::Unmatched {
            path: path.to_owned(),
            pos: e.pos,
            thread: e.thread.0,
            found: e.found,
            expected: e.expected,
        },
        SweepErrorKind::TooDeep => PpError::TooDeep {
            path: path.to_owned(),
            pos: e.pos,
            thread: e.thread.0,
            found: e.found,
            limit: MAX_DEPTH,
        },
    }
}

/// Reads a log from memory (fuzzing, tests) and computes its profiles.
pub fn analyze_bytes(bytes: Vec<u8>, name: &str, options: &Options) -> Result<Analysis, PpError> {
    let reader = LogReader::from_bytes(bytes, name)?;
    analyze_reader(&reader, options, None)
}

/// Convenience for the end-to-end study: the session and every fragment of the log at
/// `path`, with `pc`/`ml` from `baseline` (a p = 1 log) when given.
pub fn profile_log(path: &Path, baseline: Option<&Path>) -> Result<Analysis, PpError> {
    let options = Options::all_tags();
    let mut analysis = analyze(path, &options)?;
    if let Some(b) = baseline {
        let base = analyze(b, &options)?;
        analysis.apply_baseline(&base);
    }
    Ok(analysis)
}

/// Keeps `LogError` reachable for users matching on [`PpError::Log`].
pub type ReaderError = LogError;
