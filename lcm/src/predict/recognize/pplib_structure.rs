//! The structure pplib's calls say (see [`super::pplib_calls`] for how they are found):
//! fragment names and extents, `par` regions and their tasks, and the p of pools.
//!
//! - A fragment is named by `// lcm: fragment NAME` or by the pplib call at the head of its
//!   first statement; both written and different is an error naming both lines. A
//!   `frag_scope` fragment is its statement; a `frag` guard's runs to `drop(guard)` or the
//!   end of its block (what pplib records).
//! - `let g = pplib::par(); .. drop(g);` and `pplib::par_scope(|| ..)` are a fork point: the
//!   `pplib::task_scope(|| ..)` closures and `let t = pplib::task();` blocks recognized in
//!   it (and spawns) become its parallel tasks, the rest the forking thread's own task, as
//!   in a scope. A `par` around a construct lcm recognizes anyway (a parallel iterator, a
//!   join) adds nothing. A task outside a `par` is its code, in sequence.
//! - `pool.install(|| ..)` on a pool built in the walked code by `pplib::pool(K)` or
//!   `ThreadPoolBuilder::new().num_threads(K)`, and `pplib::run(K, || ..)`, run their
//!   closure at p = K when K is an expression of the program's variables (`n`, `p` and the
//!   names the file's `// lcm:` lines use) and the call is not inside a construct that
//!   changes p, or is the whole body of a task of one (then the task runs at p = K). An
//!   annotation `// lcm: p = EXPR` on the statement still wins.

use super::pplib_calls::{self as calls, FragCall};
use super::spawns::{is_spawn, is_spawn_loop};
use super::syntax::{end_line, path_last, start_line};
use super::{Hint, Recognizer, SPAWN_LABEL};
use crate::predict::error::PredictError;
use crate::predict::tree::{Node, NodeKind};
use lca::annotation::Annotation;
use lca::expr::Expr;
use std::collections::BTreeSet;

/// The label of a task marked by `pplib::task_scope` / `pplib::task()`: a serial node (its
/// code in sequence) unless a `par` region takes it as one of its tasks.
const TASK_LABEL: &str = "pplib task";

