//! What the study needs to know about a program: its two versions (the one measured and the
//! one predicted), how to run each at a design point, and the variables `lcm` binds.

use super::design::{fft_iterations, queens_iterations, ProgramKind};
use crate::{fft, histogram, queens};
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

/// The other version's tasks form a two-stage pipeline (the TP 2D FFT): the
/// microbenchmarks that price its hand-offs and its data move between the stages, bound as
/// [`HANDOFF_VAR`] and [`TRANSFER_VAR`] for the rules in its source.
#[derive(Clone, Copy)]
pub struct Pipeline {
    /// Seconds per item the pipeline loses to its hand-offs, for stage times (a, b): one
    /// run of the microbenchmark (the study repeats it and keeps the median of the quiet
    /// runs).
    pub overhead: fn(f64, f64) -> f64,
    /// Seconds of the second stage's first fragment at a size when its input was written on
    /// its own processor and on the other stage's (one run of the microbenchmark: the study
    /// repeats it and prices the difference).
    pub transfer: fn(u64) -> (f64, f64),
}

/// Name of the variable that carries the hand-off cost per item (seconds) into `lcm`.
pub const HANDOFF_VAR: &str = "handoff_s";

/// Name of the variable that carries the transfer cost per execution of the second stage's
/// first fragment (seconds) into `lcm`.
pub const TRANSFER_VAR: &str = "transfer_s";

/// Per-key prices of the two versions' kernels on this machine, from a microbenchmark of
/// the program's own kernels ([`Case::kernels`]; the sharded histogram,
/// [`crate::histogram::kernels`]), seconds per key. Bound as `locked_key_s`,
/// `sharded_key_s` and `concurrent_key_s` ([`KernelPrices::vars`]) for the rules in the
/// other version's source.
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

    /// The prices as the variables of the histogram's rules (`sharded.rs`).
    pub fn vars(&self) -> [(String, f64); 3] {
        [
            ("locked_key_s".into(), self.base_key_s),
            ("sharded_key_s".into(), self.other_key_s),
            ("concurrent_key_s".into(), self.concurrent_key_s),
        ]
    }
}

/// Name of the variable that carries the other version's useful-work span ([`Case::span`]).
pub const SPAN_VAR: &str = "span";

/// Name of the variable that carries the base version's useful-work span
/// ([`Case::base_span`]).
pub const BASE_SPAN_VAR: &str = "base_span";

/// Name of the variable that carries fragment `name`'s co-run slowdown (a share of its pure
/// computation) into the rules of the other version's source (`contention = corun_NAME`).
pub fn co_run_var(name: &str) -> String {
    format!(
        "corun_{}",
        name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
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
    /// Fixed extra bindings (the board size of n-queens, the histogram's shard count).
    pub fixed: &'static [(&'static str, f64)],
    /// Iterations at a size, for a target run time (seconds).
    pub iterations: fn(u64, f64) -> u64,
    /// The function of both sources that `lcm` starts from.
    pub entry: &'static str,
    /// For programs whose other version runs tasks side by side (the TP 2D FFT): an
    /// uninstrumented instance of the program's kernels at a size, run on a second thread
    /// until the flag is set. The study measures the base version at p = 1 beside it (the
    /// co-run calibration) to price how much the fragments slow down when they share the
    /// machine, bound per fragment as [`co_run_var`].
    /// Returns the iterations of the kernels it did.
    pub co_runner: Option<fn(u64, &AtomicBool) -> u64>,
    /// The trip count of the base version's sequential loop at a size, bound as `groups`
    /// (n-queens: the depth-1 groups holding the first k solutions, a property of the input).
    pub groups: Option<fn(u64) -> f64>,
    /// One run of a microbenchmark of both versions' kernels (the sharded histogram,
    /// [`crate::histogram::kernels`]); the study repeats it
    /// ([`super::calibrate::kernel_prices`]) and binds the prices ([`KernelPrices::vars`]).
    pub kernels: Option<fn() -> crate::histogram::kernels::KernelTimes>,
    /// The other version's useful-work span at (size, p) as a share of the whole useful work
    /// (n-queens' tree version: [`crate::queens::tree_span`]), bound as [`SPAN_VAR`].
    pub span: Option<fn(u64, usize) -> f64>,
    /// The base version's useful-work span at (size, p) (n-queens' loop version, per group:
    /// [`crate::queens::loop_span`]), bound as [`BASE_SPAN_VAR`].
    pub base_span: Option<fn(u64, usize) -> f64>,
    /// Fragments that run a fixed number of times per run, outside the iterated loop (the
    /// 2D FFT's `alloc`: each version allocates its own number of matrices). Their records
    /// are divided by the number of times each ran (pp's `executions`), not by the
    /// iterations, so that their models are per execution as `lcm` counts them.
    pub setup: &'static [&'static str],
    /// The other version's tasks form a two-stage pipeline (the TP 2D FFT): the
    /// microbenchmarks of its hand-off and data move ([`Pipeline`]).
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
                kernels: None,
                span: None,
                base_span: None,
                setup: &["alloc"],
                pipeline: Some(Pipeline {
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
                fixed: &[("shards", histogram::SHARDS as f64)],
                iterations: |_, _| 1,
                entry: "fill",
                co_runner: None,
                groups: None,
                kernels: Some(histogram::kernels::kernel_times_once),
                span: None,
                base_span: None,
                setup: &[],
                pipeline: None,
            },
        }
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

