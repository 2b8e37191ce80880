//! What `lcm calibrate` says of numbers not to trust blindly
//! ([`Calibration::warnings`](super::Calibration::warnings)): a line price no repetition
//! measured or whose repetitions or pairs of processors lie far apart, transfers whose
//! threads could not be pinned, the two prices of a line's trip that
//! disagree, hand-off keys left out, stood in or clamped, and a spinning hand-off too slow
//! to be one. One sentence each, naming its key.

use super::pairs::OverPairs;
use super::quiet::Kept;
use std::collections::BTreeMap;

/// The most the repetitions of a line price (`line_bounce_s`, `line_bounce_s_kK`,
/// `line_trip_s`), the pairs' prices of a two-processor line price, or the repetitions of
/// `handoff_wake_s` may lie apart, largest over least, before
/// [`Calibration::warnings`](super::Calibration::warnings) says so.
pub const LINE_SPREAD_LIMIT: f64 = 2.0;

/// What to say when the whole trip of a line (`line_trip_s`) and the one-way hand-off to a
/// spinning thread (both a line's whole trip between two processors) lie more than
/// [`LINE_SPREAD_LIMIT`] times apart (None: they agree, or one is missing).
pub(super) fn line_against_spin(line_trip_s: f64, handoff_spin_s: f64) -> Option<String> {
    if !(line_trip_s > 0.0 && handoff_spin_s > 0.0) {
        return None;
    }
    let ratio = line_trip_s.max(handoff_spin_s) / line_trip_s.min(handoff_spin_s);
    (ratio > LINE_SPREAD_LIMIT).then(|| {
        format!(
            "line_trip_s: {line_trip_s:.3e} s and handoff_spin_s {handoff_spin_s:.3e} s both price a line's trip between two processors but lie {ratio:.1} times apart (more than {LINE_SPREAD_LIMIT}): the two kernels ran on processors placed differently (on a virtual machine the host may move them), or the machine was busy; calibrate again"
        )
    })
}

/// A transfer (`transfer_s_B`) measured at less than this share of the local read of the
/// same bytes (`local_read_s_B`) contradicts what the two kernels measure: reading a buffer
/// another processor wrote is never faster than reading one in the reader's own caches,
/// beyond the repetitions' noise.
pub const TRANSFER_BELOW_LOCAL: f64 = 0.8;

/// What to say of the sizes whose transfer was measured faster than the local read
/// (`transfer` and `local`: seconds by bytes, as the file holds them; None when none is).
/// lcm predict prices a move at the difference, at least 0, so such a size moves for
/// nothing.
pub(super) fn transfer_below_local(
    transfer: &[(usize, f64)],
    local: &[(usize, f64)],
) -> Option<String> {
    let below: Vec<String> = transfer
        .iter()
        .filter_map(|&(bytes, t)| {
            let &(_, l) = local.iter().find(|(b, _)| *b == bytes)?;
            (t < TRANSFER_BELOW_LOCAL * l).then(|| {
                format!("transfer_s_{bytes} {t:.3e} s against local_read_s_{bytes} {l:.3e} s")
            })
        })
        .collect();
    (!below.is_empty()).then(|| {
        format!(
            "transfers measured faster than local reads of the same bytes ({}): a buffer another processor wrote cannot be read faster than one in the reader's own caches, so other load or the host slowed one of the two kernels; lcm predict prices a move at the difference, at least 0, so moves of these sizes cost nothing; calibrate again on a quiet machine",
            below.join(", ")
        )
    })
}

/// A calibration is busy when more than this share of its numbers had fewer than half
/// of their repetitions quiet (judged ones: a repetition too short to judge counts neither
/// way).
pub const BUSY_SHARE: f64 = 0.25;

