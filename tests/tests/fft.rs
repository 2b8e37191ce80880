//! Correctness of both 2D FFT versions against the O(n⁴) DFT definition.

use examples::fft::{self, max_abs_diff, naive_dft2d};

fn pool(p: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(p)
        .build()
        .unwrap()
}

#[test]
fn dp_matches_naive_dft() {
    for &(n, p) in &[(8, 1), (16, 2), (12, 2), (64, 2)] {
        let got = pool(p).install(|| fft::dp::fft2d(n, 3));
        let want = naive_dft2d(n, 2);
        let err = max_abs_diff(&got, &want);
        assert!(err < 1e-9 * (n * n) as f64, "n={n} p={p}: error {err}");
    }
}

#[test]
fn tp_matches_naive_dft() {
    for &(n, iters) in &[(8, 1), (16, 3), (12, 5)] {
        let got = fft::tp::fft2d(n, iters, &pool(1), &pool(1));
        let want = naive_dft2d(n, iters - 1);
        let err = max_abs_diff(&got, &want);
        assert!(
            err < 1e-9 * (n * n) as f64,
            "n={n} iters={iters}: error {err}"
        );
    }
}

#[test]
fn iterations_differ_so_the_last_one_is_returned() {
    let a = naive_dft2d(8, 0);
    let b = naive_dft2d(8, 1);
    assert!(max_abs_diff(&a, &b) > 1.0);
}
