//! The C ABI (`include/pplib.h`): the same events for C, C++ and OpenMP programs.
//!
//! Calls are unpaired (`pp_frag_begin` / `pp_frag_end`, ...): the caller keeps them
//! balanced per thread, as the log's stack semantics require. Strings are NUL-terminated
//! UTF-8 (other bytes are replaced); a null pointer makes the call do nothing. No call ever
//! unwinds into C.

use std::ffi::{c_char, c_int, CStr};
use std::sync::{Mutex, PoisonError};

use crate::constructs::unpaired;
use crate::recorder::raw;
use crate::Session;

/// The session started by `pp_start_profiling*`.
static C_SESSION: Mutex<Option<Session>> = Mutex::new(None);

/// Runs `f`, turning a panic into `on_panic` (a panic must not unwind into C).
fn guarded<R>(on_panic: R, f: impl FnOnce() -> R) -> R {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(on_panic)
}

/// Reads a C string; None for null.
///
/// # Safety
/// `s` is null or points to a NUL-terminated string valid for the duration of the call.
unsafe fn c_str(s: *const c_char) -> Option<String> {
    if s.is_null() {
        return None;
    }
    // SAFETY: non-null, and the caller guarantees a NUL-terminated string alive for the call.
    let s = unsafe { CStr::from_ptr(s) };
    Some(s.to_string_lossy().into_owned())
}

fn store(session: Session) -> c_int {
    let enabled = session.is_enabled();
    let mut slot = C_SESSION.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(old) = slot.replace(session) {
        drop(old);
    }
    c_int::from(enabled)
}

/// Starts a session configured by the environment (`PPLIB_LOG`, `PPLIB_PROCESSORS`,
/// `PPLIB_COUNTERS`, `PPLIB_CLOCK`; see `Session::from_env`). Without `PPLIB_PROCESSORS`,
/// p is the OpenMP team size (`omp_get_max_threads()`) when an OpenMP runtime is loaded.
/// Returns 1 if recording, 0 if disabled (no `PPLIB_LOG`, or the log could not be
/// created: said on stderr).
#[no_mangle]
pub extern "C" fn pp_start_profiling() -> c_int {
    guarded(0, || {
        // Under the OpenMP tool, hand instrumentation records into the tool's session.
        if crate::ompt::owns_recording_session() || already_started() {
            return 1;
        }
        // Asking the runtime for its team size starts it, and with it the tool's session
        // when this library is the program's OpenMP tool: record into that one then.
        let team = crate::sys::openmp_max_threads();
        if crate::ompt::owns_recording_session() {
            return 1;
        }
        store(Session::from_env_or(team))
    })
}

/// True (and a note on stderr) if a session started through the C ABI is still recording.
fn already_started() -> bool {
    let slot = C_SESSION.lock().unwrap_or_else(PoisonError::into_inner);
    let started = slot.as_ref().is_some_and(Session::is_enabled);
    if started {
        eprintln!("pplib: a session is already recording; pp_start_profiling ignored");
    }
    started
}

/// Starts a session recording into `path` with `processors` = p (0: the OpenMP team size
/// when an OpenMP runtime is loaded, else the default of `Session::builder`).
/// Returns 1 if recording, -1 on error (said on stderr).
///
/// # Safety
/// `path` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn pp_start_profiling_to(path: *const c_char, processors: c_int) -> c_int {
    guarded(-1, || {
        if already_started() {
            return -1;
        }
        // SAFETY: forwarded from this function's contract.
        let Some(path) = (unsafe { c_str(path) }) else {
            eprintln!("pplib: pp_start_profiling_to: null path");
            return -1;
        };
        let mut builder = Session::builder().path(path);
        if processors > 0 {
            builder = builder.processors(processors as usize);
        } else if let Some(team) = crate::sys::openmp_max_threads() {
            builder = builder.processors(team);
        }
        match builder.start() {
            Ok(session) => store(session),
            Err(e) => {
                eprintln!("pplib: {e}");
                -1
            }
        }
    })
}

/// Ends the session started by `pp_start_profiling*` and completes the log (call it on the
/// thread that started it). Returns 0 on success (or if none was started), -1 if writing
/// the log failed.
#[no_mangle]
pub extern "C" fn pp_end_profiling() -> c_int {
    guarded(-1, || {
        let session = C_SESSION
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        match session.map(Session::finish) {
            Some(Err(e)) => {
                eprintln!("pplib: {e}");
                -1
            }
            _ => 0,
        }
    })
}

/// 1 if a session is recording, else 0.
#[no_mangle]
pub extern "C" fn pp_is_recording() -> c_int {
    c_int::from(crate::recorder::state() != 0)
}

/// Makes the calling thread part of the recording session now (it appears in the log even
/// if it records no event; e.g. call it at the start of every OpenMP thread).
#[no_mangle]
pub extern "C" fn pp_register_thread() {
    guarded((), crate::constructs::register_thread);
}

/// Opens fragment `name` on the calling thread.
///
/// # Safety
/// `name` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn pp_frag_begin(name: *const c_char) {
    if crate::recorder::state() == 0 {
        return;
    }
    // SAFETY: forwarded from this function's contract.
    if let Some(name) = unsafe { c_str(name) } {
        guarded((), || unpaired::named(raw::FRAG_BEGIN, &name));
    }
}

/// Closes fragment `name` on the calling thread.
///
/// # Safety
/// `name` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn pp_frag_end(name: *const c_char) {
    if crate::recorder::state() == 0 {
        return;
    }
    // SAFETY: forwarded from this function's contract.
    if let Some(name) = unsafe { c_str(name) } {
        guarded((), || unpaired::named(raw::FRAG_END, &name));
    }
}

/// Opens a `par` (fork point) on the calling thread.
#[no_mangle]
pub extern "C" fn pp_par_begin() {
    guarded((), || unpaired::event(raw::PAR_BEGIN, 0));
}

/// Closes the `par`.
#[no_mangle]
pub extern "C" fn pp_par_end() {
    guarded((), || unpaired::event(raw::PAR_END, 0));
}

/// Opens a `task` on the calling thread.
#[no_mangle]
pub extern "C" fn pp_task_begin() {
    guarded((), || unpaired::event(raw::TASK_BEGIN, 0));
}

/// Closes the `task`.
#[no_mangle]
pub extern "C" fn pp_task_end() {
    guarded((), || unpaired::event(raw::TASK_END, 0));
}

/// Closes the `task` as wasted (speculative work that did not contribute).
#[no_mangle]
pub extern "C" fn pp_task_end_wasted() {
    guarded((), || unpaired::event(raw::TASK_END_WASTED, 0));
}

/// Opens a `wait` of `kind` (`"lock"`, `"barrier"`, `"condvar"`, `"channel"`, `"spin"`, or
/// any other name) on the calling thread.
///
/// # Safety
/// `kind` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn pp_wait_begin(kind: *const c_char) {
    if crate::recorder::state() == 0 {
        return;
    }
    // SAFETY: forwarded from this function's contract.
    if let Some(kind) = unsafe { c_str(kind) } {
        guarded((), || unpaired::named(raw::WAIT_BEGIN, &kind));
    }
}

/// Closes the `wait`.
#[no_mangle]
pub extern "C" fn pp_wait_end() {
    guarded((), || unpaired::event(raw::WAIT_END, 0));
}
