//! Counter samples: attributing per-thread counter increases to windows (`os`, `cl`).

use pplib::log::CounterId;

use super::{CounterTrack, Sweep};

impl Sweep {
    pub(super) fn sample_counters(&mut self, slot: usize, values: &[(CounterId, u64)], t: u64) {
        let roles = self.config.counters;
        for &(id, value) in values {
            let is_cpu = roles.cpu_ns == Some(id);
            let is_miss = roles.llc_misses == Some(id);
            if !is_cpu && !is_miss {
                continue;
            }
            let s = &mut self.slots[slot];
            let busy_wall: Vec<u128> = s.acc.iter().map(|a| a.busy_wall).collect();
            let track = if is_cpu { &mut s.cpu } else { &mut s.misses };
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
                        if is_cpu {
                            totals.cpu_sampled_busy_wall += bw;
                            totals.os += (bw - share).max(0.0);
                        } else {
                            totals.misses += share;
                        }
                    }
                    if is_cpu {
                        self.cpu_sampled = true;
                    } else {
                        self.misses_sampled = true;
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
