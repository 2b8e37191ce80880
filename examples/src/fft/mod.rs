//! 2D FFT of complex n×n matrices (Crovella sections 3.2 and 6.3), in two parallel structures.
//!
//! Both versions compute, for `iters` iterations k = 0, 1, …, the 2D discrete Fourier
//! transform of the matrix `x_k(r, c)` given by [`input_value`]:
//!
//! 1. `init`: fill matrix `a` (column-major: column `c` is the contiguous slice
//!    `a[c*n .. c*n+n]`),
//! 2. `cols`: one 1D FFT (rustfft) per column of `a`,
//! 3. `transpose`: `b[c + j*n] = a[j + c*n]`, so the rows of the column-transformed matrix
//!    become contiguous,
//! 4. `rows`: one 1D FFT per contiguous row of `b`.
//!
//! Afterwards `b[k*n + l]` holds `F(k, l) = Σ_r Σ_c x(r, c) · e^{-2πi (r k + c l)/n}`
//! (row-major). Both versions return the transform of the last iteration, so the tests can
//! compare them with [`naive_dft2d`]. Before the iterations each version allocates its
//! matrices, one fragment `alloc` per matrix (DP two, TP three): the first write to a
//! fresh matrix's pages faults, some 7 ms per matrix at n = 1024 on the study's machine.
//!
//! - [`dp`]: data parallel (Crovella Fig. 3.2 / 6.7): each iteration is four parallel loops
//!   over all threads of the current rayon pool.
//! - [`tp`]: task parallel (Crovella Fig. 3.3 / 6.1): two tasks with their own pools (p/2
//!   threads each) pipelined over iterations through channels: task A does `init` + `cols` of
//!   matrix k while task B does `transpose` + `rows` of matrix k−1.
//!
//! The files `dp.rs` and `tp.rs` are also the inputs of `lcm predict` in the study: their
//! fragments are named by their `pplib::frag_scope` calls; the study passes them (see
//! [`DP_SOURCE`], [`TP_SOURCE`]) with the models fitted on `dp` (`--models`), from which
//! `tp.rs`'s rules derive its fragments' models.

pub mod dp;
pub mod tp;

use rustfft::num_complex::Complex64;
use rustfft::{Fft, FftPlanner};
use std::sync::Arc;

/// The source text of the data-parallel version, as `lcm` reads it.
pub const DP_SOURCE: &str = include_str!("dp.rs");
/// The source text of the task-parallel version, as `lcm` reads it.
pub const TP_SOURCE: &str = include_str!("tp.rs");

/// Which parallel structure of the 2D FFT to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FftImpl {
    /// Data parallel: four parallel loops per iteration over all p threads.
    Dp,
    /// Task parallel: two pipelined tasks of p/2 threads each.
    Tp,
}

impl FftImpl {
    /// The short name used on the command line and in records (`dp`, `tp`).
    pub fn name(self) -> &'static str {
        match self {
            FftImpl::Dp => "dp",
            FftImpl::Tp => "tp",
        }
    }
}

/// A planned forward 1D FFT of length n, shared by all threads.
#[derive(Clone)]
pub struct Plan {
    fft: Arc<dyn Fft<f64>>,
}

impl Plan {
    /// Plans the forward FFT of length `n` (any n ≥ 1).
    pub fn new(n: usize) -> Plan {
        Plan {
            fft: FftPlanner::new().plan_fft_forward(n),
        }
    }

    /// Transforms, in place, every contiguous length-n vector of `block`
    /// (`block.len()` must be a multiple of n).
    pub fn process(&self, block: &mut [Complex64]) {
        self.fft.process(block);
    }
}

/// Number of columns (or rows) one parallel work item handles for size n: at most 64 items
/// per parallel loop (so the instrumentation cost per loop does not grow with n) and at
/// least 2048 values per item (so an item outweighs its bookkeeping at small n).
pub fn block_cols(n: usize) -> usize {
    n.div_ceil(64)
        .max(2048usize.div_ceil(n.max(1)))
        .clamp(1, n.max(1))
}

/// The input value x_k(r, c) of iteration k at row r, column c (deterministic and cheap).
pub fn input_value(r: usize, c: usize, k: usize) -> Complex64 {
    let re = ((r * 7 + c * 13 + k * 3) % 17) as f64 - 8.0;
    let im = ((r * 5 + c * 3 + k) % 11) as f64 / 11.0 - 0.5;
    Complex64::new(re, im)
}

/// `init` kernel: fills `block`, which holds the columns `first_col..` of the column-major
/// n×n matrix of iteration k.
pub fn init_block(block: &mut [Complex64], first_col: usize, n: usize, k: usize) {
    for (j, col) in block.chunks_mut(n).enumerate() {
        let c = first_col + j;
        for (r, v) in col.iter_mut().enumerate() {
            *v = input_value(r, c, k);
        }
    }
}

/// `transpose` kernel: fills `block`, the rows `first_row..` of `b` (row j is
/// `b[j*n .. j*n+n]`), with `b[c + j*n] = a[j + c*n]`.
pub fn transpose_block(a: &[Complex64], block: &mut [Complex64], first_row: usize, n: usize) {
    let rows = block.len() / n;
    for c in 0..n {
        let src = &a[c * n + first_row..c * n + first_row + rows];
        for (j, v) in src.iter().enumerate() {
            block[j * n + c] = *v;
        }
    }
}

