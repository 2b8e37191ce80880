//! The spin window of a channel: the longest wait that a receiver blocked on an empty
//! channel still spends spinning, so that a send finds it awake.
//!
//! A `crossbeam_channel` receiver (and `std::sync::mpsc`, the same design) that finds the
//! channel empty first spins and yields for a while (crossbeam's backoff: 1, 2, … 64
//! spin-loop hints, then four `yield_now`), then parks in the kernel (a futex wait) until a
//! sender wakes it. A send that comes before the park is a cache-line hand-off
//! (`handoff_spin_s`); one that comes later goes through the kernel: the sender makes the
//! wake-up call (`handoff_notify_s`) and the receiver runs only once the scheduler has
//! woken it (`handoff_wake_s`). The window is thus where the receiver parks: some
//! microseconds of spinning and yielding on a quiet machine, longer on a loaded one, where
//! each yield may hand the processor to another program for a while.
//!
//! [`sweep_once`] runs the channel hand-off kernel ([`super::channel_handoff`]) after
//! delays `d` swept geometrically ([`delays`]); each delay keeps its median round trip and
//! send and the share of its hand-offs in which the receiver parked ([`sweep_of`]).
//!
//! [`window_of`] reads the window from the sweep. With the park signal (Linux), the window
//! lies between the last delay at which the receiver parked in under half
//! ([`PARKED_SHARE`]) of the trips and the next delay (their geometric mean): from there on
//! it parked in most trips. A sweep in which the receiver parked in most trips at no delay,
//! or at every delay from the shortest on, shows no window. Both threads on one processor
//! (the others busy) give none either: each of the receiver's yields hands the processor to
//! the sender, which spins out its delay (shorter than a time slice) and sends before the receiver has yielded its four
//! times, so the receiver never parks and every wait is caught in its yields.
//!
//! Why the park and not the clock: an idle virtual processor polls for a while before it
//! really halts (the guest's halt-polling, then the host's polling of a halted virtual
//! processor: up to a few hundred microseconds together), and a wake-up within that time is
//! nearly as quick as a spinning hand-off. On such a machine the round trip and the send of
//! this kernel, whose two threads have the machine to themselves, only jump where the
//! polling ends, hundreds of microseconds after the receiver parked: a window read from the
//! clock alone is the polling time, not the channel's. What a program pays follows the
//! park: a send to a parked receiver makes the wake-up system call and the receiver comes
//! back through the scheduler, and pipelines measured on a 16-processor virtual machine
//! paid the wake-up prices for waits beyond some microseconds, far inside that machine's
//! polling time. The park signal does not depend on how an idle processor waits.
//!
//! Without the park signal (other systems), two clock signals stand in for it: the round
//! trip (a wake-up through the scheduler instead of a cache-line hand-off) and the sender's
//! cost of the send (the wake-up call, which a send to a thread still spinning does not
//! make). For each, the shortest delay gives the spinning level and the longest the
//! sleeping level; a delay finds the receiver asleep when both signals are nearer their
//! sleeping level. The window lies between the last delay before the first such one and
//! that one (their geometric mean). Requiring both keeps out what a loaded machine does to
//! one of them (a sender preempted during a long delay lengthens the round trip, not the
//! send). When either signal's levels do not differ by [`JUMP_RATIO`] the sweep shows no
//! window: the receiver never went to sleep, or it never ran while the sender waited (both
//! threads on one processor, the others busy; then every round trip is a scheduler's time
//! slice and no send wakes anyone).
//!
//! A sweep without a window gives NaN, which the median of the repetitions leaves out
//! ([`super::quiet::median`]); when every repetition gives NaN the calibration writes no
//! `handoff_spin_window_s`, and lcm takes every wait as caught spinning (its documented
//! fallback).
//!
//! All clock readings are on the sending thread and the switch counter is a parameter of
//! [`sweep_with`], so fakes drive the arithmetic deterministically.

use super::channel_handoff::{handoffs_with, ChannelHandoff, SwitchCounter};
use super::clock::Clock;

/// Shortest delay of the default sweep, seconds.
pub const SHORTEST_DELAY_S: f64 = 0.5e-6;

/// Longest delay of the default sweep, seconds (4096 times the shortest, about 2 ms): far
/// beyond any spin-then-park backoff.
pub const LONGEST_DELAY_S: f64 = 2.048e-3;

