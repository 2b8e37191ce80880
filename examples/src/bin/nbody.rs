//! Measures the two n-body parallelizations ([`examples::nbody`]) for real and sets the
//! measured ratio beside `lcm compare`'s prediction from their annotated sources.

use anyhow::{Context, Result};
use clap::Parser;
use examples::nbody::{self, Body};
use lcm::predict::{PredictOptions, Program};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Parser)]
#[command(
    about = "Time one n-body step parallel over the bodies (outer) and as n parallel fold/reduces (reduce); compare with lcm's prediction",
    after_help = "Examples:\n  nbody\n  nbody -n 1000 -p 2 --machine machine.txt --reps 9\n\nWithout --machine the machine file is measured first (lcm calibrate, the full calibration: about 10 s on 2 cores; the quick one keeps too few warm-up calls for the price of a parallel-iterator call to be stable).\nThe last line is: nbody: n=N p=P pair_s=S outer_s=A reduce_s=B measured_ratio=R predicted_ratio=Q"
)]
struct Cli {
    /// Bodies.
    #[arg(short, default_value_t = 1000)]
    n: usize,
    /// Processors (rayon pool threads).
    #[arg(short, default_value_t = 2)]
    p: usize,
    /// Timed steps per version (the median is kept).
    #[arg(long, default_value_t = 9)]
    reps: usize,
    /// Machine file for the prediction (`lcm calibrate`).
    #[arg(long)]
    machine: Option<PathBuf>,
}

/// Median seconds of `reps` runs of `f` (after one untimed run).
fn median_time(reps: usize, mut f: impl FnMut() -> Vec<Body>) -> f64 {
    std::hint::black_box(f());
    let mut t: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            let s = Instant::now();
            std::hint::black_box(f());
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let bodies = nbody::bodies(cli.n);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(cli.p).build()?;
    // One pair interaction: the outer version on one thread over n^2 pairs.
    let serial = median_time(cli.reps, || one.install(|| nbody::outer::step(&bodies)));
    let pair_s = serial / (cli.n * cli.n) as f64;
    let outer = median_time(cli.reps, || pool.install(|| nbody::outer::step(&bodies)));
    let reduce = median_time(cli.reps, || pool.install(|| nbody::reduce::step(&bodies)));
    let machine = match &cli.machine {
        Some(m) => m.clone(),
        None => {
            let c = lcm::calibrate::calibrate(&lcm::calibrate::CalibrateOptions::full());
            let path = std::env::temp_dir().join("nbody-machine.txt");
            std::fs::write(&path, c.machine.to_text())?;
            path
        }
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/nbody");
    let opts = PredictOptions {
        entry: "step".into(),
        machine: Some(machine),
        ..PredictOptions::default()
    };
    let at = BTreeMap::from([
        ("n".to_string(), cli.n as f64),
        ("p".to_string(), cli.p as f64),
    ]);
    let predict = |file: &str| -> Result<f64> {
        let prog = Program::load(&dir.join(file), &opts).context(file.to_string())?;
        Ok(prog.predict(&at)?.seconds)
    };
    let (pa, pb) = (predict("outer.rs")?, predict("reduce.rs")?);
    println!("pair interaction on one thread: {pair_s:.3e} s (the sources' models say 1.3e-9)");
    println!("measured: outer {outer:.4e} s, reduce {reduce:.4e} s");
    println!("predicted: outer {pa:.4e} s, reduce {pb:.4e} s");
    println!(
        "nbody: n={} p={} pair_s={pair_s:.3e} outer_s={outer:.4e} reduce_s={reduce:.4e} measured_ratio={:.2} predicted_ratio={:.2}",
        cli.n,
        cli.p,
        reduce / outer,
        pb / pa
    );
    Ok(())
}
