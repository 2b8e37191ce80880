//! [`Walker`]: the walk of a tree at one point that [`super::account`] and [`super::totals`]
//! share: each node's seconds and processors, fragment by fragment, summing the breakdown as
//! it goes (and, for [`super::totals`], a memo of the subtrees already evaluated).

use super::shape::{child, Shape};
use super::totals::Totals;
use super::{ev, Accounting, CallSite, FragmentShare};
use crate::predict::env::{fragment_categories, fragment_terms, Env};
use crate::predict::error::PredictError;
use crate::predict::tree::{Fragment, Node, NodeKind};
use lca::expr::{Bindings, Expr};
use std::collections::HashMap;
use std::fmt::Write as _;

/// A subtree's result at one point: (seconds per execution, processors, totals per
/// execution).
type Memo = HashMap<(usize, String), (f64, f64, Totals)>;

/// The state of one walk at one point.
pub(super) struct Walker<'a> {
    /// The source file (for the errors of fragment models).
    file: &'a str,
    /// The point.
    b: &'a Bindings,
    /// Per fragment, in preorder: its communication expression.
    comm: &'a [Option<Expr>],
    /// Fragments walked so far (the index into `comm` of a walk without a shape).
    idx: usize,
    /// The breakdown with its instance lists (filled when `instances`).
    pub(super) acc: Accounting,
    /// The breakdown's sums.
    pub(super) totals: Totals,
    /// With the instance lists of [`Accounting`] (else only [`Totals`], memoized).
    pub(super) instances: bool,
    /// Per subtree shape and environments: its result (walks without instance lists).
    memo: Memo,
    /// With the instance lists: the calls being walked, outermost first, each with the
    /// executions of its call node in the whole run.
    calls: Vec<(CallSite, f64)>,
}

impl<'a> Walker<'a> {
    /// A walk at `b`, which must bind `p`.
    pub(super) fn new(
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
    fn check_range(&mut self, f: &Fragment, env: &Env) {
        let value = |v: &str| env.subst(&Expr::Var(v.to_string())).eval(self.b).ok();
        for w in lca::range::check(&f.name, &f.ranges, &f.categories, &value) {
            if !self.acc.range_warnings.contains(&w) {
                self.acc.range_warnings.push(w.clone());
            }
            self.totals.add_warning(w);
        }
        if f.ranges.iter().any(|r| r.growth.is_some()) {
            let w = lca::extrapolation::widening(&f.ranges, &value);
            self.totals.add_widening(&f.name, w);
        }
    }

    /// Records the models of fragment `f` (at `line`) that are negative in `env`.
    fn check_negative(&mut self, f: &Fragment, line: usize, env: &Env) {
        let value = |e: &Expr| env.subst(e).eval(self.b).ok();
        for m in crate::predict::negative::check(f, line, &value) {
            if !self.acc.negative_models.contains(&m) {
                self.acc.negative_models.push(m.clone());
            }
            self.totals.add_negative(m);
        }
    }

    /// Records fragment `f` (at `line`, on `p` processors) when its one loop has fewer
    /// items than `p` and its `li` too little for the rest ([`crate::predict::few_items`]).
    fn check_items(&mut self, f: &Fragment, line: usize, env: &Env, p: f64) {
        if f.inside.constructs.is_empty() {
            return;
        }
        // The categories come in `env` already (per execution); the loop's counts are the
        // source's expressions.
        let terms: Option<Vec<(String, f64)>> = fragment_categories(f, env)
            .into_iter()
            .map(|(k, e)| Some((k, e.eval(self.b).ok()?)))
            .collect();
        let value = |e: &Expr| env.subst(e).eval(self.b).ok();
        let Some(terms) = terms else {
            return;
        };
        if let Some(x) = crate::predict::few_items::check(f, line, p, &terms, &value) {
            if !self.acc.few_items.contains(&x) {
                self.acc.few_items.push(x.clone());
            }
            self.totals.add_few_items(x);
        }
    }

    /// `e` at this walk's point ([`ev`]).
    pub(super) fn val(&self, e: &Expr, what: &str) -> Result<f64, PredictError> {
        ev(e, self.b, what)
    }

    /// Counts `v` processor-seconds left idle.
    pub(super) fn add_idle(&mut self, v: f64) {
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
    pub(super) fn node(
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
    pub(super) fn visit(
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
                let ienv = crate::predict::tree::item_env(&env, count);
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
    pub(super) fn call_sites(&self) -> Vec<CallSite> {
        self.calls.iter().map(|(c, _)| c.clone()).collect()
    }

    /// One execution of fragment `f` (at `line`) on `p` processors: its seconds.
    fn fragment(
        &mut self,
        f: &Fragment,
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
        self.check_items(f, line, env, p);
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
            let categories = fragment_categories(f, env)
                .into_iter()
                .map(|(key, e)| Ok((key, self.val(&e, &what)?)))
                .collect::<Result<_, PredictError>>()?;
            self.acc.fragments.push(FragmentShare {
                name: f.name.clone(),
                line,
                called_from: self.call_sites(),
                executions: mult,
                procs: p,
                time_s: time,
                work,
                comm_s,
                categories,
            });
        }
        Ok(time + comm_s)
    }

    /// `children` one after another in `env`, each on its own processors out of `p`: their
    /// seconds summed; a child that uses fewer than `p` leaves the rest idle while it runs.
    pub(super) fn seq(
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
}
