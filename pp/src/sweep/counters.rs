//! Counter samples: attributing per-thread counter increases to windows (`os`, `cl`, the
//! involuntary context switches).

use pplib::log::CounterId;

use super::{CounterTrack, Sweep};

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
    pub(super) fn sample_counters(&mut self, slot: usize, values: &[(CounterId, u64)], t: u64) {
        let roles = self.config.counters;
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
                let wall = t.saturating_sub(prev.time);
                if wall > 0 {
                    let delta = value.saturating_sub(prev.value) as f64;
                    for (w, &bw_now) in busy_wall.iter().enumerate() {
                        let bw_prev = prev.busy_wall.get(w).copied().unwrap_or(0);
                        let bw = bw_now.saturating_sub(bw_prev) as f64;
                        if bw <= 0.0 {
                            continue;
                        }
                        let share = delta * (bw / wall as f64);
                        let totals = &mut self.windows[w].totals;
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
