//! Data-parallel 2D FFT (Crovella Fig. 3.2 and 6.7): every iteration runs four parallel
//! loops in sequence (`init`, `cols`, `transpose`, `rows`), each over all threads of the
//! rayon pool it is called in.
//!
//! This file is also the input of `lcm predict`: each fragment is the `pplib::frag_scope`
//! call that names it, with its `// lcm:` lines (models, inputs, outputs) directly above.
//!
//! `transpose` reads the matrix `a` that `cols` wrote (`// lcm: input a`); at p > 1 part of
//! it was written on another processor, which this version's measurements include.

use super::{block_cols, init_block, transpose_block, zeros, Plan};
use pplib::prelude::*;
use rustfft::num_complex::Complex64;

/// Runs `iters` iterations of the data-parallel 2D FFT of n×n matrices in the current rayon
/// pool (call it inside `pool.install`) and returns the transform of the last iteration.
pub fn fft2d(n: usize, iters: usize) -> Vec<Complex64> {
    let plan = Plan::new(n);
    let g = block_cols(n);
    let mut a = alloc(n);
    let mut b = alloc(n);
    // lcm: iterations = iters
    for k in 0..iters {
        // lcm: output a
        pplib::frag_scope("init", || {
            a.par_chunks_mut(g * n)
                .enumerate()
                .pp_for_each(|(j, block)| init_block(block, j * g, n, k))
        });

        // lcm: input a
        // lcm: output a
        pplib::frag_scope("cols", || {
            a.par_chunks_mut(g * n)
                .pp_for_each(|block| plan.process(block))
        });

        // lcm: input a
        // lcm: output b
        pplib::frag_scope("transpose", || {
            b.par_chunks_mut(g * n)
                .enumerate()
                .pp_for_each(|(j, block)| transpose_block(&a, block, j * g, n))
        });

        // lcm: input b
        // lcm: output b
        pplib::frag_scope("rows", || {
            b.par_chunks_mut(g * n)
                .pp_for_each(|block| plan.process(block))
        });
    }
    b
}

/// A zero n×n matrix. A fresh allocation of this size comes from the kernel's zero pages:
/// the first write to each page faults, here, not in the loops (microseconds per 4 KiB page;
/// at n = 1024 a tenth of a short run).
fn alloc(n: usize) -> Vec<Complex64> {
    pplib::frag_scope("alloc", || zeros(n))
}
