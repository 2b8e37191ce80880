//! The `.pptrace` text trace (docs/event-logs.md): parsing and per-thread streams.
//!
//! ```text
//! pptrace 1                 # first non-comment line: format and version
//! processors 4              # p (required before the first event)
//! <t_ns> <thread> <event> [args...]
//! ```
//!
//! `#` starts a comment anywhere on a line; fields are separated by whitespace. Opening a
//! trace checks the header, finds every thread and interns fragment names, wait kinds and
//! counter names (in order of first appearance). A line whose thread cannot be read is an
//! error of [`crate::log::LogReader::open`]; any other bad line is reported by its thread's
//! stream when the stream reaches it, so the events before it stay usable.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::counter_check::{counter_error, CounterRules, CounterTrack};
use super::error::{quote, LogError};
use super::event::{CounterId, Event, EventKind, NameId, Nanos, Position, ThreadId};
use super::header::{Header, ProcessInfo};

/// The shared, read-only state of an opened text trace.
#[derive(Debug)]
pub(crate) struct TextLog {
    path: PathBuf,
    text: Arc<str>,
    names: HashMap<String, NameId>,
    counters: HashMap<String, CounterId>,
    /// Every event line, in file order, linked per thread (see [`EventLine::next`]): a
    /// thread's stream visits its own lines only, so reading all streams costs one pass
    /// over the file whatever the number of threads.
    lines: Vec<EventLine>,
    /// Per thread: the index in `lines` of its first event line.
    first: BTreeMap<ThreadId, usize>,
    counter_rules: Arc<CounterRules>,
}

/// Where an event line is, and the next line of the same thread.
#[derive(Debug, Clone, Copy)]
struct EventLine {
    /// Byte offset of the line's start.
    offset: usize,
    /// 1-based line number.
    line: u64,
    /// Index in [`TextLog::lines`] of the thread's next event line ([`EventLine::LAST`]:
    /// none).
    next: usize,
}

impl EventLine {
    const LAST: usize = usize::MAX;
}

/// Lines of `text` from byte `offset` on: (line start offset, line text without newline).
fn lines_from(text: &str, offset: usize) -> impl Iterator<Item = (usize, &str)> {
    let rest = &text[offset..];
    rest.split_inclusive('\n').scan(offset, |at, line| {
        let start = *at;
        *at += line.len();
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        Some((start, line))
    })
}

/// The whitespace-separated fields of a line, comment removed.
fn fields(line: &str) -> impl Iterator<Item = &str> {
    let content = match line.find('#') {
        Some(i) => &line[..i],
        None => line,
    };
    content.split_whitespace()
}

/// Where names and counter names get their ids while parsing.
trait Names {
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
struct Lookup<'a>(&'a TextLog);

impl Names for Lookup<'_> {
    fn name(&mut self, text: &str) -> Option<NameId> {
        self.0.names.get(text).copied()
    }
    fn counter(&mut self, text: &str) -> Option<CounterId> {
        self.0.counters.get(text).copied()
    }
}

/// A syntax error about `pos`.
fn syntax(path: &Path, pos: Position, expected: &str, found: &str) -> LogError {
    LogError::Syntax {
        path: path.to_owned(),
        pos,
        expected: expected.to_owned(),
        found: found.to_owned(),
    }
}

