//! The time-ordered k-way merge of per-thread event streams.
//!
//! Each thread's stream is already in that thread's time order; the merge keeps one head
//! event per stream and a binary heap of `(time, slot)` keys, so producing the next event
//! costs O(log T) for T threads and memory is one event per thread. Ties in time are broken
//! by slot (thread order); events of one thread keep their own order.

use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::mpsc::{sync_channel, Receiver};

use pplib::log::{Event, LogError};

/// One step of the merge.
#[derive(Debug)]
pub enum Merged {
    /// The next event in global time order, from thread slot `.0`.
    Event(usize, Event),
    /// Thread slot `.0` has no more events (reported right after its last event).
    Ended(usize),
    /// Thread slot `.0`'s stream reported an error after its last good event; that stream
    /// ends, the merge goes on with the others if asked again. (Boxed: errors are rare and
    /// a small `Merged` is cheaper to pass along.)
    Error(usize, Box<LogError>),
}

/// Merges streams (anything yielding `Result<Event, LogError>`) by event time.
#[derive(Debug)]
pub struct EventMerge<S> {
    streams: Vec<S>,
    heads: Vec<Option<Event>>,
    heap: BinaryHeap<Reverse<(u64, usize)>>,
    queue: VecDeque<Merged>,
    primed: bool,
}

impl<S: Iterator<Item = Result<Event, LogError>>> EventMerge<S> {
    /// A merge over `streams`; slot i is `streams[i]`.
    pub fn new(streams: Vec<S>) -> EventMerge<S> {
        let n = streams.len();
        EventMerge {
            streams,
            heads: (0..n).map(|_| None).collect(),
            heap: BinaryHeap::with_capacity(n),
            queue: VecDeque::new(),
            primed: false,
        }
    }

    fn prime(&mut self) {
        self.primed = true;
        for slot in 0..self.streams.len() {
            match self.streams[slot].next() {
                Some(Ok(ev)) => {
                    self.heap.push(Reverse((ev.time.0, slot)));
                    self.heads[slot] = Some(ev);
                }
                Some(Err(e)) => self.queue.push_back(Merged::Error(slot, Box::new(e))),
                None => self.queue.push_back(Merged::Ended(slot)),
            }
        }
    }

    /// The next step, or `None` when every stream has ended.
    #[inline]
    pub fn next_item(&mut self) -> Option<Merged> {
        if !self.primed {
            self.prime();
        }
        if let Some(m) = self.queue.pop_front() {
            return Some(m);
        }
        let mut top = self.heap.peek_mut()?;
        let Reverse((_, slot)) = *top;
        let ev = self.heads[slot]
            .take()
            .expect("a head event per heap entry");
        match self.streams[slot].next() {
            Some(Ok(next)) => {
                *top = Reverse((next.time.0, slot));
                self.heads[slot] = Some(next);
            }
            Some(Err(e)) => {
                PeekMut::pop(top);
                self.queue.push_back(Merged::Error(slot, Box::new(e)));
            }
            None => {
                PeekMut::pop(top);
                self.queue.push_back(Merged::Ended(slot));
            }
        }
        Some(Merged::Event(slot, ev))
    }
}

/// Events decoded per batch by [`spawn_decoders`].
pub const BATCH: usize = 1024;

/// Batches in flight per stream (bounds memory: `QUEUE × BATCH` events per thread).
const QUEUE: usize = 4;

/// Decoded events in flight; errors boxed to keep items small.
type Batch = Vec<Result<Event, Box<LogError>>>;

/// A thread's stream decoded ahead by its own decoder thread and received in batches
/// through a bounded channel (see [`spawn_decoders`]).
#[derive(Debug)]
pub struct ChannelStream {
    rx: Receiver<Batch>,
    batch: std::vec::IntoIter<Result<Event, Box<LogError>>>,
}

impl Iterator for ChannelStream {
    type Item = Result<Event, LogError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let item = match self.batch.next() {
            Some(item) => item,
            None => {
                self.batch = self.rx.recv().ok()?.into_iter();
                self.batch.next()?
            }
        };
        Some(item.map_err(|e| *e))
    }
}

