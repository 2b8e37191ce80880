//! End-to-end tests of the lost-cycles toolchain live in `tests/tests/`, each next to its
//! fixture directory (of the same name), whose README says how it was made and what the
//! test must give. This library holds what several of them share: [`replay`], the offline
//! replay of a study measured elsewhere, [`tools`](mod@tools), the workspace's binaries,
//! and [`trial`], what the replays of new users' trials share.
//!
//! Replays of studies measured on other machines (library APIs only: `lca` fits the
//! measured version's records, `lcm` predicts both versions from today's annotated sources
//! in `examples/src/`, and the predictions are scored against the measured times):
//!
//! - `device16_2026_11_27.rs` and `device16_2026_11_28.rs`: the three studies (2D FFT,
//!   n-queens, histogram) run on a 16-core x86-64 host on 2026-11-27 and again on
//!   2026-11-28, with that host's calibrated machine files; the fixtures are in the
//!   repository, so they run everywhere. Each day's file names its fixture, the queens
//!   board and histogram shard count the studies used and its bounds; the replay itself is
//!   [`replay::device16`]. Each prints a per-point table, a diagnostic line with the host's
//!   speed drift between the study's phases taken out of the errors, and last a line
//!   `replay16-PROGRAM: points=N mean_err_pct=X max_err_pct=Y ranking_correct=K/N
//!   decisive=A/B`, and fails when a number is worse than the bounds written at the top of
//!   the file (the replayed values with some 10 % room). The histogram's table shows, per
//!   point, the processor time per key the sharded version lost beyond its computation
//!   next to what its annotation's `ml` rule gives.
//! - `fft_16core_replay.rs`: an earlier 16-core FFT study, with a machine file derived by
//!   hand (`fft_16core_machine.rs` checks the derivation); its data live beside the
//!   repository, so it checks nothing where they are absent.
//! - `readme_replay.rs`: the README's worked example with the command-line tools on a
//!   recorded quick study.
//! - `dnc_trial.rs`: a new user's trial on a program of their own, a recursive merge sort
//!   (`pplib::join` down to a cutoff) measured with a coarse cutoff and predicted with a
//!   fine one by the README's commands (`lca model --emit annotation`, `lcm predict` of a
//!   source whose rule prices the recursion's extra joins with `join_s`), checked against
//!   both versions' recorded runs on a loaded 2-core machine: ranking at every point,
//!   processor time at p = 1 within 25 %. `-- --nocapture` prints the per-point table.
//! - `mandelbrot_trial.rs`: a new user's trial on a load-imbalanced program, the
//!   Mandelbrot set with its rows cut into p static blocks (measured) and dealt as single
//!   items (predicted by a rule that keeps the work, replaces the imbalance by one average
//!   row per extra thread and prices the items with the machine file), by the README's
//!   commands; checked against both versions' recorded runs on a loaded 2-core machine:
//!   `li` in the profile, ranking and ratio at p = 2, every point within 20 % (the
//!   restructuring within 10 %), the range warnings above p = 2, `lcm compare`'s verdicts.
//!
//! `cargo test --release -p tests --test device16_2026_11_27 -- --nocapture` (or
//! `device16_2026_11_28`) shows the tables.
//!
//! C and OpenMP programs (sources in `tests/c/`, each saying how it is built and what it
//! must give; compiled by the tests, skipped where clang/libomp or gcc are missing):
//!
//! - `openmp_tool.rs`: pplib as an OpenMP tool, construct by construct, at 1 and 2 threads.
//! - `openmp_models.rs`: the README's C path with the command-line tools: `pp-campaign`
//!   with the tool, `lca model --emit annotation`, `lca eval`; region names survive it.
//! - `c_header.rs`: the hand instrumentation `pplib.h`'s comment shows gives load
//!   imbalance at a barrier.

#![deny(missing_docs)]

pub mod replay;
pub mod tools;
pub mod trial;

pub use tools::tools;
