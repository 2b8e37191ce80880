//! Running a piece of a program under an optional pplib session, timing it.

use std::path::Path;
use std::time::Instant;

/// Runs `f`, timed, inside a pplib session recording into `log` with p processors when
/// `log` is given (started on the calling thread before the clock starts, finished after it
/// stops). Returns f's result and its wall-clock seconds.
///
/// Call it on the thread that will do the serial part of the program (for a rayon program,
/// inside `pool.install`), so that this thread is counted among the p processors.
pub fn profiled<R>(
    log: Option<&Path>,
    p: usize,
    f: impl FnOnce() -> R,
) -> Result<(R, f64), pplib::PplibError> {
    let session = match log {
        Some(path) => Some(
            pplib::Session::builder()
                .path(path)
                .processors(p.max(1))
                .start()?,
        ),
        None => None,
    };
    let start = Instant::now();
    let out = f();
    let seconds = start.elapsed().as_secs_f64();
    if let Some(s) = session {
        s.finish()?;
    }
    Ok((out, seconds))
}
