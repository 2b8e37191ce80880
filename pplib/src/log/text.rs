//! The `.pptrace` text trace (docs/event-logs.md): the line grammar and opening a trace.
//!
//! ```text
//! pptrace 1                 # first non-comment line: format and version
//! processors 4              # p (required before the first event)
//! event_cost_ns 9.5         # optional: what recording one event cost (ns)
//! <t_ns> <thread> <event> [args...]
//! ```
//!
//! `#` starts a comment anywhere on a line; fields are separated by whitespace. A trace is
//! never held in memory whole: opening it reads it once, a line at a time, to check the
//! header, find every thread and intern fragment names, wait kinds and counter names (in
//! order of first appearance), without parsing the events; the streams of
//! [`crate::log::LogReader::streams`] then read it once more, parsing each event line once
//! (`text_stream.rs`). A line whose thread cannot be read is an error of
//! [`crate::log::LogReader::open`]; any other bad line is reported by its thread's stream
//! when the stream reaches it, so the events before it stay usable.

use std::collections::HashMap;
use std::io::{BufRead, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::counter_check::CounterRules;
use super::error::{quote, LogError};
use super::event::{CounterId, NameId, Position, ThreadId};
use super::header::{Header, ProcessInfo};
use super::text_threads::{Slots, ThreadSet};

/// The longest line a text trace may have (bytes, its newline excluded): what reading a
/// line holds at most.
pub const MAX_LINE: usize = 16 << 20;

/// The shared, read-only state of an opened text trace.
#[derive(Debug)]
pub(crate) struct TextLog {
    pub(super) path: PathBuf,
    /// Where the text is read from again by each set of streams.
    pub(super) origin: Origin,
    pub(super) names: HashMap<String, NameId>,
    pub(super) counters: HashMap<String, CounterId>,
    /// The threads with at least one event line, in id order; a thread's index here is
    /// its slot.
    pub(super) threads: Vec<ThreadId>,
    pub(super) slots: Slots,
    pub(super) counter_rules: Arc<CounterRules>,
}

/// Where a text trace's bytes come from.
#[derive(Debug, Clone)]
pub(crate) enum Origin {
    /// A file, opened again for every set of streams.
    File,
    /// Bytes held by the caller ([`crate::log::LogReader::from_bytes`]).
    Bytes(Arc<Vec<u8>>),
}

/// Bytes shared by a reader and the streams (for [`Cursor`]).
struct Shared(Arc<Vec<u8>>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// A reader of the trace's text from its start.
pub(super) type TextRead = Box<dyn BufRead + Send>;

impl Origin {
    /// The trace's text from its start.
    pub(super) fn reopen(&self, path: &Path) -> std::io::Result<TextRead> {
        Ok(match self {
            Origin::File => Box::new(std::io::BufReader::with_capacity(
                64 << 10,
                std::fs::File::open(path)?,
            )),
            Origin::Bytes(bytes) => Box::new(Cursor::new(Shared(Arc::clone(bytes)))),
        })
    }
}

/// The lines of a trace, one at a time, numbered from 1, without their line end (`\n`, or
/// `\r\n`); at most [`MAX_LINE`] bytes each are held.
pub(super) struct Lines {
    read: TextRead,
    /// The current line's bytes.
    pub(super) buf: Vec<u8>,
    /// The current line's number (0 before the first).
    pub(super) line: u64,
}

impl Lines {
    pub(super) fn new(read: TextRead) -> Lines {
        Lines {
            read,
            buf: Vec::new(),
            line: 0,
        }
    }

    /// Reads the next line into [`Lines::buf`]; `Ok(false)` at the end of the text.
    pub(super) fn advance(&mut self, path: &Path) -> Result<bool, LogError> {
        self.buf.clear();
        let limit = MAX_LINE as u64 + 2;
        let n = (&mut self.read)
            .take(limit)
            .read_until(b'\n', &mut self.buf)
            .map_err(|source| LogError::Io {
                path: path.to_owned(),
                source,
            })?;
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
        }
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        if self.buf.len() > MAX_LINE {
            return Err(syntax(
                path,
                Position::Line(self.line),
                &format!("a line of at most {} MiB", MAX_LINE >> 20),
                "a longer line",
            ));
        }
        Ok(true)
    }

    /// The error for a current line that is not UTF-8.
    pub(super) fn not_utf8(&self, path: &Path) -> LogError {
        syntax(
            path,
            Position::Line(self.line),
            "UTF-8 text",
            "a byte sequence that is not UTF-8",
        )
    }
}

/// The whitespace-separated fields of a line, comment removed.
pub(super) fn fields(line: &str) -> impl Iterator<Item = &str> {
    let content = match line.find('#') {
        Some(i) => &line[..i],
        None => line,
    };
    content.split_whitespace()
}

/// Where names and counter names get their ids while parsing.
pub(super) trait Names {
    fn name(&mut self, text: &str) -> Option<NameId>;
    fn counter(&mut self, text: &str) -> Option<CounterId>;
}

/// Interns while opening.
struct Interner {
    names: HashMap<String, NameId>,
    name_list: Vec<String>,
    counters: HashMap<String, CounterId>,
    counter_list: Vec<String>,
}

impl Names for Interner {
    fn name(&mut self, text: &str) -> Option<NameId> {
        if let Some(id) = self.names.get(text) {
            return Some(*id);
        }
        let id = NameId(u32::try_from(self.name_list.len()).ok()?);
        self.names.insert(text.to_owned(), id);
        self.name_list.push(text.to_owned());
        Some(id)
    }
    fn counter(&mut self, text: &str) -> Option<CounterId> {
        if let Some(id) = self.counters.get(text) {
            return Some(*id);
        }
        let id = CounterId(u16::try_from(self.counter_list.len()).ok()?);
        self.counters.insert(text.to_owned(), id);
        self.counter_list.push(text.to_owned());
        Some(id)
    }
}

/// Looks up while streaming (everything was interned at open).
pub(super) struct Lookup<'a>(pub(super) &'a TextLog);

