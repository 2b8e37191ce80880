//! Composition: the structure tree becomes a PAMELA model (docs/models.md) whose `T_main`
//! is the predicted run time in seconds.
//!
//! Mapping (node → PAMELA):
//! - fragment f, processors p_f, work W_f processor-seconds per execution:
//!   `{ delay(W_f/p_f) || par (i = 1, p) use(cpu, W_f/p) }` — the critical path is T_f and
//!   the demand on the processor resource `cpu` (multiplicity p) is W_f, so fragments that run
//!   at once with more processors than exist contend (omega) instead of overlapping for free.
//!   With a memory part M_f (`ml`, or `cl + rc`), the critical path is
//!   `delay((W_f - M_f)/p_f) ; use(mem, M_f/p_f)` on a memory-system resource `mem` of
//!   multiplicity 1: concurrent memory-bound fragments serialize on it. Inside a locked region
//!   the critical path is `use(lock_m, T_f)`. Communication before it (data traces) is a
//!   `delay` added to the critical path.
//! - serial node: `;`; loop: `seq (i = 1, K)`; parallel node: `||`; spawns in a loop and
//!   data-parallel items: `par (i = 1, K)`.
//! - channel `send` / `recv` between tasks (not a pipeline): condition synchronization
//!   `signal(c)` / `wait(c)` (van Gemund Eq. 3.1-3.3); barrier waits split the tasks into
//!   phases composed in sequence.
//! - pipeline over N data sets with stage times tau_s: the material-oriented model
//!   `par (i = 1, N) { use(st_1, tau_1) ; … ; use(st_M, tau_M) }` (one FCFS resource per
//!   stage, van Gemund Example 3.5) in parallel with `delay(T_pipe)`, T_pipe the flow-shop
//!   completion time (Eq. 3.16 for equal item counts: `phi + omega - tau*`, fill plus
//!   bottleneck). The branch is the pipeline's critical path including the one-time skew
//!   (thesis section 3.6.1) that the phi/omega bound of the stages leaves out: the calculus
//!   gives `max(max(phi, omega), T_pipe) = T_pipe`, and the simulation, whose FCFS stages
//!   run the flow shop itself (exactly T_pipe for deterministic stage times), is not
//!   lengthened by it, so `lcm pamela` and `lcm simulate` agree on the composed model.

mod flow_shop;
mod phases;
mod steps;

pub use flow_shop::flow_shop_exprs;
use phases::barrier_phases;
use steps::{assemble, Equation, Step, Term};

use super::env::{fragment_terms, Env};
use super::error::{PredictError, Warning};
use super::tree::{div, Node, NodeKind, SyncOp};
use crate::pamela;
use lca::expr::{BinOp, Expr};
use std::collections::{BTreeMap, BTreeSet};

/// Which parts of the composition to include (the prediction uses all; leaving one out
/// measures what it adds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComposeOptions {
    /// Processor, memory and lock resources (contention). Off: plain delays.
    pub resources: bool,
    /// Condition synchronization (send/recv waits, barrier phases).
    pub sync: bool,
    /// Data-trace communication delays.
    pub comm: bool,
}

impl Default for ComposeOptions {
    fn default() -> Self {
        ComposeOptions {
            resources: true,
            sync: true,
            comm: true,
        }
    }
}

/// A composed PAMELA model.
#[derive(Debug, Clone)]
pub struct ComposedModel {
    /// The model, as built (what [`pamela::Program::compile`] compiles).
    pub program: pamela::Program,
    /// The same model as PAMELA text, with comments that name the source lines (what
    /// `lcm predict --pamela` prints; [`pamela::parse`] reads it back to `program`, spans
    /// aside).
    pub text: String,
    /// The numeric parameters it leaves symbolic (need bindings).
    pub parameters: BTreeSet<String>,
}

#[derive(Clone, Default)]
struct Ctx {
    lock: Option<String>,
    in_loop: bool,
}