/// Delays per doubling of the default sweep.
pub const DELAYS_PER_DOUBLING: u32 = 2;

/// How many times each clock signal's sleeping level must exceed its spinning level for a
/// sweep without the park signal to show a jump at all (a quiet machine shows some 20 times
/// for the round trip and more for the send).
pub const JUMP_RATIO: f64 = 4.0;

/// The share of a delay's trips in which the receiver must have parked for the delay to
/// count as beyond the window.
pub const PARKED_SHARE: f64 = 0.5;

/// Delays from `shortest_s` up to `longest_s` (inclusive when reached),
/// `per_doubling` of them per doubling.
pub fn delays(shortest_s: f64, longest_s: f64, per_doubling: u32) -> Vec<f64> {
    let factor = 2f64.powf(1.0 / f64::from(per_doubling.max(1)));
    let mut out = Vec::new();
    let mut d = shortest_s.max(0.0);
    if d == 0.0 {
        return vec![0.0];
    }
    while d <= longest_s * (1.0 + 1e-9) {
        out.push(d);
        d *= factor;
    }
    out
}

/// The default sweep: [`SHORTEST_DELAY_S`] to [`LONGEST_DELAY_S`],
/// [`DELAYS_PER_DOUBLING`] per doubling.
pub fn default_delays() -> Vec<f64> {
    delays(SHORTEST_DELAY_S, LONGEST_DELAY_S, DELAYS_PER_DOUBLING)
}

/// One delay of a sweep with its measurements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepPoint {
    /// Seconds the receiver had been waiting when the value was sent.
    pub delay_s: f64,
    /// Median seconds from the start of the send to the sender seeing the acknowledgement.
    pub round_trip_s: f64,
    /// Median seconds the send itself took the sender.
    pub sender_s: f64,
    /// Share (0 to 1) of the delay's trips in which the receiver parked (its voluntary
    /// context switches grew); None where the system does not count them.
    pub parked_share: Option<f64>,
}

/// One sweep: for each of `trips` trips, one hand-off after every delay of `delays`; per
/// delay the medians and the park share (see the module docs). The receiver counts its
/// parks with [`pplib::thread::voluntary_switches`].
pub fn sweep_once<C: Clock + ?Sized>(clock: &C, delays: &[f64], trips: u64) -> Vec<SweepPoint> {
    sweep_with(clock, pplib::thread::voluntary_switches, delays, trips)
}

/// [`sweep_once`] with the receiver's switch counter given: `switches` runs on the
/// receiving thread, once before its first announcement and once after each
/// acknowledgement.
pub fn sweep_with<C: Clock + ?Sized>(
    clock: &C,
    switches: SwitchCounter,
    delays: &[f64],
    trips: u64,
) -> Vec<SweepPoint> {
    sweep_of(&handoffs_with(clock, switches, delays, trips), delays)
}

/// Per delay of `delays`, the median round trip and send of its hand-offs and the share of
/// them in which the receiver parked: None when a hand-off could not tell (or there is
/// none); NaN medians for a delay without hand-offs.
pub fn sweep_of(handoffs: &[ChannelHandoff], delays: &[f64]) -> Vec<SweepPoint> {
    delays
        .iter()
        .map(|&d| {
            let at: Vec<&ChannelHandoff> = handoffs.iter().filter(|h| h.delay_s == d).collect();
            let of =
                |f: fn(&ChannelHandoff) -> f64| -> Vec<f64> { at.iter().map(|h| f(h)).collect() };
            let parks: Option<Vec<bool>> = at.iter().map(|h| h.parked).collect();
            SweepPoint {
                delay_s: d,
                round_trip_s: super::quiet::median(&of(|h| h.round_trip_s)),
                sender_s: super::quiet::median(&of(|h| h.send_s)),
                parked_share: parks
                    .filter(|p| !p.is_empty())
                    .map(|p| p.iter().filter(|&&x| x).count() as f64 / p.len() as f64),
            }
        })
        .collect()
}

/// The spin window of a sweep (see the module docs): read from the receiver's parks when
/// every delay has its park share, else from the two clock signals; NaN for an empty sweep
/// or one without a window.
pub fn window_of(sweep: &[SweepPoint]) -> f64 {
    let points: Vec<&SweepPoint> = sweep
        .iter()
        .filter(|s| s.round_trip_s.is_finite() && s.delay_s > 0.0)
        .collect();
    if points.is_empty() {
        return f64::NAN;
    }
    match points
        .iter()
        .map(|s| s.parked_share)
        .collect::<Option<Vec<f64>>>()
    {
        Some(shares) => window_from_parks(&points, &shares),
        None => window_from_clocks(&points),
    }
}

