//! The binary event log, version 1: this module's documentation is the format's spec.
//!
//! The runtime writes it while the program runs ([`LogWriter`]); [`crate::log::LogReader`]
//! reads it ([`BinaryLog`] indexes it, [`BinaryStream`] decodes one thread lazily). The
//! meaning of every event is in docs/event-logs.md; this page only
//! says how events are laid out in bytes.
//!
//! # Primitives
//!
//! - `u8`, `u16le`, `u32le`: little-endian fixed-width unsigned integers.
//! - `uvarint`: unsigned LEB128 (7 bits per byte, low bits first, high bit set on every byte
//!   but the last), at most 10 bytes, value < 2^64. Not necessarily minimal: a value padded
//!   with groups of zero bits (bytes 0x80, then a last 0x00) reads the same.
//! - `str`: `uvarint` byte length, then that many bytes of UTF-8.
//!
//! # File layout
//!
//! ```text
//! file    = magic version header record* end-record
//! magic   = "PPLOG" 0x00 0x0D 0x0A           (8 bytes; CR LF catches text-mode mangling)
//! version = u16le                            (this spec: 1)
//! header  = u32le length, then `length` bytes:
//!             uvarint processors             p, the team size
//!             str     clock                  the time source, e.g. "CLOCK_MONOTONIC"
//!             uvarint counter_count, str*    counter names present; index = CounterId
//!             uvarint pid
//!             uvarint argc, str*             command line, program first
//!             uvarint start_unix_ns          wall clock at session start (ns since 1970)
//!             uvarint start_clock_ns         the log clock at that instant
//!             uvarint ref_raw, uvarint ref_ns, uvarint ns_per_raw_q32
//!                                            the time scale (below)
//!             uvarint event_cost_ps          optional: what recording one event cost, in
//!                                            picoseconds (0: not measured; below)
//!           (a reader ignores header bytes after these fields: later versions may add some)
//! record  = u8 type, u32le length, then `length` payload bytes
//! ```
//!
//! Record types (an unknown type is an error: the format is versioned by `version`):
//!
//! | type | name | payload |
//! |---|---|---|
//! | 1 | `NAME` | `uvarint id`, then the UTF-8 name (rest of the payload). Ids are defined in order 0, 1, 2, ...; a name is defined before any chunk that uses it. |
//! | 2 | `THREAD` | `uvarint thread`, `uvarint os_tid`, then the thread's UTF-8 name (rest; may be empty). Optional, at most one per thread. |
//! | 3 | `CHUNK` | `uvarint thread`, `uvarint base_time` (raw), then events up to the end of the payload. |
//! | 4 | `END` | empty: the writer finished; the log is complete. Nothing may follow it. |
//!
//! A thread's events are the concatenation of its chunks in file order; chunks of
//! different threads interleave freely. Payloads are at most [`MAX_PAYLOAD`] bytes.
//!
//! # Events inside a chunk
//!
//! ```text
//! event = u8 code, uvarint delta, args
//! ```
//! `delta` is the time since the previous event of the same chunk (for the first event
//! of a chunk: since `base_time`); the event's raw time is the running sum. Raw times are in
//! the recording clock's own unit (TSC ticks, or nanoseconds) so that the recorder never
//! converts them; a reader converts each raw time `r` with the header's time scale:
//!
//! ```text
//! ns = ref_ns + floor((r - ref_raw) × ns_per_raw_q32 / 2^32)      (signed, clamped at 0)
//! ```
//!
//! (`ref_raw` 0, `ref_ns` 0, `ns_per_raw_q32` 2^32 when the clock counts nanoseconds.)
//! Times must not decrease along a thread, across chunks included.
//!
//! **A scale rewritten in place.** A writer that measures the scale while it records (pplib
//! with the time-stamp counter: [`crate::clock`]) writes the three fields padded to 10 bytes
//! each, so that they have a fixed place and width, and rewrites them there: from time to
//! time while recording and, before `END`, with the final scale measured after the last
//! event ([`LogWriter::with_replaceable_time_scale`], [`LogWriter::replace_time_scale`]).
//! A reader needs nothing special: it reads the scale the file holds, which for a complete
//! log is the final one and for a log cut short the last one written (measured up to about
//! its last whole chunk).
//!
//! **The cost of recording one event.** `event_cost_ps` is optional: a header that ends
//! after the time scale (every log written before the field existed) has none, and readers
//! give [`crate::log::Header::event_cost_ps`] `None` for it, as for the value 0. pplib
//! writes it padded to 10 bytes (as the replaceable scale), 0 at first, and rewrites it in
//! place when the session ends with the cost it measured then ([`LogWriter::replace_event_cost`]):
//! the fastest of several short bursts of events recorded into a scratch buffer, through
//! the same steps as the recording hot path (docs/event-logs.md, "The cost of recording").
//! A log cut short keeps 0.
//!
//! | code | event (docs/event-logs.md) | args |
//! |---|---|---|
//! | 0 | `session_begin` | |
//! | 1 | `session_end` | |
//! | 2 | `frag_begin NAME` | `uvarint name_id` |
//! | 3 | `frag_end NAME` | `uvarint name_id` |
//! | 4 | `par_begin` | |
//! | 5 | `par_end` | |
//! | 6 | `task_begin` | |
//! | 7 | `task_end` | |
//! | 8 | `task_end wasted` | |
//! | 9 | `wait_begin KIND` | `uvarint name_id` (the kind is a name: `lock`, `barrier`, ...) |
//! | 10 | `wait_end` | |
//! | 11 | `counters` | `uvarint n`, then n × (`uvarint counter_id`, `uvarint value`): cumulative per-thread values |
//!
//! # Truncation and errors
//!
//! A log whose writer died (crash, `kill -9`, full disk) ends without the `END` record,
//! possibly in the middle of a record. A reader uses every whole record and every whole
//! event of a cut `CHUNK`; each thread's stream then ends with
//! [`crate::log::LogError::Truncated`], whose position is the byte offset where readable data
//! stops. A record that cannot be decoded (a bad code, a name id not defined anywhere in
//! the log, a varint longer than 10 bytes, a chunk whose last event runs past its payload)
//! is a [`crate::log::LogError::Syntax`] or [`crate::log::LogError::UnknownEvent`] at the byte
//! offset of that record or event.