impl Recognizer<'_> {
    /// The fragment name of a statement: its `// lcm: fragment NAME` line or its pplib call
    /// (`call`); an error when both are there and differ.
    pub(super) fn fragment_name(
        &mut self,
        annots: &[(usize, Annotation)],
        call: Option<&FragCall>,
        line: usize,
    ) -> Result<Option<String>, PredictError> {
        let annotated = annots.iter().find_map(|(l, a)| match a {
            Annotation::Fragment(n) => Some((*l, n.clone())),
            _ => None,
        });
        let called = call.and_then(FragCall::name);
        match (annotated, called) {
            (Some((l, a)), Some(c)) if a != c => Err(self.err(
                l,
                format!(
                    "`// lcm: fragment {a}` (line {l}) and `pplib` naming the fragment `{c}` (line {line}) disagree: expected one name (pplib's call names the fragment; delete the annotation line)"
                ),
            )),
            (Some((_, a)), _) => Ok(Some(a)),
            (None, Some(c)) => match call {
                Some(FragCall::Guard { binding: None, .. }) => {
                    self.warn(
                        line,
                        format!("`pplib::frag(\"{c}\")` is dropped at once (bind it: `let _tag = ..`): not a fragment"),
                    );
                    Ok(None)
                }
                _ => Ok(Some(c.to_string())),
            },
            (None, None) => {
                if call.is_some() && annots.iter().any(|(_, a)| matches!(a, Annotation::Model { .. })) {
                    return Err(self.err(
                        line,
                        "expected a string literal as pplib's fragment name, or `// lcm: fragment NAME` above the models".into(),
                    ));
                }
                Ok(None)
            }
        }
    }

    /// The end (exclusive index) of the fragment starting at `stmts[i]`.
    pub(super) fn fragment_end(
        &self,
        stmts: &[&syn::Stmt],
        i: usize,
        call: Option<&FragCall>,
    ) -> usize {
        match call {
            Some(FragCall::Scope { .. }) => i + 1,
            Some(FragCall::Guard {
                binding: Some(g), ..
            }) => stmts[i + 1..]
                .iter()
                .position(|s| calls::is_drop_of(s, g))
                .map_or(stmts.len(), |k| i + 1 + k + 1),
            _ => {
                // The annotation rule: up to a blank line or the next annotation block.
                let mut j = i + 1;
                while j < stmts.len() {
                    let prev_end = end_line(stmts[j - 1]);
                    let next_start = start_line(stmts[j]);
                    if self.src.blank_between(prev_end, next_start)
                        || !self.src.block_above(next_start).is_empty()
                    {
                        break;
                    }
                    j += 1;
                }
                j
            }
        }
    }

    /// `let g = pplib::par();` or `let t = pplib::task();` at `stmts[i]`: the nodes of the
    /// region it guards (to `drop(g)` or the block's end) and the index after it.
    pub(super) fn pplib_guard(
        &mut self,
        stmts: &[&syn::Stmt],
        i: usize,
    ) -> Result<Option<(Vec<Node>, usize)>, PredictError> {
        let local_fn = |n: &str| self.fns.contains_key(n);
        let (guard, is_par) = match calls::guard_of(stmts[i], "par", &local_fn) {
            Some(g) => (g, true),
            None => match calls::guard_of(stmts[i], "task", &local_fn) {
                Some(g) => (g, false),
                None => return Ok(None),
            },
        };
        let line = start_line(stmts[i]);
        let end = stmts[i + 1..]
            .iter()
            .position(|s| calls::is_drop_of(s, &guard))
            .map_or(stmts.len(), |k| i + 1 + k);
        let body = &stmts[i + 1..end];
        let next = (end + 1).min(stmts.len());
        let nodes = if is_par {
            self.enter(line, 0)?;
            self.scope_bodies += 1;
            let r = self.stmts(body);
            self.scope_bodies -= 1;
            self.depth -= 1;
            self.par_region(r?, line)
        } else {
            self.splits += 1;
            self.enter(line, 0)?;
            let r = self.stmts(body);
            self.depth -= 1;
            self.splits -= 1;
            task_marker(r?, line)
        };
        Ok(Some((nodes, next)))
    }

    /// The nodes of a `par` region: its marked tasks and spawns as a parallel node, or the
    /// nodes as they are when it holds none.
    fn par_region(&mut self, nodes: Vec<Node>, line: usize) -> Vec<Node> {
        let nodes: Vec<Node> = nodes.into_iter().map(mark_tasks).collect();
        if !nodes.iter().any(|n| is_spawn(n) || is_spawn_loop(n)) {
            return nodes;
        }
        self.scope("pplib::par".into(), nodes, line)
    }

    /// pplib's calls that say structure: `par_scope`, `task_scope`, `run`. None for other
    /// calls.
    pub(super) fn pplib_call(
        &mut self,
        c: &syn::ExprCall,
        hint: &Hint,
    ) -> Result<Option<Vec<Node>>, PredictError> {
        let Some((full, last)) = path_last(&c.func) else {
            return Ok(None);
        };
        let local = self.fns.contains_key(&last);
        let closure = |k: usize| match c.args.get(k) {
            Some(syn::Expr::Closure(cl)) => Some(&*cl.body),
            _ => None,
        };
        let line = start_line(c);
        if calls::is_pplib(&full, &last, "par_scope", local) && c.args.len() == 1 {
            let Some(body) = closure(0) else {
                return Ok(None);
            };
            self.scope_bodies += 1;
            let nodes = self.expr(body, hint);
            self.scope_bodies -= 1;
            return Ok(Some(self.par_region(nodes?, line)));
        }
        if calls::is_pplib(&full, &last, "task_scope", local) && c.args.len() == 1 {
            let Some(body) = closure(0) else {
                return Ok(None);
            };
            self.splits += 1;
            let nodes = self.expr(body, hint);
            self.splits -= 1;
            return Ok(Some(task_marker(nodes?, line)));
        }
        // `run` only by its full path: a bare `run(k, || ..)` is too common a name.
        if full == "pplib::run" && c.args.len() == 2 {
            let Some(body) = closure(1) else {
                return Ok(None);
            };
            let size = calls::size_expr(&c.args[0]);
            // `pplib::run(0, ..)` takes rayon's default pool size: not known here.
            if matches!(size, Ok(Expr::Num(v)) if v == 0.0) {
                return Ok(Some(self.expr(body, hint)?));
            }
            return Ok(Some(self.in_pool(size, body, line, "pplib::run")?));
        }
        Ok(None)
    }

    /// `let pool = pplib::pool(K)?` (or a `ThreadPoolBuilder`): remembers the pool's size.
    pub(super) fn note_pool(&mut self, pat: &syn::Pat, init: &syn::Expr, line: usize) {
        let syn::Pat::Ident(id) = pat else {
            return;
        };
        if let Some(k) = calls::pool_size_of(init) {
            let size = calls::size_expr(k);
            self.pools.insert(id.ident.to_string(), (size, line));
        }
    }

    /// The size of the pool `receiver` names, when it was built in the walked code.
    pub(super) fn pool_size(&self, receiver: &syn::Expr) -> Option<Result<Expr, String>> {
        let syn::Expr::Path(p) = receiver else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        self.pools.get(&name).map(|(s, _)| s.clone())
    }

    /// `pool.install(|| body)`: the body at the pool's p (see the module docs).
    pub(super) fn install(
        &mut self,
        receiver: &syn::Expr,
        body: &syn::Expr,
        line: usize,
    ) -> Result<Vec<Node>, PredictError> {
        match self.pool_size(receiver) {
            Some(size) if self.claimed_install != Some(line) => {
                self.in_pool(size, body, line, "install")
            }
            _ => self.expr(body, &Hint::default()),
        }
    }

    /// `body` run in a pool of `size` threads.
    fn in_pool(
        &mut self,
        size: Result<Expr, String>,
        body: &syn::Expr,
        line: usize,
        what: &str,
    ) -> Result<Vec<Node>, PredictError> {
        self.splits += 1;
        let nodes = self.expr(body, &Hint::default());
        self.splits -= 1;
        let nodes = nodes?;
        let Some(p) = self.usable_size(size, line, what, 0) else {
            return Ok(nodes);
        };
        if nodes.is_empty() {
            return Ok(nodes);
        }
        let mut node = Node::new(
            NodeKind::Serial {
                label: format!("{what} (pool of {p})"),
            },
            line,
        )
        .with_children(nodes);
        node.p_override = Some(p);
        Ok(vec![node])
    }

    /// The pool size as p, or None with a warning saying why it cannot be used; `scopes`:
    /// the scope bodies that may enclose it (1 for a task a scope spawns).
    fn usable_size(
        &mut self,
        size: Result<Expr, String>,
        line: usize,
        what: &str,
        scopes: usize,
    ) -> Option<Expr> {
        let why = match size {
            Err(why) => format!("holds {why}"),
            Ok(_) if self.splits > 0 || self.scope_bodies > scopes => {
                "is inside a construct that changes p (annotate `// lcm: p = EXPR` on the task instead)".to_string()
            }
            Ok(e) => {
                let known = self.program_vars();
                let unknown: Vec<String> = e
                    .variables()
                    .into_iter()
                    .filter(|v| !known.contains(v))
                    .collect();
                if unknown.is_empty() {
                    return Some(e);
                }
                format!(
                    "uses {} , not a variable of the program (n, p or a name of its `// lcm:` lines)",
                    unknown.join(", ")
                )
            }
        };
        self.warn(
            line,
            format!("the pool size of `{what}` {why}: its work runs at the p of its caller"),
        );
        None
    }

    /// A task whose closure's whole body is `pool.install(..)` on a pool of known size:
    /// that size, read where the task is created (see the module docs).
    pub(super) fn task_pool(&mut self, body: &syn::Expr) -> Option<Expr> {
        let mut e = body;
        while let syn::Expr::Block(b) = e {
            match b.block.stmts.as_slice() {
                [syn::Stmt::Expr(inner, _)] => e = inner,
                _ => return None,
            }
        }
        let syn::Expr::MethodCall(m) = e else {
            return None;
        };
        if m.method != "install" || m.args.len() != 1 || self.splits > 0 || self.scope_bodies > 1 {
            return None;
        }
        let size = self.pool_size(&m.receiver)?;
        let line = start_line(m);
        let p = self.usable_size(size, line, "install", 1)?;
        self.claimed_install = Some(line);
        Some(p)
    }

    /// The program's variables: `n`, `p` and every name the file's `// lcm:` lines use.
    fn program_vars(&self) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = ["n", "p"].iter().map(|s| s.to_string()).collect();
        for a in self.src.annotations.values() {
            match a {
                Annotation::Model { category, expr } => {
                    out.insert(category.clone());
                    out.extend(expr.variables());
                }
                Annotation::Processors(e) | Annotation::Iterations(e) => out.extend(e.variables()),
                _ => {}
            }
        }
        out
    }
}

