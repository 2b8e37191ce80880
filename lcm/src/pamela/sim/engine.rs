//! The simulation state: processes (threads with a stack of frames), resources,
//! conditions and the clock, and the loop that processes the event list.
use std::collections::{BinaryHeap, HashMap};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::events::{Entry, Ev};
use super::program::{CondCode, SimProgram, TimeCode};
use super::resources::Resource;
use super::Arbitration;
use crate::pamela::error::PamelaError;
use crate::pamela::eval::as_int;

/// Where a thread is in its statement tree.
#[derive(Clone, Copy, Debug)]
pub(super) enum Frame {
    Node(usize),
    SeqPos { node: usize, pos: usize },
    LoopPos { node: usize, i: i64, hi: i64 },
}

/// A process: its variables, its position and what it waits for.
#[derive(Debug, Default)]
pub(super) struct Thread {
    pub(super) env: Vec<f64>,
    pub(super) stack: Vec<Frame>,
    parent: Option<u32>,
    pub(super) pending: u32,
    /// Units requested / held: (resource, count).
    pub(super) req: Vec<(u32, u32)>,
    /// Service time of the request.
    pub(super) req_time: f64,
    /// Incremented at each grant, so stale queue entries can be skipped.
    pub(super) req_seq: u32,
    pub(super) waiting: Waiting,
}

/// Why a thread does not run.
#[derive(Debug, Default, Clone, Copy)]
pub(super) enum Waiting {
    #[default]
    Nothing,
    Resource(u32),
    Condition(u32),
    Children,
}

/// A single-assignment condition (`signal` / `wait`).
pub(super) struct Cond {
    pub(super) signalled: bool,
    pub(super) waiters: Vec<u32>,
}

/// One run of a [`SimProgram`].
pub(super) struct Engine<'a> {
    pub(super) prog: &'a SimProgram,
    /// false: resources are infinite servers and times their means (time equations).
    pub(super) contention: bool,
    /// [`Arbitration::Fifo`].
    pub(super) fifo: bool,
    /// Enqueue counter (the Fifo tie-break key).
    pub(super) seq: u64,
    /// Virtual time.
    pub(super) now: f64,
    pub(super) heap: BinaryHeap<Entry>,
    pub(super) rng: ChaCha8Rng,
    pub(super) threads: Vec<Thread>,
    /// Finished thread slots for reuse.
    pub(super) free: Vec<u32>,
    pub(super) resources: Vec<Resource>,
    /// Resource ids by family and small index; larger indices in `res_sparse`.
    pub(super) res_dense: Vec<Vec<u32>>,
    pub(super) res_sparse: HashMap<(usize, i64), u32>,
    pub(super) conds: HashMap<(u32, Vec<i64>), Cond>,
    /// Events processed (through the list or by a process keeping control).
    pub(super) events: u64,
    /// Loop iterations and spawned processes (bounded like events, so that models
    /// without events cannot run forever).
    pub(super) work: u64,
    /// Threads spawned and not finished.
    pub(super) live: usize,
    pub(super) max_events: u64,
}

/// "No resource" in the dense resource table.
pub(super) const NO_RES: u32 = u32::MAX;

impl<'a> Engine<'a> {
    pub(super) fn new(
        prog: &'a SimProgram,
        contention: bool,
        arbitration: Arbitration,
        seed: u64,
        max_events: u64,
    ) -> Engine<'a> {
        Engine {
            prog,
            contention,
            fifo: arbitration == Arbitration::Fifo,
            seq: 0,
            now: 0.0,
            heap: BinaryHeap::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            threads: Vec::new(),
            free: Vec::new(),
            resources: Vec::new(),
            res_dense: vec![Vec::new(); prog.families.len()],
            res_sparse: HashMap::new(),
            conds: HashMap::new(),
            events: 0,
            work: 0,
            live: 0,
            max_events,
        }
    }

    /// Makes `root` runnable at time 0.
    pub(super) fn start(&mut self, root: u32) {
        self.schedule(0.0, Ev::Resume(root));
    }
}

