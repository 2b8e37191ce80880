//! The design of a study: which sizes and processor counts are measured, how many
//! iterations and repetitions each run gets.

/// Which program the study is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramKind {
    /// 2D FFT: measure data parallel (DP), predict task parallel (TP).
    Fft,
    /// n-queens: measure loop parallelism, predict tree parallelism.
    Queens,
    /// Histogram: measure the single-lock version, predict the sharded one.
    Histogram,
}

impl ProgramKind {
    /// Parses `fft`, `queens` or `histogram`.
    pub fn parse(s: &str) -> Option<ProgramKind> {
        match s {
            "fft" => Some(ProgramKind::Fft),
            "queens" => Some(ProgramKind::Queens),
            "histogram" => Some(ProgramKind::Histogram),
            _ => None,
        }
    }

    /// The name accepted by [`ProgramKind::parse`].
    pub fn name(self) -> &'static str {
        match self {
            ProgramKind::Fft => "fft",
            ProgramKind::Queens => "queens",
            ProgramKind::Histogram => "histogram",
        }
    }
}

/// The measurement plan of a study.
#[derive(Clone, Debug, PartialEq)]
pub struct Design {
    /// Values of the size variable (`n`), increasing.
    pub sizes: Vec<u64>,
    /// Processor counts the measured version runs at (1 first: the baseline).
    pub measured_ps: Vec<usize>,
    /// Processor counts the predicted version runs at.
    pub predicted_ps: Vec<usize>,
    /// Repetitions per thing measured at a point (up to three times as many while the
    /// phase's budget lasts); the fastest quiet one is kept (the machine may be shared).
    pub reps: usize,
    /// Target run time per run (seconds at p = 1) from which the iterations are chosen.
    pub target_seconds: f64,
    /// Longest wait for other load to pass before a point (seconds).
    pub point_wait: f64,
    /// Longest wait for other load over the whole study (seconds): what keeps a study on
    /// a busy machine within its time limit.
    pub wait_budget: f64,
    /// Seconds each measuring phase (calibration, validation) may take before it stops
    /// adding rounds of repetitions (after a few: [`super::measure::MIN_ROUNDS`]).
    pub phase_budget: f64,
}

impl Design {
    /// The design for `program` on a machine with `cores` cores; `quick` keeps the smallest
    /// sizes and shorter runs.
    pub fn new(program: ProgramKind, quick: bool, cores: usize) -> Design {
        let cores = cores.max(2);
        let all_ps: Vec<usize> = (1..=cores).collect();
        let (sizes, predicted_ps): (Vec<u64>, Vec<usize>) = match program {
            ProgramKind::Fft if quick => (vec![64, 128, 256], (2..=cores).collect()),
            ProgramKind::Fft => (vec![64, 128, 256, 512, 1024], (2..=cores).collect()),
            ProgramKind::Queens if quick => (vec![10, 1_000, 73_712], all_ps.clone()),
            ProgramKind::Queens => (
                vec![1, 10, 100, 1_000, 10_000, 30_000, 73_712],
                all_ps.clone(),
            ),
            // At least 2^18 keys (some 10 ms at p = 1): shorter runs are too short to time
            // on a shared machine, or to tell whether other load disturbed them.
            ProgramKind::Histogram if quick => (vec![1 << 18, 1 << 20], all_ps.clone()),
            ProgramKind::Histogram => (
                vec![1 << 18, 1 << 19, 1 << 20, 1 << 21, 1 << 22],
                all_ps.clone(),
            ),
        };
        Design {
            sizes,
            measured_ps: all_ps,
            predicted_ps,
            reps: if quick { 15 } else { 21 },
            target_seconds: if quick { 0.08 } else { 0.2 },
            point_wait: if quick { 3.0 } else { 6.0 },
            wait_budget: if quick { 40.0 } else { 240.0 },
            phase_budget: if quick { 35.0 } else { 150.0 },
        }
    }
}

/// Iterations of the 2D FFT at size n so one run at p = 1 takes about `target` seconds
/// (≈ 1.5 ns per n²·log2 n per iteration on a current core), between 4 and 16384.
pub fn fft_iterations(n: u64, target: f64) -> u64 {
    let n = n.max(2) as f64;
    let per_iter = 1.5e-9 * n * n * n.log2();
    ((target / per_iter).round() as u64).clamp(4, 16384)
}

/// Seconds one count of n-queens costs at p = 1 beyond its search: the parallel loops' fork
/// and join and one pplib task per work item (the loop version at k = 1 on the study's board,
/// recorded by pplib; the tree version, with a task per item of the whole board, pays some
/// 4 times more there).
const QUEENS_SECONDS_PER_COUNT: f64 = 2e-6;
/// Seconds per placement tried by the search (recorded by pplib, on a current core).
const QUEENS_SECONDS_PER_NODE: f64 = 11e-9;
/// Most repetitions of a count: at k = 1 (a few hundred placements) the tree version's
/// fixed costs then make a run of some 0.4 s and a log of some 20 MB.
const QUEENS_MAX_ITERATIONS: u64 = 50_000;

/// Repetitions of the whole count of the first k solutions on the study's board
/// ([`super::case::QUEENS_BOARD`]) so one run at p = 1 takes about `target` seconds, between
/// 1 and 50 000. The cost of one count is estimated from the placements the serial search
/// tries to find the first k solutions ([`crate::queens::serial_work`]), a property of the
/// input, so the choice is the same every time the study asks.
pub fn queens_iterations(k: u64, target: f64) -> u64 {
    let nodes = crate::queens::serial_work(super::case::QUEENS_BOARD, k) as f64;
    let per_count = QUEENS_SECONDS_PER_COUNT + QUEENS_SECONDS_PER_NODE * nodes;
    ((target / per_count).round() as u64).clamp(1, QUEENS_MAX_ITERATIONS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fft_design_on_two_cores() {
        let d = Design::new(ProgramKind::Fft, false, 2);
        assert_eq!(d.sizes, vec![64, 128, 256, 512, 1024]);
        assert_eq!(d.measured_ps, vec![1, 2]);
        assert_eq!(d.predicted_ps, vec![2]);
        let q = Design::new(ProgramKind::Fft, true, 16);
        assert_eq!(q.sizes, vec![64, 128, 256]);
        assert_eq!(q.measured_ps.len(), 16);
        assert_eq!(q.predicted_ps.first(), Some(&2));
    }

    #[test]
    fn queens_iterations_shrink_with_k_and_stay_in_range() {
        assert!(queens_iterations(1_000, 0.25) < queens_iterations(10, 0.25));
        assert!(queens_iterations(14_200, 0.25) <= queens_iterations(1_000, 0.25));
        assert_eq!(queens_iterations(1, 1000.0), QUEENS_MAX_ITERATIONS);
        assert_eq!(queens_iterations(u64::MAX, 1e-6), 1);
    }

    #[test]
    fn iterations_shrink_with_n_and_stay_in_range() {
        assert!(fft_iterations(1024, 0.25) < fft_iterations(256, 0.25));
        assert_eq!(fft_iterations(64, 100.0), 16384);
        assert_eq!(fft_iterations(4096, 0.001), 4);
    }
}