/// A zero n×n matrix.
pub fn zeros(n: usize) -> Vec<Complex64> {
    vec![Complex64::new(0.0, 0.0); n * n]
}

/// The reference 2D DFT of iteration k's input, by the O(n⁴) definition (tests only: small n).
/// Layout as the programs' output: `F(k, l)` at index `k*n + l`.
pub fn naive_dft2d(n: usize, k: usize) -> Vec<Complex64> {
    let mut out = zeros(n);
    let w = |e: usize| {
        let angle = -2.0 * std::f64::consts::PI * ((e % n) as f64) / n as f64;
        Complex64::new(angle.cos(), angle.sin())
    };
    for kk in 0..n {
        for l in 0..n {
            let mut s = Complex64::new(0.0, 0.0);
            for r in 0..n {
                for c in 0..n {
                    s += input_value(r, c, k) * w(r * kk + c * l);
                }
            }
            out[kk * n + l] = s;
        }
    }
    out
}

/// Largest absolute difference between two matrices of the same size.
pub fn max_abs_diff(x: &[Complex64], y: &[Complex64]) -> f64 {
    assert_eq!(x.len(), y.len(), "matrices of different sizes");
    x.iter()
        .zip(y)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max)
}

/// What one timed run of a 2D FFT version gives.
#[derive(Clone, Debug)]
pub struct FftRun {
    /// Wall-clock time of the transform loop (seconds), without building the thread pools.
    pub seconds: f64,
    /// Sum of |F(k, l)| over the last iteration's transform (to check and to keep the work).
    pub checksum: f64,
}

/// Errors of [`run`].
#[derive(Debug, thiserror::Error)]
pub enum FftError {
    /// The task-parallel version needs at least one thread per task.
    #[error("the task-parallel 2D FFT needs p >= 2 (one thread per task), got p = {0}")]
    TooFewProcessors(usize),
    /// n or iters was zero.
    #[error("n and iters must be at least 1, got n = {n}, iters = {iters}")]
    Empty {
        /// Matrix size given.
        n: usize,
        /// Iterations given.
        iters: usize,
    },
    /// A thread pool could not be built.
    #[error("building a thread pool: {0}")]
    Pool(String),
    /// The profiling session could not be started or written.
    #[error("profiling session: {0}")]
    Session(String),
}

/// Number of threads of task A and task B in the task-parallel version at p processors:
/// `(ceil(p/2), floor(p/2))`.
pub fn tp_split(p: usize) -> (usize, usize) {
    (p.div_ceil(2), p / 2)
}

fn pool(p: usize) -> Result<rayon::ThreadPool, FftError> {
    pplib::pool(p).map_err(|e| FftError::Pool(e.to_string()))
}

/// Builds the pools for version `imp` at p processors and runs `iters` iterations of the
/// n×n transform, timing the transform loop. With `log`, the run is recorded by pplib into
/// that file (p processors): for `dp` the session runs on the pool's thread that runs the
/// program; for `tp` on the calling thread, which only waits for the two tasks.
pub fn run(
    imp: FftImpl,
    n: usize,
    p: usize,
    iters: usize,
    log: Option<&std::path::Path>,
) -> Result<FftRun, FftError> {
    if n == 0 || iters == 0 {
        return Err(FftError::Empty { n, iters });
    }
    let session = |e: pplib::PplibError| FftError::Session(e.to_string());
    let (out, seconds) = match imp {
        FftImpl::Dp => {
            let pool = pool(p.max(1))?;
            pool.install(|| crate::profile::profiled(log, p, || dp::fft2d(n, iters)))
                .map_err(session)?
        }
        FftImpl::Tp => {
            if p < 2 {
                return Err(FftError::TooFewProcessors(p));
            }
            let (pa, pb) = tp_split(p);
            let (pool_a, pool_b) = (pool(pa)?, pool(pb)?);
            crate::profile::profiled(log, p, || tp::fft2d(n, iters, &pool_a, &pool_b))
                .map_err(session)?
        }
    };
    Ok(FftRun {
        seconds,
        checksum: out.iter().map(|v| v.norm()).sum(),
    })
}

/// The matrices circulating between the two tasks of [`tp`]: task A takes a free one
/// (waiting while both are in use by task B), task B gives it back after its transpose.
pub struct MatrixPool {
    tx: crossbeam_channel::Sender<Vec<Complex64>>,
    rx: crossbeam_channel::Receiver<Vec<Complex64>>,
}

impl MatrixPool {
    /// An empty pool with room for `count` matrices ([`MatrixPool::give`] them).
    pub fn with_room(count: usize) -> MatrixPool {
        let (tx, rx) = crossbeam_channel::bounded(count);
        MatrixPool { tx, rx }
    }

    /// Takes a free matrix, waiting (recorded as a channel wait) until one is given back.
    pub fn take(&self) -> Vec<Complex64> {
        pplib::wait(pplib::WaitKind::Channel, || self.rx.recv())
            .expect("the pool holds its own sender")
    }

    /// Gives a matrix (back).
    pub fn give(&self, m: Vec<Complex64>) {
        // The pool never holds more matrices than it has room for, so this never blocks.
        let _ = self.tx.try_send(m);
    }
}
