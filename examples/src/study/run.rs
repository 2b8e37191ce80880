//! One measured run of a program version: its time and its lost-cycles categories.

use std::collections::BTreeMap;

/// Processor-seconds per category (`li`, `ip`, `sl`, `wc`, `pc`, `ml`, `rt`, `tt`, …).
pub type Categories = BTreeMap<String, f64>;

/// The fastest of the repetitions of one version at one design point.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Version name (`dp`, `tp`, …).
    pub version: String,
    /// Size variable.
    pub n: u64,
    /// Processors.
    pub p: usize,
    /// Iterations (or the program's second variable).
    pub iters: u64,
    /// Wall-clock time of the timed region, seconds.
    pub seconds: f64,
    /// Whole-session categories (processor-seconds over the run); empty if not profiled.
    pub session: Categories,
    /// Per fragment categories (processor-seconds over the run, all executions).
    pub fragments: BTreeMap<String, Categories>,
}

impl Run {
    /// Seconds per iteration.
    pub fn seconds_per_iter(&self) -> f64 {
        self.seconds / self.iters.max(1) as f64
    }
}

/// The categories a stacked bar shows, bottom to top, and whether each is an overhead.
/// `rt` is shown only when the pure-computation split (`pc` + `ml`) is absent.
pub const STACK_ORDER: [&str; 8] = ["pc", "ml", "rt", "wc", "sl", "li", "ip", "over"];

/// The categories of `c` to stack (see [`STACK_ORDER`]), with their values.
pub fn stack(c: &Categories) -> Vec<(&'static str, f64)> {
    let split = c.contains_key("pc");
    STACK_ORDER
        .iter()
        .filter(|k| !(split && **k == "rt") && !(!split && (**k == "pc" || **k == "ml")))
        .filter_map(|k| c.get(*k).map(|v| (*k, *v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_prefers_the_pc_ml_split() {
        let mut c = Categories::new();
        for (k, v) in [
            ("rt", 3.0),
            ("pc", 2.0),
            ("ml", 1.0),
            ("li", 0.5),
            ("tt", 3.5),
        ] {
            c.insert(k.into(), v);
        }
        assert_eq!(stack(&c), vec![("pc", 2.0), ("ml", 1.0), ("li", 0.5)]);
        c.remove("pc");
        c.remove("ml");
        assert_eq!(stack(&c), vec![("rt", 3.0), ("li", 0.5)]);
    }
}
