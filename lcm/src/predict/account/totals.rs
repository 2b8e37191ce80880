//! [`Totals`]: the sums of a prediction's breakdown, without its per-instance lists.

use crate::predict::few_items::FewItems;
use crate::predict::negative::NegativeModel;
use lca::range::RangeWarning;

/// The totals of a prediction's breakdown, without the per-instance lists: what its
/// contributions need. Every quantity is summed over the run (processor-seconds).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Totals {
    /// Per fragment name, in order of first appearance: executions times work.
    pub work: Vec<(String, f64)>,
    /// Communication: executions times the moves' seconds (processor-seconds: the
    /// fragment's p_f readers share each move, comm_s = move / p_f each).
    pub comm: f64,
    /// Structural load imbalance LI+ of all parallel nodes.
    pub li_plus: f64,
    /// Pipeline stages waiting.
    pub waiting: f64,
    /// Processors left idle.
    pub idle: f64,
    /// Range warnings, first seen first (as in [`Accounting::range_warnings`](super::Accounting::range_warnings)).
    pub range_warnings: Vec<RangeWarning>,
    /// Negative models, first seen first (as in [`Accounting::negative_models`](super::Accounting::negative_models)).
    pub negative_models: Vec<NegativeModel>,
    /// Fragments with fewer items than processors and too little `li` for them, first seen
    /// first (as in [`Accounting::few_items`](super::Accounting::few_items)).
    pub few_items: Vec<FewItems>,
    /// Per fragment name with a known error growth beyond its measured range, in order of
    /// first appearance: the largest relative error its executions add beyond the range
    /// ([`lca::extrapolation::widening`]; 0 inside it).
    pub widening: Vec<(String, f64)>,
}

impl Totals {
    pub(super) fn add_work(&mut self, name: &str, v: f64) {
        match self.work.iter_mut().find(|(n, _)| n == name) {
            Some((_, w)) => *w += v,
            None => self.work.push((name.to_string(), v)),
        }
    }

    pub(super) fn add_warning(&mut self, w: RangeWarning) {
        if !self.range_warnings.contains(&w) {
            self.range_warnings.push(w);
        }
    }

    pub(super) fn add_negative(&mut self, m: NegativeModel) {
        if !self.negative_models.contains(&m) {
            self.negative_models.push(m);
        }
    }

    pub(super) fn add_few_items(&mut self, x: FewItems) {
        if !self.few_items.contains(&x) {
            self.few_items.push(x);
        }
    }

    pub(super) fn add_widening(&mut self, name: &str, w: f64) {
        match self.widening.iter_mut().find(|(n, _)| n == name) {
            Some((_, x)) => *x = x.max(w),
            None => self.widening.push((name.to_string(), w)),
        }
    }

    /// The relative error the fragments add beyond their measured ranges, each weighed
    /// by its share of `total` (processor-seconds: the run's time times p): Σ over the
    /// fragments of `work / total · widening`.
    pub fn extrapolation_error(&self, total: f64) -> f64 {
        if total.is_nan() || total <= 0.0 {
            return 0.0;
        }
        self.widening
            .iter()
            .map(|(name, w)| {
                let work = self
                    .work
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(0.0, |(_, v)| *v);
                (work / total).clamp(0.0, 1.0) * w
            })
            .sum()
    }

    /// Adds `m` runs of `o`.
    pub(super) fn add_scaled(&mut self, o: &Totals, m: f64) {
        for (n, v) in &o.work {
            self.add_work(n, v * m);
        }
        self.comm += o.comm * m;
        self.li_plus += o.li_plus * m;
        self.waiting += o.waiting * m;
        self.idle += o.idle * m;
        for w in &o.range_warnings {
            self.add_warning(w.clone());
        }
        for w in &o.negative_models {
            self.add_negative(w.clone());
        }
        for x in &o.few_items {
            self.add_few_items(x.clone());
        }
        for (n, w) in &o.widening {
            self.add_widening(n, *w);
        }
    }
}
