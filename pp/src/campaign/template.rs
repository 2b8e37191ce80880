//! The command a campaign runs at every point: the words after `--`, in which `{NAME}` is
//! replaced by the point's value of variable NAME and `{p}` by its processor count. `{{`
//! and `}}` stand for a literal brace. Every word is one argument: no shell is involved
//! (write `sh -c '...'` to get one). A placeholder that names no variable of the grid is
//! refused before anything runs.

use super::grid::{Grid, Point};
use super::CampaignError;

/// One piece of a word: literal text or a variable.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Var(String),
}

/// A parsed command template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandTemplate {
    words: Vec<Vec<Piece>>,
}

impl CommandTemplate {
    /// Parses `words` (the program first) and checks that every placeholder is `p` or a
    /// variable of `grid`.
    pub fn parse(words: &[String], grid: &Grid) -> Result<CommandTemplate, CampaignError> {
        if words.is_empty() {
            return Err(CampaignError::Usage(
                "expected a command after `--`, such as `-- ./prog -n {n} -p {p}`".into(),
            ));
        }
        let words = words
            .iter()
            .map(|w| parse_word(w))
            .collect::<Result<Vec<_>, _>>()?;
        let known: Vec<&str> = grid.variables().chain(["p"]).collect();
        for name in words.iter().flatten().filter_map(|p| match p {
            Piece::Var(v) => Some(v),
            Piece::Text(_) => None,
        }) {
            if !known.contains(&name.as_str()) {
                return Err(CampaignError::Usage(format!(
                    "command placeholder {{{name}}}: expected one of {{{}}} (the grid's variables and p)",
                    known.join("}, {")
                )));
            }
        }
        Ok(CommandTemplate { words })
    }

    /// Whether placeholder `name` appears anywhere.
    pub fn uses(&self, name: &str) -> bool {
        self.words
            .iter()
            .flatten()
            .any(|p| matches!(p, Piece::Var(v) if v == name))
    }

    /// The command line at `point`: program and arguments.
    pub fn render(&self, point: &Point) -> Vec<String> {
        self.words
            .iter()
            .map(|w| {
                w.iter()
                    .map(|p| match p {
                        Piece::Text(t) => t.clone(),
                        // Checked at parse time against the grid the points come from.
                        Piece::Var(v) => point.get(v).unwrap_or_default(),
                    })
                    .collect()
            })
            .collect()
    }
}

fn parse_word(word: &str) -> Result<Vec<Piece>, CampaignError> {
    let bad = |what: &str| {
        CampaignError::Usage(format!(
            "command word {word:?}: {what} (write {{{{ and }}}} for literal braces)"
        ))
    };
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(ch) if ch.is_ascii_alphanumeric() || ch == '_' => name.push(ch),
                        _ => return Err(bad("expected {NAME} with NAME a variable name")),
                    }
                }
                if name.is_empty() {
                    return Err(bad("expected a variable name inside {}"));
                }
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Var(name));
            }
            '}' => return Err(bad("a `}` without its `{`")),
            c => text.push(c),
        }
    }
    if !text.is_empty() || pieces.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    fn grid() -> Grid {
        Grid::parse(&["n=64,128".to_string()], "1,2").unwrap()
    }

    #[test]
    fn substitutes_variables_and_p_inside_words() {
        let t = CommandTemplate::parse(&words("./fft2d -n {n} -p {p} --out=r{n}x{p}.txt"), &grid())
            .unwrap();
        let pt = &grid().points()[3];
        assert_eq!(t.render(pt), words("./fft2d -n 128 -p 2 --out=r128x2.txt"));
        assert!(t.uses("n") && t.uses("p") && !t.uses("m"));
    }

    #[test]
    fn doubled_braces_are_literal_and_empty_words_stay() {
        let t = CommandTemplate::parse(
            &[
                "sh".into(),
                "-c".into(),
                "echo {{{n}}} ''".into(),
                "".into(),
            ],
            &grid(),
        )
        .unwrap();
        assert_eq!(
            t.render(&grid().points()[0]),
            ["sh", "-c", "echo {64} ''", ""]
        );
    }

    #[test]
    fn unknown_or_malformed_placeholders_are_refused() {
        for bad in ["-m {m}", "{n", "n}", "{}", "{n-1}", ""] {
            let e = CommandTemplate::parse(&words(&format!("prog {bad}")), &grid());
            if bad.is_empty() {
                assert!(e.is_ok());
                continue;
            }
            let e = e.unwrap_err();
            assert!(matches!(e, CampaignError::Usage(_)), "{bad}: {e}");
        }
        let e = CommandTemplate::parse(&words("prog -m {m}"), &grid()).unwrap_err();
        assert!(e.to_string().contains("{n}, {p}"), "{e}");
        assert!(CommandTemplate::parse(&[], &grid()).is_err());
    }
}
