//! The item count of a parallel iterator, from the source where it can be read:
//! `(a..b).into_par_iter()` (b − a), `v.par_iter()` / `v.par_iter_mut()` / `v.into_par_iter()`
//! over a collection of known length, `v[a..b].par_iter()` (b − a), `v.par_chunks(c)` (and
//! `_mut`, `_exact`: ceil(len / c)). A length is known for a local made by `vec![x; LEN]`,
//! or by collecting a range (`(a..b).map(..).collect()`), declared once in the file. The
//! bounds become expressions in the source's own names (`n` in `0..n` is the variable `n`,
//! bound with `--set n=…`); integer literals, `+ - * /`, parentheses and `as` casts are read,
//! anything else is not.

use lca::expr::{BinOp, Expr};
use std::collections::BTreeMap;
use syn::visit::Visit;

/// Source expression to model expression, where it is arithmetic on names and literals.
pub(super) fn to_expr(e: &syn::Expr) -> Option<Expr> {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse::<f64>().ok().map(Expr::Num),
            syn::Lit::Float(f) => f.base10_parse::<f64>().ok().map(Expr::Num),
            _ => None,
        },
        syn::Expr::Path(p) if p.qself.is_none() => {
            p.path.get_ident().map(|i| Expr::Var(i.to_string()))
        }
        syn::Expr::Paren(p) => to_expr(&p.expr),
        syn::Expr::Group(g) => to_expr(&g.expr),
        syn::Expr::Cast(c) => to_expr(&c.expr),
        syn::Expr::Binary(b) => {
            let op = match b.op {
                syn::BinOp::Add(_) => BinOp::Add,
                syn::BinOp::Sub(_) => BinOp::Sub,
                syn::BinOp::Mul(_) => BinOp::Mul,
                syn::BinOp::Div(_) => BinOp::Div,
                _ => return None,
            };
            Some(Expr::bin(op, to_expr(&b.left)?, to_expr(&b.right)?))
        }
        _ => None,
    }
}

/// `b - a` of a range `a..b` (`a..=b`: plus one; no start: from 0).
pub(super) fn range_len(e: &syn::Expr) -> Option<Expr> {
    match e {
        syn::Expr::Range(r) => {
            let end = to_expr(r.end.as_ref()?)?;
            let len = match &r.start {
                Some(s) => match to_expr(s)? {
                    Expr::Num(0.0) => end,
                    a => Expr::bin(BinOp::Sub, end, a),
                },
                None => end,
            };
            Some(match r.limits {
                syn::RangeLimits::HalfOpen(_) => len,
                syn::RangeLimits::Closed(_) => Expr::bin(BinOp::Add, len, Expr::Num(1.0)),
            })
        }
        syn::Expr::Paren(p) => range_len(&p.expr),
        _ => None,
    }
}

/// Lengths of the file's locals made by `vec![x; LEN]` or by collecting a range; a name
/// declared twice with different lengths (or once without one) is left out.
pub(super) fn collection_lengths(file: &syn::File) -> BTreeMap<String, Expr> {
    struct Lets(BTreeMap<String, Option<Expr>>);
    impl<'ast> Visit<'ast> for Lets {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            let name = match &l.pat {
                syn::Pat::Ident(i) => Some(i.ident.to_string()),
                syn::Pat::Type(t) => match &*t.pat {
                    syn::Pat::Ident(i) => Some(i.ident.to_string()),
                    _ => None,
                },
                _ => None,
            };
            if let Some(name) = name {
                let len = l.init.as_ref().and_then(|i| made_len(&i.expr));
                let e = self.0.entry(name).or_insert_with(|| len.clone());
                if *e != len {
                    *e = None;
                }
            }
            syn::visit::visit_local(self, l);
        }
    }
    let mut v = Lets(BTreeMap::new());
    v.visit_file(file);
    v.0.into_iter().filter_map(|(k, e)| Some((k, e?))).collect()
}

