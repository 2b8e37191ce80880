//! Phase 2, fit: every fragment's categories fitted by `lca`'s automatic search
//! ([`crate::study::fit`]; overheads that vanish at p = 1 as `(p - 1) * f`), the machine's
//! communication prices and the case's kernel prices calibrated, each version's models
//! derived with the case's structural rules ([`crate::study::case::Case::version_fits`])
//! and written into copies of both sources ([`crate::study::annotate`]).

use super::measure::Measurement;
use super::Bench;
use crate::study::calibrate::{self, calibrate_machine};
use crate::study::case::KernelPrices;
use crate::study::model::FragmentFit;
use crate::study::{annotate, fit as lca_fit, StudyError};
use std::path::PathBuf;

/// What the fit phase produced.
pub struct Fitted {
    /// The fitted models of the measured fragments.
    pub fits: Vec<FragmentFit>,
    /// The base version's models.
    pub base_fits: Vec<FragmentFit>,
    /// The other version's models.
    pub other_fits: Vec<FragmentFit>,
    /// The case's kernel prices, when it has a microbenchmark.
    pub kernels: Option<KernelPrices>,
    /// The base version's annotated source.
    pub base_src: String,
    /// The other version's annotated source.
    pub other_src: String,
    /// The machine file (`lcm calibrate`'s prices).
    pub machine_path: PathBuf,
    /// Where the base version's annotated source was written.
    pub base_path: PathBuf,
}

/// Runs the fit phase on `measured` (see the module docs) and writes `models.lcm`,
/// `machine.txt` and both annotated sources.
pub fn fit(bench: &mut Bench, measured: &Measurement) -> Result<Fitted, StudyError> {
    let case = bench.case;
    let (base, other) = (&case.base, &case.other);
    let records = lca::record::parse_records(&measured.per_execution)
        .map_err(|e| StudyError::Records(e.to_string()))?;
    let variables = vec![case.size_var.to_string(), "p".to_string()];
    let (fits, notes) = lca_fit::fit_fragments(
        &records,
        &format!("{}-per-execution.pp", base.name),
        &variables,
    )?;
    bench
        .warnings
        .extend(notes.into_iter().map(|n| format!("lca: {n}")));
    let models_text: String = fits
        .iter()
        .map(|f| f.model().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    bench.write("models.lcm", &models_text)?;
    bench.say(format!("fitted {} fragments", fits.len()));
    // Each version's fragment models: the structural rules of the case (per loop iteration,
    // locks per shard) and, for the other version's tasks that share the machine, the
    // co-run slowdown.
    let machine = calibrate_machine(bench.cfg.quick);
    let machine_path = bench.write("machine.txt", &machine.to_text())?;
    bench.say(format!(
        "machine: latency {:.3e} s, bandwidth {:.3e} B/s",
        machine.latency_s, machine.bandwidth_bytes_per_s
    ));
    let wait = bench.repeats.wait / 3;
    let kernels = calibrate::kernel_prices(case, bench.cfg.quick, &mut bench.gate, wait);
    if let Some(k) = &kernels {
        bench.say(format!(
            "kernels: {} {:.2} ns/key, {} {:.2} ns/key alone and {:.2} ns/key (processor time) on two threads at once",
            base.name,
            1e9 * k.base_key_s,
            other.name,
            1e9 * k.other_key_s,
            1e9 * k.concurrent_key_s
        ));
    }
    let (base_fits, other_fits) = case.version_fits(&fits, &measured.co_run, kernels.as_ref());
    let base_models: Vec<_> = base_fits.iter().map(FragmentFit::model).collect();
    let other_models: Vec<_> = other_fits.iter().map(FragmentFit::model).collect();
    let (other_src, missing_other) = annotate::annotate(other.source, &other_models);
    let (base_src, missing_base) = annotate::annotate(base.source, &base_models);
    for m in missing_other.iter().chain(&missing_base) {
        bench.warnings.push(format!(
            "fragment {m} has no fitted model (not measured in {})",
            base.name
        ));
    }
    bench.write(other.file, &other_src)?;
    let base_path = bench.write(base.file, &base_src)?;
    Ok(Fitted {
        fits,
        base_fits,
        other_fits,
        kernels,
        base_src,
        other_src,
        machine_path,
        base_path,
    })
}
