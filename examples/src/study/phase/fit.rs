//! Phase 2, fit: every fragment's categories fitted by `lca`'s automatic search
//! ([`crate::study::fit`]; overheads that vanish at p = 1 as `(p - 1) * f`), the machine's
//! communication prices and the case's kernel prices calibrated, and the variables of the
//! rules written in both versions' sources bound ([`crate::study::case::rule_vars`]): the
//! sources derive their fragments' models from `models.lcm` themselves (docs/models.md,
//! "Derived models").

use super::measure::Measurement;
use super::Bench;
use crate::study::calibrate::{self, calibrate_machine};
use crate::study::case;
use crate::study::case::KernelPrices;
use crate::study::model::FragmentFit;
use crate::study::{fit as lca_fit, StudyError};
use std::path::PathBuf;

/// What the fit phase produced.
pub struct Fitted {
    /// The fitted models of the measured fragments.
    pub fits: Vec<FragmentFit>,
    /// The values of the variables the sources' rules use (co-run slowdowns, kernel prices).
    pub rules: Vec<(String, f64)>,
    /// The case's kernel prices, when it has a microbenchmark.
    pub kernels: Option<KernelPrices>,
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
    // The records as lca reads them from the per-execution file (line 1 is its header).
    let records = lca::record::from_profile_records(2, &measured.per_execution_records);
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
    let models_path = bench.write("models.lcm", &models_text)?;
    bench.say(format!("fitted {} fragments", fits.len()));
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
    // Both sources as they are: their fragments take the fitted models (models.lcm) or derive
    // theirs from them by the rules written in them; the study binds the rules' variables.
    let fragment_names: Vec<String> = fits.iter().map(|f| f.name.clone()).collect();
    let rules = case::rule_vars(
        case,
        &fragment_names,
        &measured.co_run,
        kernels.as_ref(),
        &mut bench.warnings,
    );
    let (other_src, base_src) = (other.source, base.source);
    bench.write(other.file, other_src)?;
    let base_path = bench.write(base.file, base_src)?;
    Ok(Fitted {
        fits,
        rules,
        kernels,
        base_src,
        other_src,
        models_path,
        machine_path,
        base_path,
    })
}
