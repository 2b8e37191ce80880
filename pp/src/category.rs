//! The lost-cycles categories (docs/predicates.md) and their record keys.

use std::fmt;

/// One category of a predicate profile. Values are processor-seconds (seconds summed over
/// processors), as in Crovella's `pp`.
///
/// The order of the variants is the order of the records (docs/records.md):
/// `li ip sl wc cl rc ml os pc rt tt over`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// Load Imbalance: idle processors while work exists (a `par` is open somewhere).
    Li,
    /// Insufficient Parallelism: idle processors while no work exists (serial code).
    Ip,
    /// Synchronization Loss: processors spinning or blocked in a `wait`.
    Sl,
    /// Wasted Computation: processors busy in tasks closed as wasted.
    Wc,
    /// Communication Loss: last-level-cache misses during Busy time × miss latency.
    Cl,
    /// Resource Contention: `max(0, ml − cl)` (needs a baseline and counters).
    Rc,
    /// Memory Loss (work inflation): `rt − rt_baseline` (needs a baseline).
    Ml,
    /// OS loss: Busy wall time − Busy CPU time (time a Busy thread was descheduled).
    Os,
    /// Pure Computation: the baseline's Remaining Time (needs a baseline).
    Pc,
    /// Remaining Time: processors busy (computation plus overhead not separated out).
    Rt,
    /// Total Time: p × window length.
    Tt,
    /// Oversubscription: thread-time in excess of p (more runnable threads than processors).
    Over,
}

impl Category {
    /// All categories in record order.
    pub const ALL: [Category; 12] = [
        Category::Li,
        Category::Ip,
        Category::Sl,
        Category::Wc,
        Category::Cl,
        Category::Rc,
        Category::Ml,
        Category::Os,
        Category::Pc,
        Category::Rt,
        Category::Tt,
        Category::Over,
    ];

    /// The record key (`li`, `ip`, ...).
    pub fn key(self) -> &'static str {
        match self {
            Category::Li => "li",
            Category::Ip => "ip",
            Category::Sl => "sl",
            Category::Wc => "wc",
            Category::Cl => "cl",
            Category::Rc => "rc",
            Category::Ml => "ml",
            Category::Os => "os",
            Category::Pc => "pc",
            Category::Rt => "rt",
            Category::Tt => "tt",
            Category::Over => "over",
        }
    }

    /// The human name (Crovella's wording).
    pub fn title(self) -> &'static str {
        match self {
            Category::Li => "Load Imbalance",
            Category::Ip => "Insufficient Parallelism",
            Category::Sl => "Synchronization Loss",
            Category::Wc => "Wasted Computation",
            Category::Cl => "Communication Loss",
            Category::Rc => "Resource Contention",
            Category::Ml => "Memory Loss",
            Category::Os => "OS Loss (descheduled)",
            Category::Pc => "Pure Computation",
            Category::Rt => "Remaining Time",
            Category::Tt => "Total Time",
            Category::Over => "Oversubscription",
        }
    }

    /// What usually causes this loss, for the one-line diagnosis.
    pub fn cause(self) -> &'static str {
        match self {
            Category::Li => "tasks of unequal length or too few tasks for the processors",
            Category::Ip => "serial code",
            Category::Sl => "waiting at locks, barriers, condition variables or channels",
            Category::Wc => "speculative work that was thrown away",
            Category::Cl => "cache misses: data moving between processors or from memory",
            Category::Rc => "contention for memory, interconnect or runtime resources",
            Category::Ml => {
                "work inflation compared with p = 1: memory, communication, runtime overhead"
            }
            Category::Os => "Busy threads descheduled by the OS",
            Category::Pc => "pure computation",
            Category::Rt => "computation",
            Category::Tt => "total",
            Category::Over => "more runnable threads than processors",
        }
    }

    /// The category with record key `key`.
    pub fn from_key(key: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.key() == key)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}
