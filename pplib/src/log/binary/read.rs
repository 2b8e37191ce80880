//! Opening a binary log (see the spec in the parent module): the header and an index built
//! at open time (record headers, names, threads); `stream.rs` reads the chunks lazily.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::stream::{MAX_WINDOW, MIN_WINDOW, WINDOW_BUDGET};
use super::{
    Cursor, DecodeError, TimeScale, MAGIC, MAX_PAYLOAD, REC_CHUNK, REC_END, REC_NAME, REC_THREAD,
    VERSION,
};
use crate::log::counter_check::CounterRules;
use crate::log::error::quote;
use crate::log::{Header, LogError, Nanos, Position, ProcessInfo, ThreadId};

/// Where the log's bytes are.
#[derive(Debug)]
pub(super) enum Data {
    File(File),
    Bytes(Vec<u8>),
}

impl Data {
    /// Reads up to `buf.len()` bytes at `offset`; returns how many were read.
    pub(super) fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
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

    pub(super) fn len(&self) -> std::io::Result<u64> {
        match self {
            Data::Bytes(bytes) => Ok(bytes.len() as u64),
            Data::File(file) => Ok(file.metadata()?.len()),
        }
    }
}

/// One `CHUNK` record of a thread, as a stream reads it (see `stream.rs`).
#[derive(Debug, Clone, Copy)]
pub(super) struct ChunkRef {
    /// Offset of the first event (after the chunk's thread and base time).
    pub(super) events_at: u64,
    /// Bytes of events present in the file.
    pub(super) events_len: u32,
    /// The chunk's base time (raw).
    pub(super) base: Nanos,
    /// The record is cut by the end of the file.
    pub(super) cut: bool,
}

/// A thread of the log: its name and where its chunks are.
#[derive(Debug, Default)]
pub(super) struct ThreadIndex {
    /// The offsets of the thread's `CHUNK` records in file order, each as a `uvarint`: its
    /// distance from the end of the thread's previous chunk record (the first: from 0).
    /// Chunks of a thread mostly follow each other closely, so this takes a byte or two
    /// per chunk: the index of a log of many small chunks stays small beside the log.
    pub(super) chunks: Vec<u8>,
    /// The end of the last chunk record listed.
    last_end: u64,
    name: Option<String>,
}

impl ThreadIndex {
    fn push_chunk(&mut self, at: u64, end: u64) {
        super::put_uvarint(&mut self.chunks, at - self.last_end);
        self.last_end = end;
    }
}

/// An opened binary log: the index that [`super::BinaryStream`]s read from.
#[derive(Debug)]
pub struct BinaryLog {
    pub(super) path: PathBuf,
    pub(super) data: Data,
    pub(super) names: usize,
    pub(super) counters: usize,
    pub(super) counter_rules: std::sync::Arc<CounterRules>,
    /// The threads in id order.
    pub(super) threads: Vec<(ThreadId, ThreadIndex)>,
    /// The file's length when it was opened.
    pub(super) len: u64,
    /// The most bytes of the file a stream holds at a time (see `stream.rs`).
    pub(super) window: usize,
    /// The longest an event of this log can be, in bytes: code, delta and a name id, or a
    /// `counters` event with a value of every counter.
    pub(super) max_event: u64,
    pub(super) truncated: Option<(u64, String)>,
    pub(super) scale: TimeScale,
}

pub(super) fn malformed(path: &Path, at: u64, expected: &str, found: String) -> LogError {
    LogError::Syntax {
        path: path.to_owned(),
        pos: Position::Offset(at),
        expected: expected.to_owned(),
        found,
    }
}

pub(super) fn decode_err(path: &Path, at: u64, what: &str, e: DecodeError) -> LogError {
    match e {
        DecodeError::Short => malformed(path, at, what, "the end of its record".to_owned()),
        DecodeError::Invalid(expected) => {
            malformed(path, at, expected, format!("bytes that are not {what}"))
        }
    }
}

/// The header of a record as the index reads it.
#[derive(Debug, Clone, Copy)]
struct RecordHead {
    /// Offset of the record (its type byte).
    at: u64,
    /// The record type (`REC_*`).
    kind: u8,
    /// The payload's length as the header gives it.
    len: u32,
    /// Offset of the payload.
    payload_at: u64,
    /// Bytes of the payload present in the file (less than `len` when the file ends
    /// inside the record).
    avail: u32,
}

impl RecordHead {
    /// The file ends inside the record's payload.
    fn cut(&self) -> bool {
        self.avail < self.len
    }

    /// Offset just past the record (where the next one begins).
    fn end(&self) -> u64 {
        self.payload_at + u64::from(self.len)
    }

    /// Checks that this `END` record is empty and the last bytes of the file.
    fn check_last(&self, path: &Path, file_len: u64) -> Result<(), LogError> {
        if self.len != 0 || self.payload_at < file_len {
            return Err(malformed(
                path,
                self.at,
                "the end of the file after the end record",
                format!("{} more bytes", file_len - self.payload_at),
            ));
        }
        Ok(())
    }
}

