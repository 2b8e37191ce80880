//! The merge itself: batch sources merged by event time through a loser tree, each step
//! handed to a consumer as a [`Merged`].

use pplib::log::{CompactEvent, CounterId, EventBatch, LogError};

use super::{BatchSource, LoserTree};

/// One step of the merge, given to the consumer of [`BatchMerge::run`].
#[derive(Debug)]
pub enum Merged<'a> {
    /// The next event in global time order, from thread slot `slot`, with its counter
    /// values (empty unless it is a `counters` event).
    Event {
        /// The thread slot.
        slot: usize,
        /// The event.
        event: &'a CompactEvent,
        /// Its counter values.
        values: &'a [(CounterId, u64)],
    },
    /// Thread slot `.0` has no more events (reported right after its last event).
    Ended(usize),
    /// Thread slot `.0`'s stream reported an error after its last good event; that stream
    /// ends, the merge goes on with the others unless the consumer stops it.
    Error(usize, LogError),
}

#[derive(Debug)]
struct Feed {
    batch: EventBatch,
    next: usize,
    value_at: usize,
    error: Option<LogError>,
    ended: bool,
}

/// The decoded events all the feeds of a [`BatchMerge`] hold at most, together: a merge
/// over T threads reads at most `BATCH_BUDGET / T` events of a thread at a time (but at
/// least [`MIN_BATCH`], at most [`EventBatch::CAPACITY`]), so that a log of very many
/// threads, each with many events, does not take a full batch per thread.
pub const BATCH_BUDGET: usize = 1 << 21;
/// The fewest events a merge reads of a thread at a time.
pub const MIN_BATCH: usize = 16;

/// Merges batch sources by event time.
#[derive(Debug)]
pub struct BatchMerge<S> {
    sources: Vec<S>,
    feeds: Vec<Feed>,
    tree: LoserTree,
    /// The most events read of a thread at a time (see [`BATCH_BUDGET`]).
    batch_limit: usize,
}

impl<S: BatchSource> BatchMerge<S> {
    /// A merge over `sources`; slot i is `sources[i]`.
    pub fn new(sources: Vec<S>) -> BatchMerge<S> {
        let n = sources.len();
        BatchMerge {
            sources,
            feeds: (0..n)
                .map(|_| Feed {
                    // Grows with the stream's batches (up to `EventBatch::CAPACITY`
                    // events): a log of many short threads needs little room per thread.
                    batch: EventBatch::default(),
                    next: 0,
                    value_at: 0,
                    error: None,
                    ended: false,
                })
                .collect(),
            tree: LoserTree::new(n),
            batch_limit: (BATCH_BUDGET / n.max(1)).clamp(MIN_BATCH, EventBatch::CAPACITY),
        }
    }