impl Names for Lookup<'_> {
    fn name(&mut self, text: &str) -> Option<NameId> {
        self.0.names.get(text).copied()
    }
    fn counter(&mut self, text: &str) -> Option<CounterId> {
        self.0.counters.get(text).copied()
    }
}

/// A syntax error about `pos`.
pub(super) fn syntax(path: &Path, pos: Position, expected: &str, found: &str) -> LogError {
    LogError::Syntax {
        path: path.to_owned(),
        pos,
        expected: expected.to_owned(),
        found: found.to_owned(),
    }
}

/// Interns the names an event line uses, as [`parse_event`] would (the same names, in
/// the same order, also on a bad line), without parsing the event.
fn intern_line<'a>(time: &str, mut rest: impl Iterator<Item = &'a str>, names: &mut Interner) {
    if time.parse::<u64>().is_err() {
        return;
    }
    match rest.next() {
        Some("frag_begin" | "frag_end" | "wait_begin") => {
            if let Some(name) = rest.next() {
                names.name(name);
            }
        }
        Some("counters") => {
            for field in rest {
                let Some((name, value)) = field.split_once('=') else {
                    return;
                };
                if value.parse::<u64>().is_err() || name.is_empty() || names.counter(name).is_none()
                {
                    return;
                }
            }
        }
        _ => {}
    }
}

/// True if `text` starts like a text trace (first non-comment line begins with `pptrace`).
pub(crate) fn looks_like_text(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(&bytes[..bytes.len().min(4096)])
        .or_else(|e| std::str::from_utf8(&bytes[..e.valid_up_to()]))
    else {
        return false;
    };
    for line in text.split('\n') {
        if let Some(first) = fields(line).next() {
            return first == "pptrace";
        }
    }
    false
}

/// What opening a trace has found so far (see [`open`]).
struct Index<'a> {
    path: &'a Path,
    interner: Interner,
    seen_magic: bool,
    processors: Option<u32>,
    event_cost_ps: Option<u64>,
    in_events: bool,
    threads: ThreadSet,
}

