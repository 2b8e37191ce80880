//! What a hand-off to a receiver that has long been parked costs: the sender's wake-up call
//! (`handoff_notify_s`) and how much later the receiver runs than one caught spinning
//! (`handoff_wake_s`), read from the channel hand-off kernel ([`super::channel_handoff`]).
//!
//! **Why after a long sleep.** An idle virtual processor keeps polling for a while after its
//! thread blocked before it really halts (the guest kernel's halt-polling, then the host's
//! polling of a halted virtual processor; both adaptive, by default up to some hundreds of
//! microseconds together). A wake-up while the receiver's processor still polls is cheap;
//! one after it halted costs the waker an inter-processor interrupt through the hypervisor
//! and the receiver a longer return. A kernel that wakes threads which slept some tens of
//! microseconds prices the cheap case, and on a 16-processor virtual machine it gave the
//! waker 1.2-1.4 µs where a pipeline's stage, whose partner slept 20-400 µs per item, paid
//! 3-5 µs. The prices are therefore read from hand-offs after a delay of at least
//! [`LONG_SLEEP_S`] (1 ms: past the default polling limits with room to spare, and beyond
//! the waits of the pipelines measured), in which the receiver parked. On bare metal a long
//! sleep may likewise reach a deeper idle state of the processor. A wait shorter than the
//! polling time (or than the idle state's entry) may thus cost less than these prices: they
//! are upper bounds for short waits on such machines.
//!
//! **How.** The reference is the kernel's hand-offs after its shortest delay (some tenths of
//! a microsecond) in which the receiver did not park: it was caught spinning in `recv`.
//! - `notify_s` = the median send after a long sleep − the median send to the spinning
//!   receiver: what waking a parked receiver adds to the sender's send (a futex wake, and on
//!   a virtual machine the interrupt that wakes its processor). lcm's rule charges a send to
//!   a spinning receiver nothing, so the price is the difference.
//! - `wake_s` = the median time from the end of the send to the acknowledgement after a long
//!   sleep − the same for the spinning receiver: how much later, once the send returned, a
//!   parked receiver runs than a spinning one. Both times end with the acknowledgement's
//!   trip back to the sender (a spinning hand-off), which the difference cancels. It is
//!   measured from the end of the send because lcm's rule adds `handoff_notify_s` to the
//!   sending stage before the item reaches the next one: counting the send in the wake too
//!   would charge it twice along an item's path. Where the receiver's wake-up overlaps the
//!   sender's system call (the kernel runs it on another processor at once), the price is
//!   small, and it is never taken below 0.
//! - `one_way_s` = the median round trip after a long sleep − the reference's time after its
//!   send: from the start of the send to the parked receiver running, the whole one-way
//!   hand-off (the calibration keeps `handoff_spin_s` at most this).
//!
//! Without the park signal (systems other than Linux) every hand-off after a long delay
//! counts as parked (1 ms is far beyond any spin-then-park backoff) and every one at the
//! shortest delay as spinning. Without a hand-off in either set (a receiver that never parked
//! even after a long delay: both threads sharing one processor, the others busy) the prices
//! are NaN, which the median of the repetitions leaves out.

use super::channel_handoff::ChannelHandoff;
use super::quiet::median;

/// The shortest delay after which a hand-off prices a receiver that has long been parked,
/// seconds (see the module docs).
pub const LONG_SLEEP_S: f64 = 1e-3;

/// The prices of a hand-off to a parked receiver (see the module docs), in seconds, and the
/// hand-offs they were read from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WakePrices {
    /// What waking the receiver adds to the sender's send (`handoff_notify_s`).
    pub notify_s: f64,
    /// How much later, once the send returned, the receiver runs than a spinning one
    /// (`handoff_wake_s`), at least 0.
    pub wake_s: f64,
    /// From the start of the send to the parked receiver running.
    pub one_way_s: f64,
    /// Hand-offs after a long sleep in which the receiver parked (those priced).
    pub asleep: usize,
    /// Hand-offs at the shortest delay in which the receiver was caught spinning (the
    /// reference).
    pub spinning: usize,
}

