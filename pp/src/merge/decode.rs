//! Decoding ahead: each thread's stream decoded on a thread of its own, a bounded number of
//! batches ahead of the merge.

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};

use pplib::log::{EventBatch, LogError};

use super::{BatchSource, QUEUE};

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
