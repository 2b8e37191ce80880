//! Processor-sharing servers (thesis section 3.2.3, PS resources): m servers shared by
//! the n current jobs at rate min(1, m/n) each, tracked in virtual work so that a change
//! of n only reschedules the next completion.
use std::cmp::Ordering;

use super::engine::{Engine, Waiting};
use super::events::Ev;
use super::resources::Resource;

/// A job on a PS server: it is done when the server's virtual time reaches `finish`.
pub(super) struct PsJob {
    pub(super) finish: f64,
    pub(super) thread: u32,
}
impl PartialEq for PsJob {
    fn eq(&self, o: &Self) -> bool {
        self.finish == o.finish && self.thread == o.thread
    }
}
impl Eq for PsJob {}
impl PartialOrd for PsJob {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for PsJob {
    fn cmp(&self, o: &Self) -> Ordering {
        o.finish
            .total_cmp(&self.finish)
            .then(o.thread.cmp(&self.thread))
    }
}

impl Engine<'_> {
    /// Service rate of each job: all m servers shared by n jobs.
    fn ps_rate(res: &Resource) -> f64 {
        let n = res.jobs.len() as f64;
        if n <= res.multiplicity {
            1.0
        } else {
            res.multiplicity / n
        }
    }

    /// Brings the PS virtual time of `r` up to now.
    pub(super) fn ps_advance(&mut self, r: u32) {
        let now = self.now;
        let res = &mut self.resources[r as usize];
        if !res.jobs.is_empty() {
            res.virt += (now - res.last) * Self::ps_rate(res);
        }
        res.last = now;
    }

    /// Schedules the next completion on `r` (older ones become stale).
    pub(super) fn ps_reschedule(&mut self, r: u32) {
        let res = &mut self.resources[r as usize];
        res.version += 1;
        if let Some(j) = res.jobs.peek() {
            let dt = ((j.finish - res.virt) / Self::ps_rate(res)).max(0.0);
            let (at, v) = (self.now + dt, res.version);
            self.schedule(at, Ev::PsDone(r, v));
        }
    }

    /// Completes the jobs of `r` that are done and resumes their threads.
    pub(super) fn ps_done(&mut self, r: u32, version: u64) {
        if self.resources[r as usize].version != version {
            return;
        }
        self.ps_advance(r);
        let mut done = Vec::new();
        {
            let res = &mut self.resources[r as usize];
            let eps = 1e-9 * res.virt.abs().max(1.0);
            while res.jobs.peek().is_some_and(|j| j.finish <= res.virt + eps) {
                if let Some(j) = res.jobs.pop() {
                    done.push(j.thread);
                }
            }
        }
        self.ps_reschedule(r);
        for t in done {
            self.threads[t as usize].waiting = Waiting::Nothing;
            let now = self.now;
            self.schedule(now, Ev::Resume(t));
        }
    }
}
