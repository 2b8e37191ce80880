//! The fast pipeline: lanes ([`crate::lane`]) → a time-ordered merge of their transitions
//! → [`Sweep::transition`].
//!
//! [`LaneMerge`] merges by *frontiers*: each lane's transitions come in runs (a lane batch
//! and what was left of the previous one); no lane can still produce a transition ordered
//! before the frontier `(time, slot)` = the smallest `(last buffered time, slot)` over the
//! lanes that have not ended. So every buffered transition ordered before the frontier is
//! gathered (lane by lane, in slot order) and sorted by time with a stable sort (which
//! merges the lanes' sorted runs without a comparison per transition and level of a
//! tree), giving the order `(time, slot, order within the thread)` of the reference merge
//! ([`crate::merge::BatchMerge`]). Then the lane that set the frontier gets its next batch.
//! A lane's error is a marker transition after its last one, at the time it sorts at
//! ([`crate::lane::LaneBatch::error`]), so it comes at the same point of the global order
//! as in the reference; an error of a thread with no event at all comes first, as there.
//! Cost: O(log T) per transition (the sort of T runs) plus O(T) per frontier; memory: two
//! batches per lane and the runs in flight, independent of the length of the log.
//!
//! [`spawn_lane_merger`] runs the lanes and the merge on a thread of their own and hands
//! the runs ([`TransitionRun`], at most [`RUNS_AHEAD`] ahead) to the sweep on the calling
//! thread: on two cores, one decodes, keeps the stacks and merges, the other sweeps.

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};

use pplib::log::{CounterId, EventCode};

use crate::lane::{LaneBatch, LaneError, LaneSource, LaneSummary, Transition};
use crate::merge::LoserTree;
use crate::sweep::Sweep;

/// Runs a merge on its own thread may be ahead of the sweep (see [`spawn_lane_merger`]).
/// The sweep is the slowest stage; a deep queue lets it go on while the merge thread
/// waits for a core (on two cores the lanes, the merge and the sweep share them), and
/// bounds memory (a run holds a frontier's transitions: a few lane batches).
pub const RUNS_AHEAD: usize = 32;

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
}

impl TransitionRun {
    /// Empties the run (keeps its memory).
    pub fn clear(&mut self) {
        self.items.clear();
        self.values.clear();
        self.slices.clear();
        self.errors.clear();
    }

    /// Applies the run to `sweep`; hands each lane error (slot, error) to `on_error`, and
    /// stops at its first `Err`.
    pub fn apply<E>(
        &mut self,
        sweep: &mut Sweep,
        mut on_error: impl FnMut(usize, LaneError) -> Result<(), E>,
    ) -> Result<(), E> {
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
        self.lanes[slot].next_batch(&mut self.batch);
        buf.items.extend_from_slice(&self.batch.items);
        buf.values.extend_from_slice(&self.batch.values);
        buf.counters += self.batch.counters;
        match self.batch.error.take() {
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
            None => buf.ended = self.batch.items.is_empty(),
        }
    }

