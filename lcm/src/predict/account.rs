//! The numeric breakdown behind a prediction: each fragment's time and processor-seconds,
//! the structural load imbalance LI+ of each parallel node, pipeline fill and bottleneck, and
//! processors left idle by `p` overrides — evaluated at one point with the same variable
//! rules as the composition, so that
//! `p * T_critical = sum(fragment work) + LI+ + pipeline waiting + idle + communication`.

use super::compose::flow_shop_exprs;
use super::env::{fragment_terms, Env};
use super::error::PredictError;
use super::negative::NegativeModel;
use super::tree::{div, Node, NodeKind};
use lca::expr::{Bindings, EvalError, Expr};
use lca::range::RangeWarning;
use std::collections::HashMap;
use std::fmt::Write as _;

mod shares;
pub use shares::{Accounting, CallSite, FragmentShare, ParallelShare, PipelineShare, StageShare};

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

/// The totals of a prediction's breakdown, without the per-instance lists: what its
/// contributions need. Every quantity is summed over the run (processor-seconds).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Totals {
    /// Per fragment name, in order of first appearance: executions times work.
    pub work: Vec<(String, f64)>,
    /// Communication: executions times the moves' seconds (processor-seconds: the
    /// fragment's p_f readers share each move, comm_s = move / p_f each).
    pub comm: f64,
    /// Structural load imbalance LI+ of all parallel nodes.
    pub li_plus: f64,
    /// Pipeline stages waiting.
    pub waiting: f64,
    /// Processors left idle.
    pub idle: f64,
    /// Range warnings, first seen first (as in [`Accounting::range_warnings`]).
    pub range_warnings: Vec<RangeWarning>,
    /// Negative models, first seen first (as in [`Accounting::negative_models`]).
    pub negative_models: Vec<NegativeModel>,
}

impl Totals {
    fn add_work(&mut self, name: &str, v: f64) {
        match self.work.iter_mut().find(|(n, _)| n == name) {
            Some((_, w)) => *w += v,
            None => self.work.push((name.to_string(), v)),
        }
    }

    fn add_warning(&mut self, w: RangeWarning) {
        if !self.range_warnings.contains(&w) {
            self.range_warnings.push(w);
        }
    }

    fn add_negative(&mut self, m: NegativeModel) {
        if !self.negative_models.contains(&m) {
            self.negative_models.push(m);
        }
    }

    /// Adds `m` runs of `o`.
    fn add_scaled(&mut self, o: &Totals, m: f64) {
        for (n, v) in &o.work {
            self.add_work(n, v * m);
        }
        self.comm += o.comm * m;
        self.li_plus += o.li_plus * m;
        self.waiting += o.waiting * m;
        self.idle += o.idle * m;
        for w in &o.range_warnings {
            self.add_warning(w.clone());
        }
        for w in &o.negative_models {
            self.add_negative(w.clone());
        }
    }
}

/// The structure of a tree for [`totals`]: a tree parallel to the [`Node`] tree in which
/// equal subtrees (same nodes, models, overrides, lines and communication) share an id,
/// so that a point evaluates each distinct subtree once per distinct environment, however
/// often calls, copies and loops repeat it. Built once per program.
#[derive(Debug, Clone)]
pub struct Shape {
    id: usize,
    /// Index of a fragment's communication expression in `comm` (preorder among fragments).
    comm_index: usize,
    children: Vec<Shape>,
}

impl Shape {
    /// The shape of `root`; `comm[k]` as in [`account`].
    pub fn of(root: &Node, comm: &[Option<Expr>]) -> Shape {
        let mut ids = HashMap::new();
        let mut fragments = 0;
        Shape::build(root, comm, &mut ids, &mut fragments)
    }

