//! Profiles: the categories of one window, in seconds, ready for output.

use serde::Serialize;

use crate::accum::{ns_to_seconds, ThreadNanos};
use crate::category::Category;
use crate::sweep::{Durations, SweepResult, WindowResult};

/// The lost-cycles profile of one window (the session or one fragment) of one log.
///
/// All times are processor-seconds (seconds summed over processors, Crovella's convention):
/// `tt = p × elapsed`. A category that was not measured is `None` (absent from every output).
/// Invariant: `li + ip + sl + wc + rt = tt` up to float rounding (exact integer nanoseconds
/// inside the engine); `fj` is a part of `li` (`0 ≤ fj ≤ li`), not a term of the sum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    /// `None` for the session, the fragment name for a fragment window.
    pub tag: Option<String>,
    /// p, processors of the run.
    pub processors: u32,
    /// Length of the window in seconds (wall clock; `tt / p`).
    pub elapsed: f64,
    /// Load Imbalance.
    pub li: f64,
    /// Fork/join latency: the part of `li` during which no thread ran a task (see
    /// [`crate::category`]).
    pub fj: f64,
    /// Insufficient Parallelism.
    pub ip: f64,
    /// Synchronization Loss.
    pub sl: f64,
    /// Wasted Computation.
    pub wc: f64,
    /// Remaining Time.
    pub rt: f64,
    /// Total Time.
    pub tt: f64,
    /// Oversubscription: thread-seconds in excess of p; present only when it occurred.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over: Option<f64>,
    /// Pure Computation (`rt` of the baseline); with a baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pc: Option<f64>,
    /// Memory Loss, `rt − pc`; with a baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ml: Option<f64>,
    /// Communication Loss, misses × latency; with `llc_misses` counters and a miss latency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cl: Option<f64>,
    /// Resource Contention, `max(0, ml − cl)`; with a baseline, counters and a latency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rc: Option<f64>,
    /// OS loss, Busy wall time − Busy CPU time; with `cpu_ns` counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os: Option<f64>,
    /// Last-level-cache misses during Busy time; with `llc_misses` counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llc_misses: Option<f64>,
    /// Involuntary context switches during Busy time (the OS gave a Busy thread's processor
    /// to another process or thread); with `nivcsw` counters. A count, shared among
    /// windows in proportion to Busy time, so it may have a fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nivcsw: Option<f64>,
    /// Busy wall time covered by the `nivcsw` samples, seconds (what [`Profile::nivcsw`]
    /// is a count over).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nivcsw_busy: Option<f64>,
    /// Executions of the fragment: the intervals of the union of its executions on all
    /// threads (executions that overlap count once); `None` for the session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executions: Option<u64>,
    /// Per-thread view (Crovella's Table 4.2).
    pub threads: Vec<ThreadProfile>,
    /// Idle processor-seconds that no present idle thread could take (processors without a
    /// thread): `(li, ip)`. Together with the threads' rows they sum to the profile.
    pub unattributed: (f64, f64),
    /// Task and wait duration percentiles (with `--histograms`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub durations: Option<DurationSummary>,
    /// `rt` as exact thread-nanoseconds (so that `ml = rt − pc` is exact).
    #[serde(skip)]
    pub(crate) rt_nanos: ThreadNanos,
}

/// One thread's share of a profile, processor-seconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadProfile {
    /// The log's thread id.
    pub thread: u32,
    /// Share of the idle processors while work exists (idle processors are shared equally
    /// among the present idle threads).
    pub li: f64,
    /// Share of the idle processors while no work exists.
    pub ip: f64,
    /// Spinning.
    pub sl: f64,
    /// Busy in wasted tasks.
    pub wc: f64,
    /// Busy, not wasted.
    pub rt: f64,
}

/// Percentiles of a set of durations, seconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Percentiles {
    /// Number of durations.
    pub count: u64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

/// Task and wait durations of a window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DurationSummary {
    /// Tasks (begin to end, nested work included); `None` when there were none.
    pub tasks: Option<Percentiles>,
    /// Waits; `None` when there were none.
    pub waits: Option<Percentiles>,
}

fn percentiles(h: &hdrhistogram::Histogram<u64>) -> Option<Percentiles> {
    if h.is_empty() {
        return None;
    }
    let s = |ns: u64| ns as f64 / 1e9;
    Some(Percentiles {
        count: h.len(),
        p50: s(h.value_at_quantile(0.5)),
        p90: s(h.value_at_quantile(0.9)),
        p99: s(h.value_at_quantile(0.99)),
        max: s(h.max()),
    })
}

