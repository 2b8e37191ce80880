//! Discrete-event simulation of a PAMELA model in virtual time (thesis appendix E: the
//! run-time library's semantics).
//!
//! Every `par` branch is a process with its own virtual clock. `delay` advances the
//! clock; `use` acquires a resource multiset: FCFS resources of multiplicity m serve m
//! holders at a time in arrival order (a multiset request waits until all of its units
//! are free at once and never blocks requests behind it that can be served); PS resources
//! share their m servers among all current users (rate min(1, m/n) each). Events at equal
//! virtual times are processed in a random order drawn from the seed, which is the
//! non-deterministic conflict arbitration of the language. `exp(mean)` and
//! `uniform(a, b)` time arguments are drawn at each execution. `if (c)` with 0 < c < 1
//! takes the first branch with probability c. When no event is left while processes are
//! still blocked (a `wait` that no `signal` will satisfy), the run reports a deadlock.
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::ast::{ServerKind, Time};
use super::error::PamelaError;
use super::eval::{as_int, Bindings, Code, SlotMap};
use super::normal::NProc;

/// How to simulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimOptions {
    /// Number of independent replications (at least 1).
    pub runs: usize,
    /// Seed of the first replication; replication k uses a stream derived from seed and k.
    pub seed: u64,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions { runs: 1, seed: 1 }
    }
}

/// How events at equal virtual times are ordered (the language's conflict arbitration).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Arbitration {
    /// In a random order drawn from the seed (the default: the language's
    /// non-deterministic arbitration; replications sample it).
    #[default]
    Random,
    /// In the order they were scheduled (first come, first served among equals, like the
    /// PAMELA run-time library's time-stamp ordered queues): deterministic.
    Fifo,
}

/// Result of the replications. Times are in the model's time unit.
#[derive(Clone, Debug, PartialEq)]
pub struct SimReport {
    /// Mean simulated completion time of `main`.
    pub mean: f64,
    /// Sample standard deviation over the runs (0 for one run).
    pub sd: f64,
    /// Number of runs.
    pub runs: usize,
    /// The compiled lower bound `T_main` at the same bindings.
    pub t_lower: f64,
    /// Completion time of every run.
    pub samples: Vec<f64>,
    /// Events processed over all runs.
    pub events: u64,
}

impl SimReport {
    /// `t_lower / mean` (1 when both are 0).
    pub fn ratio(&self) -> f64 {
        if self.mean == 0.0 {
            if self.t_lower == 0.0 {
                1.0
            } else {
                f64::INFINITY
            }
        } else {
            self.t_lower / self.mean
        }
    }
}

#[derive(Clone, Debug)]
enum TimeCode {
    Det(Code),
    Exp(Code),
    Uniform(Code, Code),
}

#[derive(Clone, Debug)]
struct ResCode {
    family: usize,
    kind: ServerKind,
    /// Resolved at compile time when the index and multiplicity are constants.
    fixed: Option<(i64, f64)>,
    index: Code,
    multiplicity: Code,
}

#[derive(Clone, Debug)]
struct CondCode {
    name: u32,
    args: Vec<Code>,
}

#[derive(Clone, Debug)]
enum Node {
    Delay(TimeCode),
    Use(Vec<ResCode>, TimeCode),
    Wait(Vec<CondCode>),
    Signal(Vec<CondCode>),
    Seq(Vec<usize>),
    Par(Vec<usize>),
    Loop {
        par: bool,
        slot: usize,
        lo: Code,
        hi: Code,
        body: usize,
    },
    If(Code, usize, usize),
    Nil,
}

/// A process tree translated for simulation.
#[derive(Debug)]
pub(crate) struct SimProgram {
    nodes: Vec<Node>,
    root: usize,
    nslots: usize,
    params: Vec<String>,
    families: Vec<String>,
    conds: Vec<String>,
}

struct Builder {
    slots: SlotMap,
    nodes: Vec<Node>,
    families: Vec<String>,
    conds: Vec<String>,
}

fn intern(v: &mut Vec<String>, s: &str) -> usize {
    match v.iter().position(|x| x == s) {
        Some(i) => i,
        None => {
            v.push(s.to_string());
            v.len() - 1
        }
    }
}