/// The window between the last delay at which the receiver parked in under
/// [`PARKED_SHARE`] of the trips and the next one; NaN when it parked in most trips at
/// every delay or at none.
fn window_from_parks(points: &[&SweepPoint], shares: &[f64]) -> f64 {
    let parked = |share: f64| share >= PARKED_SHARE;
    match shares.iter().rposition(|&s| !parked(s)) {
        Some(k) if k + 1 < points.len() => (points[k].delay_s * points[k + 1].delay_s).sqrt(),
        _ => f64::NAN,
    }
}

/// The window from the round trip and the send (see the module docs); NaN when either does
/// not jump [`JUMP_RATIO`]-fold or both are at their sleeping level from the shortest
/// delay on.
fn window_from_clocks(points: &[&SweepPoint]) -> f64 {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return f64::NAN;
    };
    let trip = |s: &SweepPoint| s.round_trip_s;
    let send = |s: &SweepPoint| s.sender_s;
    let jumps = |f: &dyn Fn(&SweepPoint) -> f64| f(last) >= f(first) * JUMP_RATIO;
    if !(jumps(&trip) && jumps(&send)) {
        return f64::NAN;
    }
    let middle = |f: &dyn Fn(&SweepPoint) -> f64| 0.5 * (f(first) + f(last));
    let (trip_middle, send_middle) = (middle(&trip), middle(&send));
    let asleep = |s: &SweepPoint| s.round_trip_s > trip_middle && s.sender_s > send_middle;
    match points.iter().position(|s| asleep(s)) {
        Some(0) | None => f64::NAN,
        Some(k) => (points[k - 1].delay_s * points[k].delay_s).sqrt(),
    }
}

/// One repetition: [`sweep_once`] then [`window_of`], seconds.
pub fn spin_window_once<C: Clock + ?Sized>(clock: &C, delays: &[f64], trips: u64) -> f64 {
    window_of(&sweep_once(clock, delays, trips))
}

#[cfg(test)]
mod tests {
    use super::super::clock::fake::{grows_every_other_reading, StepClock};
    use super::*;

    /// A delay measured without the park signal (a system that does not count switches).
    fn point(delay_s: f64, round_trip_s: f64, sender_s: f64) -> SweepPoint {
        SweepPoint {
            delay_s,
            round_trip_s,
            sender_s,
            parked_share: None,
        }
    }

    /// The same with the share of trips in which the receiver parked.
    fn with_parks(point: SweepPoint, parked_share: f64) -> SweepPoint {
        SweepPoint {
            parked_share: Some(parked_share),
            ..point
        }
    }

    /// A default sweep on an idle virtual machine that halt-polls: the receiver parks from
    /// the first delay past `park_from_s` on, but a wake-up stays nearly as quick as a
    /// spinning hand-off up to the delay of 0.51 ms; only from 0.72 ms on, where the polling
    /// has ended, do the round trip (0.4 -> 20 µs) and the send (0.1 -> 7 µs) jump.
    fn halt_polling_sweep(park_from_s: f64) -> Vec<SweepPoint> {
        default_delays()
            .into_iter()
            .map(|d| {
                let polled = d <= 0.6e-3;
                let p = if polled {
                    point(d, 0.4e-6, 0.1e-6)
                } else {
                    point(d, 20e-6, 7e-6)
                };
                // Nearly never parked before `park_from_s`, nearly always after.
                with_parks(p, if d < park_from_s { 0.1 } else { 0.9 })
            })
            .collect()
    }

    #[test]
    fn the_default_sweep_goes_from_half_a_microsecond_to_two_milliseconds() {
        let d = default_delays();
        assert_eq!(d[0], 0.5e-6);
        assert!((d[2] - 1e-6).abs() < 1e-18, "{d:?}");
        assert!((d.last().unwrap() - 2.048e-3).abs() < 1e-12, "{d:?}");
        assert_eq!(d.len(), 25);
    }

