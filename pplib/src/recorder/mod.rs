//! The recorder: the active session's global state, per-thread buffers, the writer thread
//! and the exit hook.
//!
//! Hot path (one event): one relaxed load of [`STATE`] (0: not recording — the disabled
//! path ends here), a thread-local access and the room for the event found in the thread's
//! [`buffer::ThreadBuffer`], then one clock reading, and the event encoded in place (a code
//! byte and a one- or two-byte time delta, relaxed stores, then a release store of the
//! length). No lock, no allocation. The clock is read after the buffer is found, not
//! before: a TSC reading waits for the instructions before it to finish (as `lfence`
//! does), so the loads are done by then and only a subtraction and the stores follow it. When a
//! buffer is full its thread hands it whole to the writer thread and continues in another
//! (8 per thread; with all of them in flight it waits at most 0.5 ms for the writer, then
//! takes another, up to 32: the program does not wait on a writer that gets no processor
//! for a while, and memory stays bounded).
//!
//! Cost: at its end a session measures what recording one event costs on this machine
//! (bursts into a scratch buffer through the steps above, `event_cost`) and stores it in
//! the log's header, for `pp` to say how much of the profile the recording took.
//!
//! Recovery: the session's end drains every thread's buffer; so does a process exit hook
//! (`atexit`), which covers `std::process::exit` and a `main` that returns or unwinds
//! without finishing its session. A thread that exits drains its own buffer.

pub(crate) mod buffer;
mod encode;
mod event_cost;
mod local;
mod open;
mod sched;
mod writer;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use local::sample_scheduling_now;
pub(crate) use local::{
    emit, emit_at, emit_if_current, emit_named, emit_pair_at, name_id, register_thread,
    sample_scheduling,
};

use crate::clock::{self, ClockSource, Remeasure, SessionClock};
use crate::counters::{self, Counter, CounterBackend};
use crate::log::binary::LogWriter;
use crate::log::{Header, ProcessInfo};
use crate::padded::Padded;
use crate::{sys, PplibError};
use buffer::ThreadBuffer;
use writer::{LogFile, Message, Writer};

/// Event codes (those of the binary format).
pub(crate) mod raw {
    pub(crate) use crate::log::binary::code::*;
}

/// The active session's state: `generation << 1 | counters_on`, or 0 when not recording.
pub(crate) static STATE: Padded<AtomicU64> = Padded(AtomicU64::new(0));
/// State bit: record counters at construct boundaries.
pub(crate) const COUNTERS_BIT: u64 = 1;
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);
static CURRENT: Mutex<Option<Arc<Recorder>>> = Mutex::new(None);

/// Messages that may wait for the writer (a full buffer is one message; a thread has at
/// most 8 in flight, so this bounds blocking, not memory).
const CHANNEL_CAPACITY: usize = 1024;

/// The wait kinds every log defines first (name ids 0..5, in `WaitKind` order).
pub(crate) const WAIT_KINDS: [&str; 5] = ["lock", "barrier", "condvar", "channel", "spin"];

/// True once a session started in this process (recording now or finished).
pub(crate) fn ever_started() -> bool {
    NEXT_GENERATION.load(Ordering::Relaxed) > 1
}

/// The current state (0: not recording).
#[inline(always)]
pub(crate) fn state() -> u64 {
    STATE.load(Ordering::Relaxed)
}

/// What a session records and where.
pub(crate) struct Config {
    pub path: PathBuf,
    pub processors: u32,
    pub counters: Option<Arc<dyn CounterBackend>>,
    pub clock: ClockSource,
}

/// One recording session's shared state.
pub(crate) struct Recorder {
    pub(crate) state: u64,
    pub(crate) path: PathBuf,
    sender: SyncSender<Message>,
    next_thread: AtomicU32,
    names: Mutex<HashMap<Box<str>, u32>>,
    counters: Option<(Arc<dyn CounterBackend>, Vec<Counter>)>,
    /// Where scheduling samples go in `counters` events.
    sched: sched::SchedIds,
    /// Every thread of the session: log id and OS id (for the samples at its end).
    threads: Mutex<Vec<(u32, u64)>>,
    failed: Arc<AtomicBool>,
    closed: AtomicBool,
    writer: Mutex<Option<JoinHandle<()>>>,
}

/// The recorder of `state`, if that session is still the current one.
pub(crate) fn current_for(state: u64) -> Option<Arc<Recorder>> {
    let current = CURRENT.lock().unwrap_or_else(PoisonError::into_inner);
    current.as_ref().filter(|r| r.state == state).cloned()
}

