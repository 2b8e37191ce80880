//! Measuring a version at a design point: repeated runs under a pplib session, the fastest
//! kept, profiled with `pp` (session and every fragment, with a p = 1 baseline).

use super::case::Version;
use super::run::{Categories, Run};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// A measured point: the run (fastest repetition) and its `pp` analysis.
pub struct Measured {
    /// Time and categories.
    pub run: Run,
    /// The `pp` analysis of the fastest repetition's log (the baseline of later points when
    /// p = 1).
    pub analysis: pp::Analysis,
}

/// Errors of a measurement.
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    /// The program failed.
    #[error("{version} at n={n} p={p}: {message}")]
    Program {
        /// Version.
        version: String,
        /// Size.
        n: u64,
        /// Processors.
        p: usize,
        /// What it said.
        message: String,
    },
    /// `pp` could not profile the log.
    #[error("profiling {0}")]
    Profile(#[from] pp::PpError),
}

/// Categories of a `pp` profile as a map (only measured ones).
pub fn categories_of(profile: &pp::Profile) -> Categories {
    profile
        .categories()
        .into_iter()
        .map(|(c, v)| (c.key().to_string(), v))
        .collect()
}

/// [`measure`] with `co_runner` running on another thread for the whole measurement (started
/// before the first repetition, stopped after the last), `baseline` the lone run at p = 1.
/// Returns also the co-runner's pace beside the measurement relative to its pace alone
/// (measured just before, for [`LONE_PACE_SECONDS`]), so the caller can tell whether it
/// really ran beside the measurement (near 1, or somewhat below from sharing caches and
/// memory) or shared a core with it because other load held the other cores (1/2 or below).
#[allow(clippy::too_many_arguments)]
pub fn measure_beside(
    version: &Version,
    n: u64,
    p: usize,
    iters: u64,
    reps: usize,
    dir: &Path,
    baseline: &pp::Analysis,
    co_runner: fn(u64, &AtomicBool) -> u64,
) -> Result<(Measured, f64), MeasureError> {
    let timed = |f: &mut dyn FnMut()| {
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let start = std::time::Instant::now();
            let co = s.spawn(|| co_runner(n, &stop));
            f();
            stop.store(true, Ordering::Relaxed);
            let done = co.join().unwrap_or(0);
            done as f64 / start.elapsed().as_secs_f64().max(1e-9)
        })
    };
    let lone =
        timed(&mut || std::thread::sleep(std::time::Duration::from_secs_f64(LONE_PACE_SECONDS)));
    let mut out = None;
    let beside = timed(&mut || {
        // Let the co-runner get going (its first iteration touches fresh memory).
        std::thread::sleep(std::time::Duration::from_millis(5));
        out = Some(measure(version, n, p, iters, reps, dir, Some(baseline)));
    });
    let m = out.expect("the measurement ran")?;
    Ok((m, if lone > 0.0 { beside / lone } else { f64::NAN }))
}

/// Seconds the co-runner runs alone to set its reference pace.
pub const LONE_PACE_SECONDS: f64 = 0.2;

/// Runs `version` at (n, p, iters) `reps` times, each recorded by pplib into a log in
/// `dir`, keeps the fastest, profiles it with `pp` (with `baseline` for `pc`/`ml`).
pub fn measure(
    version: &Version,
    n: u64,
    p: usize,
    iters: u64,
    reps: usize,
    dir: &Path,
    baseline: Option<&pp::Analysis>,
) -> Result<Measured, MeasureError> {
    let mut best: Option<(f64, PathBuf)> = None;
    for rep in 0..reps.max(1) {
        let path = dir.join(format!("{}-n{}-p{}-r{}.pplog", version.name, n, p, rep));
        let seconds =
            (version.run)(n, p, iters, Some(&path)).map_err(|message| MeasureError::Program {
                version: version.name.to_string(),
                n,
                p,
                message,
            })?;
        match &best {
            Some((s, _)) if *s <= seconds => {
                let _ = std::fs::remove_file(&path);
            }
            _ => {
                if let Some((_, old)) = best.take() {
                    let _ = std::fs::remove_file(old);
                }
                best = Some((seconds, path));
            }
        }
    }
    let (seconds, path) = best.expect("at least one repetition");
    let mut analysis = pp::analyze(&path, &pp::Options::all_tags())?;
    if let Some(b) = baseline {
        analysis.apply_baseline(b);
    }
    let _ = std::fs::remove_file(&path);
    let session = categories_of(analysis.session());
    let fragments = analysis
        .profiles
        .iter()
        .filter_map(|pr| pr.tag.as_ref().map(|t| (t.clone(), categories_of(pr))))
        .collect();
    Ok(Measured {
        run: Run {
            version: version.name.to_string(),
            n,
            p,
            iters,
            seconds,
            session,
            fragments,
        },
        analysis,
    })
}
