//! Counter samples: attributing per-thread counter increases to windows (`os`, `cl`, the
//! involuntary context switches).

use pplib::log::CounterId;

use super::{CounterTrack, Sweep, WindowTotals};

/// What a counter the sweep uses measures.
#[derive(Clone, Copy)]
enum Role {
    /// `cpu_ns`: CPU time, for `os`.
    Cpu,
    /// `llc_misses`: for `cl`.
    Misses,
    /// `nivcsw`: involuntary context switches.
    Switches,
}

impl Sweep {
    /// Shares the increases of a `counters` sample of thread `slot` at `t` among the
    /// windows, in proportion to the thread's Busy wall time in each since its previous
    /// sample (docs/predicates.md). The thread's segment must be closed at `t` (its Busy
    /// wall time read up to now, its session row caught up with the latest snapshot).
    ///
    /// The session's result is its window as of its last `session_end` (the snapshot),
    /// but a thread's last sample may come after it: pplib reads the other threads' last
    /// samples when the session finishes. The part of such an interval the thread spent
    /// Busy in the session, up to its end, is added to the snapshot too; otherwise the
    /// session would miss every thread's last interval, which the fragments inside it do
    /// not, and a fragment could show more `os` than the session that holds it.
    pub(super) fn sample_counters(&mut self, slot: usize, values: &[(CounterId, u64)], t: u64) {
        let roles = self.config.counters;
        // The session's Busy wall time of the thread up to the snapshot, when the session
        // is over and its snapshot taken (one taken later covers everything up to it).
        let closed = self.per_thread
            && self.session_open == 0
            && !self.snapshot_due
            && self.snapshot.is_some();
        let snap_busy_wall = (closed && self.slots[slot].snap_epoch == self.snap_epoch)
            .then(|| self.slots[slot].snap_row.busy_wall);
        for &(id, value) in values {
            let role = if roles.cpu_ns == Some(id) {
                Role::Cpu
            } else if roles.llc_misses == Some(id) {
                Role::Misses
            } else if roles.nivcsw == Some(id) {
                Role::Switches
            } else {
                continue;
            };
            let s = &mut self.slots[slot];
            let busy_wall: Vec<u128> = s.acc.iter().map(|a| a.busy_wall).collect();
            let track = match role {
                Role::Cpu => &mut s.cpu,
                Role::Misses => &mut s.misses,
                Role::Switches => &mut s.switches,
            };
            if let Some(prev) = track.as_ref() {
                if t > prev.time {
                    let delta = value.saturating_sub(prev.value) as f64;
                    let since = |w: usize, now: u128| {
                        let before = prev.busy_wall.get(w).copied().unwrap_or(0);
                        now.saturating_sub(before) as f64
                    };
                    let bws: Vec<f64> = (busy_wall.iter().enumerate())
                        .map(|(w, &now)| since(w, now))
                        .collect();
                    // The thread's Busy wall time in the interval: the session window's,
                    // which runs on after session_end and holds every fragment's.
                    let busy = bws.iter().copied().fold(0.0, f64::max);
                    for (w, &bw) in bws.iter().enumerate() {
                        attribute(&mut self.windows[w].totals, role, bw, delta, busy);
                    }
                    if let (Some(bw_snap), Some(snap)) = (snap_busy_wall, self.snapshot.as_mut()) {
                        attribute(&mut snap.totals, role, since(0, bw_snap), delta, busy);
                    }
                    match role {
                        Role::Cpu => self.cpu_sampled = true,
                        Role::Misses => self.misses_sampled = true,
                        Role::Switches => self.switches_sampled = true,
                    }
                }
            }
            *track = Some(CounterTrack {
                value,
                time: t,
                busy_wall,
            });
        }
    }
}

/// Adds to `totals` a window's share of a counter's increase `delta` over a sampling
/// interval in which the thread was Busy for `busy` nanoseconds of wall time, `bw` of them
/// in the window. The increase is taken to have come during the Busy time (a thread that
/// waits for work sleeps), so the window's share is `delta * bw / busy`: every window the
/// same fraction of its Busy wall time.
fn attribute(totals: &mut WindowTotals, role: Role, bw: f64, delta: f64, busy: f64) {
    if bw <= 0.0 || busy <= 0.0 {
        return;
    }
    let share = delta * (bw / busy);
    match role {
        Role::Cpu => {
            totals.cpu_sampled_busy_wall += bw;
            totals.os += (bw - share).max(0.0);
        }
        Role::Misses => totals.misses += share,
        Role::Switches => {
            totals.switches_sampled_busy_wall += bw;
            totals.switches += share;
        }
    }
}