/// Starts recording: creates the log, starts the writer, makes the session current.
pub(crate) fn start(config: Config) -> Result<Arc<Recorder>, PplibError> {
    let mut current = CURRENT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(active) = current.as_ref() {
        return Err(PplibError::AlreadyRecording {
            path: active.path.clone(),
        });
    }
    let present = config
        .counters
        .as_ref()
        .map(|b| counters::probe(b.as_ref()));
    let clock = SessionClock::start(config.clock);
    let (header, sched) = session_header(&config, present.as_deref());
    let created = create_log(&config.path, &header, &clock)?;
    // Where the log is: the requested path, or a name of our own next to it.
    let path = created.path;
    let generation = NEXT_GENERATION.fetch_add(1, Ordering::Relaxed);
    let state = generation << 1 | u64::from(present.as_ref().is_some_and(|p| !p.is_empty()));
    let (sender, rx) = mpsc::sync_channel(CHANNEL_CAPACITY);
    let failed = Arc::new(AtomicBool::new(false));
    let handle = spawn_writer(
        Writer {
            log: created.log,
            file: created.file,
            path: path.clone(),
            state,
            failed: Arc::clone(&failed),
            remeasure: created.remeasure,
        },
        rx,
    )?;
    let recorder = Arc::new(Recorder {
        state,
        path,
        sender,
        next_thread: AtomicU32::new(0),
        names: Mutex::new(HashMap::new()),
        counters: config.counters.zip(present),
        sched,
        threads: Mutex::new(Vec::new()),
        failed,
        closed: AtomicBool::new(false),
        writer: Mutex::new(Some(handle)),
    });
    for kind in WAIT_KINDS {
        recorder.intern(kind);
    }
    if !sys::on_process_exit(at_exit) {
        eprintln!("pplib: cannot register the exit hook; a log of a program that calls exit may be incomplete");
    }
    *current = Some(Arc::clone(&recorder));
    STATE.store(state, Ordering::SeqCst);
    Ok(recorder)
}

/// The log header of a session starting now (its clock just started) that records
/// `counters` (those the backend has, if any), and where the scheduling samples go among
/// its counters (after those).
fn session_header(config: &Config, counters: Option<&[Counter]>) -> (Header, sched::SchedIds) {
    let start_clock_ns = sys::monotonic_ns();
    let start_unix_ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut counter_names: Vec<String> = counters
        .iter()
        .copied()
        .flatten()
        .map(|c| c.name().to_owned())
        .collect();
    let (sched, sched_names) = sched::SchedIds::after(&counter_names);
    counter_names.extend(sched_names);
    let header = Header {
        version: crate::log::binary::VERSION,
        processors: config.processors,
        clock: config.clock.header_name().to_owned(),
        counters: counter_names,
        process: ProcessInfo {
            pid: std::process::id(),
            command_line: std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            start_unix_ns,
            start_clock_ns,
        },
        // Measured when the session ends (0 until then: a log cut short has none).
        event_cost_ps: Some(0),
    };
    (header, sched)
}

/// A session's log, created with its header, for the writer thread.
struct CreatedLog {
    /// Where the log is (`requested`, or a name of our own next to it).
    path: PathBuf,
    file: LogFile,
    log: LogWriter<LogFile>,
    /// The clock's calibration to redo as the session goes (a TSC clock).
    remeasure: Option<Remeasure>,
}

/// Creates the log at `requested` and writes `header` to it, with the time scale of
/// `clock` (replaceable in place when the clock will be remeasured).
fn create_log(
    requested: &Path,
    header: &Header,
    clock: &SessionClock,
) -> Result<CreatedLog, PplibError> {
    // A regular file, locked against other processes (or a name of our own next to it).
    let (file, path) = open::open_log(requested).map_err(|source| PplibError::Create {
        path: requested.to_owned(),
        source,
    })?;
    let create = |source| PplibError::Create {
        path: path.clone(),
        source,
    };
    let mut file = LogFile::new(file);
    let remeasure = clock.remeasure();
    let log = if remeasure.is_some() {
        LogWriter::with_replaceable_time_scale(file.clone(), header, clock.initial_scale())
    } else {
        LogWriter::with_time_scale(file.clone(), header, clock.initial_scale())
    }
    .map_err(create)?;
    // The header on disk now: a process that dies right after the session starts leaves
    // a log that reads as truncated, not an empty file. A failure (a full disk) stays in
    // the buffer and is met again, and reported, by the writer's next write.
    let _ = std::io::Write::flush(&mut file);
    Ok(CreatedLog {
        path,
        file,
        log,
        remeasure,
    })
}

/// Starts the writer thread on the messages of `rx`.
fn spawn_writer(writer: Writer, rx: mpsc::Receiver<Message>) -> Result<JoinHandle<()>, PplibError> {
    std::thread::Builder::new()
        .name("pplib-writer".to_owned())
        // The writer runs at SCHED_BATCH with nice 10: a share of the processors that
        // neither the program nor other processes can take away (at SCHED_IDLE, with every
        // processor busy, it got none, and recording threads waited for it), a small one,
        // so that where it shares a processor with a recording thread it yields most of it
        // (at nice 0 its work showed in every event's cost), and wake-ups that do not
        // preempt a running thread. It sleeps until a buffer comes and works ~10 µs per
        // 32 KiB.
        .spawn(move || {
            sys::run_as_batch();
            writer.run(rx)
        })
        .map_err(PplibError::Thread)
}

