//! One test per composition rule of `lcm predict`, each on a small inline source (the
//! fixture) with the expected time computed by hand in the comment above the assertion.
//! Models are constants or simple formulas in processor-seconds, so the arithmetic is short.
//! One module per concept; the helpers below are shared.

mod communication;
mod contention;
mod errors;
mod pipelines;
mod structure;
mod synchronization;

use lcm::predict::{PredictError, PredictOptions, Prediction, Program};
use std::collections::BTreeMap;

fn at(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn program(src: &str) -> Program {
    match Program::from_source("t.rs", src, &PredictOptions::default()) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

fn predict(src: &str, pairs: &[(&str, f64)]) -> Prediction {
    match program(src).predict(&at(pairs)) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

fn close(got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1e-12),
        "got {got}, want {want}"
    );
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Two tasks of a join (structure, errors and communication tests).
const JOIN: &str = r#"
fn main() {
    rayon::join(
        || {
            // lcm: fragment big
            // lcm: rt = 8
            big();
        },
        || {
            // lcm: fragment small
            // lcm: rt = 4
            small();
        },
    );
}
"#;

/// A producer/consumer chain over a channel (pipeline and error tests).
const PIPE: &str = r#"
use std::sync::mpsc::channel;
fn main() {
    let (tx, rx) = channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            for k in 0..4 {
                // lcm: fragment produce
                // lcm: rt = A
                let item = produce(k);
                tx.send(item).unwrap();
            }
        });
        s.spawn(move || {
            for item in rx {
                // lcm: fragment consume
                // lcm: rt = B
                consume(item);
            }
        });
    });
}
"#;
