//! The OMPT callbacks: OpenMP runtime events as the constructs of docs/predicates.md.
//!
//! | OMPT event | recorded on the calling thread |
//! |---|---|
//! | parallel begin / end (encountering thread) | `frag_begin REGION`, `par_begin` / `par_end`, `frag_end REGION` |
//! | implicit task begin / end | `task_begin` / `task_end` |
//! | implicit barrier (of a region, a work-sharing construct or a reduction) begin / end | `task_end` / `task_begin` of the implicit task: the thread is Idle while it waits for the join, so uneven work shows as `li` |
//! | work-sharing construct (loop, sections, single executor, distribute, ...) begin / end | `frag_begin REGION` / `frag_end REGION` |
//! | dispatch of a chunk (where the runtime reports it) | `task_end` of the previous chunk, `task_begin` |
//! | masked begin / end | `frag_begin REGION` / `frag_end REGION` |
//! | explicit barrier, taskwait, taskgroup begin / end | `wait_begin barrier` / `wait_end` |
//! | mutex acquire / acquired (critical, lock, nest lock, ordered) | `wait_begin lock` / `wait_end` |
//! | explicit task: first scheduled / completed (cancelled) | `task_begin` / `task_end` (`task_end wasted`) |
//! | worker thread begin | the thread joins the session |
//!
//! REGION names come from code addresses (`regions`). A worker's implicit task
//! ends at the region's closing barrier: LLVM's runtime reports the end of that barrier
//! only when the worker wakes for the next region, and by then the worker has been Idle
//! (empty stack), as it was. Test locks and atomics are not waits (they never block).
//!
//! The runtime keeps a word per task for the tool ([`Data`]); pplib keeps there whether
//! it recorded the task's begin (so that ends always match begins) and which fragment a
//! work-sharing construct opened. Every callback first reads whether a session is
//! recording and returns at once when none is; otherwise it records one or two events into
//! the calling thread's buffer, as the C ABI calls do.

use std::ffi::{c_int, c_uint, c_void};
use std::panic::AssertUnwindSafe;

use super::abi::{mutex, scope, sync, task_flag, task_status, thread, work, Data, Frame};
use super::regions::{self, Construct};
use crate::clock;
use crate::recorder::{self, raw};

/// String-table ids of the wait kinds (every log defines `lock` and `barrier` first).
const LOCK: u32 = 0;
const BARRIER: u32 = 1;

/// Implicit task word: the task's `task_begin` is recorded and not yet ended.
const IMPLICIT_OPEN: u64 = 1;
/// Implicit task word: the task was ended at an implicit barrier it is waiting in.
const IMPLICIT_AT_BARRIER: u64 = 2;
/// Implicit task word: a dispatched chunk's `task` is open.
const CHUNK_OPEN: u64 = 4;
/// Explicit task word: created while recording.
const EXPLICIT: u64 = 8;
/// Explicit task word: its `task_begin` is recorded.
const STARTED: u64 = 16;
/// Implicit task word: bits 32.. hold the open region fragment's id + 1.
const FRAGMENT_SHIFT: u32 = 32;

/// Runs `f`, which must not unwind into the runtime (a panic is dropped).
#[inline(always)]
fn guarded(f: impl FnOnce()) {
    let _ = std::panic::catch_unwind(AssertUnwindSafe(f));
}

/// Reads a tool data word (0 for a null pointer).
///
/// # Safety
/// `data` is null or points to an `ompt_data_t` the runtime passed to this callback.
#[inline(always)]
unsafe fn get(data: *mut Data) -> u64 {
    if data.is_null() {
        0
    } else {
        // SAFETY: non-null and valid per the contract; every bit pattern is a valid u64.
        unsafe { (*data).value }
    }
}

/// Writes a tool data word (nothing for a null pointer).
///
/// # Safety
/// As for [`get`]; the runtime lets the tool write the word during the callback.
#[inline(always)]
unsafe fn set(data: *mut Data, value: u64) {
    if !data.is_null() {
        // SAFETY: non-null and valid per the contract.
        unsafe { (*data).value = value }
    }
}

/// `ompt_callback_thread_begin`: a worker joins the session (the initial thread joined
/// when the tool started it).
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn thread_begin(thread_type: c_int, _thread_data: *mut Data) {
    if thread_type == thread::WORKER && recorder::state() != 0 {
        guarded(recorder::register_thread);
    }
}

