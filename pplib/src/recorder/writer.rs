//! The writer thread: turns drained buffers into log chunks and writes them.
//!
//! It is the only code that touches the file. An I/O error is reported once on stderr,
//! stops recording, and from then on messages are consumed and dropped (so that threads
//! never block on a dead writer).

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::time::Duration;

use super::buffer::ThreadBuffer;
use super::{raw, STATE};
use crate::log::binary::{ChunkEncoder, LogWriter};
use crate::log::{CounterId, Nanos, ThreadId};

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
    /// Raw records of one thread copied out of its buffer (pairs of words, see `buffer.rs`).
    Chunk { thread: u32, words: Vec<u64> },
    /// A full buffer handed off whole: encode it, then release it.
    Buffer(&'static ThreadBuffer),
    /// Write `END`, flush and reply.
    Finish(Sender<io::Result<()>>),
}

/// The state the writer thread owns.
pub(crate) struct Writer {
    pub(crate) log: LogWriter<BufWriter<File>>,
    pub(crate) path: PathBuf,
    pub(crate) state: u64,
    pub(crate) failed: Arc<AtomicBool>,
}

impl Writer {
    /// Runs until `Finish` (or until every sender is gone).
    pub(crate) fn run(mut self, rx: Receiver<Message>) {
        let mut encoder = ChunkEncoder::new(ThreadId(0));
        let mut values: Vec<(CounterId, u64)> = Vec::new();
        let mut error: Option<io::Error> = None;
        // Poll rather than block on the channel: a thread handing off a buffer then never
        // pays for waking the writer up (one that must wait for its spare buffer unparks it).
        // Idle, the pause grows to 10 ms.
        let mut idle = Duration::from_micros(100);
        loop {
            let message = match rx.try_recv() {
                Ok(m) => {
                    idle = Duration::from_micros(100);
                    m
                }
                Err(TryRecvError::Empty) => {
                    // Idle: push what we have to the OS, so a crash loses as little as possible.
                    if error.is_none() {
                        if let Err(e) = self.log.flush() {
                            self.fail(&mut error, e);
                        }
                    }
                    std::thread::park_timeout(idle);
                    idle = (idle * 2).min(Duration::from_millis(10));
                    continue;
                }
                Err(TryRecvError::Disconnected) => return,
            };
            if let Message::Finish(reply) = message {
                let result = match error.take() {
                    Some(e) => Err(e),
                    None => self.log.finish().map(drop),
                };
                // Release buffers handed off after the end began (their records are dropped).
                while let Ok(late) = rx.try_recv() {
                    if let Message::Buffer(b) = late {
                        b.consume(|_, _| ());
                    }
                }
                let _ = reply.send(result);
                return;
            }
            if error.is_some() {
                if let Message::Buffer(b) = message {
                    b.consume(|_, _| ());
                }
                continue;
            }
            let result = match message {
                Message::Name(text) => self.log.name(&text).map(drop),
                Message::Thread {
                    thread,
                    os_tid,
                    name,
                } => self.log.thread(ThreadId(thread), os_tid, &name),
                Message::Chunk { thread, words } => {
                    encoder.reset(ThreadId(thread));
                    encoder.reserve(words.len() * 2);
                    encode(
                        &mut encoder,
                        &mut values,
                        words.chunks_exact(2).map(|r| (r[0], r[1])),
                    );
                    self.log.chunk(&encoder)
                }
                Message::Buffer(buffer) => {
                    buffer.consume(|thread, words| {
                        encoder.reset(ThreadId(thread));
                        encoder.reserve(words.len() * 2);
                        let records = words
                            .chunks_exact(2)
                            .map(|r| (r[0].load(Ordering::Relaxed), r[1].load(Ordering::Relaxed)));
                        encode(&mut encoder, &mut values, records);
                    });
                    self.log.chunk(&encoder)
                }
                Message::Finish(_) => Ok(()),
            };
            if let Err(e) = result {
                self.fail(&mut error, e);
            }
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

/// Encodes raw records (time, word) into `encoder`.
fn encode(
    encoder: &mut ChunkEncoder,
    values: &mut Vec<(CounterId, u64)>,
    mut records: impl Iterator<Item = (u64, u64)>,
) {
    while let Some((time, word)) = records.next() {
        let code = (word & 0xff) as u8;
        let arg = (word >> 32) as u32;
        if code == raw::COUNTERS {
            values.clear();
            for (value, id) in records.by_ref().take(arg as usize) {
                values.push((CounterId((id >> 32) as u16), value));
            }
            encoder.counters(Nanos(time), values);
        } else {
            encoder.simple(code, Nanos(time), arg);
        }
    }
}
