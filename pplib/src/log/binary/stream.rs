//! Decoding one thread's events of a binary log, chunk by chunk (see the spec in the
//! parent module).

use std::sync::Arc;

use super::read::{decode_err, malformed, BinaryLog, ChunkRef};
use super::{code, Cursor, DecodeError, TimeScale};
use crate::log::batch::{CompactEvent, EventCode, EventSink};
use crate::log::counter_check::{counter_error, CounterTrack};
use crate::log::{CounterId, Event, EventKind, LogError, NameId, Nanos, Position, ThreadId};

/// The events of one thread of a binary log, read one chunk at a time.
#[derive(Debug)]
pub struct BinaryStream {
    log: Arc<BinaryLog>,
    thread: ThreadId,
    next_chunk: usize,
    chunk: Option<ChunkRef>,
    buf: Vec<u8>,
    /// The counter values of the `counters` event being decoded.
    values: Vec<(CounterId, u64)>,
    at: usize,
    time: Nanos,
    last: Option<Nanos>,
    /// The thread's previous counter samples (see `counter_check`).
    counters: CounterTrack,
}

impl BinaryStream {
    pub(crate) fn new(log: Arc<BinaryLog>, thread: ThreadId) -> BinaryStream {
        BinaryStream {
            counters: CounterTrack::new(Arc::clone(&log.counter_rules)),
            log,
            thread,
            next_chunk: 0,
            chunk: None,
            buf: Vec::new(),
            values: Vec::new(),
            at: 0,
            time: Nanos(0),
            last: None,
        }
    }

    fn truncated(&self, pos: u64, detail: String) -> LogError {
        LogError::Truncated {
            path: self.log.path.clone(),
            pos: Position::Offset(pos),
            detail,
        }
    }

    /// Makes a chunk with undecoded events current: `Ok(true)` when there is one,
    /// `Ok(false)` at the end of a complete log's thread, `Err` for the stream's final error.
    fn load(&mut self) -> Result<bool, LogError> {
        loop {
            if let Some(chunk) = self.chunk {
                if self.at < self.buf.len() {
                    return Ok(true);
                }
                self.chunk = None;
                if chunk.cut {
                    let end = chunk.events_at + u64::from(chunk.events_len);
                    return Err(self.truncated(
                        end,
                        format!(
                            "thread {}'s last chunk is cut after byte {end}",
                            self.thread
                        ),
                    ));
                }
            }
            let log = Arc::clone(&self.log);
            let Some(next) = log
                .threads
                .get(&self.thread)
                .and_then(|t| t.chunks.get(self.next_chunk))
                .copied()
            else {
                return match &log.truncated {
                    Some((at, detail)) => Err(self.truncated(*at, detail.clone())),
                    None => Ok(false),
                };
            };
            self.next_chunk += 1;
            // Every byte is read over (or the chunk is not used): only new room is zeroed.
            self.buf.resize(next.events_len as usize, 0);
            match log.data.read_at(next.events_at, &mut self.buf) {
                Ok(n) if n == self.buf.len() => {}
                Ok(_) => {
                    return Err(self.truncated(
                        next.events_at,
                        "the file shrank while it was read".to_owned(),
                    ));
                }
                Err(source) => {
                    return Err(LogError::Io {
                        path: log.path.clone(),
                        source,
                    })
                }
            }
            self.at = 0;
            self.time = next.base;
            self.chunk = Some(next);
        }
    }

