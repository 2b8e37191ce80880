//! Where the merges get a thread's events from: [`BatchSource`], a thread's stream read
//! in batches ([`crate::merge`]) or decoded straight into a sink ([`crate::lane`]).

use pplib::log::{EventBatch, EventSink, LogError, ThreadStream};

/// Where a merge gets a thread's events from.
pub trait BatchSource {
    /// Replaces `batch`'s contents with the thread's next events; an empty batch at the
    /// end of the stream; `Err` (the stream's final error) after the events in `batch`.
    fn next_batch(&mut self, batch: &mut EventBatch) -> Result<(), LogError>;

    /// [`BatchSource::next_batch`] with at most `limit` (> 0) events, for merges over so
    /// many threads that full batches would take too much memory. The default gives a
    /// full batch.
    fn next_batch_up_to(&mut self, batch: &mut EventBatch, limit: usize) -> Result<(), LogError> {
        let _ = limit;
        self.next_batch(batch)
    }

    /// Hands the thread's next events, at least one unless the stream has ended, to `sink`
    /// (see [`ThreadStream::next_into`]), stopping after an event for which it returns
    /// `false`; returns how many it took (0: the end). `Err`: the stream's final error,
    /// after the events handed over. `batch` is room a source may decode into first (the
    /// default does: [`BatchSource::next_batch`], then each event).
    fn next_into<K: EventSink>(
        &mut self,
        sink: &mut K,
        batch: &mut EventBatch,
    ) -> Result<usize, LogError> {
        let result = self.next_batch(batch);
        let mut n = 0;
        for (e, values) in batch.iter() {
            n += 1;
            if !sink.event(*e, values) {
                return Ok(n);
            }
        }
        result.map(|()| n)
    }
}

impl BatchSource for ThreadStream {
    #[inline]
    fn next_batch(&mut self, batch: &mut EventBatch) -> Result<(), LogError> {
        ThreadStream::next_batch(self, batch)
    }

    #[inline]
    fn next_batch_up_to(&mut self, batch: &mut EventBatch, limit: usize) -> Result<(), LogError> {
        batch.clear();
        ThreadStream::next_into(self, batch, limit).map(|_| ())
    }

    /// Straight from the decoder into `sink` (`batch` is not used).
    #[inline]
    fn next_into<K: EventSink>(
        &mut self,
        sink: &mut K,
        _batch: &mut EventBatch,
    ) -> Result<usize, LogError> {
        ThreadStream::next_into(self, sink, EventBatch::CAPACITY)
    }
}