/// What to say when the machine was busy through the calibration (see [`BUSY_SHARE`]):
/// the numbers kept from few or no quiet repetitions hold other load's share, and some
/// kernels (a parallel call whose workers lose their processors, a transfer whose reader
/// waits) then measure another regime than the program will see. None when it was not.
pub(super) fn busy_machine(kept: &BTreeMap<String, Kept>) -> Option<String> {
    let judged: Vec<(&String, &Kept)> = kept
        .iter()
        .filter(|(_, k)| k.repetitions > k.unknown)
        .collect();
    let few: Vec<&String> = judged
        .iter()
        .filter(|(_, k)| 2 * (k.quiet - k.unknown) < k.repetitions - k.unknown)
        .map(|(key, _)| *key)
        .collect();
    let none = judged.iter().filter(|(_, k)| k.quiet == k.unknown).count();
    if judged.is_empty() || (few.len() as f64) <= BUSY_SHARE * judged.len() as f64 {
        return None;
    }
    let shown: Vec<&str> = few.iter().take(6).map(|k| k.as_str()).collect();
    let more = few.len().saturating_sub(shown.len());
    Some(format!(
        "the machine was busy: {} of {} numbers kept fewer than half of their repetitions quiet ({}{}), {none} of them none; their numbers hold other load's share and may price another regime than the program's (a parallel call whose workers lost their processors, a read that waited); calibrate again on a quiet machine",
        few.len(),
        judged.len(),
        shown.join(", "),
        if more > 0 { format!(" and {more} more") } else { String::new() },
    ))
}

/// A one-way hand-off between two spinning threads slower than this (seconds) is not a
/// cache line's trip: a partner lost its processor to other load.
pub const SPIN_HANDOFF_LIMIT_S: f64 = 10e-6;

/// What to say of the hand-off keys: the channel sweep's optional keys when the file leaves
/// them out (on a loaded machine no repetition may show a receiver that parked after a 1 ms
/// sleep beside one caught spinning, and `lcm predict` then prices hand-offs as if the key
/// were absent), a wake price that stands in or was clamped (`wake_s` as measured, before
/// [`wake_for_file`](super::wake_prices::wake_for_file)), and a spinning hand-off too slow to be one.
pub(super) fn handoff_warnings(
    notify_s: f64,
    spin_window_s: f64,
    wake_s: f64,
    spin_s: f64,
) -> Vec<String> {
    let mut out = Vec::new();
    if !(notify_s.is_finite() && notify_s > 0.0) {
        out.push(
            "handoff_notify_s: not measured (no repetition of the channel sweep showed a send to a parked receiver dearer than one to a spinning receiver; a busy machine hides it): the file leaves it out and lcm predict charges a stage that wakes its partner nothing for the wake-up call; calibrate again on a quiet machine"
                .to_string(),
        );
    }
    if !(spin_window_s.is_finite() && spin_window_s > 0.0) {
        out.push(
            "handoff_spin_window_s: not measured (the channel sweep found no delay below which its receiver stayed awake and above which it parked in most trips: it parked at every delay, or at none): the file leaves it out and lcm predict counts every pipeline wait as caught spinning; calibrate again on a quiet machine"
                .to_string(),
        );
    }
    if wake_s.is_nan() {
        out.push(
            "handoff_wake_s: not measured (no repetition of the channel sweep had a receiver park after a 1 ms sleep beside one caught spinning): the file holds handoff_spin_s in its place; calibrate again on a quiet machine"
                .to_string(),
        );
    } else if wake_s < 1e-9 {
        out.push(format!(
            "handoff_wake_s: a receiver parked 1 ms or more ran no later after the send than a spinning one (measured {wake_s:.3e} s): the file holds 1 ns, its keys being positive; the machine was busy, or its wake-ups cost nothing; calibrate again on a quiet machine"
        ));
    }
    if spin_s > SPIN_HANDOFF_LIMIT_S {
        out.push(format!(
            "handoff_spin_s: {spin_s:.3e} s for a one-way hand-off between two spinning threads, more than {SPIN_HANDOFF_LIMIT_S:.0e} s: a partner lost its processor to other load, and every price built on it (latency_s, the line price's stand-in) is the machine's load, not its hardware; calibrate again on a quiet machine"
        ));
    }
    out
}

/// What to say when some repetition of the transfer kernel could not pin its writer and
/// reader to two distinct processors (fewer than two allowed, or the system refuses).
pub(super) fn transfer_unpinned_warning() -> String {
    "transfer_s_B: some repetitions could not pin the writer and the reader to two distinct processors (fewer than two allowed, or the system refuses pinning): they ran where the scheduler put them, and where they shared one processor no line moved, so transfer_s_B - local_read_s_B (what lcm predict charges for data moved between processors) may come out too small".to_string()
}

/// What to say of the line price `key` kept as `k` (None: nothing to say); `stand_in` says
/// what the file holds when no repetition gave a number.
pub(super) fn line_warning(key: &str, k: &Kept, stand_in: &str) -> Option<String> {
    if k.measured == 0 {
        return Some(format!(
            "{key}: no repetition of {} ran its threads side by side on processors of their own; {stand_in}",
            k.repetitions
        ));
    }
    spread_warning(
        key,
        k,
        "the price depends on which processors the threads ran on, or the machine was busy",
    )
}

