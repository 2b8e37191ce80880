//! The replay of the three studies (2D FFT, n-queens, histogram) a `study --cores 16` run
//! left on a 16-core host, one fixture directory per day (`tests/tests/device16_DATE/`,
//! whose README says where and how it was measured). Each day's test file names its
//! fixture and its constants ([`Day`]) and the [`Bounds`] each program's replay must keep,
//! and calls [`fft::fft_replay`], [`queens::queens_replay`] and
//! [`histogram::histogram_replay`].
//!
//! A fixture holds, per program (`fft/`, `queens/`, `histogram/`), the study's per-point
//! JSON array (`points.json`), the machine file it calibrated on the host (`machine.txt`)
//! and the measured version's records per execution (`dp-per-execution.pp`,
//! `loop-per-execution.pp`, `locked-per-execution.pp`); `fft/` also the "Fragments of
//! `tp`" table of the study's report (`tp-fragments.md`). The sources are today's
//! `examples/src/`.
//!
//! Each replay prints its per-point table, how far it lies from the study's own
//! predictions, a diagnostic line with the host's speed drift between the study's phases
//! taken out of the errors ([`drift`]), and last `replay16-PROGRAM: points=N
//! mean_err_pct=X max_err_pct=Y ranking_correct=K/N decisive=A/B`; it panics when a number
//! is worse than its bound.

pub mod drift;
pub mod fft;
pub mod histogram;
pub mod queens;
pub mod replayed;

pub use fft::fft_replay;
pub use histogram::histogram_replay;
pub use queens::queens_replay;

use std::path::{Path, PathBuf};

/// One day's fixture and the constants its studies ran with.
#[derive(Debug, Clone, Copy)]
pub struct Day {
    /// The fixture directory, relative to the `tests` crate (`tests/device16_2026_11_27`).
    pub fixture: &'static str,
    /// The board the queens study searched (the study's `QUEENS_BOARD` when it ran).
    pub queens_board: u32,
    /// The histogram's shard count when the study ran (the sharded source's `SHARDS`).
    pub histogram_shards: f64,
}

impl Day {
    /// The fixture's file `name` of `program` (`fft`, `queens`, `histogram`).
    pub fn file(&self, program: &str, name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(self.fixture)
            .join(program)
            .join(name)
    }
}

/// Today's annotated source `examples/src/DIR/FILE`.
pub fn example_source(dir: &str, file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/src")
        .join(dir)
        .join(file)
}

/// Bounds of one program's replay: the replayed values with ~10 % room.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// The study's points: a fact of the data.
    pub points: usize,
    /// Largest mean |error| of the predicted version, percent.
    pub mean_err_pct: f64,
    /// Largest |error| of the predicted version at any point, percent.
    pub max_err_pct: f64,
    /// Fewest points ranked right.
    pub ranking_min: usize,
    /// Fewest decisive points ranked right.
    pub decisive_min: usize,
    /// The decisive points (points that were not measured ties): a fact of the data.
    pub decisive: usize,
    /// Largest mean |error| of the measured version, percent.
    pub base_mean_err_pct: f64,
}

/// Panics when the replay's score is worse than `b`, or when the drift diagnostic
/// ([`drift::drift_scaled`]) is not finite where the points have calibration times.
pub fn check(r: &replayed::Replayed, b: &Bounds) {
    let s = &r.score;
    if let Some(d) = drift::drift_scaled(&r.points, &r.other_s(), &r.base) {
        let all = [d.median_ratio, d.other_mean_err_pct, d.base_mean_err_pct];
        assert!(all.iter().all(|v| v.is_finite()), "{d:?}");
    }
    assert!(s.mean_err_pct <= b.mean_err_pct, "{s:?}");
    assert!(s.max_err_pct <= b.max_err_pct, "{s:?}");
    assert!(s.ranking >= b.ranking_min, "{s:?}");
    assert!(
        s.decisive_right >= b.decisive_min && s.decisive == b.decisive,
        "{s:?}"
    );
    assert!(s.base_mean_err_pct <= b.base_mean_err_pct, "{s:?}");
}
