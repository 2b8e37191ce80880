//! The machine file: what parallel execution costs on a machine, measured once by
//! `lcm calibrate` and read by `lcm predict --machine FILE`.
//!
//! # Format
//! UTF-8 text, one `key = value` per line; `#` starts a comment. Every value is a number in
//! the unit its key names (`_s` seconds, `_bytes_per_s` bytes per second, no suffix: a
//! ratio or a count). Unknown keys are ignored by the format (later versions may add
//! some); a known key with a value that is not a finite number in its range, or a line
//! without `=`, is an error naming the line. Every numeric key, known or not, is bound as a
//! variable of the same name in the annotation expressions of a program predicted with the
//! file (a value the user sets on the command line wins), so a restructuring rule may say
//! `// lcm: rt = rt_measured * mem_slowdown_k2`.
//!
//! ## Communication (required; files of every version have them)
//! - `latency_s`: one-way latency of a cache-line hand-off between two threads (ping-pong
//!   of an atomic, both spinning), seconds; prices a data move together with
//! - `bandwidth_bytes_per_s`: bytes per second copying a buffer another thread just wrote.
//!
//! ## Run-time costs (optional; a file without them, as older files are, predicts without
//! machine costs, as `lcm predict` without `--machine` does)
//! Present when `fork_join_base_s` is; then the six below are required.
//! - `fork_join_base_s`, `fork_join_log2p_s`: the fork/join latency of q threads,
//!   `fork_join_base_s + fork_join_log2p_s * log2(q)` seconds, a least-squares fit (slope at
//!   least 0) to the measured `fork_join_s_pQ`;
//! - `fork_join_s_pQ` (Q = 1, 2, … up to `calibrated_p`): seconds of one
//!   `rayon::broadcast` of an empty closure inside a pool of Q threads (every thread runs
//!   it, the calling worker waits for all), back to back (workers awake);
//! - `par_call_s_pQ` (optional; Q = 1, 2, … up to `calibrated_p`): seconds one small
//!   parallel-iterator call adds, issued from inside a pool of Q threads back to back: a
//!   `fold/reduce` over 1000 trivially cheap items, its time less the items' work on one
//!   thread divided by Q (at least 0). It holds the job splitting, the other workers'
//!   steals and the reduction tree's joins that one call pays beyond a fork/join; lcm
//!   charges it, in place of the fork/join, on every parallel-iterator call
//!   ([`Costs::par_call_s_expr`]); a file without it charges the fork/join;
//! - `par_call_items` (optional; a count): the items of each call `par_call_s_pQ` prices,
//!   so that a rule can name one item's share of a small call's scheduling,
//!   `par_call_s_pp / par_call_items`. A file with `par_call_s_pQ` keys but without it
//!   binds it as 1000, the count all of them were measured with;
//! - `task_s`: processor-seconds per task spawned in a `rayon::scope` (100 000 empty tasks on
//!   a pool of `calibrated_p` threads: time times threads over tasks);
//! - `join_s` (optional): processor-seconds per `rayon::join` of a recursive divide and
//!   conquer (a binary join tree of empty leaves on a pool of `calibrated_p` threads, its
//!   time times threads less the same recursion with plain calls, over the joins; at least
//!   0). Not charged by lcm itself: the joins of a recursion are inside the function a
//!   fragment calls, and a restructuring rule that changes their number names it
//!   (docs/models.md, "Recursive parallelism");
//! - `par_item_s`: processor-seconds per item a parallel iterator adds over a sequential loop
//!   (`(0..N).into_par_iter().for_each` of an empty body, time times threads, less the
//!   sequential loop, over N; at least 0);
//! - `handoff_spin_s`: one-way hand-off latency to a thread that spins on the value (the same
//!   kernel as `latency_s`; `lcm calibrate` keeps at most the whole one-way hand-off to a
//!   parked receiver, from the start of the send to the receiver running: a spinning
//!   partner that lost its processor handed off through the scheduler);
//! - `handoff_wake_s`: how much later a channel receiver that had parked (slept 1 ms or more)
//!   runs after the send returned than a spinning one would: what the woken stage pays on
//!   the items it parks on (how many: [`super::handoff`]);
//! - `handoff_notify_s` (optional): what waking that parked receiver adds to the send: what
//!   a pipeline stage pays on each item whose partner sleeps while it waits (both measured
//!   on a `crossbeam_channel`, docs/machine.md "Prices of a wake-up");
//! - `handoff_spin_window_s` (optional): the longest wait for which a receiver blocked on
//!   an empty channel (`crossbeam_channel`, `std::sync::mpsc`: spin, yield, then park) is
//!   still caught spinning; a pipeline stage that waits longer per item sleeps and is woken
//!   ([`super::handoff::HandoffRule`]). Without it lcm takes every wait as caught spinning
//!   (`handoff_spin_s` per item, as files without the key were read before);
//! - `transfer_s_B` (B bytes, a few sizes from L1 to beyond the last-level cache): seconds
//!   for one thread to read a B-byte buffer another thread has just written (writer and
//!   reader pinned to two distinct processors);
//! - `local_read_s_B` (the same sizes; optional): seconds for one thread to read a B-byte
//!   buffer it has just written itself; `transfer_s_B − local_read_s_B` is what the move
//!   between processors adds ([`Costs::move_s`]);
//! - `line_bounce_s` (optional): seconds an atomic update (a lock's acquisition, an
//!   increment) adds when another processor wrote the line last (two threads, each on a
//!   processor of its own, updating random lines of 64 shared ones at once, against one
//!   alone; the next line does not depend on the last update, so trips may overlap, as in
//!   a program whose next key does not depend on its last update); the mean over up to 12
//!   distinct pairs of processors of each pair's median, since a program's threads use
//!   all pairs ([`crate::calibrate::pairs`]);
//! - `line_bounce_pair_spread` (optional; a ratio, at least 1): the dearest pair's
//!   `line_bounce_s` over the cheapest's, with two priced pairs or more;
//! - `line_trip_s` (optional): the same with each update's line depending on the value the
//!   previous one read, so that no trip overlaps another: a line's whole trip (over the
//!   same pairs). A file without it binds it as `latency_s`, the one-way hand-off of a
//!   line to a spinning reader, the same trip measured by another kernel;
//! - `line_lock_s` (optional): `line_trip_s` with each update under a lock of its own (a
//!   `std::sync::Mutex` on one block guarding a data line on another): what a sharded
//!   lock's update pays when another processor did the last one, two lines whose trips the
//!   processor may or may not overlap. A file without it binds it as `2 * line_trip_s`
//!   (two whole trips);
//! - `line_bounce_s_kK` (optional; K = 3 … `calibrated_p`): the same price with K threads
//!   updating the lines at once (over the chance (K − 1)/K that another wrote the line last);
//! - `line_bounce_per_thread_s` (optional): what each processor beyond two adds to a
//!   bounce among three or more, the least-squares slope of `line_bounce_s_kK` over
//!   K ≥ 3 (with one such K, the slope from `line_bounce_s` to it), at least 0
//!   ([`crate::calibrate::lines::per_thread_growth`]: the K = 2 price, possibly a
//!   stand-in, is not in the slope). lcm binds it from the file's family members beyond
//!   K = 2 whenever there are any (files of earlier versions wrote a slope through K = 2,
//!   or no key), else the file's value, else 0.
//!   `line_bounce_s` is the family's K = 2 member and is bound as `line_bounce_s_k2` too,
//!   so that `line_bounce_s_kp` (the family at the fragment's processors,
//!   [`indexed`]) is `line_bounce_s` at p = 2, also in a file from a 2-processor machine;
//! - `mem_slowdown_kK` (K = 1 … `calibrated_p`): time of a STREAM triad pass (three arrays
//!   beyond the last-level cache per thread) when K threads run it at once, over its time
//!   alone (a ratio, 1 for K = 1);
//! - `calibrated_p`: the threads the measurements went up to (this machine's processors).
//!
//! How each number is kept (the median of quiet repetitions; for the two-processor line
//! prices the mean over pairs of processors of each pair's median) is in
//! [`crate::calibrate`].
//!
//! ```
//! use lcm::predict::machine::Machine;
//! let m = Machine::parse("m.txt", "# lcm machine\nlatency_s = 1e-7\nbandwidth_bytes_per_s = 5e9\n").unwrap();
//! assert_eq!(m.latency_s, 1e-7);
//! assert!(m.costs.is_none());
//! assert!(m.to_text().contains("bandwidth_bytes_per_s = 5000000000"));
//! ```

