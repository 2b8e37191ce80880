//! The writer thread's side of the encoding: a buffer's events, already encoded by their
//! thread as a `CHUNK` body (see `buffer.rs`), framed as a `CHUNK` record of the binary log
//! ([`crate::log::binary`]): byte for byte what [`crate::log::binary::ChunkEncoder`] and
//! [`crate::log::binary::LogWriter::chunk`] produce for the same events.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU8, Ordering};

use crate::log::binary::{MAX_PAYLOAD, REC_CHUNK};

/// Room for the chunk record's head: type, length, thread and base time.
const HEAD_ROOM: usize = 1 + 4 + 5 + 10;

/// Writes `CHUNK` records.
#[derive(Debug, Default)]
pub(crate) struct ChunkWriter {
    /// The record being built: `HEAD_ROOM` bytes for the head, then the body (one
    /// `write_all` per chunk). Never shrinks, so writing needs no allocation.
    scratch: Vec<u8>,
}

impl ChunkWriter {
    /// Writes the chunk of log thread `thread` whose first event has raw time `base` and
    /// whose events are `body` (encoded by `ThreadBuffer`); nothing if `body` is empty.
    pub(crate) fn write(
        &mut self,
        out: &mut impl Write,
        thread: u32,
        base: u64,
        body: &[AtomicU8],
    ) -> io::Result<()> {
        self.frame(out, thread, base, body.len(), |scratch| {
            for (to, from) in scratch.iter_mut().zip(body) {
                *to = from.load(Ordering::Relaxed);
            }
        })
    }

    /// [`ChunkWriter::write`] for events copied out of a buffer.
    pub(crate) fn write_copied(
        &mut self,
        out: &mut impl Write,
        thread: u32,
        base: u64,
        body: &[u8],
    ) -> io::Result<()> {
        self.frame(out, thread, base, body.len(), |scratch| {
            scratch.copy_from_slice(body)
        })
    }

