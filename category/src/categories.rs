//! The lost-cycles categories (docs/predicates.md): record keys, names, order, parts.

use std::fmt;

/// One category of a predicate profile. Values are processor-seconds (seconds summed over
/// processors), as in Crovella's `pp`.
///
/// # Fork/join latency (`fj`), a part of `li`
/// `li` is the idle processor-time while *Work_Exists* (some `par` is open on some thread).
/// `fj` is the part of `li` at the instants when, in addition, **no thread runs a task**.
/// A thread runs a task while the innermost `task` or `par` construct on its own stack is a
/// `task`: it is Busy in the task's code (or in a fragment inside it), or Spinning in a
/// `wait` inside it. A thread whose innermost of the two is a `par` waits for a join and
/// runs nothing, even if tasks that enclose that `par` are still open on its stack.
/// So `fj ≤ li`, `li` stays the whole (`li + ip + sl + wc + rt = tt` holds as before), and
/// `li − fj` is the idle time while some task was running: tasks of unequal length, or
/// fewer tasks than processors.
///
/// Which tasks belong to an open `par`: every task that runs while that `par` is open, on
/// any thread. A log does not say which fork a task came from (a work-stealing runtime runs
/// a stolen task on another thread, under that thread's own `par` if it is waiting in one),
/// so `pp` does not guess: the `par`s open at an instant, nested ones and those of other
/// threads alike, are taken together as *the open parallel work*, and an instant is `fj`
/// when none of them has a running task.
/// - Nesting: a task that forks (opens a `par`) and waits for its join does not run while
///   it waits. The wake-up and the join of a nested `par` are `fj` when nothing else runs,
///   like those of the outermost one; while a task of an enclosing `par` runs on another
///   thread, the idle processors are plain `li`.
/// - Concurrent `par`s (of different threads): one `par` waiting for its first task while
///   another one's tasks run is plain `li` (its idle processors could take that work).
/// - A task on a thread with no `par` on its stack (a pool worker's stolen task) runs for
///   every open `par`; a task that began before any `par` opened counts once one is open.
///
/// In practice `fj` is the runtime's fork wake-up (from `par_begin` until the first task
/// starts anywhere), its join latency (from the end of the last task until `par_end`) and
/// any gap between tasks during which every task has ended and the next has not begun.
/// At such an instant all p − B − S idle processors count (B and S are the threads that
/// are Busy, in serial code, or Spinning outside tasks). In OpenMP the encountering
/// thread runs its implicit task from the start of a region, so the workers' wake-up shows
/// as plain `li`; only the time before that task begins and after it ends is `fj`.
///
/// The order of the variants is the order of the records (docs/records.md):
/// `li fj ip sl wc cl rc ml os pc rt tt over` (`fj` is a part of `li`, placed after it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// Load Imbalance: idle processors while work exists (a `par` is open somewhere).
    Li,
    /// Fork/join latency, the part of `li` during which no thread runs a task (the
    /// runtime's fork wake-up and join; see the type's docs). Not added into `tt`.
    Fj,
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
    pub const ALL: [Category; 13] = [
        Category::Li,
        Category::Fj,
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
    pub const fn key(self) -> &'static str {
        match self {
            Category::Li => "li",
            Category::Fj => "fj",
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
            Category::Fj => "Fork/Join Latency",
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
            Category::Fj => {
                "the runtime waking threads before the first task and joining after the last"
            }
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

    /// Whether the category is a part of another one (`fj` of `li`) rather than a term of
    /// `li + ip + sl + wc + rt = tt`: records carry it after that category, `lca` reads it
    /// like any category but never adds it to the others.
    pub const fn part_of(self) -> Option<Category> {
        match self {
            Category::Fj => Some(Category::Li),
            _ => None,
        }
    }

    /// The category with record key `key`.
    pub fn from_key(key: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.key() == key)
    }

    /// The categories that sum exactly to this one, empty for the others:
    /// `tt = li + ip + sl + wc + rt` (the partition of the processor-time, see
    /// [`crate::time::TT_PARTITION`]) and, with a baseline, `rt = pc + ml`
    /// ([`crate::time::RT_SPLIT`]).
    pub const fn sum_of(self) -> &'static [Category] {
        match self {
            Category::Tt => &crate::time::TT_PARTITION,
            Category::Rt => &crate::time::RT_SPLIT,
            _ => &[],
        }
    }

    /// Every category that is not a part of another one ([`Category::part_of`]), in record
    /// order: `li ip sl wc cl rc ml os pc rt tt over`.
    pub const PRIMARY: [Category; 12] = select(false);

    /// Every category that is a part of another one, in record order: `fj` (of `li`).
    pub const PARTS: [Category; 1] = select(true);
}

/// The categories of `Category::ALL` that are parts of another one (`parts`) or not, in
/// record order; `N` must be their number (checked when the constant is evaluated).
const fn select<const N: usize>(parts: bool) -> [Category; N] {
    let mut out = [Category::Li; N];
    let (mut i, mut j) = (0, 0);
    while i < Category::ALL.len() {
        if Category::ALL[i].part_of().is_some() == parts {
            assert!(j < N, "more categories than the array holds");
            out[j] = Category::ALL[i];
            j += 1;
        }
        i += 1;
    }
    assert!(j == N, "fewer categories than the array holds");
    out
}

/// The record keys of `categories`, in their order (a constant where `categories` is one:
/// `keys(Category::PRIMARY)` is `["li", "ip", …, "over"]`).
pub const fn keys<const N: usize>(categories: [Category; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = categories[i].key();
        i += 1;
    }
    out
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl std::str::FromStr for Category {
    type Err = UnknownCategory;

    fn from_str(key: &str) -> Result<Category, UnknownCategory> {
        Category::from_key(key).ok_or_else(|| UnknownCategory(key.to_owned()))
    }
}

/// A key that names no category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCategory(pub String);

impl fmt::Display for UnknownCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected a category ({}), found `{}`",
            keys(Category::ALL).join(" "),
            self.0
        )
    }
}

impl std::error::Error for UnknownCategory {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_read_back() {
        for c in Category::ALL {
            assert_eq!(Category::from_key(c.key()), Some(c));
            assert_eq!(c.key().parse::<Category>(), Ok(c));
            assert_eq!(c.to_string(), c.key());
        }
        let mut k = keys(Category::ALL).to_vec();
        k.sort_unstable();
        k.dedup();
        assert_eq!(k.len(), Category::ALL.len());
        assert_eq!(Category::from_key("time"), None);
        let e = "LI".parse::<Category>().unwrap_err();
        assert!(e.to_string().contains("li fj ip"), "{e}");
    }

    #[test]
    fn record_order_and_parts() {
        assert_eq!(
            keys(Category::ALL).join(" "),
            "li fj ip sl wc cl rc ml os pc rt tt over"
        );
        assert_eq!(
            keys(Category::PRIMARY).join(" "),
            "li ip sl wc cl rc ml os pc rt tt over"
        );
        assert_eq!(Category::PARTS, [Category::Fj]);
        assert_eq!(Category::Fj.part_of(), Some(Category::Li));
        // ALL is sorted by the derived order, which is the record order.
        assert!(Category::ALL.windows(2).all(|w| w[0] < w[1]));
    }
}
