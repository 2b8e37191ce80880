// Fixture for lcm predict tests: data-parallel 2D FFT shaped like Crovella's Figure 6.7
// (the four parallel loops in sequence, each over all p processors), with each fragment in a
// helper function that `lcm` follows, and each helper's loop a rayon parallel iterator
// (covered by the fragment's model). Hand-written; parsed, never compiled. Same models as
// fft_tp.rs, so the two versions can be compared by hand.
use rayon::prelude::*;

fn main() {
    let n = 1024;
    // lcm: fragment setup
    // lcm: rt = 1e-3
    let mut matrices = initialize_program(n);

    for k in 0..8 {
        let a = &mut matrices[k];
        initialize(a, k);
        column_ffts(a, n);
        transpose(a, n);
        row_ffts(a, n);
    }

    print_performance();
}

fn initialize(a: &mut [f64], k: usize) {
    // lcm: fragment init
    // lcm: rt = 1e-9*n^2
    // lcm: output a
    a.par_iter_mut().for_each(|x| *x = k as f64);
}

fn column_ffts(a: &mut [f64], n: usize) {
    // lcm: fragment cols
    // lcm: rt = 4e-9*n^2
    // lcm: li = 1e-6*p
    // lcm: input a
    // lcm: output a
    a.par_chunks_mut(n).for_each(|col| fft(col));
}

fn transpose(a: &mut [f64], n: usize) {
    // lcm: fragment transpose
    // lcm: rt = 2e-9*n^2
    // lcm: input a
    // lcm: bytes = 16*n^2
    // lcm: output a
    transpose_blocks(a, n);
}

fn row_ffts(a: &mut [f64], n: usize) {
    // lcm: fragment rows
    // lcm: rt = 4e-9*n^2
    // lcm: li = 1e-6*p
    // lcm: input a
    a.par_chunks_mut(n).for_each(|row| fft(row));
}

fn initialize_program(n: usize) -> Vec<Vec<f64>> {
    vec![vec![0.0; n * n]; 8]
}

fn print_performance() {}
