//! Phase 3, predict: both versions predicted by `lcm` at every design point, before the
//! other version runs (the predictions are written to `predictions.txt` first), from the
//! sources, `models.lcm` and `machine.txt` alone, at the point's own variables (size, p,
//! iterations: what `lcm predict --set` binds), as `lcm predict --models models.lcm
//! --machine machine.txt --measured BASE.rs` does.

use super::fit::Fitted;
use super::Bench;
use crate::study::model::FragmentFit;
use crate::study::predict::Predictor;
use crate::study::StudyError;
use std::fmt::Write as _;

/// One design point's predictions (seconds; NaN where the version does not run or lcm
/// failed).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Planned {
    /// Size.
    pub n: u64,
    /// Processors.
    pub p: usize,
    /// Iterations.
    pub iters: u64,
    /// The other version's predicted seconds.
    pub other: f64,
    /// The base version's predicted seconds.
    pub base: f64,
}

/// What the predict phase produced.
pub struct Predictions {
    /// Every design point, sizes in order, then p.
    pub planned: Vec<Planned>,
    /// lcm's model of the other version (for per-fragment checks).
    pub other_model: Predictor,
    /// The other version's fragment models as lcm resolved them (derived by its rules).
    pub other_fits: Vec<FragmentFit>,
    /// The machine file's keys, as lcm binds them (the derived models' variables).
    pub machine_vars: Vec<(String, f64)>,
}

/// Runs the predict phase on `fitted` (see the module docs).
pub fn predict(bench: &mut Bench, fitted: &Fitted) -> Result<Predictions, StudyError> {
    let (case, design) = (bench.case, bench.design);
    let (base, other) = (&case.base, &case.other);
    let machine = Some(fitted.machine_path.as_path());
    let base_path = Some(fitted.base_path.as_path());
    let models = fitted.models_path.as_path();
    let other_model = Predictor::new(
        other.file,
        fitted.other_src,
        case.entry,
        models,
        machine,
        base_path,
    )?;
    let base_model = Predictor::new(
        base.file,
        fitted.base_src,
        case.entry,
        models,
        machine,
        base_path,
    )?;
    let other_fits = other_model.fragment_fits(&fitted.fits);
    for (model, file) in [(&other_model, other.file), (&base_model, base.file)] {
        let ws = model.warnings.iter().map(|w| format!("lcm ({file}): {w}"));
        bench.warnings.extend(ws);
    }
    let mut text = format!(
        "# lcm predictions (seconds) written before {} ran\n# {} p iters predicted_{} predicted_{}\n",
        other.name, case.size_var, other.name, base.name
    );
    let mut out = Predictions {
        planned: Vec::new(),
        machine_vars: machine_vars(bench, &fitted.machine_path),
        other_model,
        other_fits,
    };
    for &n in &design.sizes {
        let iters = (case.iterations)(n, design.target_seconds);
        for &p in &design.measured_ps {
            let vars = case.bindings(n, p, iters);
            let at = |bench: &mut Bench, model: &Predictor, file: &str| {
                model.seconds(&vars).unwrap_or_else(|e| {
                    bench
                        .warnings
                        .push(format!("lcm ({file}) at {}={n} p={p}: {e}", case.size_var));
                    f64::NAN
                })
            };
            let pb = at(bench, &base_model, base.file);
            let po = if bench.runs_other(p) {
                at(bench, &out.other_model, other.file)
            } else {
                f64::NAN
            };
            let _ = writeln!(text, "{n} {p} {iters} {po:e} {pb:e}");
            out.planned.push(Planned {
                n,
                p,
                iters,
                other: po,
                base: pb,
            });
        }
    }
    bench.write("predictions.txt", &text)?;
    bench.say("predictions written".to_string());
    Ok(out)
}

/// The keys of the machine file at `path` (none, with a warning, when it cannot be read).
fn machine_vars(bench: &mut Bench, path: &std::path::Path) -> Vec<(String, f64)> {
    match lcm::predict::machine::Machine::load(path) {
        Ok(m) => m.bindings().into_iter().collect(),
        Err(e) => {
            bench.warnings.push(format!("lcm: {e}"));
            Vec::new()
        }
    }
}
