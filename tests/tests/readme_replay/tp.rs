//! Task-parallel 2D FFT (Crovella Fig. 3.3 and 6.1): two tasks, each with its own pool
//! (p/2 threads), pipelined over iterations. Task A initializes matrix k and does its column
//! FFTs, then sends it to task B, which transposes it and does the row FFTs while A works on
//! matrix k+1. Two matrices circulate: B gives each one back to A's [`MatrixPool`] when it
//! has transposed it (flow control: A runs at most two matrices ahead of B).
//!
//! This file is also the input of `lcm predict`: each fragment is the `pplib::frag_scope`
//! call that names it, with its `// lcm:` lines (models, inputs, outputs) directly above.
//!
//! `transpose` reads the matrix `a` that `cols` wrote on task A's processor (`// lcm: input
//! a`, `bytes = 16*n^2`): lcm prices that move from the machine file (what reading that
//! many bytes written on another processor adds over reading them where they were written,
//! `transfer_s_B − local_read_s_B`; docs/machine.md).
//!
//! Each fragment derives from the data-parallel version's measured models (`lcm predict
//! --models`; docs/models.md, "Derived models") and the machine file's keys (`lcm predict
//! --machine`), nothing else: the two tasks run at once, so the memory system serves the
//! threads of both (`both`, bound to the program's p above the tasks) while each fragment
//! runs on its task's `p`. Its work slows by what the measured version lost beyond its own
//! p when it ran on `both` threads (`(X.ml_pboth - X.ml) / X.pc`), at most what the
//! machine's memory slowdown grows by from `p` to `both` threads (`mem_slowdown_kboth /
//! mem_slowdown_kp - 1`, the keys interpolated at those numbers). With one thread per task
//! (p = 2) that is what two threads lost at once, at most `mem_slowdown_k2 - 1`. `alloc`
//! runs before the tasks start: it keeps its measured models.
//!
//! The hand-offs need no rule here: lcm recognizes the two task loops linked by the channel
//! as a pipeline and prices each hand-off from the stage times (docs/models.md,
//! "Pipelines"): when the faster stage waits no longer per item than the channel's spin
//! window (`handoff_spin_window_s`), it is caught spinning (`handoff_spin_s`); when it
//! waits longer it sleeps, the other stage pays the wake-up call (`handoff_notify_s`) and
//! the woken one the wake-up latency (`handoff_wake_s`).

use super::{block_cols, init_block, transpose_block, zeros, MatrixPool, Plan};
use crossbeam_channel::{bounded, Receiver, Sender};
use pplib::prelude::*;
use rayon::ThreadPool;
use rustfft::num_complex::Complex64;

/// Runs `iters` iterations of the task-parallel 2D FFT of n×n matrices, task A on `pool_a`
/// and task B on `pool_b`, and returns the transform of the last iteration. The calling
/// thread only waits (recorded as a `par`).
pub fn fft2d(n: usize, iters: usize, pool_a: &ThreadPool, pool_b: &ThreadPool) -> Vec<Complex64> {
    let free = MatrixPool::with_room(2);
    // lcm: iterations = 2
    for _ in 0..2 {
        free.give(alloc(n));
    }
    let mut out = alloc(n);
    let (tx, rx) = bounded::<Vec<Complex64>>(2);
    let waiting = pplib::par();
    std::thread::scope(|s| {
        // lcm: p = ceil(p/2)
        // lcm: both = p
        s.spawn(|| pool_a.install(|| task_a(n, iters, &free, &tx)));
        // lcm: p = floor(p/2)
        // lcm: both = p
        s.spawn(|| pool_b.install(|| task_b(n, iters, &rx, &free, &mut out)));
    });
    drop(waiting);
    out
}

/// A zero n×n matrix. A fresh allocation of this size comes from the kernel's zero pages:
/// the first write to each page faults, here, not in the loops (microseconds per 4 KiB page;
/// at n = 1024 a tenth of a short run).
fn alloc(n: usize) -> Vec<Complex64> {
    pplib::frag_scope("alloc", || zeros(n))
}

/// Task A: `init` and `cols` of every matrix, in iteration order.
fn task_a(n: usize, iters: usize, free: &MatrixPool, tx: &Sender<Vec<Complex64>>) {
    let plan = Plan::new(n);
    let g = block_cols(n);
    // lcm: iterations = iters
    for k in 0..iters {
        let mut a = free.take();

        // lcm: like init
        // lcm: contention = min(mem_slowdown_kboth / mem_slowdown_kp - 1, max(0, (init.ml_pboth - init.ml) / init.pc))
        // lcm: output a
        pplib::frag_scope("init", || {
            a.par_chunks_mut(g * n)
                .enumerate()
                .pp_for_each(|(j, block)| init_block(block, j * g, n, k))
        });

        // lcm: like cols
        // lcm: contention = min(mem_slowdown_kboth / mem_slowdown_kp - 1, max(0, (cols.ml_pboth - cols.ml) / cols.pc))
        // lcm: input a
        // lcm: output a
        pplib::frag_scope("cols", || {
            a.par_chunks_mut(g * n)
                .pp_for_each(|block| plan.process(block))
        });

        let sending = pplib::wait_guard(WaitKind::Channel);
        tx.send(a).expect("task B receives every matrix");
        drop(sending);
    }
}

/// Task B: `transpose` and `rows` of every matrix, in iteration order; the last result is
/// left in `b`.
fn task_b(
    n: usize,
    iters: usize,
    rx: &Receiver<Vec<Complex64>>,
    free: &MatrixPool,
    b: &mut [Complex64],
) {
    let plan = Plan::new(n);
    let g = block_cols(n);
    // lcm: iterations = iters
    for _ in 0..iters {
        let receiving = pplib::wait_guard(WaitKind::Channel);
        let a = rx.recv().expect("task A sends every matrix");
        drop(receiving);

        // It reads the matrix from the other stage's processor.
        // lcm: like transpose
        // lcm: contention = min(mem_slowdown_kboth / mem_slowdown_kp - 1, max(0, (transpose.ml_pboth - transpose.ml) / transpose.pc))
        // lcm: input a
        // lcm: bytes = 16*n^2
        // lcm: output b
        pplib::frag_scope("transpose", || {
            b.par_chunks_mut(g * n)
                .enumerate()
                .pp_for_each(|(j, block)| transpose_block(&a, block, j * g, n))
        });

        // lcm: like rows
        // lcm: contention = min(mem_slowdown_kboth / mem_slowdown_kp - 1, max(0, (rows.ml_pboth - rows.ml) / rows.pc))
        // lcm: input b
        // lcm: output b
        pplib::frag_scope("rows", || {
            b.par_chunks_mut(g * n)
                .pp_for_each(|block| plan.process(block))
        });

        free.give(a);
    }
}
