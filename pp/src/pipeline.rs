//! The fast pipeline: lanes ([`crate::lane`]) → a time-ordered merge of their transitions
//! → [`Sweep::transition`].
//!
//! [`LaneMerge`] merges by *frontiers*: each lane's transitions come in runs (a lane batch
//! and what was left of the previous one); no lane can still produce a transition ordered
//! before the frontier `(time, slot)` = the smallest `(last buffered time, slot)` over the
//! lanes that have not ended. So every buffered transition ordered before the frontier is
//! taken (lane by lane, in slot order) and sorted by time with a stable sort (a radix
//! sort, which merges the lanes' sorted runs without a comparison per transition and
//! level of a tree: [`gather_runs`] copies the runs and makes the histograms, the radix
//! passes come later, [`TransitionRun::finish_sort`]), giving the order `(time, slot,
//! order within the thread)` of the reference merge ([`crate::merge::BatchMerge`]).
//! Then the lane that set the frontier gets its next batch.
//! A lane's error is a marker transition after its last one, at the time it sorts at
//! ([`crate::lane::LaneBatch::error`]), so it comes at the same point of the global order
//! as in the reference; an error of a thread with no event at all comes first, as there.
//! Cost: O(log T) per transition (the sort of T runs) plus O(T) per frontier; memory: two
//! batches per lane and the runs in flight, independent of the length of the log.
//!
//! [`spawn_lane_merger`] runs the lanes and the merge on a thread of their own and hands
//! the runs ([`TransitionRun`], at most [`RUNS_AHEAD`] ahead) to the sweep on the calling
//! thread: on two cores, one decodes, keeps the stacks and merges, the other sorts and
//! sweeps (the merge thread takes sort passes off it when it falls behind).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::sync::Arc;

use pplib::log::{CounterId, EventCode};

use crate::lane::{LaneBatch, LaneError, LaneSource, LaneSummary, Transition};
use crate::merge::LoserTree;
use crate::sweep::Sweep;

pub use crate::sort::{
    gather_runs, merge_runs, sort_runs, sort_runs_but_last, LastPass, RadixCounts, RadixPasses,
    DIGIT, PASSES,
};

/// Runs a merge on its own thread may be ahead of the sweep (see [`spawn_lane_merger`]).
/// The sweep is the slowest stage; a deep queue lets it go on while the merge thread
/// waits for a core (on two cores the lanes, the merge and the sweep share them), and
/// bounds memory (a run holds a frontier's transitions: a few lane batches, 256 KiB for 8
/// threads). The runs in flight (4 MiB for 8 threads) stay about the size of the cores'
/// second-level caches: the sweep's sort passes ([`TransitionRun::finish_sort`])
/// measured cheaper with them than with twice as many, twice as large.
pub const RUNS_AHEAD: usize = 16;

/// Runs queued for the sweep from which the merge thread makes a sort pass of the runs
/// it sends (see [`spawn_lane_merger`]).
pub const HELP_AHEAD: usize = RUNS_AHEAD / 2;

/// Transitions the merge may have sent ahead of the sweep before it waits for the sweep to
/// hand a run back (see [`spawn_lane_merger`]): with many threads a run holds some
/// transitions of every lane (100 000 threads: millions), and [`RUNS_AHEAD`] such runs
/// queued behind a sweep that lost its processor held over a gigabyte.
pub const TRANSITIONS_AHEAD: usize = 1 << 21;

