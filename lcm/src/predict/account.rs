//! The numeric breakdown behind a prediction: each fragment's time and processor-seconds,
//! the structural load imbalance LI+ of each parallel node, pipeline fill and bottleneck, and
//! processors left idle by `p` overrides — evaluated at one point with the same variable
//! rules as the composition, so that
//! `p * T_critical = sum(fragment work) + LI+ + pipeline waiting + idle + communication`.

use super::compose::flow_shop_exprs;
use super::env::{fragment_terms, Env};
use super::error::PredictError;
use super::tree::{div, Node, NodeKind};
use lca::expr::{Bindings, EvalError, Expr};
use lca::range::RangeWarning;
use serde::Serialize;

/// One fragment instance at the evaluated point.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FragmentShare {
    /// Fragment name.
    pub name: String,
    /// Source line.
    pub line: usize,
    /// Executions in the whole run (product of enclosing trip counts and copies).
    pub executions: f64,
    /// Processors p_f of one execution.
    pub procs: f64,
    /// Seconds of one execution, T_f = work / p_f (communication not included).
    pub time_s: f64,
    /// Processor-seconds of one execution (sum of categories).
    pub work: f64,
    /// Communication seconds added before one execution (negative: removed).
    pub comm_s: f64,
}

/// A parallel node's structural load imbalance.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ParallelShare {
    /// Source line of the construct.
    pub line: usize,
    /// The construct.
    pub construct: String,
    /// LI+ = sum_t (max T - T_t) * p_t over the whole run, processor-seconds.
    pub li_plus: f64,
}

/// A pipeline stage.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StageShare {
    /// The stage (task) label.
    pub label: String,
    /// Seconds per data set.
    pub tau_s: f64,
    /// Data sets it processes.
    pub items: f64,
    /// Its processors.
    pub procs: f64,
}

/// A pipeline at the evaluated point.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PipelineShare {
    /// Source line.
    pub line: usize,
    /// The stages.
    pub stages: Vec<StageShare>,
    /// Fill: seconds until the first data set leaves the last stage (sum of tau).
    pub fill_s: f64,
    /// Index (0-based) of the bottleneck stage (largest items * tau).
    pub bottleneck: usize,
    /// Pipeline time (flow shop, van Gemund Eq. 3.16 for equal counts), seconds.
    pub time_s: f64,
    /// The phi/omega lower bound max(fill, bottleneck total), seconds.
    pub bound_s: f64,
    /// Processor-seconds the stages spend waiting for data or for the others to finish.
    pub waiting: f64,
}

/// The breakdown at one point.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Accounting {
    /// Machine processors p.
    pub p: f64,
    /// Fragment instances in program order.
    pub fragments: Vec<FragmentShare>,
    /// Parallel nodes with their LI+.
    pub parallels: Vec<ParallelShare>,
    /// Pipelines.
    pub pipelines: Vec<PipelineShare>,
    /// Processor-seconds left idle because a node uses fewer processors than it has.
    pub idle: f64,
    /// Critical-path time without synchronization waits and contention, seconds.
    pub critical_path_s: f64,
    /// Fragments evaluated beyond 2x the measured range of a variable their models use
    /// (at the fragment's own variables, after `p` and variable overrides), once per
    /// fragment and variable value.
    pub range_warnings: Vec<RangeWarning>,
}

pub(crate) fn ev(e: &Expr, b: &Bindings, what: &str) -> Result<f64, PredictError> {
    e.eval(b).map_err(|err| match err {
        EvalError::UnknownVariable(name) => PredictError::Unbound {
            name,
            needed_by: what.to_string(),
        },
        other => PredictError::Eval {
            what: what.to_string(),
            message: other.to_string(),
        },
    })
}

struct Walker<'a> {
    file: &'a str,
    b: &'a Bindings,
    comm: &'a [Option<Expr>],
    idx: usize,
    acc: Accounting,
}

