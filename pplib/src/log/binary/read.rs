//! Reading the binary log (see the spec in the parent module): an index built at open
//! time (record headers, names, threads) and per-thread streams that read chunks lazily.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{
    code, Cursor, DecodeError, TimeScale, MAGIC, MAX_PAYLOAD, REC_CHUNK, REC_END, REC_NAME,
    REC_THREAD, VERSION,
};
use crate::log::error::quote;
use crate::log::{
    CounterId, Event, EventKind, Header, LogError, NameId, Nanos, Position, ProcessInfo, ThreadId,
};

/// Where the log's bytes are.
#[derive(Debug)]
enum Data {
    File(File),
    Bytes(Vec<u8>),
}

impl Data {
    /// Reads up to `buf.len()` bytes at `offset`; returns how many were read.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Data::Bytes(bytes) => {
                let start = usize::try_from(offset)
                    .unwrap_or(usize::MAX)
                    .min(bytes.len());
                let n = buf.len().min(bytes.len() - start);
                buf[..n].copy_from_slice(&bytes[start..start + n]);
                Ok(n)
            }
            Data::File(file) => {
                let mut n = 0;
                while n < buf.len() {
                    match file.read_at(&mut buf[n..], offset + n as u64) {
                        Ok(0) => break,
                        Ok(k) => n += k,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                Ok(n)
            }
        }
    }

    fn len(&self) -> std::io::Result<u64> {
        match self {
            Data::Bytes(bytes) => Ok(bytes.len() as u64),
            Data::File(file) => Ok(file.metadata()?.len()),
        }
    }
}

/// One `CHUNK` record of a thread.
#[derive(Debug, Clone, Copy)]
struct ChunkRef {
    /// Offset of the first event (after the chunk's thread and base time).
    events_at: u64,
    /// Bytes of events present in the file.
    events_len: u32,
    /// The chunk's base time.
    base: Nanos,
    /// The record is cut by the end of the file.
    cut: bool,
}

#[derive(Debug, Default)]
struct ThreadIndex {
    chunks: Vec<ChunkRef>,
    name: Option<String>,
}

/// An opened binary log: the index that [`BinaryStream`]s read from.
#[derive(Debug)]
pub struct BinaryLog {
    path: PathBuf,
    data: Data,
    names: usize,
    counters: usize,
    threads: BTreeMap<ThreadId, ThreadIndex>,
    truncated: Option<(u64, String)>,
    scale: TimeScale,
}

fn malformed(path: &Path, at: u64, expected: &str, found: String) -> LogError {
    LogError::Syntax {
        path: path.to_owned(),
        pos: Position::Offset(at),
        expected: expected.to_owned(),
        found,
    }
}

fn decode_err(path: &Path, at: u64, what: &str, e: DecodeError) -> LogError {
    match e {
        DecodeError::Short => malformed(path, at, what, "the end of its record".to_owned()),
        DecodeError::Invalid(expected) => {
            malformed(path, at, expected, format!("bytes that are not {what}"))
        }
    }
}

impl BinaryLog {
    /// Indexes the binary log in `file` (read from its start).
    pub(crate) fn open_file(
        path: &Path,
        file: File,
    ) -> Result<(Header, Vec<String>, BinaryLog), LogError> {
        BinaryLog::open(path, Data::File(file))
    }

    /// Indexes the binary log held in `bytes`.
    pub(crate) fn open_bytes(
        path: &Path,
        bytes: Vec<u8>,
    ) -> Result<(Header, Vec<String>, BinaryLog), LogError> {
        BinaryLog::open(path, Data::Bytes(bytes))
    }

    fn open(path: &Path, data: Data) -> Result<(Header, Vec<String>, BinaryLog), LogError> {
        let io = |source| LogError::Io {
            path: path.to_owned(),
            source,
        };
        let file_len = data.len().map_err(io)?;
        let mut fixed = [0u8; 14];
        let n = data.read_at(0, &mut fixed).map_err(io)?;
        let truncated_header = |at: u64| LogError::Truncated {
            path: path.to_owned(),
            pos: Position::Offset(at),
            detail: "the file ends inside the log header (no event was recorded)".to_owned(),
        };
        if n < 8 || fixed[..8] != MAGIC {
            return Err(LogError::NotALog {
                path: path.to_owned(),
                pos: Position::Offset(0),
                found: quote(&String::from_utf8_lossy(&fixed[..n.min(8)])),
            });
        }
        if n < 10 {
            return Err(truncated_header(8));
        }
        let version = u16::from_le_bytes([fixed[8], fixed[9]]);
        if version != VERSION {
            return Err(LogError::UnsupportedVersion {
                path: path.to_owned(),
                pos: Position::Offset(8),
                found: u32::from(version),
                supported: VERSION,
            });
        }
        if n < 14 {
            return Err(truncated_header(10));
        }
        let header_len = u32::from_le_bytes([fixed[10], fixed[11], fixed[12], fixed[13]]);
        if header_len > MAX_PAYLOAD {
            return Err(malformed(
                path,
                10,
                "a header length of at most 64 MiB",
                header_len.to_string(),
            ));
        }
        let mut body = vec![0u8; header_len as usize];
        if data.read_at(14, &mut body).map_err(io)? < body.len() {
            return Err(truncated_header(14));
        }
        let (header, scale) = parse_header(path, &body)?;
        let mut log = BinaryLog {
            path: path.to_owned(),
            data,
            names: 0,
            counters: header.counters.len(),
            threads: BTreeMap::new(),
            truncated: None,
            scale,
        };
        let names = log.index(14 + u64::from(header_len), file_len)?;
        log.names = names.len();
        Ok((header, names, log))
    }

