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

pub use flow_shop::flow_shop_exprs;
use phases::barrier_phases;

use super::env::{fragment_terms, Env};
use super::error::{PredictError, Warning};
use super::tree::{div, Node, NodeKind, SyncOp};
use lca::expr::Expr;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

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
    /// The PAMELA text.
    pub text: String,
    /// The numeric parameters it leaves symbolic (need bindings).
    pub parameters: BTreeSet<String>,
}

#[derive(Clone, Default)]
struct Ctx {
    lock: Option<String>,
    in_loop: bool,
}

/// Builds the PAMELA text of a tree.
pub struct Composer<'a> {
    file: &'a str,
    opts: ComposeOptions,
    comm: &'a [Option<Expr>],
    frag_idx: usize,
    index_counter: usize,
    resources: Vec<String>,
    numerics: Vec<String>,
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

impl<'a> Composer<'a> {
    /// A composer for `file`; `comm[k]` is the communication time (seconds, an expression in
    /// the program's variables) before the k-th fragment instance in preorder.
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
        self.numerics.push(format!("numeric {name} = {e}"));
        name.to_string()
    }

    /// Composes the whole program.
    pub fn compose(mut self, root: &Node) -> Result<(ComposedModel, Vec<Warning>), PredictError> {
        let env = Env::root();
        let body = self.node(root, &env, &env, &Ctx::default(), 1)?;
        self.params.insert("p".into());
        let defined: BTreeSet<String> = self
            .numerics
            .iter()
            .filter_map(|l| l.strip_prefix("numeric "))
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_string)
            .collect();
        self.params.retain(|v| !defined.contains(v));
        let mut text = String::new();
        let _ = writeln!(text, "% composed by lcm predict from {}", self.file);
        let _ = writeln!(text, "% times in seconds; p = processors of the machine");
        for p in &self.params {
            let _ = writeln!(text, "numeric parameter {p}");
        }
        if self.opts.resources {
            let _ = writeln!(text, "resource cpu = fcfs(0, p)     % the processors");
            if self.uses_mem {
                let _ = writeln!(text, "resource mem = fcfs(1, 1)     % the memory system");
            }
        }
        for r in &self.resources {
            let _ = writeln!(text, "{r}");
        }
        for n in &self.numerics {
            let _ = writeln!(text, "{n}");
        }
        let _ = writeln!(text, "process main =\n{body}");
        Ok((
            ComposedModel {
                text,
                parameters: self.params.clone(),
            },
            self.warnings,
        ))
    }

    fn resource(&mut self, name: &str, comment: &str) {
        let idx = self.resources.len() + 2;
        self.resources
            .push(format!("resource {name} = fcfs({idx}, 1)   % {comment}"));
    }

    fn node(
        &mut self,
        n: &Node,
        env: &Env,
        outer: &Env,
        ctx: &Ctx,
        depth: usize,
    ) -> Result<String, PredictError> {
        let env = env.enter(n, outer);
        let pad = "  ".repeat(depth);
        Ok(match &n.kind {
            NodeKind::Fragment(f) => {
                let k = self.frag_idx;
                self.frag_idx += 1;
                let terms = fragment_terms(f, &env, self.file, n.line)?;
                let base = format!("{}_{}", ident(&f.name), k + 1);
                let w = self.numeric(&format!("W_{base}"), &terms.work);
                let pf = self.numeric(&format!("pf_{base}"), &terms.procs);
                let comm = match (self.opts.comm, self.comm.get(k).cloned().flatten()) {
                    (true, Some(c)) => Some(self.numeric(&format!("comm_{base}"), &c)),
                    _ => None,
                };
                let with_comm = |t: String| match &comm {
                    Some(c) => format!("{t} + {c}"),
                    None => t,
                };
                let crit = if let Some(lock) = ctx.lock.as_ref().filter(|_| self.opts.resources) {
                    let r = self.lock_resource(lock);
                    format!("use({r}, {})", with_comm(format!("{w}/{pf}")))
                } else if let (Some(m), true) = (&terms.memory, self.opts.resources) {
                    self.uses_mem = true;
                    let m = self.numeric(&format!("M_{base}"), m);
                    format!(
                        "{{ delay({}) ; use(mem, {m}/{pf}) }}",
                        with_comm(format!("({w} - {m})/{pf}"))
                    )
                } else {
                    format!("delay({})", with_comm(format!("{w}/{pf}")))
                };
                if self.opts.resources {
                    let i = self.index();
                    let demand = match &comm {
                        Some(c) => format!("({w} + {c}*{pf})/p"),
                        None => format!("{w}/p"),
                    };
                    format!(
                        "{pad}% fragment {} (line {})\n{pad}{{ {crit} || par ({i} = 1, p) use(cpu, {demand}) }}",
                        f.name, n.line
                    )
                } else {
                    format!("{pad}% fragment {} (line {})\n{pad}{crit}", f.name, n.line)
                }
            }
            NodeKind::Serial { .. } => self.seq(&n.children, &env, &env, ctx, depth)?,
            NodeKind::Locked { mutex } => {
                let c = Ctx {
                    lock: Some(mutex.clone()),
                    ..ctx.clone()
                };
                self.seq(&n.children, &env, &env, &c, depth)?
            }
            NodeKind::Loop { count, .. } => {
                let i = self.index();
                let count = env.subst(count);
                self.note_vars(&count);
                let c = Ctx {
                    in_loop: true,
                    ..ctx.clone()
                };
                let body = self.seq(&n.children, &env, &env, &c, depth + 1)?;
                format!(
                    "{pad}seq ({i} = 1, {count})   % loop (line {})\n{body}",
                    n.line
                )
            }
            NodeKind::Parallel { .. } => self.parallel(n, &env, ctx, depth)?,
            NodeKind::ParallelLoop { count, .. } => {
                // env already holds the task share; children's overrides read in `outer`.
                let i = self.index();
                let count = env.subst(count);
                self.note_vars(&count);
                let mut parts = Vec::new();
                for c in &n.children {
                    parts.push(self.node(c, &env, outer, ctx, depth + 1)?);
                }
                format!(
                    "{pad}par ({i} = 1, {count})   % spawns in a loop (line {})\n{}",
                    n.line,
                    join_par(&parts, depth + 1)
                )
            }
            NodeKind::DataParallel { count, .. } => {
                let item_env = env.with("p", Expr::Num(1.0));
                let i = self.index();
                let count = env.subst(count);
                self.note_vars(&count);
                let body = self.seq(&n.children, &item_env, &env, ctx, depth + 1)?;
                format!(
                    "{pad}par ({i} = 1, {count})   % data-parallel items (line {})\n{body}",
                    n.line
                )
            }
            NodeKind::Pipeline { .. } => self.pipeline(n, &env, outer, depth)?,
            NodeKind::Sync(op) => self.sync(op, n.line, ctx, &pad),
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

    fn sync(&mut self, op: &SyncOp, line: usize, ctx: &Ctx, pad: &str) -> String {
        if !self.opts.sync {
            return String::new();
        }
        match op {
            SyncOp::Send(c) | SyncOp::Recv(c) if ctx.in_loop => {
                self.warnings.push(Warning {
                    file: self.file.to_string(),
                    line,
                    message: format!("channel `{c}` used in a loop outside a recognized pipeline: its waits are not modeled"),
                });
                String::new()
            }
            SyncOp::Send(c) => {
                let k = self.sends.entry(c.clone()).or_insert(0);
                *k += 1;
                format!(
                    "{pad}% send (line {line})\n{pad}signal(c_{}_{})",
                    ident(c),
                    k
                )
            }
            SyncOp::Recv(c) => {
                let k = self.recvs.entry(c.clone()).or_insert(0);
                *k += 1;
                format!("{pad}% recv (line {line})\n{pad}wait(c_{}_{})", ident(c), k)
            }
            SyncOp::Barrier(_) => String::new(),
        }
    }

    fn seq(
        &mut self,
        children: &[Node],
        env: &Env,
        outer: &Env,
        ctx: &Ctx,
        depth: usize,
    ) -> Result<String, PredictError> {
        let mut parts = Vec::new();
        for c in children {
            let t = self.node(c, env, outer, ctx, depth + 1)?;
            if !t.trim().is_empty() {
                parts.push(t);
            }
        }
        let pad = "  ".repeat(depth);
        Ok(match parts.len() {
            0 => format!("{pad}delay(0)"),
            1 => parts.remove(0),
            _ => format!("{pad}{{\n{}\n{pad}}}", parts.join(" ;\n")),
        })
    }

    fn parallel(
        &mut self,
        n: &Node,
        env: &Env,
        ctx: &Ctx,
        depth: usize,
    ) -> Result<String, PredictError> {
        let tasks = env.subst(&n.task_count());
        let task_env = env.with("p", div(env.p(), tasks));
        let pad = "  ".repeat(depth);
        if let Some(phases) = barrier_phases(n).filter(|_| self.opts.sync) {
            let mut seqs = Vec::new();
            for phase in phases {
                let mut parts = Vec::new();
                for (task, body) in phase {
                    let tenv = task_env.enter(task, env);
                    parts.push(self.seq(&body, &tenv, &tenv, ctx, depth + 2)?);
                }
                seqs.push(format!(
                    "{}{{\n{}\n{}}}",
                    "  ".repeat(depth + 1),
                    parts.join(" ||\n"),
                    "  ".repeat(depth + 1)
                ));
            }
            return Ok(format!(
                "{pad}{{   % phases between barrier waits (line {})\n{}\n{pad}}}",
                n.line,
                seqs.join(" ;\n")
            ));
        }
        let mut parts = Vec::new();
        for c in &n.children {
            parts.push(self.node(c, &task_env, env, ctx, depth + 1)?);
        }
        Ok(format!(
            "{pad}{{   % parallel (line {})\n{}\n{pad}}}",
            n.line,
            parts.join(" ||\n")
        ))
    }
}

fn join_par(parts: &[String], depth: usize) -> String {
    if parts.len() == 1 {
        return parts[0].clone();
    }
    let pad = "  ".repeat(depth);
    format!("{pad}{{\n{}\n{pad}}}", parts.join(" ||\n"))
}
