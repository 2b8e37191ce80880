//! Writing the binary log (see the spec in the parent module).

use std::io::{self, Seek, SeekFrom, Write};

use super::{
    code, put_str, put_uvarint, TimeScale, MAGIC, REC_CHUNK, REC_END, REC_NAME, REC_THREAD, VERSION,
};
use crate::log::{CounterId, EventKind, Header, NameId, Nanos, ThreadId};

/// Writes a binary log: header first, then names, threads and chunks in any order that
/// defines each name before its first use, then [`LogWriter::finish`] writes `END`.
///
/// The writer does no buffering of its own: give it a `BufWriter` for small records.
#[derive(Debug)]
pub struct LogWriter<W: Write> {
    out: W,
    names: u32,
    record: Vec<u8>,
    /// Byte offset of the header's time scale, when written to be replaced.
    scale_at: Option<u64>,
    /// Byte offset of the header's event cost, when written (always to be replaced).
    cost_at: Option<u64>,
}

impl<W: Write> LogWriter<W> {
    /// Writes magic, version and `header` to `out`; event times are nanoseconds.
    pub fn new(out: W, header: &Header) -> io::Result<LogWriter<W>> {
        LogWriter::with_time_scale(out, header, TimeScale::IDENTITY)
    }

    /// Like [`LogWriter::new`], for event times in raw clock units converted by `scale`.
    pub fn with_time_scale(out: W, header: &Header, scale: TimeScale) -> io::Result<LogWriter<W>> {
        LogWriter::write_header(out, header, scale, false)
    }

    /// Like [`LogWriter::with_time_scale`] with a scale known only approximately yet: its
    /// three fields are written padded to 10 bytes each (the spec's replaceable scale), so
    /// that [`LogWriter::replace_time_scale`] can rewrite them in place later.
    pub fn with_replaceable_time_scale(
        out: W,
        header: &Header,
        scale: TimeScale,
    ) -> io::Result<LogWriter<W>> {
        LogWriter::write_header(out, header, scale, true)
    }

    fn write_header(
        mut out: W,
        header: &Header,
        scale: TimeScale,
        replaceable: bool,
    ) -> io::Result<LogWriter<W>> {
        let mut body = Vec::new();
        put_uvarint(&mut body, u64::from(header.processors));
        put_str(&mut body, &header.clock);
        put_uvarint(&mut body, header.counters.len() as u64);
        for c in &header.counters {
            put_str(&mut body, c);
        }
        put_uvarint(&mut body, u64::from(header.process.pid));
        put_uvarint(&mut body, header.process.command_line.len() as u64);
        for a in &header.process.command_line {
            put_str(&mut body, a);
        }
        put_uvarint(&mut body, header.process.start_unix_ns);
        put_uvarint(&mut body, header.process.start_clock_ns);
        let scale_at = replaceable.then(|| (HEADER_START + body.len()) as u64);
        if replaceable {
            body.extend_from_slice(&padded_time_scale(&scale));
        } else {
            put_uvarint(&mut body, scale.ref_raw);
            put_uvarint(&mut body, scale.ref_ns);
            put_uvarint(&mut body, scale.ns_per_raw_q32);
        }
        let cost_at = header.event_cost_ps.map(|ps| {
            let at = (HEADER_START + body.len()) as u64;
            body.extend_from_slice(&padded_uvarint(ps));
            at
        });
        let mut head = Vec::with_capacity(HEADER_START + body.len());
        head.extend_from_slice(&MAGIC);
        head.extend_from_slice(&VERSION.to_le_bytes());
        head.extend_from_slice(&(body.len() as u32).to_le_bytes());
        head.extend_from_slice(&body);
        out.write_all(&head)?;
        Ok(LogWriter {
            out,
            names: 0,
            record: Vec::new(),
            scale_at,
            cost_at,
        })
    }

