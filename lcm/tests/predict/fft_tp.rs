// Fixture for lcm predict tests: task-parallel 2D FFT shaped like Crovella's Figure 6.1
// (two parallel sections, the second consuming what the first produces, iteration by
// iteration, through a channel). Hand-written; it is parsed, never compiled. The models are
// round numbers (processor-seconds) so the predictions can be computed by hand:
//   init = 1e-9*n^2, cols = 4e-9*n^2, transpose = 2e-9*n^2, rows = 4e-9*n^2 (+ li = 1e-6*p
//   for the FFTs), per execution. Expected tree: tests/predict/snapshots (tree of Fig. 6.3).
use std::sync::mpsc::channel;

fn main() {
    let n = 1024;
    // lcm: fragment setup
    // lcm: rt = 1e-3
    let mut matrices = initialize_program(n);

    let (tx, rx) = channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            for k in 0..8 {
                let mut a = matrices.pop().unwrap();
                // lcm: fragment init
                // lcm: rt = 1e-9*n^2
                // lcm: output a
                initialize(&mut a, k);
                // lcm: fragment cols
                // lcm: rt = 4e-9*n^2
                // lcm: li = 1e-6*p
                // lcm: input a
                // lcm: output a
                column_ffts(&mut a, n);
                tx.send(a).unwrap();
            }
        });
        s.spawn(move || {
            for mut a in rx {
                // lcm: fragment transpose
                // lcm: rt = 2e-9*n^2
                // lcm: input a
                // lcm: bytes = 16*n^2
                // lcm: output a
                transpose(&mut a, n);
                // lcm: fragment rows
                // lcm: rt = 4e-9*n^2
                // lcm: li = 1e-6*p
                // lcm: input a
                row_ffts(&mut a, n);
            }
        });
    });

    print_performance();
}

fn initialize_program(n: usize) -> Vec<Vec<f64>> {
    vec![vec![0.0; n * n]; 8]
}
