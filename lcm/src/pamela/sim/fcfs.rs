//! FCFS service (thesis section 3.2.3): `use(U, d) = P(U) ; delay(d) ; V(U)` with FIFO
//! semaphores. `V` hands released units straight to the first waiters that can take
//! them; a request for a multiset waits until all of its units are free at once and
//! never holds up the requests behind it that can be served.
use super::engine::{Engine, Waiting};
use super::events::Ev;
use crate::pamela::error::PamelaError;

impl Engine<'_> {
    /// Whether all units thread `t` requests are free.
    pub(super) fn can_grant(&self, t: u32) -> bool {
        self.threads[t as usize]
            .req
            .iter()
            .all(|&(r, c)| self.resources[r as usize].free >= c as i64)
    }

    /// `P(U)` succeeds: thread `t` holds its units.
    pub(super) fn take_units(&mut self, t: u32) {
        let th = &mut self.threads[t as usize];
        th.req_seq = th.req_seq.wrapping_add(1);
        th.waiting = Waiting::Nothing;
        for &(r, c) in &th.req {
            self.resources[r as usize].free -= c as i64;
        }
    }

    /// Hands a waiting thread its units. It becomes runnable now and starts its service
    /// when it runs (Fifo: behind what is already runnable at this time, as the run-time
    /// library's `V` does); with random arbitration the end of its service is scheduled
    /// at once (its start does nothing another event could observe).
    fn grant(&mut self, t: u32) {
        self.take_units(t);
        if self.fifo {
            let now = self.now;
            self.schedule(now, Ev::Granted(t));
        } else {
            let at = self.now + self.threads[t as usize].req_time;
            self.schedule(at, Ev::Release(t));
        }
    }

    /// The service of thread `t`, which holds its units: `delay(d) ; V(U)`. Returns true
    /// when `t` kept control and has released (it goes on at once), false when the end
    /// of its service is scheduled.
    pub(super) fn serve(&mut self, t: u32) -> Result<bool, PamelaError> {
        let at = self.now + self.threads[t as usize].req_time;
        if self.keeps_control(at) {
            self.advance(at)?;
            self.release(t);
            return Ok(true);
        }
        self.schedule(at, Ev::Release(t));
        Ok(false)
    }

    /// `V(U)` of thread `t`: returns its units and serves the queues of those resources.
    pub(super) fn release(&mut self, t: u32) {
        let req = std::mem::take(&mut self.threads[t as usize].req);
        for &(r, c) in &req {
            self.resources[r as usize].free += c as i64;
        }
        for &(r, _) in &req {
            self.serve_queue(r);
        }
        let mut req = req;
        req.clear();
        self.threads[t as usize].req = req;
    }

    /// Grants waiters of `r` in queue order while units are free (skipping stale entries
    /// and requests that need units still held elsewhere).
    pub(super) fn serve_queue(&mut self, r: u32) {
        let mut k = 0;
        while self.resources[r as usize].free > 0 && k < self.resources[r as usize].queue.len() {
            let (t, seq) = self.resources[r as usize].queue[k];
            let th = &self.threads[t as usize];
            if th.req_seq != seq || !matches!(th.waiting, Waiting::Resource(_)) {
                self.resources[r as usize].queue.remove(k);
                continue;
            }
            if self.can_grant(t) {
                self.resources[r as usize].queue.remove(k);
                self.grant(t);
            } else {
                k += 1;
            }
        }
    }
}
