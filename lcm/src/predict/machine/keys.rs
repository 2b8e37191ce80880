//! The keys a machine file knows: which cost keys a file with costs must hold, what each
//! key's value must be, the numbered key families, the one-line description
//! [`super::Machine::to_text`] writes beside each, and the reading of a file's
//! `key = value` lines against those rules.

use crate::predict::error::PredictError;
use std::collections::BTreeMap;

/// The required cost keys (present when `fork_join_base_s` is).
pub(super) const COST_KEYS: [&str; 6] = [
    "fork_join_base_s",
    "fork_join_log2p_s",
    "task_s",
    "par_item_s",
    "handoff_spin_s",
    "handoff_wake_s",
];

/// What a known key's value must be: the words for messages and the test.
type ValueRule = (&'static str, fn(f64) -> bool);

/// The rule of a known key (None: an unknown key).
pub(super) fn key_range(key: &str) -> Option<ValueRule> {
    let positive: ValueRule = ("a positive number", |x| x > 0.0);
    let non_negative: ValueRule = ("a number >= 0", |x| x >= 0.0);
    match key {
        "latency_s"
        | "bandwidth_bytes_per_s"
        | "fork_join_base_s"
        | "handoff_spin_s"
        | "handoff_wake_s"
        | "handoff_notify_s"
        | "handoff_spin_window_s" => Some(positive),
        "fork_join_log2p_s"
        | "task_s"
        | "join_s"
        | "par_item_s"
        | "line_bounce_s"
        | "line_trip_s"
        | "line_lock_s"
        | "line_bounce_per_thread_s" => Some(non_negative),
        "calibrated_p" | "par_call_items" => {
            Some(("a whole number >= 1", |x| x >= 1.0 && x.fract() == 0.0))
        }
        "line_bounce_pair_spread" => Some(("a number >= 1", |x| x >= 1.0)),
        _ if matches!(family(key), Some(("par_call_s_p" | "line_bounce_s_k", _))) => {
            Some(non_negative)
        }
        _ if family(key).is_some() => Some(positive),
        _ => None,
    }
}

/// A key of the families `fork_join_s_pQ`, `par_call_s_pQ`, `transfer_s_B`,
/// `local_read_s_B`, `mem_slowdown_kK`, `line_bounce_s_kK`: the family's prefix and the
/// number.
pub(super) fn family(key: &str) -> Option<(&'static str, usize)> {
    [
        "fork_join_s_p",
        "par_call_s_p",
        "transfer_s_",
        "local_read_s_",
        "mem_slowdown_k",
        "line_bounce_s_k",
    ]
    .into_iter()
    .find_map(|prefix| {
        let n = key.strip_prefix(prefix)?;
        (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .then(|| n.parse().ok().map(|n| (prefix, n)))
            .flatten()
    })
}

/// One line saying what a known key is and its unit.
pub(super) fn describe(key: &str) -> String {
    match (key, family(key)) {
        ("latency_s", _) => "s, one-way cache-line hand-off between two threads".into(),
        ("bandwidth_bytes_per_s", _) => "bytes/s, copying a buffer another thread wrote".into(),
        ("calibrated_p", _) => "threads the measurements went up to".into(),
        ("fork_join_base_s", _) => "s, fork/join at 1 thread (fit: base + log2p * log2(q))".into(),
        ("fork_join_log2p_s", _) => "s per doubling of the threads of a fork/join (fit)".into(),
        ("task_s", _) => "processor-s per task spawned in a rayon scope".into(),
        ("join_s", _) => {
            "processor-s per rayon::join of a recursion (a join tree, halves stolen as needed)"
                .into()
        }
        ("par_item_s", _) => "processor-s per parallel-iterator item beyond a serial loop".into(),
        ("handoff_spin_s", _) => "s, one-way hand-off to a spinning thread".into(),
        ("handoff_wake_s", _) => {
            "s, how much later a channel receiver parked 1 ms+ runs after the send than a spinning one"
                .into()
        }
        ("handoff_notify_s", _) => {
            "s, what waking a channel receiver parked 1 ms+ adds to the send".into()
        }
        ("handoff_spin_window_s", _) => {
            "s, longest wait a channel's receiver still spends spinning".into()
        }
        (_, Some(("fork_join_s_p", q))) => format!("s, measured fork/join of {q} thread(s)"),
        ("par_call_items", _) => "items of the call each par_call_s_pQ prices".into(),
        (_, Some(("par_call_s_p", q))) => {
            format!("s, one small parallel-iterator call from inside a pool of {q} thread(s)")
        }
        (_, Some(("transfer_s_", b))) => format!("s, reading {b} bytes another thread wrote"),
        (_, Some(("local_read_s_", b))) => format!("s, reading {b} bytes this thread wrote"),
        ("line_bounce_s", _) => {
            "s, an atomic update of a line another processor wrote last, beyond one in cache".into()
        }
        (_, Some(("line_bounce_s_k", k))) => {
            format!("s, line_bounce_s with {k} threads updating the lines at once")
        }
        ("line_trip_s", _) => {
            "s, line_bounce_s with each update's line depending on the last: a whole trip".into()
        }
        ("line_lock_s", _) => {
            "s, line_trip_s with each update under a lock of its own (the lock's line and the data's)".into()
        }
        ("line_bounce_pair_spread", _) => {
            "ratio, the dearest pair of processors' line_bounce_s over the cheapest (line_bounce_s is their mean)"
                .into()
        }
        ("line_bounce_per_thread_s", _) => {
            "s, what each thread beyond two adds to a bounce (slope of line_bounce_s_kK over K >= 3; 0 when calibrated on 2 threads)"
                .into()
        }
        (_, Some(("mem_slowdown_k", k))) => {
            format!("ratio, triad time with {k} thread(s) at once over alone")
        }
        _ => String::new(),
    }
}

/// The `key = value` lines of a machine file's text: a known key's value must lie in its
/// range ([`key_range`]); any other key whose name is an expression's name and whose value
/// is a finite number is kept for rules that name it. `err` builds the error of a line.
pub(super) fn read_values(
    text: &str,
    err: &dyn Fn(usize, String) -> PredictError,
) -> Result<BTreeMap<String, f64>, PredictError> {
    let mut values = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let l = raw.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let Some((k, v)) = l.split_once('=') else {
            return Err(err(i + 1, format!("expected `key = value`, found `{l}`")));
        };
        let (k, v) = (k.trim(), v.trim());
        let number = v.parse::<f64>().ok().filter(|x| x.is_finite());
        match key_range(k) {
            Some((what, ok)) => match number.filter(|x| ok(*x)) {
                Some(x) => {
                    values.insert(k.to_string(), x);
                }
                None => {
                    return Err(err(
                        i + 1,
                        format!("expected {what} for `{k}`, found `{v}`"),
                    ))
                }
            },
            None => {
                if let (Some(x), true) = (number, lca::expr::parse(k).is_ok()) {
                    values.insert(k.to_string(), x);
                }
            }
        }
    }
    Ok(values)
}