impl Recorder {
    /// The id of `name` in the string table, defining it if new.
    pub(crate) fn intern(&self, name: &str) -> u32 {
        let mut names = self.names.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(id) = names.get(name) {
            return *id;
        }
        let id = names.len() as u32;
        // Sent while holding the lock: names reach the writer in id order, and before any
        // chunk that uses them (those are sent after this returns).
        let _ = self.sender.send(Message::Name(name.into()));
        names.insert(name.into(), id);
        id
    }

    /// A new log thread id for the calling thread, announced to the writer.
    pub(crate) fn new_thread(&self) -> u32 {
        let id = self.next_thread.fetch_add(1, Ordering::Relaxed);
        let name = std::thread::current().name().unwrap_or("").to_owned();
        let os_tid = sys::os_thread_id();
        self.threads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((id, os_tid));
        let _ = self.sender.send(Message::Thread {
            thread: id,
            os_tid,
            name,
        });
        id
    }

    /// Sends a full buffer to the writer (false if the writer is gone).
    pub(crate) fn send_buffer(&self, buffer: &'static ThreadBuffer) -> bool {
        self.sender.send(Message::Buffer(buffer)).is_ok()
    }

    /// True once the session's end began.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Sends a drained buffer (its thread, base time and encoded events) to the writer.
    pub(crate) fn send_chunk(&self, thread: u32, base: u64, bytes: Vec<u8>) {
        let _ = self.sender.send(Message::Chunk {
            thread,
            base,
            bytes,
        });
    }

    /// Thread `thread` exited (its last sample is in its log): no sample at the end.
    pub(crate) fn thread_exited(&self, thread: u32) {
        self.threads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|(t, _)| *t != thread);
    }

    /// Where scheduling samples go in `counters` events.
    pub(crate) fn sched(&self) -> sched::SchedIds {
        self.sched
    }

    /// The counter backend and the counters present, if counters are on.
    pub(crate) fn counters(&self) -> Option<(&dyn CounterBackend, &[Counter])> {
        self.counters
            .as_ref()
            .map(|(b, p)| (b.as_ref(), p.as_slice()))
    }

    /// True once the writer reported an I/O error.
    pub(crate) fn failed(&self) -> bool {
        self.failed.load(Ordering::SeqCst)
    }

    /// Stops recording, drains every thread's buffer, writes the end of the log and waits for
    /// the writer (at most `timeout`). Only the first call does anything.
    pub(crate) fn close(self: &Arc<Self>, timeout: Duration) -> Result<(), PplibError> {
        if self.closed.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        // The closing thread's last scheduling sample, in its own buffer (before the drain).
        sample_scheduling_now(self.state);
        let _ = STATE.compare_exchange(self.state, 0, Ordering::SeqCst, Ordering::SeqCst);
        for buffer in ThreadBuffer::all() {
            buffer.drain(self.state, |thread, base, bytes| {
                self.send_chunk(thread, base, bytes)
            });
        }
        self.send_final_samples();
        // After the session's last event, on the thread that ends it (see `event_cost`).
        let event_cost_ps = event_cost::measure_ps();
        {
            let mut current = CURRENT.lock().unwrap_or_else(PoisonError::into_inner);
            if current.as_ref().is_some_and(|c| Arc::ptr_eq(c, self)) {
                *current = None;
            }
        }
        let (reply, done) = mpsc::channel();
        let write_error = |source| PplibError::Write {
            path: self.path.clone(),
            source,
        };
        let finish = Message::Finish {
            reply,
            event_cost_ps,
        };
        if self.sender.send(finish).is_err() {
            return Err(write_error(std::io::Error::other(
                "the writer thread is gone",
            )));
        }
        let result = match done.recv_timeout(timeout) {
            Ok(r) => r.map_err(write_error),
            Err(_) => Err(write_error(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the writer thread did not finish in time",
            ))),
        };
        if result.is_ok() {
            if let Some(handle) = self
                .writer
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
            {
                let _ = handle.join();
            }
        }
        result
    }
}

impl Recorder {
    /// The last scheduling sample of every other thread still alive, read from `/proc` and
    /// sent as a one-event chunk after its drained events. Each sample is time-stamped after
    /// its values are read: the thread may still be running, and a time taken before the
    /// read would make its CPU time rise by more than the time that passed (by as long as
    /// this thread was kept from running between the two, tens of milliseconds on a loaded
    /// machine), which readers reject (`log::counter_check`).
    fn send_final_samples(&self) {
        let own = sys::os_thread_id();
        let threads = self
            .threads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for (thread, os_tid) in threads {
            if os_tid == own {
                continue;
            }
            let values = self.sched.of_thread(os_tid);
            if !values.is_empty() {
                let read_at = clock::raw_now();
                self.send_chunk(thread, read_at, sched::counters_chunk(&values));
            }
        }
    }
}

/// Runs at process exit: finishes a session the program did not finish.
extern "C" fn at_exit() {
    let _ = std::panic::catch_unwind(|| {
        let recorder = CURRENT
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(recorder) = recorder {
            let _ = recorder.close(Duration::from_secs(30));
        }
    });
}
