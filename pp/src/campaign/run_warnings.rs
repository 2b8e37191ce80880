//! pp's warnings about the runs of a campaign, one line per kind of check.
//!
//! pp checks every run it profiles ([`crate::disturbance`], [`crate::recording`]) and, on a
//! single log, warns about each. A campaign profiles dozens to thousands of runs: on a
//! machine where the checks trip, the same warning per run would bury everything else. So
//! the runs' findings are collected here ([`RunWarnings::add`]) and told as one line per
//! kind ([`RunWarnings::lines`]): how many of the profiled runs tripped it, the worst one
//! (its value and its point) and, for the disturbance checks, how that relates to the
//! quiet gate's verdict on the same runs. Every finding stays available one by one
//! ([`RunWarning`], `run_warnings` of `pp-campaign --json`).
//!
//! The quiet gate and the disturbance checks measure different things: the gate, other
//! processes' share of the whole machine ([`super::load`]); the checks, what the run's own
//! Busy threads lost. A run the gate counts quiet can still be preempted: at p = the
//! machine's cores no core is free for the kernel's threads, other processes' short
//! wakeups, or the program's own threads beyond its p workers (a calling thread that
//! waits, the recorder's writer, pool workers that spin while they look for work), and
//! each of them takes a worker's processor when it runs. The lines say so, with where the
//! runs that tripped gathered, instead of blaming other processes.

use std::collections::BTreeMap;

use serde::Serialize;

use super::load::QUIET_SHARE;
use crate::analysis::Analysis;
use crate::checks::{recording_warnings, RECORDING_SHARE_LIMIT};
use crate::disturbance::{DISTURBING_SWITCH_RATE, OS_SHARE_LIMIT, SWITCH_RATE_LIMIT};

/// A check of one run that pp warns about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunCheck {
    /// `os` over its share of `tt`: Busy threads waited for a processor.
    Os,
    /// More involuntary context switches per Busy second than the limit.
    Switches,
    /// The recording itself took more than its share of `tt`.
    Recording,
}

/// One run's finding of one check.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunWarning {
    /// The check.
    pub check: RunCheck,
    /// The run's point (`n=64 p=2`).
    pub point: String,
    /// Its processors.
    pub p: usize,
    /// Its round (None where runs have none).
    pub round: Option<usize>,
    /// What the check measured: `os` / `tt` ([`RunCheck::Os`]), switches per Busy second
    /// ([`RunCheck::Switches`]), the recording's share of `tt` ([`RunCheck::Recording`]).
    pub value: f64,
    /// The limit `value` passed.
    pub limit: f64,
    /// Whether pp counts the run as disturbed ([`crate::Analysis::disturbed`]).
    pub disturbed: bool,
    /// The run's `os` / `tt` (None without `cpu_ns` counters).
    pub os_share: Option<f64>,
    /// The quiet gate's verdict on the run: true when other load stayed under
    /// [`QUIET_SHARE`] of the machine, None where it could not be measured.
    pub quiet: Option<bool>,
    /// pp's warning about the run.
    pub message: String,
}

/// Where a run was made, for [`RunWarnings::add`].
#[derive(Clone, Copy, Debug)]
pub struct RunAt<'a> {
    /// The point's label (`n=64 p=2`).
    pub point: &'a str,
    /// Its processors.
    pub p: usize,
    /// The repetition's round, if runs have one.
    pub round: Option<usize>,
    /// The quiet gate's verdict (None: not measured).
    pub quiet: Option<bool>,
}

/// The findings of the runs profiled so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunWarnings {
    /// Runs profiled.
    pub runs: usize,
    /// Their findings, in the order the runs were added.
    pub warnings: Vec<RunWarning>,
    /// The largest p of the runs profiled.
    largest_p: usize,
    /// The machine's cores, where known ([`RunWarnings::on_cores`]).
    cores: Option<usize>,
}

impl RunWarnings {
    /// Findings of runs made on a machine of `cores` processors (the advice then says
    /// whether the runs that tripped had a free core).
    pub fn on_cores(cores: Option<usize>) -> RunWarnings {
        RunWarnings {
            cores,
            ..RunWarnings::default()
        }
    }

