//! The merge on a thread of its own, handing runs of merged events to the sweep.

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};

use pplib::log::{CompactEvent, CounterId, LogError};

use super::{BatchMerge, BatchSource, MergeRun, Merged, QUEUE};

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
/// events (at most [`QUEUE`] ahead): with [`spawn_decoders`](super::spawn_decoders) this
/// makes a pipeline (decoders → merge → sweep) whose stages run on different cores. The
/// merge stops early when the [`MergedStream`] is dropped.
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