/// Merged transitions in global time order, with the counter values of the `counters`
/// transitions and the lane errors met on the way.
#[derive(Debug, Default)]
pub struct TransitionRun {
    /// Transitions in global time order (each names its slot). The argument of a
    /// `counters` transition is an index into `slices`; a marker's, into `errors`.
    pub items: Vec<Transition>,
    /// The counter values of the `counters` transitions.
    pub values: Vec<(CounterId, u64)>,
    /// Per `counters` transition: where its values are in `values` (start, length).
    pub slices: Vec<(u32, u32)>,
    /// Lane errors with their slot (taken when applied).
    pub errors: Vec<Option<(usize, LaneError)>>,
    /// The radix passes of the sort of `items`, which the merge leaves to the thread
    /// that applies the run (see [`TransitionRun::finish_sort`]), with their histograms.
    passes: Option<RadixPasses>,
    counts: RadixCounts,
    /// Reused memory for the passes.
    scratch: Vec<Transition>,
}

impl TransitionRun {
    /// Empties the run (keeps its memory).
    pub fn clear(&mut self) {
        self.items.clear();
        self.values.clear();
        self.slices.clear();
        self.errors.clear();
        self.passes = None;
    }

    /// Puts `items` in global time order: makes the radix passes of their sort that the
    /// merge left to this thread (on two cores, the merge thread, which decodes, is the
    /// busier one). Until then `items` holds the lanes' runs one after the other.
    /// [`TransitionRun::apply`] calls it; idempotent.
    pub fn finish_sort(&mut self) {
        if let Some(passes) = self.passes.take() {
            passes.apply(&mut self.items, &mut self.scratch, &mut self.counts);
        }
    }

    /// Makes the next pass of the sort of `items` that the merge left (see
    /// [`TransitionRun::finish_sort`]), if any: the merge thread helps with the sort
    /// when the sweep falls behind ([`spawn_lane_merger`]).
    pub fn sort_one_pass(&mut self) {
        if let Some(passes) = &mut self.passes {
            if !passes.apply_next(&mut self.items, &mut self.scratch, &mut self.counts) {
                self.passes = None;
            }
        }
    }

    /// Applies the run to `sweep`; hands each lane error (slot, error) to `on_error`, and
    /// stops at its first `Err`.
    pub fn apply<E>(
        &mut self,
        sweep: &mut Sweep,
        mut on_error: impl FnMut(usize, LaneError) -> Result<(), E>,
    ) -> Result<(), E> {
        self.finish_sort();
        let mut at = 0;
        while at < self.items.len() {
            // The plain transitions in one go, then the marker or `counters` one.
            at += sweep.transitions(&self.items[at..]);
            let Some(tr) = self.items.get(at) else { break };
            at += 1;
            if tr.is_marker() {
                if let Some((slot, e)) = self.errors[tr.arg() as usize].take() {
                    on_error(slot, e)?;
                }
                continue;
            }
            let (start, n) = self.slices[tr.arg() as usize];
            let values = &self.values[start as usize..(start + n) as usize];
            sweep.transition(tr.slot(), tr.time, tr.code(), n, tr.state(), values);
        }
        Ok(())
    }
}

/// A lane's transitions not yet merged.
#[derive(Debug, Default)]
struct Buffer {
    items: Vec<Transition>,
    /// The first item not yet merged.
    start: usize,
    values: Vec<(CounterId, u64)>,
    value_at: usize,
    /// `counters` transitions among the items not yet merged.
    counters: usize,
    /// The lane's error (its marker is the last item).
    error: Option<LaneError>,
    /// The lane has nothing more to give.
    ended: bool,
}

/// Merges lanes by transition time (ties: lower slot first; a lane's own order kept).
#[derive(Debug)]
pub struct LaneMerge<L> {
    lanes: Vec<L>,
    buffers: Vec<Buffer>,
    batch: LaneBatch,
}

impl<L: LaneSource> LaneMerge<L> {
    /// A merge over `lanes`; lane i must be slot i.
    pub fn new(lanes: Vec<L>) -> LaneMerge<L> {
        let n = lanes.len();
        LaneMerge {
            lanes,
            buffers: (0..n).map(|_| Buffer::default()).collect(),
            batch: LaneBatch::default(),
        }
    }