    /// Notes the run `a`, made `at`; returns its other warnings (those not told here, for
    /// the caller to show per run).
    pub fn add(&mut self, a: &Analysis, at: RunAt) -> Vec<String> {
        self.runs += 1;
        self.largest_p = self.largest_p.max(at.p);
        let d = &a.disturbance;
        let mut found = |check: RunCheck, value: Option<f64>, limit: f64, message| {
            if let (Some(value), Some(message)) = (value, message) {
                self.warnings.push(RunWarning {
                    check,
                    point: at.point.to_string(),
                    p: at.p,
                    round: at.round,
                    value,
                    limit,
                    disturbed: a.disturbed,
                    os_share: d.os_share,
                    quiet: at.quiet,
                    message,
                });
            }
        };
        let (os, switches) = (d.os_warning(), d.switch_warning());
        let recording = recording_warnings(&a.recording).into_iter().next();
        let told: Vec<String> = [&os, &switches, &recording]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        found(RunCheck::Os, d.os_share, OS_SHARE_LIMIT, os);
        found(
            RunCheck::Switches,
            d.switch_rate,
            SWITCH_RATE_LIMIT,
            switches,
        );
        let share = a.recording.share_of_tt;
        found(RunCheck::Recording, share, RECORDING_SHARE_LIMIT, recording);
        a.warnings
            .iter()
            .filter(|w| !told.contains(w))
            .cloned()
            .collect()
    }

    /// One line per check that some run tripped (in [`RunCheck`] order).
    pub fn lines(&self) -> Vec<String> {
        let mut by_check: BTreeMap<RunCheck, Vec<&RunWarning>> = BTreeMap::new();
        for w in &self.warnings {
            by_check.entry(w.check).or_default().push(w);
        }
        by_check
            .into_iter()
            .map(|(check, ws)| match check {
                RunCheck::Os => self.os_line(&ws),
                RunCheck::Switches => self.switches_line(&ws),
                RunCheck::Recording => self.recording_line(&ws),
            })
            .collect()
    }

    fn os_line(&self, ws: &[&RunWarning]) -> String {
        let worst = worst(ws);
        format!(
            "{} of {} profiled runs were disturbed: their Busy threads waited more than {:.0}% \
             of tt for a processor (os; worst {:.1}% at {}); {}; {}",
            ws.len(),
            self.runs,
            OS_SHARE_LIMIT * 100.0,
            worst.value * 100.0,
            place(worst),
            gate_verdict(ws),
            self.advice(ws)
        )
    }

    fn switches_line(&self, ws: &[&RunWarning]) -> String {
        let worst = worst(ws);
        let disturbed = ws.iter().filter(|w| w.disturbed).count();
        let os: Vec<f64> = ws.iter().filter_map(|w| w.os_share).collect();
        let os_said = if os.len() == ws.len() {
            format!(
                "; the time they waited for a processor (os) was at most {:.2}% of tt",
                os.iter().copied().fold(0.0, f64::max) * 100.0
            )
        } else {
            String::new()
        };
        format!(
            "{} of {} profiled runs had their Busy threads preempted more than \
             {SWITCH_RATE_LIMIT:.0} times per Busy second (worst {:.0} at {}); {} as \
             disturbed (more than {DISTURBING_SWITCH_RATE:.0} per Busy second, \
             os over {:.0}% of tt, or no cpu_ns counters){os_said}; {}; {}",
            ws.len(),
            self.runs,
            worst.value,
            place(worst),
            count_of(disturbed, "of them counts", "of them count"),
            OS_SHARE_LIMIT * 100.0,
            gate_verdict(ws),
            self.advice(ws)
        )
    }

    fn recording_line(&self, ws: &[&RunWarning]) -> String {
        let worst = worst(ws);
        format!(
            "{} of {} profiled runs spent more than {:.0}% of tt recording; the worst, {}: {}",
            ws.len(),
            self.runs,
            RECORDING_SHARE_LIMIT * 100.0,
            place(worst),
            worst.message
        )
    }

