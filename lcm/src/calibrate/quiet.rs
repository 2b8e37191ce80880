//! The repetition rule of `lcm calibrate`: every number is the **median of the quiet
//! repetitions** of its kernel.
//!
//! A repetition is *quiet* when, while it ran, other processes (and, in a virtual machine,
//! the host: steal time) took less than [`QUIET_SHARE`] of all processors' time, as the
//! kernel's counters say (`/proc/stat` for the machine, `/proc/self/stat` for this process
//! with all its threads). Counters tick every 10 ms, so a repetition too short for a tick,
//! or a system without `/proc`, gives no verdict: such a repetition counts as quiet (it is
//! reported as `unknown`). The median of the quiet repetitions is kept; when none was quiet
//! the median of all of them is kept and the summary says so (`quiet = 0`), so a number
//! measured on a busy machine is never passed off as a quiet one.
//!
//! The median, not the least: a kernel whose repetitions settle in one of several honest
//! states (a waiting thread that catches the hand-off spinning in some, sleeping in others)
//! should give the usual state, not the rarest.

/// Largest share of the machine that other load may take during a repetition for it to
/// count as quiet (one 10 ms tick of a 2-core machine over 0.17 s).
pub const QUIET_SHARE: f64 = 0.03;

/// Watches the other load on the machine during one repetition.
pub trait LoadProbe {
    /// A reading of the counters now (None: cannot be read here).
    fn sample(&self) -> Option<CpuSample>;
}

/// A reading of the machine's and this process's processor time, in clock ticks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuSample {
    /// Ticks all processors spent not idle (user, nice, system, irq, softirq, steal).
    pub busy: u64,
    /// Ticks all processors spent in total (busy, idle, iowait).
    pub total: u64,
    /// Ticks this process (all its threads, and children it waited for) ran.
    pub own: u64,
}

impl CpuSample {
    /// Share (0 to 1) of all processor time between `self` and `later` taken by other load;
    /// None when no tick passed.
    pub fn foreign_share(&self, later: &CpuSample) -> Option<f64> {
        let total = later.total.checked_sub(self.total)?;
        if total == 0 {
            return None;
        }
        let busy = later.busy.saturating_sub(self.busy) as f64;
        let own = later.own.saturating_sub(self.own) as f64;
        Some(((busy - own) / total as f64).clamp(0.0, 1.0))
    }
}

/// The Linux probe: `/proc/stat` and `/proc/self/stat`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcProbe;

impl LoadProbe for ProcProbe {
    fn sample(&self) -> Option<CpuSample> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let own = std::fs::read_to_string("/proc/self/stat").ok()?;
        parse_proc(&stat, &own)
    }
}

/// Parses the `cpu` line of `/proc/stat` and this process's times in `/proc/self/stat`
/// with the parser of `pp-campaign`'s quiet-machine gate ([`pp::campaign::load::parse`]).
pub fn parse_proc(stat: &str, self_stat: &str) -> Option<CpuSample> {
    let s = pp::campaign::load::parse(stat, self_stat)?;
    Some(CpuSample {
        busy: s.busy,
        total: s.total,
        own: s.own,
    })
}

/// A number measured by repetitions, with how it was kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// The median of the quiet repetitions (of all when none was quiet).
    pub value: f64,
    /// Repetitions run.
    pub repetitions: usize,
    /// Repetitions found quiet (unknown ones included).
    pub quiet: usize,
    /// Repetitions the probe could not judge.
    pub unknown: usize,
    /// Kept repetitions (the quiet ones, or all when none was) that gave a number (a kernel
    /// gives NaN for a repetition it cannot judge, e.g. threads that did not run side by side).
    pub measured: usize,
    /// The least number among the kept repetitions (NaN when none gave one).
    pub low: f64,
    /// The largest number among the kept repetitions (NaN when none gave one).
    pub high: f64,
    /// Pairs of processors whose prices `value` is the mean of ([`super::pairs`]); 0 when
    /// `value` is the median of the repetitions themselves.
    pub pairs: usize,
}

impl Kept {
    /// How far apart the kept repetitions' numbers lie: `high / low` (1 when they agree;
    /// infinite when the least is 0 and the largest is not; NaN when fewer than two gave a
    /// number).
    pub fn spread(&self) -> f64 {
        if self.measured < 2 {
            return f64::NAN;
        }
        if self.low <= 0.0 {
            return if self.high <= 0.0 { 1.0 } else { f64::INFINITY };
        }
        self.high / self.low
    }
}

/// The median of `xs` (NaN when empty; the mean of the middle two for an even count).
pub fn median(xs: &[f64]) -> f64 {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| !x.is_nan()).collect();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        k if k % 2 == 1 => v[k / 2],
        k => 0.5 * (v[k / 2 - 1] + v[k / 2]),
    }
}

/// Runs `once` `repetitions` times, each watched by `probe`, and keeps the median of the
/// quiet ones (see the module docs).
pub fn median_of_quiet(
    repetitions: usize,
    probe: &dyn LoadProbe,
    mut once: impl FnMut() -> f64,
) -> Kept {
    let [k] = median_of_quiet_each(repetitions, probe, || [once()]);
    k
}

