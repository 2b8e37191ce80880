//! The noisy single-term data of the noise acceptance case, shared by the verification test and
//! the `noisesweep` example: `y = (200 + 10·f(p))·(1 + 0.02·u)`, `u` uniform in [-1, 1) from
//! `rng`, 3 repetitions at each p in [`PS`].

use lca::dataset::{DataPoint, Dataset};
use lca::search::Factor;
use rand::Rng;

/// The fitted values of p.
pub const PS: [f64; 5] = [2.0, 4.0, 8.0, 16.0, 32.0];

/// The exact (noise-free) value of the case of term `f` at `p`.
pub fn exact(f: &Factor, p: f64) -> f64 {
    200.0 + 10.0 * f.eval(p)
}

/// One data set of the case of term `f`.
pub fn noisy_case(f: &Factor, rng: &mut impl Rng) -> Dataset {
    let mut pts = Vec::new();
    for &p in &PS {
        for _ in 0..3 {
            let noise = 1.0 + 0.02 * rng.gen_range(-1.0..1.0);
            pts.push(DataPoint {
                x: vec![p],
                y: exact(f, p) * noise,
                line: 0,
            });
        }
    }
    Dataset::new("rt", &["p"], pts)
}
