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
        Ok(p) => {
            reads_back(&p);
            p
        }
        Err(e) => panic!("{e}"),
    }
}

/// The composed model's text (what `lcm predict --pamela` prints) parses to the program
/// that was compiled, places in the text aside.
fn reads_back(p: &Program) {
    use lcm::pamela::{parse, Decl, DeclKind, NameRef, Proc, ResourceDef, Span};
    fn names(v: &mut [NameRef]) {
        v.iter_mut().for_each(|r| r.span = Span::default());
    }
    fn proc(p: &mut Proc) {
        match p {
            Proc::Use(v, _) | Proc::Wait(v) | Proc::Signal(v) => names(v),
            Proc::Call(r) => names(std::slice::from_mut(r)),
            Proc::Seq(v) | Proc::Par(v) => v.iter_mut().for_each(proc),
            Proc::Loop { body, .. } => proc(body),
            Proc::If(_, a, b) => {
                proc(a);
                if let Some(b) = b {
                    proc(b);
                }
            }
            Proc::Delay(_) | Proc::Nil => {}
        }
    }
    fn placeless(decls: &[Decl]) -> Vec<Decl> {
        let mut v = decls.to_vec();
        for d in &mut v {
            d.span = Span::default();
            match &mut d.kind {
                DeclKind::Process(p) => proc(p),
                DeclKind::Resource(ResourceDef::Alias(r)) => names(std::slice::from_mut(r)),
                _ => {}
            }
        }
        v
    }
    let parsed = parse(&p.model.text).unwrap_or_else(|e| panic!("{e}\n{}", p.model.text));
    assert_eq!(
        placeless(parsed.decls()),
        placeless(p.model.program.decls()),
        "{}",
        p.model.text
    );
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
