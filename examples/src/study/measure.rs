//! Measuring a version at a design point: repeated runs under a pplib session, the fastest
//! kept, profiled with `pp` (session and every fragment, with a p = 1 baseline).

use super::case::Version;
use super::run::{Categories, Run};
use std::path::{Path, PathBuf};

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