impl Engine<'_> {
    pub(super) fn spawn(&mut self, env: Vec<f64>, node: usize, parent: Option<u32>) -> u32 {
        self.live += 1;
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.threads.push(Thread::default());
                (self.threads.len() - 1) as u32
            }
        };
        let t = &mut self.threads[id as usize];
        t.env = env;
        t.stack.clear();
        t.stack.push(Frame::Node(node));
        t.parent = parent;
        t.pending = 0;
        t.waiting = Waiting::Nothing;
        id
    }

    pub(super) fn spawn_copy(&mut self, from: u32, node: usize, slot: Option<(usize, f64)>) -> u32 {
        let mut env = match self.free.last() {
            Some(&id) => std::mem::take(&mut self.threads[id as usize].env),
            None => Vec::new(),
        };
        env.clear();
        env.extend_from_slice(&self.threads[from as usize].env);
        if let Some((s, v)) = slot {
            env[s] = v;
        }
        self.spawn(env, node, Some(from))
    }

    pub(super) fn main_loop(&mut self) -> Result<(), PamelaError> {
        while let Some(entry) = self.heap.pop() {
            let (time, ev) = (entry.time(), entry.ev);
            self.events += 1;
            if self.events > self.max_events {
                return Err(PamelaError::TooManyEvents {
                    events: self.events - 1,
                });
            }
            self.now = time;
            match ev {
                Ev::Resume(t) => self.step(t)?,
                Ev::Release(t) => {
                    self.release(t);
                    self.step(t)?;
                }
                Ev::Granted(t) => {
                    if self.serve(t)? {
                        self.step(t)?;
                    }
                }
                Ev::PsDone(r, version) => self.ps_done(r, version),
            }
        }
        if self.live > 0 {
            return Err(self.deadlock());
        }
        Ok(())
    }

    fn deadlock(&self) -> PamelaError {
        let mut details = Vec::new();
        let mut blocked = 0;
        for (k, t) in self.threads.iter().enumerate() {
            if self.free.contains(&(k as u32)) {
                continue;
            }
            match t.waiting {
                Waiting::Condition(c) => {
                    blocked += 1;
                    if details.len() < 3 {
                        let key = self
                            .conds
                            .iter()
                            .find(|(_, v)| v.waiters.contains(&(k as u32)))
                            .map(|(k, _)| k.clone());
                        let name = &self.prog.conds[c as usize];
                        match key {
                            Some((_, args)) if !args.is_empty() => {
                                let a: Vec<String> = args.iter().map(|x| x.to_string()).collect();
                                details.push(format!("wait({name}({}))", a.join(", ")))
                            }
                            _ => details.push(format!("wait({name})")),
                        }
                    }
                }
                Waiting::Resource(r) => {
                    blocked += 1;
                    if details.len() < 3 && r != NO_RES {
                        let res = &self.resources[r as usize];
                        details.push(format!(
                            "use({}({}))",
                            self.prog.families[res.family], res.index
                        ));
                    }
                }
                _ => {}
            }
        }
        PamelaError::Deadlock {
            time: self.now,
            blocked,
            detail: if details.is_empty() {
                "no signal for their conditions".into()
            } else {
                details.join(", ")
            },
        }
    }

    pub(super) fn draw(&mut self, t: &TimeCode, env: &mut [f64]) -> Result<f64, PamelaError> {
        let v = match t {
            TimeCode::Det(c) => c.eval(env)?,
            TimeCode::Exp(c) => {
                let m = c.eval(env)?;
                if self.contention {
                    let u: f64 = 1.0 - self.rng.gen::<f64>();
                    -m * u.ln()
                } else {
                    m
                }
            }
            TimeCode::Uniform(a, b) => {
                let (a, b) = (a.eval(env)?, b.eval(env)?);
                if self.contention {
                    a + (b - a) * self.rng.gen::<f64>()
                } else {
                    0.5 * (a + b)
                }
            }
        };
        if v.is_nan() || v < 0.0 {
            return Err(PamelaError::Eval(format!(
                "a time must be non-negative, got {v}"
            )));
        }
        Ok(v)
    }

    pub(super) fn finish(&mut self, t: u32) {
        self.live -= 1;
        let parent = self.threads[t as usize].parent;
        self.free.push(t);
        if let Some(p) = parent {
            let pt = &mut self.threads[p as usize];
            pt.pending -= 1;
            if pt.pending == 0 {
                pt.waiting = Waiting::Nothing;
                let now = self.now;
                self.schedule(now, Ev::Resume(p));
            }
        }
    }

    pub(super) fn cond_key(
        &self,
        c: &CondCode,
        env: &mut [f64],
    ) -> Result<(u32, Vec<i64>), PamelaError> {
        let mut args = Vec::with_capacity(c.args.len());
        for a in &c.args {
            args.push(as_int(a.eval(env)?, "a condition index")?);
        }
        Ok((c.name, args))
    }
}