    /// Where the runs `ws` gathered and what to do about them.
    fn advice(&self, ws: &[&RunWarning]) -> String {
        let largest = self.largest_p;
        let at_largest = ws.iter().filter(|w| w.p == largest).count();
        let quiet = ws.iter().filter(|w| w.quiet == Some(true)).count();
        let who = match (at_largest, ws.len()) {
            (_, 1) => "it".to_string(),
            (k, n) if k == n => format!("all {n}"),
            (k, n) => format!("{k} of the {n}"),
        };
        let full = self.cores.is_some_and(|c| largest >= c) && at_largest > 0;
        let mut s = match self.cores {
            Some(c) if full => format!(
                "{who} ran at p = {largest} on {c} cores, where no core is free for anything else"
            ),
            _ if at_largest > 0 => format!("{who} ran at p = {largest}, the largest p profiled"),
            _ => format!("none ran at p = {largest}, the largest p profiled"),
        };
        if quiet > 0 {
            s.push_str(
                "; with little other load, the processors went to the kernel's threads, other \
                 processes' short wakeups, the host's hypervisor, or the program's own threads \
                 beyond its p workers (a calling thread, the recorder's writer, pool workers \
                 spinning for work)",
            );
            if full {
                s.push_str(": measure up to one core fewer than the machine has to leave them one");
            }
        }
        if quiet < ws.len() {
            s.push_str(
                "; where the gate saw other load or could not tell, rerun with fewer threads \
                 than free cores or on a quieter machine",
            );
        }
        s
    }
}

/// The finding with the largest value (the first of equals).
fn worst<'a>(ws: &[&'a RunWarning]) -> &'a RunWarning {
    ws.iter()
        .copied()
        .fold(ws[0], |a, b| if b.value > a.value { b } else { a })
}

/// `n=64 p=16` or `n=64 p=16 round 3`.
fn place(w: &RunWarning) -> String {
    match w.round {
        Some(r) => format!("{} round {r}", w.point),
        None => w.point.clone(),
    }
}

/// How many of the runs `ws` the quiet gate counted quiet.
fn gate_verdict(ws: &[&RunWarning]) -> String {
    let measured = ws.iter().filter(|w| w.quiet.is_some()).count();
    let quiet = ws.iter().filter(|w| w.quiet == Some(true)).count();
    let share = QUIET_SHARE * 100.0;
    if measured == 0 {
        return "other load was not measured during them".to_string();
    }
    let unmeasured = match ws.len() - measured {
        0 => String::new(),
        k => format!(" ({k} too short to measure in the kernel's 10 ms ticks)"),
    };
    let them = if measured == 1 {
        "it".to_string()
    } else {
        format!("all {measured}")
    };
    if quiet == measured {
        format!(
            "the quiet gate counted {them} quiet (other processes under {share:.0}% of the \
             machine){unmeasured}"
        )
    } else if quiet == 0 {
        format!(
            "the quiet gate saw other processes take {share:.0}% of the machine or more during \
             {them}{unmeasured}"
        )
    } else {
        format!(
            "the quiet gate counted {quiet} of them quiet (other processes under {share:.0}% of \
             the machine), {} not{unmeasured}",
            measured - quiet
        )
    }
}

