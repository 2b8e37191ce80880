//! pplib as an OpenMP tool (OMPT): profiles unmodified OpenMP programs.
//!
//! The shared library exports `ompt_start_tool`, so an OpenMP runtime with OMPT (LLVM's
//! libomp; Debian packages `clang` and `libomp-dev`) loads it as its tool:
//!
//! ```text
//! clang -fopenmp -g -O2 prog.c -o prog
//! OMP_TOOL_LIBRARIES=/path/to/libpplib.so PPLIB_LOG=run.pplog ./prog
//! pp --all-tags run.pplog
//! ```
//!
//! A program built with `gcc -fopenmp` calls the `GOMP_*` entry points of GCC's libgomp,
//! which has no OMPT; LLVM's libomp implements those entry points too, so preloading it
//! runs the same binary on libomp, with the tool:
//! `LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libomp.so.5 OMP_TOOL_LIBRARIES=/path/to/libpplib.so
//! PPLIB_LOG=run.pplog ./prog`. When libpplib is preloaded into a program whose runtime
//! never starts it as a tool (libgomp, or `OMP_TOOL=disabled`) and nothing was recorded,
//! pplib says so on stderr at exit instead of leaving no trace.
//!
//! The session: when the runtime initializes (at the program's first OpenMP construct or
//! call) and `PPLIB_LOG` is set, the tool starts a session on the initial thread, with p
//! from `PPLIB_PROCESSORS`, else the first number of `OMP_NUM_THREADS`, else the number of
//! processors the process may run on (libomp's default team size). It finishes the session
//! when the program exits (or the runtime shuts down). `PPLIB_OMPT=0` turns the tool off.
//! The events each OMPT callback records are listed in [`callbacks`].
//!
//! The runtime initializes lazily, so the session starts inside whatever the program does
//! first with OpenMP. Starting it costs well under a millisecond (the log is created, the
//! writer thread started and, where pplib's clock is the time-stamp counter, the counter's
//! rate measured for 100 µs; the precise rate is measured up to the session's end, when
//! the program exits: [`crate::clock`]). A program that times its own region
//! (`pp-campaign --time-key`) with the runtime's start inside would count that time, and the
//! runtime's own start-up (its threads): start the runtime before the timer (any OpenMP call
//! that initializes it, such as `omp_get_max_threads()`).
//!
//! Region names: every parallel region and work-sharing construct is a fragment named
//! `FUNCTION/CONSTRUCT:FILE:LINE`, e.g. `trimul/parallel:tri.c:33` and `trimul/loop:tri.c:36`
//! (constructs: `parallel`, `loop`, `sections`, `single`, `workshare`, `distribute`,
//! `taskloop`, `scope`, `masked`). FUNCTION is the function of the source that contains the
//! construct: a construct in the body the compiler outlined for a parallel region is named
//! after the function that holds the region, and with DWARF debug information (`-g`) a
//! function the compiler inlined into its caller keeps its own name. Without line tables
//! the name ends in the construct's offset in its function (`trimul/loop:0x4c`); without a
//! symbol it is `OBJECT:0xADDRESS/CONSTRUCT`. Names hold only letters, digits and
//! `_ . - : /` (any other character becomes `_`): they are valid wherever the tools take a
//! fragment name (`pp -t`, `pp-campaign --per-iteration`, `lca --tag`, the `// lcm:
//! fragment` lines of `lca model --emit annotation`).
//!
//! A work-sharing construct runs on every thread of the team, and its fragment's window is
//! the union of the threads' runs (docs/predicates.md): where one thread leaves the loop
//! before another enters it, one execution counts as two. Records per execution
//! (`pp-campaign --per-execution`) of such a fragment are then divided by a number that
//! varies from run to run; name it in `--per-iteration` (docs/campaigns.md).
//!
//! A binary built with `gcc -fopenmp` and run on libomp computes the chunks of a
//! `schedule(static)` loop itself, without calling the runtime: such a loop is not
//! recorded as a construct of its own, and its threads' imbalance shows in the enclosing
//! parallel region. Loops with other schedules, and every construct of a clang build, are
//! recorded.
//!
//! Hand instrumentation mixes with the tool: `pp_start_profiling()` (`pplib.h`) joins the
//! tool's session, or, called before the runtime initializes, starts the session the tool
//! then records into; fragments and waits marked by hand nest with the runtime's events on
//! each thread.

pub mod abi;
pub mod callbacks;
mod regions;
mod symbols;

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::Session;
use abi::{event, set_result, Data, FunctionLookup, InterfaceFn, SetCallback, StartToolResult};

/// The session the tool started (None: none, or it joined one started by hand).
static TOOL_SESSION: Mutex<Option<Session>> = Mutex::new(None);
/// True once a runtime initialized the tool.
static INITIALIZED: AtomicBool = AtomicBool::new(false);

