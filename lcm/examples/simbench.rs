//! Simulator throughput: runs the golden models of the PAMELA tests at sizes that take a
//! few million events and reports events per second of wall-clock time.
//!
//! `cargo run --release -p lcm --example simbench` ends with
//! `simbench: events=E seconds=S mevents_per_s=R` (target R >= 5).
use std::time::Instant;

use lcm::pamela::{self, Bindings, SimOptions};

const MRM: &str = "numeric parameter P\nnumeric parameter N\nnumeric t_l = 10\nnumeric t_s = 1\n\
resource s = fcfs(0,1)\n\
process main = par (p = 1, P) seq (i = 1, N) { delay(exp(t_l)) ; use(s, exp(t_s)) }";

const PIPELINE: &str = "numeric parameter N\nnumeric parameter M\nresource u(m) = fcfs(m, 1)\n\
process main = par (i = 1, N) seq (m = 1, M) use(u(m), 1)";

const GMRM_PS: &str = "numeric parameter P\nnumeric parameter N\nresource cpu = ps(0, 4)\nresource bus = fcfs(1, 1)\n\
process main = par (p = 1, P) seq (i = 1, N) { use(cpu, uniform(1, 3)) ; use(bus, 0.1) }";

/// (name, model text, parameter values)
type Case<'a> = (&'a str, &'a str, Vec<(&'a str, f64)>);

fn main() {
    let ring = include_str!("../tests/pamela/ring.pam");
    let cases: [Case; 4] = [
        (
            "machine repair (exp)",
            MRM,
            vec![("P", 64.0), ("N", 15000.0)],
        ),
        ("pipeline", PIPELINE, vec![("N", 2000.0), ("M", 200.0)]),
        (
            "processor sharing",
            GMRM_PS,
            vec![("P", 32.0), ("N", 10000.0)],
        ),
        ("ring", ring, vec![("P", 64.0)]),
    ];
    let mut total_events = 0u64;
    let mut total_seconds = 0.0;
    for (name, src, bind) in cases {
        let program = pamela::parse(src).expect("model parses");
        let b: Bindings = bind.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let start = Instant::now();
        let r = pamela::simulate(&program, &b, &SimOptions { runs: 2, seed: 1 })
            .expect("simulation runs");
        let s = start.elapsed().as_secs_f64();
        println!(
            "{name:<22} events={:>9} seconds={s:.3} mevents_per_s={:.2} T={:.1} T_lower={:.1}",
            r.events,
            r.events as f64 / s / 1e6,
            r.mean,
            r.t_lower
        );
        total_events += r.events;
        total_seconds += s;
    }
    println!(
        "simbench: events={total_events} seconds={total_seconds:.3} mevents_per_s={:.2}",
        total_events as f64 / total_seconds / 1e6
    );
}