/// The prices read from a kernel's hand-offs (see the module docs); NaN prices when there
/// is no hand-off after a long sleep in which the receiver parked, or none at a shortest
/// delay below [`LONG_SLEEP_S`] in which it did not.
pub fn wake_prices_of(handoffs: &[ChannelHandoff]) -> WakePrices {
    let shortest = handoffs
        .iter()
        .map(|h| h.delay_s)
        .fold(f64::INFINITY, f64::min);
    let spinning: Vec<&ChannelHandoff> = handoffs
        .iter()
        .filter(|h| h.delay_s == shortest && shortest < LONG_SLEEP_S && h.parked != Some(true))
        .collect();
    let asleep: Vec<&ChannelHandoff> = handoffs
        .iter()
        .filter(|h| h.delay_s >= LONG_SLEEP_S && h.parked != Some(false))
        .collect();
    let med = |set: &[&ChannelHandoff], f: fn(&ChannelHandoff) -> f64| -> f64 {
        median(&set.iter().map(|h| f(h)).collect::<Vec<f64>>())
    };
    let spin_after = med(&spinning, ChannelHandoff::after_send_s);
    let wake_s = med(&asleep, ChannelHandoff::after_send_s) - spin_after;
    WakePrices {
        notify_s: med(&asleep, |h| h.send_s) - med(&spinning, |h| h.send_s),
        // Below 0 is 0; NaN (no hand-off to price) stays NaN.
        wake_s: if wake_s < 0.0 { 0.0 } else { wake_s },
        one_way_s: med(&asleep, |h| h.round_trip_s) - spin_after,
        asleep: asleep.len(),
        spinning: spinning.len(),
    }
}

