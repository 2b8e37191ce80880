//! One event line of a `.pptrace` text trace, after its time and thread fields, parsed
//! into an [`EventKind`] (the grammar is in docs/event-logs.md).

use std::path::Path;

use super::error::{quote, LogError};
use super::event::{CounterId, EventKind, Nanos, Position};
use super::text::{syntax, Names};

/// Parses the fields of one event line after its thread field.
pub(super) fn parse_event<'a>(
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
    if event == "counters" {
        let values = parse_counter_values(path, pos, rest, names)?;
        return Ok((Nanos(time), EventKind::Counters(values)));
    }
    let kind = parse_kind(path, pos, event, &mut rest, names)?;
    let kind = parse_line_end(path, pos, event, kind, rest)?;
    Ok((Nanos(time), kind))
}

/// The event named `event` (any but `counters`) with its argument, if it takes one (a
/// fragment name or a wait kind, taken from `rest`).
fn parse_kind<'a>(
    path: &Path,
    pos: Position,
    event: &str,
    rest: &mut impl Iterator<Item = &'a str>,
    names: &mut dyn Names,
) -> Result<EventKind, LogError> {
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
        other => {
            return Err(LogError::UnknownEvent {
                path: path.to_owned(),
                pos,
                found: quote(other),
            })
        }
    };
    Ok(kind)
}

/// The values of a `counters` event: every remaining field, each `name=value` (at least
/// one).
fn parse_counter_values<'a>(
    path: &Path,
    pos: Position,
    rest: impl Iterator<Item = &'a str>,
    names: &mut dyn Names,
) -> Result<Vec<(CounterId, u64)>, LogError> {
    let mut values = Vec::new();
    for field in rest {
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
    Ok(values)
}

/// Checks what follows the event `kind` (named `event`) on its line: nothing, or for
/// `task_end` the word `wasted` (which makes it a wasted task's end).
fn parse_line_end<'a>(
    path: &Path,
    pos: Position,
    event: &str,
    kind: EventKind,
    mut rest: impl Iterator<Item = &'a str>,
) -> Result<EventKind, LogError> {
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
    Ok(kind)
}
