//! The parser of the section-5 grammar (see the module docs of [`crate::expr`]): a lexer
//! and a recursive-descent parser reporting the column of the first error.

use super::ast::{BinOp, Expr, Func, TableProblem};

/// A syntax error, with the 1-based column (in characters) where it was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: expected {expected}, found {found}")]
pub struct ExprError {
    /// 1-based character column of the offending token.
    pub column: usize,
    /// What the parser expected there.
    pub expected: String,
    /// What it found (`end of input` at the end).
    pub found: String,
}

impl ExprError {
    /// The same error with its column moved right by `offset` characters (for expressions
    /// embedded in a longer line).
    pub fn shifted(mut self, offset: usize) -> ExprError {
        self.column += offset;
        self
    }
}

/// The deepest expression tree [`parse`] accepts (parentheses, operator chains, unary
/// minus and calls each add a level). Deeper text is refused with an error instead of
/// exhausting the stack of the recursive code that walks the tree.
pub const MAX_DEPTH: usize = 500;

/// Parses section-5 expression text.
pub fn parse(text: &str) -> Result<Expr, ExprError> {
    let tokens = lex(text)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        end_column: text.chars().count() + 1,
        nesting: 0,
    };
    let (e, _) = p.expr()?;
    if let Some(t) = p.peek() {
        return Err(ExprError {
            column: t.column,
            expected: "an operator or end of input".into(),
            found: t.kind.describe(),
        });
    }
    Ok(e)
}

#[derive(Debug, Clone, PartialEq)]
enum TokKind {
    Num(f64),
    Ident(String),
    Op(char),
}

impl TokKind {
    fn describe(&self) -> String {
        match self {
            TokKind::Num(v) => format!("number `{v}`"),
            TokKind::Ident(s) => format!("`{s}`"),
            TokKind::Op(c) => format!("`{c}`"),
        }
    }
}

#[derive(Debug, Clone)]
struct Token {
    kind: TokKind,
    column: usize,
}

fn lex(text: &str) -> Result<Vec<Token>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let (v, end) = lex_number(&chars, i).map_err(|e| ExprError {
                column: e.index + 1,
                expected: e.expected.into(),
                found: e.found,
            })?;
            i = end;
            out.push(Token {
                kind: TokKind::Num(v),
                column,
            });
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            let ident_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
            // A dot between identifier characters joins a reference `fragment.category`
            // (docs/models.md, derived models): one variable name with dots.
            while i < chars.len()
                && (ident_char(chars[i])
                    || (chars[i] == '.'
                        && chars
                            .get(i + 1)
                            .is_some_and(|d| d.is_ascii_alphabetic() || *d == '_')))
            {
                i += 1;
            }
            out.push(Token {
                kind: TokKind::Ident(chars[start..i].iter().collect()),
                column,
            });
        } else if "+-*/^(),".contains(c) {
            out.push(Token {
                kind: TokKind::Op(c),
                column,
            });
            i += 1;
        } else {
            return Err(ExprError {
                column,
                expected: "a number, a variable, a function or one of + - * / ^ ( ) ,".into(),
                found: format!("`{c}`"),
            });
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    end_column: usize,
    /// Open recursion levels (parenthesised expressions, unary minus, `^`).
    nesting: usize,
}

