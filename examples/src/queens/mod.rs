//! n-queens: count the first k solutions (in the serial search order) of the n-queens
//! problem, with two parallel structures (Crovella section 3.1's tree vs loop parallelism).
//!
//! The search tree places one queen per row, top to bottom, columns in increasing order;
//! its nodes at depth 2 (valid placements of rows 0 and 1) are the parallel work items, in
//! serial order. A [`Quota`] tracks which items are needed: once the items 0..=i (all
//! finished) hold k solutions, every item after i is speculative work that the serial search
//! would never have done. Such items stop early and their tasks are closed as *wasted*
//! (category `wc`).
//!
//! - [`tree`]: tree parallelism: all depth-2 subtrees searched in one parallel loop (most
//!   parallelism, most speculation when k is small).
//! - [`loop_par`]: loop parallelism: the depth-1 subtrees are visited in order; only the
//!   children of one depth-1 node are searched in parallel (speculation limited to one group,
//!   load imbalance at every group's end).

pub mod loop_par;
pub mod tree;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The source text of the tree-parallel version, as `lcm` reads it.
pub const TREE_SOURCE: &str = include_str!("tree.rs");
/// The source text of the loop-parallel version, as `lcm` reads it.
pub const LOOP_SOURCE: &str = include_str!("loop_par.rs");

/// Which parallel structure of the search to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QueensImpl {
    /// All depth-2 subtrees in one parallel loop.
    Tree,
    /// Depth-1 subtrees in order, each one's children in parallel.
    Loop,
}

impl QueensImpl {
    /// The short name used on the command line and in records (`tree`, `loop`).
    pub fn name(self) -> &'static str {
        match self {
            QueensImpl::Tree => "tree",
            QueensImpl::Loop => "loop",
        }
    }
}

/// A partial placement: queens on the first `row` rows, as occupied-column and diagonal masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// Next row to fill.
    pub row: u32,
    cols: u32,
    diag: u32,
    anti: u32,
}

impl Node {
    /// The empty board.
    pub fn root() -> Node {
        Node {
            row: 0,
            cols: 0,
            diag: 0,
            anti: 0,
        }
    }

    /// The children of this node on an n×n board (queen placed in row `row`), in increasing
    /// column order.
    pub fn children(&self, n: u32) -> Vec<Node> {
        let full = (1u32 << n) - 1;
        let mut free = full & !(self.cols | self.diag | self.anti);
        let mut out = Vec::new();
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            out.push(Node {
                row: self.row + 1,
                cols: self.cols | bit,
                diag: ((self.diag | bit) << 1) & full,
                anti: (self.anti | bit) >> 1,
            });
        }
        out
    }
}

/// Counts the solutions below `node` on an n×n board, in serial order, stopping at `limit`
/// solutions or as soon as `stop()` says so (checked every 1024 nodes).
pub fn search(node: Node, n: u32, limit: u64, stop: &dyn Fn() -> bool) -> u64 {
    search_counted(node, n, limit, stop).0
}

/// [`search`], returning also how many placements it tried (nodes visited): the work done.
pub fn search_counted(node: Node, n: u32, limit: u64, stop: &dyn Fn() -> bool) -> (u64, u64) {
    fn go(cols: u32, diag: u32, anti: u32, full: u32, st: &mut State<'_>) {
        if cols == full {
            st.found += 1;
            return;
        }
        let mut free = full & !(cols | diag | anti);
        while free != 0 && st.found < st.limit && !st.stopped {
            st.visited += 1;
            if st.visited & 1023 == 0 && (st.stop)() {
                st.stopped = true;
                return;
            }
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            go(
                cols | bit,
                ((diag | bit) << 1) & full,
                (anti | bit) >> 1,
                full,
                st,
            );
        }
    }
    struct State<'a> {
        found: u64,
        limit: u64,
        visited: u64,
        stopped: bool,
        stop: &'a dyn Fn() -> bool,
    }
    let full = (1u32 << n) - 1;
    let mut st = State {
        found: 0,
        limit,
        visited: 0,
        stopped: false,
        stop,
    };
    if limit > 0 {
        go(node.cols, node.diag, node.anti, full, &mut st);
    }
    (st.found, st.visited)
}