/// What to say when the repetitions of `key` kept as `k` lie more than
/// [`LINE_SPREAD_LIMIT`] times apart, largest over least (None: they agree, or fewer than
/// two gave a number); `cause` says what such a spread means for that key.
fn spread_warning(key: &str, k: &Kept, cause: &str) -> Option<String> {
    let spread = k.spread();
    let apart = if spread.is_finite() {
        format!("{spread:.1} times apart, more than {LINE_SPREAD_LIMIT}")
    } else {
        format!("the least of them 0, so more than {LINE_SPREAD_LIMIT} times apart")
    };
    let kept_as = if k.pairs > 0 {
        format!(
            "the mean over {} pairs of processors of each pair's median, {:.3e} s, is kept",
            k.pairs, k.value
        )
    } else {
        format!("the median {:.3e} s is kept", k.value)
    };
    (spread > LINE_SPREAD_LIMIT).then(|| {
        format!(
            "{key}: its repetitions disagree, {:.3e} to {:.3e} s ({apart}): {cause}; {kept_as}",
            k.low, k.high
        )
    })
}

/// What to say of the two-processor line price `key` measured over pairs of processors
/// (None: nothing to say): no repetition measured (`stand_in` says what the file holds),
/// the pairs' prices more than [`LINE_SPREAD_LIMIT`] times apart (the least and the
/// dearest pair named, and `spread_key` when the file keeps the spread under a key), or
/// else repetitions that far apart ([`line_warning`]).
pub(super) fn pair_warning(
    key: &str,
    over: &OverPairs,
    stand_in: &str,
    spread_key: Option<&str>,
) -> Option<String> {
    let spread = over.pair_spread();
    let pairs_apart = spread > LINE_SPREAD_LIMIT; // false for NaN: fewer than two pairs
    if over.kept.measured == 0 || !pairs_apart {
        return line_warning(key, &over.kept, stand_in);
    }
    let priced = over.priced();
    let (least, dearest) = (priced[0], priced[priced.len() - 1]);
    let apart = if spread.is_finite() {
        format!("{spread:.1} times apart")
    } else {
        "the least of them 0".to_string()
    };
    let held = match spread_key {
        Some(k) if spread.is_finite() => format!(" ({k} = {spread:.2} in the file)"),
        _ => String::new(),
    };
    Some(format!(
        "{key}: the price depends on the pair of processors: {} pairs priced {:.3e} s (processors {} and {}) to {:.3e} s ({} and {}), {apart}, more than {LINE_SPREAD_LIMIT}{held}: the processors sit at different distances (cache slices, sockets, or on a virtual machine processors that share a host core), or the machine was busy; the file holds the mean over the pairs, {:.3e} s, what a program whose threads exchange lines over all pairs pays on average",
        priced.len(),
        least.kept.value,
        least.pair[0],
        least.pair[1],
        dearest.kept.value,
        dearest.pair[0],
        dearest.pair[1],
        over.kept.value
    ))
}