    /// Gives slot `slot` its next batch; returns its new key, after handing the consumer
    /// the slot's end or error if it has no more events.
    fn refill<E>(
        &mut self,
        slot: usize,
        consumer: &mut impl FnMut(Merged<'_>) -> Result<(), E>,
    ) -> Result<u128, E> {
        let feed = &mut self.feeds[slot];
        feed.next = 0;
        feed.value_at = 0;
        if let Some(e) = feed.error.take() {
            feed.ended = true;
            feed.batch = EventBatch::default();
            consumer(Merged::Error(slot, e))?;
            return Ok(LoserTree::DONE);
        }
        if feed.ended {
            feed.batch = EventBatch::default();
            return Ok(LoserTree::DONE);
        }
        let result = self.sources[slot].next_batch_up_to(&mut feed.batch, self.batch_limit);
        match (result, feed.batch.events().first()) {
            (Ok(()), Some(first)) => Ok(LoserTree::key(first.time.0, slot)),
            (Ok(()), None) => {
                feed.ended = true;
                // The thread is done: its batch's room goes back.
                feed.batch = EventBatch::default();
                consumer(Merged::Ended(slot))?;
                Ok(LoserTree::DONE)
            }
            (Err(e), Some(first)) => {
                feed.error = Some(e);
                Ok(LoserTree::key(first.time.0, slot))
            }
            (Err(e), None) => {
                feed.ended = true;
                consumer(Merged::Error(slot, e))?;
                Ok(LoserTree::DONE)
            }
        }
    }

    /// Hands every event, in global time order, and every stream's end or error to
    /// `consumer`; stops at the consumer's first `Err`.
    pub fn run<E>(
        &mut self,
        mut consumer: impl FnMut(Merged<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut keys = Vec::with_capacity(self.sources.len());
        for slot in 0..self.sources.len() {
            keys.push(self.refill(slot, &mut consumer)?);
        }
        self.tree.build(keys);
        loop {
            if self.tree.winning_key() == LoserTree::DONE {
                return Ok(());
            }
            let slot = self.tree.winner();
            let feed = &mut self.feeds[slot];
            let event = &feed.batch.events()[feed.next];
            let values = if event.code == pplib::log::EventCode::Counters {
                let n = event.arg as usize;
                let v = &feed.batch.counter_values()[feed.value_at..feed.value_at + n];
                feed.value_at += n;
                v
            } else {
                &[]
            };
            consumer(Merged::Event {
                slot,
                event,
                values,
            })?;
            feed.next += 1;
            let key = match feed.batch.events().get(feed.next) {
                Some(e) => LoserTree::key(e.time.0, slot),
                None => self.refill(slot, &mut consumer)?,
            };
            self.tree.replace_winner(key);
        }
    }
}

/// Something that hands out merged events in global time order (a [`BatchMerge`], or a
/// [`MergedStream`](super::MergedStream) fed by a merge on another thread).
pub trait MergeRun {
    /// Hands every event, in global time order, and every stream's end or error to
    /// `consumer`; stops at the consumer's first `Err`.
    fn run<E>(&mut self, consumer: impl FnMut(Merged<'_>) -> Result<(), E>) -> Result<(), E>;
}

impl<S: BatchSource> MergeRun for BatchMerge<S> {
    fn run<E>(&mut self, consumer: impl FnMut(Merged<'_>) -> Result<(), E>) -> Result<(), E> {
        BatchMerge::run(self, consumer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pplib::log::{Event, EventKind, Nanos, Position, ThreadId};

    /// A source serving fixed events in batches of `per_batch`.
    struct Fixed {
        events: Vec<Event>,
        per_batch: usize,
        error: Option<LogError>,
    }

    impl BatchSource for Fixed {
        fn next_batch(&mut self, batch: &mut EventBatch) -> Result<(), LogError> {
            batch.clear();
            let n = self.per_batch.min(self.events.len());
            for e in self.events.drain(..n) {
                batch.push(&e);
            }
            match self.error.take() {
                Some(e) if self.events.is_empty() => Err(e),
                other => {
                    self.error = other;
                    Ok(())
                }
            }
        }
    }

    fn ev(t: u64, th: u32) -> Event {
        Event {
            time: Nanos(t),
            thread: ThreadId(th),
            kind: EventKind::TaskBegin,
            pos: Position::Line(t),
        }
    }

    fn merged(sources: Vec<Fixed>) -> Vec<String> {
        let mut seen = Vec::new();
        BatchMerge::new(sources)
            .run(|m| {
                seen.push(match m {
                    Merged::Event { slot, event, .. } => format!("{slot}@{}", event.time.0),
                    Merged::Ended(s) => format!("end{s}"),
                    Merged::Error(s, _) => format!("err{s}"),
                });
                Ok::<(), ()>(())
            })
            .unwrap();
        seen
    }

    #[test]
    fn merges_by_time_and_reports_ends_after_last_event() {
        for per_batch in [1, 2, 100] {
            let a = Fixed {
                events: vec![ev(1, 0), ev(5, 0), ev(9, 0)],
                per_batch,
                error: None,
            };
            let b = Fixed {
                events: vec![ev(2, 1), ev(5, 1)],
                per_batch,
                error: None,
            };
            assert_eq!(
                merged(vec![a, b]),
                ["0@1", "1@2", "0@5", "1@5", "end1", "0@9", "end0"]
            );
        }
    }

    #[test]
    fn an_error_comes_after_the_streams_last_events() {
        let err = || LogError::Truncated {
            path: "x".into(),
            pos: Position::Offset(3),
            detail: "cut".to_owned(),
        };
        let a = Fixed {
            events: vec![ev(1, 0), ev(7, 0)],
            per_batch: 8,
            error: Some(err()),
        };
        let b = Fixed {
            events: vec![ev(2, 1), ev(3, 1), ev(8, 1)],
            per_batch: 1,
            error: None,
        };
        let c = Fixed {
            events: vec![],
            per_batch: 1,
            error: Some(err()),
        };
        assert_eq!(
            merged(vec![a, b, c]),
            ["err2", "0@1", "1@2", "1@3", "0@7", "err0", "1@8", "end1"]
        );
    }
}