/// [`median_of_quiet`] for a kernel whose repetition gives N numbers at once: each number is
/// the median of its values in the quiet repetitions (the same repetitions for all N).
pub fn median_of_quiet_each<const N: usize>(
    repetitions: usize,
    probe: &dyn LoadProbe,
    mut once: impl FnMut() -> [f64; N],
) -> [Kept; N] {
    let (mut all, mut quiet, mut unknown) = (Vec::new(), Vec::new(), 0);
    for _ in 0..repetitions.max(1) {
        let before = probe.sample();
        let x = once();
        let share = before.and_then(|b| b.foreign_share(&probe.sample()?));
        all.push(x);
        match share {
            Some(s) if s >= QUIET_SHARE => {}
            Some(_) => quiet.push(x),
            None => {
                unknown += 1;
                quiet.push(x);
            }
        }
    }
    let kept = if quiet.is_empty() { &all } else { &quiet };
    std::array::from_fn(|i| {
        let xs: Vec<f64> = kept.iter().map(|x| x[i]).filter(|x| !x.is_nan()).collect();
        let (low, high) = xs
            .iter()
            .fold((f64::NAN, f64::NAN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        Kept {
            value: median(&xs),
            repetitions: all.len(),
            quiet: quiet.len(),
            unknown,
            measured: xs.len(),
            low,
            high,
            pairs: 0,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Replays a list of samples; each repetition reads two.
    struct Replay {
        samples: Vec<CpuSample>,
        at: Cell<usize>,
    }

    impl LoadProbe for Replay {
        fn sample(&self) -> Option<CpuSample> {
            let i = self.at.get();
            self.at.set(i + 1);
            self.samples.get(i).copied()
        }
    }

    fn s(busy: u64, total: u64, own: u64) -> CpuSample {
        CpuSample { busy, total, own }
    }

    /// Three repetitions: 1 and 3 with only own load (quiet), 2 with 50 of 100 ticks
    /// foreign.
    fn second_of_three_busy() -> Replay {
        Replay {
            samples: vec![
                s(0, 0, 0),
                s(50, 100, 50),
                s(50, 100, 50),
                s(150, 200, 100),
                s(150, 200, 100),
                s(200, 300, 150),
            ],
            at: Cell::new(0),
        }
    }

    #[test]
    fn a_busy_repetition_is_left_out_of_the_median() {
        // Repetitions 1 and 3: only own load (quiet); repetition 2: 50 of 100 ticks foreign.
        let probe = second_of_three_busy();
        let mut xs = [1.0, 100.0, 3.0].into_iter();
        let k = median_of_quiet(3, &probe, || xs.next().unwrap());
        assert_eq!((k.repetitions, k.quiet, k.unknown), (3, 2, 0));
        assert_eq!(k.value, 2.0);
    }

    #[test]
    fn with_no_quiet_repetition_the_median_of_all_is_kept_and_said() {
        let probe = Replay {
            samples: vec![s(0, 0, 0), s(90, 100, 0), s(90, 100, 0), s(180, 200, 0)],
            at: Cell::new(0),
        };
        let mut xs = [5.0, 7.0].into_iter();
        let k = median_of_quiet(2, &probe, || xs.next().unwrap());
        assert_eq!((k.quiet, k.value), (0, 6.0));
    }

    #[test]
    fn a_repetition_without_a_tick_counts_as_quiet_but_unknown() {
        struct NoProc;
        impl LoadProbe for NoProc {
            fn sample(&self) -> Option<CpuSample> {
                None
            }
        }
        let k = median_of_quiet(3, &NoProc, || 4.0);
        assert_eq!((k.quiet, k.unknown, k.value), (3, 3, 4.0));
    }

    #[test]
    fn numbers_measured_together_are_kept_from_the_same_quiet_repetitions() {
        // Repetition 2 is busy: each number is the median of its values in 1 and 3.
        let probe = second_of_three_busy();
        let mut xs = [[1.0, 10.0], [100.0, 1000.0], [3.0, f64::NAN]].into_iter();
        let [a, b] = median_of_quiet_each(3, &probe, || xs.next().unwrap());
        assert_eq!((a.value, a.quiet, a.repetitions), (2.0, 2, 3));
        // A NaN (a repetition without the number) is left out of the median.
        assert_eq!((b.value, b.quiet), (10.0, 2));
        assert_eq!((b.measured, a.measured), (1, 2));
    }

    #[test]
    fn the_spread_is_the_largest_over_the_least_kept_number() {
        // Repetition 2 (busy) is not kept; 1 and 3 give 1 and 3: three times apart.
        let probe = second_of_three_busy();
        let mut xs = [1.0, 100.0, 3.0].into_iter();
        let k = median_of_quiet(3, &probe, || xs.next().unwrap());
        assert_eq!((k.low, k.high, k.measured), (1.0, 3.0, 2));
        assert_eq!(k.spread(), 3.0);
        // One number, or none: no spread to judge.
        let k = median_of_quiet(2, &second_of_three_busy(), || f64::NAN);
        assert_eq!(k.measured, 0);
        assert!(k.spread().is_nan() && k.value.is_nan());
        // A least number of 0 beside a positive one (both repetitions quiet): infinitely
        // apart.
        let probe = Replay {
            samples: vec![s(0, 0, 0), s(0, 100, 0), s(0, 100, 0), s(0, 200, 0)],
            at: Cell::new(0),
        };
        let mut xs = [0.0, 5.0].into_iter();
        let k = median_of_quiet(2, &probe, || xs.next().unwrap());
        assert_eq!(k.spread(), f64::INFINITY);
    }

    #[test]
    fn proc_files_parse() {
        let stat = "cpu  10 1 5 100 4 1 1 2 0 0\ncpu0 1 1 1 1 1\n";
        let own = "123 (a b) S 1 2 3 4 5 6 7 8 9 10 17 3 0 0";
        let c = parse_proc(stat, own).unwrap();
        assert_eq!(c, s(20, 124, 20));
    }
}