    /// The next event of the thread; `None` after its last one in a complete log.
    pub(crate) fn next_event(&mut self) -> Option<Result<Event, LogError>> {
        match self.load() {
            Ok(true) => {
                let chunk = self.chunk.expect("load makes a chunk current");
                Some(self.decode(chunk))
            }
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }

    /// Hands the thread's next events, at most `limit`, to `sink` (see
    /// [`crate::log::ThreadStream::next_into`]); returns how many. `Err` is the stream's
    /// final error, which comes after the events handed over.
    #[inline(always)]
    pub(crate) fn next_into<K: EventSink>(
        &mut self,
        sink: &mut K,
        limit: usize,
    ) -> Result<usize, LogError> {
        let mut n = 0;
        while n < limit {
            if !self.load()? {
                break;
            }
            let chunk = self.chunk.expect("load makes a chunk current");
            if self.decode_run(chunk, sink, &mut n, limit)? {
                break;
            }
        }
        Ok(n)
    }

    /// Decodes events of the current chunk into `sink` until the chunk ends, `*n` reaches
    /// `limit` or the sink stops (then returns `true`), counting them in `*n`. Well-formed
    /// events take a fast path; anything unusual (a cut or bad varint, an unknown code, a
    /// bad id, time going backwards) is decoded again by [`Self::decode`], which gives
    /// exactly the error (or event) that reading one event at a time gives.
    #[inline(always)]
    fn decode_run<K: EventSink>(
        &mut self,
        chunk: ChunkRef,
        sink: &mut K,
        n: &mut usize,
        limit: usize,
    ) -> Result<bool, LogError> {
        let names = self.log.names as u64;
        let counters = self.log.counters as u64;
        let scale = self.log.scale;
        let identity = scale == TimeScale::IDENTITY;
        let base = chunk.events_at;
        loop {
            let buf = &self.buf[..];
            let values = &mut self.values;
            let track = &mut self.counters;
            let mut at = self.at;
            let mut raw = self.time.0;
            let mut last = self.last.map_or(0, |t| t.0);
            let mut any = self.last.is_some();
            let mut slow = false;
            let mut stopped = false;
            let mut count = *n;
            while at < buf.len() && count < limit {
                let start = at;
                let ok = (|| -> Option<(EventCode, u32, u64)> {
                    let code = EventCode::from_u8(buf[at])?;
                    at += 1;
                    let delta = uvarint(buf, &mut at)?;
                    let arg = match code {
                        EventCode::FragBegin | EventCode::FragEnd | EventCode::WaitBegin => {
                            let id = uvarint(buf, &mut at)?;
                            if id >= names {
                                return None;
                            }
                            id as u32
                        }
                        EventCode::Counters => {
                            let n = uvarint(buf, &mut at)?;
                            if n > counters {
                                return None;
                            }
                            values.clear();
                            for _ in 0..n {
                                let id = uvarint(buf, &mut at)?;
                                let value = uvarint(buf, &mut at)?;
                                if id >= counters {
                                    return None;
                                }
                                values.push((CounterId(id as u16), value));
                            }
                            n as u32
                        }
                        _ => 0,
                    };
                    let r = raw.checked_add(delta)?;
                    Some((code, arg, r))
                })();
                let Some((code, arg, r)) = ok else {
                    at = start;
                    slow = true;
                    break;
                };
                let ns = if identity { r } else { scale.to_ns(r) };
                if ns < last || (code == EventCode::Counters && track.sample(values, ns).is_err()) {
                    // Decoded again by `decode`, which says what is wrong.
                    at = start;
                    slow = true;
                    break;
                }
                raw = r;
                last = ns;
                any = true;
                count += 1;
                let event = CompactEvent::at_offset(Nanos(ns), code, arg, base + start as u64);
                let values = if code == EventCode::Counters {
                    &values[..]
                } else {
                    &[]
                };
                if !sink.event(event, values) {
                    stopped = true;
                    break;
                }
            }
            self.at = at;
            self.time = Nanos(raw);
            if any {
                self.last = Some(Nanos(last));
            }
            *n = count;
            if stopped {
                return Ok(true);
            }
            if !slow {
                return Ok(false);
            }
            let event = self.decode(chunk)?;
            *n += 1;
            let (code, arg) = EventCode::of(&event.kind);
            let values = match &event.kind {
                EventKind::Counters(values) => &values[..],
                _ => &[],
            };
            if !sink.event(CompactEvent::at(event.time, code, arg, event.pos), values) {
                return Ok(true);
            }
            if self.at >= self.buf.len() || *n >= limit {
                return Ok(false);
            }
        }
    }

    fn decode(&mut self, chunk: ChunkRef) -> Result<Event, LogError> {
        let start = self.at;
        let offset = chunk.events_at + start as u64;
        let pos = Position::Offset(offset);
        let path = &self.log.path;
        let mut c = Cursor {
            bytes: &self.buf,
            at: start,
        };
        let short = |e: DecodeError, what: &str| -> LogError {
            match e {
                DecodeError::Short if chunk.cut => LogError::Truncated {
                    path: path.clone(),
                    pos,
                    detail: format!("thread {}'s last event is cut", self.thread),
                },
                e => decode_err(path, offset, what, e),
            }
        };
        let event_code = c.u8().map_err(|e| short(e, "an event code"))?;
        let delta = c.uvarint().map_err(|e| short(e, "a time delta"))?;
        let name = |c: &mut Cursor| -> Result<NameId, LogError> {
            let id = c.uvarint().map_err(|e| short(e, "a name id"))?;
            if id >= self.log.names as u64 {
                return Err(malformed(
                    path,
                    offset,
                    &format!(
                        "a name id defined in the string table (< {})",
                        self.log.names
                    ),
                    id.to_string(),
                ));
            }
            Ok(NameId(id as u32))
        };
        let kind = match event_code {
            code::SESSION_BEGIN => EventKind::SessionBegin,
            code::SESSION_END => EventKind::SessionEnd,
            code::FRAG_BEGIN => EventKind::FragBegin(name(&mut c)?),
            code::FRAG_END => EventKind::FragEnd(name(&mut c)?),
            code::PAR_BEGIN => EventKind::ParBegin,
            code::PAR_END => EventKind::ParEnd,
            code::TASK_BEGIN => EventKind::TaskBegin,
            code::TASK_END => EventKind::TaskEnd { wasted: false },
            code::TASK_END_WASTED => EventKind::TaskEnd { wasted: true },
            code::WAIT_BEGIN => EventKind::WaitBegin(name(&mut c)?),
            code::WAIT_END => EventKind::WaitEnd,
            code::COUNTERS => {
                let n = c.uvarint().map_err(|e| short(e, "a counter count"))?;
                if n > self.log.counters as u64 {
                    return Err(malformed(
                        path,
                        offset,
                        &format!("at most {} counter values", self.log.counters),
                        n.to_string(),
                    ));
                }
                let mut values = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let id = c.uvarint().map_err(|e| short(e, "a counter id"))?;
                    let value = c.uvarint().map_err(|e| short(e, "a counter value"))?;
                    if id >= self.log.counters as u64 {
                        return Err(malformed(
                            path,
                            offset,
                            &format!(
                                "a counter id listed in the header (< {})",
                                self.log.counters
                            ),
                            id.to_string(),
                        ));
                    }
                    values.push((CounterId(id as u16), value));
                }
                EventKind::Counters(values)
            }
            other => {
                return Err(LogError::UnknownEvent {
                    path: path.clone(),
                    pos,
                    found: format!("code {other}"),
                })
            }
        };
        let raw = self.time.0.checked_add(delta).ok_or_else(|| {
            malformed(
                path,
                offset,
                "a time below 2^64",
                "an overflowing delta".to_owned(),
            )
        })?;
        self.at = c.at;
        self.time = Nanos(raw);
        let time = Nanos(self.log.scale.to_ns(raw));
        if let Some(previous) = self.last {
            if time < previous {
                return Err(LogError::TimeBackwards {
                    path: path.clone(),
                    pos,
                    thread: self.thread,
                    time,
                    previous,
                });
            }
        }
        if let EventKind::Counters(values) = &kind {
            if let Err(detail) = self.counters.sample(values, time.0) {
                return Err(counter_error(path, pos, self.thread, time, detail));
            }
        }
        self.last = Some(time);
        Ok(Event {
            time,
            thread: self.thread,
            kind,
            pos,
        })
    }
}

/// Decodes a `uvarint` at `*at` (fast path of [`Cursor::uvarint`]): `None` when it is cut
/// or longer than 64 bits (the slow path then reports why).
#[inline(always)]
fn uvarint(buf: &[u8], at: &mut usize) -> Option<u64> {
    let b0 = *buf.get(*at)?;
    if b0 < 0x80 {
        *at += 1;
        return Some(u64::from(b0));
    }
    // Two bytes (time deltas of 128 ns .. 16 us) without the loop.
    if let Some(&b1) = buf.get(*at + 1) {
        if b1 < 0x80 {
            *at += 2;
            return Some(u64::from(b0 & 0x7f) | u64::from(b1) << 7);
        }
    }
    uvarint_long(buf, at)
}

/// The rest of [`uvarint`]: three bytes or more, or cut.
#[inline(never)]
fn uvarint_long(buf: &[u8], at: &mut usize) -> Option<u64> {
    let b0 = *buf.get(*at)?;
    let mut value = u64::from(b0 & 0x7f);
    for i in 1..10 {
        let b = *buf.get(*at + i)?;
        if i == 9 && b > 1 {
            return None;
        }
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            *at += i + 1;
            return Some(value);
        }
    }
    None
}
