//! The numeric side of the expansion: an expression's names replaced by their equations'
//! values (or the arguments bound to them), numeric functions applied, reductions given an
//! index of their own.

use super::{kind_name, Normalizer, Scope, R};
use crate::pamela::ast::{Decl, DeclKind};
use crate::pamela::error::{PamelaError, Span};
use crate::pamela::expr::{bx, Expr};

impl Normalizer<'_> {
    /// The normal form of `e` in `scope`: one node deeper than the expression being built
    /// (bounded by [`super::MAX_NODES`] and [`super::MAX_NORMAL_DEPTH`]).
    pub(super) fn expr(&mut self, e: &Expr, scope: &Scope, span: Span) -> R<Expr> {
        self.grow(1, 1, span)?;
        self.depth += 1;
        let r = self.expr_node(e, scope, span);
        self.depth -= 1;
        r
    }

    /// [`Normalizer::expr`] of one node: names, applications and reductions by their own
    /// functions, every other node with its operands normalized.
    fn expr_node(&mut self, e: &Expr, scope: &Scope, span: Span) -> R<Expr> {
        Ok(match e {
            Expr::Num(_) => e.clone(),
            Expr::Var(n) => return self.name(n, scope, span),
            Expr::Apply(n, args) => return self.application(n, args, scope, span),
            Expr::Reduce {
                op,
                index,
                lo,
                hi,
                body,
            } => {
                let lo = self.expr(lo, scope, span)?;
                let hi = self.expr(hi, scope, span)?;
                let fresh = self.fresh_index(index, scope);
                let inner = scope.with(index, Expr::Var(fresh.clone()));
                let body = self.expr(body, &inner, span)?;
                Expr::Reduce {
                    op: *op,
                    index: fresh,
                    lo: bx(lo),
                    hi: bx(hi),
                    body: bx(body),
                }
            }
            Expr::Add(v) => Expr::Add(
                v.iter()
                    .map(|x| self.expr(x, scope, span))
                    .collect::<R<_>>()?,
            ),
            Expr::Mul(v) => Expr::Mul(
                v.iter()
                    .map(|x| self.expr(x, scope, span))
                    .collect::<R<_>>()?,
            ),
            Expr::Call(f, v) => Expr::Call(
                *f,
                v.iter()
                    .map(|x| self.expr(x, scope, span))
                    .collect::<R<_>>()?,
            ),
            Expr::Div(a, b) => Expr::Div(
                bx(self.expr(a, scope, span)?),
                bx(self.expr(b, scope, span)?),
            ),
            Expr::Pow(a, b) => Expr::Pow(
                bx(self.expr(a, scope, span)?),
                bx(self.expr(b, scope, span)?),
            ),
            Expr::Mod(a, b) => Expr::Mod(
                bx(self.expr(a, scope, span)?),
                bx(self.expr(b, scope, span)?),
            ),
            Expr::IDiv(a, b) => Expr::IDiv(
                bx(self.expr(a, scope, span)?),
                bx(self.expr(b, scope, span)?),
            ),
            Expr::Cmp(o, a, b) => Expr::Cmp(
                *o,
                bx(self.expr(a, scope, span)?),
                bx(self.expr(b, scope, span)?),
            ),
            Expr::If(c, a, b) => Expr::If(
                bx(self.expr(c, scope, span)?),
                bx(self.expr(a, scope, span)?),
                bx(self.expr(b, scope, span)?),
            ),
            Expr::Contention(_) | Expr::TimeEquations(_) => e.clone(),
        })
    }

    /// The name `n`: the expression bound to it in `scope`, a parameter as itself, or the
    /// value of its numeric equation (which must take no arguments and, when constant, be
    /// finite); any other name is an error.
    fn name(&mut self, n: &str, scope: &Scope, span: Span) -> R<Expr> {
        if let Some(v) = scope.get(n) {
            self.grow(v.size(), v.depth(), span)?;
            return Ok(v.clone());
        }
        match self.decls.get(n).copied() {
            Some(Decl {
                kind: DeclKind::Numeric {
                    parameter: true, ..
                },
                ..
            }) => Ok(Expr::Var(n.to_string())),
            Some(
                d @ Decl {
                    kind: DeclKind::Numeric { value: Some(v), .. },
                    ..
                },
            ) => {
                if !d.params.is_empty() {
                    return Err(PamelaError::semantic(
                        span,
                        format!("`{n}` takes {} argument(s)", d.params.len()),
                    ));
                }
                self.enter(n, d.span)?;
                let r = self.expr(v, &Scope::default(), d.span);
                self.stack.pop();
                let r = r?;
                self.check_finite(n, &r, d.span)?;
                Ok(r)
            }
            Some(d) => Err(PamelaError::semantic(
                span,
                format!(
                    "`{n}` is a {} (defined at {}), not a numeric",
                    kind_name(&d.kind),
                    d.span
                ),
            )),
            None => Err(PamelaError::semantic(
                span,
                format!(
                    "undefined name `{n}` (declare it `numeric parameter {n}` or give it a value)"
                ),
            )),
        }
    }

    /// The numeric function `n` applied to `args` (normalized first): its equation's value
    /// with its parameters bound to them; a count of arguments other than its parameters',
    /// or a name that is not a numeric function, is an error.
    fn application(&mut self, n: &str, args: &[Expr], scope: &Scope, span: Span) -> R<Expr> {
        let args: Vec<Expr> = args
            .iter()
            .map(|a| self.expr(a, scope, span))
            .collect::<R<_>>()?;
        match self.decls.get(n).copied() {
            Some(
                d @ Decl {
                    kind: DeclKind::Numeric { value: Some(v), .. },
                    ..
                },
            ) => {
                if d.params.len() != args.len() {
                    return Err(PamelaError::semantic(
                        span,
                        format!(
                            "`{n}` takes {} argument(s), {} given",
                            d.params.len(),
                            args.len()
                        ),
                    ));
                }
                let mut inner = Scope::default();
                for (p, a) in d.params.iter().zip(args) {
                    inner = inner.with(p, a);
                }
                self.enter(n, d.span)?;
                let r = self.expr(v, &inner, d.span);
                self.stack.pop();
                r
            }
            Some(d) => Err(PamelaError::semantic(
                span,
                format!("`{n}` is a {}, not a numeric function", kind_name(&d.kind)),
            )),
            None => Err(PamelaError::semantic(
                span,
                format!("undefined function `{n}`"),
            )),
        }
    }

    /// A numeric equation whose value is a constant must be a finite number (`0/0`,
    /// `1/0` and overflows are errors naming it, not values that later vanish in a max).
    fn check_finite(&mut self, name: &str, value: &Expr, span: Span) -> R<()> {
        if self.finite.contains(name) || !value.variables().is_empty() {
            return Ok(());
        }
        match value.eval(&crate::pamela::Bindings::new()) {
            Ok(v) if !v.is_finite() => Err(PamelaError::semantic(
                span,
                format!("numeric `{name}` = {value} is {v}, expected a finite number"),
            )),
            _ => {
                self.finite.insert(name.to_string());
                Ok(())
            }
        }
    }
}
