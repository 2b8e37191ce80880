//! Benchmark: auto-fit 200 generated two-parameter data sets (5×5 points each) and report
//! the mean wall-clock time per fit. Last line: `fitbench: datasets=200 ms_per_fit=X`.
//!
//! Data sets: y = c0 + c1·t1(n, p) [+ c2·t2(n, p)] with terms drawn from the normal form
//! (deterministic generator, seed 7), n ∈ {16..256}, p ∈ {2..32}, 1% noise on half of them.

use lca::dataset::{DataPoint, Dataset};
use lca::search::{auto_fit, term_pool, SearchOptions};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let pool_n = term_pool(0);
    let pool_p = term_pool(1);
    let mut sets = Vec::new();
    for k in 0..200 {
        let fnn = pool_n[rng.gen_range(0..pool_n.len())];
        let fp = pool_p[rng.gen_range(0..pool_p.len())];
        let fp2 = pool_p[rng.gen_range(0..pool_p.len())];
        let (c0, c1, c2) = (
            rng.gen_range(1.0..100.0),
            rng.gen_range(0.1..10.0),
            rng.gen_range(0.1..10.0),
        );
        let product = k % 2 == 0;
        let noisy = k % 4 < 2;
        let mut pts = Vec::new();
        for &n in &[16.0, 32.0, 64.0, 128.0, 256.0] {
            for &p in &[2.0, 4.0, 8.0, 16.0, 32.0] {
                let t1 = if product {
                    fnn.eval(n) * fp.eval(p)
                } else {
                    fnn.eval(n)
                };
                let y = c0 + c1 * t1 + c2 * fp2.eval(p);
                let noise = if noisy {
                    1.0 + 0.01 * rng.gen_range(-1.0..1.0)
                } else {
                    1.0
                };
                pts.push(DataPoint {
                    x: vec![n, p],
                    y: y * noise,
                    line: 0,
                });
            }
        }
        sets.push(Dataset::new("rt", &["n", "p"], pts));
    }
    let opts = SearchOptions::default();
    let start = Instant::now();
    let mut terms = 0usize;
    for d in &sets {
        let a = auto_fit(d, &opts).expect("fit");
        terms += a.best().coefficients.len();
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / sets.len() as f64;
    println!(
        "fitted {} data sets, mean coefficients per model {:.2}",
        sets.len(),
        terms as f64 / sets.len() as f64
    );
    println!("fitbench: datasets={} ms_per_fit={:.3}", sets.len(), ms);
}
