//! What the study needs to know about a program: its two versions (the one measured and the
//! one predicted), how to run each at a design point, and the variables `lcm` binds.

use super::design::{fft_iterations, queens_iterations, ProgramKind};
use super::model::FragmentFit;
use crate::{fft, histogram, queens};
use lca::expr::{BinOp, Expr};
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// One version of a program: its name, its `lcm` source and how to run it.
#[derive(Clone, Copy)]
pub struct Version {
    /// Short name (`dp`, `tp`, …).
    pub name: &'static str,
    /// File name of its source (`dp.rs`), as written into the report directory.
    pub file: &'static str,
    /// Its source text (input of `lcm predict`).
    pub source: &'static str,
    /// Runs it once at (size, p, iters), recording into the log file when given, returning
    /// the timed region's seconds.
    pub run: fn(u64, usize, u64, Option<&Path>) -> Result<f64, String>,
    /// Smallest p it runs at.
    pub min_p: usize,
}

/// The other version's tasks as a pipeline: which fragments each stage runs, and the
/// machine's prices of a hand-off between stages (see [`crate::fft::handoff`]) and of moving
/// the handed-over data to the second stage's processor (see [`crate::fft::transfer`]).
#[derive(Clone, Copy)]
pub struct Pipeline {
    /// Fragments of each stage, in order (the first of each carries the hand-off's cost;
    /// the first of the second stage, which reads what the first stage handed over, carries
    /// the transfer's).
    pub stages: [&'static [&'static str]; 2],
    /// Seconds per item the pipeline loses to its hand-offs, for stage times (a, b): one
    /// run of the microbenchmark (the study repeats it and keeps the least of the quiet
    /// runs).
    pub overhead: fn(f64, f64) -> f64,
    /// Seconds of the second stage's first fragment at a size when its input was written on
    /// its own processor and on the other stage's (one run of the microbenchmark: the study
    /// repeats it, keeps the least of each over the quiet runs, and prices the difference).
    pub transfer: fn(u64) -> (f64, f64),
}

/// Name of the variable that carries the hand-off cost per item (seconds) into `lcm`.
pub const HANDOFF_VAR: &str = "handoff_s";

/// Name of the variable that carries the transfer cost per execution of the second stage's
/// first fragment (seconds) into `lcm`.
pub const TRANSFER_VAR: &str = "transfer_s";

/// Per-key prices of the two versions' kernels on this machine, from a microbenchmark of
/// the program's own kernels ([`Case::kernels`]; the sharded histogram,
/// [`crate::histogram::kernels`]), seconds per key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelPrices {
    /// The base version's kernel on one thread.
    pub base_key_s: f64,
    /// The other version's kernel on one thread.
    pub other_key_s: f64,
    /// The other version's kernel run by two threads at once on the same data
    /// (processor-seconds per key).
    pub concurrent_key_s: f64,
}

impl KernelPrices {
    /// The other version's pure computation per unit of the base version's.
    pub fn work_ratio(&self) -> f64 {
        self.other_key_s / self.base_key_s
    }

    /// Processor-seconds per key the other version loses at p = 2 to running its kernel
    /// on two processors at once (at least 0).
    pub fn concurrent_loss_s(&self) -> f64 {
        (self.concurrent_key_s - self.other_key_s).max(0.0)
    }
}

/// Name of the variable that carries the other version's useful-work span ([`Case::span`]).
pub const SPAN_VAR: &str = "span";

/// Name of the variable that carries the base version's useful-work span
/// ([`Case::base_span`]).
pub const BASE_SPAN_VAR: &str = "base_span";

/// `pc * (p * span - 1)` for fragment `f` (unchanged when it has no `pc`), in place of its
/// `wc`: the processors' time beyond the useful work while the longest block finishes.
fn speculation(f: &FragmentFit, span: &str) -> FragmentFit {
    let Some(pc) = f.categories.iter().find(|c| c.category == "pc") else {
        return f.clone();
    };
    let p_span = Expr::bin(BinOp::Mul, Expr::Var("p".into()), Expr::Var(span.into()));
    let wc = Expr::bin(
        BinOp::Mul,
        pc.expr.clone(),
        Expr::bin(BinOp::Sub, p_span, Expr::Num(1.0)),
    );
    f.without("wc").with_extra(
        "wc",
        wc,
        &format!("speculation: pc*(p*{span}-1), from the blocks' useful work"),
    )
}

/// Memoized per-item useful work of the study's n-queens board at k.
fn queens_items(k: u64) -> Vec<u64> {
    use std::collections::BTreeMap;
    use std::sync::{Mutex, OnceLock};
    static MEMO: OnceLock<Mutex<BTreeMap<u64, Vec<u64>>>> = OnceLock::new();
    let memo = MEMO.get_or_init(Default::default);
    if let Some(w) = memo.lock().ok().and_then(|m| m.get(&k).cloned()) {
        return w;
    }
    let w = queens::useful_work_per_item(QUEENS_BOARD, k);
    if let Ok(mut m) = memo.lock() {
        m.insert(k, w.clone());
    }
    w
}

