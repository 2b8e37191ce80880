//! Recursive-descent parser for PAMELA models (DESIGN section 6).
//!
//! Grammar (informal; `%` comments, whitespace and newlines are insignificant):
//! ```text
//! model     := equation*
//! equation  := 'numeric' 'parameter' NAME
//!            | 'numeric' NAME ['(' names ')'] '=' expr
//!            | 'resource' 'parameter' NAME ['(' names ')']
//!            | 'resource' NAME ['(' names ')'] '=' resdef
//!            | 'process' NAME ['(' names ')'] '=' proc
//!            | NAME ['(' names ')'] '=' (proc | resdef | expr)   % kind from the right-hand side
//! resdef    := ('fcfs' | 'ps') '(' expr [',' expr] ')' | 'rho' | NAME ['(' exprs ')']
//! proc      := seqp ('||' seqp)*
//! seqp      := term (';' term)*                       % ';' binds tighter than '||'
//! term      := 'delay' '(' time ')' | 'use' '(' res ',' time ')'
//!            | 'wait' '(' conds ')' | 'signal' '(' conds ')'
//!            | ('seq' | 'par') '(' NAME '=' expr ',' expr ')' term
//!            | 'if' '(' expr ')' term ['else' term]
//!            | '{' [proc] '}' | '(' proc ')' | NAME ['(' exprs ')']
//! time      := 'exp' '(' expr ')' | 'uniform' '(' expr ',' expr ')' | expr
//! res       := ref | '{' ref (',' ref)* '}'               % multiset
//! expr      := add [('<'|'<='|'=='|'!='|'>='|'>') add]
//! add       := mul (('+'|'-') mul)*
//! mul       := unary (('*'|'/'|'mod'|'div') unary)*
//! unary     := '-' unary | pow
//! pow       := atom ['^' unary]                          % right-associative
//! atom      := NUMBER | NAME ['(' exprs ')'] | '(' expr ')' | '{' expr '}'
//!            | ('sum'|'max'|'min') '(' NAME '=' expr ',' expr ')' mul
//!            | 'if' '(' expr ')' expr 'else' expr
//! ```
//! A reduction's body is a product (`sum (i = 1, N) 2*i + 1` is `(sum of 2*i) + 1`;
//! use braces for a larger body: `sum (i = 1, N) { i + 1 }`).
use super::ast::{Decl, DeclKind, NameRef, Proc, ResourceDef, ServerKind, Time};
use super::error::{PamelaError, Span};
use super::expr::{bx, CmpOp, Expr, Func, Reduction};
use super::lexer::{lex, Tok};

pub(crate) struct Parser {
    toks: Vec<(Tok, Span)>,
    pos: usize,
}

type R<T> = Result<T, PamelaError>;

const DECL_KEYWORDS: [&str; 3] = ["numeric", "resource", "process"];

/// Parses a whole model into its equations.
pub(crate) fn parse_decls(src: &str) -> R<Vec<Decl>> {
    let mut p = Parser {
        toks: lex(src)?,
        pos: 0,
    };
    let mut decls = Vec::new();
    while p.peek() != &Tok::Eof {
        decls.push(p.decl()?);
        // an optional ';' between equations
        while p.peek() == &Tok::Semi {
            p.pos += 1;
        }
    }
    Ok(decls)
}