/// A parsed subtree and its depth (a leaf has depth 1).
type Sub = (Expr, usize);

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_op(&self, c: char) -> bool {
        matches!(self.peek(), Some(Token { kind: TokKind::Op(o), .. }) if *o == c)
    }

    fn error(&self, expected: &str) -> ExprError {
        match self.peek() {
            Some(t) => ExprError {
                column: t.column,
                expected: expected.into(),
                found: t.kind.describe(),
            },
            None => ExprError {
                column: self.end_column,
                expected: expected.into(),
                found: "end of input".into(),
            },
        }
    }

    /// The column of the next token (the end of input's column at the end).
    fn column(&self) -> usize {
        self.peek().map_or(self.end_column, |t| t.column)
    }

    fn expect_op(&mut self, c: char, expected: &str) -> Result<(), ExprError> {
        if self.peek_op(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(expected))
        }
    }

    /// The error for a tree deeper than [`MAX_DEPTH`], at the current token.
    fn too_deep(&self) -> ExprError {
        self.error(&format!(
            "at most {MAX_DEPTH} levels of nesting (parentheses, operators, calls)"
        ))
    }

    /// A binary node over two subtrees of the given depths, refused past [`MAX_DEPTH`].
    fn binary(&self, op: BinOp, lhs: Sub, rhs: Sub) -> Result<Sub, ExprError> {
        let depth = lhs.1.max(rhs.1) + 1;
        if depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok((Expr::Bin(op, Box::new(lhs.0), Box::new(rhs.0)), depth))
    }

    /// Enters one level of recursion (parentheses, unary minus, `^`, call arguments).
    fn enter(&mut self) -> Result<(), ExprError> {
        self.nesting += 1;
        if self.nesting > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Sub, ExprError> {
        self.enter()?;
        let mut lhs = self.term()?;
        loop {
            let op = if self.peek_op('+') {
                BinOp::Add
            } else if self.peek_op('-') {
                BinOp::Sub
            } else {
                self.nesting -= 1;
                return Ok(lhs);
            };
            self.pos += 1;
            let rhs = self.term()?;
            lhs = self.binary(op, lhs, rhs)?;
        }
    }

    fn term(&mut self) -> Result<Sub, ExprError> {
        let mut lhs = self.unary()?;
        loop {
            let op = if self.peek_op('*') {
                BinOp::Mul
            } else if self.peek_op('/') {
                BinOp::Div
            } else {
                return Ok(lhs);
            };
            self.pos += 1;
            let rhs = self.unary()?;
            lhs = self.binary(op, lhs, rhs)?;
        }
    }

    fn unary(&mut self) -> Result<Sub, ExprError> {
        if self.peek_op('-') {
            self.pos += 1;
            self.enter()?;
            let (inner, depth) = self.unary()?;
            self.nesting -= 1;
            return Ok((Expr::Neg(Box::new(inner)), depth + 1));
        }
        self.power()
    }

    fn power(&mut self) -> Result<Sub, ExprError> {
        let base = self.primary()?;
        if self.peek_op('^') {
            self.pos += 1;
            self.enter()?;
            let exp = self.unary()?;
            self.nesting -= 1;
            return self.binary(BinOp::Pow, base, exp);
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<Sub, ExprError> {
        const WHAT: &str = "a number, a variable, a function call or `(`";
        let Some(tok) = self.peek().cloned() else {
            return Err(self.error(WHAT));
        };
        match tok.kind {
            TokKind::Num(v) if !v.is_finite() => Err(ExprError {
                column: tok.column,
                expected: "a number within the range of f64 (about 1.8e308)".into(),
                found: "a number that overflows to infinity".into(),
            }),
            TokKind::Num(v) => {
                self.pos += 1;
                Ok((Expr::Num(v), 1))
            }
            TokKind::Ident(name) => {
                self.pos += 1;
                let is_call = self.peek_op('(');
                match Func::from_name(&name) {
                    Some(f) if is_call => {
                        self.pos += 1;
                        let mut columns = vec![self.column()];
                        let (first, mut depth) = self.expr()?;
                        let mut args = vec![first];
                        while self.peek_op(',') {
                            self.pos += 1;
                            columns.push(self.column());
                            let (arg, d) = self.expr()?;
                            args.push(arg);
                            depth = depth.max(d);
                        }
                        if f == Func::Pw {
                            check_table(&args, &columns, self.column())?;
                        } else if f == Func::Lin {
                            check_linear(&args, &columns, self.column())?;
                        } else if f.is_variadic() && args.len() < 2 {
                            return Err(
                                self.error(&format!("`,` and a second argument of `{}`", f.name()))
                            );
                        }
                        if !f.is_variadic() && args.len() != 1 {
                            return Err(ExprError {
                                column: tok.column,
                                expected: format!("one argument for `{}`", f.name()),
                                found: format!("{} arguments", args.len()),
                            });
                        }
                        self.expect_op(')', "`,` or `)`")?;
                        if depth + 1 > MAX_DEPTH {
                            return Err(self.too_deep());
                        }
                        Ok((Expr::Call(f, args), depth + 1))
                    }
                    _ if is_call => Err(ExprError {
                        column: tok.column,
                        expected: "a function (log2 ln log10 sqrt exp abs ceil floor min max pw)"
                            .into(),
                        found: format!("`{name}(`"),
                    }),
                    _ => Ok((Expr::Var(name), 1)),
                }
            }
            TokKind::Op('(') => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect_op(')', "`)`")?;
                Ok(e)
            }
            TokKind::Op(_) => Err(self.error(WHAT)),
        }
    }
}

/// Checks the arguments of `pw(x, x1, y1, x2, y2, …)` (`columns`: where each starts;
/// `close`: the column after the last): two or more points, each a positive number
/// literal, the breakpoints strictly increasing.
/// The breakpoints of a `lin` call (see [`super::linear_table_problem`]).
fn check_linear(args: &[Expr], columns: &[usize], close: usize) -> Result<(), ExprError> {
    let table: Vec<Option<f64>> = args[1..]
        .iter()
        .map(|a| match a {
            Expr::Num(v) => Some(*v),
            _ => None,
        })
        .collect();
    let Some((index, expected)) = super::linear_table_problem(&table) else {
        return Ok(());
    };
    let short = table.len() < 2 || !table.len().is_multiple_of(2);
    Err(ExprError {
        column: if short { close } else { columns[index + 1] },
        expected: format!("`lin(x, x1, y1, x2, y2, …)`: {expected}"),
        found: if short {
            format!("{} argument(s) after the variable", table.len())
        } else {
            format!("`{}`", args[index + 1])
        },
    })
}

fn check_table(args: &[Expr], columns: &[usize], close: usize) -> Result<(), ExprError> {
    let table = &args[1..];
    let values: Vec<Option<f64>> = table
        .iter()
        .map(|a| match a {
            Expr::Num(v) => Some(*v),
            _ => None,
        })
        .collect();
    let what = |i: usize| {
        if i.is_multiple_of(2) {
            "breakpoint"
        } else {
            "value"
        }
    };
    let err = match super::table_problem(&values) {
        None => return Ok(()),
        Some(TableProblem::Length(len)) => ExprError {
            column: close,
            expected: "`pw(x, x1, y1, x2, y2, …)`: two or more points (breakpoint, value)".into(),
            found: if len % 2 == 1 {
                "a breakpoint without its value".to_string()
            } else {
                format!("{} point(s)", len / 2)
            },
        },
        Some(TableProblem::NotPositive(i)) => ExprError {
            column: columns[i + 1],
            expected: format!("a positive number as the {} of a `pw` point", what(i)),
            found: format!("`{}`", table[i]),
        },
        Some(TableProblem::NotIncreasing {
            index,
            previous,
            value,
        }) => ExprError {
            column: columns[index + 1],
            expected: format!(
                "a breakpoint above the previous one ({}): `pw` points in increasing order",
                super::format_number(previous)
            ),
            found: format!("`{}`", super::format_number(value)),
        },
    };
    Err(err)
}

impl std::str::FromStr for Expr {
    type Err = ExprError;
    fn from_str(s: &str) -> Result<Expr, ExprError> {
        parse(s)
    }
}

/// A number that could not be read: the 0-based index of the character where reading
/// failed, what was expected there and what was found.
#[derive(Debug, Clone, PartialEq)]
pub struct NumberError {
    /// Index into the characters where reading failed.
    pub index: usize,
    /// What was expected there.
    pub expected: &'static str,
    /// What was found (quoted), or `end of input`.
    pub found: String,
}

/// Reads the number token of the expression grammar that starts at `chars[start]`
/// (`digits ['.' digits] [('e'|'E') ['+'|'-'] digits]`, also `.5` and `1.`): its value and the
/// index just after it. The one number lexer of the tool chain: lcm's PAMELA lexer uses it
/// too.
pub fn lex_number(chars: &[char], start: usize) -> Result<(f64, usize), NumberError> {
    let digits = |mut i: usize| {
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = digits(start);
    if i < chars.len() && chars[i] == '.' {
        i = digits(i + 1);
    }
    if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
        let mut j = i + 1;
        if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
            j += 1;
        }
        if !chars.get(j).is_some_and(|c| c.is_ascii_digit()) {
            return Err(NumberError {
                index: j,
                expected: "digits of the exponent",
                found: chars
                    .get(j)
                    .map_or("end of input".into(), |c| format!("`{c}`")),
            });
        }
        i = digits(j);
    }
    let text: String = chars[start..i].iter().collect();
    match text.parse::<f64>() {
        Ok(v) => Ok((v, i)),
        Err(_) => Err(NumberError {
            index: start,
            expected: "a number",
            found: format!("`{text}`"),
        }),
    }
}