mod read;
mod stream;
mod write;

pub use read::BinaryLog;
pub use stream::{BinaryStream, MAX_WINDOW, MIN_WINDOW, READAHEAD, WINDOW_BUDGET};
pub use write::{ChunkEncoder, LogWriter};

/// The first 8 bytes of every binary log.
pub const MAGIC: [u8; 8] = *b"PPLOG\0\r\n";
/// The format version this module writes and reads.
pub const VERSION: u16 = 1;
/// The largest record payload a reader accepts (bytes).
pub const MAX_PAYLOAD: u32 = 64 << 20;

/// How raw times of a log convert to nanoseconds (see the spec above).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeScale {
    /// A raw reading...
    pub ref_raw: u64,
    /// ...and the nanoseconds it stands for.
    pub ref_ns: u64,
    /// Nanoseconds per raw unit, times 2^32.
    pub ns_per_raw_q32: u64,
}

impl TimeScale {
    /// Raw times are nanoseconds.
    pub const IDENTITY: TimeScale = TimeScale {
        ref_raw: 0,
        ref_ns: 0,
        ns_per_raw_q32: 1 << 32,
    };

    /// The nanoseconds of raw time `raw`.
    #[inline]
    pub fn to_ns(&self, raw: u64) -> u64 {
        if *self == TimeScale::IDENTITY {
            return raw;
        }
        let delta = i128::from(raw) - i128::from(self.ref_raw);
        let ns = i128::from(self.ref_ns) + ((delta * i128::from(self.ns_per_raw_q32)) >> 32);
        ns.clamp(0, i128::from(u64::MAX)) as u64
    }
}

/// Record type: a string table entry.
pub(crate) const REC_NAME: u8 = 1;
/// Record type: thread information.
pub(crate) const REC_THREAD: u8 = 2;
/// Record type: a chunk of one thread's events.
pub(crate) const REC_CHUNK: u8 = 3;
/// Record type: end of a complete log.
pub(crate) const REC_END: u8 = 4;

/// Event codes (the table above).
pub(crate) mod code {
    pub const SESSION_BEGIN: u8 = 0;
    pub const SESSION_END: u8 = 1;
    pub const FRAG_BEGIN: u8 = 2;
    pub const FRAG_END: u8 = 3;
    pub const PAR_BEGIN: u8 = 4;
    pub const PAR_END: u8 = 5;
    pub const TASK_BEGIN: u8 = 6;
    pub const TASK_END: u8 = 7;
    pub const TASK_END_WASTED: u8 = 8;
    pub const WAIT_BEGIN: u8 = 9;
    pub const WAIT_END: u8 = 10;
    pub const COUNTERS: u8 = 11;
}

/// Appends `value` as a `uvarint`.
#[inline]
pub(crate) fn put_uvarint(out: &mut Vec<u8>, mut value: u64) {
    if value < 0x80 {
        out.push(value as u8);
        return;
    }
    let mut bytes = [0u8; 10];
    let mut n = 0;
    while value >= 0x80 {
        bytes[n] = (value as u8) | 0x80;
        value >>= 7;
        n += 1;
    }
    bytes[n] = value as u8;
    out.extend_from_slice(&bytes[..=n]);
}

/// Appends a `str`.
pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_uvarint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Why a primitive could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DecodeError {
    /// The bytes ended inside the value.
    Short,
    /// The bytes are not a valid value.
    Invalid(&'static str),
}

/// A cursor over a byte slice decoding the primitives.
pub(crate) struct Cursor<'a> {
    pub bytes: &'a [u8],
    pub at: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Cursor<'a> {
        Cursor { bytes, at: 0 }
    }

    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        let b = *self.bytes.get(self.at).ok_or(DecodeError::Short)?;
        self.at += 1;
        Ok(b)
    }

    pub fn uvarint(&mut self) -> Result<u64, DecodeError> {
        let mut value: u64 = 0;
        for i in 0..10 {
            let b = self.u8()?;
            if i == 9 && b > 1 {
                return Err(DecodeError::Invalid("a varint of at most 64 bits"));
            }
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(DecodeError::Invalid("a varint of at most 10 bytes"))
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.at.checked_add(n).ok_or(DecodeError::Short)?;
        let s = self.bytes.get(self.at..end).ok_or(DecodeError::Short)?;
        self.at = end;
        Ok(s)
    }

    pub fn str(&mut self) -> Result<&'a str, DecodeError> {
        let n = self.uvarint()?;
        let n = usize::try_from(n).map_err(|_| DecodeError::Short)?;
        let b = self.bytes(n)?;
        std::str::from_utf8(b).map_err(|_| DecodeError::Invalid("a UTF-8 string"))
    }

    pub fn rest_str(&mut self) -> Result<&'a str, DecodeError> {
        let b = &self.bytes[self.at.min(self.bytes.len())..];
        self.at = self.bytes.len();
        std::str::from_utf8(b).map_err(|_| DecodeError::Invalid("a UTF-8 string"))
    }
}