    /// Reads every record header from `at` on; returns the string table.
    fn index(&mut self, mut at: u64, file_len: u64) -> Result<Vec<String>, LogError> {
        let path = self.path.clone();
        let io = |source| LogError::Io {
            path: path.clone(),
            source,
        };
        let mut names = Vec::new();
        loop {
            if at >= file_len {
                self.truncated = Some((
                    at,
                    format!("the log ends at byte {at} without its end record (the recording process stopped before finishing)"),
                ));
                return Ok(names);
            }
            let mut head = [0u8; 5];
            let n = self.data.read_at(at, &mut head).map_err(io)?;
            if n < 5 {
                self.truncated = Some((
                    at,
                    format!("the record at byte {at} is cut inside its header"),
                ));
                return Ok(names);
            }
            let kind = head[0];
            let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
            if len > MAX_PAYLOAD {
                return Err(malformed(
                    &path,
                    at,
                    "a record of at most 64 MiB",
                    format!("a length of {len} bytes"),
                ));
            }
            let payload_at = at + 5;
            let avail = (file_len - payload_at).min(u64::from(len)) as u32;
            let cut = avail < len;
            match kind {
                REC_END => {
                    if len != 0 || payload_at < file_len {
                        return Err(malformed(
                            &path,
                            at,
                            "the end of the file after the end record",
                            format!("{} more bytes", file_len - payload_at),
                        ));
                    }
                    return Ok(names);
                }
                REC_NAME | REC_THREAD => {
                    if cut {
                        self.truncated = Some((
                            at,
                            format!(
                                "the record at byte {at} is cut: {avail} of {len} bytes present"
                            ),
                        ));
                        return Ok(names);
                    }
                    let mut payload = vec![0u8; len as usize];
                    self.data.read_at(payload_at, &mut payload).map_err(io)?;
                    let mut c = Cursor::new(&payload);
                    if kind == REC_NAME {
                        let id = c
                            .uvarint()
                            .map_err(|e| decode_err(&path, at, "a name id", e))?;
                        if id != names.len() as u64 {
                            return Err(malformed(
                                &path,
                                at,
                                &format!("name id {}", names.len()),
                                id.to_string(),
                            ));
                        }
                        let name = c
                            .rest_str()
                            .map_err(|e| decode_err(&path, at, "a name", e))?;
                        names.push(name.to_owned());
                    } else {
                        let thread = c
                            .uvarint()
                            .map_err(|e| decode_err(&path, at, "a thread id", e))?;
                        let thread = thread_id(&path, at, thread)?;
                        c.uvarint()
                            .map_err(|e| decode_err(&path, at, "an OS thread id", e))?;
                        let name = c
                            .rest_str()
                            .map_err(|e| decode_err(&path, at, "a thread name", e))?;
                        self.threads.entry(thread).or_default().name = Some(name.to_owned());
                    }
                }
                REC_CHUNK => {
                    let mut head = [0u8; 20];
                    let got = self
                        .data
                        .read_at(payload_at, &mut head[..(avail as usize).min(20)])
                        .map_err(io)?;
                    let mut c = Cursor::new(&head[..got]);
                    let parsed = c.uvarint().and_then(|t| Ok((t, c.uvarint()?)));
                    let (thread, base) = match parsed {
                        Ok(v) => v,
                        Err(DecodeError::Short) if cut => {
                            self.truncated = Some((
                                at,
                                format!("the chunk at byte {at} is cut inside its header"),
                            ));
                            return Ok(names);
                        }
                        Err(e) => {
                            return Err(decode_err(&path, at, "a chunk's thread and base time", e))
                        }
                    };
                    let thread = thread_id(&path, at, thread)?;
                    let skip = c.at as u32;
                    self.threads
                        .entry(thread)
                        .or_default()
                        .chunks
                        .push(ChunkRef {
                            events_at: payload_at + u64::from(skip),
                            events_len: avail - skip,
                            base: Nanos(base),
                            cut,
                        });
                    if cut {
                        self.truncated = Some((
                            payload_at + u64::from(avail),
                            format!("the chunk of thread {thread} at byte {at} is cut: {avail} of {len} bytes present"),
                        ));
                        return Ok(names);
                    }
                }
                other => {
                    return Err(malformed(
                        &path,
                        at,
                        "a record type 1 (name), 2 (thread), 3 (chunk) or 4 (end)",
                        other.to_string(),
                    ));
                }
            }
            at = payload_at + u64::from(len);
        }
    }