    /// Appends lane `slot`'s next batch to its buffer; an error of a thread without any
    /// event goes to `first` (reported before everything).
    fn refill(&mut self, slot: usize, first: &mut TransitionRun) {
        let buf = &mut self.buffers[slot];
        if buf.ended {
            return;
        }
        if buf.start == buf.items.len() {
            buf.items.clear();
            buf.start = 0;
        } else if buf.start > 0 {
            buf.items.drain(..buf.start);
            buf.start = 0;
        }
        if buf.value_at == buf.values.len() {
            buf.values.clear();
            buf.value_at = 0;
        }
        // The lane appends to the buffer itself (no copy through a batch).
        let had = buf.items.len();
        let batch = &mut self.batch;
        batch.clear();
        std::mem::swap(&mut batch.items, &mut buf.items);
        std::mem::swap(&mut batch.values, &mut buf.values);
        self.lanes[slot].append_batch(batch);
        std::mem::swap(&mut batch.items, &mut buf.items);
        std::mem::swap(&mut batch.values, &mut buf.values);
        buf.counters += batch.counters;
        let appended = buf.items.len() > had;
        match batch.error.take() {
            Some((Some(t), e)) => {
                buf.items.push(Transition::marker(t, slot, 0));
                buf.error = Some(e);
                buf.ended = true;
            }
            Some((None, e)) => {
                first
                    .items
                    .push(Transition::marker(0, slot, first.errors.len() as u32));
                first.errors.push(Some((slot, e)));
                buf.ended = true;
            }
            None => buf.ended = !appended,
        }
    }

    /// How many of lane `slot`'s buffered transitions are ordered before `frontier`; gives
    /// their `counters` transitions their values' place in `run` and the lane's error
    /// marker (if they end with it) its error's (the transitions stay in the buffer).
    fn ready(&mut self, slot: usize, frontier: u128, run: &mut TransitionRun) -> usize {
        let buf = &mut self.buffers[slot];
        let (start, len) = (buf.start, buf.items.len());
        let rest = &mut buf.items[start..];
        let take = if frontier == LoserTree::DONE {
            rest.len()
        } else {
            let (time, fslot) = ((frontier >> 64) as u64, frontier as u64 as usize);
            if slot < fslot {
                rest.partition_point(|tr| tr.time <= time)
            } else {
                rest.partition_point(|tr| tr.time < time)
            }
        };
        if take == 0 {
            return 0;
        }
        let taken = &mut rest[..take];
        if buf.counters > 0 {
            for tr in taken.iter_mut() {
                if tr.code() == EventCode::Counters && !tr.is_marker() {
                    let n = tr.arg() as usize;
                    let at = run.values.len();
                    run.values
                        .extend_from_slice(&buf.values[buf.value_at..buf.value_at + n]);
                    buf.value_at += n;
                    buf.counters -= 1;
                    *tr = tr.with_arg(run.slices.len() as u32);
                    run.slices.push((at as u32, n as u32));
                }
            }
        }
        if start + take == len {
            if let Some(e) = buf.error.take() {
                let last = taken.last_mut().expect("the marker is taken");
                *last = last.with_arg(run.errors.len() as u32);
                run.errors.push(Some((slot, e)));
            }
        }
        take
    }

