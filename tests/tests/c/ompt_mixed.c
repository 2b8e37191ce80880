/*
 * ompt_mixed.c: hand instrumentation (pplib.h) mixed with pplib's OpenMP tool, for
 * tests/openmp_tool.rs. Linked with -lpplib, the program itself provides ompt_start_tool,
 * so LLVM's libomp starts the tool without OMP_TOOL_LIBRARIES. The hand-made session
 * starts before the runtime; the tool records into it. Must give: fragment `setup` (30 ms,
 * serial) and fragment `solve` enclosing the tool's `mixed_solve/parallel:...` region,
 * whose loop leaves one of 2 threads idle 30 ms (li).
 */
#include <omp.h>
#include <pplib.h>
#include <stdio.h>
#include <time.h>

static long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void spin_ms(long ms) {
    long end = now_ns() + ms * 1000000L;
    while (now_ns() < end) {
    }
}

/* Not inlined: its region is named after it. */
__attribute__((noinline)) static void mixed_solve(void) {
#pragma omp parallel for schedule(static, 1)
    for (int i = 0; i < 2; i++) {
        pp_frag_begin("body");
        spin_ms((i + 1) * 30);
        pp_frag_end("body");
    }
}

int main(void) {
    int recording = pp_start_profiling();
    pp_frag_begin("setup");
    spin_ms(30);
    pp_frag_end("setup");
    pp_frag_begin("solve");
    mixed_solve();
    pp_frag_end("solve");
    int ended = pp_end_profiling();
    printf("recording=%d ended=%d\n", recording, ended);
    return 0;
}