/// Searches work item i (the subtree below `node`) for up to the quota's k solutions as a
/// pplib task, stopping when the quota no longer needs it; the task is closed as wasted when
/// the item turned out not to be needed (speculative work). An item known to be unneeded
/// before it starts is skipped without a task: it does no work (and recording a task for
/// it would cost more than the check, an instrumentation cost the program does not have).
pub fn search_item(node: Node, n: u32, i: usize, quota: &Quota) {
    if quota.cancelled(i) {
        return;
    }
    let task = pplib::task();
    let found = search(node, n, quota.k, &|| quota.cancelled(i));
    quota.finish(i, found);
    if quota.cancelled(i) {
        task.wasted();
    }
}

/// How many depth-1 groups (subtrees of the first queen's placements, in serial order) hold
/// the first k solutions of n-queens: the trip count of [`loop_par`]'s inner loop (one
/// count), which stops after the group that completes the quota (all n groups when there are
/// fewer than k solutions).
/// A property of the input, computed by a serial count.
pub fn groups_needed(n: u32, k: u64) -> u64 {
    let mut total = 0;
    for (g, first) in Node::root().children(n).iter().enumerate() {
        total += search(*first, n, k - total, &|| false);
        if total >= k {
            return g as u64 + 1;
        }
    }
    n as u64
}

/// The work items [`tree`] starts in one count: every depth-2 node of the n×n board,
/// (n − 1)(n − 2) of them (an item after the one that completes the quota only checks the
/// quota and returns). A property of the input.
pub fn tree_items_walked(n: u32) -> u64 {
    depth2_groups(n).iter().map(|g| g.len() as u64).sum()
}

/// The work items [`loop_par`] starts in one count of the first k solutions: those of the
/// [`groups_needed`] depth-1 groups it visits (each group's parallel loop starts all of its
/// items, the speculative ones included). A property of the input, computed by a serial
/// count.
pub fn loop_items_walked(n: u32, k: u64) -> u64 {
    let groups = groups_needed(n, k) as usize;
    depth2_groups(n)
        .iter()
        .take(groups)
        .map(|g| g.len() as u64)
        .sum()
}

/// The depth-2 nodes of an n×n board in serial order, grouped by their depth-1 parent.
pub fn depth2_groups(n: u32) -> Vec<Vec<Node>> {
    Node::root()
        .children(n)
        .iter()
        .map(|c| c.children(n))
        .collect()
}

/// Which of a sequence of work items (subtrees in serial order) are still needed to find the
/// first `k` solutions. Items report their counts as they finish, in any order.
pub struct Quota {
    /// Solutions wanted.
    pub k: u64,
    /// Index of the last needed item once known, `usize::MAX` before.
    cutoff: AtomicUsize,
    done: Mutex<Progress>,
    met: AtomicBool,
}

struct Progress {
    counts: Vec<Option<u64>>,
    next: usize,
    sum: u64,
}

impl Quota {
    /// A quota of `k` solutions over `items` work items.
    pub fn new(items: usize, k: u64) -> Quota {
        Quota {
            k,
            cutoff: AtomicUsize::new(usize::MAX),
            done: Mutex::new(Progress {
                counts: vec![None; items],
                next: 0,
                sum: 0,
            }),
            met: AtomicBool::new(k == 0),
        }
    }

    /// Whether item i is speculative work that is no longer needed.
    pub fn cancelled(&self, i: usize) -> bool {
        i > self.cutoff.load(Ordering::Relaxed)
    }

    /// Records that item i finished with `found` solutions (possibly stopped early).
    pub fn finish(&self, i: usize, found: u64) {
        let mut d = self.done.lock().expect("quota lock");
        d.counts[i] = Some(found);
        while d.next < d.counts.len() && !self.met.load(Ordering::Relaxed) {
            let Some(c) = d.counts[d.next] else { break };
            d.sum += c;
            if d.sum >= self.k {
                self.cutoff.store(d.next, Ordering::Relaxed);
                self.met.store(true, Ordering::Relaxed);
            }
            d.next += 1;
        }
    }

    /// The first k solutions' count: `min(k, solutions in all items)` once every needed item
    /// has finished.
    pub fn total(&self) -> u64 {
        self.done.lock().expect("quota lock").sum.min(self.k)
    }

    /// Whether k solutions have been found in the items so far.
    pub fn met(&self) -> bool {
        self.met.load(Ordering::Relaxed)
    }
}

/// Placements the serial search tries (nodes visited) to find the first `k` solutions of
/// n-queens: the work of one count, a property of the input. The study chooses its
/// repetitions from it.
pub fn serial_work(n: u32, k: u64) -> u64 {
    search_counted(Node::root(), n, k, &|| false).1
}

