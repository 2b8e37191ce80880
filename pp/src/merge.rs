//! The time-ordered k-way merge of per-thread event streams.
//!
//! Each thread's stream is already in that thread's time order. The merge reads each
//! stream in batches ([`EventBatch`], at most [`EventBatch::CAPACITY`] compact events) and
//! keeps a loser tree ([`LoserTree`]) over the head events keyed on `(time, slot)`, so
//! producing the next event costs O(log T) comparisons for T threads, and memory is a
//! bounded number of batches per thread, independent of the length of the log. Ties in
//! time are broken by slot (thread order); events of one thread keep their own order.
//!
//! The merge can run on a thread of its own ([`spawn_merger`]), handing runs of merged
//! events to the sweep, and the streams can be decoded ahead on threads of their own
//! ([`spawn_decoders`]). Each stage runs at most [`QUEUE`] batches ahead of the next, and
//! emptied batches go back to their producer for reuse, so memory stays bounded.

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};

use pplib::log::{CompactEvent, CounterId, EventBatch, LogError};

pub use crate::source::BatchSource;

/// Batches in flight per decoded stream (bounds memory: about `QUEUE + 2` batches of
/// [`EventBatch::CAPACITY`] events per thread).
pub const QUEUE: usize = 4;

/// A filled batch and how the stream went on after it.
#[derive(Debug)]
struct Decoded {
    batch: EventBatch,
    result: Result<(), LogError>,
}

/// A thread's stream decoded ahead by its own decoder thread (see [`spawn_decoders`]).
#[derive(Debug)]
pub struct DecodedStream {
    rx: Receiver<Decoded>,
    free: Sender<EventBatch>,
}

impl BatchSource for DecodedStream {
    fn next_batch(&mut self, batch: &mut EventBatch) -> Result<(), LogError> {
        match self.rx.recv() {
            Ok(mut d) => {
                std::mem::swap(batch, &mut d.batch);
                // The decoder may be gone already (it stops after its last batch).
                let _ = self.free.send(d.batch);
                d.result
            }
            Err(_) => {
                batch.clear();
                Ok(())
            }
        }
    }
}

/// Decodes every stream on its own scoped thread, at most [`QUEUE`] batches ahead of the
/// merge: decoding runs in parallel with the merge and the sweep, and memory stays
/// bounded. A decoder stops after its stream's end or error, or when its
/// [`DecodedStream`] is dropped.
pub fn spawn_decoders<'scope, S>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    streams: Vec<S>,
) -> Vec<DecodedStream>
where
    S: BatchSource + Send + 'scope,
{
    streams
        .into_iter()
        .map(|mut stream| {
            let (tx, rx) = sync_channel::<Decoded>(QUEUE);
            let (free, free_rx) = channel::<EventBatch>();
            scope.spawn(move || loop {
                let mut batch = free_rx.try_recv().unwrap_or_else(|_| EventBatch::new());
                let result = stream.next_batch(&mut batch);
                let end = result.is_err() || batch.is_empty();
                if tx.send(Decoded { batch, result }).is_err() || end {
                    return;
                }
            });
            DecodedStream { rx, free }
        })
        .collect()
}

/// A tournament (loser) tree over `n` slots keyed on `(time, slot)`: the smallest key
/// wins; changing the winner's key and replaying costs ⌈log2 n⌉ comparisons.
#[derive(Debug, Clone)]
pub struct LoserTree {
    /// Leaves, rounded up to a power of two.
    k: usize,
    /// `nodes[0]`: the winner; `nodes[1..k]`: the loser at each internal node.
    nodes: Vec<u32>,
    /// Key per leaf: `time << 64 | slot`, or [`LoserTree::DONE`].
    keys: Vec<u128>,
}

impl LoserTree {
    /// The key of a slot with nothing left (loses to every other key).
    pub const DONE: u128 = u128::MAX;

