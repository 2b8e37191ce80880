/*
 * pplib.h: the C ABI of pplib, the instrumentation runtime of the lost-cycles toolchain.
 *
 * Link with the pplib library built by cargo, libpplib.so (pplib/install.sh installs it
 * with this header and a pkg-config file). Record events by hand around the constructs of
 * docs/predicates.md:
 *
 *   pp_start_profiling();                 // PPLIB_LOG=run.pplog: record; unset: no-op
 *   pp_par_begin();                       // the fork: work exists until pp_par_end
 *   #pragma omp parallel
 *   {
 *       pp_task_begin();                  // this thread's share of the work (Busy)
 *       #pragma omp for nowait
 *       for (int i = 0; i < n; i++) work(i);
 *       pp_task_end();                    // before the barrier: waiting there is Idle
 *   }                                     // (the region's implicit barrier)
 *   pp_par_end();
 *   pp_end_profiling();
 *
 * The task must end before the thread waits for the others: a task still open across an
 * implicit barrier (an `omp for` without `nowait` inside it) counts the wait as Busy and
 * hides the load imbalance in rt; mark such a barrier with pp_wait_begin("barrier") /
 * pp_wait_end() instead. Without pp_par_begin, idle threads count as insufficient
 * parallelism (ip) rather than load imbalance (li): li needs a fork open.
 *
 * Begin/end calls must be balanced per thread (innermost first). Strings are
 * NUL-terminated UTF-8; a NULL string makes the call do nothing. With no session
 * recording, every call returns at once. No call ever aborts the program: errors are
 * reported once on stderr and recording stops.
 *
 * Unmodified OpenMP programs need none of this: on LLVM's libomp, libpplib.so is an OpenMP
 * tool (OMP_TOOL_LIBRARIES=/path/libpplib.so PPLIB_LOG=run.pplog ./prog) that records the
 * runtime's regions, barriers, locks and tasks. Calls made here nest with its events, and a
 * program linked with -lpplib is its own tool (PPLIB_OMPT=0 turns the tool off).
 */
#ifndef PPLIB_H
#define PPLIB_H

#ifdef __cplusplus
extern "C" {
#endif

/* Starts a session configured by the environment: PPLIB_LOG (log path; unset: disabled),
 * PPLIB_PROCESSORS (p; default: the OpenMP team size, omp_get_max_threads(), when an
 * OpenMP runtime is loaded, else the number of CPUs), PPLIB_COUNTERS=1, PPLIB_CLOCK.
 * Returns 1 if recording, 0 if disabled. */
int pp_start_profiling(void);

/* Starts a session recording into `path` with p = `processors` (0: the default above).
 * Returns 1 if recording, -1 on error (reported on stderr). */
int pp_start_profiling_to(const char *path, int processors);

/* Ends the session (call it on the thread that started it) and completes the log.
 * Returns 0 on success, -1 if the log could not be written. A program that exits
 * without calling it still gets a complete log (an exit hook finishes it). */
int pp_end_profiling(void);

/* 1 while a session is recording, else 0. */
int pp_is_recording(void);

/* Makes the calling thread part of the session now, so that it appears in the log even if
 * it records no event (threads otherwise join on their first event). */
void pp_register_thread(void);

/* A code fragment (profiling tag): serial code of interest, by name. */
void pp_frag_begin(const char *name);
void pp_frag_end(const char *name);

/* A fork point: the calling thread forked work and waits for its join (Idle). */
void pp_par_begin(void);
void pp_par_end(void);

/* A piece of parallel work (Busy); end it as wasted for speculative work that did not
 * contribute. */
void pp_task_begin(void);
void pp_task_end(void);
void pp_task_end_wasted(void);

/* A synchronization wait (Spinning): kind "lock", "barrier", "condvar", "channel",
 * "spin", or any other name. */
void pp_wait_begin(const char *kind);
void pp_wait_end(void);

#ifdef __cplusplus
}
#endif

#endif /* PPLIB_H */
