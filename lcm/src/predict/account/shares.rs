//! What [`super::account`] returns: the shares of one prediction's breakdown at one point,
//! per fragment instance, parallel node and pipeline.

use lca::range::RangeWarning;
use serde::Serialize;
use std::collections::BTreeMap;

use crate::predict::few_items::FewItems;
use crate::predict::negative::NegativeModel;

/// One followed call on the way from the entry function to a fragment instance.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CallSite {
    /// The function called.
    pub function: String,
    /// Source line of the call.
    pub line: usize,
    /// How often the call runs each time the function that makes it runs: the trip counts,
    /// parallel copies and items around the call inside that function (1 when it sits in
    /// none of them), at the evaluated point.
    pub repeat: f64,
}

/// One fragment instance at the evaluated point.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FragmentShare {
    /// Fragment name.
    pub name: String,
    /// Source line (of the fragment's code; for `machine` rows, of the construct).
    pub line: usize,
    /// The calls that lead from the entry function to this instance, outermost first;
    /// empty when it sits in the entry function's own code. Two instances of a fragment
    /// in one function called from two places differ here, not in `line`.
    pub called_from: Vec<CallSite>,
    /// Executions in the whole run (product of enclosing trip counts and copies).
    pub executions: f64,
    /// Processors p_f of one execution.
    pub procs: f64,
    /// Seconds of one execution, T_f = work / p_f (communication not included).
    pub time_s: f64,
    /// Processor-seconds of one execution (sum of categories).
    pub work: f64,
    /// Communication seconds added before one execution (negative: removed): the move's
    /// seconds shared by the fragment's `procs` readers.
    pub comm_s: f64,
    /// Processor-seconds of one execution by category (record keys: `pc`, `ml`, `li`, …),
    /// the terms whose sum is `work`; a machine cost's row has its one `rt`.
    pub categories: BTreeMap<String, f64>,
}

/// A parallel node's structural load imbalance.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ParallelShare {
    /// Source line of the construct.
    pub line: usize,
    /// The construct.
    pub construct: String,
    /// LI+ = sum_t (max T - T_t) * p_t over the whole run, processor-seconds.
    pub li_plus: f64,
}

/// A pipeline stage.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StageShare {
    /// The stage (task) label.
    pub label: String,
    /// Seconds per data set (its fragments and its hand-offs).
    pub tau_s: f64,
    /// Seconds per data set its hand-offs add (`machine hand-off`; 0 without machine costs).
    pub handoff_s: f64,
    /// Data sets it processes.
    pub items: f64,
    /// Its processors.
    pub procs: f64,
}

/// A pipeline at the evaluated point.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PipelineShare {
    /// Source line.
    pub line: usize,
    /// The stages.
    pub stages: Vec<StageShare>,
    /// Fill: seconds until the first data set leaves the last stage (sum of tau).
    pub fill_s: f64,
    /// Index (0-based) of the bottleneck stage (largest items * tau).
    pub bottleneck: usize,
    /// Pipeline time (flow shop, van Gemund Eq. 3.16 for equal counts), seconds.
    pub time_s: f64,
    /// The phi/omega lower bound max(fill, bottleneck total), seconds.
    pub bound_s: f64,
    /// Processor-seconds the stages spend waiting for data or for the others to finish.
    pub waiting: f64,
    /// Each hand-off between neighbouring stages with its regime (empty without machine
    /// costs).
    pub handoffs: Vec<crate::predict::handoff::HandoffShare>,
}

/// The breakdown at one point.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Accounting {
    /// Machine processors p.
    pub p: f64,
    /// Fragment instances in program order.
    pub fragments: Vec<FragmentShare>,
    /// Parallel nodes with their LI+.
    pub parallels: Vec<ParallelShare>,
    /// Pipelines.
    pub pipelines: Vec<PipelineShare>,
    /// Processor-seconds left idle because a node uses fewer processors than it has.
    pub idle: f64,
    /// Critical-path time without synchronization waits and contention, seconds.
    pub critical_path_s: f64,
    /// Fragments evaluated beyond 2x the measured range of a variable their models use
    /// (at the fragment's own variables, after `p` and variable overrides), once per
    /// fragment and variable value.
    pub range_warnings: Vec<RangeWarning>,
    /// Models that evaluate negative at this point ([`crate::predict::negative`]), once per
    /// fragment instance and model.
    pub negative_models: Vec<NegativeModel>,
    /// Fragments whose one parallel loop has fewer items than their processors while
    /// their `li` leaves the processors without an item too little idle time
    /// ([`crate::predict::few_items`]), once per fragment instance.
    pub few_items: Vec<FewItems>,
}
