//! Running one process: its statements in order until it waits, schedules its next
//! event or finishes.
use rand::Rng;

use super::engine::{Cond, Engine, Frame, Waiting};
use super::events::Ev;
use super::program::{CondCode, Node, SimProgram};
use crate::pamela::error::PamelaError;
use crate::pamela::eval::as_int;

impl Engine<'_> {
    /// Runs thread `t` at the current time until it blocks, schedules or finishes.
    pub(super) fn step(&mut self, t: u32) -> Result<(), PamelaError> {
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
            let flow = match frame {
                Frame::SeqPos { node, pos } => {
                    self.next_in_seq(t, prog, node, pos);
                    Flow::Next
                }
                Frame::LoopPos { node, i, hi } => {
                    self.next_iteration(t, prog, env, node, i, hi)?;
                    Flow::Next
                }
                Frame::Node(n) => self.run_node(t, prog, env, n)?,
            };
            if let Flow::Yield = flow {
                return Ok(());
            }
        }
    }

    /// Goes on with the statement after position `pos - 1` of sequence `node`.
    fn next_in_seq(&mut self, t: u32, prog: &SimProgram, node: usize, pos: usize) {
        let Node::Seq(ch) = &prog.nodes[node] else {
            unreachable!("a SeqPos frame points at a Seq node")
        };
        if pos < ch.len() {
            let st = &mut self.threads[t as usize].stack;
            st.push(Frame::SeqPos { node, pos: pos + 1 });
            st.push(Frame::Node(ch[pos]));
        }
    }

    /// Runs the next iteration of sequential loop `node` after iteration `i` (of `hi`).
    fn next_iteration(
        &mut self,
        t: u32,
        prog: &SimProgram,
        env: &mut [f64],
        node: usize,
        i: i64,
        hi: i64,
    ) -> Result<(), PamelaError> {
        self.work += 1;
        if self.work > self.max_events {
            return Err(PamelaError::TooManyEvents {
                events: self.events,
            });
        }
        if i < hi {
            let Node::Loop { slot, body, .. } = &prog.nodes[node] else {
                unreachable!("a LoopPos frame points at a Loop node")
            };
            env[*slot] = (i + 1) as f64;
            let st = &mut self.threads[t as usize].stack;
            st.push(Frame::LoopPos { node, i: i + 1, hi });
            st.push(Frame::Node(*body));
        }
        Ok(())
    }

    /// Starts statement `n`.
    fn run_node(
        &mut self,
        t: u32,
        prog: &SimProgram,
        env: &mut Vec<f64>,
        n: usize,
    ) -> Result<Flow, PamelaError> {
        Ok(match &prog.nodes[n] {
            Node::Nil => Flow::Next,
            Node::Delay(tc) => {
                let d = self.draw(tc, env)?;
                self.hold(t, d)?
            }
            Node::Use(rs, tc) => {
                let d = self.draw(tc, env)?;
                if !self.contention {
                    return self.hold(t, d);
                }
                // P(U): granted at once, or the thread waits (FCFS queue or PS);
                // then delay(t) ; V(U), and go on
                if self.use_resources(t, rs, d, env)? && self.serve(t)? {
                    Flow::Next
                } else {
                    Flow::Yield
                }
            }
            Node::Seq(ch) => {
                if !ch.is_empty() {
                    let st = &mut self.threads[t as usize].stack;
                    st.push(Frame::SeqPos { node: n, pos: 1 });
                    st.push(Frame::Node(ch[0]));
                }
                Flow::Next
            }
            Node::Par(ch) => self.fork(t, ch, env)?,
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
                    return Ok(Flow::Next);
                }
                if *par {
                    return self.fork_loop(t, *slot, lo, hi, *body, env);
                }
                env[*slot] = lo as f64;
                let st = &mut self.threads[t as usize].stack;
                st.push(Frame::LoopPos { node: n, i: lo, hi });
                st.push(Frame::Node(*body));
                Flow::Next
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
                self.threads[t as usize]
                    .stack
                    .push(Frame::Node(if take_a { *a } else { *b }));
                Flow::Next
            }
            Node::Signal(cs) => {
                self.signal(cs, env)?;
                Flow::Next
            }
            Node::Wait(cs) => self.wait(t, n, cs, env)?,
        })
    }

    /// `delay(d)`: goes on at once when no other event comes first, else resumes at
    /// `now + d`.
    fn hold(&mut self, t: u32, d: f64) -> Result<Flow, PamelaError> {
        let at = self.now + d;
        if self.keeps_control(at) {
            self.advance(at)?;
            return Ok(Flow::Next);
        }
        self.schedule(at, Ev::Resume(t));
        Ok(Flow::Yield)
    }

    /// `a || b || ...`: one child thread per branch; `t` waits for them.
    fn fork(&mut self, t: u32, ch: &[usize], env: &mut Vec<f64>) -> Result<Flow, PamelaError> {
        if ch.is_empty() {
            return Ok(Flow::Next);
        }
        if self.live + ch.len() > crate::pamela::MAX_LIVE_PROCESSES {
            return Err(PamelaError::TooManyProcesses {
                wanted: ch.len() as u64,
                live: self.live,
                limit: crate::pamela::MAX_LIVE_PROCESSES,
            });
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
        Ok(Flow::Yield)
    }

    /// `par (i = lo, hi) body` with lo <= hi: one child thread per index value (in `slot`);
    /// `t` waits for them.
    fn fork_loop(
        &mut self,
        t: u32,
        slot: usize,
        lo: i64,
        hi: i64,
        body: usize,
        env: &mut Vec<f64>,
    ) -> Result<Flow, PamelaError> {
        let n = (hi - lo + 1) as u64;
        self.work += n;
        if self.work > self.max_events || n > u32::MAX as u64 {
            return Err(PamelaError::TooManyEvents {
                events: self.events,
            });
        }
        let limit = crate::pamela::MAX_LIVE_PROCESSES;
        if n > (limit - self.live.min(limit)) as u64 {
            return Err(PamelaError::TooManyProcesses {
                wanted: n,
                live: self.live,
                limit,
            });
        }
        self.threads[t as usize].env = std::mem::take(env);
        for i in lo..=hi {
            let child = self.spawn_copy(t, body, Some((slot, i as f64)));
            let now = self.now;
            self.schedule(now, Ev::Resume(child));
        }
        let th = &mut self.threads[t as usize];
        th.pending = (hi - lo + 1) as u32;
        th.waiting = Waiting::Children;
        Ok(Flow::Yield)
    }

    /// The condition `c` names (with its indices evaluated in `env`), created unsignalled.
    fn cond(&mut self, c: &CondCode, env: &mut [f64]) -> Result<&mut Cond, PamelaError> {
        let key = self.cond_key(c, env)?;
        Ok(self.conds.entry(key).or_insert(Cond {
            signalled: false,
            waiters: Vec::new(),
        }))
    }

    /// `signal(c, ...)`: marks the conditions signalled and wakes their waiters.
    fn signal(&mut self, cs: &[CondCode], env: &mut [f64]) -> Result<(), PamelaError> {
        for c in cs {
            let e = self.cond(c, env)?;
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
        Ok(())
    }

    /// `wait(c, ...)` (statement `n`): goes on when every condition is signalled, else
    /// waits on the first that is not and checks the whole wait again when woken.
    fn wait(
        &mut self,
        t: u32,
        n: usize,
        cs: &[CondCode],
        env: &mut [f64],
    ) -> Result<Flow, PamelaError> {
        for c in cs {
            let e = self.cond(c, env)?;
            if !e.signalled {
                e.waiters.push(t);
                let th = &mut self.threads[t as usize];
                th.stack.push(Frame::Node(n));
                th.waiting = Waiting::Condition(c.name);
                return Ok(Flow::Yield);
            }
        }
        Ok(Flow::Next)
    }
}

/// What a thread does after a statement: go on with its next frame, or give up control
/// (it waits, or its next event lies ahead).
enum Flow {
    Next,
    Yield,
}
