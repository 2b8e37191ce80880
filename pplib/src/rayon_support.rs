//! rayon integration (feature `rayon`): a pool whose workers are registered, instrumented
//! `join` and `scope`, and `pp_for_each` on parallel iterators.
//!
//! What is recorded (docs/predicates.md): the forking thread opens a `par` around the whole
//! parallel construct and every piece of work (a joined closure, a spawned closure, the
//! scope's body, an item or chunk of `pp_for_each`) runs in a `task` on whichever thread
//! executes it. A thread waiting inside a join therefore has `par` innermost (Idle), and is
//! Busy again while it runs stolen work, which pushes a new `task`.

use rayon::iter::ParallelIterator;

use crate::clock;
use crate::constructs::{par, task, task_scope};
use crate::recorder::{self, raw};
use crate::PplibError;

/// A rayon pool of `p` threads named `pplib-worker-I`, each registered with the current
/// session when it starts (so idle workers still appear in the log).
///
/// Returns once every worker has registered (or after 5 s, should the system be too loaded
/// to start them: the pool is usable either way, late workers register when they start).
pub fn pool(p: usize) -> Result<rayon::ThreadPool, PplibError> {
    if p == 0 {
        return Err(PplibError::NoProcessors);
    }
    let started = std::sync::Arc::new((std::sync::Mutex::new(0usize), std::sync::Condvar::new()));
    let signal = std::sync::Arc::clone(&started);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(p)
        .thread_name(|i| format!("pplib-worker-{i}"))
        .start_handler(move |_| {
            crate::recorder::register_thread();
            let (count, cv) = &*signal;
            // A poisoned count only means another worker panicked while holding it.
            *count.lock().unwrap_or_else(|e| e.into_inner()) += 1;
            cv.notify_all();
        })
        .build()
        .map_err(|e| PplibError::Pool {
            threads: p,
            reason: e.to_string(),
        })?;
    let (count, cv) = &*started;
    let guard = count.lock().unwrap_or_else(|e| e.into_inner());
    let _ = cv.wait_timeout_while(guard, std::time::Duration::from_secs(5), |n| *n < p);
    Ok(pool)
}

/// `rayon::join` recorded as a `par` on the calling thread and a `task` for each closure.
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let _par = par();
    rayon::join(|| task_scope(a), || task_scope(b))
}

/// A scope for spawning recorded tasks ([`scope`]).
#[derive(Clone, Copy)]
pub struct Scope<'r, 'scope> {
    inner: &'r rayon::Scope<'scope>,
}

impl<'scope> Scope<'_, 'scope> {
    /// `rayon::Scope::spawn`, the body recorded as a `task` on the thread that runs it.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: for<'r> FnOnce(Scope<'r, 'scope>) + Send + 'scope,
    {
        self.inner.spawn(move |s| {
            let _task = task();
            body(Scope { inner: s });
        });
    }
}

/// `rayon::scope` recorded as a `par` on the calling thread, with the body and every
/// spawned closure recorded as `task`s.
///
/// ```
/// let mut parts = [0u64; 4];
/// pplib::scope(|s| {
///     for (i, part) in parts.iter_mut().enumerate() {
///         s.spawn(move |_| *part = (i as u64) * 10);
///     }
/// });
/// assert_eq!(parts, [0, 10, 20, 30]);
/// ```
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: for<'r> FnOnce(Scope<'r, 'scope>) -> R + Send,
    R: Send,
{
    let _par = par();
    rayon::scope(|s| task_scope(|| op(Scope { inner: s })))
}

/// Items at least this long (µs) are recorded one task each by [`TaskRun`]; shorter ones
/// share one task per run. One recorded item costs a clock reading and a few stores
/// (10-30 ns): below 0.3 % of an item this long.
const LONG_ITEM_US: u64 = 10;

/// Items between two clock readings of a [`TaskRun`] that records one task per run.
const SAMPLE_ITEMS: u32 = 64;

