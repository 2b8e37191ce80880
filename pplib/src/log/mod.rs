//! Event logs: the decoded event types and the reader of both log forms.
//!
//! A log is what `pplib` records and `pp` reads. It comes in two forms with the same
//! meaning (docs/event-logs.md):
//! - the binary log written by the runtime (spec: [`binary`]), compact and written while the
//!   program runs;
//! - the `.pptrace` text trace, hand-writable, used by tests and converters (spec:
//!   docs/event-logs.md; reader notes: `text.rs`).
//!
//! [`LogReader::open`] tells them apart by content (the binary magic, or a first non-comment
//! line `pptrace 1`). A reader gives the [`Header`], the string table ([`LogReader::name`])
//! and one [`ThreadStream`] per thread, which yields that thread's events in time order and
//! holds only a bounded amount of the log in memory at a time (binary logs are read lazily,
//! in windows of at most [`binary::MAX_WINDOW`] bytes per stream, whatever the size of
//! their chunks; see [`LogReader::set_stream_window`]; text traces a line at a time, by one
//! pass shared by the streams of a [`LogReader::streams`] call, which keeps each thread's
//! events read but not yet taken).
//!
//! ```
//! use pplib::log::{EventKind, LogReader};
//!
//! let trace = "pptrace 1\nprocessors 2\n0 0 session_begin\n5 0 frag_begin init\n9 0 frag_end init\n10 0 session_end\n";
//! let reader = LogReader::from_bytes(trace.as_bytes().to_vec(), "example.pptrace").unwrap();
//! assert_eq!(reader.header().processors, 2);
//! let stream = reader.streams().into_iter().next().unwrap();
//! let events: Vec<_> = stream.collect::<Result<_, _>>().unwrap();
//! assert_eq!(events.len(), 4);
//! let EventKind::FragBegin(name) = events[1].kind else { panic!() };
//! assert_eq!(reader.name(name), "init");
//! ```
//!
//! What the reader checks, per thread: times never decrease, every event is known, every
//! record is well formed, counter values never decrease and `cpu_ns` / `llc_misses` rise
//! by at most the elapsed nanoseconds plus 20 ms between samples ([`COUNTER_SLACK_NS`]:
//! more would mean more time than the log spans). It does not check that ends match
//! begins (`pp` does).
//!
//! # Counters
//!
//! A `counters` event carries cumulative per-thread values of some of the counters the
//! header lists ([`Header::counters`]); the origin of a thread's values is arbitrary (the
//! thread's start, or its first reading), so readers use differences between two samples
//! of the same thread. The names pplib writes:
//!
//! | name | what |
//! |---|---|
//! | `cpu_ns` | CPU time of the thread, user and system, in nanoseconds |
//! | `nivcsw` | involuntary context switches of the thread: times the kernel took its processor away while it could run (another thread or process got it) |
//! | `cycles`, `instructions` | user-space CPU cycles, retired instructions (hardware counters) |
//! | `llc_misses` | last-level-cache read misses (hardware counter) |
//!
//! `cpu_ns` and `nivcsw` are in every log pplib writes: each thread's *scheduling samples*
//! (a `counters` event with both) come at its first event, at `par` boundaries and rayon
//! run starts when its last sample is a millisecond old or more, when it hands a full
//! buffer to the writer (as rarely), when it exits and at the session's end. With the
//! hardware counters on (`PPLIB_COUNTERS=1`), a `counters` event follows every construct
//! boundary, and where the perf task clock opens its `cpu_ns` is that one (the scheduling
//! samples then carry `nivcsw` only). Over an interval between two samples of a thread,
//! wall time minus the increase of `cpu_ns` is the time the thread could have run or was
//! waiting (blocked, or descheduled); the increase of `nivcsw` says how often another
//! thread or process took its processor.

mod batch;
pub mod binary;
mod counter_check;
mod error;
pub mod event;
mod header;
mod text;
mod text_event;
mod text_stream;
mod text_threads;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use batch::{CompactEvent, EventBatch, EventCode, EventSink};
pub use counter_check::SLACK_NS as COUNTER_SLACK_NS;
pub use error::LogError;
pub use event::{CounterId, Event, EventKind, NameId, Nanos, Position, ThreadId};
pub use header::{Header, ProcessInfo};