/// The nodes of a pplib task as one marked serial node (nothing when they are empty).
fn task_marker(nodes: Vec<Node>, line: usize) -> Vec<Node> {
    if nodes.is_empty() {
        return nodes;
    }
    vec![Node::new(
        NodeKind::Serial {
            label: TASK_LABEL.into(),
        },
        line,
    )
    .with_children(nodes)]
}

/// A `par` region's node with its marked tasks (also in loops and followed calls) turned
/// into spawned tasks, which [`Recognizer::scope`] gathers.
fn mark_tasks(mut n: Node) -> Node {
    match &mut n.kind {
        NodeKind::Serial { label } if label == TASK_LABEL => {
            *label = format!("{SPAWN_LABEL} (pplib::task)");
            n
        }
        NodeKind::Serial { label } if label.starts_with("call ") => {
            n.children = n.children.into_iter().map(mark_tasks).collect();
            n
        }
        NodeKind::Loop { .. } => {
            n.children = n.children.into_iter().map(mark_tasks).collect();
            n
        }
        _ => n,
    }
}

/// Where a fragment of a source is named: what an annotation writer needs to put models
/// above it ([`fragment_sites`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FragmentSite {
    /// The fragment's name.
    pub name: String,
    /// The 1-based line of the statement that starts the fragment; its annotation block is
    /// the comment lines directly above it (models go there).
    pub line: usize,
    /// Whether a `// lcm: fragment NAME` line names it (else pplib's call alone does).
    pub annotated: bool,
}

