//! A value alone on its cache lines, for the globals every instrumentation call reads.

/// `T` aligned (and so padded) to 128 bytes: two 64-byte cache lines, the unit the
/// adjacent-line prefetcher of x86 processors fetches together. Every event reads the
/// session state and the clock source; a global that a thread writes now and then (a
/// lock taken at a buffer hand-off or a scheduling sample) on the same line would make
/// every other thread's next event miss its cache, more often the more threads record.
#[repr(align(128))]
pub(crate) struct Padded<T>(pub(crate) T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;

    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}