/// The largest text trace [`LogReader::open`] reads (bytes). A text trace is read a line at
/// a time (it is never held whole: at most [`MAX_TEXT_LINE`] bytes of it, and the events its
/// streams' consumer has not taken yet), but parsing text costs about ten times what
/// decoding the binary form does: larger logs should be binary ([`binary::LogWriter`]).
pub const MAX_TEXT_BYTES: u64 = 1 << 30;

pub use text::MAX_LINE as MAX_TEXT_LINE;

/// How much of a file [`LogReader::open`] looks at to tell a text trace from anything else
/// before reading the rest.
const SNIFF_BYTES: usize = 64 << 10;

/// An opened log (binary or text): header, string table and per-thread streams.
#[derive(Debug)]
pub struct LogReader {
    path: PathBuf,
    header: Header,
    names: Vec<String>,
    source: Source,
    /// The most bytes of the file a binary log's stream holds (`None`: the default).
    window: Option<usize>,
}

impl LogReader {
    /// A reader of `source`, opened from `path`, with the default stream window.
    fn with_source(path: &Path, header: Header, names: Vec<String>, source: Source) -> LogReader {
        LogReader {
            path: path.to_owned(),
            header,
            names,
            source,
            window: None,
        }
    }
}

#[derive(Debug)]
enum Source {
    Text(Arc<text::TextLog>),
    Binary(Arc<binary::BinaryLog>),
}

impl LogReader {
    /// Opens the log at `path`, detecting its form by content.
    ///
    /// A binary log is indexed (its chunk headers and string table are read; event
    /// payloads are read later by the streams). A text trace (at most [`MAX_TEXT_BYTES`])
    /// is read once, a line at a time, for its header, thread ids and names (each set of
    /// streams reads it once more and parses its events). A file that is neither is
    /// rejected after its first 64 KiB, whatever its size.
    pub fn open(path: &Path) -> Result<LogReader, LogError> {
        let io = |source| LogError::Io {
            path: path.to_owned(),
            source,
        };
        let mut file = std::fs::File::open(path).map_err(io)?;
        let mut magic = [0u8; binary::MAGIC.len()];
        let n = read_up_to(&mut file, &mut magic).map_err(io)?;
        if n == magic.len() && magic == binary::MAGIC {
            let (header, names, log) = binary::BinaryLog::open_file(path, file)?;
            return Ok(LogReader::with_source(
                path,
                header,
                names,
                Source::Binary(Arc::new(log)),
            ));
        }
        // Not binary: look at the start before reading a large file whole.
        let mut head = magic[..n].to_vec();
        head.resize(SNIFF_BYTES, 0);
        let more = read_up_to(&mut file, &mut head[n..]).map_err(io)?;
        head.truncate(n + more);
        if head.len() < SNIFF_BYTES {
            if !reads_as_text(&head) {
                return LogReader::from_parts(path, head);
            }
            return LogReader::open_text(path, head, file);
        }
        if !text::looks_like_text(&head) {
            // The same error the whole file would give, from its start (cut at a UTF-8
            // character boundary).
            if let Err(e) = std::str::from_utf8(&head) {
                if e.error_len().is_none() {
                    head.truncate(e.valid_up_to());
                }
            }
            return LogReader::from_parts(path, head);
        }
        let len = file.metadata().map_err(io)?.len();
        if len > MAX_TEXT_BYTES {
            return Err(LogError::Syntax {
                path: path.to_owned(),
                pos: Position::Offset(MAX_TEXT_BYTES),
                expected: format!(
                    "a text trace of at most {} MiB (record larger logs in the binary form)",
                    MAX_TEXT_BYTES >> 20
                ),
                found: format!("{len} bytes"),
            });
        }
        LogReader::open_text(path, head, file)
    }

    /// A text trace of which `head` has been read from `file`.
    fn open_text(path: &Path, head: Vec<u8>, file: std::fs::File) -> Result<LogReader, LogError> {
        let (header, names, log) = text::open_file(path, head, file)?;
        Ok(LogReader::with_source(
            path,
            header,
            names,
            Source::Text(Arc::new(log)),
        ))
    }

