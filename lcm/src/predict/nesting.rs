//! A bound on how deeply a Rust source nests, checked on its tokens before `syn` parses
//! it: `syn` and the recognizer recurse once per level of syntax, so text such as ten
//! thousand nested parentheses, or a hundred thousand unary minus signs, would overflow
//! any stack.
//!
//! The measure is conservative and cheap: within each delimited group, the tokens since
//! the last `;` or `,` (or item keyword) form a run; a token's depth is its position in
//! the run plus the depth of the group's opening delimiter. A syntax tree can nest no
//! deeper than this count, and ordinary code stays far below [`MAX_SYNTAX_DEPTH`] (a long
//! statement is a few dozen tokens).
//!
//! ```
//! use lcm::predict::nesting::{check, MAX_SYNTAX_DEPTH};
//! assert!(check("ok.rs", "fn main() { let x = (1 + 2) * 3; }").is_ok());
//! let deep = format!("fn main() {{ let x = {}1{}; }}", "(".repeat(5000), ")".repeat(5000));
//! let e = check("deep.rs", &deep).unwrap_err().to_string();
//! assert!(e.starts_with("deep.rs:1:"), "{e}");
//! assert!(e.contains(&MAX_SYNTAX_DEPTH.to_string()), "{e}");
//! ```

use super::error::PredictError;
use proc_macro2::{TokenStream, TokenTree};

/// The deepest token nesting (see the module docs) accepted in a Rust source.
pub const MAX_SYNTAX_DEPTH: usize = 1000;

/// Keywords that start an item: what follows them does not nest inside what came before.
const ITEM_KEYWORDS: [&str; 9] = [
    "fn", "pub", "impl", "struct", "enum", "mod", "use", "trait", "static",
];

/// Checks the nesting of `text` (named `name` in the error). Text that does not lex is
/// let through: `syn` reports it with its position.
pub fn check(name: &str, text: &str) -> Result<(), PredictError> {
    let Ok(tokens) = text.parse::<TokenStream>() else {
        return Ok(());
    };
    // One entry per open group: its remaining tokens, the depth of its opening
    // delimiter and the length of its current run. No recursion here.
    let mut open = vec![(tokens.into_iter(), 0usize, 0usize)];
    while let Some((rest, base, run)) = open.last_mut() {
        let Some(token) = rest.next() else {
            open.pop();
            continue;
        };
        let separates = match &token {
            TokenTree::Punct(p) => matches!(p.as_char(), ';' | ','),
            TokenTree::Ident(i) => ITEM_KEYWORDS.iter().any(|k| i == k),
            _ => false,
        };
        if separates {
            *run = 0;
            continue;
        }
        *run += 1;
        let depth = *base + *run;
        if depth > MAX_SYNTAX_DEPTH {
            let at = token.span().start();
            return Err(PredictError::Syntax {
                file: name.to_string(),
                line: at.line,
                column: at.column + 1,
                message: format!(
                    "at most {MAX_SYNTAX_DEPTH} levels of nesting (delimiters, operators and \
                     other tokens of one statement), found deeper"
                ),
            });
        }
        if let TokenTree::Group(g) = token {
            open.push((g.stream().into_iter(), depth, 0));
        }
    }
    Ok(())
}