use super::error::PredictError;
use std::collections::BTreeMap;

mod costs;
pub mod indexed;
mod keys;
mod stand_in;
pub use costs::Costs;
use keys::{describe, family, key_range, read_values, COST_KEYS};

/// The prices of a machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    /// One-way latency of a transfer between two processors, seconds.
    pub latency_s: f64,
    /// Copy bandwidth between processors, bytes per second.
    pub bandwidth_bytes_per_s: f64,
    /// Run-time costs; None for a file without them (or no file).
    pub costs: Option<Costs>,
    /// Where the numbers came from (file name, or `default`).
    pub origin: String,
    /// Every numeric key of the file with its value (bound as variables in predictions).
    pub values: BTreeMap<String, f64>,
}

impl Default for Machine {
    /// Typical figures of a current multicore (200 ns, 5 GB/s) for when no machine file is
    /// given, and no run-time costs; `lcm calibrate` measures the real ones.
    fn default() -> Self {
        Machine {
            latency_s: 2e-7,
            bandwidth_bytes_per_s: 5e9,
            costs: None,
            origin: "default (run `lcm calibrate` for this machine's)".into(),
            values: BTreeMap::new(),
        }
    }
}

impl Machine {
    /// Parses a machine file's text (`name` is used in messages).
    pub fn parse(name: &str, text: &str) -> Result<Machine, PredictError> {
        let err = |line: usize, message: String| PredictError::Machine {
            file: name.to_string(),
            line,
            message,
        };
        let values = read_values(text, &err)?;
        let lines = text.lines().count().max(1);
        let need = |key: &str| {
            values.get(key).copied().ok_or_else(|| {
                err(
                    lines,
                    format!("expected a `{key} = NUMBER` line, found none"),
                )
            })
        };
        let latency_s = need("latency_s")?;
        let bandwidth_bytes_per_s = need("bandwidth_bytes_per_s")?;
        let costs = if values.contains_key("fork_join_base_s") {
            for k in COST_KEYS {
                need(k)?;
            }
            Some(Costs::from_values(&values))
        } else {
            None
        };
        Ok(Machine {
            latency_s,
            bandwidth_bytes_per_s,
            costs,
            origin: name.to_string(),
            values,
        })
    }

