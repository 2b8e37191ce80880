//! Small readers of `syn` syntax: lines, names, literal ranges, channel and lock idioms, and
//! the scan of a fragment's code for channel operations and covered parallelism.

use super::super::source::SourceFile;
use lca::annotation::Annotation;
use std::collections::{BTreeSet, HashMap};
use syn::spanned::Spanned;
use syn::visit::Visit;

use super::{PAR_METHODS, SCOPE_FNS};

pub(super) fn start_line<T: Spanned>(t: &T) -> usize {
    t.span().start().line
}
pub(super) fn end_line<T: Spanned>(t: &T) -> usize {
    t.span().end().line
}

pub(super) fn collect_fns<'a>(items: &'a [syn::Item], out: &mut HashMap<String, &'a syn::Block>) {
    for item in items {
        match item {
            syn::Item::Fn(f) => {
                out.insert(f.sig.ident.to_string(), &f.block);
            }
            syn::Item::Impl(imp) => {
                for it in &imp.items {
                    if let syn::ImplItem::Fn(f) = it {
                        out.entry(f.sig.ident.to_string()).or_insert(&f.block);
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_fns(items, out);
                }
            }
            _ => {}
        }
    }
}

pub(super) fn collect_type_names(items: &[syn::Item], out: &mut BTreeSet<String>) {
    for item in items {
        match item {
            syn::Item::Struct(s) => {
                out.insert(s.ident.to_string());
            }
            syn::Item::Enum(e) => {
                out.insert(e.ident.to_string());
            }
            syn::Item::Mod(m) => {
                out.insert(m.ident.to_string());
                if let Some((_, items)) = &m.content {
                    collect_type_names(items, out);
                }
            }
            _ => {}
        }
    }
}

/// Simple textual name of an expression (`tx`, `self.rx`, `a[0]`), for channels and locks.
pub(super) fn expr_name(e: &syn::Expr) -> String {
    match e {
        syn::Expr::Path(p) => p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect::<Vec<_>>()
            .join("::"),
        syn::Expr::Field(f) => {
            let m = match &f.member {
                syn::Member::Named(i) => i.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            format!("{}.{}", expr_name(&f.base), m)
        }
        syn::Expr::Reference(r) => expr_name(&r.expr),
        syn::Expr::Paren(p) => expr_name(&p.expr),
        syn::Expr::MethodCall(m) if m.method == "clone" || m.method == "as_ref" => {
            expr_name(&m.receiver)
        }
        syn::Expr::Index(i) => format!("{}[]", expr_name(&i.expr)),
        syn::Expr::Unary(u) => expr_name(&u.expr),
        _ => "?".into(),
    }
}

pub(super) fn path_last(e: &syn::Expr) -> Option<(String, String)> {
    if let syn::Expr::Path(p) = e {
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let last = segs.last()?.clone();
        Some((segs.join("::"), last))
    } else {
        None
    }
}

pub(super) fn int_lit(e: &syn::Expr) -> Option<i64> {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse::<i64>().ok(),
            _ => None,
        },
        syn::Expr::Paren(p) => int_lit(&p.expr),
        _ => None,
    }
}

/// Trip count of a literal range `a..b` / `a..=b` (also in parentheses).
pub(super) fn literal_range(e: &syn::Expr) -> Option<i64> {
    match e {
        syn::Expr::Range(r) => {
            let a = match &r.start {
                Some(s) => int_lit(s)?,
                None => 0,
            };
            let b = int_lit(r.end.as_ref()?)?;
            let n = match r.limits {
                syn::RangeLimits::HalfOpen(_) => b - a,
                syn::RangeLimits::Closed(_) => b - a + 1,
            };
            Some(n.max(0))
        }
        syn::Expr::Paren(p) => literal_range(&p.expr),
        syn::Expr::MethodCall(m) if m.method == "step_by" => {
            let n = literal_range(&m.receiver)?;
            let s = int_lit(m.args.first()?)?;
            (s > 0).then(|| (n + s - 1) / s)
        }
        _ => None,
    }
}

pub(super) fn pat_name(p: &syn::Pat) -> String {
    match p {
        syn::Pat::Ident(i) => i.ident.to_string(),
        syn::Pat::Type(t) => pat_name(&t.pat),
        syn::Pat::Reference(r) => pat_name(&r.pat),
        _ => "?".into(),
    }
}