/// The tasks of one sequential run of items (a rayon fold), recorded as cheaply as keeps
/// the profile's categories exact.
///
/// Consecutive items of a run follow each other with nothing in between but the
/// iterator's own step, so the thread is Busy from the run's first item to its last either
/// way; what the granularity decides is only which durations the log holds. The run
/// records **one task per item while items are long** (at least [`LONG_ITEM_US`]: one clock
/// reading per item, an item's `task_begin` taking the previous item's end time, the two
/// written together when the next item begins) and **one task for a stretch of short
/// items** (no clock reading per item, one every [`SAMPLE_ITEMS`] items to watch their
/// mean length). It times the first item and switches at an item's end: a short item
/// leaves its task open for the items that follow; a stretch whose items are long on
/// average ends its task at that point and the next item gets its own. The tasks of a run
/// tile it without gaps (an item's task also covers what ran since the previous item
/// ended: the iterator's step, or adaptors before the recorded one), and the last one ends
/// when the run ends (its fold completes, or unwinds from a panic).
pub(crate) struct TaskRun {
    state: u64,
    phase: Phase,
    /// [`LONG_ITEM_US`] in raw clock units (0: every item is long).
    long: u64,
}

#[derive(Clone, Copy)]
enum Phase {
    /// No task recorded yet.
    NotStarted,
    /// A task open since `begin` for the next item, timed at its end.
    Item { begin: u64 },
    /// The last item was long and ended at `end`; its task is still open (the next item
    /// closes it at `end` and opens its own there; the run's end closes it).
    Ended { end: u64 },
    /// A task open for a stretch of short items; the last clock reading `since`, `count`
    /// items ago.
    Stretch { since: u64, count: u32 },
}

impl TaskRun {
    /// A run that picks its granularity by the items' length.
    pub(crate) fn new() -> TaskRun {
        TaskRun::with_long(clock::raw_micros(LONG_ITEM_US))
    }

    /// A run that records one task per item.
    fn per_item() -> TaskRun {
        TaskRun::with_long(0)
    }

    fn with_long(long: u64) -> TaskRun {
        TaskRun {
            state: 0,
            phase: Phase::NotStarted,
            long,
        }
    }

    /// Opens the run's first task now (before its first item: a fold that begins).
    pub(crate) fn start(&mut self) {
        let state = recorder::state();
        if state != 0 {
            self.begin(state);
        }
    }

    /// Opens a task now in session `state`.
    #[inline]
    fn begin(&mut self, state: u64) -> u64 {
        self.state = state;
        let t = clock::raw_now();
        recorder::emit_at(state, raw::TASK_BEGIN, 0, t);
        self.phase = Phase::Item { begin: t };
        recorder::sample_scheduling(state);
        t
    }

    /// Runs `f` as one item of the run.
    #[inline(always)]
    pub(crate) fn task<R>(&mut self, f: impl FnOnce() -> R) -> R {
        let state = recorder::state();
        if state == 0 {
            return f();
        }
        if self.state != state {
            // The first item of the run (a task left open in a finished session is lost
            // with that session).
            self.phase = Phase::NotStarted;
        }
        let begin = match self.phase {
            Phase::Stretch { since, count } => return self.short_item(since, count, f),
            Phase::Item { begin } => begin,
            Phase::Ended { end } => {
                recorder::emit_pair_at(state, raw::TASK_END, raw::TASK_BEGIN, end);
                end
            }
            Phase::NotStarted => self.begin(state),
        };
        // A panicking `f` leaves the phase at `Item`: the run's end closes the task.
        self.phase = Phase::Item { begin };
        let result = f();
        let now = clock::raw_now();
        self.phase = if now.saturating_sub(begin) >= self.long {
            Phase::Ended { end: now }
        } else {
            // A short item: its task stays open for the items that follow.
            Phase::Stretch {
                since: now,
                count: 0,
            }
        };
        result
    }

    /// An item inside the open task of a stretch of short items.
    #[inline(always)]
    fn short_item<R>(&mut self, since: u64, count: u32, f: impl FnOnce() -> R) -> R {
        let result = f();
        let count = count + 1;
        self.phase = if count < SAMPLE_ITEMS {
            Phase::Stretch { since, count }
        } else {
            let now = clock::raw_now();
            if now.saturating_sub(since) >= self.long * u64::from(SAMPLE_ITEMS) {
                // Long items: the stretch's task ends here, the next item gets its own.
                Phase::Ended { end: now }
            } else {
                Phase::Stretch {
                    since: now,
                    count: 0,
                }
            }
        };
        result
    }
}