/// A program of the study.
#[derive(Clone, Copy)]
pub struct Case {
    /// Which program.
    pub program: ProgramKind,
    /// The version that is measured and fitted.
    pub base: Version,
    /// The version that is predicted before it runs.
    pub other: Version,
    /// Name of the size variable in records and models (`n`, `k`).
    pub size_var: &'static str,
    /// Name of the second variable (`iters`), bound with the iterations of each point.
    pub iters_var: Option<&'static str>,
    /// Fixed extra bindings (the board size of n-queens).
    pub fixed: &'static [(&'static str, f64)],
    /// Iterations at a size, for a target run time (seconds).
    pub iterations: fn(u64, f64) -> u64,
    /// The function of both sources that `lcm` starts from.
    pub entry: &'static str,
    /// For programs whose other version runs tasks side by side (the TP 2D FFT): an
    /// uninstrumented instance of the program's kernels at a size, run on a second thread
    /// until the flag is set. The study measures the base version at p = 1 beside it (the
    /// co-run calibration) to price how much the fragments slow down when they share the
    /// machine.
    /// Returns the iterations of the kernels it did.
    pub co_runner: Option<fn(u64, &AtomicBool) -> u64>,
    /// The trip count of the base version's sequential loop at a size, bound as `groups`
    /// (n-queens: the depth-1 groups holding the first k solutions, a property of the input).
    /// The fitted models are per execution of the outer loop (per run divided by `iters`: one
    /// whole count); the base version's copy divides them by `groups` (per inner loop
    /// iteration), and the other version, one parallel loop over all groups' items,
    /// has its load imbalance and insufficient parallelism (paid once per parallel loop) divided
    /// by `groups`.
    pub groups: Option<fn(u64) -> f64>,
    /// Locks of the other version per lock of the base version (the sharded histogram: one
    /// lock per shard instead of one). With keys spread evenly, the chance that an
    /// acquisition finds its lock held (`sl`) scales by 1 / this. The memory loss (`ml`) is
    /// not the base version's: see [`Case::kernels`].
    pub lock_ratio: Option<f64>,
    /// One run of a microbenchmark of both versions' kernels (the sharded histogram,
    /// [`crate::histogram::kernels`]); the study repeats it ([`super::calibrate::kernel_prices`])
    /// and the other version's models become: pure computation `pc` times
    /// [`KernelPrices::work_ratio`], and in place of the base version's memory loss `ml`
    /// (lock-line bouncing behind one lock that serializes the threads), the concurrent
    /// kernel's loss, `n * (p - 1) * 2 / p * ` [`KernelPrices::concurrent_loss_s`]
    /// processor-seconds per execution (all of it at p = 2; in proportion to the chance
    /// (p − 1) / p that another thread wrote an increment's lines last, beyond).
    pub kernels: Option<fn() -> crate::histogram::kernels::KernelTimes>,
    /// The other version's useful-work span at (size, p) as a share of the whole useful work
    /// (n-queens' tree version: [`crate::queens::tree_span`]), bound as [`SPAN_VAR`]: one
    /// thread per contiguous block of work items, a block after the quota's last item
    /// speculates and cannot help. The other version's speculative work `wc` becomes
    /// `pc * (p * span - 1)` (the processors' time beyond the useful work while the count
    /// waits for the longest block), in place of the base version's (speculation within
    /// one group only).
    pub span: Option<fn(u64, usize) -> f64>,
    /// The base version's useful-work span at (size, p) (n-queens' loop version, per group:
    /// [`crate::queens::loop_span`]), bound as [`BASE_SPAN_VAR`]: the same rule for the base
    /// version's own speculation, whose fitted `wc` (a smooth function of the size) cannot
    /// follow the steps of the span.
    pub base_span: Option<fn(u64, usize) -> f64>,
    /// Fragments that run a fixed number of times per run, outside the iterated loop (the
    /// 2D FFT's `alloc`: each version allocates its own number of matrices). Their records
    /// are divided by the number of times each ran (pp's `executions`), not by the
    /// iterations, so that their models are per execution as `lcm` counts them; they run
    /// before the other version's tasks, so no co-run slowdown is added to them.
    pub setup: &'static [&'static str],
    /// The other version's tasks form a two-stage pipeline (the TP 2D FFT): the study
    /// measures the hand-off's cost at the predicted stage times and adds it to the first
    /// fragment of each stage (bound as [`HANDOFF_VAR`]).
    pub pipeline: Option<Pipeline>,
}