    /// A tree over `n` slots, all [`LoserTree::DONE`].
    pub fn new(n: usize) -> LoserTree {
        let k = n.max(1).next_power_of_two();
        LoserTree {
            k,
            nodes: vec![0; k],
            keys: vec![LoserTree::DONE; k],
        }
    }

    /// The key of an event at `time` of slot `slot`.
    #[inline]
    pub fn key(time: u64, slot: usize) -> u128 {
        (u128::from(time) << 64) | slot as u128
    }

    /// Sets every slot's key (at the start), then plays the whole tournament.
    pub fn build(&mut self, keys: impl IntoIterator<Item = u128>) {
        for (leaf, key) in self.keys.iter_mut().zip(keys) {
            *leaf = key;
        }
        let k = self.k;
        let mut win = vec![0u32; 2 * k];
        for (i, w) in win[k..].iter_mut().enumerate() {
            *w = i as u32;
        }
        for node in (1..k).rev() {
            let (a, b) = (win[2 * node], win[2 * node + 1]);
            let (w, l) = if self.keys[a as usize] <= self.keys[b as usize] {
                (a, b)
            } else {
                (b, a)
            };
            win[node] = w;
            self.nodes[node] = l;
        }
        self.nodes[0] = win[1];
    }

    /// The slot with the smallest key.
    #[inline]
    pub fn winner(&self) -> usize {
        self.nodes[0] as usize
    }

    /// The smallest key.
    #[inline]
    pub fn winning_key(&self) -> u128 {
        self.keys[self.nodes[0] as usize]
    }

    /// Changes the winner's key and finds the new winner.
    #[inline]
    pub fn replace_winner(&mut self, key: u128) {
        let mut w = self.nodes[0];
        let mut kw = key;
        self.keys[w as usize] = key;
        let mut node = (w as usize + self.k) >> 1;
        // Which stream comes next is data (threads interleave at random), so the
        // comparisons are unpredictable: select without branches.
        while node > 0 {
            let l = self.nodes[node];
            let kl = self.keys[l as usize];
            let lose = kl < kw;
            self.nodes[node] = select(lose, w, l);
            w = select(lose, l, w);
            kw = if lose { kl } else { kw };
            node >>= 1;
        }
        self.nodes[0] = w;
    }
}

/// `if c { a } else { b }` computed without a branch.
#[inline(always)]
fn select(c: bool, a: u32, b: u32) -> u32 {
    let mask = (c as u32).wrapping_neg();
    (a & mask) | (b & !mask)
}

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
/// [`MergedStream`] fed by a merge on another thread).
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

/// Merged events per batch sent by [`spawn_merger`].
pub const MERGED_BATCH: usize = 2048;

/// A stream's end or error, to be given before the event at `at` of a [`MergedBatch`].
#[derive(Debug)]
enum Notice {
    Ended(usize),
    Error(usize, LogError),
}

/// A run of merged events, as sent from the merge thread to the sweep.
#[derive(Debug, Default)]
struct MergedBatch {
    /// (slot, event) in global time order.
    events: Vec<(u32, CompactEvent)>,
    /// The counter values of the `counters` events, in order.
    values: Vec<(CounterId, u64)>,
    /// Ends and errors with the index of the event they come before.
    notices: Vec<(usize, Notice)>,
}

impl MergedBatch {
    fn clear(&mut self) {
        self.events.clear();
        self.values.clear();
        self.notices.clear();
    }
}

/// The output of a merge running on its own thread (see [`spawn_merger`]).
#[derive(Debug)]
pub struct MergedStream {
    rx: Receiver<MergedBatch>,
    free: Sender<MergedBatch>,
}