impl Drop for TaskRun {
    #[inline]
    fn drop(&mut self) {
        if matches!(self.phase, Phase::NotStarted) {
            return;
        }
        self.phase = Phase::NotStarted;
        if recorder::state() == self.state {
            recorder::emit_at(self.state, raw::TASK_END, 0, clock::raw_now());
        }
    }
}

/// Instrumented consumers for rayon parallel iterators (`use pplib::prelude::*`).
pub trait PpParallelIterator: ParallelIterator {
    /// The iterator, recorded whatever consumes it: one `par` on the thread that runs the
    /// consumer, and `task`s covering every piece rayon folds on the thread that folds it
    /// (per item where items are long, per stretch where they are short, as
    /// [`PpParallelIterator::pp_for_each`] does) and every combination of results; see
    /// [`crate::Recorded`].
    ///
    /// ```
    /// use pplib::prelude::*;
    /// let xs: Vec<u64> = (1..=1000).collect();
    /// let sum: u64 = xs.par_iter().recorded().map(|x| x * 2).sum();
    /// let evens: Vec<u64> = xs.par_iter().copied().filter(|x| x % 2 == 0).recorded().collect();
    /// assert_eq!((sum, evens.len()), (1000 * 1001, 500));
    /// ```
    fn recorded(self) -> crate::Recorded<Self> {
        crate::Recorded::new(self)
    }

    /// `for_each`, recorded as one `par` on the calling thread and `task`s that cover every
    /// item on the thread that runs it, as cheaply as keeps the profile exact.
    ///
    /// How: rayon hands each thread *runs* of consecutive items (the pieces it folds
    /// without interruption; a stolen piece is a new run), and between two items of a run
    /// there is nothing but the iterator's step, so the thread is Busy from a run's first
    /// item to its last whatever the tasks' granularity: every category of the profile is
    /// the same for one task per item and for one task per run. Only the durations the log
    /// holds differ, so the granularity follows the items' length, decided per run as items
    /// come:
    ///
    /// - items of 10 µs or more: **one task per item** (per chunk for `par_chunks` and
    ///   friends; task histograms then show items). One clock reading per item: an item's
    ///   `task_begin` takes the time of the previous item's `task_end`, written together;
    ///   this costs under 0.3 % of such an item.
    /// - shorter items: **one task per stretch of the run**, like
    ///   [`PpParallelIterator::pp_for_each_run`], with one clock reading every 64 items to
    ///   follow their mean length (a per-item reading would cost 1-3 % of a 1 µs item, more
    ///   where reading the clock is slow).
    ///
    /// The first item of a run is timed; a short one leaves its task open for the items
    /// that follow, and a stretch whose items prove long on average ends its task and goes
    /// back to one task per item, so runs whose item lengths change are followed too. Use
    /// [`PpParallelIterator::pp_for_each_item`] to time every item whatever its length.
    ///
    /// ```
    /// use pplib::prelude::*;
    /// let mut xs = vec![1.0f64; 4096];
    /// xs.par_chunks_mut(512).pp_for_each(|c| c.iter_mut().for_each(|x| *x *= 2.0));
    /// assert!(xs.iter().all(|&x| x == 2.0));
    /// ```
    fn pp_for_each<F>(self, f: F)
    where
        F: Fn(Self::Item) + Sync + Send,
    {
        let _par = par();
        self.for_each_init(TaskRun::new, |run, item| run.task(|| f(item)));
    }

    /// `for_each`, recorded as one `par` on the calling thread and one `task` per item on
    /// the thread that runs it, whatever the items' length (for item histograms of short
    /// items; [`PpParallelIterator::pp_for_each`] chooses per run instead where items are
    /// short). Within a run, an item's `task_begin` has the time of the previous item's
    /// `task_end`: one clock reading per item.
    fn pp_for_each_item<F>(self, f: F)
    where
        F: Fn(Self::Item) + Sync + Send,
    {
        let _par = par();
        self.for_each_init(TaskRun::per_item, |run, item| run.task(|| f(item)));
    }