/// n-queens board size the queens study uses: 73712 solutions, found in 13 depth-1 groups
/// of some 4 ms each on one core (counting all takes some 50 ms). The loop version's
/// parallel loops then last long enough for a sleeping worker to wake and join in on a
/// loaded machine (with groups well under a millisecond, the second thread often comes too
/// late and the loop version hardly speeds up at p = 2).
pub const QUEENS_BOARD: u32 = 13;

impl Case {
    /// The case of `program`.
    pub fn of(program: ProgramKind) -> Case {
        match program {
            ProgramKind::Fft => Case {
                program,
                base: Version {
                    name: "dp",
                    file: "dp.rs",
                    source: fft::DP_SOURCE,
                    run: |n, p, iters, log| {
                        fft::run(fft::FftImpl::Dp, n as usize, p, iters as usize, log)
                            .map(|r| r.seconds)
                            .map_err(|e| e.to_string())
                    },
                    min_p: 1,
                },
                other: Version {
                    name: "tp",
                    file: "tp.rs",
                    source: fft::TP_SOURCE,
                    run: |n, p, iters, log| {
                        fft::run(fft::FftImpl::Tp, n as usize, p, iters as usize, log)
                            .map(|r| r.seconds)
                            .map_err(|e| e.to_string())
                    },
                    min_p: 2,
                },
                size_var: "n",
                iters_var: Some("iters"),
                fixed: &[],
                iterations: fft_iterations,
                entry: "fft2d",
                co_runner: Some(|n, stop| fft::co_run(n as usize, stop) as u64),
                groups: None,
                lock_ratio: None,
                kernels: None,
                span: None,
                base_span: None,
                setup: &["alloc"],
                pipeline: Some(Pipeline {
                    stages: [&["init", "cols"], &["transpose", "rows"]],
                    overhead: fft::handoff::handoff_overhead_once,
                    transfer: |n| fft::transfer::transfer_once(n as usize),
                }),
            },
            ProgramKind::Queens => Case {
                program,
                base: Version {
                    name: "loop",
                    file: "loop_par.rs",
                    source: queens::LOOP_SOURCE,
                    run: |k, p, iters, log| {
                        queens::run(queens::QueensImpl::Loop, QUEENS_BOARD, k, p, iters, log)
                            .map(|r| r.seconds)
                            .map_err(|e| e.to_string())
                    },
                    min_p: 1,
                },
                other: Version {
                    name: "tree",
                    file: "tree.rs",
                    source: queens::TREE_SOURCE,
                    run: |k, p, iters, log| {
                        queens::run(queens::QueensImpl::Tree, QUEENS_BOARD, k, p, iters, log)
                            .map(|r| r.seconds)
                            .map_err(|e| e.to_string())
                    },
                    min_p: 1,
                },
                size_var: "k",
                iters_var: Some("iters"),
                fixed: &[("n", QUEENS_BOARD as f64)],
                iterations: queens_iterations,
                entry: "count",
                co_runner: None,
                groups: Some(|k| queens::groups_needed(QUEENS_BOARD, k) as f64),
                lock_ratio: None,
                kernels: None,
                span: Some(|k, p| queens::tree_span(&queens_items(k), p)),
                base_span: Some(|k, p| {
                    let sizes: Vec<usize> = queens::depth2_groups(QUEENS_BOARD)
                        .iter()
                        .map(Vec::len)
                        .collect();
                    queens::loop_span(&queens_items(k), &sizes, p)
                }),
                setup: &[],
                pipeline: None,
            },
            ProgramKind::Histogram => Case {
                program,
                base: Version {
                    name: "locked",
                    file: "locked.rs",
                    source: histogram::LOCKED_SOURCE,
                    run: |n, p, _, log| {
                        histogram::run(histogram::HistogramImpl::Locked, n, p, log)
                            .map(|r| r.seconds)
                            .map_err(|e| e.to_string())
                    },
                    min_p: 1,
                },
                other: Version {
                    name: "sharded",
                    file: "sharded.rs",
                    source: histogram::SHARDED_SOURCE,
                    run: |n, p, _, log| {
                        histogram::run(histogram::HistogramImpl::Sharded, n, p, log)
                            .map(|r| r.seconds)
                            .map_err(|e| e.to_string())
                    },
                    min_p: 1,
                },
                size_var: "n",
                iters_var: None,
                fixed: &[],
                iterations: |_, _| 1,
                entry: "fill",
                co_runner: None,
                groups: None,
                lock_ratio: Some(histogram::SHARDS as f64),
                kernels: Some(histogram::kernels::kernel_times_once),
                span: None,
                base_span: None,
                setup: &[],
                pipeline: None,
            },
        }
    }

