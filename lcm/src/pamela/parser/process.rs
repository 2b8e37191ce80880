//! Process terms: `;` and `||`, `delay`, `use`, `wait`/`signal`, loops, `if`, calls.
use super::{Parser, R};
use crate::pamela::ast::{NameRef, Proc, Time};
use crate::pamela::error::PamelaError;
use crate::pamela::expr::Expr;
use crate::pamela::lexer::Tok;

impl Parser {
    pub(crate) fn proc(&mut self) -> R<Proc> {
        let first = self.seqp()?;
        if self.peek() != &Tok::Par {
            return Ok(first);
        }
        let mut v = vec![first];
        while self.peek() == &Tok::Par {
            self.pos += 1;
            v.push(self.seqp()?);
        }
        Ok(Proc::Par(v))
    }

    pub(super) fn seqp(&mut self) -> R<Proc> {
        let first = self.term()?;
        let mut v = vec![first];
        while self.peek() == &Tok::Semi {
            // a trailing ';' before `}`, `)`, the end or the next equation ends the sequence
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Tok::RBrace | Tok::RParen | Tok::Eof)
                || self.at_equation_start()
            {
                self.pos = save;
                if !matches!(self.peek_at(1), Tok::RBrace | Tok::RParen) {
                    break;
                }
                self.pos += 1;
                break;
            }
            v.push(self.term()?);
        }
        Ok(if v.len() == 1 {
            v.remove(0)
        } else {
            Proc::Seq(v)
        })
    }

    pub(super) fn refs(&mut self, what: &str) -> R<Vec<NameRef>> {
        if self.peek() == &Tok::LBrace {
            self.pos += 1;
            let mut v = Vec::new();
            loop {
                v.push(self.name_ref(what)?);
                if self.peek() == &Tok::Comma {
                    self.pos += 1;
                } else {
                    break;
                }
            }
            self.expect(&Tok::RBrace, "`,` or `}`")?;
            Ok(v)
        } else {
            Ok(vec![self.name_ref(what)?])
        }
    }

    pub(super) fn name_ref(&mut self, what: &str) -> R<NameRef> {
        let span = self.span();
        let name = self.ident(what)?;
        let args = self.call_args()?;
        Ok(NameRef { name, args, span })
    }

    pub(super) fn time(&mut self) -> R<Time> {
        let is_dist = |p: &Parser, n: &str| p.is_ident(n) && p.peek_at(1) == &Tok::LParen;
        let save = self.pos;
        if is_dist(self, "exp") || is_dist(self, "uniform") {
            let which = self.ident("a time")?;
            let args = self.call_args()?;
            // only a whole argument is a distribution
            if self.peek() == &Tok::RParen {
                let count = args.len();
                let mut it = args.into_iter();
                return match (which.as_str(), it.next(), it.next(), it.next()) {
                    ("exp", Some(m), None, None) => Ok(Time::Exp(m)),
                    ("uniform", Some(a), Some(b), None) => Ok(Time::Uniform(a, b)),
                    _ => Err(PamelaError::parse(
                        self.toks[save].1,
                        "`exp(mean)` or `uniform(a, b)`",
                        format!("`{which}` with {count} argument(s)"),
                    )),
                };
            }
            self.pos = save;
        }
        Ok(Time::Det(self.expr()?))
    }

    pub(super) fn loop_header(&mut self) -> R<(String, Expr, Expr)> {
        self.expect(&Tok::LParen, "`(` after the replication keyword")?;
        let index = self.ident("a loop index name")?;
        self.expect(&Tok::Assign, "`=` after the loop index")?;
        let lo = self.expr()?;
        self.expect(&Tok::Comma, "`,` between the loop bounds")?;
        let hi = self.expr()?;
        self.expect(&Tok::RParen, "`)` after the loop bounds")?;
        Ok((index, lo, hi))
    }

    pub(super) fn term(&mut self) -> R<Proc> {
        self.enter()?;
        let r = self.nested_term();
        self.leave(r)
    }

    fn nested_term(&mut self) -> R<Proc> {
        match self.peek().clone() {
            Tok::LBrace => {
                self.pos += 1;
                if self.peek() == &Tok::RBrace {
                    self.pos += 1;
                    return Ok(Proc::Nil);
                }
                let p = self.proc()?;
                self.expect(&Tok::RBrace, "`;`, `||` or `}`")?;
                Ok(p)
            }
            Tok::LParen => {
                self.pos += 1;
                let p = self.proc()?;
                self.expect(&Tok::RParen, "`;`, `||` or `)`")?;
                Ok(p)
            }
            Tok::Ident(s) => match s.as_str() {
                "delay" => {
                    self.pos += 1;
                    self.expect(&Tok::LParen, "`(` after delay")?;
                    let t = self.time()?;
                    self.expect(&Tok::RParen, "`)` after the delay time")?;
                    Ok(Proc::Delay(t))
                }
                "use" => {
                    self.pos += 1;
                    self.expect(&Tok::LParen, "`(` after use")?;
                    let rs = self.refs("a resource")?;
                    self.expect(&Tok::Comma, "`,` between resource and time")?;
                    let t = self.time()?;
                    self.expect(&Tok::RParen, "`)` after the service time")?;
                    Ok(Proc::Use(rs, t))
                }
                "wait" | "signal" => {
                    self.pos += 1;
                    self.expect(&Tok::LParen, "`(`")?;
                    let cs = self.refs("a condition name")?;
                    self.expect(&Tok::RParen, "`)`")?;
                    Ok(if s == "wait" {
                        Proc::Wait(cs)
                    } else {
                        Proc::Signal(cs)
                    })
                }
                "seq" | "par" => {
                    self.pos += 1;
                    let (index, lo, hi) = self.loop_header()?;
                    let body = self.term()?;
                    Ok(Proc::Loop {
                        par: s == "par",
                        index,
                        lo,
                        hi,
                        body: Box::new(body),
                    })
                }
                "if" => {
                    self.pos += 1;
                    self.expect(&Tok::LParen, "`(` after if")?;
                    let c = self.expr()?;
                    self.expect(&Tok::RParen, "`)` after the condition")?;
                    let a = self.term()?;
                    let b = if self.is_ident("else") {
                        self.pos += 1;
                        Some(Box::new(self.term()?))
                    } else {
                        None
                    };
                    Ok(Proc::If(c, Box::new(a), b))
                }
                "numeric" | "resource" | "process" | "else" => {
                    self.err("a process (delay, use, seq, par, if, {...} or a process name)")
                }
                _ => Ok(Proc::Call(self.name_ref("a process")?)),
            },
            _ => self.err("a process (delay, use, seq, par, if, {...} or a process name)"),
        }
    }
}