/// Evaluates the breakdown of `root` at `bindings` (must bind `p`); `comm[k]` as in
/// [`super::compose::Composer::new`].
pub fn account(
    root: &Node,
    file: &str,
    comm: &[Option<Expr>],
    bindings: &Bindings,
) -> Result<Accounting, PredictError> {
    let p = ev(&Expr::Var("p".into()), bindings, "the machine's processors")?;
    let mut w = Walker {
        file,
        b: bindings,
        comm,
        idx: 0,
        acc: Accounting {
            p,
            ..Accounting::default()
        },
    };
    let env = Env::root();
    let (t, _) = w.node(root, &env, &env, 1.0)?;
    w.acc.critical_path_s = t;
    Ok(w.acc)
}

impl Walker<'_> {
    /// Records the range warnings of fragment `f` evaluated in `env`.
    fn check_range(&mut self, f: &super::tree::Fragment, env: &Env) {
        let value = |v: &str| env.subst(&Expr::Var(v.to_string())).eval(self.b).ok();
        for w in lca::range::check(&f.name, &f.ranges, &f.categories, &value) {
            if !self.acc.range_warnings.contains(&w) {
                self.acc.range_warnings.push(w);
            }
        }
    }

    fn val(&self, e: &Expr, what: &str) -> Result<f64, PredictError> {
        ev(e, self.b, what)
    }

    /// Returns (seconds per execution, processors).
    fn node(
        &mut self,
        n: &Node,
        env: &Env,
        outer: &Env,
        mult: f64,
    ) -> Result<(f64, f64), PredictError> {
        let env = env.enter(n, outer);
        let p = self.val(&env.p(), &format!("processors at line {}", n.line))?;
        let t = match &n.kind {
            NodeKind::Fragment(f) => {
                let k = self.idx;
                self.idx += 1;
                let terms = fragment_terms(f, &env, self.file, n.line)?;
                let what = format!("fragment `{}` (line {})", f.name, n.line);
                if p <= 0.0 {
                    return Err(PredictError::Eval {
                        what,
                        message: format!(
                            "expected at least some processors, found p_f = {} = {p} at this point",
                            env.p()
                        ),
                    });
                }
                self.check_range(f, &env);
                let work = self.val(&terms.work, &what)?;
                let time = work / p;
                let comm = match self.comm.get(k).cloned().flatten() {
                    Some(c) => self.val(&c, &what)?,
                    None => 0.0,
                };
                self.acc.fragments.push(FragmentShare {
                    name: f.name.clone(),
                    line: n.line,
                    executions: mult,
                    procs: p,
                    time_s: time,
                    work,
                    comm_s: comm,
                });
                time + comm
            }
            NodeKind::Serial { .. } | NodeKind::Locked { .. } => {
                self.seq(&n.children, &env, p, mult)?
            }
            NodeKind::Loop { count, .. } => {
                let c = self.val(&env.subst(count), &format!("trip count at line {}", n.line))?;
                c * self.seq(&n.children, &env, p, mult * c)?
            }
            NodeKind::Sync(_) => 0.0,
            NodeKind::Parallel { construct } => {
                let tasks = env.subst(&n.task_count());
                let tenv = env.with("p", div(env.p(), tasks));
                // (time, procs, copies) per task
                let mut entries: Vec<(f64, f64, f64)> = Vec::new();
                for c in &n.children {
                    match &c.kind {
                        NodeKind::ParallelLoop { count, .. } => {
                            let cenv = tenv.enter(c, &env);
                            let copies = self.val(
                                &cenv.subst(count),
                                &format!("spawn count at line {}", c.line),
                            )?;
                            for g in &c.children {
                                let (t, pp) = self.node(g, &cenv, &env, mult * copies)?;
                                entries.push((t, pp, copies));
                            }
                        }
                        NodeKind::Pipeline { .. } => {
                            let (t, stages) = self.pipeline(c, &tenv, &env, mult)?;
                            for sp in stages {
                                entries.push((t, sp, 1.0));
                            }
                        }
                        _ => {
                            let (t, pp) = self.node(c, &tenv, &env, mult)?;
                            entries.push((t, pp, 1.0));
                        }
                    }
                }
                let tmax = entries.iter().map(|e| e.0).fold(0.0, f64::max);
                let li: f64 = entries.iter().map(|(t, pp, k)| (tmax - t) * pp * k).sum();
                let used: f64 = entries.iter().map(|(_, pp, k)| pp * k).sum();
                self.acc.parallels.push(ParallelShare {
                    line: n.line,
                    construct: construct.clone(),
                    li_plus: li * mult,
                });
                if used < p * (1.0 - 1e-9) {
                    self.acc.idle += (p - used) * tmax * mult;
                }
                tmax
            }
            NodeKind::ParallelLoop { count, .. } => {
                // Outside a parallel node (not produced by recognition): copies share p.
                let copies = self.val(&env.subst(count), "spawn count")?;
                let mut t: f64 = 0.0;
                for g in &n.children {
                    t = t.max(self.node(g, &env, outer, mult * copies)?.0);
                }
                t
            }
            NodeKind::DataParallel { count, .. } => {
                let items =
                    self.val(&env.subst(count), &format!("item count at line {}", n.line))?;
                let ienv = super::tree::item_env(&env, count);
                let t_item = self.seq(&n.children, &ienv, 1.0, mult * items)?;
                let t = t_item.max(items * t_item / p);
                let idle = p * t - items * t_item;
                if idle > 1e-12 * t.max(1e-300) {
                    self.acc.idle += idle * mult;
                }
                t
            }
            NodeKind::Pipeline { .. } => self.pipeline(n, &env, outer, mult)?.0,
        };
        Ok((t, p))
    }

    fn seq(
        &mut self,
        children: &[Node],
        env: &Env,
        p: f64,
        mult: f64,
    ) -> Result<f64, PredictError> {
        let mut total = 0.0;
        for c in children {
            let (t, pc) = self.node(c, env, env, mult)?;
            if pc < p * (1.0 - 1e-9) && !matches!(c.kind, NodeKind::Sync(_)) {
                self.acc.idle += (p - pc) * t * mult;
            }
            total += t;
        }
        Ok(total)
    }

    /// Returns the pipeline time and the stages' processors.
    fn pipeline(
        &mut self,
        n: &Node,
        env: &Env,
        outer: &Env,
        mult: f64,
    ) -> Result<(f64, Vec<f64>), PredictError> {
        let NodeKind::Pipeline { stage_items, .. } = &n.kind else {
            unreachable!("pipeline() is called for pipeline nodes only")
        };
        let mut stages = Vec::new();
        for (s, stage) in n.children.iter().enumerate() {
            let senv = env.enter(stage, outer);
            let procs = self.val(&senv.p(), "stage processors")?;
            let items = self.val(
                &env.subst(&stage_items[s]),
                &format!("pipeline items at line {}", n.line),
            )?;
            let tau = self.seq(&stage.children, &senv, procs, mult * items)?;
            let label = match &stage.kind {
                NodeKind::Serial { label } => label.clone(),
                _ => format!("stage {}", s + 1),
            };
            stages.push(StageShare {
                label,
                tau_s: tau,
                items,
                procs,
            });
        }
        let taus: Vec<Expr> = stages.iter().map(|s| Expr::Num(s.tau_s)).collect();
        let counts: Vec<Expr> = stages.iter().map(|s| Expr::Num(s.items)).collect();
        let (exact, bound) = flow_shop_exprs(&taus, &counts);
        let empty = Bindings::new();
        let time = self.val(&exact, "pipeline")?;
        let bound_s = ev(&bound, &empty, "pipeline")?;
        let fill: f64 = stages.iter().map(|s| s.tau_s).sum();
        let bottleneck = stages
            .iter()
            .enumerate()
            .max_by(|a, b| (a.1.items * a.1.tau_s).total_cmp(&(b.1.items * b.1.tau_s)))
            .map(|(i, _)| i)
            .unwrap_or(0);
        let waiting: f64 = stages
            .iter()
            .map(|s| (time - s.items * s.tau_s) * s.procs)
            .sum::<f64>()
            * mult;
        let procs = stages.iter().map(|s| s.procs).collect();
        self.acc.pipelines.push(PipelineShare {
            line: n.line,
            stages,
            fill_s: fill,
            bottleneck,
            time_s: time,
            bound_s,
            waiting,
        });
        Ok((time, procs))
    }
}
