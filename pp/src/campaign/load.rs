//! Other load on the machine during a measurement: the share of all processors' time that
//! went to other processes (or, in a virtual machine, to the host: steal time) while a
//! repetition ran, from the kernel's counters (`/proc/stat` for the whole machine,
//! `/proc/self/stat` for this process: its threads and the children it has waited for).
//!
//! Counters are in clock ticks (`USER_HZ`, 10 ms on Linux): the share is exact over long
//! windows and resolves some 5% of a 2-core machine over 100 ms. Where `/proc` cannot be
//! read (not Linux) every reading is `None`: the campaign then cannot tell quiet from
//! disturbed repetitions and counts them all.
//!
//! The counters are read through [`LoadSource`], so that the quiet-machine gate
//! ([`super::gate::Gate`]) can be tested with a scripted source.

use std::time::Duration;

/// A reading of the machine's and this process's CPU time counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Ticks all processors spent not idle (user, nice, system, irq, softirq, steal).
    pub busy: u64,
    /// Ticks all processors spent in total (busy + idle + iowait).
    pub total: u64,
    /// Ticks this process spent running: its own threads and the children it has waited
    /// for (a program the campaign ran counts as its own once it has exited).
    pub own: u64,
}

/// Where the counters come from, and how time passes between readings.
pub trait LoadSource {
    /// The counters now; None where they cannot be read.
    fn sample(&mut self) -> Option<Sample>;

    /// Lets `d` pass and returns the time that did pass: a real source sleeps and measures
    /// the sleep (which the scheduler may stretch), a scripted one need not sleep.
    fn pause(&mut self, d: Duration) -> Duration {
        let start = std::time::Instant::now();
        std::thread::sleep(d);
        start.elapsed()
    }
}

/// The kernel's counters: `/proc/stat` and `/proc/self/stat`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProcStat;

impl LoadSource for ProcStat {
    fn sample(&mut self) -> Option<Sample> {
        sample()
    }
}

/// Reads the kernel's counters now; None where `/proc` cannot be read or parsed.
pub fn sample() -> Option<Sample> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let own = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse(&stat, &own)
}

/// Parses the first (`cpu`) line of `/proc/stat` and the utime, stime, cutime and cstime
/// fields of `/proc/self/stat`.
pub fn parse(stat: &str, self_stat: &str) -> Option<Sample> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().ok())
        .collect::<Option<Vec<u64>>>()?;
    if v.len() < 5 {
        return None;
    }
    // user nice system idle iowait irq softirq steal (guest time is already in user).
    let idle = v[3] + v[4];
    let busy = v[0] + v[1] + v[2] + v.get(5..8).map_or(0, |x| x.iter().sum::<u64>());
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    let rest = &self_stat[self_stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17):
    // indices 11 to 14 here. A line cut before the children's fields counts none.
    let field = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok());
    let own = field(11)? + field(12)? + field(13).unwrap_or(0) + field(14).unwrap_or(0);
    Some(Sample {
        busy,
        total: busy + idle,
        own,
    })
}

/// The share (0 to 1) of all processors' time between `a` and `b` that went to other
/// processes or to the host; None when no tick passed.
pub fn foreign_share(a: &Sample, b: &Sample) -> Option<f64> {
    let total = b.total.checked_sub(a.total)?;
    if total == 0 {
        return None;
    }
    let busy = b.busy.saturating_sub(a.busy) as f64;
    let own = b.own.saturating_sub(a.own) as f64;
    Some(((busy - own) / total as f64).clamp(0.0, 1.0))
}

/// Measures the other load during one piece of work: take a probe before it, ask for the
/// share after it.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    start: Option<Sample>,
}

impl Probe {
    /// Starts a probe now on the kernel's counters.
    pub fn start() -> Probe {
        Probe::start_with(&mut ProcStat)
    }

    /// Starts a probe now on `source`.
    pub fn start_with(source: &mut impl LoadSource) -> Probe {
        Probe {
            start: source.sample(),
        }
    }

    /// The other load's share since the start, on the kernel's counters; None where it
    /// cannot be known.
    pub fn share(&self) -> Option<f64> {
        self.share_with(&mut ProcStat)
    }

    /// The other load's share since the start, on `source`.
    pub fn share_with(&self, source: &mut impl LoadSource) -> Option<f64> {
        foreign_share(self.start.as_ref()?, &source.sample()?)
    }
}

/// Largest share of the machine that other load may take during a repetition for it to
/// count as quiet. Small: a p = 1 run loses all of the other load that lands on its core
/// (on a 2-core machine 7% of the machine is 14% of one core; a build holding a core takes
/// 50%). With 10 ms ticks a repetition of 0.2 s on 2 cores has 40: at most one tick of
/// other load.
pub const QUIET_SHARE: f64 = 0.03;

/// Whether a repetition during which other load took `share` of the machine counts as
/// quiet: below [`QUIET_SHARE`], or not measurable (then nothing can be told apart).
pub fn is_quiet(share: Option<f64>) -> bool {
    share.is_none_or(|s| s < QUIET_SHARE)
}

/// The load averages of `/proc/loadavg` (1, 5 and 15 minutes), as `uptime` prints them.
pub fn load_average() -> Option<(f64, f64, f64)> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = text.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some((it.next()??, it.next()??, it.next()??))
}

#[cfg(test)]
mod tests {
    use super::*;

    // A `/proc/stat` head and a `/proc/self/stat` line written by hand: a command name with
    // spaces and parentheses, utime 30, stime 12, cutime 5, cstime 3.
    const STAT: &str = "cpu  100 5 20 800 10 1 2 7 0 0\ncpu0 50 2 10 400 5 0 1 3 0 0\n";
    const SELF: &str = "4242 (my prog (x)) R 1 2 3 4 5 6 7 8 9 10 30 12 5 3 20 0 1 0";

    #[test]
    fn parses_machine_and_own_ticks_children_included() {
        let s = parse(STAT, SELF).unwrap();
        assert_eq!(s.busy, 100 + 5 + 20 + 1 + 2 + 7);
        assert_eq!(s.total, s.busy + 810);
        assert_eq!(s.own, 30 + 12 + 5 + 3);
        assert!(parse("intr 1 2", SELF).is_none());
        assert!(parse(STAT, "garbage").is_none());
    }

    #[test]
    fn foreign_share_is_busy_time_not_ours() {
        let a = Sample {
            busy: 100,
            total: 1000,
            own: 50,
        };
        // 200 ticks passed; 150 busy, of which 100 ours: 50 others' = 25%.
        let b = Sample {
            busy: 250,
            total: 1200,
            own: 150,
        };
        assert!((foreign_share(&a, &b).unwrap() - 0.25).abs() < 1e-12);
        assert_eq!(foreign_share(&a, &a), None);
        // Our ticks counted late cannot make the share negative.
        let c = Sample {
            busy: 110,
            total: 1100,
            own: 90,
        };
        assert_eq!(foreign_share(&a, &c), Some(0.0));
    }

    #[test]
    fn quiet_is_below_the_threshold_or_unknown() {
        assert!(is_quiet(None));
        assert!(is_quiet(Some(0.0)));
        assert!(is_quiet(Some(QUIET_SHARE / 2.0)));
        assert!(!is_quiet(Some(QUIET_SHARE)));
        assert!(!is_quiet(Some(0.5)));
    }
}