    /// The base version's and the other version's fragment models from the fitted ones
    /// (per run of the base version): the structural rules of [`Case::groups`] and
    /// [`Case::lock_ratio`], the co-run slowdown `co_run` (per fragment, a share of pure
    /// computation) for the other version's tasks that share the machine, and for a
    /// [`Pipeline`] the hand-off (a variable, [`HANDOFF_VAR`]).
    pub fn version_fits(
        &self,
        fits: &[FragmentFit],
        co_run: &[(String, f64)],
        kernels: Option<&KernelPrices>,
    ) -> (Vec<FragmentFit>, Vec<FragmentFit>) {
        let mut base = Vec::new();
        let mut other = Vec::new();
        for f in fits {
            let mut b = f.clone();
            let mut o = f.clone();
            if self.groups.is_some() {
                let per = Expr::bin(BinOp::Div, Expr::Num(1.0), Expr::Var("groups".into()));
                b = b.scaled(None, &per, "per group");
                o = o.scaled(Some(&["li", "ip"]), &per, "one parallel loop");
            }
            if let Some(r) = self.lock_ratio {
                o = o.scaled(Some(&["sl"]), &Expr::Num(1.0 / r), "locks x{r}");
            }
            if let Some(k) = kernels {
                o = o.scaled(
                    Some(&["pc"]),
                    &Expr::Num(k.work_ratio()),
                    "kernel work ratio (microbenchmark)",
                );
                // n * (p - 1) * 2 / p * loss
                let p = || Expr::Var("p".into());
                let share = Expr::bin(
                    BinOp::Div,
                    Expr::bin(
                        BinOp::Mul,
                        Expr::Num(2.0),
                        Expr::bin(BinOp::Sub, p(), Expr::Num(1.0)),
                    ),
                    p(),
                );
                let loss = Expr::bin(
                    BinOp::Mul,
                    Expr::bin(
                        BinOp::Mul,
                        Expr::Num(k.concurrent_loss_s()),
                        Expr::Var(self.size_var.into()),
                    ),
                    share,
                );
                o = o.without("ml").with_extra(
                    "ml",
                    loss,
                    "n*2(p-1)/p*concurrent kernel loss (microbenchmark)",
                );
            }
            if self.span.is_some() {
                o = speculation(&o, SPAN_VAR);
            }
            if self.base_span.is_some() {
                b = speculation(&b, BASE_SPAN_VAR);
            }
            let k = co_run
                .iter()
                .find(|(name, _)| *name == f.name && !self.setup.contains(&name.as_str()))
                .map_or(0.0, |(_, k)| *k);
            let mut o = o.with_co_run(k);
            if let Some(pl) = &self.pipeline {
                if pl
                    .stages
                    .iter()
                    .any(|st| st.first() == Some(&f.name.as_str()))
                {
                    // Per execution, on the stage's p processors: handoff_s * p / p.
                    let h = Expr::bin(
                        BinOp::Mul,
                        Expr::Var(HANDOFF_VAR.into()),
                        Expr::Var("p".into()),
                    );
                    o = o.with_extra("sl", h, "hand-off (measured) * p");
                }
                if pl.stages[1].first() == Some(&f.name.as_str()) {
                    // Per execution, on the stage's p processors: transfer_s * p / p.
                    let t = Expr::bin(
                        BinOp::Mul,
                        Expr::Var(TRANSFER_VAR.into()),
                        Expr::Var("p".into()),
                    );
                    o = o.with_extra("ml", t, "transfer (measured) * p");
                }
            }
            base.push(b);
            other.push(o);
        }
        (base, other)
    }

    /// The variables of a point as `lcm` binds them: size, p, iterations, fixed ones.
    pub fn bindings(&self, size: u64, p: usize, iters: u64) -> Vec<(String, f64)> {
        let mut v = vec![
            (self.size_var.to_string(), size as f64),
            ("p".to_string(), p as f64),
        ];
        if let Some(it) = self.iters_var {
            v.push((it.to_string(), iters as f64));
        }
        v.extend(self.fixed.iter().map(|(k, x)| (k.to_string(), *x)));
        if let Some(g) = self.groups {
            v.push(("groups".to_string(), g(size)));
        }
        if let Some(s) = self.span {
            v.push((SPAN_VAR.to_string(), s(size, p)));
        }
        if let Some(s) = self.base_span {
            v.push((BASE_SPAN_VAR.to_string(), s(size, p)));
        }
        v
    }
}

/// The variables of a point as `lcm` binds them ([`Case::bindings`]), with the hand-off
/// price per item and the transfer price per execution (seconds) when the case's other
/// version is a pipeline.
pub fn point_vars(
    case: &Case,
    n: u64,
    p: usize,
    iters: u64,
    handoff: f64,
    transfer: f64,
) -> Vec<(String, f64)> {
    let mut v = case.bindings(n, p, iters);
    if case.pipeline.is_some() {
        v.push((HANDOFF_VAR.to_string(), handoff));
        v.push((TRANSFER_VAR.to_string(), transfer));
    }
    v
}