    fn record(&mut self, kind: u8, payload: &[&[u8]]) -> io::Result<()> {
        let len: usize = payload.iter().map(|p| p.len()).sum();
        let len = u32::try_from(len)
            .ok()
            .filter(|l| *l <= super::MAX_PAYLOAD)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "log record too large"))?;
        self.record.clear();
        self.record.push(kind);
        self.record.extend_from_slice(&len.to_le_bytes());
        for p in payload {
            self.record.extend_from_slice(p);
        }
        self.out.write_all(&self.record)
    }

    /// Defines the next string table entry and returns its id (0, 1, 2, ...).
    pub fn name(&mut self, name: &str) -> io::Result<NameId> {
        let id = self.names;
        let mut head = Vec::with_capacity(5);
        put_uvarint(&mut head, u64::from(id));
        self.record(REC_NAME, &[&head, name.as_bytes()])?;
        self.names += 1;
        Ok(NameId(id))
    }

    /// The number of names defined so far.
    pub fn name_count(&self) -> u32 {
        self.names
    }

    /// Records the operating-system id and name of a log thread.
    pub fn thread(&mut self, thread: ThreadId, os_tid: u64, name: &str) -> io::Result<()> {
        let mut head = Vec::with_capacity(10);
        put_uvarint(&mut head, u64::from(thread.0));
        put_uvarint(&mut head, os_tid);
        self.record(REC_THREAD, &[&head, name.as_bytes()])
    }

    /// Writes one chunk of a thread's events (nothing if the chunk is empty).
    pub fn chunk(&mut self, chunk: &ChunkEncoder) -> io::Result<()> {
        if chunk.is_empty() {
            return Ok(());
        }
        let mut head = Vec::with_capacity(15);
        put_uvarint(&mut head, u64::from(chunk.thread.0));
        put_uvarint(&mut head, chunk.base.0);
        let len = u32::try_from(head.len() + chunk.body.len())
            .ok()
            .filter(|l| *l <= super::MAX_PAYLOAD)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "log chunk too large"))?;
        let mut record = [0u8; 20];
        record[0] = REC_CHUNK;
        record[1..5].copy_from_slice(&len.to_le_bytes());
        record[5..5 + head.len()].copy_from_slice(&head);
        self.out.write_all(&record[..5 + head.len()])?;
        self.out.write_all(&chunk.body)
    }

    /// Rewrites the header's time scale in place (a writer made by
    /// [`LogWriter::with_replaceable_time_scale`]; any other is an `InvalidInput` error),
    /// then goes back to the end of what was written. Events already written convert with
    /// the new scale too.
    pub fn replace_time_scale(&mut self, scale: TimeScale) -> io::Result<()>
    where
        W: Seek,
    {
        let at = self.scale_at.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "the log's time scale was not written to be replaced",
            )
        })?;
        let end = self.out.stream_position()?;
        self.out.seek(SeekFrom::Start(at))?;
        self.out.write_all(&padded_time_scale(&scale))?;
        self.out.seek(SeekFrom::Start(end))?;
        Ok(())
    }

    /// Rewrites the header's event cost (picoseconds per recorded event; 0: not measured)
    /// in place, then goes back to the end of what was written. The header given to the
    /// writer must have had an `event_cost_ps` (any other is an `InvalidInput` error).
    pub fn replace_event_cost(&mut self, event_cost_ps: u64) -> io::Result<()>
    where
        W: Seek,
    {
        let at = self.cost_at.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "the log's header has no event cost field",
            )
        })?;
        let end = self.out.stream_position()?;
        self.out.seek(SeekFrom::Start(at))?;
        self.out.write_all(&padded_uvarint(event_cost_ps))?;
        self.out.seek(SeekFrom::Start(end))?;
        Ok(())
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Writes `END`, flushes, and returns the underlying writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.record(REC_END, &[])?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Where the header's fields begin: after magic, version and the header's length.
const HEADER_START: usize = 8 + 2 + 4;

/// The time scale's three fields as uvarints padded to 10 bytes each: a fixed width, read
/// like any uvarint.
fn padded_time_scale(scale: &TimeScale) -> [u8; 30] {
    let mut out = [0u8; 30];
    for (field, value) in [scale.ref_raw, scale.ref_ns, scale.ns_per_raw_q32]
        .into_iter()
        .enumerate()
    {
        out[10 * field..10 * field + 10].copy_from_slice(&padded_uvarint(value));
    }
    out
}

/// `value` as a uvarint padded to 10 bytes (continuation bits on the first nine bytes).
fn padded_uvarint(value: u64) -> [u8; 10] {
    let mut out = [0u8; 10];
    for (i, b) in out.iter_mut().enumerate() {
        *b = ((value >> (7 * i)) & 0x7f) as u8 | if i < 9 { 0x80 } else { 0 };
    }
    out
}

