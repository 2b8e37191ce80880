//! The grid of a campaign: named size variables, each with a list of values, and the
//! processor counts p; every combination is one point.
//!
//! Syntax of a variable (`--grid`): `NAME=ITEM,ITEM,...`; of p (`--p`): `ITEM,ITEM,...`.
//! An item is a value (`64`, `dense`: any text without `,` or blanks) or an integer range:
//! `A..B` (A, A+1, ..., B), `A..B:+K` (step K), `A..B:*K` (A, A·K, A·K², ... up to B).
//! `n=64..1024:*2` is 64, 128, 256, 512, 1024. Values keep the order given; a value given
//! twice is an error.

use super::CampaignError;

/// Most points a grid may have (a typo such as `1..100000000` is refused, not run).
pub const MAX_POINTS: usize = 100_000;

/// One size variable and its values, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// Name (a record key: ASCII letters, digits and `_`).
    pub name: String,
    /// Values as text, in order.
    pub values: Vec<String>,
}

/// One point of the grid: a value of every variable, and p.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    /// `(name, value)` of every variable, in the grid's order.
    pub values: Vec<(String, String)>,
    /// Processors.
    pub p: usize,
}

impl Point {
    /// The value of variable `name`, or p for `p`.
    pub fn get(&self, name: &str) -> Option<String> {
        if name == "p" {
            return Some(self.p.to_string());
        }
        self.values
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    /// `n=64 m=3 p=2`: the point as record-style tokens.
    pub fn label(&self) -> String {
        let mut parts: Vec<String> = self
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        parts.push(format!("p={}", self.p));
        parts.join(" ")
    }

    /// The same point at p = 1 (its baseline).
    pub fn at_one(&self) -> Point {
        Point {
            values: self.values.clone(),
            p: 1,
        }
    }
}

/// The variables and processor counts of a campaign.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Size variables, in the order given.
    pub axes: Vec<Axis>,
    /// Processor counts, in the order given.
    pub ps: Vec<usize>,
}

impl Grid {
    /// The grid of `axes` (each `NAME=ITEMS`) and `ps` (`ITEMS` of integers >= 1).
    pub fn parse(axes: &[String], ps: &str) -> Result<Grid, CampaignError> {
        let mut parsed: Vec<Axis> = Vec::new();
        for a in axes {
            let axis = parse_axis(a)?;
            if axis.name == "p" {
                return Err(usage(
                    a,
                    "a variable other than p (p has its own list: --p)",
                ));
            }
            if parsed.iter().any(|x| x.name == axis.name) {
                return Err(usage(a, &format!("variable {} once", axis.name)));
            }
            parsed.push(axis);
        }
        let ps = parse_items(ps, ps)?
            .into_iter()
            .map(|v| match v.parse::<usize>() {
                Ok(p) if p >= 1 => Ok(p),
                _ => Err(usage(&v, "a processor count: an integer >= 1")),
            })
            .collect::<Result<Vec<usize>, _>>()?;
        let grid = Grid { axes: parsed, ps };
        let count = grid
            .axes
            .iter()
            .map(|a| a.values.len())
            .chain([grid.ps.len()])
            .try_fold(1usize, |acc, k| acc.checked_mul(k))
            .filter(|&k| k <= MAX_POINTS);
        if count.is_none() {
            return Err(CampaignError::Usage(format!(
                "the grid has more than {MAX_POINTS} points: expected a smaller grid"
            )));
        }
        Ok(grid)
    }

    /// Every point, the last variable varying fastest and p fastest of all (so that a
    /// size's p = 1 point comes before its other p when 1 is listed first).
    pub fn points(&self) -> Vec<Point> {
        let mut out = vec![Vec::<(String, String)>::new()];
        for a in &self.axes {
            out = out
                .into_iter()
                .flat_map(|prefix| {
                    a.values.iter().map(move |v| {
                        let mut x = prefix.clone();
                        x.push((a.name.clone(), v.clone()));
                        x
                    })
                })
                .collect();
        }
        out.into_iter()
            .flat_map(|values| {
                self.ps.iter().map(move |&p| Point {
                    values: values.clone(),
                    p,
                })
            })
            .collect()
    }
}

fn usage(found: &str, expected: &str) -> CampaignError {
    CampaignError::Usage(format!("grid {found:?}: expected {expected}"))
}

/// Parses `NAME=ITEMS`.
pub fn parse_axis(text: &str) -> Result<Axis, CampaignError> {
    let (name, items) = text
        .split_once('=')
        .ok_or_else(|| usage(text, "NAME=VALUES, such as n=64,128 or n=64..1024:*2"))?;
    let name_ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !name_ok {
        return Err(usage(
            text,
            "a variable name of ASCII letters, digits and '_' (not starting with a digit)",
        ));
    }
    if name == "p" {
        return Err(usage(
            text,
            "a variable other than p (p has its own list: --p)",
        ));
    }
    if crate::record::reserved_keys().any(|k| k == name) || ["rep", "run_s"].contains(&name) {
        return Err(usage(
            text,
            "a variable name other than the keys records use (p, tag, rep, run_s and the categories)",
        ));
    }
    Ok(Axis {
        name: name.to_string(),
        values: parse_items(items, text)?,
    })
}