    /// `for_each`, recorded as one `par` on the calling thread and one `task` per
    /// sequential run of items: the piece of the iterator that rayon hands one thread to
    /// fold without interruption (its unit of scheduling; a stolen piece is a new run).
    ///
    /// The clock is read twice per run. The profile's categories are the same as with
    /// [`PpParallelIterator::pp_for_each`] (a thread is Busy through its runs either way,
    /// and Idle between them); what is lost is the duration of each item: task
    /// histograms show runs. `pp_for_each` does this by itself for short items.
    ///
    /// ```
    /// use pplib::prelude::*;
    /// let xs: Vec<u64> = (0..10_000).collect();
    /// let sum = std::sync::atomic::AtomicU64::new(0);
    /// xs.par_iter().pp_for_each_run(|x| {
    ///     sum.fetch_add(*x, std::sync::atomic::Ordering::Relaxed);
    /// });
    /// assert_eq!(sum.into_inner(), 10_000 * 9_999 / 2);
    /// ```
    fn pp_for_each_run<F>(self, f: F)
    where
        F: Fn(Self::Item) + Sync + Send,
    {
        let _par = par();
        // The init value lives as long as rayon's fold of one run: the task guard opens
        // when the run starts and closes when it ends (or unwinds).
        self.for_each_init(task, |_run, item| f(item));
    }

    /// `for_each_init` (state per rayon job), recorded like [`PpParallelIterator::pp_for_each`].
    fn pp_for_each_init<F, INIT, T>(self, init: INIT, f: F)
    where
        F: Fn(&mut T, Self::Item) + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
    {
        let _par = par();
        self.for_each_init(
            || (TaskRun::new(), init()),
            |(run, state), item| run.task(|| f(state, item)),
        );
    }
}

impl<I: ParallelIterator> PpParallelIterator for I {}

#[cfg(test)]
mod tests {
    use super::TaskRun;
    use crate::log::{EventKind, LogReader};

    /// One run driven by hand on one thread: 100 empty items, then 200 items of at least
    /// 50 µs (a sleep), each inside fragment `long`.
    ///
    /// Expected: item 0 is timed and short, so its task stays open; the stretch samples
    /// after items 1-64 (all short: stays) and after 65-128 (29 items of >= 50 µs: a mean
    /// above 10 µs), so its task ends after item 128, and items 129-299 get a task each:
    /// 172 tasks, the last 171 each around exactly one `long` fragment. A short item that
    /// the machine stalls for 10 µs can move the first switch by an item: the count may
    /// differ by a few, the last 150 items are their own tasks either way.
    #[test]
    fn a_run_records_short_items_per_stretch_and_long_items_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.pplog");
        let session = crate::Session::builder().path(&path).start().unwrap();
        {
            let mut run = TaskRun::new();
            for i in 0..300 {
                run.task(|| {
                    if i >= 100 {
                        let _f = crate::frag("long");
                        std::thread::sleep(std::time::Duration::from_micros(50));
                    }
                });
            }
        }
        session.finish().unwrap();
        let reader = LogReader::open(&path).unwrap();
        let events: Vec<EventKind> = reader
            .streams()
            .into_iter()
            .flatten()
            .map(|e| e.unwrap().kind)
            .filter(|k| !matches!(k, EventKind::Counters(_)))
            .collect();
        let tasks = events
            .iter()
            .filter(|k| matches!(k, EventKind::TaskBegin))
            .count();
        assert!((168..=176).contains(&tasks), "{tasks} tasks");
        let tail = &events[events.len() - 1 - 150 * 4..events.len() - 1];
        for item in tail.chunks(4) {
            assert!(
                matches!(
                    item,
                    [
                        EventKind::TaskBegin,
                        EventKind::FragBegin(_),
                        EventKind::FragEnd(_),
                        EventKind::TaskEnd { wasted: false }
                    ]
                ),
                "{item:?}"
            );
        }
        assert!(matches!(events.last(), Some(EventKind::SessionEnd)));
    }
}
