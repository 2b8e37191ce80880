/*
 * ompt_inlined.c: a C + OpenMP program as a user writes it, for tests/openmp_models.rs:
 * its parallel loop sits in a `static` helper that `clang -fopenmp -g -O2` (the README's
 * flags) inlines into `main`. Built unmodified (no pplib.h) and run under pplib's OpenMP
 * tool, its regions must be named after the helper (`triangle/parallel:ompt_inlined.c:LINE`,
 * `triangle/loop:ompt_inlined.c:LINE`), not after `main`, and those names must survive the
 * whole C pipeline: pp-campaign, then `lca model --all-tags --emit annotation` (one
 * `// lcm: fragment` block per region), then `lca eval` on that models file.
 * Usage: ompt_inlined N. The loop has 4 iterations, iteration i spinning N*(i+1) ms on
 * CLOCK_MONOTONIC (a triangular loop under a static schedule: at 2 threads thread 0 runs
 * 3N ms and thread 1 7N ms); it runs twice.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
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

static inline __attribute__((always_inline)) void triangle(long n) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 4; i++) {
        spin_ms(n * (i + 1));
    }
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1;
    for (int r = 0; r < 2; r++) {
        triangle(n);
    }
    printf("n=%ld threads=%d\n", n, omp_get_max_threads());
    return 0;
}