    /// Merges everything, handing runs to `emit` (which gives back an empty run to fill,
    /// or `None` to stop). Returns the lanes' summaries.
    pub fn run(
        mut self,
        mut emit: impl FnMut(TransitionRun) -> Option<TransitionRun>,
    ) -> Vec<LaneSummary> {
        let n = self.lanes.len();
        let mut run = TransitionRun::default();
        let mut bounds = Vec::with_capacity(n + 1);
        let mut scratch = Vec::new();
        let mut takes = vec![0usize; n];
        for slot in 0..n {
            self.refill(slot, &mut run);
        }
        if !run.items.is_empty() {
            match emit(run) {
                Some(next) => run = next,
                None => return self.summaries(),
            }
        }
        loop {
            let mut frontier = LoserTree::DONE;
            for slot in 0..n {
                while {
                    let buf = &self.buffers[slot];
                    buf.start == buf.items.len() && !buf.ended
                } {
                    self.refill(slot, &mut run);
                }
                let buf = &self.buffers[slot];
                if !buf.ended {
                    let last = buf
                        .items
                        .last()
                        .expect("a lane that has not ended has items");
                    frontier = frontier.min(LoserTree::key(last.time, slot));
                }
            }
            for (slot, take) in takes.iter_mut().enumerate() {
                *take = self.ready(slot, frontier, &mut run);
            }
            // Markers of threads without events, put there by `refill`: a run before all.
            let early = (!run.items.is_empty()).then(|| std::mem::take(&mut run.items));
            let runs: Vec<&[Transition]> = early
                .iter()
                .map(|e| &e[..])
                .chain(
                    self.buffers
                        .iter()
                        .zip(&takes)
                        .map(|(buf, &take)| &buf.items[buf.start..buf.start + take]),
                )
                .filter(|r| !r.is_empty())
                .collect();
            let any = !runs.is_empty();
            if any {
                run.passes = gather_runs(
                    &runs,
                    &mut run.items,
                    &mut bounds,
                    &mut scratch,
                    &mut run.counts,
                );
            }
            for (buf, &take) in self.buffers.iter_mut().zip(&takes) {
                buf.start += take;
            }
            let done = frontier == LoserTree::DONE;
            if any {
                match emit(run) {
                    Some(next) => run = next,
                    None => break,
                }
            }
            if done {
                break;
            }
            // The lane that set the frontier has only transitions at its last time left.
            self.refill(frontier as u64 as usize, &mut run);
        }
        self.summaries()
    }

    fn summaries(self) -> Vec<LaneSummary> {
        self.lanes.into_iter().map(LaneSource::summary).collect()
    }
}

/// The output of a [`LaneMerge`] running on its own thread (see [`spawn_lane_merger`]).
#[derive(Debug)]
pub struct MergedRuns<'scope> {
    rx: Receiver<TransitionRun>,
    /// Runs sent and not yet taken (what the merge is ahead by).
    queued: Arc<AtomicUsize>,
    /// Transitions in the runs sent and not yet applied.
    queued_items: Arc<AtomicUsize>,
    free: Sender<TransitionRun>,
    handle: std::thread::ScopedJoinHandle<'scope, Vec<LaneSummary>>,
}

impl MergedRuns<'_> {
    /// Applies every run to `sweep` (see [`TransitionRun::apply`]); returns the lanes'
    /// summaries once the merge has finished (`None` if it stopped early: after an `Err`).
    pub fn apply<E>(
        self,
        sweep: &mut Sweep,
        mut on_error: impl FnMut(usize, LaneError) -> Result<(), E>,
    ) -> Result<Vec<LaneSummary>, E> {
        while let Ok(mut run) = self.rx.recv() {
            self.queued.fetch_sub(1, Ordering::Relaxed);
            let items = run.items.len();
            run.apply(sweep, &mut on_error)?;
            run.clear();
            self.queued_items.fetch_sub(items, Ordering::Relaxed);
            // The merge thread may be gone already (after its last run).
            let _ = self.free.send(run);
        }
        drop(self.free);
        Ok(self.handle.join().expect("the merge thread does not panic"))
    }
}

