//! The price of moving the matrix between the tasks of [`super::tp`] on this machine: a
//! microbenchmark of the program's own kernels.
//!
//! In the task-parallel version task B transposes the matrix that task A has just written
//! (`init`, `cols`) on another processor: the matrix's cache lines sit in A's private cache
//! and must travel to B's. The data-parallel version's p = 1 run, whose models give B's
//! fragments, found the matrix in its own cache. How much the move costs depends on where
//! the matrix lives: nothing to speak of when it does not fit in a private cache (both runs
//! stream it from the shared cache or memory), the most when it fits in the writer's cache
//! but not in the reader's first level. So the study measures it at every size, before the
//! task-parallel version ever runs: one thread transposes a matrix written by itself and one
//! written by a second thread, while that second thread goes on writing a matrix of its own
//! (as task A goes on to the next matrix), and the difference of the two transposes is the
//! move.

use super::{block_cols, init_block, transpose_block, zeros, Plan};
use crossbeam_channel::{bounded, TryRecvError};
use rustfft::num_complex::Complex64;
use std::time::Instant;

/// Seconds of one transpose of the n×n matrix `a` into `b`, block by block as the programs
/// do it.
fn timed_transpose(a: &[Complex64], b: &mut [Complex64], n: usize, g: usize) -> f64 {
    let start = Instant::now();
    for (j, block) in b.chunks_mut(g * n).enumerate() {
        transpose_block(a, block, j * g, n);
    }
    std::hint::black_box(&b);
    start.elapsed().as_secs_f64()
}

/// `init` and `cols` of iteration k into `a` (what task A does to the matrix).
fn write(a: &mut [Complex64], plan: &Plan, n: usize, g: usize, k: usize) {
    for (j, block) in a.chunks_mut(g * n).enumerate() {
        init_block(block, j * g, n, k);
    }
    for block in a.chunks_mut(g * n) {
        plan.process(block);
    }
}

/// One measurement at size n: the mean seconds of a transpose whose input this thread
/// wrote (`.0`) and of one whose input another thread wrote (`.1`), over a few repetitions
/// of each, alternating (some 5 ms of transposes in all, at least 3 of each): means, as the
/// fragment models are means per execution. The caller repeats it and keeps the median of
/// the differences (`.1 − .0`) over the runs during which no other load held a processor
/// (with one processor for both threads the second is a different measurement).
pub fn transfer_once(n: usize) -> (f64, f64) {
    let n = n.max(1);
    let plan = Plan::new(n);
    let g = block_cols(n);
    let mut b = zeros(n);
    let reps = (5e-3 / (2e-9 * (n * n) as f64)).clamp(3.0, 200.0) as usize;
    // The helper writes the matrices it is sent and sends them back; between requests it
    // writes a matrix of its own over and over (as task A goes on to the next matrix, whose
    // lines push the handed-over one's out of its cache). None stops it.
    let (to_helper, helper_rx) = bounded::<Option<Vec<Complex64>>>(1);
    let (helper_tx, from_helper) = bounded::<Vec<Complex64>>(1);
    let (mut own, mut other) = (0.0, 0.0);
    std::thread::scope(|s| {
        let plan = &plan;
        s.spawn(move || {
            let mut k = 0;
            let mut own = zeros(n);
            loop {
                match helper_rx.try_recv() {
                    Ok(Some(mut a)) => {
                        k += 1;
                        write(&mut a, plan, n, g, k);
                        if helper_tx.send(a).is_err() {
                            return;
                        }
                    }
                    Ok(None) | Err(TryRecvError::Disconnected) => return,
                    Err(TryRecvError::Empty) => {
                        k += 1;
                        write(&mut own, plan, n, g, k);
                    }
                }
            }
        });
        let mut a = zeros(n);
        // Warm-up: both matrices touched, the transform planned.
        write(&mut a, plan, n, g, 0);
        timed_transpose(&a, &mut b, n, g);
        for k in 0..reps {
            write(&mut a, plan, n, g, k);
            own += timed_transpose(&a, &mut b, n, g);
            if to_helper.send(Some(a)).is_err() {
                other = f64::NAN;
                return;
            }
            let Ok(back) = from_helper.recv() else {
                other = f64::NAN;
                return;
            };
            a = back;
            other += timed_transpose(&a, &mut b, n, g);
        }
        let _ = to_helper.send(None);
    });
    (own / reps as f64, other / reps as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_transposes_are_timed() {
        // Only finiteness and sign: the difference is the machine's business (and on a
        // loaded machine anything).
        let (own, other) = transfer_once(64);
        assert!(own.is_finite() && own > 0.0, "{own}");
        assert!(other.is_finite() && other > 0.0, "{other}");
    }
}
