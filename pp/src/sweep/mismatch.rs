//! The error for an end event that matches no begin (shared by [`super::Sweep`] and the
//! lanes of the fast pipeline, so both word it the same).

use pplib::log::{EventCode, NameId, Position, ThreadId};

use super::SweepError;
use crate::stack::{Construct, Mismatch, StackOp};

/// The error for an end event (`code`, `arg`, read at `pos` on `thread`) that does not
/// match the innermost open construct of its thread (`names`: the string table).
pub fn mismatch_error(
    names: &[String],
    thread: ThreadId,
    code: EventCode,
    arg: u32,
    pos: Position,
    m: Mismatch,
) -> SweepError {
    let name = |id: NameId| {
        crate::error::shorten(
            names
                .get(id.0 as usize)
                .map_or("<undefined>", String::as_str),
        )
    };
    let found = match code {
        EventCode::FragEnd => format!("frag_end {}", name(NameId(arg))),
        EventCode::TaskEndWasted => "task_end wasted".to_owned(),
        code => StackOp::of_code(code, arg)
            .popped()
            .map_or("?", Construct::end_event)
            .to_owned(),
    };
    let expected = match m {
        Mismatch::NothingOpen => "a begin event (nothing is open on this thread)".to_owned(),
        Mismatch::Innermost(f) => {
            let (end, begin) = match f.construct {
                Construct::Frag(n) => (
                    format!("frag_end {}", name(n)),
                    format!("frag_begin {}", name(n)),
                ),
                Construct::Wait(n) => ("wait_end".to_owned(), format!("wait_begin {}", name(n))),
                c => (c.end_event().to_owned(), c.begin_event().to_owned()),
            };
            format!("{end} (for {begin} at {})", f.pos)
        }
    };
    SweepError {
        pos,
        thread,
        found,
        expected,
    }
}