    /// The threads present, in id order.
    pub(crate) fn threads(&self) -> Vec<ThreadId> {
        self.threads.keys().copied().collect()
    }

    /// A thread's recorded name.
    pub(crate) fn thread_name(&self, thread: ThreadId) -> Option<&str> {
        self.threads.get(&thread)?.name.as_deref()
    }

    /// Where the readable data of a truncated log stops.
    pub(crate) fn truncated(&self) -> Option<Position> {
        self.truncated.as_ref().map(|(at, _)| Position::Offset(*at))
    }
}

fn thread_id(path: &Path, at: u64, value: u64) -> Result<ThreadId, LogError> {
    u32::try_from(value)
        .map(ThreadId)
        .map_err(|_| malformed(path, at, "a thread id below 2^32", value.to_string()))
}

fn parse_header(path: &Path, body: &[u8]) -> Result<(Header, TimeScale), LogError> {
    let mut c = Cursor::new(body);
    let err = |what: &str, e| decode_err(path, 14, what, e);
    let processors = c.uvarint().map_err(|e| err("the processor count", e))?;
    let processors = u32::try_from(processors).map_err(|_| {
        malformed(
            path,
            14,
            "a processor count below 2^32",
            processors.to_string(),
        )
    })?;
    let clock = c.str().map_err(|e| err("the clock name", e))?.to_owned();
    let n = c.uvarint().map_err(|e| err("the counter count", e))?;
    if n > u64::from(u16::MAX) + 1 {
        return Err(malformed(path, 14, "at most 65536 counters", n.to_string()));
    }
    let mut counters = Vec::new();
    for _ in 0..n {
        counters.push(c.str().map_err(|e| err("a counter name", e))?.to_owned());
    }
    let pid = c.uvarint().map_err(|e| err("the process id", e))?;
    let argc = c.uvarint().map_err(|e| err("the argument count", e))?;
    let mut command_line = Vec::new();
    for _ in 0..argc {
        command_line.push(
            c.str()
                .map_err(|e| err("a command-line argument", e))?
                .to_owned(),
        );
    }
    let start_unix_ns = c.uvarint().map_err(|e| err("the start time", e))?;
    let start_clock_ns = c.uvarint().map_err(|e| err("the start clock reading", e))?;
    let scale = TimeScale {
        ref_raw: c.uvarint().map_err(|e| err("the time scale", e))?,
        ref_ns: c.uvarint().map_err(|e| err("the time scale", e))?,
        ns_per_raw_q32: c.uvarint().map_err(|e| err("the time scale", e))?,
    };
    let header = Header {
        version: VERSION,
        processors,
        clock,
        counters,
        process: ProcessInfo {
            pid: u32::try_from(pid).unwrap_or(0),
            command_line,
            start_unix_ns,
            start_clock_ns,
        },
    };
    Ok((header, scale))
}

/// The events of one thread of a binary log, read one chunk at a time.
#[derive(Debug)]
pub struct BinaryStream {
    log: Arc<BinaryLog>,
    thread: ThreadId,
    next_chunk: usize,
    chunk: Option<ChunkRef>,
    buf: Vec<u8>,
    at: usize,
    time: Nanos,
    last: Option<Nanos>,
}

impl BinaryStream {
    pub(crate) fn new(log: Arc<BinaryLog>, thread: ThreadId) -> BinaryStream {
        BinaryStream {
            log,
            thread,
            next_chunk: 0,
            chunk: None,
            buf: Vec::new(),
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

    /// The next event of the thread; `None` after its last one in a complete log.
    pub(crate) fn next_event(&mut self) -> Option<Result<Event, LogError>> {
        loop {
            if let Some(chunk) = self.chunk {
                if self.at < self.buf.len() {
                    return Some(self.decode(chunk));
                }
                self.chunk = None;
                if chunk.cut {
                    let end = chunk.events_at + u64::from(chunk.events_len);
                    return Some(Err(self.truncated(
                        end,
                        format!(
                            "thread {}'s last chunk is cut after byte {end}",
                            self.thread
                        ),
                    )));
                }
            }
            let log = Arc::clone(&self.log);
            let Some(next) = log
                .threads
                .get(&self.thread)
                .and_then(|t| t.chunks.get(self.next_chunk))
                .copied()
            else {
                return log
                    .truncated
                    .as_ref()
                    .map(|(at, detail)| Err(self.truncated(*at, detail.clone())));
            };
            self.next_chunk += 1;
            self.buf.clear();
            self.buf.resize(next.events_len as usize, 0);
            match log.data.read_at(next.events_at, &mut self.buf) {
                Ok(n) if n == self.buf.len() => {}
                Ok(_) => {
                    return Some(Err(self.truncated(
                        next.events_at,
                        "the file shrank while it was read".to_owned(),
                    )));
                }
                Err(source) => {
                    return Some(Err(LogError::Io {
                        path: log.path.clone(),
                        source,
                    }))
                }
            }
            self.at = 0;
            self.time = next.base;
            self.chunk = Some(next);
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
        self.last = Some(time);
        Ok(Event {
            time,
            thread: self.thread,
            kind,
            pos,
        })
    }
}
