//! The writer thread: turns drained buffers into log chunks and writes them.
//!
//! It is the only code that touches the file. An I/O error is reported once on stderr,
//! stops recording, and from then on messages are consumed and dropped (so that threads
//! never block on a dead writer). With the TSC as clock it also measures the time scale
//! while it writes and after the session's last event, and rewrites the header's scale in
//! place each time (`clock`'s module docs say when and how precisely). When the session
//! ends it writes the cost of recording one event, measured then by the thread that ends
//! it (`event_cost`), into the header's field the same way.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::buffer::ThreadBuffer;
use super::encode::ChunkWriter;
use super::STATE;
use crate::clock::Remeasure;
use crate::log::binary::LogWriter;
use crate::log::ThreadId;

/// How long the writer waits for a message before it pushes what it has to the OS (so that
/// a killed process loses little).
const FLUSH_AFTER: Duration = Duration::from_millis(10);

/// What threads send to the writer.
pub(crate) enum Message {
    /// The next string table entry.
    Name(Box<str>),
    /// A thread joined the session.
    Thread {
        thread: u32,
        os_tid: u64,
        name: String,
    },
    /// Encoded events of one thread copied out of its buffer, with their base time.
    Chunk {
        thread: u32,
        base: u64,
        bytes: Vec<u8>,
    },
    /// A full buffer handed off whole: encode it, then release it.
    Buffer(&'static ThreadBuffer),
    /// Write the measured cost of recording an event (picoseconds) into the header, then
    /// `END`, flush and reply.
    Finish {
        reply: Sender<io::Result<()>>,
        event_cost_ps: u64,
    },
}

/// The log file, shared by the [`LogWriter`] (header, names, threads, end) and the
/// writer's own chunk encoder ([`ChunkWriter`]); only the writer thread writes to it.
#[derive(Clone)]
pub(crate) struct LogFile(Arc<Mutex<BufWriter<File>>>);

impl LogFile {
    /// The file, buffered.
    pub(crate) fn new(file: File) -> LogFile {
        LogFile(Arc::new(Mutex::new(BufWriter::with_capacity(
            1 << 20,
            file,
        ))))
    }
}

impl Write for LogFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .flush()
    }
}

impl Seek for LogFile {
    /// Flushes what is buffered, then moves the file's position.
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .seek(to)
    }
}

/// The state the writer thread owns.
pub(crate) struct Writer {
    pub(crate) log: LogWriter<LogFile>,
    pub(crate) file: LogFile,
    pub(crate) path: PathBuf,
    pub(crate) state: u64,
    pub(crate) failed: Arc<AtomicBool>,
    /// For the TSC: measures the time scale anew, which replaces the header's.
    pub(crate) remeasure: Option<Remeasure>,
}

impl Writer {
    /// Runs until `Finish` (or until every sender is gone).
    ///
    /// It sleeps in the channel until a message comes (a full buffer, every few thousand
    /// events of a thread, wakes it once), so that it takes a processor from the recorded
    /// program as rarely as possible; it runs at `SCHED_BATCH` with nice 10 (a small share that cannot be taken away),
    /// so that neither the program nor other processes can starve it (recording threads wait for it when all
    /// their buffers are in flight); after [`FLUSH_AFTER`] without messages it flushes the
    /// file, and with nothing left to flush it sleeps until the next message (no periodic
    /// wake-up).
    pub(crate) fn run(mut self, rx: Receiver<Message>) {
        let mut chunks = ChunkWriter::default();
        let mut error: Option<io::Error> = None;
        let mut unflushed = false;
        loop {
            let received = if unflushed {
                rx.recv_timeout(FLUSH_AFTER)
            } else {
                rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
            };
            let message = match received {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    // Only waited with a timeout when something was unflushed.
                    if error.is_none() {
                        if let Err(e) = self.log.flush() {
                            self.fail(&mut error, e);
                        }
                    }
                    unflushed = false;
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return,
            };
            if let Message::Finish {
                reply,
                event_cost_ps,
            } = message
            {
                let result = match error.take() {
                    Some(e) => Err(e),
                    None => self
                        .final_time_scale()
                        .and_then(|()| self.event_cost(event_cost_ps))
                        .and_then(|()| self.log.finish().map(drop)),
                };
                // Release buffers handed off after the end began (their records are dropped).
                while let Ok(late) = rx.try_recv() {
                    if let Message::Buffer(b) = late {
                        b.consume(|_, _, _| ());
                    }
                }
                let _ = reply.send(result);
                return;
            }
            if error.is_some() {
                if let Message::Buffer(b) = message {
                    b.consume(|_, _, _| ());
                }
                continue;
            }
            unflushed = true;
            let result = match message {
                Message::Name(text) => self.log.name(&text).map(drop),
                Message::Thread {
                    thread,
                    os_tid,
                    name,
                } => self.log.thread(ThreadId(thread), os_tid, &name),
                Message::Chunk {
                    thread,
                    base,
                    bytes,
                } => chunks.write_copied(&mut self.file, thread, base, &bytes),
                Message::Buffer(buffer) => {
                    let mut result = Ok(());
                    buffer.consume(|thread, base, bytes| {
                        result = chunks.write(&mut self.file, thread, base, bytes);
                    });
                    result
                }
                Message::Finish { .. } => Ok(()),
            };
            let result = result.and_then(|()| self.remeasured_time_scale());
            if let Err(e) = result {
                self.fail(&mut error, e);
            }
        }
    }

    /// Replaces the header's time scale with one measured now, when a measure is due.
    fn remeasured_time_scale(&mut self) -> io::Result<()> {
        match self.remeasure.as_mut().and_then(Remeasure::due) {
            Some(scale) => self.replace_time_scale(scale),
            None => Ok(()),
        }
    }

    /// Replaces the header's time scale with the final one (after the session's last event).
    fn final_time_scale(&mut self) -> io::Result<()> {
        match self.remeasure.as_ref().map(Remeasure::finish) {
            Some(scale) => self.replace_time_scale(scale),
            None => Ok(()),
        }
    }

    /// Writes the measured event cost into the header's field; a log that cannot be
    /// rewritten in place (a character device, which seeks nowhere) keeps 0 (not measured).
    fn event_cost(&mut self, event_cost_ps: u64) -> io::Result<()> {
        match self.log.replace_event_cost(event_cost_ps) {
            Err(e) if e.raw_os_error() == Some(libc::ESPIPE) => Ok(()),
            other => other,
        }
    }

    /// Rewrites the header's scale; a log that cannot be rewritten in place (a character
    /// device other than a file, which seeks nowhere) keeps the one it has, and no later
    /// measure is tried.
    fn replace_time_scale(&mut self, scale: crate::log::binary::TimeScale) -> io::Result<()> {
        match self.log.replace_time_scale(scale) {
            Err(e) if e.raw_os_error() == Some(libc::ESPIPE) => {
                self.remeasure = None;
                Ok(())
            }
            other => other,
        }
    }

    fn fail(&self, error: &mut Option<io::Error>, e: io::Error) {
        eprintln!(
            "pplib: writing the event log {} failed: {e}; recording stopped",
            self.path.display()
        );
        self.failed.store(true, Ordering::SeqCst);
        let _ = STATE.compare_exchange(self.state, 0, Ordering::SeqCst, Ordering::SeqCst);
        *error = Some(e);
    }
}
