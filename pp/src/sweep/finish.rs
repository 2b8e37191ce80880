//! Session snapshots and the end of the sweep (closing what is still open).

use pplib::log::{Nanos, ThreadId};

use super::{
    SegStart, SessionSnapshot, Sweep, SweepResult, ThreadCounts, ThreadTotals, WindowResult,
};
use crate::stack::{Construct, Frame, ThreadState};
use crate::sweep::Observer;

impl Sweep {
    /// Closes every thread's segment at the present time.
    pub(super) fn flush_all(&mut self) {
        for slot in 0..self.slots.len() {
            self.close_segment(slot);
        }
    }

    pub(super) fn thread_totals(&self, w: usize) -> Vec<(ThreadId, ThreadTotals)> {
        if !self.per_thread {
            return Vec::new();
        }
        self.slots
            .iter()
            .map(|s| (s.id, s.acc.get(w).copied().unwrap_or_default()))
            .collect()
    }

    pub(super) fn snapshot_session(&mut self) {
        self.snapshot_due = false;
        // The window totals are up to date. The threads' rows at this instant are taken
        // lazily, each when the thread's amounts next change (`catch_up_snapshot`): a log
        // with a session end per thread would cost T² if every row were taken here.
        if self.per_thread {
            self.snap_epoch += 1;
            self.snap_reading = SegStart::of(&self.windows[0].totals);
        }
        self.snapshot = Some(SessionSnapshot {
            totals: self.windows[0].totals,
            durations: self.windows[0].durations.clone(),
        });
    }

    /// If a session snapshot was taken since `slot` last closed a segment, closes the
    /// thread's session-window segment at that snapshot (as if it had been closed then,
    /// with the snapshot's clocks) and keeps the thread's session row as of the snapshot.
    /// Called before anything changes the thread's amounts: its state, and so what the
    /// segment adds, has not changed since the segment began.
    #[inline(always)]
    pub(super) fn catch_up_snapshot(&mut self, slot: usize) {
        if self.slots[slot].snap_epoch != self.snap_epoch {
            self.close_at_snapshot(slot);
        }
    }

    #[cold]
    #[inline(never)]
    fn close_at_snapshot(&mut self, slot: usize) {
        let r = self.snap_reading;
        let s = &mut self.slots[slot];
        s.snap_epoch = self.snap_epoch;
        if s.seg.is_empty() {
            s.widen(1);
        }
        let (seg, acc) = (&mut s.seg[0], &mut s.acc[0]);
        match s.present.then_some(s.state) {
            Some(ThreadState::Busy) => {
                let d = r.unit - seg.unit;
                acc.busy += d;
                acc.busy_wall += r.span - seg.span;
                // The owning task's session charge, or the unowned slot 0.
                let at = match s.tasks.last() {
                    Some(&(off, width)) if width > 0 => off,
                    _ => 0,
                };
                s.pending[at] += d;
            }
            Some(ThreadState::Spinning) => acc.sl += r.unit - seg.unit,
            Some(ThreadState::Idle) => {
                acc.li += r.g_li - seg.g_li;
                acc.ip += r.g_ip - seg.g_ip;
            }
            None => {}
        }
        *seg = r;
        s.snap_row = *acc;
    }

    /// A thread's stream ended. The thread stays present (its state, Idle with an empty
    /// stack, still offers a processor to the per-thread view) until the end of the log:
    /// a log has no thread-exit event, and pool workers that run out of tasks early are
    /// exactly the threads that load imbalance leaves idle.
    pub fn thread_ended(&mut self, slot: usize) {
        debug_assert!(slot < self.slots.len());
    }

    /// Ends the sweep: closes what is still open (with warnings) and returns the windows.
    pub fn finish(mut self, observer: Option<&mut dyn Observer>) -> SweepResult {
        if self.started {
            // Over the inert events at the end of the log, if any (see `Sweep::is_inert`).
            self.advance(self.last_time);
        }
        if self.snapshot_due {
            self.snapshot_session();
        }
        self.flush_all();
        if let Some(obs) = observer {
            self.observe_end(obs);
        }
        self.warn_open_at_end();
        if !self.session_seen {
            self.warnings.push(
                "no session_begin in the log: the session window is the whole log (first to last event)"
                    .to_owned(),
            );
        }
        let windows = self.window_results();
        let count = |f: fn(&super::Slot) -> bool| self.slots.iter().filter(|s| f(s)).count() as u32;
        let threads = ThreadCounts {
            appeared: count(|s| s.present),
            ran_tasks: count(|s| s.ran_task),
            busy: count(|s| s.was_busy),
        };
        SweepResult {
            processors: self.config.processors,
            windows,
            cpu_sampled: self.cpu_sampled,
            misses_sampled: self.misses_sampled,
            switches_sampled: self.switches_sampled,
            threads,
            warnings: self.warnings,
            events: self.events,
        }
    }

    /// Shows `obs` what the end of the log closes: each present thread's last segment, and
    /// the constructs still open on its stack (innermost first), all ending now.
    fn observe_end(&self, obs: &mut dyn Observer) {
        let end = self.now;
        for (slot, s) in self.slots.iter().enumerate() {
            self.observe_segment(obs, slot, end);
            let mut frames = s.stack.frames().to_vec();
            while let Some(f) = frames.pop() {
                obs.closed(slot, &f, Nanos(end), false);
            }
        }
    }

    /// Warns of the constructs still open at the end of the log (how many, and the
    /// innermost one of the first thread that has any).
    fn warn_open_at_end(&mut self) {
        let mut open_frames = 0usize;
        let mut example: Option<(ThreadId, Frame)> = None;
        for s in &self.slots {
            open_frames += s.stack.depth();
            if example.is_none() {
                if let Some(f) = s.stack.frames().last() {
                    example = Some((s.id, *f));
                }
            }
        }
        if let Some((thread, f)) = example {
            let what = match f.construct {
                Construct::Frag(n) => format!("frag_begin {}", crate::error::shorten(self.name(n))),
                Construct::Wait(n) => format!("wait_begin {}", crate::error::shorten(self.name(n))),
                c => c.begin_event().to_owned(),
            };
            self.warnings.push(format!(
                "{open_frames} construct(s) still open at the end of the log (e.g. {what} at {} on thread {thread}); closed at the last event, t = {} ns",
                f.pos, self.now
            ));
        }
    }

    /// The windows' results: the session's (as of its snapshot when the session ended
    /// before the log did), then each fragment's.
    fn window_results(&mut self) -> Vec<WindowResult> {
        let session = match (&self.snapshot, self.session_open) {
            (Some(snap), 0) => WindowResult {
                tag: None,
                totals: snap.totals,
                // Every thread caught up with the snapshot in `flush_all`.
                threads: match self.per_thread {
                    true => self.slots.iter().map(|s| (s.id, s.snap_row)).collect(),
                    false => Vec::new(),
                },
                durations: snap.durations.clone(),
            },
            _ => WindowResult {
                tag: None,
                totals: self.windows[0].totals,
                threads: self.thread_totals(0),
                durations: self.windows[0].durations.clone(),
            },
        };
        let mut windows = vec![session];
        for w in 1..self.windows.len() {
            windows.push(WindowResult {
                tag: self.windows[w].tag.clone(),
                totals: self.windows[w].totals,
                threads: self.thread_totals(w),
                durations: self.windows[w].durations.take(),
            });
        }
        windows
    }
}
