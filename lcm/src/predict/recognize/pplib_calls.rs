//! pplib's own calls read as structure and names: `pplib::frag("NAME")` guards and
//! `pplib::frag_scope("NAME", || ..)` name a fragment; `pplib::par()` guards and
//! `pplib::par_scope(|| ..)` open a fork point whose `pplib::task()` guards and
//! `pplib::task_scope(|| ..)` closures are its tasks; `pplib::pool(K)`,
//! `ThreadPoolBuilder::new().num_threads(K)` and `pplib::run(K, || ..)` give the p of what
//! runs in the pool.
//!
//! A call is pplib's when its path starts with `pplib::`, or is the bare name (imported with
//! `use pplib::frag;`) and the file defines no function of that name; `pplib::pool` and
//! `pplib::run` only by their full path (bare `pool` and `run` are too common names).

use lca::expr::{BinOp, Expr, Func};

/// How a statement names its fragment through pplib.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum FragCall {
    /// `pplib::frag_scope("NAME", || ..)`: the fragment is the statement.
    Scope {
        /// The name (None: not a string literal).
        name: Option<String>,
    },
    /// `let g = pplib::frag("NAME");`: the fragment runs from here to `drop(g)` or the end of
    /// the block.
    Guard {
        /// The name (None: not a string literal).
        name: Option<String>,
        /// The guard's binding (None: `let _ = ..` or a bare statement, dropped at once).
        binding: Option<String>,
    },
}

impl FragCall {
    /// The fragment's name, when it is a string literal.
    pub(super) fn name(&self) -> Option<&str> {
        match self {
            FragCall::Scope { name } | FragCall::Guard { name, .. } => name.as_deref(),
        }
    }
}

/// The path of a call's function (`pplib::frag`) and its last segment (`frag`).
fn call_path(c: &syn::ExprCall) -> Option<(String, String)> {
    super::syntax::path_last(&c.func)
}

/// Whether `full` / `last` names pplib's function `what` (see the module docs).
pub(super) fn is_pplib(full: &str, last: &str, what: &str, local_fn: bool) -> bool {
    last == what && (full == format!("pplib::{what}") || (full == last && !local_fn))
}

/// The call at the head of an expression statement: through `let`, assignment, `?`,
/// references, parentheses, `return` and the receivers of method calls (`.unwrap()`).
pub(super) fn head_call(e: &syn::Expr) -> Option<&syn::ExprCall> {
    match e {
        syn::Expr::Call(c) => Some(c),
        syn::Expr::Paren(p) => head_call(&p.expr),
        syn::Expr::Group(g) => head_call(&g.expr),
        syn::Expr::Reference(r) => head_call(&r.expr),
        syn::Expr::Try(t) => head_call(&t.expr),
        syn::Expr::Assign(a) => head_call(&a.right),
        syn::Expr::Return(r) => r.expr.as_deref().and_then(head_call),
        syn::Expr::MethodCall(m) => head_call(&m.receiver),
        syn::Expr::Cast(c) => head_call(&c.expr),
        _ => None,
    }
}

