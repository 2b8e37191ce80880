//! Running one process: its statements in order until it waits, schedules its next
//! event or finishes.
use rand::Rng;

use super::engine::{Cond, Engine, Frame, Waiting};
use super::events::Ev;
use super::program::{Node, SimProgram};
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
            match frame {
                Frame::SeqPos { node, pos } => {
                    let Node::Seq(ch) = &prog.nodes[node] else {
                        unreachable!("a SeqPos frame points at a Seq node")
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
                            unreachable!("a LoopPos frame points at a Loop node")
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
                        if self.keeps_control(at) {
                            self.advance(at)?;
                            continue;
                        }
                        self.schedule(at, Ev::Resume(t));
                        return Ok(());
                    }
                    Node::Use(rs, tc) => {
                        let d = self.draw(tc, env)?;
                        if !self.contention {
                            let at = self.now + d;
                            if self.keeps_control(at) {
                                self.advance(at)?;
                                continue;
                            }
                            self.schedule(at, Ev::Resume(t));
                            return Ok(());
                        }
                        // P(U): granted at once, or the thread waits (FCFS queue or PS)
                        if !self.use_resources(t, rs, d, env)? {
                            return Ok(());
                        }
                        // delay(t) ; V(U), then go on
                        if !self.serve(t)? {
                            return Ok(());
                        }
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
}
