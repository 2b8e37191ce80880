//! Numeric evaluation of condition synchronization (thesis Eq. 3.1-3.3): every statement's
//! completion time is its predecessor's plus its duration; `signal(c)` records its time
//! for c; `wait(C)` completes at the maximum of its predecessor and the signal times of C.
//! Resources do not delay anything here (a `use` counts its service time): this is the
//! critical path `phi` of a non-series-parallel model, which the compiler combines with
//! the contention bound `omega`.
use super::error::PamelaError;
use super::eval::Bindings;
use super::normal::NProc;
use super::sim::{Arbitration, SimProgram};

/// Completion time of `p` by the time equations; `bindings` must give every free name.
pub(crate) fn critical_path(p: &NProc, bindings: &Bindings) -> Result<f64, PamelaError> {
    let params: Vec<String> = p.free_vars().into_iter().collect();
    let prog = SimProgram::new(p, &params)?;
    let (t, _) = prog.run(
        bindings,
        0,
        false,
        Arbitration::Fifo,
        super::DEFAULT_MAX_EVENTS,
    )?;
    Ok(t)
}
