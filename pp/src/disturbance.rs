//! Whether the scheduler disturbed a run, from the session profile's scheduling counters
//! (`cpu_ns` gives `os`, `nivcsw` the involuntary context switches; docs/predicates.md,
//! "Disturbance").
//!
//! Two measures, and what each says:
//!
//! - **`os`** (Busy wall time − Busy CPU time) is the time Busy threads waited for a
//!   processor: what other processes, the kernel's threads, or more of the program's own
//!   threads than there were free cores took from them. Above [`OS_SHARE_LIMIT`] of `tt`
//!   the run is **disturbed**: the categories (`rt`, or `sl` and `li` when a thread was
//!   preempted near a wait or a join) describe the machine's load as much as the program.
//! - **Involuntary context switches per Busy second** (the switches summed over threads,
//!   over the Busy time summed over threads: a rate per busy thread, so it needs no
//!   scaling by p) say how often that happened. A processor-bound thread alone on its core
//!   is switched out a few times a second at most: above [`SWITCH_RATE_LIMIT`] the run's
//!   threads were **preempted**. Whether that matters is the time it took, which `os`
//!   measures, and the caches a switched-out thread finds cold when it comes back, which
//!   `os` cannot see (that CPU time lands in `rt`). A refill costs some microseconds to
//!   some tens of microseconds, so at [`DISTURBING_SWITCH_RATE`] switches per Busy second
//!   it is of the order of 1 % of the Busy time, as large as what the `os` limit allows.
//!
//! So a run is disturbed when `os` is over its limit, or the switches are more than
//! [`DISTURBING_SWITCH_RATE`] per Busy second, or (a log without `cpu_ns`, where their
//! cost cannot be told) more than [`SWITCH_RATE_LIMIT`]. A run preempted more often than
//! [`SWITCH_RATE_LIMIT`] but less than [`DISTURBING_SWITCH_RATE`], with `os` under its
//! limit, is warned about as preempted, not disturbed: brief preemptions (the kernel's
//! threads, other processes' short wakeups, a helper thread of the program) whose cost
//! the categories already hold.
//!
//! This judges the run's own threads; a campaign's quiet gate judges other processes' share
//! of the machine (docs/campaigns.md, "Quiet"). The two can disagree in both directions: a
//! quiet run at p = the machine's cores has no free core for the kernel's threads or the
//! program's helper threads, which then preempt its workers.

use serde::Serialize;

use crate::profile::Profile;

/// `os` above this share of `tt` marks a run as disturbed.
pub const OS_SHARE_LIMIT: f64 = 0.02;

/// More involuntary context switches than this per Busy second mark a run as preempted
/// (a processor-bound thread alone on its core is switched out a few times a second at
/// most; one that shares its core with another runnable thread, every few milliseconds).
pub const SWITCH_RATE_LIMIT: f64 = 10.0;

/// More involuntary context switches than this per Busy second mark a run as disturbed
/// even when `os` is under its limit: the caches refilled after the switches cost about
/// 1 % of the Busy time or more, CPU time that `os` does not count.
pub const DISTURBING_SWITCH_RATE: f64 = 1000.0;

/// What the scheduler did to a run's Busy threads (the session profile's counters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Disturbance {
    /// `os`, seconds (None without `cpu_ns` counters).
    pub os_s: Option<f64>,
    /// `os` / `tt` (None without `cpu_ns` counters).
    pub os_share: Option<f64>,
    /// Involuntary context switches during Busy time (None without `nivcsw` counters).
    pub switches: Option<f64>,
    /// Those switches per Busy second, summed over threads (None without `nivcsw` counters
    /// or Busy time).
    pub switch_rate: Option<f64>,
}

impl Disturbance {
    /// The measures of the session profile `session`.
    pub fn of(session: &Profile) -> Disturbance {
        let os_share = session
            .os
            .filter(|_| session.tt > 0.0)
            .map(|os| os / session.tt);
        let switch_rate = match (session.nivcsw, session.nivcsw_busy) {
            (Some(n), Some(busy)) if busy > 0.0 => Some(n / busy),
            _ => None,
        };
        Disturbance {
            os_s: session.os,
            os_share,
            switches: session.nivcsw,
            switch_rate,
        }
    }

    /// Whether `os` is over [`OS_SHARE_LIMIT`] of `tt`.
    pub fn os_over(&self) -> bool {
        self.os_share.is_some_and(|s| s > OS_SHARE_LIMIT)
    }

    /// Whether the threads were preempted more than [`SWITCH_RATE_LIMIT`] times per Busy
    /// second (and at least once).
    pub fn preempted(&self) -> bool {
        self.switches.is_some_and(|n| n >= 1.0)
            && self.switch_rate.is_some_and(|r| r > SWITCH_RATE_LIMIT)
    }

    /// The switch rate above which the run counts as disturbed: [`DISTURBING_SWITCH_RATE`]
    /// when `os` tells their cost, [`SWITCH_RATE_LIMIT`] when it cannot.
    pub fn disturbing_switch_rate(&self) -> f64 {
        if self.os_share.is_some() {
            DISTURBING_SWITCH_RATE
        } else {
            SWITCH_RATE_LIMIT
        }
    }

    /// Whether the switches alone make the run disturbed.
    pub fn switches_disturbing(&self) -> bool {
        self.preempted()
            && self
                .switch_rate
                .is_some_and(|r| r > self.disturbing_switch_rate())
    }