    fn frame(
        &mut self,
        out: &mut impl Write,
        thread: u32,
        base: u64,
        body_len: usize,
        fill: impl FnOnce(&mut [u8]),
    ) -> io::Result<()> {
        if body_len == 0 {
            return Ok(());
        }
        let mut varints = Vec::with_capacity(15);
        crate::log::binary::put_uvarint(&mut varints, u64::from(thread));
        crate::log::binary::put_uvarint(&mut varints, base);
        let len = u32::try_from(varints.len() + body_len)
            .ok()
            .filter(|l| *l <= MAX_PAYLOAD)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "log chunk too large"))?;
        if self.scratch.len() < HEAD_ROOM + body_len {
            self.scratch.resize(HEAD_ROOM + body_len, 0);
        }
        // The head right-aligned against the body, so that the record is one slice.
        let start = HEAD_ROOM - 5 - varints.len();
        self.scratch[start] = REC_CHUNK;
        self.scratch[start + 1..start + 5].copy_from_slice(&len.to_le_bytes());
        self.scratch[start + 5..HEAD_ROOM].copy_from_slice(&varints);
        fill(&mut self.scratch[HEAD_ROOM..HEAD_ROOM + body_len]);
        out.write_all(&self.scratch[start..HEAD_ROOM + body_len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::binary::{code, ChunkEncoder, LogWriter};
    use crate::log::{CounterId, Header, Nanos, ProcessInfo, ThreadId};
    use crate::recorder::buffer::ThreadBuffer;

    /// One event as the recorder sees it.
    #[derive(Debug, Clone)]
    enum Event {
        Simple {
            time: u64,
            code: u8,
            arg: u32,
        },
        Counters {
            time: u64,
            values: Vec<(CounterId, u64)>,
        },
    }

    /// The reference: the log module's own encoder and chunk writer.
    fn reference(thread: u32, events: &[Event]) -> Vec<u8> {
        let mut encoder = ChunkEncoder::new(ThreadId(thread));
        for e in events {
            match e {
                Event::Simple { time, code, arg } => encoder.simple(*code, Nanos(*time), *arg),
                Event::Counters { time, values } => encoder.counters(Nanos(*time), values),
            }
        }
        let header = Header {
            version: 1,
            processors: 1,
            clock: String::new(),
            counters: Vec::new(),
            process: ProcessInfo {
                pid: 0,
                command_line: Vec::new(),
                start_unix_ns: 0,
                start_clock_ns: 0,
            },
            event_cost_ps: None,
        };
        // The header's length: a log with nothing but the header and END (5 bytes).
        let before = LogWriter::new(Vec::new(), &header)
            .unwrap()
            .finish()
            .unwrap()
            .len()
            - 5;
        let mut w = LogWriter::new(Vec::new(), &header).unwrap();
        w.chunk(&encoder).unwrap();
        let bytes = w.finish().unwrap();
        bytes[before..bytes.len() - 5].to_vec()
    }

    /// The recorder's path: pushed into a thread buffer, framed by the writer (both from
    /// the buffer and from a drained copy, which must agree).
    fn ours(writer: &mut ChunkWriter, thread: u32, events: &[Event]) -> Vec<u8> {
        let buffer = ThreadBuffer::new(1 << 16);
        buffer.assign(7, thread);
        for e in events {
            let pushed = match e {
                Event::Simple { time, code, arg } => buffer.try_push(*time, *code, *arg),
                Event::Counters { time, values } => buffer.try_push_counters(*time, values),
            };
            assert!(pushed, "the test buffer is large enough");
        }
        let mut direct = Vec::new();
        buffer.consume(|thread, base, body| writer.write(&mut direct, thread, base, body).unwrap());
        assert!(direct.is_empty() || !events.is_empty());
        // Consuming emptied the buffer: push again and drain a copy.
        for e in events {
            match e {
                Event::Simple { time, code, arg } => buffer.try_push(*time, *code, *arg),
                Event::Counters { time, values } => buffer.try_push_counters(*time, values),
            };
        }
        let mut copied = Vec::new();
        buffer.drain(7, |thread, base, body| {
            writer
                .write_copied(&mut copied, thread, base, &body)
                .unwrap()
        });
        assert_eq!(direct, copied);
        direct
    }

    /// A deterministic pseudo-random sequence (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// Values of every magnitude.
        fn any(&mut self) -> u64 {
            let shift = self.next() % 64;
            self.next() >> shift
        }
    }

    #[test]
    fn matches_the_log_modules_encoder_byte_for_byte() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut writer = ChunkWriter::default();
        for case in 0..300u32 {
            let mut events = Vec::new();
            let mut time = rng.any();
            for _ in 0..rng.next() % 300 {
                // Mostly increasing times with deltas of every size, sometimes going back.
                let step = rng.any();
                time = if rng.next() % 10 == 9 {
                    time.saturating_sub(step)
                } else {
                    time.saturating_add(step)
                };
                if rng.next() % 17 == 16 {
                    let values = (0..rng.next() % 5)
                        .map(|i| (CounterId((i * 7 + rng.next() % 3) as u16), rng.any()))
                        .collect();
                    events.push(Event::Counters { time, values });
                } else {
                    let code = (rng.next() % 11) as u8;
                    events.push(Event::Simple {
                        time,
                        code,
                        arg: rng.any() as u32,
                    });
                }
            }
            let thread = rng.any() as u32;
            assert_eq!(
                ours(&mut writer, thread, &events),
                reference(thread, &events),
                "case {case}: {events:?}"
            );
        }
    }

    #[test]
    fn an_empty_buffer_writes_nothing() {
        assert!(ours(&mut ChunkWriter::default(), 3, &[]).is_empty());
    }

    #[test]
    fn a_full_buffer_refuses_the_event_and_keeps_what_it_has() {
        let buffer = ThreadBuffer::new(40);
        buffer.assign(7, 0);
        let mut pushed = 0u64;
        while buffer.try_push(pushed * 1_000_000, code::TASK_BEGIN, 0) {
            pushed += 1;
        }
        assert!(pushed >= 2, "{pushed} events fit in 40 bytes");
        assert!(!buffer.try_push_counters(0, &[(CounterId(0), 1)]));
        let events: Vec<Event> = (0..pushed)
            .map(|i| Event::Simple {
                time: i * 1_000_000,
                code: code::TASK_BEGIN,
                arg: 0,
            })
            .collect();
        let mut out = Vec::new();
        buffer.consume(|thread, base, body| {
            ChunkWriter::default()
                .write(&mut out, thread, base, body)
                .unwrap()
        });
        assert_eq!(out, reference(0, &events));
    }
}