/// `1 run`, `2 runs`.
fn count_of(k: usize, one: &str, many: &str) -> String {
    format!("{k} {}", if k == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{analyze_bytes, Options};

    /// A p = 1 run Busy for `busy_ms` with `cpu_ms` of CPU time and `switches` involuntary
    /// context switches over it (so os = busy − cpu, the rate switches / busy).
    fn run(busy_ms: u64, cpu_ms: f64, switches: u64) -> Analysis {
        let text = format!(
            "pptrace 1\nprocessors 1\n0 0 session_begin\n0 0 counters cpu_ns=0 nivcsw=0\n\
             {end} 0 counters cpu_ns={cpu} nivcsw={switches}\n{end} 0 session_end\n",
            end = busy_ms * 1_000_000,
            cpu = (cpu_ms * 1e6) as u64,
        );
        analyze_bytes(text.into_bytes(), "t.pptrace", &Options::default()).unwrap()
    }

    fn at(point: &str, p: usize, round: usize, quiet: Option<bool>) -> RunAt<'_> {
        RunAt {
            point,
            p,
            round: Some(round),
            quiet,
        }
    }

    /// Four runs on 4 cores: preempted 50 and 1500 times per Busy second with little os,
    /// one that waited 10% of tt without a switch, one quiet.
    fn campaign() -> RunWarnings {
        let mut rw = RunWarnings::on_cores(Some(4));
        let rest = rw.add(&run(20, 19.9, 1), at("n=64 p=2", 2, 0, Some(true)));
        assert!(rest.is_empty(), "{rest:?}");
        rw.add(&run(20, 19.9, 30), at("n=64 p=4", 4, 1, Some(true)));
        rw.add(&run(20, 18.0, 0), at("n=128 p=4", 4, 0, Some(false)));
        rw.add(&run(20, 20.0, 0), at("n=128 p=2", 2, 2, Some(true)));
        rw
    }

    #[test]
    fn one_line_per_kind_with_the_worst_run() {
        let rw = campaign();
        assert_eq!(rw.runs, 4);
        let kinds: Vec<RunCheck> = rw.warnings.iter().map(|w| w.check).collect();
        assert_eq!(
            kinds,
            [RunCheck::Switches, RunCheck::Switches, RunCheck::Os]
        );
        let lines = rw.lines();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with(
                "1 of 4 profiled runs were disturbed: their Busy threads waited more than 2% \
                 of tt for a processor (os; worst 10.0% at n=128 p=4 round 0); the quiet gate saw \
                 other processes take 3% of the machine or more during it"
            ),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with(
                "2 of 4 profiled runs had their Busy threads preempted more than 10 times per \
                 Busy second (worst 1500 at n=64 p=4 round 1); 1 of them counts as disturbed"
            ),
            "{}",
            lines[1]
        );
        assert!(
            lines[1].contains("the quiet gate counted all 2 quiet (other processes under 3%"),
            "{}",
            lines[1]
        );
        assert!(
            lines[1].contains("1 of the 2 ran at p = 4 on 4 cores, where no core is free"),
            "{}",
            lines[1]
        );
        assert!(lines[1].ends_with("to leave them one"), "{}", lines[1]);
    }

    #[test]
    fn the_per_run_detail_stays() {
        let rw = campaign();
        let worst = &rw.warnings[1];
        assert_eq!((worst.point.as_str(), worst.round), ("n=64 p=4", Some(1)));
        assert!((worst.value - 1500.0).abs() < 1e-9, "{}", worst.value);
        assert!(worst.disturbed && worst.quiet == Some(true));
        assert!(worst
            .message
            .starts_with("the run was disturbed: 30.0 involuntary"));
        let json = serde_json::to_value(worst).unwrap();
        assert_eq!(json["check"], "switches");
        assert_eq!(json["limit"], 10.0);
        assert!(!rw.warnings[0].disturbed);
    }

    #[test]
    fn aggregated_text() {
        insta::assert_snapshot!(campaign().lines().join("\n"));
    }

    #[test]
    fn a_campaign_without_findings_has_no_line() {
        let mut rw = RunWarnings::default();
        rw.add(&run(20, 20.0, 0), at("n=1 p=1", 1, 0, None));
        assert!(rw.lines().is_empty() && rw.warnings.is_empty());
    }

    #[test]
    fn an_unmeasured_gate_is_said() {
        let mut rw = RunWarnings::on_cores(Some(2));
        rw.add(&run(20, 19.9, 30), at("n=1 p=1", 1, 0, None));
        let lines = rw.lines();
        assert!(
            lines[0].contains("other load was not measured during them"),
            "{}",
            lines[0]
        );
        assert!(
            lines[0].contains("rerun with fewer threads"),
            "{}",
            lines[0]
        );
    }
}
