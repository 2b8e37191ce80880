//! The machine file the study predicts with: lcm's calibration library, as `lcm calibrate`
//! runs it, so the study predicts with the same file a user's `lcm calibrate` writes.

/// The machine file, made by lcm's calibration library ([`lcm::calibrate`]: its kernels and
/// its rule, the median of the quiet repetitions; `quick`:
/// [`lcm::calibrate::CalibrateOptions::quick`], as `lcm calibrate --quick`), and the
/// calibration's warnings (what `lcm calibrate` prints as `warning:` lines: a price no
/// repetition measured, repetitions far apart, a key left out).
pub fn calibrate_machine(quick: bool) -> (lcm::predict::machine::Machine, Vec<String>) {
    use lcm::calibrate::{calibrate, CalibrateOptions};
    let opts = if quick {
        CalibrateOptions::quick()
    } else {
        CalibrateOptions::full()
    };
    let calibration = calibrate(&opts);
    let mut machine = calibration.machine;
    machine.origin = format!("the study, with {}", machine.origin);
    (machine, calibration.warnings)
}
