//! The part of the OpenMP tools interface (OMPT, OpenMP 5.1 `omp-tools.h`) that pplib uses,
//! declared by hand: the start-up handshake, `ompt_set_callback` and the callbacks pplib
//! registers. Enumerations are passed as C `int`s; their values are those of the header.

use std::ffi::{c_char, c_int, c_uint, c_void};

/// `ompt_data_t`: a word of tool data the runtime keeps per thread, parallel region and task.
#[repr(C)]
#[derive(Clone, Copy)]
pub union Data {
    /// The word as an integer (what pplib stores).
    pub value: u64,
    /// The word as a pointer.
    pub ptr: *mut c_void,
}

/// `ompt_interface_fn_t` (nullable).
pub type InterfaceFn = Option<unsafe extern "C" fn()>;
/// `ompt_function_lookup_t`.
pub type FunctionLookup = unsafe extern "C" fn(name: *const c_char) -> InterfaceFn;
/// `ompt_set_callback_t`: `(ompt_callbacks_t event, ompt_callback_t callback) -> ompt_set_result_t`.
pub type SetCallback = unsafe extern "C" fn(event: c_int, callback: InterfaceFn) -> c_int;
/// `ompt_initialize_t`.
pub type Initialize = unsafe extern "C" fn(
    lookup: FunctionLookup,
    initial_device: c_int,
    tool_data: *mut Data,
) -> c_int;
/// `ompt_finalize_t`.
pub type Finalize = unsafe extern "C" fn(tool_data: *mut Data);

/// `ompt_start_tool_result_t`.
#[repr(C)]
pub struct StartToolResult {
    /// Called by the runtime once it is ready (returns non-zero to stay active).
    pub initialize: Initialize,
    /// Called by the runtime when it shuts down.
    pub finalize: Finalize,
    /// Passed to both.
    pub tool_data: Data,
}

/// `ompt_frame_t` (only passed through by pointer).
#[repr(C)]
pub struct Frame {
    _private: [u8; 0],
}

/// `ompt_callbacks_t` values of the callbacks pplib registers.
pub mod event {
    use std::ffi::c_int;
    /// `ompt_callback_thread_begin`.
    pub const THREAD_BEGIN: c_int = 1;
    /// `ompt_callback_parallel_begin`.
    pub const PARALLEL_BEGIN: c_int = 3;
    /// `ompt_callback_parallel_end`.
    pub const PARALLEL_END: c_int = 4;
    /// `ompt_callback_task_create`.
    pub const TASK_CREATE: c_int = 5;
    /// `ompt_callback_task_schedule`.
    pub const TASK_SCHEDULE: c_int = 6;
    /// `ompt_callback_implicit_task`.
    pub const IMPLICIT_TASK: c_int = 7;
    /// `ompt_callback_work`.
    pub const WORK: c_int = 20;
    /// `ompt_callback_masked` (`ompt_callback_master` before 5.1).
    pub const MASKED: c_int = 21;
    /// `ompt_callback_sync_region`.
    pub const SYNC_REGION: c_int = 23;
    /// `ompt_callback_mutex_acquire`.
    pub const MUTEX_ACQUIRE: c_int = 26;
    /// `ompt_callback_mutex_acquired`.
    pub const MUTEX_ACQUIRED: c_int = 27;
    /// `ompt_callback_nest_lock`.
    pub const NEST_LOCK: c_int = 28;
    /// `ompt_callback_dispatch`.
    pub const DISPATCH: c_int = 32;
}

/// `ompt_set_result_t` values.
pub mod set_result {
    use std::ffi::c_int;
    /// `ompt_set_error`.
    pub const ERROR: c_int = 0;
    /// `ompt_set_never`: the runtime never calls this callback.
    pub const NEVER: c_int = 1;
}

/// `ompt_thread_t` values.
pub mod thread {
    use std::ffi::c_int;
    /// `ompt_thread_worker`.
    pub const WORKER: c_int = 2;
}

/// `ompt_scope_endpoint_t` values.
pub mod scope {
    use std::ffi::c_int;
    /// `ompt_scope_begin`.
    pub const BEGIN: c_int = 1;
    /// `ompt_scope_end`.
    pub const END: c_int = 2;
    /// `ompt_scope_beginend`.
    pub const BEGINEND: c_int = 3;
}

/// `ompt_work_t` values.
pub mod work {
    use std::ffi::c_int;
    /// `ompt_work_loop`.
    pub const LOOP: c_int = 1;
    /// `ompt_work_sections`.
    pub const SECTIONS: c_int = 2;
    /// `ompt_work_single_executor`.
    pub const SINGLE_EXECUTOR: c_int = 3;
    /// `ompt_work_single_other`.
    pub const SINGLE_OTHER: c_int = 4;
    /// `ompt_work_workshare`.
    pub const WORKSHARE: c_int = 5;
    /// `ompt_work_distribute`.
    pub const DISTRIBUTE: c_int = 6;
    /// `ompt_work_taskloop`.
    pub const TASKLOOP: c_int = 7;
    /// `ompt_work_scope`.
    pub const SCOPE: c_int = 8;
}