impl Index<'_> {
    /// Takes one line: a header line, or an event line whose thread it notes and whose
    /// names it interns.
    fn line(&mut self, line_no: u64, line: &str) -> Result<(), LogError> {
        let path = self.path;
        let pos = Position::Line(line_no);
        let mut f = fields(line);
        let Some(head) = f.next() else {
            return Ok(());
        };
        if !self.seen_magic {
            return self.magic_line(pos, line, head, f);
        }
        if head == "processors" && !self.in_events {
            return self.processors_line(pos, f);
        }
        if head == "event_cost_ns" && !self.in_events {
            if self.event_cost_ps.is_some() {
                return Err(syntax(
                    path,
                    pos,
                    "one `event_cost_ns` line",
                    "a second one",
                ));
            }
            self.event_cost_ps = Some(event_cost_ps(path, pos, f)?);
            return Ok(());
        }
        self.event_line(pos, line, head, f)
    }

    /// Takes the first line of the trace, which must be `pptrace 1` (`head` is its first
    /// field, `f` the fields after it).
    fn magic_line<'a>(
        &mut self,
        pos: Position,
        line: &str,
        head: &str,
        mut f: impl Iterator<Item = &'a str>,
    ) -> Result<(), LogError> {
        let path = self.path;
        if head != "pptrace" {
            return Err(LogError::NotALog {
                path: path.to_owned(),
                pos,
                found: quote(line.trim()),
            });
        }
        let version = f.next().unwrap_or("");
        match version.parse::<u32>() {
            Ok(1) => {}
            Ok(v) => {
                return Err(LogError::UnsupportedVersion {
                    path: path.to_owned(),
                    pos,
                    found: v,
                    supported: 1,
                })
            }
            Err(_) => {
                return Err(syntax(path, pos, "`pptrace 1`", &quote(line.trim())));
            }
        }
        if let Some(extra) = f.next() {
            return Err(syntax(
                path,
                pos,
                "end of line after `pptrace 1`",
                &quote(extra),
            ));
        }
        self.seen_magic = true;
        Ok(())
    }

    /// Takes the header line `processors P` (`f`: the fields after its head); there is
    /// one, with P >= 1.
    fn processors_line<'a>(
        &mut self,
        pos: Position,
        mut f: impl Iterator<Item = &'a str>,
    ) -> Result<(), LogError> {
        let path = self.path;
        if self.processors.is_some() {
            return Err(syntax(path, pos, "one `processors` line", "a second one"));
        }
        let value = f.next().unwrap_or("end of line");
        let p = value
            .parse::<u32>()
            .ok()
            .filter(|p| *p > 0)
            .ok_or_else(|| syntax(path, pos, "a processor count >= 1", &quote(value)))?;
        if let Some(extra) = f.next() {
            return Err(syntax(
                path,
                pos,
                "end of line after `processors P`",
                &quote(extra),
            ));
        }
        self.processors = Some(p);
        Ok(())
    }

    /// Takes any other line, which must be an event line (`head`: its time field, `f`: the
    /// fields after it) after the `processors` line: notes its thread and interns its
    /// names.
    fn event_line<'a>(
        &mut self,
        pos: Position,
        line: &str,
        head: &str,
        mut f: impl Iterator<Item = &'a str>,
    ) -> Result<(), LogError> {
        let path = self.path;
        if !head.starts_with(|c: char| c.is_ascii_digit()) {
            let expected = if self.in_events {
                "`<t_ns> <thread> <event>`"
            } else {
                "`processors P`, `event_cost_ns NS` or `<t_ns> <thread> <event>`"
            };
            return Err(syntax(path, pos, expected, &quote(head)));
        }
        if self.processors.is_none() {
            return Err(syntax(
                path,
                pos,
                "`processors P` before the first event",
                &quote(line.trim()),
            ));
        }
        self.in_events = true;
        let thread = read_thread(path, pos, f.next())?;
        self.threads.insert(thread);
        // Names only; the event itself is parsed (and its errors reported) by the
        // thread's stream.
        intern_line(head, f, &mut self.interner);
        Ok(())
    }
}

/// The most an `event_cost_ns` line may say (a second per event is no recording cost).
const MAX_EVENT_COST_NS: f64 = 1e9;