    /// Reads a machine file.
    pub fn load(path: &std::path::Path) -> Result<Machine, PredictError> {
        let text = crate::read_input(path).map_err(|e| PredictError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        Machine::parse(&path.display().to_string(), &text)
    }

    /// Whether `name` is a key machine files know (`task_s`, `join_s`, `fork_join_s_p2`, …):
    /// for a message that names a variable no binding gave.
    pub fn knows_key(name: &str) -> bool {
        key_range(name).is_some()
    }

    /// The numeric keys as (name, value), as they are bound in predictions: the file's
    /// values, and for a machine built in code its known keys.
    /// A file with `line_bounce_s` binds `line_bounce_per_thread_s` as `lcm calibrate`
    /// computes it from the file's `line_bounce_s_kK` members beyond K = 2 (files of
    /// earlier versions wrote a slope through K = 2, or no key), else the file's value, else
    /// 0; and binds `line_bounce_s` also as `line_bounce_s_k2`, the K = 2 member of the
    /// family (see the module docs). A file with `par_call_s_pQ` keys but without
    /// `par_call_items` binds it as the calibration's [`crate::calibrate::par_call::ITEMS`],
    /// the count every such file was measured with. A file without `line_trip_s` (files of
    /// earlier versions) binds it as `latency_s`, the one-way hand-off of a line to a
    /// spinning reader: the same whole trip, measured by another kernel; one without
    /// `line_lock_s` binds it as two whole trips, `2 * line_trip_s`.
    pub fn bindings(&self) -> BTreeMap<String, f64> {
        let mut b = self.values.clone();
        for (k, v) in self.key_values() {
            b.entry(k).or_insert(v);
        }
        if b.keys()
            .any(|k| matches!(family(k), Some(("par_call_s_p", _))))
        {
            b.entry("par_call_items".into())
                .or_insert(crate::calibrate::par_call::ITEMS as f64);
        }
        if let Some(&latency) = b.get("latency_s") {
            b.entry("line_trip_s".into()).or_insert(latency);
        }
        if let Some(&trip) = b.get("line_trip_s") {
            b.entry("line_lock_s".into()).or_insert(2.0 * trip);
        }
        if let Some(&two) = b.get("line_bounce_s") {
            let growth = bounce_growth(two, &b).unwrap_or(0.0);
            b.insert("line_bounce_per_thread_s".into(), growth);
            b.entry("line_bounce_s_k2".into()).or_insert(two);
        }
        b
    }

    /// The known keys with their values, in file order.
    fn key_values(&self) -> Vec<(String, f64)> {
        let mut kv = vec![
            ("latency_s".to_string(), self.latency_s),
            (
                "bandwidth_bytes_per_s".to_string(),
                self.bandwidth_bytes_per_s,
            ),
        ];
        if let Some(c) = &self.costs {
            kv.push(("calibrated_p".into(), c.calibrated_p as f64));
            kv.push(("fork_join_base_s".into(), c.fork_join_base_s));
            kv.push(("fork_join_log2p_s".into(), c.fork_join_log2p_s));
            for (p, t) in &c.fork_join_by_p {
                kv.push((format!("fork_join_s_p{p}"), *t));
            }
            for (q, t) in &c.par_call_by_p {
                kv.push((format!("par_call_s_p{q}"), *t));
            }
            kv.push(("task_s".into(), c.task_s));
            kv.push(("par_item_s".into(), c.par_item_s));
            kv.push(("handoff_spin_s".into(), c.handoff_spin_s));
            kv.push(("handoff_wake_s".into(), c.handoff_wake_s));
            if let Some(x) = c.handoff_notify_s {
                kv.push(("handoff_notify_s".into(), x));
            }
            if let Some(x) = c.handoff_spin_window_s {
                kv.push(("handoff_spin_window_s".into(), x));
            }
            for (b, t) in &c.transfer_by_bytes {
                kv.push((format!("transfer_s_{b}"), *t));
            }
            for (b, t) in &c.local_read_by_bytes {
                kv.push((format!("local_read_s_{b}"), *t));
            }
            if let Some(x) = c.line_bounce_s {
                kv.push(("line_bounce_s".into(), x));
            }
            for (k, s) in &c.mem_slowdown_by_k {
                kv.push((format!("mem_slowdown_k{k}"), *s));
            }
        }
        kv
    }

    /// What a prediction with this machine leaves out, for a note; None when the run-time
    /// costs are applied.
    pub fn costs_note(&self) -> Option<String> {
        let why = if self.values.is_empty() {
            "no machine file".to_string()
        } else {
            format!("{} has only communication prices", self.origin)
        };
        self.costs.is_none().then(|| {
            format!(
                "machine costs (fork/join, tasks, items, hand-offs) not applied: {why} (make one with `lcm calibrate` and pass --machine FILE)"
            )
        })
    }

    /// The file text (`lcm calibrate` writes it): the known keys, each with a comment
    /// saying what it is.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "# lcm machine file: prices for lcm predict --machine (keys: docs/machine.md of the lost-cycles repository, or the docs of lcm::predict::machine)\n# measured by: {}\n",
            self.origin
        );
        let known = self.key_values();
        for (k, v) in &known {
            out.push_str(&format!("{k} = {v}   # {}\n", describe(k)));
        }
        // The other numeric keys (a file's keys this version has no field for, keys
        // `lcm calibrate` measures beyond the fields): written back, so that they reach
        // the predictions made with the file.
        for (k, v) in &self.values {
            if !known.iter().any(|(kk, _)| kk == k) {
                let about = describe(k);
                if about.is_empty() {
                    out.push_str(&format!("{k} = {v}\n"));
                } else {
                    out.push_str(&format!("{k} = {v}   # {about}\n"));
                }
            }
        }
        out
    }
}

