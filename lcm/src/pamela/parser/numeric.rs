//! Numeric expressions: comparisons, arithmetic, `mod`/`div`, powers, reductions,
//! conditionals and calls.
use super::{Parser, R};
use crate::pamela::error::{PamelaError, Span};
use crate::pamela::expr::{bx, CmpOp, Expr, Func, Reduction};
use crate::pamela::lexer::Tok;

impl Parser {
    pub(crate) fn expr(&mut self) -> R<Expr> {
        self.enter()?;
        let r = self.comparison();
        self.leave(r)
    }

    fn comparison(&mut self) -> R<Expr> {
        let a = self.add()?;
        let op = match self.peek() {
            Tok::Lt => CmpOp::Lt,
            Tok::Le => CmpOp::Le,
            Tok::EqEq => CmpOp::Eq,
            Tok::Ne => CmpOp::Ne,
            Tok::Ge => CmpOp::Ge,
            Tok::Gt => CmpOp::Gt,
            _ => return Ok(a),
        };
        self.pos += 1;
        let b = self.add()?;
        Ok(Expr::Cmp(op, bx(a), bx(b)))
    }

    pub(super) fn add(&mut self) -> R<Expr> {
        let mut terms = vec![self.mul()?];
        loop {
            match self.peek() {
                Tok::Plus => {
                    self.pos += 1;
                    terms.push(self.mul()?);
                }
                Tok::Minus => {
                    self.pos += 1;
                    let t = self.mul()?;
                    terms.push(Expr::Mul(vec![Expr::Num(-1.0), t]));
                }
                _ => break,
            }
        }
        Ok(if terms.len() == 1 {
            terms.remove(0)
        } else {
            Expr::Add(terms)
        })
    }

    pub(super) fn mul(&mut self) -> R<Expr> {
        let mut acc = self.unary()?;
        loop {
            // `/`, `mod` and `div` build left-deep trees: bound their depth. (At most
            // MAX_NESTING such steps pass, so recomputing the depth stays linear.)
            if matches!(acc, Expr::Div(..) | Expr::Mod(..) | Expr::IDiv(..))
                && acc.depth() > super::MAX_NESTING
            {
                return self.too_deep();
            }
            match self.peek() {
                Tok::Star => {
                    self.pos += 1;
                    let b = self.unary()?;
                    acc = match acc {
                        Expr::Mul(mut v) if !matches!(v.first(), Some(Expr::Num(c)) if *c == -1.0 && v.len() == 2) =>
                        {
                            v.push(b);
                            Expr::Mul(v)
                        }
                        a => Expr::Mul(vec![a, b]),
                    };
                }
                Tok::Slash => {
                    self.pos += 1;
                    let b = self.unary()?;
                    acc = Expr::Div(bx(acc), bx(b));
                }
                Tok::Ident(s) if s == "mod" => {
                    self.pos += 1;
                    let b = self.unary()?;
                    acc = Expr::Mod(bx(acc), bx(b));
                }
                Tok::Ident(s) if s == "div" => {
                    self.pos += 1;
                    let b = self.unary()?;
                    acc = Expr::IDiv(bx(acc), bx(b));
                }
                _ => return Ok(acc),
            }
        }
    }

    pub(super) fn unary(&mut self) -> R<Expr> {
        if matches!(self.peek(), Tok::Minus | Tok::Plus) {
            self.enter()?;
            let r = self.signed();
            return self.leave(r);
        }
        self.pow()
    }

    fn signed(&mut self) -> R<Expr> {
        if self.peek() == &Tok::Minus {
            self.pos += 1;
            let e = self.unary()?;
            return Ok(match e {
                Expr::Num(v) => Expr::Num(-v),
                e => Expr::Mul(vec![Expr::Num(-1.0), e]),
            });
        }
        self.pos += 1;
        self.unary()
    }

    pub(super) fn pow(&mut self) -> R<Expr> {
        let base = self.atom()?;
        if self.peek() == &Tok::Caret {
            self.pos += 1;
            self.enter()?;
            let e = self.unary();
            let e = self.leave(e)?;
            return Ok(Expr::Pow(bx(base), bx(e)));
        }
        Ok(base)
    }