    /// Moves lane `slot`'s transitions ordered before `frontier` into `run`.
    fn gather(&mut self, slot: usize, frontier: u128, run: &mut TransitionRun) {
        let buf = &mut self.buffers[slot];
        let rest = &buf.items[buf.start..];
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
            return;
        }
        let from = run.items.len();
        run.items.extend_from_slice(&rest[..take]);
        buf.start += take;
        if buf.counters > 0 {
            // Give `counters` transitions their values' place in the run.
            for tr in &mut run.items[from..] {
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
        if buf.start == buf.items.len() {
            if let Some(e) = buf.error.take() {
                let last = run.items.last_mut().expect("the marker was taken");
                *last = last.with_arg(run.errors.len() as u32);
                run.errors.push(Some((slot, e)));
            }
        }
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
        let mut counts = RadixCounts::new();
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
            bounds.clear();
            bounds.push(0);
            for slot in 0..n {
                self.gather(slot, frontier, &mut run);
                if run.items.len() > *bounds.last().expect("starts with 0") {
                    bounds.push(run.items.len());
                }
            }
            let done = frontier == LoserTree::DONE;
            if !run.items.is_empty() {
                sort_runs(&mut run.items, &mut bounds, &mut scratch, &mut counts);
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

/// Bits per radix digit of [`sort_runs`].
pub const DIGIT: u32 = 11;

/// Most radix passes [`sort_runs`] makes before it merges instead.
pub const PASSES: usize = 3;

/// Reused histograms of [`sort_runs`], one per pass.
#[derive(Debug)]
pub struct RadixCounts(Vec<[u32; 1 << DIGIT]>);

impl RadixCounts {
    /// Histograms for [`PASSES`] passes.
    pub fn new() -> RadixCounts {
        RadixCounts(vec![[0; 1 << DIGIT]; PASSES])
    }
}

impl Default for RadixCounts {
    fn default() -> RadixCounts {
        RadixCounts::new()
    }
}

/// Sorts `items`, made of sorted runs `items[bounds[i]..bounds[i + 1]]`, by time, stably
/// (equal times keep their order: the runs' order, then each run's own).
///
/// Times within a frontier are close together, so a least-significant-digit radix sort
/// on `time - min` ([`DIGIT`] bits a pass, at most [`PASSES`] passes, each stable) costs
/// a few operations per transition and no comparisons; when the times span more than
/// `PASSES * DIGIT` bits, or there are few transitions, it merges the runs
/// ([`merge_runs`]) instead.
pub fn sort_runs(
    items: &mut Vec<Transition>,
    bounds: &mut Vec<usize>,
    scratch: &mut Vec<Transition>,
    counts: &mut RadixCounts,
) {
    if bounds.len() <= 2 {
        return;
    }
    let lo = bounds[..bounds.len() - 1]
        .iter()
        .map(|&b| items[b].time)
        .min()
        .expect("runs");
    let hi = bounds[1..]
        .iter()
        .map(|&b| items[b - 1].time)
        .max()
        .expect("runs");
    let bits = 64 - (hi - lo).leading_zeros();
    let passes = bits.div_ceil(DIGIT) as usize;
    if passes > PASSES || items.len() < 256 {
        return merge_runs(items, bounds, scratch);
    }
    let mask = (1u64 << DIGIT) - 1;
    let counts = &mut counts.0[..passes];
    for c in counts.iter_mut() {
        c.fill(0);
    }
    // The histograms of all passes in one read (the usual two passes written out).
    let digit = |key: u64, p: usize| ((key >> (DIGIT as usize * p)) & mask) as usize;
    if let [c0, c1] = counts {
        for tr in items.iter() {
            let key = tr.time - lo;
            c0[digit(key, 0)] += 1;
            c1[digit(key, 1)] += 1;
        }
    } else {
        for tr in items.iter() {
            let key = tr.time - lo;
            for (p, c) in counts.iter_mut().enumerate() {
                c[digit(key, p)] += 1;
            }
        }
    }
    scratch.resize(items.len(), Transition::marker(0, 0, 0));
    for (p, c) in counts.iter_mut().enumerate() {
        // Offsets: where each digit's transitions start.
        let mut at = 0u32;
        for n in c.iter_mut() {
            let here = *n;
            *n = at;
            at += here;
        }
        for tr in items.iter() {
            let d = digit(tr.time - lo, p);
            scratch[c[d] as usize] = *tr;
            c[d] += 1;
        }
        std::mem::swap(items, scratch);
    }
}

/// Sorts `items`, made of sorted runs `items[bounds[i]..bounds[i + 1]]`, by time, stably
/// (equal times keep the order of the runs), by merging neighbouring runs pairwise
/// (⌈log2 runs⌉ passes, each without branches on the data); `scratch` is reused memory.
pub fn merge_runs(
    items: &mut Vec<Transition>,
    bounds: &mut Vec<usize>,
    scratch: &mut Vec<Transition>,
) {
    while bounds.len() > 2 {
        scratch.resize(items.len(), Transition::marker(0, 0, 0));
        let mut merged = Vec::with_capacity(bounds.len() / 2 + 1);
        merged.push(0);
        let mut k = 0;
        while k + 1 < bounds.len() {
            let (a, mid) = (bounds[k], bounds[k + 1]);
            let b = bounds.get(k + 2).copied().unwrap_or(mid);
            merge_two(&items[a..mid], &items[mid..b], &mut scratch[a..b]);
            merged.push(b);
            k += 2;
        }
        std::mem::swap(items, scratch);
        *bounds = merged;
    }
}

/// Merges sorted `a` and `b` into `out` (`a.len() + b.len()` long) by time; on equal
/// times `a` comes first.
#[inline(never)]
fn merge_two(a: &[Transition], b: &[Transition], out: &mut [Transition]) {
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        // Which run goes on is data: a select, not a branch.
        let take_b = y.time < x.time;
        out[k] = if take_b { y } else { x };
        j += usize::from(take_b);
        i += usize::from(!take_b);
        k += 1;
    }
    let rest_a = a.len() - i;
    out[k..k + rest_a].copy_from_slice(&a[i..]);
    out[k + rest_a..].copy_from_slice(&b[j..]);
}

/// The output of a [`LaneMerge`] running on its own thread (see [`spawn_lane_merger`]).
#[derive(Debug)]
pub struct MergedRuns<'scope> {
    rx: Receiver<TransitionRun>,
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
            run.apply(sweep, &mut on_error)?;
            run.clear();
            // The merge thread may be gone already (after its last run).
            let _ = self.free.send(run);
        }
        drop(self.free);
        Ok(self.handle.join().expect("the merge thread does not panic"))
    }
}