    fn build(
        n: &Node,
        comm: &[Option<Expr>],
        ids: &mut HashMap<String, usize>,
        fragments: &mut usize,
    ) -> Shape {
        let comm_index = *fragments;
        let mut key = String::new();
        if let NodeKind::Fragment(_) = &n.kind {
            *fragments += 1;
            key = format!("{:?}", comm.get(comm_index).cloned().flatten());
        }
        let children: Vec<Shape> = n
            .children
            .iter()
            .map(|c| Shape::build(c, comm, ids, fragments))
            .collect();
        let child_ids: Vec<usize> = children.iter().map(|c| c.id).collect();
        key = format!(
            "{key}|{:?}|{}|{:?}|{:?}|{child_ids:?}",
            n.kind, n.line, n.p_override, n.var_overrides
        );
        let next = ids.len();
        let id = *ids.entry(key).or_insert(next);
        Shape {
            id,
            comm_index,
            children,
        }
    }
}

/// A subtree's result at one point: (seconds per execution, processors, totals per
/// execution).
type Memo = HashMap<(usize, String), (f64, f64, Totals)>;

struct Walker<'a> {
    file: &'a str,
    b: &'a Bindings,
    comm: &'a [Option<Expr>],
    idx: usize,
    acc: Accounting,
    totals: Totals,
    /// With the instance lists of [`Accounting`] (else only [`Totals`], memoized).
    instances: bool,
    memo: Memo,
    /// With the instance lists: the calls being walked, outermost first, each with the
    /// executions of its call node in the whole run.
    calls: Vec<(CallSite, f64)>,
}

/// Evaluates the breakdown of `root` at `bindings` (must bind `p`); `comm[k]` as in
/// [`super::compose::Composer::new`]. Its work is proportional to the fragment instances.
pub fn account(
    root: &Node,
    file: &str,
    comm: &[Option<Expr>],
    bindings: &Bindings,
) -> Result<Accounting, PredictError> {
    let mut w = Walker::new(file, comm, bindings, true)?;
    let env = Env::root();
    let (t, _) = w.visit(root, None, &env, &env, 1.0)?;
    w.acc.critical_path_s = t;
    Ok(w.acc)
}

/// The totals of the breakdown of `root` (with `shape`, [`Shape::of`] the same tree and
/// `comm`) at `bindings`, and the critical-path seconds: the same numbers as [`account`]
/// (up to rounding), the same errors, in work proportional to the distinct subtrees and
/// environments instead of the instances.
pub fn totals(
    root: &Node,
    shape: &Shape,
    file: &str,
    comm: &[Option<Expr>],
    bindings: &Bindings,
) -> Result<(Totals, f64), PredictError> {
    let mut w = Walker::new(file, comm, bindings, false)?;
    let env = Env::root();
    let (t, _) = w.node(root, Some(shape), &env, &env, 1.0)?;
    Ok((w.totals, t))
}

/// The shape of child `i` of the node shaped `sh`.
fn child(sh: Option<&Shape>, i: usize) -> Option<&Shape> {
    sh.and_then(|s| s.children.get(i))
}

