/*
 * header_pattern.c: the hand instrumentation of pplib.h's opening comment, written out as
 * a user copies it, for tests/c_header.rs. Built with `gcc -fopenmp -O2` against pplib.h
 * and the libpplib.so of the test run, run with OMP_NUM_THREADS=2 and PPLIB_LOG set.
 * Its one parallel loop has two iterations under a static schedule, spinning 20 ms and
 * 80 ms on CLOCK_MONOTONIC: thread 0 waits 60 ms at the region's barrier.
 * What it must give (pp, session): li about 0.060 s (the wait is Idle while the fork is
 * open), rt about 0.100 s (only the spins are Busy), ip near 0. Recorded without
 * pp_par_begin it would show the wait as ip; with the task open across the barrier (no
 * `nowait`), as rt.
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#include "pplib.h"

static long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void work(int i) {
    long end = now_ns() + (i == 0 ? 20L : 80L) * 1000000L;
    while (now_ns() < end) {
    }
}

int main(void) {
    int n = 2;
    pp_start_profiling();
    pp_par_begin();
#pragma omp parallel
    {
        pp_task_begin();
#pragma omp for schedule(static) nowait
        for (int i = 0; i < n; i++) work(i);
        pp_task_end();
    }
    pp_par_end();
    pp_end_profiling();
    printf("threads=%d\n", omp_get_max_threads());
    return 0;
}