/// Parses the fields of one event line after its thread field.
fn parse_event<'a>(
    path: &Path,
    pos: Position,
    time: &str,
    mut rest: impl Iterator<Item = &'a str>,
    names: &mut dyn Names,
) -> Result<(Nanos, EventKind), LogError> {
    let time = time.parse::<u64>().map_err(|_| {
        syntax(
            path,
            pos,
            "a time in nanoseconds (unsigned integer)",
            &quote(time),
        )
    })?;
    let Some(event) = rest.next() else {
        return Err(syntax(
            path,
            pos,
            "an event after the thread",
            "end of line",
        ));
    };
    let mut arg = |what: &str| {
        rest.next()
            .ok_or_else(|| syntax(path, pos, &format!("{what} after `{event}`"), "end of line"))
    };
    let kind = match event {
        "session_begin" => EventKind::SessionBegin,
        "session_end" => EventKind::SessionEnd,
        "par_begin" => EventKind::ParBegin,
        "par_end" => EventKind::ParEnd,
        "task_begin" => EventKind::TaskBegin,
        "wait_end" => EventKind::WaitEnd,
        "task_end" => EventKind::TaskEnd { wasted: false },
        "frag_begin" | "frag_end" | "wait_begin" => {
            let what = if event == "wait_begin" {
                "a wait kind"
            } else {
                "a fragment name"
            };
            let text = arg(what)?;
            let id = names
                .name(text)
                .ok_or_else(|| syntax(path, pos, "a known name", &quote(text)))?;
            match event {
                "frag_begin" => EventKind::FragBegin(id),
                "frag_end" => EventKind::FragEnd(id),
                _ => EventKind::WaitBegin(id),
            }
        }
        "counters" => {
            let mut values = Vec::new();
            for field in rest.by_ref() {
                let Some((name, value)) = field.split_once('=') else {
                    return Err(syntax(path, pos, "`name=value`", &quote(field)));
                };
                let value = value.parse::<u64>().map_err(|_| {
                    syntax(
                        path,
                        pos,
                        "an unsigned integer counter value",
                        &quote(field),
                    )
                })?;
                if name.is_empty() {
                    return Err(syntax(
                        path,
                        pos,
                        "a counter name before `=`",
                        &quote(field),
                    ));
                }
                let id = names
                    .counter(name)
                    .ok_or_else(|| syntax(path, pos, "at most 65536 counters", &quote(name)))?;
                values.push((id, value));
            }
            if values.is_empty() {
                return Err(syntax(
                    path,
                    pos,
                    "at least one `name=value` after `counters`",
                    "end of line",
                ));
            }
            return Ok((Nanos(time), EventKind::Counters(values)));
        }
        other => {
            return Err(LogError::UnknownEvent {
                path: path.to_owned(),
                pos,
                found: quote(other),
            })
        }
    };
    let kind = match (kind, rest.next()) {
        (EventKind::TaskEnd { .. }, Some("wasted")) => EventKind::TaskEnd { wasted: true },
        (EventKind::TaskEnd { .. }, Some(extra)) => {
            return Err(syntax(
                path,
                pos,
                "`wasted` or end of line after `task_end`",
                &quote(extra),
            ))
        }
        (kind, None) => kind,
        (_, Some(extra)) => {
            return Err(syntax(
                path,
                pos,
                &format!("end of line after `{event}`"),
                &quote(extra),
            ))
        }
    };
    if let Some(extra) = rest.next() {
        return Err(syntax(path, pos, "end of line", &quote(extra)));
    }
    Ok((Nanos(time), kind))
}

/// True if `text` starts like a text trace (first non-comment line begins with `pptrace`).
pub(crate) fn looks_like_text(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(&bytes[..bytes.len().min(4096)])
        .or_else(|e| std::str::from_utf8(&bytes[..e.valid_up_to()]))
    else {
        return false;
    };
    for (_, line) in lines_from(text, 0) {
        if let Some(first) = fields(line).next() {
            return first == "pptrace";
        }
    }
    false
}

