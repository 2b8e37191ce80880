//! What the study needs to know about a program: its two versions (the one measured and the
//! one predicted), how to run each at a design point, and the variables `lcm` binds.

use super::design::{fft_iterations, ProgramKind};
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
}

/// n-queens board size the queens study uses.
pub const QUEENS_BOARD: u32 = 11;

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
            },
            ProgramKind::Queens => Case {
                program,
                base: Version {
                    name: "loop",
                    file: "loop_par.rs",
                    source: queens::LOOP_SOURCE,
                    run: |k, p, _, log| {
                        queens::run(queens::QueensImpl::Loop, QUEENS_BOARD, k, p, log)
                            .map(|r| r.seconds)
                            .map_err(|e| e.to_string())
                    },
                    min_p: 1,
                },
                other: Version {
                    name: "tree",
                    file: "tree.rs",
                    source: queens::TREE_SOURCE,
                    run: |k, p, _, log| {
                        queens::run(queens::QueensImpl::Tree, QUEENS_BOARD, k, p, log)
                            .map(|r| r.seconds)
                            .map_err(|e| e.to_string())
                    },
                    min_p: 1,
                },
                size_var: "k",
                iters_var: None,
                fixed: &[("n", QUEENS_BOARD as f64)],
                iterations: |_, _| 1,
                entry: "count",
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
        v
    }
}