/// Runs `merge` on a scoped thread, sending runs of merged transitions (at most
/// [`RUNS_AHEAD`] ahead). The merge stops early when the [`MergedRuns`] is dropped.
///
/// The radix passes of a run's sort are left to the sweep, unless the sweep falls behind
/// (at least [`HELP_AHEAD`] runs queued): then the merge thread makes a pass of each run
/// it sends, so the two threads share the work whichever is slower (on two cores the
/// balance shifts with the load). Either thread's passes give the same order.
///
/// Memory: the runs queued hold at most [`TRANSITIONS_AHEAD`] transitions plus the last
/// run sent; beyond that the merge waits until the sweep hands a run back (runs keep their
/// memory and are reused, so fewer runs in flight is also fewer runs allocated).
pub fn spawn_lane_merger<'scope, L>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    merge: LaneMerge<L>,
) -> MergedRuns<'scope>
where
    L: LaneSource + Send + 'scope,
{
    let (tx, rx) = sync_channel::<TransitionRun>(RUNS_AHEAD);
    let (free, free_rx) = channel::<TransitionRun>();
    let queued = Arc::new(AtomicUsize::new(0));
    let queued_items = Arc::new(AtomicUsize::new(0));
    let (ahead, ahead_items) = (Arc::clone(&queued), Arc::clone(&queued_items));
    let handle = scope.spawn(move || {
        merge.run(|mut run| {
            if ahead.load(Ordering::Relaxed) >= HELP_AHEAD {
                run.sort_one_pass();
            }
            ahead.fetch_add(1, Ordering::Relaxed);
            let len = run.items.len();
            let items = ahead_items.fetch_add(len, Ordering::Relaxed) + len;
            tx.send(run).ok()?;
            if items > TRANSITIONS_AHEAD {
                // Too far ahead: wait for the sweep to hand a run back (every run sent is
                // handed back once applied; an error or a dropped MergedRuns drops the
                // sender, and the next send then stops the merge).
                return Some(free_rx.recv().unwrap_or_default());
            }
            Some(free_rx.try_recv().unwrap_or_default())
        })
    });
    MergedRuns {
        rx,
        queued,
        queued_items,
        free,
        handle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::{spawn_lanes, Lane};

    /// Every transition of every run (marker or not), in order, and the lanes' summaries.
    fn merged<L: LaneSource>(merge: LaneMerge<L>) -> (Vec<Transition>, Vec<(u64, Option<u64>)>) {
        let mut all = Vec::new();
        let summaries = merge.run(|mut run| {
            run.finish_sort();
            all.extend_from_slice(&run.items);
            run.clear();
            Some(run)
        });
        let summaries = summaries.iter().map(|s| (s.events, s.last_time)).collect();
        (all, summaries)
    }

    #[test]
    fn lanes_on_threads_merge_like_lanes_in_line() {
        // Three threads, thousands of events each (several lane batches), equal times.
        let mut trace = String::from("pptrace 1\nprocessors 2\n0 0 session_begin\n");
        for t in 0..3u64 {
            for i in 0..4_000u64 {
                let now = 10 + i * 3 + t;
                let (open, close) = if i % 2 == 0 {
                    ("task_begin", "task_end")
                } else {
                    ("wait_begin lock", "wait_end")
                };
                trace.push_str(&format!("{now} {t} {open}\n{} {t} {close}\n", now + 1));
            }
        }
        trace.push_str("100000 0 session_end\n");
        let reader =
            pplib::log::LogReader::from_bytes(trace.into_bytes(), "lanes.pptrace").unwrap();
        let names: std::sync::Arc<[String]> = reader.names().into();
        let selected: std::sync::Arc<[bool]> = vec![false; names.len()].into();
        let lanes = || {
            reader
                .streams()
                .into_iter()
                .enumerate()
                .map(|(slot, s)| {
                    let thread = s.thread();
                    Lane::new(s, slot, thread, names.clone(), selected.clone())
                })
                .collect::<Vec<_>>()
        };
        let in_line = merged(LaneMerge::new(lanes()));
        let threaded =
            std::thread::scope(|scope| merged(LaneMerge::new(spawn_lanes(scope, lanes()))));
        assert_eq!(in_line, threaded);
        assert_eq!(in_line.0.len(), 3 * 8_000 + 2);
        assert!(in_line.0.windows(2).all(|w| w[0].time <= w[1].time));
    }
}