    /// Reads a log held in memory; `name` stands for the file name in error messages.
    pub fn from_bytes(bytes: Vec<u8>, name: &str) -> Result<LogReader, LogError> {
        LogReader::from_parts(Path::new(name), bytes)
    }

    fn from_parts(path: &Path, bytes: Vec<u8>) -> Result<LogReader, LogError> {
        if !bytes.is_empty()
            && bytes.len() < binary::MAGIC.len()
            && binary::MAGIC.starts_with(&bytes)
        {
            // A binary log cut inside its magic number (the recorder died right after
            // creating the file): a truncation, not some other kind of file.
            return Err(LogError::Truncated {
                path: path.to_owned(),
                pos: Position::Offset(bytes.len() as u64),
                detail: format!(
                    "the file ends inside the binary log's magic number ({} of {} bytes; no event was recorded)",
                    bytes.len(),
                    binary::MAGIC.len()
                ),
            });
        }
        if bytes.starts_with(&binary::MAGIC) {
            let (header, names, log) = binary::BinaryLog::open_bytes(path, bytes)?;
            return Ok(LogReader::with_source(
                path,
                header,
                names,
                Source::Binary(Arc::new(log)),
            ));
        }
        if !reads_as_text(&bytes) {
            let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(16)]).into_owned();
            return Err(LogError::NotALog {
                path: path.to_owned(),
                pos: Position::Offset(0),
                found: format!("binary data {}", error::quote(&shown)),
            });
        }
        let (header, names, log) = text::open_bytes(path, bytes)?;
        Ok(LogReader::with_source(
            path,
            header,
            names,
            Source::Text(Arc::new(log)),
        ))
    }

    /// Sets the most bytes of the file each stream of a binary log holds at a time (at
    /// least 1; a `counters` event longer than that is held whole). By default the
    /// streams of a log share [`binary::WINDOW_BUDGET`], each holding between
    /// [`binary::MIN_WINDOW`] and [`binary::MAX_WINDOW`] bytes, whatever the size of the
    /// log and its chunks. Streams give the same events and errors with any window; a
    /// smaller one reads in more, smaller pieces. Applies to the streams made after it.
    pub fn set_stream_window(&mut self, bytes: usize) {
        self.window = Some(bytes.max(1));
    }

    /// The path (or name) the log was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header: version, clock, p, counters present, process.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// True for a `.pptrace` text trace, false for a binary log.
    pub fn is_text(&self) -> bool {
        matches!(self.source, Source::Text(_))
    }

    /// The interned string for `id` (a fragment name or a wait kind). An id that is not in
    /// the string table gives `"<undefined>"` (streams report such ids as errors).
    pub fn name(&self, id: NameId) -> &str {
        self.names
            .get(id.0 as usize)
            .map_or("<undefined>", String::as_str)
    }

    /// The whole string table, indexed by [`NameId`].
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The thread ids present in the log, in increasing order.
    pub fn threads(&self) -> Vec<ThreadId> {
        match &self.source {
            Source::Text(log) => log.threads().collect(),
            Source::Binary(log) => log.threads(),
        }
    }

    /// The name the recording program gave a thread (binary logs only; e.g. `pplib-worker-2`).
    pub fn thread_name(&self, thread: ThreadId) -> Option<&str> {
        match &self.source {
            Source::Text(_) => None,
            Source::Binary(log) => log.thread_name(thread),
        }
    }

    /// If the log is truncated (the file ends before the end marker), where its readable
    /// data stops. Streams report this as [`LogError::Truncated`] after their last event.
    pub fn truncated(&self) -> Option<Position> {
        match &self.source {
            Source::Text(_) => None,
            Source::Binary(log) => log.truncated(),
        }
    }

    /// One stream per thread, in thread id order, each yielding that thread's events in
    /// time order. Streams are independent (each may be consumed on its own thread).
    ///
    /// A truncated log that holds no thread at all (cut before its first chunk) gives one
    /// stream, for thread 0, whose only item is the [`LogError::Truncated`] error: whoever
    /// reads every stream learns of the truncation.
    pub fn streams(&self) -> Vec<ThreadStream> {
        let mut threads = self.threads();
        if threads.is_empty() && self.truncated().is_some() {
            threads.push(ThreadId(0));
        }
        let pump = match &self.source {
            Source::Text(log) => Some(text_stream::SharedPump::new(log)),
            Source::Binary(_) => None,
        };
        threads
            .into_iter()
            .map(|thread| ThreadStream {
                thread,
                done: false,
                inner: match &self.source {
                    Source::Text(log) => StreamInner::Text(text_stream::TextStream::new(
                        Arc::clone(log),
                        pump.clone().expect("a text trace has its pass"),
                        thread,
                    )),
                    Source::Binary(log) => StreamInner::Binary(binary::BinaryStream::new(
                        Arc::clone(log),
                        thread,
                        self.window,
                    )),
                },
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;

/// Whether a whole log (`bytes`) is read as a text trace: not binary (nor a binary log cut
/// inside its magic number), and either starting like a text trace or UTF-8 text (whose
/// first line is then reported as not a log).
fn reads_as_text(bytes: &[u8]) -> bool {
    let cut_magic =
        !bytes.is_empty() && bytes.len() < binary::MAGIC.len() && binary::MAGIC.starts_with(bytes);
    !cut_magic
        && !bytes.starts_with(&binary::MAGIC)
        && (text::looks_like_text(bytes) || std::str::from_utf8(bytes).is_ok())
}

/// Reads into `buf` until it is full or the reader ends; returns the bytes read.
fn read_up_to(reader: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match reader.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The events of one thread, in that thread's time order.
///
/// Yields `Err` for a time that goes backwards, an unknown event, a malformed record, or
/// (last) [`LogError::Truncated`]; after an `Err` the stream ends.
#[derive(Debug)]
pub struct ThreadStream {
    thread: ThreadId,
    done: bool,
    inner: StreamInner,
}

#[derive(Debug)]
enum StreamInner {
    Text(text_stream::TextStream),
    Binary(binary::BinaryStream),
}

impl ThreadStream {
    /// The thread whose events this stream yields.
    pub fn thread(&self) -> ThreadId {
        self.thread
    }

    /// Replaces the contents of `batch` with the thread's next events (at most
    /// [`EventBatch::CAPACITY`]): the fast way to read a log, giving the same events and
    /// errors as the iterator.
    ///
    /// `Ok` with an empty batch: the stream has ended. `Err`: the stream's final error
    /// (as the iterator would yield it), which comes *after* the events left in `batch`;
    /// later calls give empty batches.
    pub fn next_batch(&mut self, batch: &mut EventBatch) -> Result<(), LogError> {
        batch.clear();
        self.next_into(batch, EventBatch::CAPACITY).map(|_| ())
    }

    /// Hands the thread's next events, at most `limit` (> 0) of them, to `sink` as they
    /// are decoded, and returns how many it took; stops early after an event for which
    /// the sink returns `false` (the stream goes on after that event). The same events
    /// and errors as [`ThreadStream::next_batch`], without a batch in between.
    ///
    /// `Ok(0)`: the stream has ended. `Err`: the stream's final error (as the iterator
    /// would yield it), which comes *after* the events handed over; later calls give
    /// `Ok(0)`.
    #[inline(always)]
    pub fn next_into<K: EventSink>(
        &mut self,
        sink: &mut K,
        limit: usize,
    ) -> Result<usize, LogError> {
        if self.done || limit == 0 {
            return Ok(0);
        }
        let result = match &mut self.inner {
            StreamInner::Binary(s) => s.next_into(sink, limit),
            StreamInner::Text(s) => s.next_into(sink, limit),
        };
        if matches!(result, Err(_) | Ok(0)) {
            self.done = true;
        }
        result
    }
}

impl Iterator for ThreadStream {
    type Item = Result<Event, LogError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = match &mut self.inner {
            StreamInner::Text(s) => s.next_event(),
            StreamInner::Binary(s) => s.next_event(),
        };
        if !matches!(item, Some(Ok(_))) {
            self.done = true;
        }
        item
    }
}
