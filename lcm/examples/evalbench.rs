//! Evaluation cost of compiled (symbolically simplified) PAMELA models: the golden models
//! of the tests, each evaluated many times at changing parameter values.
//!
//! `cargo run --release -p lcm --example evalbench` ends with
//! `evalbench: models=M ns_per_eval=X` (target X <= 1000; the compiler paper reports
//! 120 µs per evaluation of the machine repair model on a Pentium II).
use std::hint::black_box;
use std::time::Instant;

use lcm::pamela::{self, Bindings};

const MODELS: [(&str, &str); 6] = [
    (
        "machine repair",
        "numeric parameter P\nnumeric parameter N\nnumeric t_l = 10\nnumeric t_s = 0.1\nresource s = fcfs(0,1)\n\
         process main = par (p = 1, P) seq (i = 1, N) { delay(t_l) ; use(s, t_s) }",
    ),
    (
        "example 3.10",
        "numeric parameter N\nnumeric parameter P\nnumeric parameter t\nresource r(i) = fcfs(i, 1)\n\
         process main = seq (i = 1, N) par (p = 1, P) use(r(i), t)",
    ),
    (
        "pipeline",
        "numeric parameter N\nnumeric parameter M\nnumeric parameter t\nresource u(m) = fcfs(m, 1)\n\
         process main = par (i = 1, N) seq (m = 1, M) use(u(m), t)",
    ),
    (
        "generalized MRM",
        "numeric parameter P\nnumeric parameter N\nnumeric parameter tl\nnumeric parameter M\nresource u(m) = fcfs(m, 1)\n\
         process main = par (p = 1, P) seq (i = 1, N) { delay(tl) ; seq (m = 1, M) use(u(m), 2) }",
    ),
    (
        "delayed contention",
        "resource r = fcfs(0,1)\nprocess main = {delay(1) ; use(r,2)} || {delay(2) ; use(r,1)}",
    ),
    (
        "crossed resources",
        "resource r1 = fcfs(0,1)\nresource r2 = fcfs(1,1)\nprocess main = {use(r1,1) ; use(r2,99)} || {use(r1,99) ; use(r2,1)}",
    ),
];

fn main() {
    const EVALS: usize = 200_000;
    let mut total_evals = 0usize;
    let mut total_ns = 0u128;
    for (name, src) in MODELS {
        let model = pamela::parse(src)
            .expect("parses")
            .compile()
            .expect("compiles");
        assert!(
            !model.t_main().has_reductions(),
            "{name} is not in closed form"
        );
        let mut b: Bindings = model
            .parameters()
            .iter()
            .map(|p| (p.clone(), 1.0))
            .collect();
        let keys: Vec<String> = model.parameters().to_vec();
        let start = Instant::now();
        let mut acc = 0.0;
        for k in 0..EVALS {
            if let Some(key) = keys.get(k % keys.len().max(1)) {
                // large, changing values: a closed form costs the same at any size
                if let Some(v) = b.get_mut(key) {
                    *v = 1000.0 + (k % 1_000_000) as f64 * 1000.0;
                }
            }
            acc += model.eval(black_box(&b)).expect("evaluates");
        }
        let ns = start.elapsed().as_nanos();
        black_box(acc);
        println!(
            "{name:<20} T_main = {:<40} ns_per_eval={:.0}",
            model.t_main().to_string(),
            ns as f64 / EVALS as f64
        );
        total_evals += EVALS;
        total_ns += ns;
    }
    println!(
        "evalbench: models={} ns_per_eval={:.0}",
        MODELS.len(),
        total_ns as f64 / total_evals as f64
    );
}