/// What each thread beyond two adds to a line's bounce, from the `line_bounce_s_kK` members
/// among `bindings` and the K = 2 price `two`, as `lcm calibrate` computes
/// `line_bounce_per_thread_s` ([`crate::calibrate::lines::per_thread_growth`]).
/// Without members beyond K = 2 the file's own `line_bounce_per_thread_s`, if any.
fn bounce_growth(two: f64, bindings: &BTreeMap<String, f64>) -> Option<f64> {
    let beyond: Vec<(usize, f64)> = bindings
        .iter()
        .filter_map(|(name, &v)| {
            let k: usize = name.strip_prefix("line_bounce_s_k")?.parse().ok()?;
            (k >= 3).then_some((k, v))
        })
        .collect();
    if beyond.is_empty() {
        return bindings.get("line_bounce_per_thread_s").copied();
    }
    let mut by_k = vec![(2, two)];
    by_k.extend(beyond);
    Some(crate::calibrate::lines::per_thread_growth(&by_k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lca::expr::Expr;

    fn full() -> Machine {
        Machine {
            latency_s: 6e-8,
            bandwidth_bytes_per_s: 8e9,
            costs: Some(Costs {
                fork_join_base_s: 1e-6,
                fork_join_log2p_s: 2.5e-6,
                fork_join_by_p: vec![(1, 1e-6), (2, 3.5e-6)],
                par_call_by_p: vec![(1, 5e-8), (2, 3.3e-6)],
                task_s: 1.2e-7,
                par_item_s: 0.0,
                handoff_spin_s: 6e-8,
                handoff_wake_s: 2e-5,
                handoff_notify_s: Some(3e-6),
                handoff_spin_window_s: Some(5e-6),
                transfer_by_bytes: vec![(4096, 3e-7), (67108864, 1e-2)],
                local_read_by_bytes: vec![(4096, 1e-7), (67108864, 1e-2)],
                line_bounce_s: Some(8e-8),
                mem_slowdown_by_k: vec![(1, 1.0), (2, 1.6)],
                calibrated_p: 2,
            }),
            origin: "test".into(),
            values: BTreeMap::new(),
        }
    }

    #[test]
    fn line_trip_is_the_files_or_the_one_way_hand_off() {
        // Files written before the whole trip was measured price it by the one-way
        // hand-off; a file's own value wins.
        let m = full();
        assert_eq!(m.bindings()["line_trip_s"], m.latency_s);
        let text = m.to_text() + "line_trip_s = 4.5e-8\n";
        let back = Machine::parse("m.txt", &text).unwrap();
        assert_eq!(back.bindings()["line_trip_s"], 4.5e-8);
        // A lock-protected update: the file's, else two whole trips.
        assert_eq!(back.bindings()["line_lock_s"], 9e-8);
        let text = back.to_text() + "line_lock_s = 5e-8\n";
        let lock = Machine::parse("m.txt", &text).unwrap();
        assert_eq!(lock.bindings()["line_lock_s"], 5e-8);
    }

    #[test]
    fn par_call_items_is_the_files_or_the_calibrations_count() {
        // A file with parallel-iterator call prices but without their item count (files
        // written before the key) binds the count they were all measured with.
        let m = full();
        assert_eq!(m.bindings()["par_call_items"], 1000.0);
        let text = m.to_text() + "par_call_items = 500\n";
        let back = Machine::parse("m.txt", &text).unwrap();
        assert_eq!(back.bindings()["par_call_items"], 500.0);
        assert!(back.to_text().contains("par_call_items = 500   # items"));
        // Not a whole number of items: an error naming the line.
        let bad = m.to_text() + "par_call_items = 0.5\n";
        let err = Machine::parse("m.txt", &bad).unwrap_err().to_string();
        assert!(err.contains("par_call_items"), "{err}");
        // Without call prices nothing is bound.
        let mut none = full();
        none.costs.as_mut().unwrap().par_call_by_p.clear();
        assert!(!none.bindings().contains_key("par_call_items"));
    }

    #[test]
    fn a_full_machine_file_round_trips() {
        let m = full();
        let back = Machine::parse("m.txt", &m.to_text()).unwrap();
        assert_eq!(back.costs, m.costs);
        assert_eq!(
            (back.latency_s, back.bandwidth_bytes_per_s),
            (m.latency_s, m.bandwidth_bytes_per_s)
        );
        assert_eq!(back.bindings(), m.bindings());
        assert_eq!(back.bindings()["mem_slowdown_k2"], 1.6);
        assert_eq!(back.bindings()["transfer_s_4096"], 3e-7);
    }

    #[test]
    fn a_move_costs_the_transfer_beyond_the_local_read_interpolated_by_bytes() {
        let c = full().costs.unwrap();
        // At a measured size: 3e-7 - 1e-7.
        assert!((c.move_s(4096.0).unwrap() - 2e-7).abs() < 1e-15);
        // Half-way from 0 to the first size: half of it.
        assert!((c.move_s(2048.0).unwrap() - 1e-7).abs() < 1e-15);
        // Equal beyond the cache: nothing; beyond the largest size, its rate per byte.
        assert_eq!(c.move_s(67108864.0).unwrap(), 0.0);
        assert_eq!(c.move_s(2.0 * 67108864.0).unwrap(), 0.0);
        // The expression agrees with the interpolation everywhere.
        let e = c.move_s_expr(&lca::expr::Expr::Var("b".into())).unwrap();
        for b in [0.0, 1000.0, 4096.0, 1e6, 3e7, 67108864.0, 1e8] {
            let vars = std::collections::BTreeMap::from([("b".to_string(), b)]);
            let got = e.eval(&vars).unwrap();
            assert!((got - c.move_s(b).unwrap()).abs() < 1e-12, "{b}: {got}");
        }
        // Without local reads, the whole transfer.
        let mut c2 = c.clone();
        c2.local_read_by_bytes.clear();
        assert!((c2.move_s(4096.0).unwrap() - 3e-7).abs() < 1e-15);
    }

    #[test]
    fn the_par_call_price_interpolates_in_log2_threads_and_extrapolates_the_last_doubling() {
        let mut c = full().costs.unwrap();
        let b = |c: &Costs| {
            let mut m = full();
            m.costs = Some(c.clone());
            m.bindings()
        };
        let at = |c: &Costs, q: f64| {
            let mut vars = b(c);
            vars.insert("q".into(), q);
            c.par_call_s_expr(&Expr::Var("q".into()))
                .unwrap()
                .eval(&vars)
                .unwrap()
        };
        // Two threads measured: 5e-8 at 1, 3.3e-6 at 2; at 4 one more doubling's growth.
        let e = c.par_call_s_expr(&Expr::Var("q".into())).unwrap();
        assert_eq!(
            e.to_string(),
            "par_call_s_p1 + (par_call_s_p2 - par_call_s_p1)*max(0, log2(q))"
        );
        assert!((at(&c, 1.0) - 5e-8).abs() < 1e-18);
        assert!((at(&c, 2.0) - 3.3e-6).abs() < 1e-18);
        assert!((at(&c, 4.0) - (3.3e-6 + 3.25e-6)).abs() < 1e-15);
        // Twelve threads measured (1..=12): knots 1, 2, 4, 8, 12; exact at them, linear in
        // log2 between, the growth of 8 -> 12 continued beyond 12.
        c.par_call_by_p = (1..=12).map(|q| (q, q as f64 * 1e-6)).collect();
        for q in [1.0, 2.0, 4.0, 8.0, 12.0] {
            assert!((at(&c, q) - q * 1e-6).abs() < 1e-15, "{q}");
        }
        assert!((at(&c, 2f64.powf(2.5)) - 6e-6).abs() < 1e-15);
        let per_log2 = 4e-6 / (12f64.log2() - 3.0);
        assert!((at(&c, 24.0) - (12e-6 + per_log2)).abs() < 1e-15);
        // No par-call keys: no price (the fork/join is charged instead).
        c.par_call_by_p.clear();
        assert!(c.par_call_s_expr(&Expr::Num(2.0)).is_none());
    }

    #[test]
    fn an_old_file_reads_without_costs_and_says_so() {
        let m =
            Machine::parse("old.txt", "latency_s = 1e-7\nbandwidth_bytes_per_s = 5e9\n").unwrap();
        assert!(m.costs.is_none());
        assert!(m.costs_note().unwrap().contains("old.txt"));
        assert!(Machine::default()
            .costs_note()
            .unwrap()
            .contains("no machine file"));
        assert!(full().costs_note().is_none());
    }

    #[test]
    fn a_cost_file_without_the_spin_window_still_loads() {
        let text = full()
            .to_text()
            .lines()
            .filter(|l| !l.starts_with("handoff_spin_window_s"))
            .collect::<Vec<_>>()
            .join("\n");
        let back = Machine::parse("old.txt", &text).unwrap();
        let costs = back.costs.clone().unwrap();
        assert_eq!(costs.handoff_spin_window_s, None);
        assert_eq!(costs.handoff_notify_s, Some(3e-6));
        assert!(!back.bindings().contains_key("handoff_spin_window_s"));
    }

    #[test]
    fn line_prices_by_threads_round_trip_and_the_growth_comes_from_the_family() {
        let mut m = full();
        m.values.insert("line_bounce_s_k3".into(), 9e-8);
        m.values.insert("line_bounce_per_thread_s".into(), 1e-8);
        let text = m.to_text();
        assert!(text.contains("line_bounce_s_k3 = 0.00000009   # s, line_bounce_s with 3"));
        let back = Machine::parse("m.txt", &text).unwrap();
        assert_eq!(back.bindings()["line_bounce_s_k3"], 9e-8);
        // Bound from the family: the slope from line_bounce_s (80 ns) to K = 3 (90 ns).
        let growth = back.bindings()["line_bounce_per_thread_s"];
        assert!((growth - 1e-8).abs() < 1e-18, "{growth}");
        assert!(back
            .to_text()
            .contains("line_bounce_per_thread_s = 0.00000001 "));
        // Written back once, not twice.
        assert_eq!(back.to_text().matches("line_bounce_s_k3 =").count(), 1);
        // A file without the growth (older versions) binds it from its family: 0 without
        // members beyond K = 2, the slope over K >= 3 with two or more; one without
        // line_bounce_s binds neither.
        assert_eq!(full().bindings()["line_bounce_per_thread_s"], 0.0);
        let mut family = full();
        for k in 4..=16 {
            let price = 55e-9 + 3e-9 * (k - 4) as f64;
            family.values.insert(format!("line_bounce_s_k{k}"), price);
        }
        let growth = family.bindings()["line_bounce_per_thread_s"];
        assert!((growth - 3e-9).abs() < 1e-15, "{growth}");
        // The family decides over a file's own value (earlier versions wrote a slope through
        // K = 2); without members beyond 2 the file's value stands.
        family
            .values
            .insert("line_bounce_per_thread_s".into(), 7e-9);
        assert!((family.bindings()["line_bounce_per_thread_s"] - 3e-9).abs() < 1e-15);
        let mut own = full();
        own.values.insert("line_bounce_per_thread_s".into(), 5e-9);
        assert_eq!(own.bindings()["line_bounce_per_thread_s"], 5e-9);
        // line_bounce_s is the family's K = 2 member.
        assert_eq!(
            back.bindings()["line_bounce_s_k2"],
            back.bindings()["line_bounce_s"]
        );
        let old =
            Machine::parse("old.txt", "latency_s = 1e-7\nbandwidth_bytes_per_s = 5e9\n").unwrap();
        assert!(!old.bindings().contains_key("line_bounce_per_thread_s"));
        assert!(!old.bindings().contains_key("line_bounce_s_k2"));
        let e = Machine::parse("m.txt", &text.replace("= 0.00000009 ", "= -1 "))
            .unwrap_err()
            .to_string();
        assert!(e.contains("line_bounce_s_k3"), "{e}");
    }

    #[test]
    fn unknown_keys_are_ignored_and_numeric_ones_bound() {
        let m = Machine::parse(
            "m.txt",
            "latency_s = 1e-7\nbandwidth_bytes_per_s = 5e9\nfuture_key = 3\nlabel = fast box\n",
        )
        .unwrap();
        assert_eq!(m.bindings()["future_key"], 3.0);
        assert!(!m.bindings().contains_key("label"));
    }

    #[test]
    fn a_cost_file_missing_a_key_or_with_a_bad_value_names_it() {
        let text = full().to_text().replace("task_s =", "# task_s =");
        let e = Machine::parse("m.txt", &text).unwrap_err().to_string();
        assert!(e.contains("task_s"), "{e}");
        let text = full()
            .to_text()
            .replace("mem_slowdown_k2 = 1.6", "mem_slowdown_k2 = -1");
        let e = Machine::parse("m.txt", &text).unwrap_err().to_string();
        assert!(
            e.contains("mem_slowdown_k2") && e.contains("positive"),
            "{e}"
        );
    }
}