/// Decodes every stream on its own scoped thread, `BATCH` events at a time, at most
/// `QUEUE` batches ahead of the merge: the decoding of T threads' streams runs in parallel
/// with the sweep, and memory stays bounded. A decoder stops after an error (the error is
/// its stream's last item) or when its [`ChannelStream`] is dropped.
pub fn spawn_decoders<'scope, S>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    streams: Vec<S>,
) -> Vec<ChannelStream>
where
    S: Iterator<Item = Result<Event, LogError>> + Send + 'scope,
{
    streams
        .into_iter()
        .map(|mut stream| {
            let (tx, rx) = sync_channel::<Batch>(QUEUE);
            scope.spawn(move || loop {
                let mut batch = Vec::with_capacity(BATCH);
                let mut end = false;
                while batch.len() < BATCH {
                    match stream.next() {
                        Some(Ok(ev)) => batch.push(Ok(ev)),
                        Some(Err(e)) => {
                            batch.push(Err(Box::new(e)));
                            end = true;
                            break;
                        }
                        None => {
                            end = true;
                            break;
                        }
                    }
                }
                if !batch.is_empty() && tx.send(batch).is_err() {
                    return;
                }
                if end {
                    return;
                }
            });
            ChannelStream {
                rx,
                batch: Vec::new().into_iter(),
            }
        })
        .collect()
}

/// The merge running on its own scoped thread, its output received in batches: with
/// [`spawn_decoders`] this makes a pipeline (decoders → merge → sweep) whose stages run on
/// different cores.
#[derive(Debug)]
pub struct MergedStream {
    rx: Receiver<Vec<Merged>>,
    batch: std::vec::IntoIter<Merged>,
}

impl MergedStream {
    /// The next step of the merge, or `None` when every stream has ended.
    #[inline]
    pub fn next_item(&mut self) -> Option<Merged> {
        if let Some(m) = self.batch.next() {
            return Some(m);
        }
        self.batch = self.rx.recv().ok()?.into_iter();
        self.batch.next()
    }
}

/// Runs `merge` on a scoped thread; the merge stops early when the [`MergedStream`] is
/// dropped.
pub fn spawn_merger<'scope, S>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    mut merge: EventMerge<S>,
) -> MergedStream
where
    S: Iterator<Item = Result<Event, LogError>> + Send + 'scope,
{
    let (tx, rx) = sync_channel::<Vec<Merged>>(QUEUE);
    scope.spawn(move || loop {
        let mut batch = Vec::with_capacity(BATCH);
        let mut end = false;
        while batch.len() < BATCH {
            match merge.next_item() {
                Some(m) => batch.push(m),
                None => {
                    end = true;
                    break;
                }
            }
        }
        if !batch.is_empty() && tx.send(batch).is_err() {
            return;
        }
        if end {
            return;
        }
    });
    MergedStream {
        rx,
        batch: Vec::new().into_iter(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pplib::log::{EventKind, Nanos, Position, ThreadId};

    fn ev(t: u64, th: u32) -> Result<Event, LogError> {
        Ok(Event {
            time: Nanos(t),
            thread: ThreadId(th),
            kind: EventKind::TaskBegin,
            pos: Position::Line(t),
        })
    }

    #[test]
    fn merges_by_time_and_reports_ends_after_last_event() {
        let a = vec![ev(1, 0), ev(5, 0), ev(9, 0)];
        let b = vec![ev(2, 1), ev(5, 1)];
        let mut m = EventMerge::new(vec![a.into_iter(), b.into_iter()]);
        let mut seen = Vec::new();
        while let Some(item) = m.next_item() {
            seen.push(match item {
                Merged::Event(s, e) => format!("{s}@{}", e.time.0),
                Merged::Ended(s) => format!("end{s}"),
                Merged::Error(s, _) => format!("err{s}"),
            });
        }
        assert_eq!(seen, ["0@1", "1@2", "0@5", "1@5", "end1", "0@9", "end0"]);
    }
}
