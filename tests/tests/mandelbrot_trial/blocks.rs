//! Mandelbrot set on an n x n grid, version `blocks`: the rows cut into p contiguous
//! blocks, one rayon item per block (a static partition). The window lies off centre in
//! y, so that the rows crossing the set (which iterate up to the limit) fall mostly into
//! the first block: load imbalance at p > 1.
//! Usage: blocks -n N [-p P] [--iters I]; prints time_s=SECONDS (inside the session).

use pplib::prelude::*;

const MAX_ITER: u32 = 256;
const X0: f64 = -2.2;
const X1: f64 = 0.8;
const Y0: f64 = -0.4;
const Y1: f64 = 1.6;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().expect("a whole number"))
        .unwrap_or(default)
}

/// Escape counts of row y of the n x n grid into `out` (n values).
fn row(y: usize, n: usize, out: &mut [u32]) {
    let ci = Y0 + (Y1 - Y0) * (y as f64 + 0.5) / n as f64;
    for (x, o) in out.iter_mut().enumerate() {
        let cr = X0 + (X1 - X0) * (x as f64 + 0.5) / n as f64;
        let (mut zr, mut zi, mut k) = (0.0f64, 0.0f64, 0);
        while k < MAX_ITER && zr * zr + zi * zi <= 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            k += 1;
        }
        *o = k;
    }
}

fn main() {
    let n = arg("-n", 512);
    let p = arg("-p", 1);
    let iters = arg("--iters", 1);
    let mut img = vec![0u32; n * n];
    let secs = pplib::run(p, || {
        let start = std::time::Instant::now();
        let block_rows = n.div_ceil(p);
        // lcm: iterations = iters
        for _ in 0..iters {
            pplib::frag_scope("image", || {
                img.par_chunks_mut(block_rows * n)
                    .enumerate()
                    .pp_for_each(|(b, block)| {
                        for (r, out) in block.chunks_mut(n).enumerate() {
                            row(b * block_rows + r, n, out);
                        }
                    })
            });
        }
        start.elapsed().as_secs_f64()
    })
    .expect("pplib session");
    let inside: usize = img.iter().filter(|&&k| k == MAX_ITER).count();
    println!("n={n} p={p} iters={iters} inside={inside} time_s={secs}");
}
