//! What the study needs to know about a program: its two versions (the one measured and the
//! one predicted), how to run each at a design point, and the variables `lcm` binds.

use super::design::{fft_iterations, queens_iterations, ProgramKind};
use crate::{fft, histogram, queens};
use std::path::Path;

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
    /// Fragments whose records are totals per iteration of the program's loop, not per
    /// execution (pp's `--per-iteration`): those whose source says `// lcm: iterations =
    /// EXPR` in the fragment's block (their models are totals over that many executions),
    /// run a number of times per iteration that depends on the input (n-queens' loop
    /// version runs `search` once per group).
    pub per_iteration: &'static [&'static str],
}

/// Name of the variable that carries the other version's useful-work span ([`Case::span`]).
pub const SPAN_VAR: &str = "span";

/// Name of the variable that carries the base version's useful-work span
/// ([`Case::base_span`]).
pub const BASE_SPAN_VAR: &str = "base_span";

/// Name of the variable that carries the work items the other version starts per count
/// ([`Case::walked`]).
pub const WALKED_VAR: &str = "walked";

/// Name of the variable that carries the work items the base version starts per count
/// ([`Case::base_walked`]).
pub const BASE_WALKED_VAR: &str = "base_walked";

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
    /// The trip count of the base version's sequential loop at a size, bound as `groups`
    /// (n-queens: the depth-1 groups holding the first k solutions, a property of the input).
    pub groups: Option<fn(u64) -> f64>,
    /// The other version's useful-work span at (size, p) as a share of the whole useful work
    /// (n-queens' tree version: [`crate::queens::tree_span`]), bound as [`SPAN_VAR`].
    pub span: Option<fn(u64, usize) -> f64>,
    /// The base version's useful-work span at (size, p) (n-queens' loop version, per group:
    /// [`crate::queens::loop_span`]), bound as [`BASE_SPAN_VAR`].
    pub base_span: Option<fn(u64, usize) -> f64>,
    /// The work items the other version's parallel loops start per iteration at a size,
    /// needed or not (n-queens' tree version: all of the board's depth-2 items,
    /// [`crate::queens::tree_items_walked`]), bound as [`WALKED_VAR`].
    pub walked: Option<fn(u64) -> f64>,
    /// The work items the base version's parallel loops start per iteration (n-queens'
    /// loop version: those of the groups it visits, [`crate::queens::loop_items_walked`]),
    /// bound as [`BASE_WALKED_VAR`].
    pub base_walked: Option<fn(u64) -> f64>,
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
                    per_iteration: &[],
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
                    per_iteration: &[],
                },
                size_var: "n",
                iters_var: Some("iters"),
                fixed: &[],
                iterations: fft_iterations,
                entry: "fft2d",
                groups: None,
                span: None,
                base_span: None,
                walked: None,
                base_walked: None,
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
                    per_iteration: &["search"],
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
                    per_iteration: &[],
                },
                size_var: "k",
                iters_var: Some("iters"),
                fixed: &[("n", QUEENS_BOARD as f64)],
                iterations: queens_iterations,
                entry: "count",
                groups: Some(|k| queens::groups_needed(QUEENS_BOARD, k) as f64),
                span: Some(|k, p| queens::tree_span(&queens_items(k), p)),
                base_span: Some(|k, p| {
                    let sizes: Vec<usize> = queens::depth2_groups(QUEENS_BOARD)
                        .iter()
                        .map(Vec::len)
                        .collect();
                    queens::loop_span(&queens_items(k), &sizes, p)
                }),
                walked: Some(|_| queens::tree_items_walked(QUEENS_BOARD) as f64),
                base_walked: Some(|k| queens::loop_items_walked(QUEENS_BOARD, k) as f64),
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
                    per_iteration: &[],
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
                    per_iteration: &[],
                },
                size_var: "n",
                iters_var: None,
                fixed: &[("shards", histogram::SHARDS as f64)],
                iterations: |_, _| 1,
                entry: "fill",
                groups: None,
                span: None,
                base_span: None,
                walked: None,
                base_walked: None,
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
        if let Some(w) = self.walked {
            v.push((WALKED_VAR.to_string(), w(size)));
        }
        if let Some(w) = self.base_walked {
            v.push((BASE_WALKED_VAR.to_string(), w(size)));
        }
        v
    }
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

    /// A machine file with every key the rules may name (round numbers, as `lcm calibrate`
    /// writes them).
    const MACHINE: &str = "latency_s = 1e-7\nbandwidth_bytes_per_s = 1e10\ncalibrated_p = 2\n\
        fork_join_base_s = 1e-6\nfork_join_log2p_s = 1e-6\nfork_join_s_p1 = 1e-6\n\
        fork_join_s_p2 = 2e-6\npar_call_s_p1 = 1e-7\npar_call_s_p2 = 2e-6\ntask_s = 1e-7\n\
        par_item_s = 1e-9\nhandoff_spin_s = 1e-7\n\
        handoff_wake_s = 1e-5\nhandoff_notify_s = 2e-6\nhandoff_spin_window_s = 5e-6\n\
        transfer_s_4096 = 3e-7\n\
        transfer_s_67108864 = 1e-2\nlocal_read_s_4096 = 1e-7\nlocal_read_s_67108864 = 1e-2\n\
        line_bounce_s = 1e-7\nmem_slowdown_k1 = 1\nmem_slowdown_k2 = 1.5\n";

    /// Both sources of every program resolve their rules against a models file of the
    /// measured version's fragments and a machine file, with nothing but the point's own
    /// variables bound: each version predicts a finite positive time at a point. Each
    /// version's per-iteration fragments are those its source counts in totals.
    #[test]
    fn the_sources_need_only_the_models_the_machine_and_the_inputs() {
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
            let machine = dir.path().join("machine.txt");
            std::fs::write(&machine, MACHINE).unwrap();
            let vars = case.bindings(size, 2, 3);
            for v in [case.other, case.base] {
                let model = Predictor::new(
                    v.file,
                    v.source,
                    case.entry,
                    &path,
                    Some(machine.as_path()),
                    None,
                )
                .unwrap_or_else(|e| panic!("{}: {e}", v.file));
                let t = model
                    .seconds(&vars)
                    .unwrap_or_else(|e| panic!("{}: {e}", v.file));
                assert!(t.is_finite() && t > 0.0, "{}: {t}", v.file);
                // Records per iteration exactly for the fragments whose source counts their
                // models as totals over several executions.
                assert_eq!(
                    model.fragments_with_totals(),
                    v.per_iteration,
                    "{}: per-iteration fragments against the source's `iterations =` blocks",
                    v.file
                );
            }
        }
    }

    /// n-queens binds the items each version starts per count (the 13×13 board's 132
    /// depth-2 items; the loop version's first group holds the first 10 solutions, 11
    /// items), and where both versions' rules agree otherwise (one group, `span` =
    /// `base_span` = 1 at p = 2) the tree version is predicted slower by exactly its
    /// further items' walk: 121 items of `par_item_s` plus p/1000 of `par_call_s_p2`
    /// processor-seconds each (1 ns + 4 ns in [`MACHINE`]), over p = 2 processors, for
    /// each of the 3 counts.
    #[test]
    fn the_tree_version_pays_the_items_it_walks_beyond_the_loop_version() {
        let case = Case::of(ProgramKind::Queens);
        let vars = case.bindings(10, 2, 3);
        let var = |name: &str| vars.iter().find(|(k, _)| k == name).unwrap().1;
        assert_eq!(var(WALKED_VAR), 132.0);
        assert_eq!(var(BASE_WALKED_VAR), 11.0);
        assert_eq!(
            (var("groups"), var(SPAN_VAR), var(BASE_SPAN_VAR)),
            (1.0, 1.0, 1.0)
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("models.lcm");
        std::fs::write(&path, models(&["search"])).unwrap();
        let machine = dir.path().join("machine.txt");
        std::fs::write(&machine, MACHINE).unwrap();
        let seconds = |v: Version| {
            Predictor::new(v.file, v.source, case.entry, &path, Some(&machine), None)
                .unwrap()
                .seconds(&vars)
                .unwrap()
        };
        let extra = seconds(case.other) - seconds(case.base);
        let walk = 3.0 * 121.0 * (1e-9 + 2.0 * 2e-6 / 1000.0) / 2.0;
        assert!((extra - walk).abs() < 1e-6 * walk, "{extra} against {walk}");
    }
}
