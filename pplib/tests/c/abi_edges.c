/*
 * Edge cases of the C ABI, built and run by tests/c_openmp.rs (written by hand).
 * Usage: abi_edges LOG. Must exit 0 and leave a log whose thread 0 reads:
 *   session_begin, frag_begin edges, task_begin, task_end wasted, wait_begin io, wait_end,
 *   frag_end edges, session_end
 */
#include <stdio.h>

#include "pplib.h"

int main(int argc, char **argv) {
    if (argc < 2) return 10;
    if (pp_is_recording() != 0) return 11;
    if (pp_start_profiling_to(NULL, 0) != -1) return 12;          /* null path: error */
    if (pp_start_profiling_to("/no/such/dir/x.pplog", 0) != -1) return 13;
    if (pp_start_profiling_to(argv[1], 3) != 1) return 14;
    if (pp_start_profiling_to(argv[1], 3) != -1) return 15;        /* already recording */
    if (pp_start_profiling() != 1) return 16;                      /* keeps the session */
    if (pp_is_recording() != 1) return 17;
    pp_register_thread();
    pp_frag_begin("edges");
    pp_frag_begin(NULL); /* ignored */
    pp_task_begin();
    pp_task_end_wasted();
    pp_wait_begin("io");
    pp_wait_end();
    pp_frag_end("edges");
    if (pp_end_profiling() != 0) return 18;
    if (pp_end_profiling() != 0) return 19;                        /* nothing to end: ok */
    if (pp_is_recording() != 0) return 20;
    pp_task_begin(); /* no session: no-op */
    pp_task_end();
    puts("ok");
    return 0;
}
