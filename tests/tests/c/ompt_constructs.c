/*
 * ompt_constructs.c: one OpenMP construct per mode, with known durations, for the tests of
 * pplib's OpenMP tool (tests/openmp_tool.rs). Built unmodified (no pplib.h) with
 * `clang -fopenmp -g` (LLVM libomp) or `gcc -fopenmp -g` (run on libomp via LD_PRELOAD).
 * Usage: ompt_constructs MODE, MODE one of imbalanced, critical, locks, tasks, serial. The
 * parallel modes first run a short region that starts the runtime's threads.
 * Work is a spin on CLOCK_MONOTONIC (the thread stays Busy for exactly that long in wall
 * time, even when the machine is loaded). What each mode must give is in the test.
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define MS 1000000L
/* Each mode keeps its own function (and its own call of the runtime), so that its regions
 * are named after it. */
#define NOINLINE __attribute__((noinline))

static long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void spin_ms(long ms) {
    long end = now_ns() + ms * MS;
    while (now_ns() < end) {
    }
}

/* Static schedule, 2 iterations: iteration i spins (i + 1) * 50 ms. With 2 threads, thread
 * 0 waits 50 ms at the loop's implicit barrier. */
NOINLINE static void imbalanced_loop(void) {
#pragma omp parallel for schedule(static, 1)
    for (int i = 0; i < 2; i++)
        spin_ms((i + 1) * 50);
}

/* Every thread holds the critical section for 50 ms: with 2 threads one waits 50 ms. */
NOINLINE static void critical_section(void) {
#pragma omp parallel
    {
#pragma omp critical
        spin_ms(50);
    }
}

/* The same with an OpenMP lock. */
NOINLINE static void lock_section(void) {
    omp_lock_t lock;
    omp_init_lock(&lock);
#pragma omp parallel
    {
        omp_set_lock(&lock);
        spin_ms(50);
        omp_unset_lock(&lock);
    }
    omp_destroy_lock(&lock);
}

/* A single thread creates 4 tasks of 40 ms and waits for them; the team runs them. */
NOINLINE static void task_tree(void) {
#pragma omp parallel
    {
#pragma omp single
        {
            for (int k = 0; k < 4; k++) {
#pragma omp task
                spin_ms(40);
            }
#pragma omp taskwait
        }
    }
}

/* 60 ms of serial code once the runtime is up (it starts the tool's session). */
NOINLINE static void serial_phase(void) {
    spin_ms(60);
}

/* Starts the runtime's threads, so that the timed region does not wait for their creation
 * (the tool names this region too: main/parallel:...). */
static void warm_up(void) {
    int sum = 0;
#pragma omp parallel reduction(+ : sum)
    sum += omp_get_thread_num();
    if (sum < 0)
        printf("unreachable\n");
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    /* Start the runtime (and the tool's session) before anything is timed. */
    int threads = omp_get_max_threads();
    if (strcmp(mode, "serial"))
        warm_up();
    if (!strcmp(mode, "imbalanced"))
        imbalanced_loop();
    else if (!strcmp(mode, "critical"))
        critical_section();
    else if (!strcmp(mode, "locks"))
        lock_section();
    else if (!strcmp(mode, "tasks"))
        task_tree();
    else if (!strcmp(mode, "serial"))
        serial_phase();
    else {
        fprintf(stderr, "usage: ompt_constructs imbalanced|critical|locks|tasks|serial\n");
        return 2;
    }
    printf("%s threads=%d\n", mode, threads);
    return 0;
}