    #[test]
    fn with_the_park_signal_the_window_is_where_the_receiver_parks_not_where_the_clock_jumps() {
        // Delays 0.5, 0.71, 1, 1.41, 2, 2.83, 4, 5.66 µs, ...: the first at which the receiver
        // parked in most trips is 4 µs, the last before it 2.83 µs.
        let sweep = halt_polling_sweep(3.5e-6);
        let w = window_of(&sweep);
        let want = (2e-6f64 * 2f64.sqrt() * 4e-6).sqrt();
        assert!((w - want).abs() < 1e-12, "{w} against {want}");
        // Read from the clock alone, the same sweep gives the end of the halt-polling:
        // between 0.51 and 0.72 ms.
        let clocks_only: Vec<SweepPoint> = sweep
            .iter()
            .map(|s| SweepPoint {
                parked_share: None,
                ..*s
            })
            .collect();
        let from_clocks = window_of(&clocks_only);
        assert!(
            from_clocks > 0.5e-3 && from_clocks < 0.75e-3,
            "{from_clocks}"
        );
    }

    #[test]
    fn a_receiver_that_never_parks_or_always_parks_gives_no_window() {
        // Never parked in most trips, even though the clock signals jump (a loaded machine
        // that lengthens long delays' trips): no window.
        assert!(window_of(&halt_polling_sweep(1.0)).is_nan());
        // Parked in most trips from the shortest delay on: the window is shorter than the
        // sweep can tell.
        assert!(window_of(&halt_polling_sweep(0.0)).is_nan());
    }

    #[test]
    fn the_window_follows_the_last_delay_with_few_parks() {
        // A stray majority of parks at 2 µs (the sender preempted between the announcement
        // and the send) does not end the window; the last delay with few parks (4 µs) does.
        let sweep = [
            with_parks(point(1e-6, 0.4e-6, 0.1e-6), 0.0),
            with_parks(point(2e-6, 0.4e-6, 0.1e-6), 0.6),
            with_parks(point(4e-6, 0.4e-6, 0.1e-6), 0.2),
            with_parks(point(8e-6, 0.4e-6, 0.1e-6), 0.5),
            with_parks(point(16e-6, 20e-6, 7e-6), 1.0),
        ];
        let w = window_of(&sweep);
        assert!((w - (4e-6f64 * 8e-6).sqrt()).abs() < 1e-15, "{w}");
    }

    #[test]
    fn a_sweep_with_a_delay_lacking_the_park_signal_is_read_from_the_clocks() {
        // Parks say 1.4 µs, the clocks 5.7 µs; one delay without its share: the clocks.
        let mut sweep = vec![
            with_parks(point(1e-6, 0.4e-6, 0.1e-6), 0.0),
            with_parks(point(2e-6, 0.5e-6, 0.1e-6), 1.0),
            with_parks(point(4e-6, 0.6e-6, 0.1e-6), 1.0),
            with_parks(point(8e-6, 19e-6, 7e-6), 1.0),
            with_parks(point(1e-3, 20e-6, 7e-6), 1.0),
        ];
        let from_parks = window_of(&sweep);
        assert!(
            (from_parks - 2f64.sqrt() * 1e-6).abs() < 1e-15,
            "{from_parks}"
        );
        sweep[2].parked_share = None;
        let from_clocks = window_of(&sweep);
        assert!(
            (from_clocks - (4e-6f64 * 8e-6).sqrt()).abs() < 1e-15,
            "{from_clocks}"
        );
    }

    #[test]
    fn without_the_park_signal_the_window_lies_between_the_last_spinning_and_the_first_sleeping_delay(
    ) {
        // Round trip 0.4 µs spinning, 20 µs asleep; the send 0.1 µs, 7 µs when it wakes the
        // receiver; both jump between 4 and 8 µs.
        let sweep = [
            point(1e-6, 0.4e-6, 0.1e-6),
            point(2e-6, 0.5e-6, 0.1e-6),
            point(4e-6, 0.6e-6, 0.1e-6),
            point(8e-6, 19e-6, 7e-6),
            point(16e-6, 20e-6, 7e-6),
            point(1e-3, 20e-6, 7e-6),
        ];
        let w = window_of(&sweep);
        assert!((w - (4e-6f64 * 8e-6).sqrt()).abs() < 1e-15, "{w}");
    }