/// True while the tool's own session records (the C ABI's `pp_start_profiling` joins it).
pub(crate) fn owns_recording_session() -> bool {
    TOOL_SESSION
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .is_some_and(Session::is_enabled)
}

fn env_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}

fn tool_disabled() -> bool {
    std::env::var("PPLIB_OMPT").is_ok_and(|v| matches!(v.trim(), "0" | "off" | "false" | "no"))
}

/// The OMPT entry point: the runtime calls it once at start-up. pplib becomes the tool when
/// `PPLIB_LOG` is set (and `PPLIB_OMPT` is not `0`); otherwise it declines (null) and the
/// program runs without any callback.
#[no_mangle]
pub extern "C" fn ompt_start_tool(
    _omp_version: c_uint,
    _runtime_version: *const c_char,
) -> *mut StartToolResult {
    if !env_set("PPLIB_LOG") || tool_disabled() {
        return std::ptr::null_mut();
    }
    Box::into_raw(Box::new(StartToolResult {
        initialize,
        finalize,
        tool_data: Data { value: 0 },
    }))
}

/// p for the tool's session (see the module docs).
fn team_size() -> usize {
    let first = |name: &str| {
        std::env::var(name).ok().and_then(|v| {
            v.split(',')
                .next()
                .and_then(|n| n.trim().parse::<usize>().ok())
                .filter(|&n| n > 0)
        })
    };
    first("PPLIB_PROCESSORS")
        .or_else(|| first("OMP_NUM_THREADS"))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Starts the tool's session unless one is recording already (started by hand).
fn start_session() {
    if crate::recorder::state() != 0 {
        return;
    }
    let Some(path) = std::env::var_os("PPLIB_LOG").filter(|p| !p.is_empty()) else {
        return;
    };
    let mut builder = Session::builder().path(path).processors(team_size());
    if let Ok(c) = std::env::var("PPLIB_COUNTERS") {
        builder = builder.counters(matches!(c.trim(), "1" | "true" | "on" | "yes"));
    }
    match builder.start() {
        Ok(session) => {
            *TOOL_SESSION.lock().unwrap_or_else(PoisonError::into_inner) = Some(session);
            // `exit` destroys the main thread's thread-locals (its event buffer among them)
            // before it runs atexit handlers: the session ends in a thread-local destructor
            // registered after the buffer's, so it runs first, while the thread can still
            // record its `session_end`.
            if std::process::id() as libc::pid_t == crate::sys::os_thread_id() as libc::pid_t {
                let _ = END_AT_EXIT.try_with(|_| ());
            }
            // Where the tool started on another thread, or that destructor did not run.
            // SAFETY: `finish_at_exit` is a plain extern "C" fn that catches every panic.
            if unsafe { libc::atexit(finish_at_exit) } != 0 {
                eprintln!("pplib: cannot register the OpenMP tool's exit hook");
            }
        }
        Err(e) => eprintln!("pplib: {e}; recording is off"),
    }
}

/// Ends the tool's session (at exit, or when the runtime finalizes the tool).
fn finish_session() {
    let session = TOOL_SESSION
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    if let Some(Err(e)) = session.map(Session::finish) {
        eprintln!("pplib: {e}");
    }
}

/// Ends the tool's session when the thread that started it (the main thread) exits.
struct EndAtExit;

impl Drop for EndAtExit {
    fn drop(&mut self) {
        let _ = std::panic::catch_unwind(finish_session);
    }
}

thread_local! {
    static END_AT_EXIT: EndAtExit = const { EndAtExit };
}

extern "C" fn finish_at_exit() {
    let _ = std::panic::catch_unwind(finish_session);
}

/// Registers `callback` for `event`; false if the runtime will never call it.
///
/// # Safety
/// `callback` is the `extern "C"` function type the OMPT specification gives for `event`.
unsafe fn register(set_callback: SetCallback, event: c_int, callback: *const c_void) -> bool {
    // SAFETY: a function pointer is pointer-sized; the runtime calls it back with the
    // signature of `event`, which the caller guarantees `callback` has.
    let callback: InterfaceFn = unsafe { std::mem::transmute(callback) };
    // SAFETY: `set_callback` is the runtime's `ompt_set_callback`.
    let result = unsafe { set_callback(event, callback) };
    !matches!(result, set_result::ERROR | set_result::NEVER)
}

/// `ompt_initialize_t`: registers the callbacks and starts the session.
unsafe extern "C" fn initialize(
    lookup: FunctionLookup,
    _initial_device: c_int,
    _tool_data: *mut Data,
) -> c_int {
    INITIALIZED.store(true, Ordering::SeqCst);
    // SAFETY: `lookup` is the runtime's function lookup; the name is a C string literal.
    let Some(set_callback) = (unsafe { lookup(c"ompt_set_callback".as_ptr()) }) else {
        eprintln!("pplib: the OpenMP runtime offers no ompt_set_callback; recording is off");
        return 0;
    };
    // SAFETY: the lookup of "ompt_set_callback" returns an `ompt_set_callback_t`.
    let set_callback: SetCallback = unsafe { std::mem::transmute(set_callback) };
    use callbacks as cb;
    let table: [(c_int, *const c_void); 13] = [
        (
            event::THREAD_BEGIN,
            cb::thread_begin as abi::ThreadBeginFn as *const c_void,
        ),
        (
            event::PARALLEL_BEGIN,
            cb::parallel_begin as abi::ParallelBeginFn as *const c_void,
        ),
        (
            event::PARALLEL_END,
            cb::parallel_end as abi::ParallelEndFn as *const c_void,
        ),
        (
            event::IMPLICIT_TASK,
            cb::implicit_task as abi::ImplicitTaskFn as *const c_void,
        ),
        (event::WORK, cb::work as abi::WorkFn as *const c_void),
        (
            event::DISPATCH,
            cb::dispatch as abi::DispatchFn as *const c_void,
        ),
        (event::MASKED, cb::masked as abi::MaskedFn as *const c_void),
        (
            event::SYNC_REGION,
            cb::sync_region as abi::SyncRegionFn as *const c_void,
        ),
        (
            event::MUTEX_ACQUIRE,
            cb::mutex_acquire as abi::MutexAcquireFn as *const c_void,
        ),
        (
            event::MUTEX_ACQUIRED,
            cb::mutex_acquired as abi::MutexFn as *const c_void,
        ),
        (
            event::NEST_LOCK,
            cb::nest_lock as abi::NestLockFn as *const c_void,
        ),
        (
            event::TASK_CREATE,
            cb::task_create as abi::TaskCreateFn as *const c_void,
        ),
        (
            event::TASK_SCHEDULE,
            cb::task_schedule as abi::TaskScheduleFn as *const c_void,
        ),
    ];
    for (event, callback) in table {
        // SAFETY: each entry pairs an event with the callback of its specified type (the
        // casts above check the types against `abi`).
        let available = unsafe { register(set_callback, event, callback) };
        // The runtime's essential events: without them the profile would be wrong.
        if !available && event <= event::IMPLICIT_TASK {
            eprintln!(
                "pplib: the OpenMP runtime does not report event {event}; the profile may miss it"
            );
        }
    }
    if crate::recorder::state() == 0 && env_set("PPLIB_LOG") {
        let _ = std::panic::catch_unwind(symbols::preload_program);
    }
    let _ = std::panic::catch_unwind(start_session);
    1
}

/// `ompt_finalize_t`: the runtime shuts down.
unsafe extern "C" fn finalize(_tool_data: *mut Data) {
    let _ = std::panic::catch_unwind(finish_session);
}

/// At load: where pplib is a shared library (preloaded, or the tool) and `PPLIB_LOG` is
/// set, checks at exit that something was recorded, and otherwise says why not.
extern "C" fn on_load() {
    let _ = std::panic::catch_unwind(|| {
        if env_set("PPLIB_LOG") && !tool_disabled() && in_shared_library() {
            // SAFETY: `report_missing_runtime` is a plain extern "C" fn that catches panics.
            unsafe { libc::atexit(report_missing_runtime) };
        }
    });
}

#[used]
#[link_section = ".init_array"]
static ON_LOAD: extern "C" fn() = on_load;

/// True when this code runs from a shared object named `libpplib*` (not linked into the
/// program itself).
fn in_shared_library() -> bool {
    // SAFETY: an all-zero Dl_info is a valid value (null pointers).
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr reads the address and writes `info`, which outlives the call.
    let found = unsafe { libc::dladdr(on_load as *const c_void, &mut info) } != 0;
    if !found || info.dli_fname.is_null() {
        return false;
    }
    // SAFETY: dladdr set `dli_fname` to the object's path, a C string the loader keeps.
    let path = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let path = path.to_string_lossy();
    let file = path.rsplit('/').next().unwrap_or("");
    file.starts_with("libpplib") && file.contains(".so")
}

extern "C" fn report_missing_runtime() {
    let _ = std::panic::catch_unwind(|| {
        if !INITIALIZED.load(Ordering::SeqCst) && !crate::recorder::ever_started() {
            eprintln!(
                "pplib: PPLIB_LOG is set but nothing was recorded: the OpenMP runtime never \
                 started pplib as its OMPT tool. GCC's libgomp has no OMPT: run the program on \
                 LLVM's libomp (LD_PRELOAD=libomp.so.5 OMP_TOOL_LIBRARIES=libpplib.so), or \
                 build it with clang -fopenmp; or mark regions by hand (pplib.h)."
            );
        }
    });
}
