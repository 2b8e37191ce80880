//! Phase 2, fit: every fragment's categories fitted by `lca`'s automatic search
//! ([`crate::study::fit`]; overheads that vanish at p = 1 as `(p - 1) * f`, as `lca model
//! --all-tags` fits them) and the machine file calibrated ([`calibrate_machine`], as `lcm
//! calibrate`): the sources derive their fragments' models from `models.lcm` and the
//! machine file's keys by the rules written in them (docs/models.md, "Derived models";
//! docs/machine.md), with nothing the study measures itself.

use super::measure::Measurement;
use super::Bench;
use crate::study::calibrate::calibrate_machine;
use crate::study::model::FragmentFit;
use crate::study::{fit as lca_fit, StudyError};
use std::path::PathBuf;

/// What the fit phase produced.
pub struct Fitted {
    /// The fitted models of the measured fragments.
    pub fits: Vec<FragmentFit>,
    /// The base version's source.
    pub base_src: &'static str,
    /// The other version's source.
    pub other_src: &'static str,
    /// The fitted models (`models.lcm`), which both sources' fragments take or derive from.
    pub models_path: PathBuf,
    /// The machine file (`lcm calibrate`'s prices).
    pub machine_path: PathBuf,
    /// Where the base version's source was written.
    pub base_path: PathBuf,
}

/// Runs the fit phase on `measured` (see the module docs) and writes `models.lcm`,
/// `machine.txt` and both sources.
pub fn fit(bench: &mut Bench, measured: &Measurement) -> Result<Fitted, StudyError> {
    let case = bench.case;
    let (base, other) = (&case.base, &case.other);
    // The per-execution records file as `lca model -f dp-per-execution.pp` reads it.
    let source = format!("{}-per-execution.pp", base.name);
    let variables = vec![case.size_var.to_string(), "p".to_string()];
    let lca_fit::Fitted {
        fits,
        models_text,
        notes,
    } = lca_fit::fit_fragments(&measured.per_execution, &source, &variables)?;
    bench
        .warnings
        .extend(notes.into_iter().map(|n| format!("lca: {n}")));
    let models_path = bench.write("models.lcm", &models_text)?;
    bench.say(format!("fitted {} fragments", fits.len()));
    let (machine, calibration_warnings) = calibrate_machine(bench.cfg.quick);
    bench.warnings.extend(
        calibration_warnings
            .into_iter()
            .map(|w| format!("lcm calibrate: {w}")),
    );
    let machine_path = bench.write("machine.txt", &machine.to_text())?;
    bench.say(format!(
        "machine: latency {:.3e} s, bandwidth {:.3e} B/s",
        machine.latency_s, machine.bandwidth_bytes_per_s
    ));
    // Both sources as they are: their fragments take the fitted models (models.lcm) or derive
    // theirs from them and the machine file by the rules written in them.
    let (other_src, base_src) = (other.source, base.source);
    bench.write(other.file, other_src)?;
    let base_path = bench.write(base.file, base_src)?;
    Ok(Fitted {
        fits,
        base_src,
        other_src,
        models_path,
        machine_path,
        base_path,
    })
}