/// Builds the PAMELA model of a tree.
pub struct Composer<'a> {
    file: &'a str,
    opts: ComposeOptions,
    comm: &'a [Option<Expr>],
    frag_idx: usize,
    index_counter: usize,
    resources: Vec<Equation>,
    numerics: Vec<Equation>,
    locks: BTreeMap<String, String>,
    uses_mem: bool,
    pipes: usize,
    sends: BTreeMap<String, usize>,
    recvs: BTreeMap<String, usize>,
    params: BTreeSet<String>,
    /// Warnings about what composition approximated.
    pub warnings: Vec<Warning>,
}

/// A PAMELA-safe identifier from any name.
pub fn ident(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    s.trim_matches('_').to_string()
}

fn var(name: &str) -> Expr {
    Expr::Var(name.to_string())
}

/// `a op b` as written (no simplification: the text shows the names).
fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::bin(op, a, b)
}

impl<'a> Composer<'a> {
    /// A composer for `file`; `comm[k]` is the communication time (seconds, an expression in
    /// the program's variables) of the moves into the k-th fragment instance in preorder,
    /// read by one thread: the fragment's p_f threads share it (c / p_f each).
    pub fn new(file: &'a str, opts: ComposeOptions, comm: &'a [Option<Expr>]) -> Composer<'a> {
        Composer {
            file,
            opts,
            comm,
            frag_idx: 0,
            index_counter: 0,
            resources: Vec::new(),
            numerics: Vec::new(),
            locks: BTreeMap::new(),
            uses_mem: false,
            pipes: 0,
            sends: BTreeMap::new(),
            recvs: BTreeMap::new(),
            params: BTreeSet::new(),
            warnings: Vec::new(),
        }
    }

    fn index(&mut self) -> String {
        self.index_counter += 1;
        format!("i{}", self.index_counter)
    }

    fn note_vars(&mut self, e: &Expr) {
        self.params.extend(e.variables());
    }

    fn numeric(&mut self, name: &str, e: &Expr) -> String {
        self.note_vars(e);
        self.numerics
            .push(Equation::Numeric(name.to_string(), e.clone()));
        name.to_string()
    }

    /// Composes the whole program.
    pub fn compose(mut self, root: &Node) -> Result<(ComposedModel, Vec<Warning>), PredictError> {
        let env = Env::root();
        let body = self.node(root, &env, &env, &Ctx::default(), 1)?;
        let body = body.unwrap_or_else(|| nothing(1));
        self.params.insert("p".into());
        for e in &self.numerics {
            if let Equation::Numeric(name, _) = e {
                self.params.remove(name);
            }
        }
        let header = [
            format!("composed by lcm predict from {}", self.file),
            "times in seconds; p = processors of the machine".to_string(),
        ];
        let mut equations: Vec<Equation> = self
            .params
            .iter()
            .cloned()
            .map(Equation::Parameter)
            .collect();
        if self.opts.resources {
            equations.push(Equation::Resource {
                name: "cpu".into(),
                index: 0,
                multiplicity: var("p"),
                note: "the processors".into(),
            });
            if self.uses_mem {
                equations.push(Equation::Resource {
                    name: "mem".into(),
                    index: 1,
                    multiplicity: Expr::Num(1.0),
                    note: "the memory system".into(),
                });
            }
        }
        equations.append(&mut self.resources);
        equations.append(&mut self.numerics);
        let (text, program) = assemble(&header, &equations, &body);
        Ok((
            ComposedModel {
                program,
                text,
                parameters: self.params.clone(),
            },
            self.warnings,
        ))
    }

    fn resource(&mut self, name: &str, comment: &str) {
        let index = self.resources.len() + 2;
        self.resources.push(Equation::Resource {
            name: name.to_string(),
            index,
            multiplicity: Expr::Num(1.0),
            note: comment.to_string(),
        });
    }

    /// The step of one node; None for what takes no part in the model (barrier waits, and
    /// sends and receives when synchronization is left out).
    fn node(
        &mut self,
        n: &Node,
        env: &Env,
        outer: &Env,
        ctx: &Ctx,
        depth: usize,
    ) -> Result<Option<Step>, PredictError> {
        let env = env.enter(n, outer);
        Ok(Some(match &n.kind {
            NodeKind::Fragment(_) => self.fragment(n, &env, ctx, depth)?,
            NodeKind::Serial { .. } => self.seq(&n.children, &env, &env, ctx, depth)?,
            NodeKind::Locked { mutex } => {
                let c = Ctx {
                    lock: Some(mutex.clone()),
                    ..ctx.clone()
                };
                self.seq(&n.children, &env, &env, &c, depth)?
            }
            NodeKind::Loop { count, .. } => {
                let index = self.index();
                let count = env.subst(count);
                self.note_vars(&count);
                let c = Ctx {
                    in_loop: true,
                    ..ctx.clone()
                };
                let body = self.seq(&n.children, &env, &env, &c, depth + 1)?;
                Step::Loop {
                    depth,
                    par: false,
                    index,
                    count,
                    note: format!("loop (line {})", n.line),
                    body: Box::new(body),
                }
            }
            NodeKind::Parallel { .. } => self.parallel(n, &env, ctx, depth)?,
            NodeKind::ParallelLoop { count, .. } => {
                // env already holds the task share; children's overrides read in `outer`.
                let index = self.index();
                let count = env.subst(count);
                self.note_vars(&count);
                let mut parts = Vec::new();
                for c in &n.children {
                    parts.extend(self.node(c, &env, outer, ctx, depth + 1)?);
                }
                let body = if parts.len() == 1 {
                    parts.remove(0)
                } else {
                    Step::Block {
                        depth: depth + 1,
                        par: true,
                        note: None,
                        parts,
                    }
                };
                Step::Loop {
                    depth,
                    par: true,
                    index,
                    count,
                    note: format!("spawns in a loop (line {})", n.line),
                    body: Box::new(body),
                }
            }
            NodeKind::DataParallel { count, .. } => {
                let item_env = super::tree::item_env(&env, count);
                let index = self.index();
                let count = env.subst(count);
                self.note_vars(&count);
                let body = self.seq(&n.children, &item_env, &env, ctx, depth + 1)?;
                Step::Loop {
                    depth,
                    par: true,
                    index,
                    count,
                    note: format!("data-parallel items (line {})", n.line),
                    body: Box::new(body),
                }
            }
            NodeKind::Pipeline { .. } => self.pipeline(n, &env, outer, depth)?,
            NodeKind::Sync(op) => return Ok(self.sync(op, n.line, ctx, depth)),
        }))
    }

    /// A fragment: its critical path (a delay, a memory phase, or the lock it holds) beside
    /// its demand on the processors.
    fn fragment(
        &mut self,
        n: &Node,
        env: &Env,
        ctx: &Ctx,
        depth: usize,
    ) -> Result<Step, PredictError> {
        let NodeKind::Fragment(f) = &n.kind else {
            unreachable!("Composer::fragment is called on fragment nodes only")
        };
        let k = self.frag_idx;
        self.frag_idx += 1;
        let terms = fragment_terms(f, env, self.file, n.line)?;
        let base = format!("{}_{}", ident(&f.name), k + 1);
        let w = var(&self.numeric(&format!("W_{base}"), &terms.work));
        let pf = var(&self.numeric(&format!("pf_{base}"), &terms.procs));
        let comm = match (self.opts.comm, self.comm.get(k).cloned().flatten()) {
            (true, Some(c)) => Some(var(&self.numeric(&format!("comm_{base}"), &c))),
            _ => None,
        };
        // The fragment's pf threads share the read of a moved item: each pays c / pf.
        let with_comm = |t: Expr| match &comm {
            Some(c) => Term::Model(bin(BinOp::Add, t, bin(BinOp::Div, c.clone(), pf.clone()))),
            None => Term::Model(t),
        };
        let per_proc = bin(BinOp::Div, w.clone(), pf.clone());
        let crit = if let Some(lock) = ctx.lock.as_ref().filter(|_| self.opts.resources) {
            Step::Use(self.lock_resource(lock), with_comm(per_proc))
        } else if let (Some(m), true) = (&terms.memory, self.opts.resources) {
            self.uses_mem = true;
            let m = var(&self.numeric(&format!("M_{base}"), m));
            let compute = bin(
                BinOp::Div,
                bin(BinOp::Sub, w.clone(), m.clone()),
                pf.clone(),
            );
            Step::Seq(vec![
                Step::Delay(with_comm(compute)),
                Step::Use("mem".into(), Term::Model(bin(BinOp::Div, m, pf.clone()))),
            ])
        } else {
            Step::Delay(with_comm(per_proc))
        };
        let step = if self.opts.resources {
            let index = self.index();
            let demand = match &comm {
                Some(c) => bin(BinOp::Add, w, c.clone()),
                None => w,
            };
            let cpu = Step::Use("cpu".into(), Term::Model(bin(BinOp::Div, demand, var("p"))));
            Step::Par(vec![
                crit,
                Step::Repeat {
                    par: true,
                    index,
                    count: var("p"),
                    body: Box::new(cpu),
                },
            ])
        } else {
            crit
        };
        Ok(Step::Line {
            depth,
            note: Some(format!("fragment {} (line {})", f.name, n.line)),
            step: Box::new(step),
        })
    }

    fn lock_resource(&mut self, mutex: &str) -> String {
        if let Some(r) = self.locks.get(mutex) {
            return r.clone();
        }
        let r = format!("lock_{}", ident(mutex));
        self.resource(&r, &format!("mutex `{mutex}`"));
        self.locks.insert(mutex.to_string(), r.clone());
        r
    }

    fn sync(&mut self, op: &SyncOp, line: usize, ctx: &Ctx, depth: usize) -> Option<Step> {
        if !self.opts.sync {
            return None;
        }
        let (note, step) = match op {
            SyncOp::Send(c) | SyncOp::Recv(c) if ctx.in_loop => {
                self.warnings.push(Warning {
                    file: self.file.to_string(),
                    line,
                    message: format!("channel `{c}` used in a loop outside a recognized pipeline: its waits are not modeled"),
                });
                return None;
            }
            SyncOp::Send(c) => {
                let k = self.sends.entry(c.clone()).or_insert(0);
                *k += 1;
                ("send", Step::Signal(format!("c_{}_{}", ident(c), k)))
            }
            SyncOp::Recv(c) => {
                let k = self.recvs.entry(c.clone()).or_insert(0);
                *k += 1;
                ("recv", Step::Wait(format!("c_{}_{}", ident(c), k)))
            }
            SyncOp::Barrier(_) => return None,
        };
        Some(Step::Line {
            depth,
            note: Some(format!("{note} (line {line})")),
            step: Box::new(step),
        })
    }

    fn seq(
        &mut self,
        children: &[Node],
        env: &Env,
        outer: &Env,
        ctx: &Ctx,
        depth: usize,
    ) -> Result<Step, PredictError> {
        let mut parts = Vec::new();
        for c in children {
            parts.extend(self.node(c, env, outer, ctx, depth + 1)?);
        }
        Ok(match parts.len() {
            0 => nothing(depth),
            1 => parts.remove(0),
            _ => Step::Block {
                depth,
                par: false,
                note: None,
                parts,
            },
        })
    }

    fn parallel(
        &mut self,
        n: &Node,
        env: &Env,
        ctx: &Ctx,
        depth: usize,
    ) -> Result<Step, PredictError> {
        let tasks = env.subst(&n.task_count());
        let task_env = env.with("p", div(env.p(), tasks));
        if let Some(phases) = barrier_phases(n).filter(|_| self.opts.sync) {
            let mut seqs = Vec::new();
            for phase in phases {
                let mut parts = Vec::new();
                for (task, body) in phase {
                    let tenv = task_env.enter(task, env);
                    parts.push(self.seq(&body, &tenv, &tenv, ctx, depth + 2)?);
                }
                seqs.push(Step::Block {
                    depth: depth + 1,
                    par: true,
                    note: None,
                    parts,
                });
            }
            return Ok(Step::Block {
                depth,
                par: false,
                note: Some(format!("phases between barrier waits (line {})", n.line)),
                parts: seqs,
            });
        }
        let mut parts = Vec::new();
        for c in &n.children {
            parts.extend(self.node(c, &task_env, env, ctx, depth + 1)?);
        }
        Ok(Step::Block {
            depth,
            par: true,
            note: Some(format!("parallel (line {})", n.line)),
            parts,
        })
    }
}

/// `delay(0)`: a part that takes no time.
fn nothing(depth: usize) -> Step {
    Step::Line {
        depth,
        note: None,
        step: Box::new(Step::Delay(Term::Model(Expr::Num(0.0)))),
    }
}