impl Builder {
    fn time(&mut self, t: &Time) -> Result<TimeCode, PamelaError> {
        Ok(match t {
            Time::Det(e) => TimeCode::Det(self.slots.compile(e)?),
            Time::Exp(e) => TimeCode::Exp(self.slots.compile(e)?),
            Time::Uniform(a, b) => {
                TimeCode::Uniform(self.slots.compile(a)?, self.slots.compile(b)?)
            }
        })
    }
    fn node(&mut self, p: &NProc) -> Result<usize, PamelaError> {
        let n = match p {
            NProc::Nil => Node::Nil,
            NProc::Delay(t) => Node::Delay(self.time(t)?),
            NProc::Use(rs, t) => {
                let mut out = Vec::new();
                for r in rs {
                    let index = self.slots.compile(&r.index)?;
                    let multiplicity = self.slots.compile(&r.multiplicity)?;
                    let fixed = match (&index, &multiplicity) {
                        (Code::Const(i), Code::Const(m)) => {
                            Some((as_int(*i, "a resource index")?, *m))
                        }
                        _ => None,
                    };
                    out.push(ResCode {
                        family: intern(&mut self.families, &r.family),
                        kind: r.kind,
                        fixed,
                        index,
                        multiplicity,
                    });
                }
                Node::Use(out, self.time(t)?)
            }
            NProc::Wait(cs) | NProc::Signal(cs) => {
                let mut out = Vec::new();
                for c in cs {
                    out.push(CondCode {
                        name: intern(&mut self.conds, &c.name) as u32,
                        args: c
                            .args
                            .iter()
                            .map(|a| self.slots.compile(a))
                            .collect::<Result<_, _>>()?,
                    });
                }
                if matches!(p, NProc::Wait(_)) {
                    Node::Wait(out)
                } else {
                    Node::Signal(out)
                }
            }
            NProc::Seq(v) => Node::Seq(v.iter().map(|x| self.node(x)).collect::<Result<_, _>>()?),
            NProc::Par(v) => Node::Par(v.iter().map(|x| self.node(x)).collect::<Result<_, _>>()?),
            NProc::Loop {
                par,
                index,
                lo,
                hi,
                body,
            } => {
                let lo = self.slots.compile(lo)?;
                let hi = self.slots.compile(hi)?;
                let slot = self.slots.bind(index);
                let body = self.node(body);
                self.slots.unbind();
                Node::Loop {
                    par: *par,
                    slot,
                    lo,
                    hi,
                    body: body?,
                }
            }
            NProc::If(c, a, b) => {
                let c = self.slots.compile(c)?;
                let a = self.node(a)?;
                let b = self.node(b)?;
                Node::If(c, a, b)
            }
        };
        self.nodes.push(n);
        Ok(self.nodes.len() - 1)
    }
}

impl SimProgram {
    /// Translates `p`; `params` are the names whose values the bindings give.
    pub(crate) fn new(p: &NProc, params: &[String]) -> Result<SimProgram, PamelaError> {
        let mut b = Builder {
            slots: SlotMap::with_names(params),
            nodes: Vec::new(),
            families: Vec::new(),
            conds: Vec::new(),
        };
        let root = b.node(p)?;
        Ok(SimProgram {
            nodes: b.nodes,
            root,
            nslots: b.slots.len(),
            params: params.to_vec(),
            families: b.families,
            conds: b.conds,
        })
    }

    /// Runs the model once. `contention = false` treats every resource as an infinite
    /// server and every time as its mean (the time equations of thesis Eq. 3.1-3.3).
    pub(crate) fn run(
        &self,
        bindings: &Bindings,
        seed: u64,
        contention: bool,
        arbitration: Arbitration,
        max_events: u64,
    ) -> Result<(f64, u64), PamelaError> {
        let mut env = vec![0.0; self.nslots];
        for (k, n) in self.params.iter().enumerate() {
            env[k] = *bindings
                .get(n)
                .ok_or_else(|| PamelaError::Unbound { name: n.clone() })?;
        }
        let mut e = Engine {
            prog: self,
            contention,
            fifo: arbitration == Arbitration::Fifo,
            seq: 0,
            now: 0.0,
            heap: BinaryHeap::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            threads: Vec::new(),
            free: Vec::new(),
            resources: Vec::new(),
            res_dense: vec![Vec::new(); self.families.len()],
            res_sparse: HashMap::new(),
            conds: HashMap::new(),
            events: 0,
            work: 0,
            live: 0,
            max_events,
        };
        let root = e.spawn(env, self.root, None);
        e.schedule(0.0, Ev::Resume(root));
        e.main_loop()?;
        Ok((e.now, e.events))
    }
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    /// Continue a thread (start, end of delay, join, wake-up).
    Resume(u32),
    /// End of an FCFS service: release the thread's units, then continue it.
    Release(u32),
    /// Next completion on a PS resource (stale when the version moved on).
    PsDone(u32, u64),
}

