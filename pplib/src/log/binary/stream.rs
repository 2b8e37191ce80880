//! Decoding one thread's events of a binary log, a window of the file at a time (see the
//! spec in the parent module).
//!
//! A stream holds a window of the file, at most [`BinaryLog::window`] bytes (a longer
//! chunk is read in parts as its events are decoded), so that the memory a reader needs
//! does not grow with the size of the log or its chunks: all the streams of a log together
//! hold about [`WINDOW_BUDGET`]. Small chunks are read with some bytes after them
//! ([`READAHEAD`]): the thread's next chunks, when they follow closely, are then read in
//! the same system call.

use std::sync::Arc;

use super::read::{decode_err, malformed, BinaryLog, ChunkRef};
use super::{code, Cursor, DecodeError, TimeScale, REC_CHUNK};
use crate::log::batch::{CompactEvent, EventCode, EventSink};
use crate::log::counter_check::{counter_error, CounterTrack};
use crate::log::{CounterId, Event, EventKind, LogError, NameId, Nanos, Position, ThreadId};

/// The bytes of the file all the streams of a log hold at most, together (about: each
/// holds at least [`MIN_WINDOW`], and an event longer than its window, a `counters` event
/// with thousands of values, gets a window of its size).
pub const WINDOW_BUDGET: usize = 64 << 20;
/// The largest window a stream holds.
pub const MAX_WINDOW: usize = 1 << 20;
/// The smallest window a stream holds, however many threads the log has.
pub const MIN_WINDOW: usize = 1 << 10;
/// The least a stream reads at once, when its window is at least four times that (a log
/// of at most [`WINDOW_BUDGET`] / (4 · `READAHEAD`) threads); with more threads, streams
/// read one chunk at a time.
pub const READAHEAD: usize = 4 << 10;
/// How much a stream reads at its first chunk (whose length it does not know yet).
const FIRST_READ: u64 = 64;

/// The longest a `CHUNK` record's head may be: type, length, thread and base time.
const CHUNK_HEAD: u64 = 5 + 10 + 10;

/// The events of one thread of a binary log, read one window of the file at a time.
#[derive(Debug)]
pub struct BinaryStream {
    log: Arc<BinaryLog>,
    thread: ThreadId,
    /// Where the thread is in the log's index (`None`: it has no chunks).
    index: Option<usize>,
    /// The next entry of the thread's chunk list (a byte offset into it)...
    list_at: usize,
    /// ...whose distance counts from here: the end of the previous chunk record.
    list_end: u64,
    /// The length of the previous chunk record (how much to read at the next one).
    hint: u64,
    /// The most bytes of the file the stream holds (but for an event longer than that).
    window: u64,
    chunk: Option<ChunkRef>,
    /// A window of the file: its bytes from offset `buf_at` on.
    buf: Vec<u8>,
    buf_at: u64,
    /// Index in `buf` of the current chunk's next undecoded byte...
    at: usize,
    /// ...and of the end of the chunk's bytes in the window (the chunk may go on beyond).
    end: usize,
    /// The counter values of the `counters` event being decoded.
    values: Vec<(CounterId, u64)>,
    time: Nanos,
    last: Option<Nanos>,
    /// The thread's previous counter samples (see `counter_check`).
    counters: CounterTrack,
}

impl BinaryStream {
    /// The stream of `thread`, holding at most `window` bytes of the file (default: the
    /// log's [`BinaryLog::window`]).
    pub(crate) fn new(
        log: Arc<BinaryLog>,
        thread: ThreadId,
        window: Option<usize>,
    ) -> BinaryStream {
        BinaryStream {
            window: window.unwrap_or(log.window).max(1) as u64,
            counters: CounterTrack::new(Arc::clone(&log.counter_rules)),
            index: log.thread_index(thread),
            log,
            thread,
            list_at: 0,
            list_end: 0,
            hint: FIRST_READ,
            chunk: None,
            buf: Vec::new(),
            buf_at: 0,
            at: 0,
            end: 0,
            values: Vec::new(),
            time: Nanos(0),
            last: None,
        }
    }

