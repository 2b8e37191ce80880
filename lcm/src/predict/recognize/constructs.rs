//! The parallel constructs: `join`, scopes and spawns, parallel iterator chains, channel and
//! barrier operations, and followed calls.

use super::super::error::PredictError;
use super::super::tree::{Node, NodeKind, SyncOp};
use super::spawns::split_spawns;
use super::syntax::{expr_name, literal_range, path_last, start_line};
use super::{Hint, Recognizer, PAR_METHODS, SCOPE_FNS, SPAWN_LABEL};
use lca::annotation::Annotation;
use lca::expr::Expr;

/// pplib's wrappers that run their closure argument immediately on the calling thread
/// (`pplib::wait(kind, || rx.recv())`, `pplib::par_scope`, `pplib::task_scope`,
/// `pplib::frag_scope`): the closure's body is read as inline code.
const INLINE_FNS: &[&str] = &["wait", "par_scope", "task_scope", "frag_scope"];

impl Recognizer<'_> {
    /// A closure or function argument run as a task.
    pub(super) fn task_arg(
        &mut self,
        arg: &syn::Expr,
        label: String,
    ) -> Result<Node, PredictError> {
        let line = start_line(arg);
        let annots = self.src.block_above(line);
        for (l, _) in &annots {
            self.used_lines.insert(*l);
        }
        let pool = match arg {
            syn::Expr::Closure(c) => self.task_pool(&c.body),
            _ => None,
        };
        self.splits += 1;
        let children = match arg {
            syn::Expr::Closure(c) => self.expr(&c.body, &Hint::default()),
            other => match path_last(other) {
                Some((_, last)) => self.follow(&last, line),
                None => self.expr(other, &Hint::default()),
            },
        };
        self.splits -= 1;
        let mut node = Node::new(NodeKind::Serial { label }, line).with_children(children?);
        node.p_override = pool;
        Ok(self.apply_overrides(vec![node], &annots, line)?.remove(0))
    }

    pub(super) fn call(
        &mut self,
        c: &syn::ExprCall,
        hint: &Hint,
    ) -> Result<Vec<Node>, PredictError> {
        let line = start_line(c);
        let Some((full, last)) = path_last(&c.func) else {
            let mut v = self.expr(&c.func, hint)?;
            v.extend(self.exprs(c.args.iter())?);
            return Ok(v);
        };
        if last == "join" && c.args.len() == 2 {
            let a = self.task_arg(&c.args[0], "task 1".into())?;
            let b = self.task_arg(&c.args[1], "task 2".into())?;
            return Ok(self.parallel(full, vec![a, b], line));
        }
        if let Some(v) = self.pplib_call(c, hint)? {
            return Ok(v);
        }
        if SCOPE_FNS.contains(&last.as_str()) && c.args.len() == 1 {
            if let syn::Expr::Closure(cl) = &c.args[0] {
                self.scope_bodies += 1;
                let body = self.expr(&cl.body, &Hint::default());
                self.scope_bodies -= 1;
                let body = body?;
                return Ok(self.scope(full, body, line));
            }
        }
        if INLINE_FNS.contains(&last.as_str())
            && (full.starts_with("pplib::") || (full == last && !self.fns.contains_key(&last)))
        {
            // pplib's closure wrappers run the closure at once on the calling thread: its
            // body (a channel recv inside `pplib::wait`, say) is composed as if inline.
            let mut v = Vec::new();
            for a in &c.args {
                match a {
                    syn::Expr::Closure(cl) => v.extend(self.expr(&cl.body, hint)?),
                    other => v.extend(self.expr(other, &Hint::default())?),
                }
            }
            return Ok(v);
        }
        if last == "spawn" && c.args.len() == 1 {
            let t = self.task_arg(&c.args[0], SPAWN_LABEL.into())?;
            let mut t = t;
            t.kind = NodeKind::Serial {
                label: format!("{SPAWN_LABEL} ({full})"),
            };
            return Ok(vec![t]);
        }
        let mut v = self.exprs(c.args.iter())?;
        let first = full.split("::").next().unwrap_or("");
        let local = !full.contains("::")
            || ["self", "Self", "crate", "super"].contains(&first)
            || self.local_names.contains(first);
        if local && self.fns.contains_key(&last) {
            v.extend(self.follow(&last, line)?);
        }
        let _ = hint;
        Ok(v)
    }

    /// A method call: a parallel iterator chain ([`Recognizer::parallel_iterator`]) when one
    /// of its methods starts one, else the receiver, then the runtime's calls it knows
    /// ([`Recognizer::runtime_method`]) or the arguments and a followed method of `self`.
    pub(super) fn method_call(
        &mut self,
        m: &syn::ExprMethodCall,
        hint: &Hint,
    ) -> Result<Vec<Node>, PredictError> {
        let line = start_line(m);
        let method = m.method.to_string();
        // A parallel iterator chain?
        let mut chain: Vec<&syn::ExprMethodCall> = vec![m];
        let mut root: &syn::Expr = &m.receiver;
        while let syn::Expr::MethodCall(inner) = root {
            chain.push(inner);
            root = &inner.receiver;
        }
        if let Some(par) = chain
            .iter()
            .rev()
            .find(|c| PAR_METHODS.contains(&c.method.to_string().as_str()))
        {
            return self.parallel_iterator(&chain, root, par, hint, line);
        }
        let mut v = self.expr(&m.receiver, &Hint::default())?;
        if let Some(sync) = self.runtime_method(m, &method, line)? {
            v.extend(sync);
            return Ok(v);
        }
        v.extend(self.exprs(m.args.iter())?);
        if matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident("self"))
            && self.fns.contains_key(&method)
        {
            v.extend(self.follow(&method, line)?);
        }
        Ok(v)
    }

    /// The parallel iterator chain `chain` (outermost call first) on `root`, started by
    /// `par` at `line`: what the root and the arguments that are not closures run first,
    /// then one data-parallel node whose items run the closures' bodies, its item count
    /// from [`Recognizer::item_count`] (p, with a warning, when unknown). A chain with no
    /// fragment in its closures is not modeled (a warning says so).
    fn parallel_iterator(
        &mut self,
        chain: &[&syn::ExprMethodCall],
        root: &syn::Expr,
        par: &syn::ExprMethodCall,
        hint: &Hint,
        line: usize,
    ) -> Result<Vec<Node>, PredictError> {
        let construct = chain
            .iter()
            .rev()
            .skip_while(|c| c.method != par.method)
            .map(|c| c.method.to_string())
            .collect::<Vec<_>>()
            .join("().");
        let mut pre = self.expr(root, &Hint::default())?;
        let mut bodies = Vec::new();
        for c in chain.iter().rev() {
            for a in &c.args {
                if let syn::Expr::Closure(cl) = a {
                    self.splits += 1;
                    let b = self.expr(&cl.body, &Hint::default());
                    self.splits -= 1;
                    let b = b?;
                    bodies.push(
                        Node::new(
                            NodeKind::Serial {
                                label: "item".into(),
                            },
                            start_line(cl),
                        )
                        .with_children(b),
                    );
                } else {
                    pre.extend(self.expr(a, &Hint::default())?);
                }
            }
        }
        if !bodies.iter().any(Node::has_fragment) {
            self.warn(
                line,
                format!("parallel iterator `{construct}` outside any fragment: not modeled (put it in a fragment, or a fragment in its closure)"),
            );
            return Ok(pre);
        }
        let count = match self.item_count(hint, root, par, line) {
            Some(c) => c,
            None => {
                self.warn(
                    line,
                    format!("parallel iterator `{construct}` with fragments in its closure: item count unknown (use `// lcm: items = EXPR`); assumed p"),
                );
                Expr::Var("p".into())
            }
        };
        let body: Vec<Node> = bodies.into_iter().filter(Node::has_fragment).collect();
        pre.push(Node::new(NodeKind::DataParallel { construct, count }, line).with_children(body));
        Ok(pre)
    }

    /// The nodes of method call `m` (named `method`, at `line`) when it is one the runtime
    /// gives a meaning: a channel's `send` (its argument first) and `recv`, a barrier's
    /// `wait`, a `spawn` of a closure, a `scope` or an `install` with a closure. None for
    /// any other call (and a `scope` or `install` without a closure).
    fn runtime_method(
        &mut self,
        m: &syn::ExprMethodCall,
        method: &str,
        line: usize,
    ) -> Result<Option<Vec<Node>>, PredictError> {
        let mut v = Vec::new();
        match (method, m.args.len()) {
            ("send", 1) => {
                v.extend(self.expr(&m.args[0], &Hint::default())?);
                v.push(Node::new(
                    NodeKind::Sync(SyncOp::Send(self.chan_id(&m.receiver))),
                    line,
                ));
            }
            ("recv", 0) => v.push(Node::new(
                NodeKind::Sync(SyncOp::Recv(self.chan_id(&m.receiver))),
                line,
            )),
            ("wait", 0) => v.push(Node::new(
                NodeKind::Sync(SyncOp::Barrier(expr_name(&m.receiver))),
                line,
            )),
            ("spawn", 1) if matches!(m.args[0], syn::Expr::Closure(_)) => {
                let mut t = self.task_arg(&m.args[0], SPAWN_LABEL.into())?;
                t.kind = NodeKind::Serial {
                    label: SPAWN_LABEL.into(),
                };
                v.push(t);
            }
            ("scope", 1) => {
                let syn::Expr::Closure(cl) = &m.args[0] else {
                    return Ok(None);
                };
                let body = self.expr(&cl.body, &Hint::default())?;
                v.extend(self.scope(format!("{}.scope", expr_name(&m.receiver)), body, line));
            }
            ("install", 1) => {
                let syn::Expr::Closure(cl) = &m.args[0] else {
                    return Ok(None);
                };
                v.extend(self.install(&m.receiver, &cl.body, line)?);
            }
            _ => return Ok(None),
        }
        Ok(Some(v))
    }

    /// The item count of a parallel iterator chain starting at `line`: `// lcm: iterations
    /// = EXPR` or `// lcm: items = EXPR` on its statement, else a literal range, else what
    /// [`super::items::par_items`] reads from the source.
    fn item_count(
        &self,
        hint: &Hint,
        root: &syn::Expr,
        par: &syn::ExprMethodCall,
        line: usize,
    ) -> Option<Expr> {
        if let Some(c) = &hint.count {
            return Some(c.clone());
        }
        let annotated = self
            .src
            .block_above(line)
            .into_iter()
            .find_map(|(_, a)| match a {
                Annotation::Model { category, expr } if category == "items" => Some(expr),
                _ => None,
            });
        annotated
            .or_else(|| literal_range(root).map(|n| Expr::Num(n as f64)))
            .or_else(|| super::items::par_items(root, par, &self.src.syntax))
    }

    pub(super) fn parallel(
        &mut self,
        construct: String,
        tasks: Vec<Node>,
        line: usize,
    ) -> Vec<Node> {
        if !tasks.iter().any(Node::has_fragment) {
            self.warn(
                line,
                format!("parallel construct `{construct}` holds no fragment: not modeled"),
            );
            return Vec::new();
        }
        let node = Node::new(NodeKind::Parallel { construct }, line).with_children(tasks);
        vec![super::super::pipeline::restructure(node)]
    }

    pub(super) fn scope(&mut self, construct: String, body: Vec<Node>, line: usize) -> Vec<Node> {
        let (mut tasks, rest) = split_spawns(body);
        if rest.iter().any(Node::has_fragment) || rest.iter().any(Node::has_sync) {
            tasks.push(
                Node::new(
                    NodeKind::Serial {
                        label: "scope body".into(),
                    },
                    line,
                )
                .with_children(rest),
            );
        }
        let mut n = 0;
        for t in tasks.iter_mut() {
            if let NodeKind::Serial { label } = &mut t.kind {
                if label.starts_with(SPAWN_LABEL) {
                    n += 1;
                    *label = format!("task {n} (spawn)");
                }
            }
        }
        self.parallel(construct, tasks, line)
    }
}
