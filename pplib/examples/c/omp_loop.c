/*
 * A C + OpenMP program instrumented by hand with pplib's C ABI (include/pplib.h).
 *
 * Build (after `cargo build --release -p pplib`), from the workspace root:
 *   gcc -O2 -fopenmp -Ipplib/include pplib/examples/c/omp_loop.c \
 *       -Ltarget/release -lpplib -Wl,-rpath,$PWD/target/release -o omp_loop
 * Run:
 *   PPLIB_LOG=omp.pplog PPLIB_PROCESSORS=4 OMP_NUM_THREADS=4 ./omp_loop 200
 *
 * What it records: a serial fragment `init`, then fragment `loop` around an OpenMP parallel
 * region (a `par` on the master thread) whose iterations are `task`s of uneven length, and
 * the barrier at the end of the loop as a `wait barrier` on every thread. The tests
 * (pplib/tests/c_openmp.rs) build and run it and read its log back.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pplib.h"

/* About i microseconds of floating-point work (uneven iterations: load imbalance). */
static double work(int i) {
    double x = 1.0;
    for (long k = 0; k < 300L * (i % 7 + 1); k++) {
        x = x * 0.999999 + 1e-6;
    }
    return x;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double sum = 0.0;

    pp_start_profiling(); /* PPLIB_LOG=path records; unset: every pp_ call is a no-op */

    pp_frag_begin("init");
    double *xs = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        xs[i] = work(i);
    }
    pp_frag_end("init");

    pp_frag_begin("loop");
    pp_par_begin();
#pragma omp parallel reduction(+ : sum)
    {
#pragma omp for schedule(dynamic, 1) nowait
        for (int i = 0; i < n; i++) {
            pp_task_begin();
            sum += work(i) * xs[i];
            pp_task_end();
        }
        pp_wait_begin("barrier");
#pragma omp barrier
        pp_wait_end();
    }
    pp_par_end();
    pp_frag_end("loop");

    free(xs);
    if (pp_end_profiling() != 0) {
        fprintf(stderr, "omp_loop: writing the pplib log failed\n");
        return 2;
    }
    printf("n=%d sum=%.6f\n", n, sum);
    return 0;
}
