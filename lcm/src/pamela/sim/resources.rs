//! Resources: lookup by family and index, and `P(U)` of a `use`, which either takes the
//! units at once, queues the request (FCFS) or starts a processor-sharing job.
use std::collections::{BinaryHeap, VecDeque};

use super::engine::{Engine, Waiting, NO_RES};
use super::program::ResCode;
use super::ps::PsJob;
use crate::pamela::ast::ServerKind;
use crate::pamela::error::PamelaError;
use crate::pamela::eval::as_int;

/// A server: FCFS units with a queue of waiting requests, or a PS server.
pub(super) struct Resource {
    pub(super) family: usize,
    pub(super) index: i64,
    pub(super) kind: ServerKind,
    pub(super) multiplicity: f64,
    /// FCFS units not held.
    pub(super) free: i64,
    /// FCFS waiters in blocking order: (thread, its request number).
    pub(super) queue: VecDeque<(u32, u32)>,
    /// Processor sharing state: jobs by finishing point in virtual work.
    pub(super) jobs: BinaryHeap<PsJob>,
    /// Work done per job since the start (PS virtual time).
    pub(super) virt: f64,
    /// Real time `virt` was last advanced to.
    pub(super) last: f64,
    /// Bumped at each change of the job set; older `PsDone` events are stale.
    pub(super) version: u64,
}

impl Engine<'_> {
    /// The resource `r` names in `env`, created on first use.
    fn resource_id(&mut self, r: &ResCode, env: &mut [f64]) -> Result<u32, PamelaError> {
        let (idx, m) = match r.fixed {
            Some(x) => x,
            None => (
                as_int(r.index.eval(env)?, "a resource index")?,
                r.multiplicity.eval(env)?,
            ),
        };
        if (0..1 << 16).contains(&idx) {
            let dense = &self.res_dense[r.family];
            if let Some(&id) = dense.get(idx as usize) {
                if id != NO_RES {
                    return Ok(id);
                }
            }
        } else if let Some(&id) = self.res_sparse.get(&(r.family, idx)) {
            return Ok(id);
        }
        if m.is_nan() || m <= 0.0 {
            return Err(PamelaError::Eval(format!(
                "resource {}({idx}) has multiplicity {m}; it must be positive",
                self.prog.families[r.family]
            )));
        }
        let free = if r.kind == ServerKind::Fcfs {
            as_int(m, "an FCFS multiplicity")?
        } else {
            0
        };
        let id = self.resources.len() as u32;
        self.resources.push(Resource {
            family: r.family,
            index: idx,
            kind: r.kind,
            multiplicity: m,
            free,
            queue: VecDeque::new(),
            jobs: BinaryHeap::new(),
            virt: 0.0,
            last: 0.0,
            version: 0,
        });
        if (0..1 << 16).contains(&idx) {
            let dense = &mut self.res_dense[r.family];
            if dense.len() <= idx as usize {
                dense.resize(idx as usize + 1, NO_RES);
            }
            dense[idx as usize] = id;
        } else {
            self.res_sparse.insert((r.family, idx), id);
        }
        Ok(id)
    }

    /// `P(U)` of `use(U, d)` for thread `t`: true when its units are granted at once (it
    /// then serves them itself, see [`Engine::serve`]); false when it waits in the FCFS
    /// queues or runs on a PS server.
    pub(super) fn use_resources(
        &mut self,
        t: u32,
        rs: &[ResCode],
        d: f64,
        env: &mut [f64],
    ) -> Result<bool, PamelaError> {
        let mut req = std::mem::take(&mut self.threads[t as usize].req);
        req.clear();
        for r in rs {
            let id = self.resource_id(r, env)?;
            match req.iter_mut().find(|(x, _)| *x == id) {
                Some(e) => e.1 += 1,
                None => req.push((id, 1)),
            }
        }
        // processor sharing (single resource)
        if req.len() == 1 && self.resources[req[0].0 as usize].kind == ServerKind::Ps {
            let r = req[0].0;
            let work = d * req[0].1 as f64;
            self.threads[t as usize].req = req;
            self.threads[t as usize].req.clear();
            self.ps_advance(r);
            let res = &mut self.resources[r as usize];
            let finish = res.virt + work;
            res.jobs.push(PsJob { finish, thread: t });
            self.threads[t as usize].waiting = Waiting::Resource(r);
            self.ps_reschedule(r);
            return Ok(false);
        }
        for &(r, c) in &req {
            let res = &self.resources[r as usize];
            if res.kind == ServerKind::Ps {
                return Err(PamelaError::Eval(format!(
                    "simultaneous possession of processor-sharing resource {}({}) is not supported",
                    self.prog.families[res.family], res.index
                )));
            }
            if c as f64 > res.multiplicity {
                return Err(PamelaError::Eval(format!(
                    "use needs {c} units of {}({}), which has only {}",
                    self.prog.families[res.family], res.index, res.multiplicity
                )));
            }
        }
        let th = &mut self.threads[t as usize];
        th.req = req;
        th.req_time = d;
        // FCFS: served at once only if nobody waits before us on these resources
        let queued = th
            .req
            .iter()
            .any(|&(r, _)| !self.resources[r as usize].queue.is_empty());
        if !queued && self.can_grant(t) {
            self.take_units(t);
            return Ok(true);
        }
        let th = &mut self.threads[t as usize];
        let seq = th.req_seq;
        th.waiting = Waiting::Resource(th.req[0].0);
        let n = th.req.len();
        for k in 0..n {
            let r = self.threads[t as usize].req[k].0;
            self.resources[r as usize].queue.push_back((t, seq));
        }
        // drops stale entries and serves whoever can go now
        for k in 0..n {
            let th = &self.threads[t as usize];
            if !matches!(th.waiting, Waiting::Resource(_)) || k >= th.req.len() {
                break;
            }
            let r = th.req[k].0;
            self.serve_queue(r);
        }
        Ok(false)
    }
}
