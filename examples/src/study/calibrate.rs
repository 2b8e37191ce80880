//! The machine file the study predicts with: lcm's calibration library, as `lcm calibrate`
//! runs it, so the study predicts with the same file a user's `lcm calibrate` writes.

/// The machine file, made by lcm's calibration library ([`lcm::calibrate`]: its kernels and
/// its rule, the median of the quiet repetitions; `quick`:
/// [`lcm::calibrate::CalibrateOptions::quick`], as `lcm calibrate --quick`).
pub fn calibrate_machine(quick: bool) -> lcm::predict::machine::Machine {
    use lcm::calibrate::{calibrate, CalibrateOptions};
    let opts = if quick {
        CalibrateOptions::quick()
    } else {
        CalibrateOptions::full()
    };
    let mut machine = calibrate(&opts).machine;
    machine.origin = format!("the study, with {}", machine.origin);
    machine
}
