//! Tokens of the PAMELA language. `%` starts a comment that runs to the end of the line.
use super::error::{PamelaError, Span};

/// A token kind.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Ident(String),
    Num(f64),
    LParen,
    RParen,
    LBrace,
    RBrace,
    Comma,
    Semi,
    Par,    // ||
    Assign, // =
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    Lt,
    Le,
    EqEq,
    Ne,
    Ge,
    Gt,
    Eof,
}

impl Tok {
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Num(v) => format!("number `{v}`"),
            Tok::Eof => "end of input".to_string(),
            other => format!("`{}`", other.text()),
        }
    }
    fn text(&self) -> &'static str {
        match self {
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Semi => ";",
            Tok::Par => "||",
            Tok::Assign => "=",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Caret => "^",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::EqEq => "==",
            Tok::Ne => "!=",
            Tok::Ge => ">=",
            Tok::Gt => ">",
            _ => "?",
        }
    }
}

/// Splits `src` into tokens with their positions; the last token is `Eof`.
pub(crate) fn lex(src: &str) -> Result<Vec<(Tok, Span)>, PamelaError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    while i < chars.len() {
        let c = chars[i];
        let span = Span { line, col };
        if c == '\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '%' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        let tok = if c.is_ascii_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            Tok::Ident(chars[start..i].iter().collect())
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            match lca::expr::lex_number(&chars, i) {
                Ok((v, end)) => {
                    i = end;
                    Tok::Num(v)
                }
                Err(e) => return Err(PamelaError::parse(span, e.expected, e.found)),
            }
        } else {
            let next = chars.get(i + 1).copied();
            let (t, n) = match (c, next) {
                ('|', Some('|')) => (Tok::Par, 2),
                ('<', Some('=')) => (Tok::Le, 2),
                ('>', Some('=')) => (Tok::Ge, 2),
                ('=', Some('=')) => (Tok::EqEq, 2),
                ('!', Some('=')) => (Tok::Ne, 2),
                ('(', _) => (Tok::LParen, 1),
                (')', _) => (Tok::RParen, 1),
                ('{', _) => (Tok::LBrace, 1),
                ('}', _) => (Tok::RBrace, 1),
                (',', _) => (Tok::Comma, 1),
                (';', _) => (Tok::Semi, 1),
                ('=', _) => (Tok::Assign, 1),
                ('+', _) => (Tok::Plus, 1),
                ('-', _) => (Tok::Minus, 1),
                ('*', _) => (Tok::Star, 1),
                ('/', _) => (Tok::Slash, 1),
                ('^', _) => (Tok::Caret, 1),
                ('<', _) => (Tok::Lt, 1),
                ('>', _) => (Tok::Gt, 1),
                _ => {
                    return Err(PamelaError::parse(
                        span,
                        "an operator, name, number or `%` comment",
                        format!("`{c}`"),
                    ))
                }
            };
            i += n;
            t
        };
        col += (i - start) as u32;
        out.push((tok, span));
    }
    out.push((Tok::Eof, Span { line, col }));
    Ok(out)
}
