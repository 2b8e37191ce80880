//! [`Transition`]: one event of a thread, packed into 16 bytes for the merge and the
//! global sweep.

use pplib::log::EventCode;

use crate::stack::ThreadState;

/// One event of a thread as the global sweep needs it: 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    /// When (nanoseconds).
    pub time: u64,
    /// Bits 0..4: event code; 4..6: the thread's new state; 8..32: thread slot; 32..64:
    /// the event's argument.
    word: u64,
}

impl Transition {
    /// The most thread slots a transition can name (lanes are used for logs with fewer
    /// threads).
    pub const MAX_SLOTS: usize = 1 << 24;

    /// A transition of slot `slot` (< [`Transition::MAX_SLOTS`]).
    #[inline(always)]
    pub fn new(time: u64, slot: usize, code: EventCode, arg: u32, state: ThreadState) -> Self {
        let state = match state {
            ThreadState::Idle => 0u64,
            ThreadState::Busy => 1,
            ThreadState::Spinning => 2,
        };
        Transition {
            time,
            word: code as u64 | state << 4 | (slot as u64) << 8 | u64::from(arg) << 32,
        }
    }

    /// The code bits of a marker (see [`Transition::marker`]).
    const MARKER: u64 = 0xF;

    /// A marker: not an event but the place (time `time`, thread slot `slot`) where the
    /// merge meets a lane's error, number `index` of its run.
    #[inline]
    pub fn marker(time: u64, slot: usize, index: u32) -> Transition {
        Transition {
            time,
            word: Transition::MARKER | (slot as u64) << 8 | u64::from(index) << 32,
        }
    }

    /// Whether this is a marker (see [`Transition::marker`]).
    #[inline(always)]
    pub fn is_marker(&self) -> bool {
        self.word & 0xF == Transition::MARKER
    }

    /// The same transition with argument `arg`.
    #[inline(always)]
    pub fn with_arg(self, arg: u32) -> Transition {
        Transition {
            time: self.time,
            word: (self.word & 0xFFFF_FFFF) | u64::from(arg) << 32,
        }
    }

    /// The thread slot.
    #[inline(always)]
    pub fn slot(&self) -> usize {
        ((self.word >> 8) & 0xFF_FFFF) as usize
    }

    /// The code bits: the event code as a number (see [`EventCode`]), or 15 for a marker.
    #[inline(always)]
    pub fn code_bits(&self) -> u32 {
        (self.word & 0xF) as u32
    }

    /// The event code.
    #[inline(always)]
    pub fn code(&self) -> EventCode {
        const CODES: [EventCode; 16] = [
            EventCode::SessionBegin,
            EventCode::SessionEnd,
            EventCode::FragBegin,
            EventCode::FragEnd,
            EventCode::ParBegin,
            EventCode::ParEnd,
            EventCode::TaskBegin,
            EventCode::TaskEnd,
            EventCode::TaskEndWasted,
            EventCode::WaitBegin,
            EventCode::WaitEnd,
            EventCode::Counters,
            // Never made (codes have 12 values; 15 is a marker's).
            EventCode::Counters,
            EventCode::Counters,
            EventCode::Counters,
            EventCode::Counters,
        ];
        CODES[(self.word & 0xF) as usize]
    }

    /// The event's argument (a name id; the number of values of `counters`).
    #[inline(always)]
    pub fn arg(&self) -> u32 {
        (self.word >> 32) as u32
    }

    /// The bits of the thread's state after the event: 0 Idle, 1 Busy, 2 Spinning.
    #[inline(always)]
    pub fn state_bits(&self) -> u32 {
        ((self.word >> 4) & 3) as u32
    }

    /// The thread's state after the event.
    #[inline(always)]
    pub fn state(&self) -> ThreadState {
        const STATES: [ThreadState; 4] = [
            ThreadState::Idle,
            ThreadState::Busy,
            ThreadState::Spinning,
            ThreadState::Idle,
        ];
        STATES[((self.word >> 4) & 3) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transitions_pack_and_unpack() {
        let codes = [
            EventCode::SessionBegin,
            EventCode::FragEnd,
            EventCode::TaskEndWasted,
            EventCode::Counters,
        ];
        for (i, code) in codes.into_iter().enumerate() {
            for state in [ThreadState::Idle, ThreadState::Busy, ThreadState::Spinning] {
                let slot = (i * 977_123) % Transition::MAX_SLOTS;
                let tr = Transition::new(u64::MAX - i as u64, slot, code, u32::MAX - 3, state);
                assert_eq!(tr.time, u64::MAX - i as u64);
                assert_eq!(tr.slot(), slot);
                assert_eq!(tr.code(), code);
                assert_eq!(tr.arg(), u32::MAX - 3);
                assert_eq!(tr.state(), state);
                assert!(!tr.is_marker());
                assert_eq!(tr.with_arg(7).arg(), 7);
                assert_eq!(tr.with_arg(7).code(), code);
            }
        }
        let m = Transition::marker(5, 3, 9);
        assert!(m.is_marker());
        assert_eq!((m.time, m.slot(), m.arg()), (5, 3, 9));
    }
}