/// Whether the index goes on after a record.
enum Indexed {
    /// On to the next record.
    Next,
    /// The index is complete: the end record, or where the log is cut.
    Stop,
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
        let (header, scale, header_len) = read_header(path, &data)?;
        let mut log = BinaryLog {
            path: path.to_owned(),
            data,
            names: 0,
            counters: header.counters.len(),
            counter_rules: CounterRules::new(&header.counters),
            threads: Vec::new(),
            len: file_len,
            window: MAX_WINDOW,
            max_event: 1 + 10 + 10 + 20 * header.counters.len() as u64,
            truncated: None,
            scale,
        };
        let mut threads = BTreeMap::new();
        let names = log.index(14 + u64::from(header_len), file_len, &mut threads)?;
        log.names = names.len();
        log.threads = threads.into_iter().collect();
        log.window = (WINDOW_BUDGET / log.threads.len().max(1)).clamp(MIN_WINDOW, MAX_WINDOW);
        Ok((header, names, log))
    }

    /// Reads every record header from `at` on into `threads`; returns the string table.
    /// A log cut short ends the index where it is cut (noted in `self.truncated`); a
    /// malformed record is an error.
    fn index(
        &mut self,
        mut at: u64,
        file_len: u64,
        threads: &mut BTreeMap<ThreadId, ThreadIndex>,
    ) -> Result<Vec<String>, LogError> {
        let mut names = Vec::new();
        loop {
            let Some(record) = self.record_head(at, file_len)? else {
                return Ok(names);
            };
            let next = match record.kind {
                REC_END => {
                    record.check_last(&self.path, file_len)?;
                    Indexed::Stop
                }
                REC_NAME => self.index_name(&record, &mut names)?,
                REC_THREAD => self.index_thread(&record, threads)?,
                REC_CHUNK => self.index_chunk(&record, threads)?,
                other => {
                    return Err(malformed(
                        &self.path,
                        at,
                        "a record type 1 (name), 2 (thread), 3 (chunk) or 4 (end)",
                        other.to_string(),
                    ));
                }
            };
            if let Indexed::Stop = next {
                return Ok(names);
            }
            at = record.end();
        }
    }

    /// The error for a failed read of the log's bytes.
    fn io_error(&self, source: std::io::Error) -> LogError {
        LogError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Reads the header (type and length) of the record at `at`. `None` when the log ends
    /// there or inside the header (noted as its truncation); an error when the length is
    /// past [`MAX_PAYLOAD`].
    fn record_head(&mut self, at: u64, file_len: u64) -> Result<Option<RecordHead>, LogError> {
        if at >= file_len {
            self.truncated = Some((
                at,
                format!("the log ends at byte {at} without its end record (the recording process stopped before finishing)"),
            ));
            return Ok(None);
        }
        let mut head = [0u8; 5];
        let n = self
            .data
            .read_at(at, &mut head)
            .map_err(|e| self.io_error(e))?;
        if n < 5 {
            self.truncated = Some((
                at,
                format!("the record at byte {at} is cut inside its header"),
            ));
            return Ok(None);
        }
        let kind = head[0];
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
        if len > MAX_PAYLOAD {
            return Err(malformed(
                &self.path,
                at,
                "a record of at most 64 MiB",
                format!("a length of {len} bytes"),
            ));
        }
        let payload_at = at + 5;
        let avail = (file_len - payload_at).min(u64::from(len)) as u32;
        Ok(Some(RecordHead {
            at,
            kind,
            len,
            payload_at,
            avail,
        }))
    }

    /// The whole payload of `record`; `None` when the file ends inside it (noted as the
    /// log's truncation).
    fn whole_payload(&mut self, record: &RecordHead) -> Result<Option<Vec<u8>>, LogError> {
        let RecordHead { at, len, avail, .. } = *record;
        if record.cut() {
            self.truncated = Some((
                at,
                format!("the record at byte {at} is cut: {avail} of {len} bytes present"),
            ));
            return Ok(None);
        }
        let mut payload = vec![0u8; len as usize];
        self.data
            .read_at(record.payload_at, &mut payload)
            .map_err(|e| self.io_error(e))?;
        Ok(Some(payload))
    }

    /// Reads a `NAME` record: the next entry of `names`, which must have the next id.
    fn index_name(
        &mut self,
        record: &RecordHead,
        names: &mut Vec<String>,
    ) -> Result<Indexed, LogError> {
        let Some(payload) = self.whole_payload(record)? else {
            return Ok(Indexed::Stop);
        };
        let (path, at) = (&self.path, record.at);
        let mut c = Cursor::new(&payload);
        let id = c
            .uvarint()
            .map_err(|e| decode_err(path, at, "a name id", e))?;
        if id != names.len() as u64 {
            return Err(malformed(
                path,
                at,
                &format!("name id {}", names.len()),
                id.to_string(),
            ));
        }
        let name = c
            .rest_str()
            .map_err(|e| decode_err(path, at, "a name", e))?;
        names.push(name.to_owned());
        Ok(Indexed::Next)
    }

    /// Reads a `THREAD` record: a thread's name (its OS thread id is not kept).
    fn index_thread(
        &mut self,
        record: &RecordHead,
        threads: &mut BTreeMap<ThreadId, ThreadIndex>,
    ) -> Result<Indexed, LogError> {
        let Some(payload) = self.whole_payload(record)? else {
            return Ok(Indexed::Stop);
        };
        let (path, at) = (&self.path, record.at);
        let mut c = Cursor::new(&payload);
        let thread = c
            .uvarint()
            .map_err(|e| decode_err(path, at, "a thread id", e))?;
        let thread = thread_id(path, at, thread)?;
        c.uvarint()
            .map_err(|e| decode_err(path, at, "an OS thread id", e))?;
        let name = c
            .rest_str()
            .map_err(|e| decode_err(path, at, "a thread name", e))?;
        threads.entry(thread).or_default().name = Some(name.to_owned());
        Ok(Indexed::Next)
    }

    /// Notes a `CHUNK` record in its thread's index after reading the chunk's thread (and
    /// base time) only: the events are read lazily by the thread's stream. A chunk cut by
    /// the end of the file is indexed (its stream reads what is there) and ends the index.
    fn index_chunk(
        &mut self,
        record: &RecordHead,
        threads: &mut BTreeMap<ThreadId, ThreadIndex>,
    ) -> Result<Indexed, LogError> {
        let RecordHead {
            at,
            len,
            payload_at,
            avail,
            ..
        } = *record;
        let cut = record.cut();
        let mut head = [0u8; 20];
        let got = self
            .data
            .read_at(payload_at, &mut head[..(avail as usize).min(20)])
            .map_err(|e| self.io_error(e))?;
        let mut c = Cursor::new(&head[..got]);
        let parsed = c.uvarint().and_then(|t| Ok((t, c.uvarint()?)));
        let (thread, _base) = match parsed {
            Ok(v) => v,
            Err(DecodeError::Short) if cut => {
                self.truncated = Some((
                    at,
                    format!("the chunk at byte {at} is cut inside its header"),
                ));
                return Ok(Indexed::Stop);
            }
            Err(e) => {
                return Err(decode_err(
                    &self.path,
                    at,
                    "a chunk's thread and base time",
                    e,
                ))
            }
        };
        let thread = thread_id(&self.path, at, thread)?;
        threads
            .entry(thread)
            .or_default()
            .push_chunk(at, record.end());
        if cut {
            self.truncated = Some((
                payload_at + u64::from(avail),
                format!("the chunk of thread {thread} at byte {at} is cut: {avail} of {len} bytes present"),
            ));
            return Ok(Indexed::Stop);
        }
        Ok(Indexed::Next)
    }

    /// The threads present, in id order.
    pub(crate) fn threads(&self) -> Vec<ThreadId> {
        self.threads.iter().map(|(t, _)| *t).collect()
    }

    /// Where `thread` is in [`BinaryLog::threads`].
    pub(super) fn thread_index(&self, thread: ThreadId) -> Option<usize> {
        self.threads.binary_search_by_key(&thread, |(t, _)| *t).ok()
    }

    /// A thread's recorded name.
    pub(crate) fn thread_name(&self, thread: ThreadId) -> Option<&str> {
        let i = self.thread_index(thread)?;
        self.threads[i].1.name.as_deref()
    }

    /// Where the readable data of a truncated log stops.
    pub(crate) fn truncated(&self) -> Option<Position> {
        self.truncated.as_ref().map(|(at, _)| Position::Offset(*at))
    }
}