/// `ompt_callback_parallel_begin`: the encountering thread forks a team.
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn parallel_begin(
    _encountering_task_data: *mut Data,
    _encountering_task_frame: *const Frame,
    parallel_data: *mut Data,
    _requested_parallelism: c_uint,
    _flags: c_int,
    codeptr_ra: *const c_void,
) {
    let codeptr = codeptr_ra as usize;
    // SAFETY: the runtime passes a valid (or null) parallel data word.
    unsafe { set(parallel_data, codeptr as u64) };
    let state = recorder::state();
    if state == 0 {
        return;
    }
    guarded(|| {
        if codeptr != 0 {
            if let Some(id) = regions::fragment_id(state, Construct::Parallel, codeptr, 0) {
                recorder::emit(state, raw::FRAG_BEGIN, id);
            }
        }
        recorder::emit(state, raw::PAR_BEGIN, 0);
    });
}

/// `ompt_callback_parallel_end`: the team joined.
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn parallel_end(
    parallel_data: *mut Data,
    _encountering_task_data: *mut Data,
    _flags: c_int,
    _codeptr_ra: *const c_void,
) {
    let state = recorder::state();
    if state == 0 {
        return;
    }
    // SAFETY: the runtime passes the region's data word, set by `parallel_begin`.
    let codeptr = unsafe { get(parallel_data) } as usize;
    guarded(|| {
        recorder::emit(state, raw::PAR_END, 0);
        if codeptr != 0 {
            if let Some(id) = regions::fragment_id(state, Construct::Parallel, codeptr, 0) {
                recorder::emit(state, raw::FRAG_END, id);
            }
        }
    });
}

/// `ompt_callback_implicit_task`: a team member's share of a parallel region.
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn implicit_task(
    endpoint: c_int,
    _parallel_data: *mut Data,
    task_data: *mut Data,
    _actual_parallelism: c_uint,
    _index: c_uint,
    flags: c_int,
) {
    if flags & task_flag::INITIAL != 0 {
        return;
    }
    let state = recorder::state();
    if endpoint == scope::BEGIN {
        if state != 0 {
            // SAFETY: the runtime passes the new implicit task's data word.
            unsafe { set(task_data, IMPLICIT_OPEN) };
            guarded(|| recorder::emit(state, raw::TASK_BEGIN, 0));
        }
        return;
    }
    // SAFETY: as above.
    let word = unsafe { get(task_data) };
    // SAFETY: as above.
    unsafe { set(task_data, 0) };
    if state != 0 && word & IMPLICIT_OPEN != 0 {
        guarded(|| {
            close_inner(state, word);
            recorder::emit(state, raw::TASK_END, 0);
        });
    }
}

/// The fragment construct of a work-sharing type (None: no fragment).
fn work_construct(wstype: c_int) -> Option<Construct> {
    Some(match wstype {
        work::LOOP => Construct::Loop,
        work::SECTIONS => Construct::Sections,
        work::SINGLE_EXECUTOR => Construct::Single,
        work::WORKSHARE => Construct::Workshare,
        work::DISTRIBUTE => Construct::Distribute,
        work::TASKLOOP => Construct::Taskloop,
        work::SCOPE => Construct::Scope,
        // The threads that skip a single go on to its barrier: nothing of their own.
        _ => return None,
    })
}

/// Opens the region fragment of `construct` at `codeptr` in the implicit task `task_data`.
///
/// # Safety
/// `task_data` and `parallel_data` are null or the data words the runtime passed.
unsafe fn region_begin(
    construct: Construct,
    parallel_data: *mut Data,
    task_data: *mut Data,
    codeptr: usize,
) {
    let state = recorder::state();
    if state == 0 || codeptr == 0 {
        return;
    }
    // SAFETY: forwarded from this function's contract.
    let (region, word) = unsafe { (get(parallel_data) as usize, get(task_data)) };
    if word & IMPLICIT_OPEN == 0 || word >> FRAGMENT_SHIFT != 0 {
        return;
    }
    guarded(|| {
        if let Some(id) = regions::fragment_id(state, construct, codeptr, region) {
            recorder::emit(state, raw::FRAG_BEGIN, id);
            let word = word | (u64::from(id) + 1) << FRAGMENT_SHIFT;
            // SAFETY: forwarded from this function's contract.
            unsafe { set(task_data, word) };
        }
    });
}

/// Records the ends of what `word` says is open inside an implicit task (a dispatched
/// chunk, then a region fragment), innermost first, and returns the word without them.
fn close_inner(state: u64, word: u64) -> u64 {
    if word & CHUNK_OPEN != 0 {
        recorder::emit(state, raw::TASK_END, 0);
    }
    if let Some(id) = (word >> FRAGMENT_SHIFT).checked_sub(1) {
        recorder::emit(state, raw::FRAG_END, id as u32);
    }
    word & !CHUNK_OPEN & !(!0 << FRAGMENT_SHIFT)
}