/// Opens a text trace: checks the header, finds threads, interns names.
pub(crate) fn open(
    path: &Path,
    bytes: Vec<u8>,
) -> Result<(Header, Vec<String>, TextLog), LogError> {
    let text: Arc<str> = match String::from_utf8(bytes) {
        Ok(text) => Arc::from(text),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|b| **b == b'\n').count() as u64 + 1;
            return Err(syntax(
                path,
                Position::Line(line),
                "UTF-8 text",
                "a byte sequence that is not UTF-8",
            ));
        }
    };
    let mut interner = Interner {
        names: HashMap::new(),
        name_list: Vec::new(),
        counters: HashMap::new(),
        counter_list: Vec::new(),
    };
    let mut seen_magic = false;
    let mut processors: Option<u32> = None;
    let mut in_events = false;
    let mut lines: Vec<EventLine> = Vec::new();
    // Per thread: its first and (so far) last event line.
    let mut ends: BTreeMap<ThreadId, (usize, usize)> = BTreeMap::new();
    for (index, (offset, line)) in lines_from(&text, 0).enumerate() {
        let line_no = index as u64 + 1;
        let pos = Position::Line(line_no);
        let mut f = fields(line);
        let Some(head) = f.next() else { continue };
        if !seen_magic {
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
            seen_magic = true;
            continue;
        }
        if head == "processors" && !in_events {
            if processors.is_some() {
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
            processors = Some(p);
            continue;
        }
        if !head.starts_with(|c: char| c.is_ascii_digit()) {
            let expected = if in_events {
                "`<t_ns> <thread> <event>`"
            } else {
                "`processors P` or `<t_ns> <thread> <event>`"
            };
            return Err(syntax(path, pos, expected, &quote(head)));
        }
        if processors.is_none() {
            return Err(syntax(
                path,
                pos,
                "`processors P` before the first event",
                &quote(line.trim()),
            ));
        }
        in_events = true;
        let thread_text = f.next().unwrap_or("end of line");
        let thread = thread_text.parse::<u32>().map(ThreadId).map_err(|_| {
            syntax(
                path,
                pos,
                "a thread id (unsigned integer) after the time",
                &quote(thread_text),
            )
        })?;
        let at = lines.len();
        lines.push(EventLine {
            offset,
            line: line_no,
            next: EventLine::LAST,
        });
        match ends.get_mut(&thread) {
            Some((_, last)) => {
                lines[*last].next = at;
                *last = at;
            }
            None => {
                ends.insert(thread, (at, at));
            }
        }
        // Intern names; errors are reported by the thread's stream.
        let _ = parse_event(path, pos, head, f, &mut interner);
    }
    if !seen_magic {
        return Err(LogError::NotALog {
            path: path.to_owned(),
            pos: Position::Line(1),
            found: "an empty file".to_owned(),
        });
    }
    let header = Header {
        version: 1,
        processors: processors.unwrap_or(1),
        clock: "unspecified".to_owned(),
        counters: interner.counter_list,
        process: ProcessInfo::default(),
    };
    let log = TextLog {
        path: path.to_owned(),
        text,
        names: interner.names,
        counters: interner.counters,
        counter_rules: CounterRules::new(&header.counters),
        lines,
        first: ends.into_iter().map(|(t, (first, _))| (t, first)).collect(),
    };
    Ok((header, interner.name_list, log))
}

impl TextLog {
    /// The threads with at least one event line, in id order.
    pub(crate) fn threads(&self) -> impl Iterator<Item = ThreadId> + '_ {
        self.first.keys().copied()
    }
}

/// The events of one thread of a text trace.
#[derive(Debug)]
pub(crate) struct TextStream {
    log: Arc<TextLog>,
    thread: ThreadId,
    /// Index in [`TextLog::lines`] of the thread's next event line.
    next: usize,
    last: Option<Nanos>,
    counters: CounterTrack,
}

impl TextStream {
    pub(crate) fn new(log: Arc<TextLog>, thread: ThreadId) -> TextStream {
        let next = log.first.get(&thread).copied().unwrap_or(EventLine::LAST);
        TextStream {
            counters: CounterTrack::new(Arc::clone(&log.counter_rules)),
            log,
            thread,
            next,
            last: None,
        }
    }

    /// The next event of the thread; `None` at the end of the file.
    pub(crate) fn next_event(&mut self) -> Option<Result<Event, LogError>> {
        let log = Arc::clone(&self.log);
        let text: &str = &log.text;
        while let Some(at) = log.lines.get(self.next) {
            self.next = at.next;
            let line_no = at.line;
            let rest = &text[at.offset..];
            let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
            let line = line.strip_suffix('\r').unwrap_or(line);
            let mut f = fields(line);
            let Some(time) = f.next() else { continue };
            // The thread field was read when the trace was opened.
            let _ = f.next();
            let pos = Position::Line(line_no);
            let result = parse_event(&log.path, pos, time, f, &mut Lookup(&log));
            let (time, kind) = match result {
                Ok(ok) => ok,
                Err(e) => return Some(Err(e)),
            };
            if let Some(previous) = self.last {
                if time < previous {
                    return Some(Err(LogError::TimeBackwards {
                        path: log.path.clone(),
                        pos,
                        thread: self.thread,
                        time,
                        previous,
                    }));
                }
            }
            if let EventKind::Counters(values) = &kind {
                if let Err(detail) = self.counters.sample(values, time.0) {
                    return Some(Err(counter_error(
                        &log.path,
                        pos,
                        self.thread,
                        time,
                        detail,
                    )));
                }
            }
            self.last = Some(time);
            return Some(Ok(Event {
                time,
                thread: self.thread,
                kind,
                pos,
            }));
        }
        None
    }
}