/// The length of a collection an initializer makes: `vec![x; LEN]`, or a chain of
/// length-keeping adapters over a range ending in `collect()`.
fn made_len(e: &syn::Expr) -> Option<Expr> {
    match e {
        syn::Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let parser = |input: syn::parse::ParseStream| {
                let _: syn::Expr = input.parse()?;
                let _: syn::Token![;] = input.parse()?;
                input.parse::<syn::Expr>()
            };
            let len = syn::parse::Parser::parse2(parser, m.mac.tokens.clone()).ok()?;
            to_expr(&len)
        }
        syn::Expr::MethodCall(m) if m.method == "collect" => {
            let mut root = &*m.receiver;
            while let syn::Expr::MethodCall(inner) = root {
                if !["map", "into_iter", "iter", "cloned", "copied", "enumerate"]
                    .contains(&inner.method.to_string().as_str())
                {
                    return None;
                }
                root = &inner.receiver;
            }
            range_len(root)
        }
        _ => None,
    }
}

/// The length of the receiver of a parallel iterator: a range, a slice of a range of a
/// collection, a known collection (also borrowed or through `as_slice`/`as_mut_slice`).
fn receiver_len(e: &syn::Expr, lengths: &BTreeMap<String, Expr>) -> Option<Expr> {
    match e {
        syn::Expr::Range(_) | syn::Expr::Paren(_) if range_len(e).is_some() => range_len(e),
        syn::Expr::Paren(p) => receiver_len(&p.expr, lengths),
        syn::Expr::Reference(r) => receiver_len(&r.expr, lengths),
        syn::Expr::Index(i) => range_len(&i.index),
        syn::Expr::MethodCall(m)
            if ["as_slice", "as_mut_slice", "iter", "iter_mut"]
                .contains(&m.method.to_string().as_str()) =>
        {
            receiver_len(&m.receiver, lengths)
        }
        syn::Expr::Path(p) => lengths.get(&p.path.get_ident()?.to_string()).cloned(),
        _ => None,
    }
}

/// The item count of a parallel iterator whose first parallel method is `par` on `root`.
pub(super) fn par_items(
    root: &syn::Expr,
    par: &syn::ExprMethodCall,
    file: &syn::File,
) -> Option<Expr> {
    let lengths = collection_lengths(file);
    let len = receiver_len(root, &lengths)?;
    let method = par.method.to_string();
    if method.starts_with("par_chunks") {
        let c = to_expr(par.args.first()?)?;
        return Some(Expr::Call(
            lca::expr::Func::Ceil,
            vec![Expr::bin(BinOp::Div, len, c)],
        ));
    }
    ["par_iter", "par_iter_mut", "into_par_iter"]
        .contains(&method.as_str())
        .then_some(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(src: &str, chain: &str) -> Option<String> {
        let file: syn::File = syn::parse_str(src).unwrap();
        let e: syn::Expr = syn::parse_str(chain).unwrap();
        let syn::Expr::MethodCall(m) = &e else {
            panic!("not a method call")
        };
        let mut chainv = vec![m];
        let mut root = &*m.receiver;
        while let syn::Expr::MethodCall(inner) = root {
            chainv.push(inner);
            root = &inner.receiver;
        }
        let par = chainv.last().unwrap();
        par_items(root, par, &file).map(|e| e.to_string())
    }

    #[test]
    fn counts_come_from_ranges_collections_and_chunks() {
        let src = "fn main() { let v = vec![0.0; n * 2]; let w: Vec<u64> = (1..=m).map(|x| x).collect(); }";
        assert_eq!(items(src, "(0..n).into_par_iter()").as_deref(), Some("n"));
        assert_eq!(
            items(src, "(k..n).into_par_iter()").as_deref(),
            Some("n - k")
        );
        assert_eq!(items(src, "v.par_iter()").as_deref(), Some("n*2"));
        assert_eq!(items(src, "w.par_iter()").as_deref(), Some("m - 1 + 1"));
        assert_eq!(items(src, "v[0..k].par_iter()").as_deref(), Some("k"));
        assert_eq!(
            items(src, "v.par_chunks(64)").as_deref(),
            Some("ceil(n*2/64)")
        );
        assert_eq!(items(src, "unknown.par_iter()"), None);
        assert_eq!(items(src, "(0..f(n)).into_par_iter()"), None);
    }

    #[test]
    fn a_name_declared_twice_with_different_lengths_is_unknown() {
        let src = "fn a() { let v = vec![0; n]; } fn b() { let v = vec![0; m]; }";
        assert_eq!(items(src, "v.par_iter()"), None);
    }
}