    /// The bytes of the file the stream holds (its window's room).
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.buf.capacity()
    }

    fn truncated(&self, pos: u64, detail: String) -> LogError {
        LogError::Truncated {
            path: self.log.path.clone(),
            pos: Position::Offset(pos),
            detail,
        }
    }

    /// The error for a file that no longer holds what it held when it was indexed.
    fn changed(&self, pos: u64) -> LogError {
        self.truncated(pos, "the file changed while it was read".to_owned())
    }

    /// Makes the window hold the file's bytes `pos .. pos + want` (`want` bytes must be in
    /// the file), reading `size` bytes (at least `want`, at most what the file has) from
    /// `pos` on unless it holds them already.
    fn fill(&mut self, pos: u64, want: u64, size: u64) -> Result<(), LogError> {
        let held = self.buf_at + self.buf.len() as u64;
        if pos >= self.buf_at && pos + want <= held {
            return Ok(());
        }
        let size = size.max(want).min(self.log.len.saturating_sub(pos));
        let size = usize::try_from(size).map_err(|_| self.changed(pos))?;
        let window = self.window as usize;
        if size <= window && self.buf.capacity() > 2 * window {
            // A long event needed a larger window once: give the room back.
            self.buf = Vec::new();
        }
        // Every byte is read over (or the window is not used): only new room is zeroed.
        self.buf.resize(size, 0);
        match self.log.data.read_at(pos, &mut self.buf) {
            Ok(n) if n as u64 >= want => self.buf.truncate(n),
            Ok(_) => return Err(self.changed(pos)),
            Err(source) => {
                return Err(LogError::Io {
                    path: self.log.path.clone(),
                    source,
                })
            }
        }
        self.buf_at = pos;
        Ok(())
    }

    /// Points `at` and `end` at the current chunk's bytes from file offset `pos` on (which
    /// the window holds).
    fn place(&mut self, pos: u64, chunk: ChunkRef) {
        let chunk_end = chunk.events_at + u64::from(chunk.events_len);
        let held = self.buf_at + self.buf.len() as u64;
        self.at = (pos - self.buf_at) as usize;
        self.end = (chunk_end.min(held) - self.buf_at) as usize;
    }

    /// How much to read from `pos` on in a chunk ending at `chunk_end`.
    fn read_size(&self, pos: u64, chunk_end: u64) -> u64 {
        self.read_ahead(chunk_end - pos)
    }

    /// How much to read for `bytes` of a chunk: those, at least [`READAHEAD`] if the window
    /// is large, at most the window.
    fn read_ahead(&self, bytes: u64) -> u64 {
        let ahead = READAHEAD as u64;
        let least = if self.window >= 4 * ahead { ahead } else { 0 };
        bytes.max(least).min(self.window)
    }

    /// Makes sure the window holds the whole event at `at` (as much as the chunk has, up to
    /// the longest event the log can hold), so that decoding it gives what decoding the
    /// whole chunk would. Returns whether it read the file.
    fn hold_event(&mut self, chunk: ChunkRef) -> Result<bool, LogError> {
        let pos = self.buf_at + self.at as u64;
        let chunk_end = chunk.events_at + u64::from(chunk.events_len);
        let need = (chunk_end - pos).min(self.log.max_event);
        if (self.end - self.at) as u64 >= need {
            return Ok(false);
        }
        self.fill(pos, need, self.read_size(pos, chunk_end))?;
        self.place(pos, chunk);
        Ok(true)
    }

    /// The thread's next chunk from the index, with the window at its start; `None` after
    /// the last.
    fn next_chunk(&mut self) -> Result<Option<ChunkRef>, LogError> {
        let Some(i) = self.index else {
            return Ok(None);
        };
        let log = Arc::clone(&self.log);
        let list = &log.threads[i].1.chunks;
        if self.list_at >= list.len() {
            return Ok(None);
        }
        let mut c = Cursor {
            bytes: list,
            at: self.list_at,
        };
        let at = c
            .uvarint()
            .ok()
            .and_then(|d| self.list_end.checked_add(d))
            .ok_or_else(|| self.changed(self.list_end))?;
        self.list_at = c.at;
        let head = CHUNK_HEAD.min(log.len.saturating_sub(at));
        self.fill(at, head, self.read_ahead(self.hint))?;
        let h = &self.buf[(at - self.buf_at) as usize..];
        let h = &h[..h.len().min(CHUNK_HEAD as usize)];
        let mut c = Cursor::new(h);
        let parsed = (|| {
            let kind = c.u8()?;
            let len = c.bytes(4)?;
            let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
            let thread = c.uvarint()?;
            let base = c.uvarint()?;
            Ok::<_, DecodeError>((kind, len, thread, base))
        })();
        let (len, base) = match parsed {
            Ok((REC_CHUNK, len, thread, base)) if thread == u64::from(self.thread.0) => (len, base),
            _ => return Err(self.changed(at)),
        };
        let payload_at = at + 5;
        let avail = u64::from(len).min(log.len.saturating_sub(payload_at));
        let skip = c.at as u64 - 5;
        if avail < skip {
            return Err(self.changed(at));
        }
        self.list_end = payload_at + u64::from(len);
        self.hint = 5 + u64::from(len);
        Ok(Some(ChunkRef {
            events_at: payload_at + skip,
            events_len: (avail - skip) as u32,
            base: Nanos(base),
            cut: avail < u64::from(len),
        }))
    }

    /// Makes a chunk with undecoded events current: `Ok(true)` when there is one,
    /// `Ok(false)` at the end of a complete log's thread, `Err` for the stream's final error.
    fn load(&mut self) -> Result<bool, LogError> {
        loop {
            if let Some(chunk) = self.chunk {
                if self.at < self.end {
                    return Ok(true);
                }
                let pos = self.buf_at + self.at as u64;
                let chunk_end = chunk.events_at + u64::from(chunk.events_len);
                if pos < chunk_end {
                    // The window ends inside the chunk: its next part.
                    self.fill(pos, 1, self.read_size(pos, chunk_end))?;
                    self.place(pos, chunk);
                    continue;
                }
                self.chunk = None;
                if chunk.cut {
                    self.buf = Vec::new();
                    return Err(self.truncated(
                        chunk_end,
                        format!(
                            "thread {}'s last chunk is cut after byte {chunk_end}",
                            self.thread
                        ),
                    ));
                }
            }
            let Some(next) = self.next_chunk()? else {
                // The thread's last chunk was read: its window is not needed any more.
                self.buf = Vec::new();
                return match &self.log.truncated {
                    Some((at, detail)) => Err(self.truncated(*at, detail.clone())),
                    None => Ok(false),
                };
            };
            self.time = next.base;
            self.chunk = Some(next);
            self.place(next.events_at, next);
        }
    }

    /// The next event of the thread; `None` after its last one in a complete log.
    pub(crate) fn next_event(&mut self) -> Option<Result<Event, LogError>> {
        match self.load() {
            Ok(true) => {
                let chunk = self.chunk.expect("load makes a chunk current");
                if let Err(e) = self.hold_event(chunk) {
                    return Some(Err(e));
                }
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
        loop {
            let base = self.buf_at;
            let buf = &self.buf[..self.end];
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
            // The event may go on past the window: with all of it there, the fast path
            // again; else the slow one says what is wrong.
            if self.hold_event(chunk)? {
                continue;
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
            if self.at >= self.end || *n >= limit {
                return Ok(false);
            }
        }
    }

    fn decode(&mut self, chunk: ChunkRef) -> Result<Event, LogError> {
        let start = self.at;
        let offset = self.buf_at + start as u64;
        let pos = Position::Offset(offset);
        let path = &self.log.path;
        let mut c = Cursor {
            bytes: &self.buf[..self.end],
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