/// Runs `merge` on a scoped thread, sending runs of merged transitions (at most
/// [`RUNS_AHEAD`] ahead). The merge stops early when the [`MergedRuns`] is dropped.
pub fn spawn_lane_merger<'scope, L>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    merge: LaneMerge<L>,
) -> MergedRuns<'scope>
where
    L: LaneSource + Send + 'scope,
{
    let (tx, rx) = sync_channel::<TransitionRun>(RUNS_AHEAD);
    let (free, free_rx) = channel::<TransitionRun>();
    let handle = scope.spawn(move || {
        merge.run(|run| {
            tx.send(run).ok()?;
            Some(free_rx.try_recv().unwrap_or_default())
        })
    });
    MergedRuns { rx, free, handle }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::{spawn_lanes, Lane};
    use crate::stack::ThreadState;
    use pplib::log::EventCode;

    /// Sorted runs of random times (spread `spread` ns, many ties), one run per slot.
    fn runs(seed: u64, lengths: &[usize], spread: u64) -> (Vec<Transition>, Vec<usize>) {
        let mut x = seed | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let base = next() % (u64::MAX / 2);
        let (mut items, mut bounds) = (Vec::new(), vec![0]);
        for (slot, &len) in lengths.iter().enumerate() {
            let mut times: Vec<u64> = (0..len).map(|_| base + next() % spread).collect();
            times.sort_unstable();
            for (i, t) in times.into_iter().enumerate() {
                // The argument numbers the transitions of a run: checks the order of ties.
                let state = ThreadState::Busy;
                items.push(Transition::new(
                    t,
                    slot,
                    EventCode::TaskBegin,
                    i as u32,
                    state,
                ));
            }
            bounds.push(items.len());
        }
        (items, bounds)
    }

    /// Every transition of every run (marker or not), in order, and the lanes' summaries.
    fn merged<L: LaneSource>(merge: LaneMerge<L>) -> (Vec<Transition>, Vec<(u64, Option<u64>)>) {
        let mut all = Vec::new();
        let summaries = merge.run(|mut run| {
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

    #[test]
    fn sort_runs_orders_by_time_then_run_then_position() {
        let cases: [(&[usize], u64); 6] = [
            (&[300, 500, 0, 700, 1], 1 << 20),
            (&[1000, 1000], 3),
            (&[400; 8], 1 << 30),
            (&[400; 8], u64::MAX / 4),
            (&[10, 20, 30], 100),
            (&[2000, 10, 2000], 1 << 40),
        ];
        for (seed, (lengths, spread)) in cases.into_iter().enumerate() {
            let (mut items, mut bounds) = runs(seed as u64 + 7, lengths, spread);
            let mut expected = items.clone();
            // A stable sort by time keeps ties in run (slot) order, then run order.
            expected.sort_by_key(|tr| tr.time);
            let mut scratch = Vec::new();
            sort_runs(
                &mut items,
                &mut bounds,
                &mut scratch,
                &mut RadixCounts::new(),
            );
            assert_eq!(items, expected, "case {seed}");
        }
    }
}