/// Every fragment the statements of `src` name, by annotation or pplib call, in source
/// order (whether or not the entry function reaches it). The same rules as the
/// recognizer: a call at the head of the statement; an annotation in its block.
pub fn fragment_sites(src: &super::super::source::SourceFile) -> Vec<FragmentSite> {
    struct Sites<'s> {
        src: &'s super::super::source::SourceFile,
        fns: std::collections::HashMap<String, &'s syn::Block>,
        out: Vec<FragmentSite>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Sites<'_> {
        fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
            let line = start_line(s);
            let annotated = self
                .src
                .block_above(line)
                .into_iter()
                .find_map(|(_, a)| match a {
                    Annotation::Fragment(n) => Some(n),
                    _ => None,
                });
            let called = calls::frag_call(s, &|n| self.fns.contains_key(n))
                .and_then(|c| c.name().map(str::to_string));
            if let Some(name) = annotated.clone().or(called) {
                self.out.push(FragmentSite {
                    name,
                    line,
                    annotated: annotated.is_some(),
                });
            }
            syn::visit::visit_stmt(self, s);
        }
    }
    let mut fns = std::collections::HashMap::new();
    super::syntax::collect_fns(&src.syntax.items, &mut fns);
    let mut v = Sites {
        src,
        fns,
        out: Vec::new(),
    };
    syn::visit::Visit::visit_file(&mut v, &src.syntax);
    v.out
}
