//! Windows of interest: the session window (reset at the first `session_begin`) and the
//! fragment windows, created when a selected fragment first opens.

use pplib::log::NameId;

use super::{
    Durations, SegStart, Slot, Sweep, ThreadTotals, Window, WindowTotals, IGNORED, UNSEEN,
};
use crate::accum::ThreadNanos;

impl Sweep {
    pub(super) fn begin_session(&mut self) {
        if self.session_seen {
            return;
        }
        self.session_seen = true;
        // Until now the session window stood in for the whole log (in case the log has no
        // session at all); it starts afresh here.
        let keep_hist = self.windows[0].durations.is_some();
        self.windows[0].totals = WindowTotals::default();
        if keep_hist {
            self.windows[0].durations = Some(Durations::new());
        }
        for s in &mut self.slots {
            if let Some(seg) = s.seg.first_mut() {
                *seg = SegStart::default();
            }
            if let Some(acc) = s.acc.first_mut() {
                *acc = ThreadTotals::default();
            }
            for &(off, width) in &s.tasks {
                if width > 0 {
                    s.pending[off] = ThreadNanos::ZERO;
                }
            }
            for track in [s.cpu.as_mut(), s.misses.as_mut(), s.switches.as_mut()]
                .into_iter()
                .flatten()
            {
                if let Some(b) = track.busy_wall.first_mut() {
                    *b = 0;
                }
            }
        }
    }

    #[inline(always)]
    pub(super) fn frag_open(&mut self, name: NameId) {
        let Some(w) = self.frag_window_of(name) else {
            return;
        };
        let win = &mut self.windows[w];
        win.open += 1;
        if win.open == 1 {
            win.totals.openings += 1;
            self.active.push(w);
        }
    }

    #[inline(always)]
    pub(super) fn frag_close(&mut self, name: NameId) {
        let Some(w) = self.frag_window_of(name) else {
            return;
        };
        let win = &mut self.windows[w];
        win.open -= 1;
        if win.open == 0 {
            self.active.retain(|&a| a != w);
        }
    }

    /// The window of fragment `name`, if it is selected (created on its first use).
    #[inline(always)]
    pub(super) fn frag_window_of(&mut self, name: NameId) -> Option<usize> {
        // Not in the string table (readers reject such ids): no window.
        match self.frag_window.get(name.0 as usize).copied() {
            None | Some(IGNORED) => None,
            Some(UNSEEN) => self.frag_window_first_use(name),
            Some(w) => Some(w as usize),
        }
    }

    /// [`Sweep::frag_window_of`] for a name not seen before: decides whether it is
    /// selected, and creates its window if it is.
    #[cold]
    #[inline(never)]
    fn frag_window_first_use(&mut self, name: NameId) -> Option<usize> {
        let i = name.0 as usize;
        let tag = self.name(name).to_owned();
        if self.config.tags.selects(&tag) {
            let w = self.windows.len();
            self.windows.push(Window {
                tag: Some(tag),
                open: 0,
                totals: WindowTotals::default(),
                durations: self.config.histograms.then(Durations::new),
            });
            self.frag_window[i] = w as u32;
            self.widen_open_tasks(w + 1);
            Some(w)
        } else {
            self.frag_window[i] = IGNORED;
            None
        }
    }

    /// Gives every open task a charge slot for windows created after it opened.
    pub(super) fn widen_open_tasks(&mut self, nw: usize) {
        for s in &mut self.slots {
            if s.tasks.iter().all(|&(_, width)| width >= nw) {
                continue;
            }
            // Slot 0 is the unowned charge (see `Slot::pending`).
            let mut pending = Vec::with_capacity(1 + s.tasks.len() * nw);
            pending.push(ThreadNanos::ZERO);
            for (off, width) in &mut s.tasks {
                let start = pending.len();
                pending.extend_from_slice(&s.pending[*off..*off + *width]);
                pending.resize(start + nw, ThreadNanos::ZERO);
                *off = start;
                *width = nw;
            }
            s.pending = pending;
            s.owner0 = Slot::owner_of(&s.tasks);
        }
    }
}