/// The string literal of a call's first argument.
fn first_str(c: &syn::ExprCall) -> Option<String> {
    match c.args.first()? {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// The name a pattern binds (`g`, `_tag`, `mut g`); None for `_` and other patterns.
fn binding(p: &syn::Pat) -> Option<String> {
    match p {
        syn::Pat::Ident(i) => Some(i.ident.to_string()),
        syn::Pat::Type(t) => binding(&t.pat),
        _ => None,
    }
}

/// The pplib fragment call that statement `s` makes at its head, if any. `local_fn` says
/// whether the file defines a function of a given name (then a bare `frag` is that one).
pub(super) fn frag_call(s: &syn::Stmt, local_fn: &dyn Fn(&str) -> bool) -> Option<FragCall> {
    let (expr, bound) = match s {
        syn::Stmt::Local(l) => (&*l.init.as_ref()?.expr, binding(&l.pat)),
        syn::Stmt::Expr(e, _) => (e, None),
        _ => return None,
    };
    let c = head_call(expr)?;
    let (full, last) = call_path(c)?;
    let local = local_fn(&last);
    if is_pplib(&full, &last, "frag_scope", local) && c.args.len() == 2 {
        return Some(FragCall::Scope { name: first_str(c) });
    }
    if is_pplib(&full, &last, "frag", local) && c.args.len() == 1 {
        // Only a guard bound directly by `let` lives on; anything else is dropped at once.
        let direct = matches!(s, syn::Stmt::Local(l)
            if matches!(&*l.init.as_ref()?.expr, syn::Expr::Call(_)));
        return Some(FragCall::Guard {
            name: first_str(c),
            binding: if direct { bound } else { None },
        });
    }
    None
}

/// Whether statement `s` is `drop(NAME);` (also `std::mem::drop`).
pub(super) fn is_drop_of(s: &syn::Stmt, name: &str) -> bool {
    let syn::Stmt::Expr(syn::Expr::Call(c), _) = s else {
        return false;
    };
    let Some((_, last)) = call_path(c) else {
        return false;
    };
    last == "drop"
        && c.args.len() == 1
        && matches!(&c.args[0], syn::Expr::Path(p) if p.path.is_ident(name))
}

/// `let g = pplib::par();` / `let g = pplib::task();`: the guard's binding when statement
/// `s` opens the pplib construct `what` (`par` or `task`) held to `drop(g)` or the block's end.
pub(super) fn guard_of(
    s: &syn::Stmt,
    what: &str,
    local_fn: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let syn::Stmt::Local(l) = s else {
        return None;
    };
    let syn::Expr::Call(c) = &*l.init.as_ref()?.expr else {
        return None;
    };
    let (full, last) = call_path(c)?;
    if is_pplib(&full, &last, what, local_fn(&last)) && c.args.is_empty() {
        binding(&l.pat)
    } else {
        None
    }
}

/// A pool size: the Rust expression read as an expression of the prediction's variables, or
/// why it cannot be (a float, a cast, a call lcm does not know).
///
/// Integer arithmetic as Rust does it on `usize`: `a / b` is `floor(a/b)`, `a.div_ceil(b)`
/// is `ceil(a/b)`; `max`, `min`, `pow` and `std::cmp::{max,min}` are read too.
pub(super) fn size_expr(e: &syn::Expr) -> Result<Expr, String> {
    let two = |a: &syn::Expr, b: &syn::Expr| Ok::<_, String>((size_expr(a)?, size_expr(b)?));
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i
                .base10_parse::<u64>()
                .map(|v| Expr::Num(v as f64))
                .map_err(|e| e.to_string()),
            _ => Err("a literal that is not an integer".into()),
        },
        syn::Expr::Path(p) if p.path.segments.len() == 1 => {
            Ok(Expr::Var(p.path.segments[0].ident.to_string()))
        }
        syn::Expr::Paren(p) => size_expr(&p.expr),
        syn::Expr::Group(g) => size_expr(&g.expr),
        syn::Expr::Reference(r) => size_expr(&r.expr),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Deref(_),
            expr,
            ..
        }) => size_expr(expr),
        syn::Expr::Binary(b) => {
            let (x, y) = two(&b.left, &b.right)?;
            Ok(match b.op {
                syn::BinOp::Add(_) => Expr::bin(BinOp::Add, x, y),
                syn::BinOp::Sub(_) => Expr::bin(BinOp::Sub, x, y),
                syn::BinOp::Mul(_) => Expr::bin(BinOp::Mul, x, y),
                syn::BinOp::Div(_) => Expr::call(Func::Floor, vec![Expr::bin(BinOp::Div, x, y)]),
                _ => return Err("an operator other than + - * /".into()),
            })
        }
        syn::Expr::MethodCall(m) => {
            let method = m.method.to_string();
            match (method.as_str(), m.args.len()) {
                ("max" | "min", 1) => {
                    let (x, y) = two(&m.receiver, &m.args[0])?;
                    let f = if method == "max" {
                        Func::Max
                    } else {
                        Func::Min
                    };
                    Ok(Expr::call(f, vec![x, y]))
                }
                ("div_ceil", 1) => {
                    let (x, y) = two(&m.receiver, &m.args[0])?;
                    Ok(Expr::call(Func::Ceil, vec![Expr::bin(BinOp::Div, x, y)]))
                }
                ("pow", 1) => {
                    let (x, y) = two(&m.receiver, &m.args[0])?;
                    Ok(Expr::bin(BinOp::Pow, x, y))
                }
                ("clone", 0) | ("into", 0) => size_expr(&m.receiver),
                _ => Err(format!("the method `{method}`")),
            }
        }
        syn::Expr::Call(c) => match call_path(c) {
            Some((_, last)) if (last == "max" || last == "min") && c.args.len() == 2 => {
                let (x, y) = two(&c.args[0], &c.args[1])?;
                let f = if last == "max" { Func::Max } else { Func::Min };
                Ok(Expr::call(f, vec![x, y]))
            }
            Some((full, _)) => Err(format!("the call `{full}(..)`")),
            None => Err("a call".into()),
        },
        syn::Expr::Cast(_) => Err("a cast".into()),
        _ => Err("an expression lcm does not read".into()),
    }
}

/// The size expression of a pool built by `e`: `pplib::pool(K)` or
/// `ThreadPoolBuilder::new().num_threads(K).build()` (with `?`, `.unwrap()`, `.expect(..)`,
/// `.map_err(..)` after it). None when `e` builds no pool.
pub(super) fn pool_size_of(e: &syn::Expr) -> Option<&syn::Expr> {
    match e {
        syn::Expr::Try(t) => pool_size_of(&t.expr),
        syn::Expr::Paren(p) => pool_size_of(&p.expr),
        syn::Expr::MethodCall(m) => {
            if m.method == "num_threads" && m.args.len() == 1 {
                return Some(&m.args[0]);
            }
            pool_size_of(&m.receiver)
        }
        syn::Expr::Call(c) => {
            let (full, _) = call_path(c)?;
            // `pool` only by its full path: a bare `pool(k)` is too common a name.
            (full == "pplib::pool" && c.args.len() == 1).then(|| &c.args[0])
        }
        _ => None,
    }
}
