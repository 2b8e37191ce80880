//! Fragments whose one parallel iterator has fewer items than the fragment's processors,
//! while their models leave the processors without an item no idle time.
//!
//! # The rule
//! A fragment's time is its models' processor-seconds over its processors p_f: the
//! composition assumes the models hold every processor's time, the idle ones' too (`li`).
//! Where the fragment's code is one data-parallel loop of k items (its `items =` line or
//! the recognized count) and k < p_f, at most k processors work at once, so the fragment
//! lasts at least its busy time B (every time term but the idle ones, `li` and `ip`) over
//! k, and its `li` must be at least `B·(p_f − k)/k`. A rule that gives less (`li = 0`, a
//! measured `li` from a version with many items, or a tail rule that leaves out the memory
//! loss the busy processors pay) predicts a speed-up the code cannot have. At every point a
//! prediction evaluates, such a fragment is flagged when its `li` is below 90 % of that
//! floor; nothing is changed (as for negative models, [`super::negative`]: the models are
//! used as they are, and the warning says what to write).
//!
//! Only a fragment whose code holds exactly one parallel construct, a data-parallel loop run
//! once per execution, is checked: with more, the floor holds for the part of the work in
//! each loop, which the models do not split.
//!
//! ```
//! use lcm::predict::few_items::check;
//! use lcm::predict::tree::{Fragment, InnerConstruct};
//! use lca::expr::{parse, Expr};
//! let mut f = Fragment::named("sweep");
//! f.inside.constructs.push(InnerConstruct {
//!     what: "data-parallel `par_chunks_mut` (line 9)".into(),
//!     line: 9,
//!     threads: parse("4").unwrap(),
//!     data_parallel: true,
//!     times: Expr::Num(1.0),
//! });
//! let terms = [("pc".to_string(), 16.0), ("li".to_string(), 0.0)];
//! let at = |e: &Expr| e.eval(&Default::default()).ok();
//! // 4 items for 16 processors: 16 processor-s of work take at least 4 s on 4 of them,
//! // while the other 12 idle: li must be 48 processor-s at least.
//! let found = check(&f, 7, 16.0, &terms, &at).unwrap();
//! assert_eq!((found.items, found.needed_s), (4.0, 48.0));
//! ```

use super::tree::Fragment;
use lca::expr::Expr;
use serde::Serialize;
use std::fmt;

/// A fragment whose models leave the processors beyond its loop's items too little idle
/// time at one point (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FewItems {
    /// The fragment.
    pub fragment: String,
    /// Its source line.
    pub line: usize,
    /// The loop's source line.
    pub loop_line: usize,
    /// The loop's items at the point.
    pub items: f64,
    /// The fragment's processors at the point.
    pub processors: f64,
    /// The fragment's `li` at the point, processor-seconds per execution.
    pub li_s: f64,
    /// The least `li` the items allow, `B·(p_f − k)/k`, processor-seconds per execution.
    pub needed_s: f64,
}

impl fmt::Display for FewItems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "fragment `{}` (line {}): its loop at line {} has {} items for {} processors, so {} of them idle while it runs, {:.3e} processor-s an execution at least, but its models' li gives {:.3e}: the prediction assumes work that the items cannot spread; write li for the processors without an item (docs/models.md, \"Derived models\")",
            self.fragment,
            self.line,
            self.loop_line,
            lca::expr::format_number(self.items),
            lca::expr::format_number(self.processors),
            lca::expr::format_number(self.processors - self.items),
            self.needed_s,
            self.li_s,
        )
    }
}

/// Share of the floor below which a fragment's `li` is flagged (room for rounding in the
/// item count and for a rule that prices the tail a little differently).
const FLAGGED_BELOW: f64 = 0.9;

/// Fragment `f` (at `line`) on `processors` processors, with `categories` its time terms
/// at the point (record key, processor-seconds per execution) and `value` evaluating its
/// loop's expressions there (None where one cannot be): the finding, or None when the rule
/// does not apply or its `li` covers the floor.
pub fn check(
    f: &Fragment,
    line: usize,
    processors: f64,
    categories: &[(String, f64)],
    value: &dyn Fn(&Expr) -> Option<f64>,
) -> Option<FewItems> {
    let [c] = &f.inside.constructs[..] else {
        return None;
    };
    if !c.data_parallel || value(&c.times)? != 1.0 {
        return None;
    }
    let items = value(&c.threads)?;
    if !(items >= 1.0 && items < processors) {
        return None;
    }
    let li: f64 = categories
        .iter()
        .filter(|(k, _)| k == "li")
        .map(|x| x.1)
        .sum();
    let busy: f64 = categories
        .iter()
        .filter(|(k, _)| k != "li" && k != "ip")
        .map(|x| x.1)
        .sum();
    let needed = busy * (processors - items) / items;
    (busy > 0.0 && li < FLAGGED_BELOW * needed).then(|| FewItems {
        fragment: f.name.clone(),
        line,
        loop_line: c.line,
        items,
        processors,
        li_s: li,
        needed_s: needed,
    })
}

/// The lines to print for `found` (every point's findings together): one per fragment
/// instance and loop, the finding with the most processors without an item, and at how many
/// of the points the fragment was flagged.
pub fn warning_lines(found: &[FewItems]) -> Vec<String> {
    let mut worst: Vec<(&FewItems, usize)> = Vec::new();
    for x in found {
        let same =
            |w: &FewItems| (&w.fragment, w.line, w.loop_line) == (&x.fragment, x.line, x.loop_line);
        match worst.iter_mut().find(|(w, _)| same(w)) {
            Some((w, n)) => {
                *n += 1;
                if x.processors - x.items > w.processors - w.items {
                    *w = x;
                }
            }
            None => worst.push((x, 1)),
        }
    }
    worst
        .into_iter()
        .map(|(w, n)| match n {
            1 => format!("warning: {w}"),
            _ => format!("warning: {w} (flagged at {n} points; the one with the most processors without an item shown)"),
        })
        .collect()
}
