//! Running a log's events into its sweep: the choice between the fast pipeline (lanes and
//! a merge of their transitions) and the reference (a merge of the decoded events), each
//! on one thread or spread over several.

use std::path::Path;
use std::sync::Arc;

use pplib::log::{LogReader, ThreadId, ThreadStream};

use super::{dropped_end_warnings, unmatched, Engine, Options, MAX_DECODER_THREADS, MAX_LANES};
use crate::error::PpError;
use crate::lane::{spawn_lanes, Lane, LaneError, LaneSummary, Transition};
use crate::merge::{spawn_decoders, spawn_merger, BatchMerge, BatchSource, MergeRun, Merged};
use crate::pipeline::{spawn_lane_merger, LaneMerge};
use crate::sweep::{Dropped, Observer, Sweep};

/// Runs the events of `streams` (the streams of `reader`, of `threads`) into `sweep` with the pipeline
/// that `engine`, `observer`, `options` and the cores allow; returns the warnings, whether
/// a stream reported a truncation and the events read per slot.
pub(super) fn run_pipeline(
    reader: &LogReader,
    streams: Vec<ThreadStream>,
    threads: &[ThreadId],
    sweep: &mut Sweep,
    options: &Options,
    mut observer: Option<&mut dyn Observer>,
    engine: Engine,
) -> Result<(Vec<String>, bool, Vec<u64>), PpError> {
    let path = reader.path();
    // The pipeline: the merge (decoding the streams as it goes) on one thread, the sweep
    // on this one. With more than two cores, each stream is also decoded by its own thread.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pipelined = !options.sequential && cores > 1 && !streams.is_empty();
    let decoders = cores > 2 && (2..=MAX_DECODER_THREADS).contains(&streams.len());
    let fast = engine != Engine::Reference
        && observer.is_none()
        && !options.histograms
        && streams.len() <= MAX_LANES.min(Transition::MAX_SLOTS);
    if engine == Engine::FastTotals && observer.is_none() {
        sweep.totals_only();
    }
    if fast {
        let lanes = Lanes {
            names: reader.names().into(),
            selected: options.tags.selected_names(reader.names()).into(),
            threads,
            drop_unmatched: !options.strict,
        };
        // With two cores the lanes run on the merge thread (two busy threads, one per
        // core, rather than ten threads sharing two cores); with more, each lane gets a
        // thread of its own.
        let lane_threads = decoders;
        run_lanes(
            streams,
            lanes,
            sweep,
            path,
            options,
            pipelined,
            lane_threads,
        )
    } else if pipelined {
        std::thread::scope(|scope| {
            let merged = if decoders {
                spawn_merger(scope, BatchMerge::new(spawn_decoders(scope, streams)))
            } else {
                spawn_merger(scope, BatchMerge::new(streams))
            };
            drive(
                merged,
                sweep,
                path,
                options,
                observer.as_mut().map(|o| &mut **o as &mut dyn Observer),
                threads.len(),
            )
        })
    } else {
        drive(
            BatchMerge::new(streams),
            sweep,
            path,
            options,
            observer.as_mut().map(|o| &mut **o as &mut dyn Observer),
            threads.len(),
        )
    }
}

/// What every lane of a log shares.
struct Lanes<'a> {
    names: Arc<[String]>,
    selected: Arc<[bool]>,
    threads: &'a [ThreadId],
    /// Drop unmatched end events (not `--strict`).
    drop_unmatched: bool,
}

impl Lanes<'_> {
    fn of<S: BatchSource>(&self, sources: Vec<S>) -> Vec<Lane<S>> {
        sources
            .into_iter()
            .enumerate()
            .map(|(slot, s)| {
                let lane = Lane::new(
                    s,
                    slot,
                    self.threads[slot],
                    Arc::clone(&self.names),
                    Arc::clone(&self.selected),
                );
                match self.drop_unmatched {
                    true => lane.drop_unmatched_ends(),
                    false => lane,
                }
            })
            .collect()
    }
}