/// Encodes the events of one thread into a `CHUNK` payload.
#[derive(Debug, Clone)]
pub struct ChunkEncoder {
    thread: ThreadId,
    base: Nanos,
    last: Nanos,
    events: usize,
    body: Vec<u8>,
}

impl ChunkEncoder {
    /// An empty chunk for `thread`.
    pub fn new(thread: ThreadId) -> ChunkEncoder {
        ChunkEncoder {
            thread,
            base: Nanos(0),
            last: Nanos(0),
            events: 0,
            body: Vec::new(),
        }
    }

    /// Empties the chunk and makes it `thread`'s (keeps the allocation).
    pub fn reset(&mut self, thread: ThreadId) {
        self.thread = thread;
        self.events = 0;
        self.body.clear();
    }

    /// The chunk's thread.
    pub fn thread(&self) -> ThreadId {
        self.thread
    }

    /// True if no event was added.
    pub fn is_empty(&self) -> bool {
        self.events == 0
    }

    /// The number of events added.
    pub fn len(&self) -> usize {
        self.events
    }

    /// Reserves room for `bytes` more encoded bytes.
    pub fn reserve(&mut self, bytes: usize) {
        self.body.reserve(bytes);
    }

    /// The encoded size of the events so far (bytes).
    pub fn encoded_len(&self) -> usize {
        self.body.len()
    }

    #[inline]
    fn stamp(&mut self, code: u8, time: Nanos) {
        if self.events == 0 {
            self.base = time;
            self.last = time;
        }
        // Times never decrease along a thread: an earlier time is recorded as the last one.
        let time = time.max(self.last);
        self.body.push(code);
        put_uvarint(&mut self.body, time.0 - self.last.0);
        self.last = time;
        self.events += 1;
    }

    /// Adds an event without arguments or with a name argument (runtime fast path).
    #[inline]
    pub(crate) fn simple(&mut self, code: u8, time: Nanos, name: u32) {
        if self.events == 0 {
            self.base = time;
            self.last = time;
        }
        let time = time.max(self.last);
        self.body.reserve(16);
        self.body.push(code);
        push_uvarint(&mut self.body, time.0 - self.last.0);
        if matches!(code, code::FRAG_BEGIN | code::FRAG_END | code::WAIT_BEGIN) {
            push_uvarint(&mut self.body, u64::from(name));
        }
        self.last = time;
        self.events += 1;
    }

    /// Adds a `counters` event.
    pub(crate) fn counters(&mut self, time: Nanos, values: &[(CounterId, u64)]) {
        self.stamp(code::COUNTERS, time);
        put_uvarint(&mut self.body, values.len() as u64);
        for (id, value) in values {
            put_uvarint(&mut self.body, u64::from(id.0));
            put_uvarint(&mut self.body, *value);
        }
    }

    /// Adds an event (its time in the writer's raw unit: nanoseconds for [`LogWriter::new`]).
    /// A time earlier than the previous event's is recorded as that time.
    pub fn event(&mut self, time: Nanos, kind: &EventKind) {
        let (c, name) = match kind {
            EventKind::SessionBegin => (code::SESSION_BEGIN, 0),
            EventKind::SessionEnd => (code::SESSION_END, 0),
            EventKind::FragBegin(n) => (code::FRAG_BEGIN, n.0),
            EventKind::FragEnd(n) => (code::FRAG_END, n.0),
            EventKind::ParBegin => (code::PAR_BEGIN, 0),
            EventKind::ParEnd => (code::PAR_END, 0),
            EventKind::TaskBegin => (code::TASK_BEGIN, 0),
            EventKind::TaskEnd { wasted: false } => (code::TASK_END, 0),
            EventKind::TaskEnd { wasted: true } => (code::TASK_END_WASTED, 0),
            EventKind::WaitBegin(n) => (code::WAIT_BEGIN, n.0),
            EventKind::WaitEnd => (code::WAIT_END, 0),
            EventKind::Counters(values) => return self.counters(time, values),
        };
        self.simple(c, time, name);
    }
}

/// Appends `value` as a `uvarint`, one push per byte (no call to memmove).
#[inline(always)]
fn push_uvarint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}