/// The serial search's work (placements tried) in each depth-2 work item, in serial order,
/// to find the first `k` solutions: items after the one that completes the quota do none.
/// A property of the input, computed by a serial count.
pub fn useful_work_per_item(n: u32, k: u64) -> Vec<u64> {
    let mut found = 0;
    depth2_groups(n)
        .into_iter()
        .flatten()
        .map(|node| {
            if found >= k {
                return 0;
            }
            let (f, visited) = search_counted(node, n, k - found, &|| false);
            found += f;
            visited
        })
        .collect()
}

/// The useful-work span of [`tree`] on p threads, as a share of the whole useful work (from
/// 1/p, all threads busy with needed items, to 1, one thread does all of it): the work
/// items are split into p contiguous blocks (as rayon's halving of the parallel loop hands
/// them out), each thread searches its block in order, and a thread whose block lies after
/// the item that completes the quota does only speculative work, which stops when the quota
/// is met, so it cannot help the others: the count takes as long as the largest block's
/// useful work. `work` is [`useful_work_per_item`].
pub fn tree_span(work: &[u64], p: usize) -> f64 {
    blocks_span(work, &[work.len()], p)
}

/// The useful-work span of [`loop_par`] on p threads, as [`tree_span`] but per group: each
/// group's items (`sizes`, the groups' item counts in order, [`depth2_groups`]) are one
/// parallel loop split into p blocks, and the groups run one after the other.
pub fn loop_span(work: &[u64], sizes: &[usize], p: usize) -> f64 {
    blocks_span(work, sizes, p)
}

/// The sum over consecutive segments of `work` (lengths `sizes`) of the largest of each
/// segment's p contiguous blocks' work, as a share of the whole work, at least 1/p.
fn blocks_span(work: &[u64], sizes: &[usize], p: usize) -> f64 {
    let p = p.max(1);
    let total: u64 = work.iter().sum();
    if total == 0 {
        return 1.0 / p as f64;
    }
    let mut start = 0;
    let mut span = 0u64;
    for &len in sizes {
        let end = (start + len).min(work.len());
        let seg = &work[start..end];
        let n = seg.len();
        span += (0..p)
            .map(|j| seg[j * n / p..(j + 1) * n / p].iter().sum::<u64>())
            .max()
            .unwrap_or(0);
        start = end;
    }
    (span as f64 / total as f64).max(1.0 / p as f64)
}

/// Serial reference: the first `k` solutions' count, `min(k, Q(n))`.
pub fn count_serial(n: u32, k: u64) -> u64 {
    search(Node::root(), n, k, &|| false)
}

/// What one timed run gives.
#[derive(Clone, Debug)]
pub struct QueensRun {
    /// Wall-clock time of all `iters` counts (seconds), without building the thread pool.
    pub seconds: f64,
    /// Solutions counted: `min(k, Q(n))`.
    pub solutions: u64,
}

/// Errors of [`run`].
#[derive(Debug, thiserror::Error)]
pub enum QueensError {
    /// The board size is outside what the bitmask search supports.
    #[error("board size n must be in 4..=20, got {0}")]
    BadSize(u32),
    /// The count must be done at least once.
    #[error("iterations must be at least 1, got 0")]
    NoIterations,
    /// A thread pool could not be built.
    #[error("building a thread pool: {0}")]
    Pool(String),
    /// The profiling session could not be started or written.
    #[error("profiling session: {0}")]
    Session(String),
}

/// Runs version `imp` on an n×n board with p threads, counting the first k solutions
/// `iters` times over (each count from scratch: repetitions make a run long enough to time).
/// With `log`, the run is recorded by pplib into that file (p processors).
pub fn run(
    imp: QueensImpl,
    n: u32,
    k: u64,
    p: usize,
    iters: u64,
    log: Option<&std::path::Path>,
) -> Result<QueensRun, QueensError> {
    if !(4..=20).contains(&n) {
        return Err(QueensError::BadSize(n));
    }
    if iters == 0 {
        return Err(QueensError::NoIterations);
    }
    let pool = pplib::pool(p.max(1)).map_err(|e| QueensError::Pool(e.to_string()))?;
    let (solutions, seconds) = pool
        .install(|| {
            crate::profile::profiled(log, p, || match imp {
                QueensImpl::Tree => tree::count(n, k, iters),
                QueensImpl::Loop => loop_par::count(n, k, iters),
            })
        })
        .map_err(|e| QueensError::Session(e.to_string()))?;
    Ok(QueensRun { seconds, solutions })
}