/// A scheduled event. `prio` packs the time (non-negative, so its bits order like the
/// value) above the tie-break key: one integer comparison orders the heap.
struct Entry {
    prio: u128,
    ev: Ev,
}
impl Entry {
    fn time(&self) -> f64 {
        f64::from_bits((self.prio >> 64) as u64)
    }
}
impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.prio == o.prio
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        // reversed: BinaryHeap is a max-heap
        o.prio.cmp(&self.prio)
    }
}

#[derive(Clone, Copy, Debug)]
enum Frame {
    Node(usize),
    SeqPos { node: usize, pos: usize },
    LoopPos { node: usize, i: i64, hi: i64 },
}

#[derive(Debug, Default)]
struct Thread {
    env: Vec<f64>,
    stack: Vec<Frame>,
    parent: Option<u32>,
    pending: u32,
    /// Units requested / held: (resource, count).
    req: Vec<(u32, u32)>,
    req_time: f64,
    /// Incremented at each grant, so stale queue entries can be skipped.
    req_seq: u32,
    waiting: Waiting,
}

#[derive(Debug, Default, Clone, Copy)]
enum Waiting {
    #[default]
    Nothing,
    Resource(u32),
    Condition(u32),
    Children,
}

struct PsJob {
    finish: f64,
    thread: u32,
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

struct Resource {
    family: usize,
    index: i64,
    kind: ServerKind,
    multiplicity: f64,
    free: i64,
    queue: VecDeque<(u32, u32)>,
    // processor sharing state
    jobs: BinaryHeap<PsJob>,
    virt: f64,
    last: f64,
    version: u64,
}

struct Cond {
    signalled: bool,
    waiters: Vec<u32>,
}

struct Engine<'a> {
    prog: &'a SimProgram,
    contention: bool,
    fifo: bool,
    seq: u64,
    now: f64,
    heap: BinaryHeap<Entry>,
    rng: ChaCha8Rng,
    threads: Vec<Thread>,
    free: Vec<u32>,
    resources: Vec<Resource>,
    res_dense: Vec<Vec<u32>>,
    res_sparse: HashMap<(usize, i64), u32>,
    conds: HashMap<(u32, Vec<i64>), Cond>,
    events: u64,
    /// Loop iterations and spawned processes (bounded like events, so that models
    /// without events cannot run forever).
    work: u64,
    live: usize,
    max_events: u64,
}

const NO_RES: u32 = u32::MAX;