/// Closes the region fragment (and a dispatched chunk) open in the implicit task.
///
/// # Safety
/// `task_data` is null or the data word the runtime passed.
unsafe fn region_end(task_data: *mut Data) {
    // SAFETY: forwarded from this function's contract.
    let word = unsafe { get(task_data) };
    if word & (CHUNK_OPEN | !0 << FRAGMENT_SHIFT) == 0 {
        return;
    }
    let state = recorder::state();
    let rest = if state == 0 {
        word & !CHUNK_OPEN & !(!0 << FRAGMENT_SHIFT)
    } else {
        let mut rest = word;
        guarded(|| rest = close_inner(state, word));
        rest
    };
    // SAFETY: forwarded from this function's contract.
    unsafe { set(task_data, rest) };
}

/// `ompt_callback_work`: a work-sharing construct begins or ends on this thread.
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn work(
    wstype: c_int,
    endpoint: c_int,
    parallel_data: *mut Data,
    task_data: *mut Data,
    _count: u64,
    codeptr_ra: *const c_void,
) {
    let Some(construct) = work_construct(wstype) else {
        return;
    };
    if endpoint == scope::BEGIN {
        // SAFETY: the runtime's data words for this callback.
        unsafe { region_begin(construct, parallel_data, task_data, codeptr_ra as usize) };
    } else {
        // SAFETY: as above.
        unsafe { region_end(task_data) };
    }
}

/// `ompt_callback_masked`: the thread runs a masked (master) block.
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn masked(
    endpoint: c_int,
    parallel_data: *mut Data,
    task_data: *mut Data,
    codeptr_ra: *const c_void,
) {
    if endpoint == scope::BEGIN {
        // SAFETY: the runtime's data words for this callback.
        unsafe {
            region_begin(
                Construct::Masked,
                parallel_data,
                task_data,
                codeptr_ra as usize,
            )
        };
    } else {
        // SAFETY: as above.
        unsafe { region_end(task_data) };
    }
}

/// `ompt_callback_dispatch`: the thread starts a chunk of a work-sharing construct.
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn dispatch(
    _parallel_data: *mut Data,
    task_data: *mut Data,
    _kind: c_int,
    _instance: Data,
) {
    let state = recorder::state();
    if state == 0 {
        return;
    }
    // SAFETY: the runtime's data word of the implicit task.
    let word = unsafe { get(task_data) };
    if word & IMPLICIT_OPEN == 0 {
        return;
    }
    guarded(|| {
        if word & CHUNK_OPEN != 0 {
            recorder::emit_pair_at(state, raw::TASK_END, raw::TASK_BEGIN, clock::raw_now());
        } else {
            recorder::emit(state, raw::TASK_BEGIN, 0);
            // SAFETY: as above.
            unsafe { set(task_data, word | CHUNK_OPEN) };
        }
    });
}

/// True for the barriers that join a region or a work-sharing construct (or a reduction's
/// combining step, which LLVM reports as an implementation barrier).
fn is_join(kind: c_int) -> bool {
    matches!(
        kind,
        sync::BARRIER_IMPLICIT
            | sync::BARRIER_IMPLEMENTATION
            | sync::BARRIER_IMPLICIT_WORKSHARE
            | sync::BARRIER_IMPLICIT_PARALLEL
            | sync::BARRIER_TEAMS
    )
}

/// `ompt_callback_sync_region`: a barrier, taskwait or taskgroup begins or ends.
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn sync_region(
    kind: c_int,
    endpoint: c_int,
    _parallel_data: *mut Data,
    task_data: *mut Data,
    _codeptr_ra: *const c_void,
) {
    let state = recorder::state();
    if state == 0 {
        return;
    }
    if !is_join(kind) {
        let code = if endpoint == scope::BEGIN {
            raw::WAIT_BEGIN
        } else {
            raw::WAIT_END
        };
        let arg = if endpoint == scope::BEGIN { BARRIER } else { 0 };
        guarded(|| recorder::emit(state, code, arg));
        return;
    }
    // SAFETY: the runtime's data word of the implicit task waiting in the barrier.
    let word = unsafe { get(task_data) };
    if endpoint == scope::BEGIN && word & IMPLICIT_OPEN != 0 {
        // A construct still open here ends at its barrier (GCC drops a single's barrier
        // when the region's own follows it, so libomp reports no end of that single).
        let mut rest = word & !(CHUNK_OPEN | !0 << FRAGMENT_SHIFT);
        guarded(|| {
            rest = close_inner(state, word);
            recorder::emit(state, raw::TASK_END, 0);
        });
        // SAFETY: as above.
        unsafe { set(task_data, rest & !IMPLICIT_OPEN | IMPLICIT_AT_BARRIER) };
    } else if endpoint == scope::END && word & IMPLICIT_AT_BARRIER != 0 {
        // SAFETY: as above.
        unsafe { set(task_data, word & !IMPLICIT_AT_BARRIER | IMPLICIT_OPEN) };
        guarded(|| recorder::emit(state, raw::TASK_BEGIN, 0));
    }
}