/// The value of an `event_cost_ns NS` line (the fields after its head) in picoseconds:
/// a decimal number of nanoseconds, above 0 and at most [`MAX_EVENT_COST_NS`].
fn event_cost_ps<'a>(
    path: &Path,
    pos: Position,
    mut f: impl Iterator<Item = &'a str>,
) -> Result<u64, LogError> {
    let value = f.next();
    let ns = value
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|ns| *ns > 0.0 && *ns <= MAX_EVENT_COST_NS)
        .ok_or_else(|| {
            syntax(
                path,
                pos,
                "nanoseconds per event, above 0 and at most 1e9",
                &value.map_or_else(|| "end of line".to_owned(), quote),
            )
        })?;
    if let Some(extra) = f.next() {
        return Err(syntax(
            path,
            pos,
            "end of line after `event_cost_ns NS`",
            &quote(extra),
        ));
    }
    Ok(((ns * 1000.0).round() as u64).max(1))
}

/// The thread field of an event line.
pub(super) fn read_thread(
    path: &Path,
    pos: Position,
    field: Option<&str>,
) -> Result<ThreadId, LogError> {
    let text = field.unwrap_or("end of line");
    text.parse::<u32>().map(ThreadId).map_err(|_| {
        syntax(
            path,
            pos,
            "a thread id (unsigned integer) after the time",
            &quote(text),
        )
    })
}

/// Opens a text trace whose text is `read` (from its start; `origin` gives it again to the
/// streams): checks the header, finds threads, interns names, a line at a time.
pub(crate) fn open(
    path: &Path,
    read: TextRead,
    origin: Origin,
) -> Result<(Header, Vec<String>, TextLog), LogError> {
    let mut index = Index {
        path,
        interner: Interner {
            names: HashMap::new(),
            name_list: Vec::new(),
            counters: HashMap::new(),
            counter_list: Vec::new(),
        },
        seen_magic: false,
        processors: None,
        event_cost_ps: None,
        in_events: false,
        threads: ThreadSet::default(),
    };
    let mut lines = Lines::new(read);
    // The first error; a text that is not UTF-8 is reported as such (at its first bad
    // line) before any other error, as if the whole text were checked first.
    let mut failed: Option<LogError> = None;
    while lines.advance(path)? {
        let Ok(line) = std::str::from_utf8(&lines.buf) else {
            return Err(lines.not_utf8(path));
        };
        if failed.is_none() {
            if let Err(e) = index.line(lines.line, line) {
                failed = Some(e);
            }
        }
    }
    if let Some(e) = failed {
        return Err(e);
    }
    if !index.seen_magic {
        return Err(LogError::NotALog {
            path: path.to_owned(),
            pos: Position::Line(1),
            found: "an empty file".to_owned(),
        });
    }
    let interner = index.interner;
    let header = Header {
        version: 1,
        processors: index.processors.unwrap_or(1),
        clock: "unspecified".to_owned(),
        counters: interner.counter_list,
        process: ProcessInfo::default(),
        event_cost_ps: index.event_cost_ps,
    };
    let threads: Vec<ThreadId> = index.threads.into_sorted();
    let log = TextLog {
        path: path.to_owned(),
        origin,
        names: interner.names,
        counters: interner.counters,
        counter_rules: CounterRules::new(&header.counters),
        slots: Slots::new(&threads),
        threads,
    };
    Ok((header, interner.name_list, log))
}

impl TextLog {
    /// The threads with at least one event line, in id order.
    pub(crate) fn threads(&self) -> impl Iterator<Item = ThreadId> + '_ {
        self.threads.iter().copied()
    }
}

/// [`open`] for bytes held in memory.
pub(crate) fn open_bytes(
    path: &Path,
    bytes: Vec<u8>,
) -> Result<(Header, Vec<String>, TextLog), LogError> {
    let bytes = Arc::new(bytes);
    let read: TextRead = Box::new(Cursor::new(Shared(Arc::clone(&bytes))));
    open(path, read, Origin::Bytes(bytes))
}

/// [`open`] for a file of which `head` (its first bytes) has been read from `file`.
pub(crate) fn open_file(
    path: &Path,
    head: Vec<u8>,
    file: std::fs::File,
) -> Result<(Header, Vec<String>, TextLog), LogError> {
    let rest = std::io::BufReader::with_capacity(64 << 10, file);
    let read: TextRead = Box::new(Cursor::new(head).chain(rest));
    open(path, read, Origin::File)
}