/// `ompt_sync_region_t` values.
pub mod sync {
    use std::ffi::c_int;
    /// `ompt_sync_region_barrier` (deprecated in 5.1: a barrier of unspecified kind).
    pub const BARRIER: c_int = 1;
    /// `ompt_sync_region_barrier_implicit` (deprecated in 5.1; LLVM 14 reports every implicit
    /// barrier with it).
    pub const BARRIER_IMPLICIT: c_int = 2;
    /// `ompt_sync_region_barrier_explicit`.
    pub const BARRIER_EXPLICIT: c_int = 3;
    /// `ompt_sync_region_barrier_implementation` (LLVM: the barrier of a reduction).
    pub const BARRIER_IMPLEMENTATION: c_int = 4;
    /// `ompt_sync_region_taskwait`.
    pub const TASKWAIT: c_int = 5;
    /// `ompt_sync_region_taskgroup`.
    pub const TASKGROUP: c_int = 6;
    /// `ompt_sync_region_reduction`.
    pub const REDUCTION: c_int = 7;
    /// `ompt_sync_region_barrier_implicit_workshare`.
    pub const BARRIER_IMPLICIT_WORKSHARE: c_int = 8;
    /// `ompt_sync_region_barrier_implicit_parallel`.
    pub const BARRIER_IMPLICIT_PARALLEL: c_int = 9;
    /// `ompt_sync_region_barrier_teams`.
    pub const BARRIER_TEAMS: c_int = 10;
}

/// `ompt_mutex_t` values.
pub mod mutex {
    use std::ffi::c_int;
    /// `ompt_mutex_lock`.
    pub const LOCK: c_int = 1;
    /// `ompt_mutex_test_lock`.
    pub const TEST_LOCK: c_int = 2;
    /// `ompt_mutex_nest_lock`.
    pub const NEST_LOCK: c_int = 3;
    /// `ompt_mutex_test_nest_lock`.
    pub const TEST_NEST_LOCK: c_int = 4;
    /// `ompt_mutex_critical`.
    pub const CRITICAL: c_int = 5;
    /// `ompt_mutex_atomic`.
    pub const ATOMIC: c_int = 6;
    /// `ompt_mutex_ordered`.
    pub const ORDERED: c_int = 7;
}

/// `ompt_task_flag_t` values.
pub mod task_flag {
    use std::ffi::c_int;
    /// `ompt_task_initial`.
    pub const INITIAL: c_int = 0x1;
    /// `ompt_task_implicit`.
    pub const IMPLICIT: c_int = 0x2;
    /// `ompt_task_explicit`.
    pub const EXPLICIT: c_int = 0x4;
}

/// `ompt_task_status_t` values.
pub mod task_status {
    use std::ffi::c_int;
    /// `ompt_task_complete`.
    pub const COMPLETE: c_int = 1;
    /// `ompt_task_cancel`.
    pub const CANCEL: c_int = 3;
    /// `ompt_task_detach`.
    pub const DETACH: c_int = 4;
    /// `ompt_task_late_fulfill`.
    pub const LATE_FULFILL: c_int = 6;
    /// `ompt_task_switch`.
    pub const SWITCH: c_int = 7;
}

/// `ompt_callback_thread_begin_t`.
pub type ThreadBeginFn = unsafe extern "C" fn(thread_type: c_int, thread_data: *mut Data);
/// `ompt_callback_parallel_begin_t`.
pub type ParallelBeginFn = unsafe extern "C" fn(
    encountering_task_data: *mut Data,
    encountering_task_frame: *const Frame,
    parallel_data: *mut Data,
    requested_parallelism: c_uint,
    flags: c_int,
    codeptr_ra: *const c_void,
);
/// `ompt_callback_parallel_end_t`.
pub type ParallelEndFn = unsafe extern "C" fn(
    parallel_data: *mut Data,
    encountering_task_data: *mut Data,
    flags: c_int,
    codeptr_ra: *const c_void,
);
/// `ompt_callback_implicit_task_t`.
pub type ImplicitTaskFn = unsafe extern "C" fn(
    endpoint: c_int,
    parallel_data: *mut Data,
    task_data: *mut Data,
    actual_parallelism: c_uint,
    index: c_uint,
    flags: c_int,
);
/// `ompt_callback_work_t`.
pub type WorkFn = unsafe extern "C" fn(
    wstype: c_int,
    endpoint: c_int,
    parallel_data: *mut Data,
    task_data: *mut Data,
    count: u64,
    codeptr_ra: *const c_void,
);
/// `ompt_callback_dispatch_t` (`instance` is passed by value).
pub type DispatchFn = unsafe extern "C" fn(
    parallel_data: *mut Data,
    task_data: *mut Data,
    kind: c_int,
    instance: Data,
);
/// `ompt_callback_masked_t`.
pub type MaskedFn = unsafe extern "C" fn(
    endpoint: c_int,
    parallel_data: *mut Data,
    task_data: *mut Data,
    codeptr_ra: *const c_void,
);
/// `ompt_callback_sync_region_t`.
pub type SyncRegionFn = unsafe extern "C" fn(
    kind: c_int,
    endpoint: c_int,
    parallel_data: *mut Data,
    task_data: *mut Data,
    codeptr_ra: *const c_void,
);
/// `ompt_callback_mutex_acquire_t`.
pub type MutexAcquireFn = unsafe extern "C" fn(
    kind: c_int,
    hint: c_uint,
    implementation: c_uint,
    wait_id: u64,
    codeptr_ra: *const c_void,
);
/// `ompt_callback_mutex_t` (acquired, released).
pub type MutexFn = unsafe extern "C" fn(kind: c_int, wait_id: u64, codeptr_ra: *const c_void);
/// `ompt_callback_nest_lock_t`.
pub type NestLockFn =
    unsafe extern "C" fn(endpoint: c_int, wait_id: u64, codeptr_ra: *const c_void);
/// `ompt_callback_task_create_t`.
pub type TaskCreateFn = unsafe extern "C" fn(
    encountering_task_data: *mut Data,
    encountering_task_frame: *const Frame,
    new_task_data: *mut Data,
    flags: c_int,
    has_dependences: c_int,
    codeptr_ra: *const c_void,
);
/// `ompt_callback_task_schedule_t`.
pub type TaskScheduleFn = unsafe extern "C" fn(
    prior_task_data: *mut Data,
    prior_task_status: c_int,
    next_task_data: *mut Data,
);