/// True for the mutexes a thread blocks on (test locks and atomics never block).
fn blocks(kind: c_int) -> bool {
    matches!(
        kind,
        mutex::LOCK | mutex::NEST_LOCK | mutex::CRITICAL | mutex::ORDERED
    )
}

/// `ompt_callback_mutex_acquire`: the thread starts waiting for a lock.
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn mutex_acquire(
    kind: c_int,
    _hint: c_uint,
    _implementation: c_uint,
    _wait_id: u64,
    _codeptr_ra: *const c_void,
) {
    let state = recorder::state();
    if state != 0 && blocks(kind) {
        guarded(|| recorder::emit(state, raw::WAIT_BEGIN, LOCK));
    }
}

/// `ompt_callback_mutex_acquired`: the thread holds the lock.
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn mutex_acquired(kind: c_int, _wait_id: u64, _codeptr_ra: *const c_void) {
    let state = recorder::state();
    if state != 0 && blocks(kind) {
        guarded(|| recorder::emit(state, raw::WAIT_END, 0));
    }
}

/// `ompt_callback_nest_lock`: the owner acquired a nest lock again (its acquire wait ends).
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn nest_lock(endpoint: c_int, _wait_id: u64, _codeptr_ra: *const c_void) {
    let state = recorder::state();
    if state != 0 && endpoint == scope::BEGIN {
        guarded(|| recorder::emit(state, raw::WAIT_END, 0));
    }
}

/// `ompt_callback_task_create`: marks explicit tasks created while recording.
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn task_create(
    _encountering_task_data: *mut Data,
    _encountering_task_frame: *const Frame,
    new_task_data: *mut Data,
    flags: c_int,
    _has_dependences: c_int,
    _codeptr_ra: *const c_void,
) {
    if flags & task_flag::EXPLICIT != 0 && recorder::state() != 0 {
        // SAFETY: the runtime passes the new task's data word.
        unsafe { set(new_task_data, EXPLICIT) };
    }
}

/// `ompt_callback_task_schedule`: the thread leaves `prior` and runs `next`.
///
/// An explicit task's `task` opens when it first runs and closes when it completes; a task
/// suspended in a taskwait or taskyield stays open beneath the tasks the thread runs
/// meanwhile (they nest on its stack).
///
/// # Safety
/// As the OMPT specification has the runtime call it: every data pointer is null or
/// valid, and writable, for the duration of the call.
pub unsafe extern "C" fn task_schedule(
    prior_task_data: *mut Data,
    prior_task_status: c_int,
    next_task_data: *mut Data,
) {
    let state = recorder::state();
    if state == 0 {
        return;
    }
    // SAFETY: the runtime passes both tasks' data words (or null).
    let (prior, next) = unsafe { (get(prior_task_data), get(next_task_data)) };
    let ended = matches!(
        prior_task_status,
        task_status::COMPLETE | task_status::CANCEL | task_status::DETACH
    );
    if prior & STARTED != 0 && ended {
        // SAFETY: as above.
        unsafe { set(prior_task_data, 0) };
        let code = if prior_task_status == task_status::CANCEL {
            raw::TASK_END_WASTED
        } else {
            raw::TASK_END
        };
        guarded(|| recorder::emit(state, code, 0));
    }
    if next & EXPLICIT != 0 && next & STARTED == 0 {
        // SAFETY: as above.
        unsafe { set(next_task_data, next | STARTED) };
        guarded(|| recorder::emit(state, raw::TASK_BEGIN, 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::WAIT_KINDS;

    #[test]
    fn wait_kind_ids_are_the_predefined_ones() {
        assert_eq!(WAIT_KINDS[LOCK as usize], "lock");
        assert_eq!(WAIT_KINDS[BARRIER as usize], "barrier");
    }
}