/// What to say when the repetitions of `handoff_wake_s` (kept as `k`) disagree (see
/// [`spread_warning`]).
pub(super) fn wake_spread_warning(k: &Kept) -> Option<String> {
    spread_warning(
        "handoff_wake_s",
        k,
        "the woken receiver waited for a processor that other load held, or the machine's wake-ups vary from moment to moment (lcm predict's pipelines depend on it only through how often a waiting stage parks); calibrate again on a quiet machine",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A calibration where most numbers kept fewer than half of their repetitions quiet
    /// is called busy, naming them; one where few did is not; repetitions too short to
    /// judge count neither way.
    #[test]
    fn a_busy_calibration_is_warned_about() {
        let kept = |quiet: usize, unknown: usize| Kept {
            value: 1.0,
            repetitions: 9,
            quiet,
            unknown,
            measured: 9,
            low: 1.0,
            high: 1.0,
            pairs: 0,
        };
        let mut all: BTreeMap<String, Kept> = BTreeMap::new();
        all.insert("fork_join_s_p2".into(), kept(1, 0));
        all.insert("par_item_s".into(), kept(0, 0));
        all.insert("task_s".into(), kept(9, 0));
        all.insert("join_s".into(), kept(9, 7));
        let w = busy_machine(&all).unwrap();
        assert!(
            w.contains("2 of 4 numbers") && w.contains("fork_join_s_p2, par_item_s"),
            "{w}"
        );
        assert!(w.contains("1 of them none"), "{w}");
        all.insert("par_item_s".into(), kept(8, 0));
        assert!(busy_machine(&all).is_none());
    }

    /// The trial's 16 MiB numbers: a transfer of 1.62 ms against a local read of 2.66 ms is
    /// named; sizes within the limit, or without a local read, are not.
    #[test]
    fn a_transfer_faster_than_the_local_read_is_warned_about() {
        let transfer = [(4096, 2.0e-7), (16777216, 1.62e-3), (67108864, 6.5e-3)];
        let local = [(4096, 1.3e-7), (16777216, 2.66e-3)];
        let w = transfer_below_local(&transfer, &local).unwrap();
        assert!(
            w.contains("transfer_s_16777216 1.620e-3 s against local_read_s_16777216 2.660e-3 s"),
            "{w}"
        );
        assert!(
            !w.contains("transfer_s_4096") && !w.contains("67108864"),
            "{w}"
        );
        let close = [(16777216, 2.3e-3)];
        assert!(transfer_below_local(&close, &local).is_none());
    }

    #[test]
    fn a_line_price_without_numbers_or_with_scattered_ones_is_warned_about() {
        let kept = |measured: usize, low: f64, high: f64| Kept {
            value: 0.5 * (low + high),
            repetitions: 5,
            quiet: 5,
            unknown: 0,
            measured,
            low,
            high,
            pairs: 0,
        };
        let none = line_warning("line_bounce_s", &kept(0, f64::NAN, f64::NAN), "stand-in");
        let none = none.unwrap();
        assert!(
            none.starts_with("line_bounce_s: no repetition of 5"),
            "{none}"
        );
        assert!(none.ends_with("stand-in"), "{none}");
        let apart = line_warning("line_bounce_s_k3", &kept(5, 2e-8, 7.6e-8), "").unwrap();
        assert!(apart.contains("3.8 times apart"), "{apart}");
        // The wake price says the same, with what its spread means; a repetition of 0 is
        // said as such. (Three calibrations on the loaded 2-core machine kept repetitions
        // from 0 to 4.0 ms, 0 to 6.9 ms and 0 to 21 µs.)
        let wake = wake_spread_warning(&kept(3, 0.0, 4.0e-3)).unwrap();
        assert!(
            wake.starts_with("handoff_wake_s: its repetitions disagree, 0.000e0 to 4.000e-3 s (the least of them 0, so more than 2 times apart)"),
            "{wake}"
        );
        assert!(
            wake.contains("calibrate again on a quiet machine"),
            "{wake}"
        );
        let wake = wake_spread_warning(&kept(9, 1.9e-5, 4.2e-5)).unwrap();
        assert!(wake.contains("2.2 times apart"), "{wake}");
        assert_eq!(wake_spread_warning(&kept(9, 2.1e-5, 4.1e-5)), None);
        assert_eq!(wake_spread_warning(&kept(1, 0.0, 4.0e-3)), None);
        // The two prices of a line's trip: 5 ns against 34 ns is said, 27 against 34 not.
        let w = line_against_spin(5.3e-9, 3.4e-8).unwrap();
        assert!(w.contains("6.4 times apart"), "{w}");
        assert_eq!(line_against_spin(2.7e-8, 3.4e-8), None);
        assert_eq!(line_against_spin(f64::NAN, 3.4e-8), None);
        // Within the limit, or a single number: nothing to say.
        assert_eq!(
            line_warning("line_bounce_s", &kept(5, 5e-8, 9e-8), ""),
            None
        );
        assert_eq!(
            line_warning("line_bounce_s", &kept(1, 5e-8, 5e-8), ""),
            None
        );
    }

    #[test]
    fn pairs_of_two_kinds_are_warned_about_with_their_spread_and_mean() {
        use crate::calibrate::pairs::{over_pairs, plan_pairs};
        use crate::calibrate::quiet::{CpuSample, LoadProbe};
        struct NoProbe;
        impl LoadProbe for NoProbe {
            fn sample(&self) -> Option<CpuSample> {
                None
            }
        }
        // Sixteen processors in two halves: 20 ns within a half, 70 ns across (the two
        // modes of line_bounce_s on one 16-core host: 20.7-23.8 ns and 67-76 ns).
        let plan = plan_pairs(&(0..16).collect::<Vec<_>>(), 9, 2_000_000, 1);
        let price = |[a, b]: [usize; 2]| if a / 8 == b / 8 { 20e-9 } else { 70e-9 };
        let over = over_pairs(&plan, &NoProbe, |pair, _| price(pair));
        let across = plan.pairs.iter().filter(|&&p| price(p) > 50e-9).count();
        assert!(across > 0 && across < 12, "{:?}", plan.pairs);
        let w = pair_warning("line_bounce_s", &over, "", Some("line_bounce_pair_spread")).unwrap();
        assert!(
            w.starts_with("line_bounce_s: the price depends on the pair of processors: 12 pairs priced 2.000e-8 s (processors "),
            "{w}"
        );
        assert!(
            w.contains("3.5 times apart, more than 2 (line_bounce_pair_spread = 3.50 in the file)"),
            "{w}"
        );
        let mean = (across as f64 * 70e-9 + (12 - across) as f64 * 20e-9) / 12.0;
        assert!(
            w.contains(&format!(
                "the file holds the mean over the pairs, {mean:.3e} s"
            )),
            "{w}"
        );
        // Without the spread key (line_trip_s) the sentence names none.
        let trip = pair_warning("line_trip_s", &over, "", None).unwrap();
        assert!(trip.contains("more than 2: the processors"), "{trip}");
        // Pairs that agree, repetitions that agree: nothing to say.
        let even = over_pairs(&plan, &NoProbe, |_, _| 20e-9);
        assert_eq!(pair_warning("line_bounce_s", &even, "", None), None);
        // Pairs that agree in their medians but repetitions that scatter: the repetitions'
        // warning, naming the mean over pairs as what is kept.
        let mut run = 0;
        let scattered = over_pairs(&plan, &NoProbe, |_, _| {
            run += 1;
            if run % 3 == 0 {
                90e-9
            } else {
                20e-9
            }
        });
        let w = pair_warning("line_bounce_s", &scattered, "", None).unwrap();
        assert!(
            w.contains("its repetitions disagree, 2.000e-8 to 9.000e-8 s"),
            "{w}"
        );
        assert!(
            w.ends_with(
                "the mean over 12 pairs of processors of each pair's median, 2.000e-8 s, is kept"
            ),
            "{w}"
        );
        // No pair measured: the stand-in is said.
        let none = over_pairs(&plan, &NoProbe, |_, _| f64::NAN);
        let w = pair_warning("line_bounce_s", &none, "stand-in", None).unwrap();
        assert!(w.starts_with("line_bounce_s: no repetition of 36"), "{w}");
    }

    #[test]
    fn a_hand_off_key_left_out_is_warned_about() {
        assert!(handoff_warnings(3e-6, 5e-6, 2e-5, 1e-7).is_empty());
        let both = handoff_warnings(f64::NAN, f64::NAN, 2e-5, 1e-7);
        assert_eq!(both.len(), 2, "{both:?}");
        assert!(
            both[0].starts_with("handoff_notify_s: not measured"),
            "{both:?}"
        );
        assert!(
            both[1].starts_with("handoff_spin_window_s: not measured"),
            "{both:?}"
        );
        // A send to a parked receiver no dearer than to a spinning one is not a price.
        let cheaper = handoff_warnings(-1e-7, 5e-6, 2e-5, 1e-7);
        assert_eq!(cheaper.len(), 1, "{cheaper:?}");
        assert!(cheaper[0].contains("lcm predict charges"), "{cheaper:?}");
        // A wake price no repetition measured stands in; one of 0 is clamped; a spinning
        // hand-off of 102 us (a loaded machine) is no line's trip.
        let wake = handoff_warnings(3e-6, 5e-6, f64::NAN, 1e-7);
        assert!(
            wake[0].contains("holds handoff_spin_s in its place"),
            "{wake:?}"
        );
        let clamped = handoff_warnings(3e-6, 5e-6, 0.0, 1e-7);
        assert!(clamped[0].contains("holds 1 ns"), "{clamped:?}");
        let slow = handoff_warnings(3e-6, 5e-6, 2e-5, 1.02e-4);
        assert_eq!(slow.len(), 1, "{slow:?}");
        assert!(
            slow[0].starts_with("handoff_spin_s: 1.020e-4 s"),
            "{slow:?}"
        );
    }
}