/// Reads and checks the log's fixed header (magic number, version, header length) and
/// parses the header record after it; returns the header, its time scale and the header
/// record's length (the index starts after it).
fn read_header(path: &Path, data: &Data) -> Result<(Header, TimeScale, u32), LogError> {
    let io = |source| LogError::Io {
        path: path.to_owned(),
        source,
    };
    let mut fixed = [0u8; 14];
    let n = data.read_at(0, &mut fixed).map_err(io)?;
    let truncated_header = |at: u64| LogError::Truncated {
        path: path.to_owned(),
        pos: Position::Offset(at),
        detail: "the file ends inside the log header (no event was recorded)".to_owned(),
    };
    if (1..8).contains(&n) && MAGIC.starts_with(&fixed[..n]) {
        return Err(LogError::Truncated {
            path: path.to_owned(),
            pos: Position::Offset(n as u64),
            detail: format!(
                "the file ends inside the binary log's magic number ({n} of 8 bytes; no event was recorded)"
            ),
        });
    }
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
    Ok((header, scale, header_len))
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
    // Optional (absent from logs written before it): 0 or absent, not measured.
    let event_cost_ps = if c.at < body.len() {
        Some(c.uvarint().map_err(|e| err("the event cost", e))?).filter(|ps| *ps > 0)
    } else {
        None
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
        event_cost_ps,
    };
    Ok((header, scale))
}
