//! Other load on the machine during a measurement: the share of all processors' time that
//! went to other processes (or, in a virtual machine, to the host: steal time) while a
//! repetition ran, from the kernel's counters (`/proc/stat` for the whole machine,
//! `/proc/self/stat` for this process, all of its threads).
//!
//! The study runs on machines that other people use at the same time. A repetition during
//! which other processes held a processor is slower for reasons that are not the program's,
//! in ways that the fastest of a few repetitions does not always hide (a build that runs for
//! a minute disturbs every repetition of a point). The study therefore measures, for each
//! repetition, the other load during it ([`Probe`]), keeps only quiet repetitions, waits for
//! the machine to calm down before repeating a disturbed one ([`Gate`]), and says in its
//! report how quiet its measurements were.
//!
//! Counters are in clock ticks (`USER_HZ`, 10 ms on Linux): the share is exact over long
//! windows and resolves some 5% of a 2-core machine over 100 ms. Where `/proc` is not
//! readable (not Linux) every probe says `None` and the study keeps its repetitions as
//! before (fastest kept).

use std::time::{Duration, Instant};

/// A reading of the machine's and this process's CPU time counters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Ticks all processors spent not idle (user, nice, system, irq, softirq, steal).
    pub busy: u64,
    /// Ticks all processors spent in total (busy + idle + iowait).
    pub total: u64,
    /// Ticks this process (all its threads) spent running.
    pub own: u64,
}

/// Reads the counters now; None where `/proc` cannot be read or parsed.
pub fn sample() -> Option<Sample> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let own = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse(&stat, &own)
}

/// Parses the first (`cpu`) line of `/proc/stat` and the utime and stime fields of
/// `/proc/self/stat`.
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
    // After the name: state(3) ppid(4) … utime(14) stime(15): indices 11 and 12 here.
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(Sample {
        busy,
        total: busy + idle,
        own: utime + stime,
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

/// Measures the other load during one piece of work.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    start: Option<Sample>,
}

impl Probe {
    /// Starts a probe now.
    pub fn start() -> Probe {
        Probe { start: sample() }
    }

    /// The other load's share since the start; None where it cannot be known.
    pub fn share(&self) -> Option<f64> {
        foreign_share(self.start.as_ref()?, &sample()?)
    }
}

/// Largest share of the machine that other load may take during a repetition for it to
/// count as quiet. Small: a p = 1 run loses all of the other load that lands on its core
/// (on a 2-core machine 7% of the machine is 14% of one core; a build holding a core takes
/// 50%). With 10 ms ticks a repetition of 0.2 s on 2 cores has 40: at most one tick of
/// other load.
pub const QUIET_SHARE: f64 = 0.03;

/// Length of the window over which [`Gate::wait_quiet`] looks at the machine.
pub const WINDOW: Duration = Duration::from_millis(100);

/// Waits for quiet before measuring, within a time budget for the whole study, and keeps
/// account of the machine's load for the report.
#[derive(Clone, Debug)]
pub struct Gate {
    /// Seconds the gate may still wait in total.
    budget: Duration,
    /// Seconds waited so far.
    pub waited: Duration,
    /// Windows that were looked at and found busy.
    pub busy_windows: usize,
    /// Whether the counters can be read here.
    pub available: bool,
}

impl Gate {
    /// A gate that waits at most `budget` over the whole study.
    pub fn new(budget: Duration) -> Gate {
        Gate {
            budget,
            waited: Duration::ZERO,
            busy_windows: 0,
            available: sample().is_some(),
        }
    }

    /// Waits until a [`WINDOW`] passes with other load below [`QUIET_SHARE`], at most `max`
    /// (and at most the budget left). Returns the share of the last window (None where it
    /// cannot be measured: then it returns at once).
    pub fn wait_quiet(&mut self, max: Duration) -> Option<f64> {
        if !self.available {
            return None;
        }
        let start = Instant::now();
        let limit = max.min(self.budget.saturating_sub(self.waited));
        loop {
            let probe = Probe::start();
            std::thread::sleep(WINDOW);
            let share = probe.share();
            let quiet = share.is_none_or(|s| s < QUIET_SHARE);
            if !quiet {
                self.busy_windows += 1;
            }
            if quiet || start.elapsed() >= limit {
                self.waited += start.elapsed();
                return share;
            }
        }
    }
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

    const STAT: &str = "cpu  100 5 20 800 10 1 2 7 0 0\ncpu0 50 2 10 400 5 0 1 3 0 0\n";
    const SELF: &str = "4242 (my prog (x)) R 1 2 3 4 5 6 7 8 9 10 30 12 0 0 20 0 1 0";

    #[test]
    fn parses_machine_and_own_ticks() {
        let s = parse(STAT, SELF).unwrap();
        assert_eq!(s.busy, 100 + 5 + 20 + 1 + 2 + 7);
        assert_eq!(s.total, s.busy + 810);
        assert_eq!(s.own, 42);
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
    fn probe_and_gate_work_here_or_say_they_cannot() {
        let mut g = Gate::new(Duration::from_millis(300));
        let share = g.wait_quiet(Duration::from_millis(300));
        if g.available {
            let s = share.unwrap_or(0.0);
            assert!((0.0..=1.0).contains(&s));
            assert!(g.waited >= WINDOW);
            assert!(g.waited <= Duration::from_secs(5));
        } else {
            assert!(share.is_none());
        }
    }
}