impl Engine<'_> {
    fn schedule(&mut self, time: f64, ev: Ev) {
        let key = if self.fifo {
            self.seq += 1;
            self.seq
        } else {
            self.rng.next_u64()
        };
        // times are >= 0 (+0.0 normalizes -0.0), so the bit pattern is monotone
        let bits = (time + 0.0).to_bits() as u128;
        self.heap.push(Entry {
            prio: (bits << 64) | key as u128,
            ev,
        });
    }

    fn spawn(&mut self, env: Vec<f64>, node: usize, parent: Option<u32>) -> u32 {
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

    fn spawn_copy(&mut self, from: u32, node: usize, slot: Option<(usize, f64)>) -> u32 {
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

    fn main_loop(&mut self) -> Result<(), PamelaError> {
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

    fn draw(&mut self, t: &TimeCode, env: &mut [f64]) -> Result<f64, PamelaError> {
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

    fn can_grant(&self, t: u32) -> bool {
        self.threads[t as usize]
            .req
            .iter()
            .all(|&(r, c)| self.resources[r as usize].free >= c as i64)
    }

    fn grant(&mut self, t: u32) {
        let th = &mut self.threads[t as usize];
        th.req_seq = th.req_seq.wrapping_add(1);
        th.waiting = Waiting::Nothing;
        for &(r, c) in &th.req {
            self.resources[r as usize].free -= c as i64;
        }
        let at = self.now + th.req_time;
        self.schedule(at, Ev::Release(t));
    }

    fn release(&mut self, t: u32) {
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

    fn serve_queue(&mut self, r: u32) {
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

    fn ps_rate(res: &Resource) -> f64 {
        let n = res.jobs.len() as f64;
        if n <= res.multiplicity {
            1.0
        } else {
            res.multiplicity / n
        }
    }

    fn ps_advance(&mut self, r: u32) {
        let now = self.now;
        let res = &mut self.resources[r as usize];
        if !res.jobs.is_empty() {
            res.virt += (now - res.last) * Self::ps_rate(res);
        }
        res.last = now;
    }

    fn ps_reschedule(&mut self, r: u32) {
        let res = &mut self.resources[r as usize];
        res.version += 1;
        if let Some(j) = res.jobs.peek() {
            let dt = ((j.finish - res.virt) / Self::ps_rate(res)).max(0.0);
            let (at, v) = (self.now + dt, res.version);
            self.schedule(at, Ev::PsDone(r, v));
        }
    }

    fn ps_done(&mut self, r: u32, version: u64) {
        if self.resources[r as usize].version != version {
            return;
        }
        self.ps_advance(r);
        let mut done = Vec::new();
        {
            let res = &mut self.resources[r as usize];
            let eps = 1e-9 * res.virt.abs().max(1.0);
            while let Some(j) = res.jobs.peek() {
                if j.finish <= res.virt + eps {
                    done.push(res.jobs.pop().unwrap().thread);
                } else {
                    break;
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

    fn finish(&mut self, t: u32) {
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

    fn cond_key(&self, c: &CondCode, env: &mut [f64]) -> Result<(u32, Vec<i64>), PamelaError> {
        let mut args = Vec::with_capacity(c.args.len());
        for a in &c.args {
            args.push(as_int(a.eval(env)?, "a condition index")?);
        }
        Ok((c.name, args))
    }

    /// Runs thread `t` at the current time until it blocks, schedules or finishes.
    fn step(&mut self, t: u32) -> Result<(), PamelaError> {
        let prog = self.prog;
        let mut env = std::mem::take(&mut self.threads[t as usize].env);
        let r = self.step_inner(t, prog, &mut env);
        if !env.is_empty() {
            self.threads[t as usize].env = env;
        }
        r
    }

    fn step_inner(
        &mut self,
        t: u32,
        prog: &SimProgram,
        env: &mut Vec<f64>,
    ) -> Result<(), PamelaError> {
        loop {
            let Some(frame) = self.threads[t as usize].stack.pop() else {
                // give the environment back before the slot is reused
                self.threads[t as usize].env = std::mem::take(env);
                self.finish(t);
                return Ok(());
            };
            match frame {
                Frame::SeqPos { node, pos } => {
                    let Node::Seq(ch) = &prog.nodes[node] else {
                        unreachable!()
                    };
                    if pos < ch.len() {
                        let st = &mut self.threads[t as usize].stack;
                        st.push(Frame::SeqPos { node, pos: pos + 1 });
                        st.push(Frame::Node(ch[pos]));
                    }
                }
                Frame::LoopPos { node, i, hi } => {
                    self.work += 1;
                    if self.work > self.max_events {
                        return Err(PamelaError::TooManyEvents {
                            events: self.events,
                        });
                    }
                    if i < hi {
                        let Node::Loop { slot, body, .. } = &prog.nodes[node] else {
                            unreachable!()
                        };
                        env[*slot] = (i + 1) as f64;
                        let st = &mut self.threads[t as usize].stack;
                        st.push(Frame::LoopPos { node, i: i + 1, hi });
                        st.push(Frame::Node(*body));
                    }
                }
                Frame::Node(n) => match &prog.nodes[n] {
                    Node::Nil => {}
                    Node::Delay(tc) => {
                        let d = self.draw(tc, env)?;
                        let at = self.now + d;
                        self.schedule(at, Ev::Resume(t));
                        return Ok(());
                    }
                    Node::Use(rs, tc) => {
                        let d = self.draw(tc, env)?;
                        if !self.contention {
                            let at = self.now + d;
                            self.schedule(at, Ev::Resume(t));
                            return Ok(());
                        }
                        return self.use_resources(t, rs, d, env);
                    }
                    Node::Seq(ch) => {
                        if !ch.is_empty() {
                            let st = &mut self.threads[t as usize].stack;
                            st.push(Frame::SeqPos { node: n, pos: 1 });
                            st.push(Frame::Node(ch[0]));
                        }
                    }
                    Node::Par(ch) => {
                        if ch.is_empty() {
                            continue;
                        }
                        self.threads[t as usize].env = std::mem::take(env);
                        for &c in ch {
                            let child = self.spawn_copy(t, c, None);
                            let now = self.now;
                            self.schedule(now, Ev::Resume(child));
                        }
                        let th = &mut self.threads[t as usize];
                        th.pending = ch.len() as u32;
                        th.waiting = Waiting::Children;
                        return Ok(());
                    }
                    Node::Loop {
                        par,
                        slot,
                        lo,
                        hi,
                        body,
                    } => {
                        let lo = as_int(lo.eval(env)?, "a loop bound")?;
                        let hi = as_int(hi.eval(env)?, "a loop bound")?;
                        if hi < lo {
                            continue;
                        }
                        if *par {
                            let n = (hi - lo + 1) as u64;
                            self.work += n;
                            if self.work > self.max_events || n > u32::MAX as u64 {
                                return Err(PamelaError::TooManyEvents {
                                    events: self.events,
                                });
                            }
                            self.threads[t as usize].env = std::mem::take(env);
                            for i in lo..=hi {
                                let child = self.spawn_copy(t, *body, Some((*slot, i as f64)));
                                let now = self.now;
                                self.schedule(now, Ev::Resume(child));
                            }
                            let th = &mut self.threads[t as usize];
                            th.pending = (hi - lo + 1) as u32;
                            th.waiting = Waiting::Children;
                            return Ok(());
                        }
                        env[*slot] = lo as f64;
                        let st = &mut self.threads[t as usize].stack;
                        st.push(Frame::LoopPos { node: n, i: lo, hi });
                        st.push(Frame::Node(*body));
                    }
                    Node::If(c, a, b) => {
                        let c = c.eval(env)?;
                        let take_a = if c <= 0.0 {
                            false
                        } else if c >= 1.0 {
                            true
                        } else {
                            self.rng.gen::<f64>() < c
                        };
                        self.threads[t as usize].stack.push(Frame::Node(if take_a {
                            *a
                        } else {
                            *b
                        }));
                    }
                    Node::Signal(cs) => {
                        for c in cs {
                            let key = self.cond_key(c, env)?;
                            let e = self.conds.entry(key).or_insert(Cond {
                                signalled: false,
                                waiters: Vec::new(),
                            });
                            if !e.signalled {
                                e.signalled = true;
                                let ws = std::mem::take(&mut e.waiters);
                                for w in ws {
                                    self.threads[w as usize].waiting = Waiting::Nothing;
                                    let now = self.now;
                                    self.schedule(now, Ev::Resume(w));
                                }
                            }
                        }
                    }
                    Node::Wait(cs) => {
                        for c in cs {
                            let key = self.cond_key(c, env)?;
                            let e = self.conds.entry(key).or_insert(Cond {
                                signalled: false,
                                waiters: Vec::new(),
                            });
                            if !e.signalled {
                                e.waiters.push(t);
                                let th = &mut self.threads[t as usize];
                                // re-check the whole wait when woken
                                th.stack.push(Frame::Node(n));
                                th.waiting = Waiting::Condition(c.name);
                                return Ok(());
                            }
                        }
                    }
                },
            }
        }
    }

    fn use_resources(
        &mut self,
        t: u32,
        rs: &[ResCode],
        d: f64,
        env: &mut [f64],
    ) -> Result<(), PamelaError> {
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
            return Ok(());
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
            self.grant(t);
            return Ok(());
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
        Ok(())
    }
}

/// Runs `p` `options.runs` times and summarizes; `t_lower` is filled in by the caller.
pub(crate) fn replicate(
    prog: &SimProgram,
    bindings: &Bindings,
    options: &SimOptions,
    arbitration: Arbitration,
    max_events: u64,
) -> Result<SimReport, PamelaError> {
    let runs = options.runs.max(1);
    let mut samples = Vec::with_capacity(runs);
    let mut events = 0;
    for k in 0..runs {
        let seed = options
            .seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(k as u64);
        let (t, ev) = prog.run(
            bindings,
            seed,
            true,
            arbitration,
            max_events.saturating_sub(events),
        )?;
        samples.push(t);
        events += ev;
    }
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    let sd = if samples.len() > 1 {
        (samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    Ok(SimReport {
        mean,
        sd,
        runs,
        t_lower: f64::NAN,
        samples,
        events,
    })
}