impl<'a> Walker<'a> {
    fn new(
        file: &'a str,
        comm: &'a [Option<Expr>],
        b: &'a Bindings,
        instances: bool,
    ) -> Result<Walker<'a>, PredictError> {
        let p = ev(&Expr::Var("p".into()), b, "the machine's processors")?;
        Ok(Walker {
            file,
            b,
            comm,
            idx: 0,
            acc: Accounting {
                p,
                ..Accounting::default()
            },
            totals: Totals::default(),
            instances,
            memo: Memo::new(),
            calls: Vec::new(),
        })
    }

    /// Records the range warnings of fragment `f` evaluated in `env`.
    fn check_range(&mut self, f: &super::tree::Fragment, env: &Env) {
        let value = |v: &str| env.subst(&Expr::Var(v.to_string())).eval(self.b).ok();
        for w in lca::range::check(&f.name, &f.ranges, &f.categories, &value) {
            if !self.acc.range_warnings.contains(&w) {
                self.acc.range_warnings.push(w.clone());
            }
            self.totals.add_warning(w);
        }
    }

    /// Records the models of fragment `f` (at `line`) that are negative in `env`.
    fn check_negative(&mut self, f: &super::tree::Fragment, line: usize, env: &Env) {
        let value = |e: &Expr| env.subst(e).eval(self.b).ok();
        for m in super::negative::check(f, line, &value) {
            if !self.acc.negative_models.contains(&m) {
                self.acc.negative_models.push(m.clone());
            }
            self.totals.add_negative(m);
        }
    }

    fn val(&self, e: &Expr, what: &str) -> Result<f64, PredictError> {
        ev(e, self.b, what)
    }

    fn add_idle(&mut self, v: f64) {
        self.acc.idle += v;
        self.totals.idle += v;
    }

    /// What a subtree's result depends on in `env` at this point: the values of its
    /// variables (their expressions where they have none).
    fn env_key(&self, env: &Env) -> String {
        let mut key = String::new();
        for (name, e) in env.settings() {
            let _ = match e.eval(self.b) {
                Ok(v) => write!(key, "{name}={:x};", v.to_bits()),
                Err(_) => write!(key, "{name}?{e:?};"),
            };
        }
        key
    }

    /// Returns (seconds per execution, processors); without instance lists, a subtree
    /// already evaluated in the same environments is not walked again.
    fn node(
        &mut self,
        n: &Node,
        sh: Option<&Shape>,
        env: &Env,
        outer: &Env,
        mult: f64,
    ) -> Result<(f64, f64), PredictError> {
        let Some(shape) = sh.filter(|_| !self.instances) else {
            return self.visit(n, sh, env, outer, mult);
        };
        let mut key = self.env_key(env);
        if env != outer {
            key.push('|');
            key += &self.env_key(outer);
        }
        let key = (shape.id, key);
        if let Some((t, p, once)) = self.memo.get(&key) {
            self.totals.add_scaled(once, mult);
            return Ok((*t, *p));
        }
        let before = std::mem::take(&mut self.totals);
        let r = self.visit(n, sh, env, outer, 1.0);
        let once = std::mem::replace(&mut self.totals, before);
        let (t, p) = r?;
        self.totals.add_scaled(&once, mult);
        self.memo.insert(key, (t, p, once));
        Ok((t, p))
    }

    /// [`Walker::node`] without the memo.
    fn visit(
        &mut self,
        n: &Node,
        sh: Option<&Shape>,
        env: &Env,
        outer: &Env,
        mult: f64,
    ) -> Result<(f64, f64), PredictError> {
        let env = env.enter(n, outer);
        let p = self.val(&env.p(), &format!("processors at line {}", n.line))?;
        let call = n.called_function().filter(|_| self.instances);
        if let Some(function) = call {
            // The executions of the caller's own code: those of the call that entered it.
            let caller = self.calls.last().map_or(1.0, |(_, m)| *m);
            let site = CallSite {
                function: function.to_string(),
                line: n.line,
                repeat: if caller > 0.0 { mult / caller } else { mult },
            };
            self.calls.push((site, mult));
        }
        let t = match &n.kind {
            NodeKind::Fragment(f) => self.fragment(f, n.line, sh, &env, p, mult)?,
            NodeKind::Serial { .. } | NodeKind::Locked { .. } => {
                self.seq(&n.children, sh, &env, p, mult)?
            }
            NodeKind::Loop { count, .. } => {
                let c = self.val(&env.subst(count), &format!("trip count at line {}", n.line))?;
                c * self.seq(&n.children, sh, &env, p, mult * c)?
            }
            NodeKind::Sync(_) => 0.0,
            NodeKind::Parallel { construct } => self.parallel(n, construct, sh, &env, p, mult)?,
            NodeKind::ParallelLoop { count, .. } => {
                // Outside a parallel node (not produced by recognition): copies share p.
                let copies = self.val(&env.subst(count), "spawn count")?;
                let mut t: f64 = 0.0;
                for (i, g) in n.children.iter().enumerate() {
                    let (tg, _) = self.node(g, child(sh, i), &env, outer, mult * copies)?;
                    t = t.max(tg);
                }
                t
            }
            NodeKind::DataParallel { count, .. } => {
                let items =
                    self.val(&env.subst(count), &format!("item count at line {}", n.line))?;
                let ienv = super::tree::item_env(&env, count);
                let t_item = self.seq(&n.children, sh, &ienv, 1.0, mult * items)?;
                let t = t_item.max(items * t_item / p);
                let idle = p * t - items * t_item;
                if idle > 1e-12 * t.max(1e-300) {
                    self.add_idle(idle * mult);
                }
                t
            }
            NodeKind::Pipeline { .. } => self.pipeline(n, sh, &env, outer, mult)?.0,
        };
        if call.is_some() {
            self.calls.pop();
        }
        Ok((t, p))
    }

    /// The calls being walked, outermost first (for a fragment instance).
    fn call_sites(&self) -> Vec<CallSite> {
        self.calls.iter().map(|(c, _)| c.clone()).collect()
    }

    /// One execution of fragment `f` (at `line`) on `p` processors: its seconds.
    fn fragment(
        &mut self,
        f: &super::tree::Fragment,
        line: usize,
        sh: Option<&Shape>,
        env: &Env,
        p: f64,
        mult: f64,
    ) -> Result<f64, PredictError> {
        let k = sh.map_or(self.idx, |s| s.comm_index);
        self.idx += 1;
        let terms = fragment_terms(f, env, self.file, line)?;
        let what = format!("fragment `{}` (line {line})", f.name);
        if p <= 0.0 {
            return Err(PredictError::Eval {
                what,
                message: format!(
                    "expected at least some processors, found p_f = {} = {p} at this point",
                    env.p()
                ),
            });
        }
        self.check_range(f, env);
        self.check_negative(f, line, env);
        let work = self.val(&terms.work, &what)?;
        let time = work / p;
        let comm = match self.comm.get(k).cloned().flatten() {
            Some(c) => self.val(&c, &what)?,
            None => 0.0,
        };
        self.totals.add_work(&f.name, mult * work);
        // The fragment's p threads share the read of a moved item (each reads its part of
        // it at once): p_f times comm / p_f processor-seconds, comm / p_f seconds.
        let comm_s = comm / p;
        self.totals.comm += mult * comm;
        if self.instances {
            self.acc.fragments.push(FragmentShare {
                name: f.name.clone(),
                line,
                called_from: self.call_sites(),
                executions: mult,
                procs: p,
                time_s: time,
                work,
                comm_s,
            });
        }
        Ok(time + comm_s)
    }

    /// A parallel node `n` in `env` with `p` processors: its seconds.
    fn parallel(
        &mut self,
        n: &Node,
        construct: &str,
        sh: Option<&Shape>,
        env: &Env,
        p: f64,
        mult: f64,
    ) -> Result<f64, PredictError> {
        let tasks = env.subst(&n.task_count());
        let tenv = env.with("p", div(env.p(), tasks));
        // (time, procs, copies) per task
        let mut entries: Vec<(f64, f64, f64)> = Vec::new();
        for (i, c) in n.children.iter().enumerate() {
            let csh = child(sh, i);
            match &c.kind {
                NodeKind::ParallelLoop { count, .. } => {
                    let cenv = tenv.enter(c, env);
                    let copies = self.val(
                        &cenv.subst(count),
                        &format!("spawn count at line {}", c.line),
                    )?;
                    for (j, g) in c.children.iter().enumerate() {
                        let (t, pp) = self.node(g, child(csh, j), &cenv, env, mult * copies)?;
                        entries.push((t, pp, copies));
                    }
                }
                NodeKind::Pipeline { .. } => {
                    let (t, stages) = self.pipeline(c, csh, &tenv, env, mult)?;
                    for sp in stages {
                        entries.push((t, sp, 1.0));
                    }
                }
                _ => {
                    let (t, pp) = self.node(c, csh, &tenv, env, mult)?;
                    entries.push((t, pp, 1.0));
                }
            }
        }
        let tmax = entries.iter().map(|e| e.0).fold(0.0, f64::max);
        let li: f64 = entries.iter().map(|(t, pp, k)| (tmax - t) * pp * k).sum();
        let used: f64 = entries.iter().map(|(_, pp, k)| pp * k).sum();
        self.totals.li_plus += li * mult;
        if self.instances {
            self.acc.parallels.push(ParallelShare {
                line: n.line,
                construct: construct.to_string(),
                li_plus: li * mult,
            });
        }
        if used < p * (1.0 - 1e-9) {
            self.add_idle((p - used) * tmax * mult);
        }
        Ok(tmax)
    }

    fn seq(
        &mut self,
        children: &[Node],
        sh: Option<&Shape>,
        env: &Env,
        p: f64,
        mult: f64,
    ) -> Result<f64, PredictError> {
        let mut total = 0.0;
        for (i, c) in children.iter().enumerate() {
            let (t, pc) = self.node(c, child(sh, i), env, env, mult)?;
            if pc < p * (1.0 - 1e-9) && !matches!(c.kind, NodeKind::Sync(_)) {
                self.add_idle((p - pc) * t * mult);
            }
            total += t;
        }
        Ok(total)
    }

    /// Adds each stage's hand-offs ([`super::handoff`]) to its time per item, counted as
    /// the work of `machine hand-off`; returns the hand-offs with their regimes and parked
    /// shares.
    fn handoffs(
        &mut self,
        rule: super::handoff::HandoffRule,
        n: &Node,
        stages: &mut [StageShare],
        mult: f64,
    ) -> Result<Vec<super::handoff::HandoffShare>, PredictError> {
        let base: Vec<f64> = stages.iter().map(|s| s.tau_s).collect();
        let exprs = rule.per_item(&base.iter().map(|t| Expr::Num(*t)).collect::<Vec<_>>());
        let what = format!("hand-offs of the pipeline at line {}", n.line);
        for ((stage, e), node) in stages.iter_mut().zip(&exprs).zip(&n.children) {
            let h = self.val(e, &what)?;
            stage.handoff_s = h;
            stage.tau_s += h;
            if h == 0.0 {
                continue;
            }
            let work = h * stage.procs;
            self.totals
                .add_work(super::handoff::NAME, mult * stage.items * work);
            if self.instances {
                self.acc.fragments.push(FragmentShare {
                    name: super::handoff::NAME.to_string(),
                    line: node.line,
                    called_from: self.call_sites(),
                    executions: mult * stage.items,
                    procs: stage.procs,
                    time_s: h,
                    work,
                    comm_s: 0.0,
                });
            }
        }
        let window = rule
            .window
            .then(|| self.val(&Expr::Var("handoff_spin_window_s".into()), &what))
            .transpose()?;
        let wake = match window {
            Some(_) => self.val(&Expr::Var("handoff_wake_s".into()), &what)?,
            None => 0.0,
        };
        let notify = if window.is_some() && rule.notify {
            self.val(&Expr::Var("handoff_notify_s".into()), &what)?
        } else {
            0.0
        };
        Ok(super::handoff::HandoffRule::shares(
            &base, window, wake, notify,
        ))
    }

    /// Returns the pipeline time and the stages' processors.
    fn pipeline(
        &mut self,
        n: &Node,
        sh: Option<&Shape>,
        env: &Env,
        outer: &Env,
        mult: f64,
    ) -> Result<(f64, Vec<f64>), PredictError> {
        let NodeKind::Pipeline {
            stage_items,
            handoff,
            ..
        } = &n.kind
        else {
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
            let tau = self.seq(&stage.children, child(sh, s), &senv, procs, mult * items)?;
            let label = match &stage.kind {
                NodeKind::Serial { label } => label.clone(),
                _ => format!("stage {}", s + 1),
            };
            stages.push(StageShare {
                label,
                tau_s: tau,
                handoff_s: 0.0,
                items,
                procs,
            });
        }
        let handoffs = match handoff {
            Some(rule) => self.handoffs(*rule, n, &mut stages, mult)?,
            None => Vec::new(),
        };
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
        self.totals.waiting += waiting;
        if self.instances {
            self.acc.pipelines.push(PipelineShare {
                line: n.line,
                stages,
                fill_s: fill,
                bottleneck,
                time_s: time,
                bound_s,
                waiting,
                handoffs,
            });
        }
        Ok((time, procs))
    }
}