    /// Whether the run was disturbed (see the module docs).
    pub fn disturbed(&self) -> bool {
        self.os_over() || self.switches_disturbing()
    }

    /// The warning about `os` (None when it is under its limit or unknown).
    pub fn os_warning(&self) -> Option<String> {
        let share = self.os_share.filter(|_| self.os_over())?;
        Some(format!(
            "the run was disturbed: Busy threads waited {:.6} s for a processor (os = Busy \
             wall time - Busy CPU time), {:.1}% of tt, more than {:.0}%: the OS gave their processors \
             to other processes, the kernel's threads or more of the program's threads than \
             there were free cores; rerun with fewer threads than free cores or on a quieter \
             machine",
            self.os_s.unwrap_or(0.0),
            share * 100.0,
            OS_SHARE_LIMIT * 100.0
        ))
    }

    /// The warning about the switches (None when the threads were not preempted more
    /// than [`SWITCH_RATE_LIMIT`] times per Busy second).
    pub fn switch_warning(&self) -> Option<String> {
        if !self.preempted() {
            return None;
        }
        let (n, rate) = (self.switches?, self.switch_rate?);
        let counted = format!(
            "{n:.1} involuntary context switches during Busy time ({rate:.1} per Busy second"
        );
        let os = self.os_share.map_or_else(String::new, |s| {
            format!("; they waited {:.2}% of tt for a processor (os)", s * 100.0)
        });
        if self.switches_disturbing() {
            let why = match self.os_share {
                Some(_) => {
                    "the caches refilled after so many switches cost about 1% of the \
                            Busy time or more, CPU time that os does not count"
                }
                None => "without cpu_ns counters their cost cannot be told",
            };
            return Some(format!(
                "the run was disturbed: {counted}, more than {:.0}): {why}{os}; the OS took \
                 Busy threads' processors for other processes, the kernel's threads or more \
                 of the program's threads than there were free cores; rerun with fewer \
                 threads than free cores or on a quieter machine",
                self.disturbing_switch_rate()
            ));
        }
        if self.os_over() {
            return Some(format!(
                "Busy threads were preempted: {counted}, more than {SWITCH_RATE_LIMIT:.0}): \
                 the switches behind os"
            ));
        }
        Some(format!(
            "Busy threads were preempted: {counted}, more than {SWITCH_RATE_LIMIT:.0}), \
             briefly: they waited {:.2}% of tt for a processor (os), under {:.0}%; the \
             kernel's threads, other processes' short wakeups or the program's own threads \
             beyond the free cores took their processors; the run counts as disturbed above \
             {DISTURBING_SWITCH_RATE:.0} switches per Busy second or {:.0}% os",
            self.os_share.unwrap_or(0.0) * 100.0,
            OS_SHARE_LIMIT * 100.0,
            OS_SHARE_LIMIT * 100.0
        ))
    }

    /// The run's warnings: about `os`, then about the switches.
    pub fn warnings(&self) -> Vec<String> {
        self.os_warning()
            .into_iter()
            .chain(self.switch_warning())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measures(os_share: Option<f64>, switches: f64, rate: f64) -> Disturbance {
        Disturbance {
            os_s: os_share.map(|s| s * 0.1),
            os_share,
            switches: Some(switches),
            switch_rate: Some(rate),
        }
    }

    #[test]
    fn brief_preemptions_with_little_os_are_not_a_disturbance() {
        let d = measures(Some(0.003), 6.0, 29.1);
        assert!(d.preempted() && !d.disturbed());
        let w = d.warnings();
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("Busy threads were preempted: 6.0 involuntary context switches"),
            "{}",
            w[0]
        );
        assert!(
            w[0].contains("briefly: they waited 0.30% of tt for a processor (os), under 2%"),
            "{}",
            w[0]
        );
    }

    #[test]
    fn thousands_of_switches_per_second_disturb_whatever_os_says() {
        let d = measures(Some(0.003), 1406.0, 6776.1);
        assert!(d.disturbed());
        let w = d.warnings();
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with(
                "the run was disturbed: 1406.0 involuntary context switches during Busy time \
                 (6776.1 per Busy second, more than 1000)"
            ),
            "{}",
            w[0]
        );
    }

    #[test]
    fn without_cpu_time_the_lower_rate_disturbs() {
        let d = measures(None, 6.0, 29.1);
        assert!(d.disturbed());
        assert!(d.warnings()[0].contains("more than 10): without cpu_ns counters"));
    }

    #[test]
    fn os_over_its_limit_disturbs_and_both_are_said() {
        let d = measures(Some(0.05), 4.0, 285.7);
        assert!(d.disturbed() && d.os_over() && !d.switches_disturbing());
        let w = d.warnings();
        assert_eq!(w.len(), 2);
        assert!(
            w[0].contains("waited 0.005000 s for a processor"),
            "{}",
            w[0]
        );
        assert!(w[0].contains("5.0% of tt, more than 2%"), "{}", w[0]);
        assert!(w[1].ends_with("the switches behind os"), "{}", w[1]);
    }

    #[test]
    fn no_counters_no_switches_no_warning() {
        assert!(Disturbance::default().warnings().is_empty());
        assert!(!Disturbance::default().disturbed());
        // Under one switch in all: a share of a count, no preemption to speak of.
        assert!(measures(Some(0.0), 0.5, 50.0).warnings().is_empty());
    }
}