impl MergeRun for MergedStream {
    fn run<E>(&mut self, mut consumer: impl FnMut(Merged<'_>) -> Result<(), E>) -> Result<(), E> {
        while let Ok(mut batch) = self.rx.recv() {
            let mut notices = std::mem::take(&mut batch.notices).into_iter();
            let mut pending = notices.next();
            // The index of the event the next notice comes before (none: past the end).
            let mut notice_at = pending.as_ref().map_or(usize::MAX, |(at, _)| *at);
            let mut value_at = 0;
            for (i, (slot, event)) in batch.events.iter().enumerate() {
                while notice_at == i {
                    let (_, n) = pending.take().expect("a notice at notice_at");
                    consumer(notice(n))?;
                    pending = notices.next();
                    notice_at = pending.as_ref().map_or(usize::MAX, |(at, _)| *at);
                }
                let values = if event.code == pplib::log::EventCode::Counters {
                    let n = event.arg as usize;
                    value_at += n;
                    &batch.values[value_at - n..value_at]
                } else {
                    &[]
                };
                consumer(Merged::Event {
                    slot: *slot as usize,
                    event,
                    values,
                })?;
            }
            for (_, n) in pending.into_iter().chain(notices) {
                consumer(notice(n))?;
            }
            batch.clear();
            // The merge thread may be gone already (after its last batch).
            let _ = self.free.send(batch);
        }
        Ok(())
    }
}

fn notice<'a>(n: Notice) -> Merged<'a> {
    match n {
        Notice::Ended(slot) => Merged::Ended(slot),
        Notice::Error(slot, e) => Merged::Error(slot, e),
    }
}

/// Runs `merge` on a scoped thread, sending its output in batches of [`MERGED_BATCH`]
/// events (at most [`QUEUE`] ahead): with [`spawn_decoders`] this makes a pipeline
/// (decoders → merge → sweep) whose stages run on different cores. The merge stops early
/// when the [`MergedStream`] is dropped.
pub fn spawn_merger<'scope, S>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    mut merge: BatchMerge<S>,
) -> MergedStream
where
    S: BatchSource + Send + 'scope,
{
    let (tx, rx) = sync_channel::<MergedBatch>(QUEUE);
    let (free, free_rx) = channel::<MergedBatch>();
    scope.spawn(move || {
        let new_batch = || MergedBatch {
            events: Vec::with_capacity(MERGED_BATCH),
            ..MergedBatch::default()
        };
        let mut batch = new_batch();
        let sent: Result<(), std::sync::mpsc::SendError<MergedBatch>> = merge.run(|m| {
            match m {
                Merged::Event {
                    slot,
                    event,
                    values,
                } => {
                    batch.events.push((slot as u32, *event));
                    batch.values.extend_from_slice(values);
                }
                Merged::Ended(slot) => batch
                    .notices
                    .push((batch.events.len(), Notice::Ended(slot))),
                Merged::Error(slot, e) => batch
                    .notices
                    .push((batch.events.len(), Notice::Error(slot, e))),
            }
            if batch.events.len() >= MERGED_BATCH {
                let next = free_rx.try_recv().unwrap_or_else(|_| new_batch());
                tx.send(std::mem::replace(&mut batch, next))?;
            }
            Ok(())
        });
        if sent.is_ok() && (!batch.events.is_empty() || !batch.notices.is_empty()) {
            let _ = tx.send(batch);
        }
    });
    MergedStream { rx, free }
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

    #[test]
    fn loser_tree_orders_many_slots() {
        for n in 1..=9 {
            let mut t = LoserTree::new(n);
            // Slot s holds times s, s + n, s + 2n, ... (3 each), given in reverse slot order.
            let mut next: Vec<u64> = (0..n as u64).collect();
            t.build((0..n).map(|s| LoserTree::key(next[s], s)));
            let mut out = Vec::new();
            while t.winning_key() != LoserTree::DONE {
                let s = t.winner();
                out.push(next[s]);
                next[s] += n as u64;
                let key = if next[s] < 3 * n as u64 {
                    LoserTree::key(next[s], s)
                } else {
                    LoserTree::DONE
                };
                t.replace_winner(key);
            }
            assert_eq!(out, (0..3 * n as u64).collect::<Vec<_>>(), "n = {n}");
        }
    }
}