/// The mutex of `m.lock()` / `m.lock().unwrap()` / `m.lock().expect(..)`.
pub(super) fn lock_receiver(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::MethodCall(m) if m.method == "lock" || m.method == "write" => {
            Some(expr_name(&m.receiver))
        }
        syn::Expr::MethodCall(m) if m.method == "unwrap" || m.method == "expect" => {
            lock_receiver(&m.receiver)
        }
        syn::Expr::Try(t) => lock_receiver(&t.expr),
        _ => None,
    }
}

/// `rx`, `&rx`, `rx.iter()`, `rx.into_iter()`: the receiver iterated by a `for` loop.
pub(super) fn receiver_iter(e: &syn::Expr) -> Option<&syn::Expr> {
    match e {
        syn::Expr::Path(_) | syn::Expr::Field(_) => Some(e),
        syn::Expr::Reference(r) => receiver_iter(&r.expr),
        syn::Expr::MethodCall(m)
            if (m.method == "iter" || m.method == "into_iter") && m.args.is_empty() =>
        {
            Some(&m.receiver)
        }
        _ => None,
    }
}

/// `while let Ok(x) = rx.recv()` / `while let Some(x) = rx.recv().ok()`.
pub(super) fn while_let_recv(cond: &syn::Expr) -> Option<&syn::Expr> {
    if let syn::Expr::Let(l) = cond {
        let mut e: &syn::Expr = &l.expr;
        if let syn::Expr::MethodCall(m) = e {
            if m.method == "ok" {
                e = &m.receiver;
            }
        }
        if let syn::Expr::MethodCall(m) = e {
            if m.method == "recv" && m.args.is_empty() {
                return Some(&m.receiver);
            }
        }
    }
    None
}

/// Whether `m` is a method of a chain that an earlier parallel method already started
/// (`par_chunks_mut(..).pp_for_each(..)`: one loop, named by its first method).
fn ends_par_chain(m: &syn::ExprMethodCall) -> bool {
    let mut e: &syn::Expr = &m.receiver;
    while let syn::Expr::MethodCall(inner) = e {
        if PAR_METHODS.contains(&inner.method.to_string().as_str()) {
            return true;
        }
        e = &inner.receiver;
    }
    false
}

/// What a fragment's code holds: channel operations (linking tasks) and parallelism (covered
/// by the model, named in the tree).
#[derive(Default)]
pub(super) struct FragmentScan {
    pub(super) sends: Vec<(String, usize)>,
    pub(super) recvs: Vec<(String, usize)>,
    pub(super) barriers: Vec<(String, usize)>,
    pub(super) parallel: Vec<String>,
    lines: Vec<usize>,
    /// Whether a `pplib::frag` / `pplib::frag_scope` call names a fragment in the code.
    pplib_fragment: bool,
}

impl FragmentScan {
    pub(super) fn fragment_lines(&self, src: &SourceFile) -> bool {
        self.pplib_fragment
            || self.lines.iter().any(|l| {
                src.block_above(*l)
                    .iter()
                    .any(|(_, a)| matches!(a, Annotation::Fragment(_)))
            })
    }
}

impl<'ast> Visit<'ast> for FragmentScan {
    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        self.lines.push(start_line(s));
        syn::visit::visit_stmt(self, s);
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let line = start_line(m);
        let name = m.method.to_string();
        if name == "send" && m.args.len() == 1 {
            self.sends.push((expr_name(&m.receiver), line));
        } else if name == "recv" && m.args.is_empty() {
            self.recvs.push((expr_name(&m.receiver), line));
        } else if name == "wait" && m.args.is_empty() {
            self.barriers.push((expr_name(&m.receiver), line));
        } else if PAR_METHODS.contains(&name.as_str()) && !ends_par_chain(m) {
            self.parallel
                .push(format!("data-parallel `{name}` (line {line})"));
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Some((full, last)) = path_last(&c.func) {
            let frag = last == "frag" || last == "frag_scope";
            if frag && (full == last || full.starts_with("pplib::")) {
                self.pplib_fragment = true;
            }
            if last == "join" || SCOPE_FNS.contains(&last.as_str()) || last == "spawn" {
                self.parallel
                    .push(format!("`{full}` (line {})", start_line(c)));
            }
        }
        syn::visit::visit_expr_call(self, c);
    }
}