impl DurationSummary {
    fn of(d: &Durations) -> DurationSummary {
        DurationSummary {
            tasks: percentiles(&d.tasks),
            waits: percentiles(&d.waits),
        }
    }
}

impl Profile {
    /// The profile of one window of a sweep. `miss_latency_ns` (nanoseconds per
    /// last-level-cache miss) turns counted misses into `cl`.
    pub fn from_window(
        result: &SweepResult,
        window: &WindowResult,
        miss_latency_ns: Option<f64>,
    ) -> Profile {
        let t = &window.totals;
        let p = result.processors;
        let misses = result.misses_sampled.then_some(t.misses);
        Profile {
            tag: window.tag.clone(),
            processors: p,
            elapsed: ns_to_seconds(t.span),
            li: ns_to_seconds(t.li),
            fj: ns_to_seconds(t.fj),
            ip: ns_to_seconds(t.ip),
            sl: t.sl.seconds(),
            wc: t.wasted.seconds(),
            rt: t.rt().seconds(),
            tt: ns_to_seconds(t.span * u128::from(p)),
            over: (t.over > 0).then(|| ns_to_seconds(t.over)),
            pc: None,
            ml: None,
            cl: misses.zip(miss_latency_ns).map(|(m, lat)| m * lat / 1e9),
            rc: None,
            os: result.cpu_sampled.then_some(t.os / 1e9),
            llc_misses: misses,
            nivcsw: result.switches_sampled.then_some(t.switches),
            nivcsw_busy: result
                .switches_sampled
                .then_some(t.switches_sampled_busy_wall / 1e9),
            executions: window.tag.as_ref().map(|_| t.openings),
            threads: window
                .threads
                .iter()
                .map(|(id, th)| ThreadProfile {
                    thread: id.0,
                    li: th.li / 1e9,
                    ip: th.ip / 1e9,
                    sl: th.sl.seconds(),
                    wc: th.wasted.seconds(),
                    rt: (th.busy - th.wasted).seconds(),
                })
                .collect(),
            unattributed: (
                ns_to_seconds(t.unattributed_li),
                ns_to_seconds(t.unattributed_ip),
            ),
            durations: window.durations.as_ref().map(DurationSummary::of),
            rt_nanos: t.rt(),
        }
    }

    /// The value of a category, `None` when it was not measured.
    pub fn get(&self, c: Category) -> Option<f64> {
        match c {
            Category::Li => Some(self.li),
            Category::Fj => Some(self.fj),
            Category::Ip => Some(self.ip),
            Category::Sl => Some(self.sl),
            Category::Wc => Some(self.wc),
            Category::Cl => self.cl,
            Category::Rc => self.rc,
            Category::Ml => self.ml,
            Category::Os => self.os,
            Category::Pc => self.pc,
            Category::Rt => Some(self.rt),
            Category::Tt => Some(self.tt),
            Category::Over => self.over,
        }
    }

    /// The measured categories with their values, in record order
    /// (`li fj ip sl wc cl rc ml os pc rt tt over`).
    pub fn categories(&self) -> Vec<(Category, f64)> {
        Category::ALL
            .into_iter()
            .filter_map(|c| self.get(c).map(|v| (c, v)))
            .collect()
    }

    /// `li + ip + sl + wc + rt − tt` relative to `tt` (0 for an empty window): the check of
    /// the invariant (the partition [`crate::category::time::TT_PARTITION`]).
    pub fn invariant_error(&self) -> f64 {
        let sum = crate::category::time::TT_PARTITION
            .iter()
            .map(|c| self.get(*c).unwrap_or(0.0))
            .sum::<f64>();
        if self.tt == 0.0 {
            sum.abs()
        } else {
            ((sum - self.tt) / self.tt).abs()
        }
    }

    /// Adds the categories that need a baseline (the same program, window and input at
    /// p = 1): `pc = rt_baseline`, `ml = rt − pc`, and with `cl` also `rc = max(0, ml − cl)`.
    pub fn apply_baseline(&mut self, baseline: &Profile) {
        let pc = baseline.rt;
        let (a, b) = (self.rt_nanos, baseline.rt_nanos);
        let exact = a.exact as i128 - b.exact as i128;
        let ml = (exact as f64 + (a.scaled - b.scaled)) / 1e9;
        self.pc = Some(pc);
        self.ml = Some(ml);
        self.rc = self.cl.map(|cl| (ml - cl).max(0.0));
    }

    /// The label of the window: `session` or the fragment name.
    pub fn window_name(&self) -> &str {
        self.tag.as_deref().unwrap_or("session")
    }
}
