//! Recursive-descent parser for PAMELA models (docs/models.md).
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
mod numeric;
mod process;

use super::ast::{Decl, DeclKind, NameRef, ResourceDef, ServerKind};
use super::error::{PamelaError, Span};
use super::expr::Expr;
use super::lexer::{lex, Tok};

pub(crate) struct Parser {
    toks: Vec<(Tok, Span)>,
    pos: usize,
    /// Open nested constructs (groupings, loops, conditionals, operands of `-` and `^`).
    nesting: usize,
}

/// The deepest nesting the parser accepts: groupings `( )` `{ }`, loop and `if` bodies,
/// unary minus and `^` operands, and left-nested `/`, `mod`, `div` chains each count a
/// level. Deeper text is an error instead of a stack overflow in the recursive parser
/// and in the code that walks its trees.
pub const MAX_NESTING: usize = 256;

type R<T> = Result<T, PamelaError>;

const DECL_KEYWORDS: [&str; 3] = ["numeric", "resource", "process"];

/// Parses a whole model into its equations.
pub(crate) fn parse_decls(src: &str) -> R<Vec<Decl>> {
    let mut p = Parser {
        toks: lex(src)?,
        pos: 0,
        nesting: 0,
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
        nesting: 0,
    };
    let e = p.expr()?;
    p.expect(&Tok::Eof, "end of expression")?;
    Ok(e)
}

impl Parser {
    /// Enters one nesting level; an error past [`MAX_NESTING`].
    fn enter(&mut self) -> R<()> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return self.too_deep();
        }
        Ok(())
    }

    /// Leaves a level entered with [`Parser::enter`], passing `r` through.
    fn leave<T>(&mut self, r: R<T>) -> R<T> {
        self.nesting -= 1;
        r
    }

    fn too_deep<T>(&self) -> R<T> {
        self.err(&format!("at most {MAX_NESTING} levels of nesting"))
    }

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

    /// One equation: its keyword if any (`numeric`, `resource`, `process`), `parameter`,
    /// its name and formals, then its right-hand side by its kind.
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
        let kind = match kw.as_deref() {
            Some(kw) if parameter => self.parameter_kind(kw, &name, &params, span)?,
            Some("numeric") => {
                self.expect(&Tok::Assign, "`=`")?;
                DeclKind::Numeric {
                    parameter: false,
                    value: Some(self.expr()?),
                }
            }
            Some("resource") => {
                self.expect(&Tok::Assign, "`=`")?;
                DeclKind::Resource(self.resdef()?)
            }
            Some(_) => {
                self.expect(&Tok::Assign, "`=`")?;
                DeclKind::Process(self.proc()?)
            }
            None => {
                self.expect(&Tok::Assign, "`=`")?;
                self.inferred_kind()?
            }
        };
        Ok(Decl {
            name,
            params,
            kind,
            span,
        })
    }

    /// The kind of a parameter declared with keyword `kw` (`numeric parameter`, which takes
    /// no arguments, or `resource parameter`) named `name` with formals `params`.
    fn parameter_kind(
        &mut self,
        kw: &str,
        name: &str,
        params: &[String],
        span: Span,
    ) -> R<DeclKind> {
        match kw {
            "numeric" => {
                if !params.is_empty() {
                    return Err(PamelaError::parse(
                        span,
                        "a parameter without arguments",
                        format!("`{name}(...)`"),
                    ));
                }
                Ok(DeclKind::Numeric {
                    parameter: true,
                    value: None,
                })
            }
            "resource" => Ok(DeclKind::ResourceParameter),
            _ => self.err("`numeric parameter` or `resource parameter`"),
        }
    }

    /// The kind of an equation written without a keyword, from its right-hand side: a
    /// resource (`fcfs`, `ps`, `rho`), a process (a process keyword or a block), else a
    /// numeric expression unless process operators follow it (then a process).
    fn inferred_kind(&mut self) -> R<DeclKind> {
        Ok(match self.peek() {
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
        })
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
                let (Some(index), multiplicity) = (it.next(), it.next()) else {
                    unreachable!("one or two arguments, checked above")
                };
                let multiplicity = multiplicity.unwrap_or(Expr::Num(1.0));
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
}