/// The `handoff_wake_s` a calibration writes from the median wake price `wake_s` and the
/// spinning hand-off `spin_s`: with no price (no parked receiver in any repetition, even
/// after a long delay: both threads on one processor, the others busy) every hand-off
/// caught the receiver awake, so a wake-up costs what a spinning hand-off costs; a price of
/// 0 becomes 1 ns, the file's keys being positive.
pub fn wake_for_file(wake_s: f64, spin_s: f64) -> f64 {
    if wake_s.is_nan() {
        spin_s
    } else {
        wake_s.max(1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::super::channel_handoff::handoffs_once;
    use super::*;

    /// A hand-off after `delay_s` whose send took `send_s` and whose acknowledgement came
    /// `after_s` after the send returned.
    fn handoff(delay_s: f64, send_s: f64, after_s: f64, parked: Option<bool>) -> ChannelHandoff {
        ChannelHandoff {
            delay_s,
            send_s,
            round_trip_s: send_s + after_s,
            parked,
        }
    }

    /// The hand-offs of trips over delays 0.5 µs, 50 µs, 1 ms and 2 ms on an idle virtual
    /// machine that halt-polls: the receiver parks from 50 µs on, but until the polling ends
    /// (between 50 µs and 1 ms) waking it costs the sender 1.3 µs and it runs 2 µs after the
    /// send; after 1 ms and more the send costs 5.1 µs and it runs 12 µs after. A spinning
    /// receiver: send 0.1 µs, acknowledgement 0.3 µs after it.
    fn halt_polling(trips: usize, parked: impl Fn(f64) -> Option<bool>) -> Vec<ChannelHandoff> {
        let mut out = Vec::new();
        for _ in 0..trips {
            out.push(handoff(0.5e-6, 0.1e-6, 0.3e-6, parked(0.5e-6)));
            out.push(handoff(50e-6, 1.4e-6, 2.3e-6, parked(50e-6)));
            out.push(handoff(1e-3, 5.2e-6, 12.3e-6, parked(1e-3)));
            out.push(handoff(2e-3, 5.2e-6, 12.3e-6, parked(2e-3)));
        }
        out
    }

    fn close(x: f64, want: f64) -> bool {
        (x - want).abs() < 1e-12
    }

    #[test]
    fn the_prices_are_those_of_a_long_sleep_not_of_a_polled_one() {
        let p = wake_prices_of(&halt_polling(5, |d| Some(d > 10e-6)));
        assert!(close(p.notify_s, 5.1e-6), "{p:?}");
        assert!(close(p.wake_s, 12e-6), "{p:?}");
        assert!(close(p.one_way_s, 5.2e-6 + 12e-6), "{p:?}");
        assert_eq!((p.asleep, p.spinning), (10, 5));
        // The polled regime, read the same way, would have given the cheap prices.
        let polled: Vec<ChannelHandoff> = halt_polling(5, |d| Some(d > 10e-6))
            .into_iter()
            .filter(|h| h.delay_s < 1e-3)
            .map(|h| ChannelHandoff {
                delay_s: if h.delay_s > 1e-6 { 1e-3 } else { h.delay_s },
                ..h
            })
            .collect();
        let q = wake_prices_of(&polled);
        assert!(close(q.notify_s, 1.3e-6) && close(q.wake_s, 2e-6), "{q:?}");
    }

    #[test]
    fn hand_offs_that_contradict_their_delay_are_left_out() {
        // A long-delay hand-off in which the receiver did not park (it lost its processor
        // and never reached the park) and a shortest-delay one in which it parked (the sender
        // was preempted before the send) would each pull a median towards the other regime.
        let mut h = halt_polling(3, |d| Some(d > 10e-6));
        h.push(handoff(2e-3, 0.1e-6, 0.3e-6, Some(false)));
        h.push(handoff(2e-3, 0.1e-6, 0.3e-6, Some(false)));
        h.push(handoff(2e-3, 0.1e-6, 0.3e-6, Some(false)));
        h.push(handoff(0.5e-6, 5e-6, 12e-6, Some(true)));
        h.push(handoff(0.5e-6, 5e-6, 12e-6, Some(true)));
        h.push(handoff(0.5e-6, 5e-6, 12e-6, Some(true)));
        let p = wake_prices_of(&h);
        assert!(close(p.notify_s, 5.1e-6) && close(p.wake_s, 12e-6), "{p:?}");
        assert_eq!((p.asleep, p.spinning), (6, 3));
    }

    #[test]
    fn without_the_park_signal_the_delays_decide() {
        let p = wake_prices_of(&halt_polling(3, |_| None));
        assert!(close(p.notify_s, 5.1e-6) && close(p.wake_s, 12e-6), "{p:?}");
        assert_eq!((p.asleep, p.spinning), (6, 3));
    }

    #[test]
    fn without_a_parked_or_a_spinning_hand_off_there_is_no_price() {
        // Never parked, even after 2 ms (both threads on one processor).
        let never = wake_prices_of(&halt_polling(3, |_| Some(false)));
        assert!(
            never.notify_s.is_nan() && never.wake_s.is_nan(),
            "{never:?}"
        );
        // Only long delays: no spinning reference.
        let only_long: Vec<ChannelHandoff> = halt_polling(3, |_| None)
            .into_iter()
            .filter(|h| h.delay_s >= 1e-3)
            .collect();
        assert!(wake_prices_of(&only_long).wake_s.is_nan());
        assert!(wake_prices_of(&[]).notify_s.is_nan());
    }

    #[test]
    fn a_receiver_that_runs_before_the_send_returns_costs_no_wake() {
        // The receiver's wake-up overlaps the sender's system call: after the send it is as
        // quick as a spinning one, or a little quicker.
        let h = [
            handoff(0.5e-6, 0.1e-6, 0.3e-6, Some(false)),
            handoff(2e-3, 4e-6, 0.25e-6, Some(true)),
        ];
        let p = wake_prices_of(&h);
        assert_eq!(p.wake_s, 0.0, "{p:?}");
        assert!(close(p.notify_s, 3.9e-6), "{p:?}");
    }

    #[test]
    fn the_file_takes_the_spinning_hand_off_when_no_receiver_parked() {
        assert_eq!(wake_for_file(12e-6, 3e-8), 12e-6);
        assert_eq!(wake_for_file(f64::NAN, 3e-8), 3e-8);
        assert_eq!(wake_for_file(0.0, 3e-8), 1e-9);
    }

    #[test]
    fn a_real_kernel_gives_finite_prices_or_says_none() {
        // The facts that hold however loaded the machine is, not the values: on a loaded
        // machine a price may come from one parked hand-off and any order between the
        // prices (medians of different hand-offs) can turn (a parallel test run gave a
        // one-way hand-off below the spinning reference); lcm calibrate keeps only positive
        // values (mod.rs). The arithmetic is held exactly by the fake hand-offs above.
        let clock = super::super::clock::MonotonicClock::new();
        let trips = 15;
        let h = handoffs_once(&clock, &[0.5e-6, 2e-3], trips);
        let p = wake_prices_of(&h);
        assert!(
            p.asleep <= trips as usize && p.spinning <= trips as usize,
            "{p:?}"
        );
        if p.asleep == 0 || p.spinning == 0 {
            // Both threads shared one processor throughout: no price, said as NaN.
            assert!(p.notify_s.is_nan() && p.wake_s.is_nan(), "{p:?}");
            return;
        }
        for v in [p.notify_s, p.wake_s, p.one_way_s] {
            assert!(v.is_finite() && v.abs() < 1.0, "{p:?}");
        }
        assert!(p.wake_s >= 0.0, "{p:?}");
    }
}