    pub(super) fn atom(&mut self) -> R<Expr> {
        let span = self.span();
        match self.peek().clone() {
            Tok::Num(v) => {
                self.pos += 1;
                Ok(Expr::Num(v))
            }
            Tok::LParen => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect(&Tok::RParen, "`)`")?;
                Ok(e)
            }
            Tok::LBrace => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect(&Tok::RBrace, "`}`")?;
                Ok(e)
            }
            Tok::Ident(s) => self.named_atom(s, span),
            _ => self.err("a number, name or `(`"),
        }
    }

    /// An atom that starts with the name `s` (at `span`): a reduction, a numeric `if`, a
    /// call or a variable; a keyword that cannot start an expression is an error.
    fn named_atom(&mut self, s: String, span: Span) -> R<Expr> {
        // reductions: sum/max/min ( i = a, b ) body
        if matches!(s.as_str(), "sum" | "max" | "min")
            && self.peek_at(1) == &Tok::LParen
            && matches!(self.peek_at(2), Tok::Ident(_))
            && self.peek_at(3) == &Tok::Assign
        {
            return self.reduction(&s);
        }
        if s == "if" {
            return self.numeric_if();
        }
        if matches!(
            s.as_str(),
            "mod" | "div" | "else" | "numeric" | "resource" | "process"
        ) {
            return self.err("a number, name or `(`");
        }
        self.pos += 1;
        if self.peek() == &Tok::LParen {
            let args = self.call_args()?;
            if let Some(f) = Func::from_name(&s) {
                return function_call(f, &s, args, span);
            }
            // a numeric equation with arguments, expanded by the normalizer
            return Ok(Expr::Apply(s, args));
        }
        Ok(Expr::Var(s))
    }

    /// `sum`/`max`/`min` `( i = a, b ) body`, the parser at the reduction's name.
    fn reduction(&mut self, name: &str) -> R<Expr> {
        self.pos += 1;
        let (index, lo, hi) = self.loop_header()?;
        self.enter()?;
        let body = self.mul();
        let body = self.leave(body)?;
        let op = match name {
            "sum" => Reduction::Sum,
            "max" => Reduction::Max,
            _ => Reduction::Min,
        };
        Ok(Expr::Reduce {
            op,
            index,
            lo: bx(lo),
            hi: bx(hi),
            body: bx(body),
        })
    }

    /// `if (c) a else b` with numeric branches (both required), the parser at `if`.
    fn numeric_if(&mut self) -> R<Expr> {
        self.pos += 1;
        self.expect(&Tok::LParen, "`(` after if")?;
        let c = self.expr()?;
        self.expect(&Tok::RParen, "`)` after the condition")?;
        let a = self.expr()?;
        if !self.is_ident("else") {
            return self.err("`else` (a numeric if needs both branches)");
        }
        self.pos += 1;
        let b = self.expr()?;
        Ok(Expr::If(bx(c), bx(a), bx(b)))
    }
}

/// A call of built-in function `f` (named `name`, at `span`) with `args`, its arguments
/// checked: `pw` and `lin` need a valid table, `min` and `max` two or more arguments, the
/// others one.
fn function_call(f: Func, name: &str, args: Vec<Expr>, span: Span) -> R<Expr> {
    if f == Func::Pw {
        if let Some(found) = Expr::piecewise_table_error(&args) {
            return Err(PamelaError::parse(
                span,
                "`pw(x, x1, y1, x2, y2, …)`: two or more points of positive numbers, the breakpoints increasing",
                found,
            ));
        }
        return Ok(Expr::Call(f, args));
    }
    if f == Func::Lin {
        let table: Vec<Option<f64>> = args[1.min(args.len())..].iter().map(Expr::as_num).collect();
        if let Some((index, expected)) = lca::expr::linear_table_problem(&table) {
            return Err(PamelaError::parse(
                span,
                format!("`lin(x, x1, y1, x2, y2, …)`: {expected}"),
                format!("argument {} of {}", index + 2, args.len()),
            ));
        }
        return Ok(Expr::Call(f, args));
    }
    let ok = match f {
        Func::Min | Func::Max => args.len() >= 2,
        _ => args.len() == 1,
    };
    if !ok {
        return Err(PamelaError::parse(
            span,
            format!(
                "`{name}` with {}",
                if matches!(f, Func::Min | Func::Max) {
                    "2 or more arguments"
                } else {
                    "1 argument"
                }
            ),
            format!("{} argument(s)", args.len()),
        ));
    }
    Ok(Expr::Call(f, args))
}