/// Parses `ITEM,ITEM,...` (see the module docs) into values; `whole` is what errors quote.
pub fn parse_items(items: &str, whole: &str) -> Result<Vec<String>, CampaignError> {
    let mut out: Vec<String> = Vec::new();
    for item in items.split(',') {
        let item = item.trim();
        if item.is_empty() || item.contains(char::is_whitespace) {
            return Err(usage(whole, "comma-separated values without blanks"));
        }
        let values = match item.split_once("..") {
            Some((a, rest)) => range(a, rest, whole)?,
            None => vec![item.to_string()],
        };
        for v in values {
            if out.contains(&v) {
                return Err(usage(whole, &format!("each value once ({v} comes twice)")));
            }
            if out.len() >= MAX_POINTS {
                return Err(usage(whole, &format!("at most {MAX_POINTS} values")));
            }
            out.push(v);
        }
    }
    Ok(out)
}

/// The values of the range `a..rest` (`rest` = `B`, `B:+K` or `B:*K`).
fn range(a: &str, rest: &str, whole: &str) -> Result<Vec<String>, CampaignError> {
    let expected = "a range A..B, A..B:+K or A..B:*K of integers with A <= B";
    let (b, step) = match rest.split_once(':') {
        Some((b, s)) => (b, Some(s)),
        None => (rest, None),
    };
    let int = |s: &str| s.parse::<u64>().map_err(|_| usage(whole, expected));
    let (a, b) = (int(a)?, int(b)?);
    if a > b {
        return Err(usage(whole, expected));
    }
    let next: Box<dyn Fn(u64) -> Option<u64>> = match step {
        None => Box::new(|x: u64| x.checked_add(1)),
        Some(s) => match (s.strip_prefix('+'), s.strip_prefix('*')) {
            (Some(k), _) => {
                let k = int(k)?;
                if k == 0 {
                    return Err(usage(whole, "a step +K with K >= 1"));
                }
                Box::new(move |x: u64| x.checked_add(k))
            }
            (_, Some(k)) => {
                let k = int(k)?;
                if k < 2 || a == 0 {
                    return Err(usage(whole, "a factor *K with K >= 2 from A >= 1"));
                }
                Box::new(move |x: u64| x.checked_mul(k))
            }
            _ => return Err(usage(whole, expected)),
        },
    };
    let mut out = Vec::new();
    let mut x = Some(a);
    while let Some(v) = x.filter(|&v| v <= b) {
        if out.len() >= MAX_POINTS {
            return Err(usage(whole, &format!("at most {MAX_POINTS} values")));
        }
        out.push(v.to_string());
        x = next(v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn lists_ranges_steps_and_factors() {
        assert_eq!(parse_items("64,128", "").unwrap(), s(&["64", "128"]));
        assert_eq!(parse_items("1..4", "").unwrap(), s(&["1", "2", "3", "4"]));
        assert_eq!(parse_items("1..2", "").unwrap(), s(&["1", "2"]));
        assert_eq!(parse_items("0..10:+5", "").unwrap(), s(&["0", "5", "10"]));
        assert_eq!(
            parse_items("64..1000:*2", "").unwrap(),
            s(&["64", "128", "256", "512"])
        );
        assert_eq!(
            parse_items("dense,1..2,sparse", "").unwrap(),
            s(&["dense", "1", "2", "sparse"])
        );
    }

    #[test]
    fn bad_items_are_usage_errors_that_quote_the_input() {
        for bad in [
            "", "1,,2", "4..1", "1..x", "1..8:*1", "0..8:*2", "1..8:+0", "1..8:/2", "1,1", "1..3,2",
        ] {
            let e = parse_items(bad, &format!("n={bad}")).unwrap_err();
            assert!(matches!(e, CampaignError::Usage(_)), "{bad}: {e}");
            assert!(e.to_string().contains(&format!("\"n={bad}\"")), "{e}");
        }
        assert!(parse_items("1..1000000000", "").is_err());
    }

    #[test]
    fn variables_are_record_keys_other_than_ps() {
        let g = Grid::parse(&s(&["n=64,128", "impl=a"]), "1..2").unwrap();
        assert_eq!(g.axes[0].name, "n");
        assert_eq!(g.ps, vec![1, 2]);
        for bad in ["p=1", "tag=x", "rt=1", "rep=1", "9n=1", "n-1=2", "n", "=1"] {
            assert!(Grid::parse(&s(&[bad]), "1").is_err(), "{bad}");
        }
        assert!(Grid::parse(&s(&["n=1", "n=2"]), "1").is_err());
        for bad in ["0", "1,x", "2..1", ""] {
            assert!(Grid::parse(&[], bad).is_err(), "p {bad}");
        }
    }

    #[test]
    fn points_vary_p_fastest_then_the_last_variable() {
        let g = Grid::parse(&s(&["n=64,128", "m=a,b"]), "1,2").unwrap();
        let labels: Vec<String> = g.points().iter().map(Point::label).collect();
        assert_eq!(
            labels,
            [
                "n=64 m=a p=1",
                "n=64 m=a p=2",
                "n=64 m=b p=1",
                "n=64 m=b p=2",
                "n=128 m=a p=1",
                "n=128 m=a p=2",
                "n=128 m=b p=1",
                "n=128 m=b p=2"
            ]
        );
        let pt = &g.points()[3];
        assert_eq!(pt.get("m").as_deref(), Some("b"));
        assert_eq!(pt.get("p").as_deref(), Some("2"));
        assert_eq!(pt.at_one().p, 1);
        // No variables: one point per p.
        assert_eq!(Grid::parse(&[], "1..3").unwrap().points().len(), 3);
    }
}
