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

/// The tasks of one sequential run of items (a rayon fold): consecutive items follow each
/// other with nothing in between but the iterator's own step, so an item's `task_begin`
/// takes the time of the previous item's `task_end` (one clock reading per item instead of
/// two), and the two are recorded together when the next item begins (one buffer write per
/// item). The first item of a run reads the clock; the last item's end is recorded when
/// the run ends (the fold completes, or unwinds from a panic).
struct TaskRun {
    state: u64,
    /// The end time of the previous item, recorded with the next item's begin (session
    /// `state`).
    pending_end: Option<u64>,
}

impl TaskRun {
    fn new() -> TaskRun {
        TaskRun {
            state: 0,
            pending_end: None,
        }
    }

    /// Runs `f` as one task.
    #[inline(always)]
    fn task<R>(&mut self, f: impl FnOnce() -> R) -> R {
        let state = recorder::state();
        if state == 0 {
            return f();
        }
        match self.pending_end.take() {
            Some(t) if self.state == state => {
                recorder::emit_pair_at(state, raw::TASK_END, raw::TASK_BEGIN, t);
            }
            _ => {
                // The first item of the run (an end left from a finished session is lost
                // with that session).
                self.state = state;
                recorder::emit_at(state, raw::TASK_BEGIN, 0, clock::raw_now());
            }
        }
        let end = RunTaskEnd { run: self };
        let result = f();
        drop(end);
        result
    }
}

impl Drop for TaskRun {
    #[inline]
    fn drop(&mut self) {
        if let Some(t) = self.pending_end.take() {
            if recorder::state() == self.state {
                recorder::emit_at(self.state, raw::TASK_END, 0, t);
            }
        }
    }
}

/// Takes the end time of a [`TaskRun`] task (also when the item's closure panics).
struct RunTaskEnd<'a> {
    run: &'a mut TaskRun,
}

impl Drop for RunTaskEnd<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        // No check that the session still records: the time is only recorded by the next
        // item (or the run's end) after they have checked that it does (`TaskRun::task`
        // and `TaskRun::drop` compare the session state), which spares a load and a branch
        // per item.
        self.run.pending_end = Some(clock::raw_now());
    }
}

/// Instrumented consumers for rayon parallel iterators (`use pplib::prelude::*`).
pub trait PpParallelIterator: ParallelIterator {
    /// `for_each`, recorded as one `par` on the calling thread and one `task` per item
    /// (per chunk for `par_chunks` and friends), on the thread that runs the item.
    ///
    /// Within one sequential run of items on a thread, an item's `task_begin` has the time
    /// of the previous item's `task_end` (nothing but the iterator's step lies between
    /// them), which halves the clock readings.
    fn pp_for_each<F>(self, f: F)
    where
        F: Fn(Self::Item) + Sync + Send,
    {
        let _par = par();
        self.for_each_init(TaskRun::new, |run, item| run.task(|| f(item)));
    }

    /// `for_each`, recorded as one `par` on the calling thread and one `task` per
    /// sequential run of items: the piece of the iterator that rayon hands one thread to
    /// fold without interruption (its unit of scheduling; a stolen piece is a new run).
    ///
    /// For loops whose items are too short to time one by one: the clock is read twice
    /// per run instead of once per item. The profile's categories are the same as with
    /// [`PpParallelIterator::pp_for_each`] (a thread is Busy through its runs either way,
    /// and Idle between them); what is lost is the duration of each item: task
    /// histograms show runs. Use `pp_for_each` when items are long enough (tens of
    /// microseconds) or when their spread matters.
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