/// The fast pipeline ([`crate::pipeline`]) into the sweep; returns the warnings, whether
/// a stream reported a truncation and the events read per slot.
fn run_lanes(
    streams: Vec<ThreadStream>,
    lanes: Lanes<'_>,
    sweep: &mut Sweep,
    path: &Path,
    options: &Options,
    pipelined: bool,
    lane_threads: bool,
) -> Result<(Vec<String>, bool, Vec<u64>), PpError> {
    let mut warnings = Vec::new();
    let mut truncation_reported = false;
    let mut on_error = |_slot: usize, e: LaneError| -> Result<(), PpError> {
        match e {
            LaneError::Log(e) => {
                truncation_reported |= e.is_truncated();
                if options.allow_truncated && e.is_truncated() {
                    warnings.push(format!("{e}; profiling the events before it"));
                    Ok(())
                } else {
                    Err(PpError::Log(e))
                }
            }
            LaneError::Mismatch(e) => Err(unmatched(path, e)),
        }
    };
    let summaries: Vec<LaneSummary> = if pipelined {
        std::thread::scope(|scope| {
            // Each lane decodes its stream and keeps its stack on a thread of its own
            // (unless there are too many threads): the merge thread only merges.
            let merged = if lane_threads {
                let threaded = spawn_lanes(scope, lanes.of(streams));
                spawn_lane_merger(scope, LaneMerge::new(threaded))
            } else {
                spawn_lane_merger(scope, LaneMerge::new(lanes.of(streams)))
            };
            merged.apply(sweep, &mut on_error)
        })?
    } else {
        let mut failed = None;
        let summaries = LaneMerge::new(lanes.of(streams)).run(|mut run| {
            match run.apply(sweep, &mut on_error) {
                Ok(()) => {
                    run.clear();
                    Some(run)
                }
                Err(e) => {
                    failed = Some(e);
                    None
                }
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        summaries
    };
    let mut dropped = Dropped::default();
    let mut events_per_slot = vec![0; summaries.len()];
    for (slot, s) in summaries.into_iter().enumerate() {
        dropped.append(s.dropped);
        events_per_slot[slot] = s.events;
        sweep.add_events(s.events);
        if let Some(t) = s.last_time {
            sweep.extend_to(pplib::log::Nanos(t));
        }
        sweep.set_stack(slot, s.stack);
    }
    warnings.extend(dropped_end_warnings(path, dropped));
    Ok((warnings, truncation_reported, events_per_slot))
}

/// Runs the merge into the sweep of `slots` threads; returns the warnings, whether a stream
/// reported a truncation and the events merged per slot.
fn drive(
    mut merge: impl MergeRun,
    sweep: &mut Sweep,
    path: &Path,
    options: &Options,
    mut observer: Option<&mut dyn Observer>,
    slots: usize,
) -> Result<(Vec<String>, bool, Vec<u64>), PpError> {
    let mut warnings = Vec::new();
    let mut truncation_reported = false;
    let mut events_per_slot = vec![0u64; slots];
    merge.run(|item| {
        match item {
            Merged::Event {
                slot,
                event,
                values,
            } => {
                events_per_slot[slot] += 1;
                let obs = observer.as_mut().map(|o| &mut **o as &mut dyn Observer);
                sweep
                    .compact_event(slot, event, values, obs)
                    .map_err(|e| unmatched(path, e))?;
            }
            Merged::Ended(slot) => sweep.thread_ended(slot),
            Merged::Error(slot, e) => {
                truncation_reported |= e.is_truncated();
                if options.allow_truncated && e.is_truncated() {
                    warnings.push(format!("{e}; profiling the events before it"));
                    sweep.thread_ended(slot);
                } else {
                    return Err(PpError::Log(e));
                }
            }
        }
        Ok(())
    })?;
    Ok((warnings, truncation_reported, events_per_slot))
}