/// The values the study measured once for the rules of both sources: per fragment the
/// co-run slowdown ([`co_run_var`], 0 for a fragment without one) and the kernel prices.
/// Without usable kernel prices the histogram's rules get equal prices (the sharded kernel
/// then costs what the locked one did and loses nothing to concurrency), with a warning.
pub fn rule_vars(
    case: &Case,
    fragments: &[String],
    co_run: &[(String, f64)],
    kernels: Option<&KernelPrices>,
    warnings: &mut Vec<String>,
) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = fragments
        .iter()
        .map(|f| {
            let k = co_run
                .iter()
                .find(|(name, _)| name == f)
                .map_or(0.0, |(_, k)| *k);
            (co_run_var(f), if k.is_finite() { k } else { 0.0 })
        })
        .collect();
    match (case.kernels, kernels) {
        (Some(_), Some(k)) => v.extend(k.vars()),
        (Some(_), None) => {
            warnings.push(
                "kernel microbenchmark: nothing usable; the sharded kernel is priced as the locked one"
                    .into(),
            );
            v.extend(
                KernelPrices {
                    base_key_s: 1.0,
                    other_key_s: 1.0,
                    concurrent_key_s: 1.0,
                }
                .vars(),
            );
        }
        _ => {}
    }
    v
}

/// The variables of a point as `lcm` binds them ([`Case::bindings`]), with the hand-off
/// price per item and the transfer price per execution (seconds) when the case's other
/// version is a pipeline, and the study's measured `rules` values ([`rule_vars`]).
pub fn point_vars(
    case: &Case,
    n: u64,
    p: usize,
    iters: u64,
    handoff: f64,
    transfer: f64,
    rules: &[(String, f64)],
) -> Vec<(String, f64)> {
    let mut v = case.bindings(n, p, iters);
    if case.pipeline.is_some() {
        v.push((HANDOFF_VAR.to_string(), handoff));
        v.push((TRANSFER_VAR.to_string(), transfer));
    }
    v.extend(rules.iter().cloned());
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::predict::Predictor;

    /// A models file giving every fragment of `names` every category the rules refer to
    /// (small constants and a size term), as `lca --emit annotation` would write it.
    fn models(names: &[&str]) -> String {
        names
            .iter()
            .map(|f| {
                format!(
                    "// lcm: fragment {f}\n// lcm: pc = 1e-9*n + 1e-6\n// lcm: ml = (p - 1)*1e-7\n// lcm: li = (p - 1)*1e-7\n// lcm: ip = (p - 1)*1e-7\n// lcm: sl = (p - 1)*1e-7\n// lcm: wc = (p - 1)*1e-7\n\n"
                )
            })
            .collect()
    }

    /// Both sources of every program resolve their rules against a models file of the
    /// measured version's fragments, and the study binds every variable they use: each
    /// version predicts a finite positive time at a point.
    #[test]
    fn the_study_binds_every_variable_of_the_rules() {
        for (program, fragments, size) in [
            (
                ProgramKind::Fft,
                &["alloc", "init", "cols", "transpose", "rows"][..],
                64,
            ),
            (ProgramKind::Histogram, &["fill"][..], 4096),
            (ProgramKind::Queens, &["search"][..], 100),
        ] {
            let case = Case::of(program);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("models.lcm");
            std::fs::write(&path, models(fragments)).unwrap();
            let names: Vec<String> = fragments.iter().map(|f| f.to_string()).collect();
            let co_run = vec![(names[0].clone(), 0.25)];
            let kernels = KernelPrices {
                base_key_s: 2e-9,
                other_key_s: 3e-9,
                concurrent_key_s: 5e-9,
            };
            let mut warnings = Vec::new();
            let rules = rule_vars(&case, &names, &co_run, Some(&kernels), &mut warnings);
            assert!(warnings.is_empty(), "{warnings:?}");
            let vars = point_vars(&case, size, 2, 3, 1e-6, 2e-6, &rules);
            for v in [case.other, case.base] {
                let model = Predictor::new(v.file, v.source, case.entry, &path, None, None)
                    .unwrap_or_else(|e| panic!("{}: {e}", v.file));
                let t = model
                    .seconds(&vars)
                    .unwrap_or_else(|e| panic!("{}: {e}", v.file));
                assert!(t.is_finite() && t > 0.0, "{}: {t}", v.file);
            }
        }
    }

    #[test]
    fn co_run_variables_are_names() {
        assert_eq!(co_run_var("cols"), "corun_cols");
        assert_eq!(co_run_var("fft.cols-2"), "corun_fft_cols_2");
    }
}