/// Parses one numeric expression (the whole text).
pub(crate) fn parse_expr_text(src: &str) -> R<Expr> {
    let mut p = Parser {
        toks: lex(src)?,
        pos: 0,
    };
    let e = p.expr()?;
    p.expect(&Tok::Eof, "end of expression")?;
    Ok(e)
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }
    fn peek_at(&self, k: usize) -> &Tok {
        let i = (self.pos + k).min(self.toks.len() - 1);
        &self.toks[i].0
    }
    fn span(&self) -> Span {
        self.toks[self.pos].1
    }
    fn next(&mut self) -> (Tok, Span) {
        let t = self.toks[self.pos].clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn err<T>(&self, expected: &str) -> R<T> {
        Err(PamelaError::parse(
            self.span(),
            expected,
            self.peek().describe(),
        ))
    }
    fn expect(&mut self, t: &Tok, expected: &str) -> R<Span> {
        if self.peek() == t {
            Ok(self.next().1)
        } else {
            self.err(expected)
        }
    }
    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Ident(x) if x == s)
    }
    fn ident(&mut self, expected: &str) -> R<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.pos += 1;
                Ok(s)
            }
            _ => self.err(expected),
        }
    }

    /// True when an equation starts here: a declaration keyword, or `NAME [(...)] =`.
    fn at_equation_start(&self) -> bool {
        match self.peek() {
            Tok::Eof => true,
            Tok::Ident(s) if DECL_KEYWORDS.contains(&s.as_str()) => true,
            Tok::Ident(_) => {
                let mut k = 1;
                if self.peek_at(1) == &Tok::LParen {
                    let mut depth = 0;
                    loop {
                        match self.peek_at(k) {
                            Tok::LParen => depth += 1,
                            Tok::RParen => {
                                depth -= 1;
                                if depth == 0 {
                                    k += 1;
                                    break;
                                }
                            }
                            Tok::Eof => return false,
                            _ => {}
                        }
                        k += 1;
                    }
                }
                self.peek_at(k) == &Tok::Assign
            }
            _ => false,
        }
    }

    fn formals(&mut self) -> R<Vec<String>> {
        let mut v = Vec::new();
        if self.peek() == &Tok::LParen {
            self.pos += 1;
            if self.peek() != &Tok::RParen {
                loop {
                    v.push(self.ident("a formal parameter name")?);
                    if self.peek() == &Tok::Comma {
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
            }
            self.expect(&Tok::RParen, "`)` after formal parameters")?;
        }
        Ok(v)
    }

    fn decl(&mut self) -> R<Decl> {
        let span = self.span();
        let kw = match self.peek() {
            Tok::Ident(s) if DECL_KEYWORDS.contains(&s.as_str()) => {
                let s = s.clone();
                self.pos += 1;
                Some(s)
            }
            Tok::Ident(_) => None,
            _ => return self.err("an equation (`numeric`, `resource`, `process` or NAME = ...)"),
        };
        let parameter = if self.is_ident("parameter") {
            self.pos += 1;
            true
        } else {
            false
        };
        let name = self.ident("the name being defined")?;
        let params = self.formals()?;
        match kw.as_deref() {
            Some("numeric") if parameter => {
                if !params.is_empty() {
                    return Err(PamelaError::parse(
                        span,
                        "a parameter without arguments",
                        format!("`{name}(...)`"),
                    ));
                }
                Ok(Decl {
                    name,
                    params,
                    kind: DeclKind::Numeric {
                        parameter: true,
                        value: None,
                    },
                    span,
                })
            }
            Some("resource") if parameter => Ok(Decl {
                name,
                params,
                kind: DeclKind::ResourceParameter,
                span,
            }),
            Some(_) if parameter => self.err("`numeric parameter` or `resource parameter`"),
            Some("numeric") => {
                self.expect(&Tok::Assign, "`=`")?;
                let value = self.expr()?;
                Ok(Decl {
                    name,
                    params,
                    kind: DeclKind::Numeric {
                        parameter: false,
                        value: Some(value),
                    },
                    span,
                })
            }
            Some("resource") => {
                self.expect(&Tok::Assign, "`=`")?;
                let def = self.resdef()?;
                Ok(Decl {
                    name,
                    params,
                    kind: DeclKind::Resource(def),
                    span,
                })
            }
            Some(_) => {
                self.expect(&Tok::Assign, "`=`")?;
                let body = self.proc()?;
                Ok(Decl {
                    name,
                    params,
                    kind: DeclKind::Process(body),
                    span,
                })
            }
            None => {
                self.expect(&Tok::Assign, "`=`")?;
                let kind = match self.peek() {
                    Tok::Ident(s) if matches!(s.as_str(), "fcfs" | "ps" | "rho") => {
                        DeclKind::Resource(self.resdef()?)
                    }
                    Tok::Ident(s)
                        if matches!(
                            s.as_str(),
                            "delay" | "use" | "wait" | "signal" | "seq" | "par"
                        ) =>
                    {
                        DeclKind::Process(self.proc()?)
                    }
                    Tok::LBrace => DeclKind::Process(self.proc()?),
                    _ => {
                        // a numeric expression, unless followed by process operators
                        let save = self.pos;
                        match self.expr() {
                            Ok(e)
                                if !matches!(self.peek(), Tok::Semi | Tok::Par)
                                    || self.at_equation_start_after_semi() =>
                            {
                                DeclKind::Numeric {
                                    parameter: false,
                                    value: Some(e),
                                }
                            }
                            _ => {
                                self.pos = save;
                                DeclKind::Process(self.proc()?)
                            }
                        }
                    }
                };
                Ok(Decl {
                    name,
                    params,
                    kind,
                    span,
                })
            }
        }
    }

    fn at_equation_start_after_semi(&mut self) -> bool {
        if self.peek() != &Tok::Semi {
            return false;
        }
        self.pos += 1;
        let r = self.at_equation_start();
        self.pos -= 1;
        r
    }

    fn resdef(&mut self) -> R<ResourceDef> {
        let span = self.span();
        let name = self.ident(
            "a resource (`fcfs(index, multiplicity)`, `ps(...)`, `rho` or a resource name)",
        )?;
        let kind = match name.as_str() {
            "fcfs" => Some(ServerKind::Fcfs),
            "ps" => Some(ServerKind::Ps),
            "rho" => {
                return Ok(ResourceDef::Server {
                    kind: ServerKind::Infinite,
                    index: Expr::Num(0.0),
                    multiplicity: Expr::Num(1.0),
                })
            }
            _ => None,
        };
        let args = self.call_args()?;
        match kind {
            Some(kind) => {
                if args.is_empty() || args.len() > 2 {
                    return Err(PamelaError::parse(
                        span,
                        format!("`{name}(index, multiplicity)`"),
                        format!("{} argument(s)", args.len()),
                    ));
                }
                let mut it = args.into_iter();
                let index = it.next().unwrap();
                let multiplicity = it.next().unwrap_or(Expr::Num(1.0));
                Ok(ResourceDef::Server {
                    kind,
                    index,
                    multiplicity,
                })
            }
            None => Ok(ResourceDef::Alias(NameRef { name, args, span })),
        }
    }

    fn call_args(&mut self) -> R<Vec<Expr>> {
        let mut v = Vec::new();
        if self.peek() == &Tok::LParen {
            self.pos += 1;
            if self.peek() != &Tok::RParen {
                loop {
                    v.push(self.expr()?);
                    if self.peek() == &Tok::Comma {
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
            }
            self.expect(&Tok::RParen, "`,` or `)`")?;
        }
        Ok(v)
    }

    // ---------------- processes ----------------

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

    fn seqp(&mut self) -> R<Proc> {
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
            v.pop().unwrap()
        } else {
            Proc::Seq(v)
        })
    }

    fn refs(&mut self, what: &str) -> R<Vec<NameRef>> {
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

    fn name_ref(&mut self, what: &str) -> R<NameRef> {
        let span = self.span();
        let name = self.ident(what)?;
        let args = self.call_args()?;
        Ok(NameRef { name, args, span })
    }

    fn time(&mut self) -> R<Time> {
        let is_dist = |p: &Parser, n: &str| p.is_ident(n) && p.peek_at(1) == &Tok::LParen;
        let save = self.pos;
        if is_dist(self, "exp") || is_dist(self, "uniform") {
            let which = self.ident("a time")?;
            let args = self.call_args()?;
            // only a whole argument is a distribution
            if self.peek() == &Tok::RParen {
                return match (which.as_str(), args.len()) {
                    ("exp", 1) => Ok(Time::Exp(args.into_iter().next().unwrap())),
                    ("uniform", 2) => {
                        let mut it = args.into_iter();
                        Ok(Time::Uniform(it.next().unwrap(), it.next().unwrap()))
                    }
                    _ => Err(PamelaError::parse(
                        self.toks[save].1,
                        "`exp(mean)` or `uniform(a, b)`",
                        format!("`{which}` with {} argument(s)", args.len()),
                    )),
                };
            }
            self.pos = save;
        }
        Ok(Time::Det(self.expr()?))
    }

    fn loop_header(&mut self) -> R<(String, Expr, Expr)> {
        self.expect(&Tok::LParen, "`(` after the replication keyword")?;
        let index = self.ident("a loop index name")?;
        self.expect(&Tok::Assign, "`=` after the loop index")?;
        let lo = self.expr()?;
        self.expect(&Tok::Comma, "`,` between the loop bounds")?;
        let hi = self.expr()?;
        self.expect(&Tok::RParen, "`)` after the loop bounds")?;
        Ok((index, lo, hi))
    }

    fn term(&mut self) -> R<Proc> {
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

    // ---------------- numerics ----------------

    pub(crate) fn expr(&mut self) -> R<Expr> {
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

    fn add(&mut self) -> R<Expr> {
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
            terms.pop().unwrap()
        } else {
            Expr::Add(terms)
        })
    }

    fn mul(&mut self) -> R<Expr> {
        let mut acc = self.unary()?;
        loop {
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

    fn unary(&mut self) -> R<Expr> {
        if self.peek() == &Tok::Minus {
            self.pos += 1;
            let e = self.unary()?;
            return Ok(match e {
                Expr::Num(v) => Expr::Num(-v),
                e => Expr::Mul(vec![Expr::Num(-1.0), e]),
            });
        }
        if self.peek() == &Tok::Plus {
            self.pos += 1;
            return self.unary();
        }
        self.pow()
    }

    fn pow(&mut self) -> R<Expr> {
        let base = self.atom()?;
        if self.peek() == &Tok::Caret {
            self.pos += 1;
            let e = self.unary()?;
            return Ok(Expr::Pow(bx(base), bx(e)));
        }
        Ok(base)
    }

    fn atom(&mut self) -> R<Expr> {
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
            Tok::Ident(s) => {
                // reductions: sum/max/min ( i = a, b ) body
                if matches!(s.as_str(), "sum" | "max" | "min")
                    && self.peek_at(1) == &Tok::LParen
                    && matches!(self.peek_at(2), Tok::Ident(_))
                    && self.peek_at(3) == &Tok::Assign
                {
                    self.pos += 1;
                    let (index, lo, hi) = self.loop_header()?;
                    let body = self.mul()?;
                    let op = match s.as_str() {
                        "sum" => Reduction::Sum,
                        "max" => Reduction::Max,
                        _ => Reduction::Min,
                    };
                    return Ok(Expr::Reduce {
                        op,
                        index,
                        lo: bx(lo),
                        hi: bx(hi),
                        body: bx(body),
                    });
                }
                if s == "if" {
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
                    return Ok(Expr::If(bx(c), bx(a), bx(b)));
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
                        let ok = match f {
                            Func::Min | Func::Max => args.len() >= 2,
                            _ => args.len() == 1,
                        };
                        if !ok {
                            return Err(PamelaError::parse(
                                span,
                                format!(
                                    "`{s}` with {}",
                                    if matches!(f, Func::Min | Func::Max) {
                                        "2 or more arguments"
                                    } else {
                                        "1 argument"
                                    }
                                ),
                                format!("{} argument(s)", args.len()),
                            ));
                        }
                        return Ok(Expr::Call(f, args));
                    }
                    // a numeric equation with arguments, expanded by the normalizer
                    return Ok(Expr::Apply(s, args));
                }
                Ok(Expr::Var(s))
            }
            _ => self.err("a number, name or `(`"),
        }
    }
}