    #[test]
    fn without_the_park_signal_a_sweep_without_a_jump_gives_no_window() {
        // The receiver never slept, or shared the sender's processor: every round trip a
        // time slice, no send wakes anyone.
        let never_slept = [point(1e-6, 0.4e-6, 0.1e-6), point(1e-3, 0.7e-6, 0.1e-6)];
        assert!(window_of(&never_slept).is_nan());
        let one_processor = [
            point(1e-6, 31e-6, 0.04e-6),
            point(1e-4, 31e-6, 0.04e-6),
            point(1e-3, 33e-6, 0.3e-6),
        ];
        assert!(window_of(&one_processor).is_nan());
        assert!(window_of(&[]).is_nan());
    }

    #[test]
    fn a_round_trip_that_grows_without_a_wake_up_call_is_not_sleep() {
        // A sender preempted during its long delays lengthens the round trips there, but
        // its sends stay cheap until the receiver really sleeps (from 64 µs on).
        let sweep = [
            point(1e-6, 1e-6, 0.1e-6),
            point(8e-6, 1e-6, 0.1e-6),
            point(16e-6, 30e-6, 0.1e-6),
            point(64e-6, 30e-6, 7e-6),
            point(1e-3, 30e-6, 7e-6),
        ];
        let w = window_of(&sweep);
        assert!((w - (16e-6f64 * 64e-6).sqrt()).abs() < 1e-15, "{w}");
    }

    #[test]
    fn the_sweep_waits_each_delay_and_times_the_send_and_the_round_trip() {
        // Every reading advances one step (a power of two, so the differences are exact):
        // the send spans one step, the round trip two, at every delay.
        let step = 1.0 / f64::from(1u32 << 20);
        let clock = StepClock::new(step);
        let delays = [2.0 * step, 5.0 * step, 10.0 * step];
        let sweep = sweep_once(&clock, &delays, 3);
        assert_eq!(sweep.len(), 3);
        for (s, d) in sweep.iter().zip(delays) {
            assert_eq!(s.delay_s, d);
            assert_eq!(s.sender_s, step, "{s:?}");
            assert_eq!(s.round_trip_s, 2.0 * step, "{s:?}");
        }
        // Per hand-off: the start of the wait, d / step readings while waiting, and the
        // three readings around the send.
        assert_eq!(clock.readings(), 3 * ((2 + 5 + 10) + 3 * 4));
        // Equal round trips: no jump, no window.
        assert!(spin_window_once(&StepClock::new(step), &delays, 2).is_nan());
    }

    #[test]
    fn the_park_share_of_a_delay_counts_the_trips_in_which_the_receivers_switches_grew() {
        // Two delays: every trip sends values 2t+1 (first delay) and 2t+2 (second), so the
        // receiver "parked" at every first delay and at no second one.
        let step = 1.0 / f64::from(1u32 << 20);
        let delays = [2.0 * step, 4.0 * step];
        let sweep = sweep_with(&StepClock::new(step), grows_every_other_reading, &delays, 4);
        let shares: Vec<Option<f64>> = sweep.iter().map(|s| s.parked_share).collect();
        assert_eq!(shares, [Some(1.0), Some(0.0)]);
        // A system that does not count switches gives no share, and the clock rule.
        let sweep = sweep_with(&StepClock::new(step), || None, &delays, 2);
        assert!(sweep.iter().all(|s| s.parked_share.is_none()), "{sweep:?}");
    }

    #[test]
    fn a_real_sweep_gives_park_shares_and_a_window_within_its_delays_or_none() {
        // Loose on purpose (the machine may be loaded): 50 ms is far beyond any backoff,
        // so the receiver parks in some of those trips at least.
        let clock = super::super::clock::MonotonicClock::new();
        let sweep = sweep_once(&clock, &[0.5e-6, 50e-3], 3);
        assert!(
            sweep
                .iter()
                .all(|s| s.round_trip_s > 0.0 && s.sender_s >= 0.0),
            "{sweep:?}"
        );
        if cfg!(target_os = "linux") {
            let shares: Vec<f64> = sweep.iter().map(|s| s.parked_share.unwrap()).collect();
            assert!(shares.iter().all(|s| (0.0..=1.0).contains(s)), "{sweep:?}");
            assert!(shares[1] > 0.0, "{sweep:?}");
        }
        let w = window_of(&sweep);
        assert!(w.is_nan() || (w > 0.0 && w <= 50e-3), "{w}");
    }
}
