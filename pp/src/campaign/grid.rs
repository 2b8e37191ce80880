//! The grid of a campaign: named size variables, each with a list of values, and the
//! processor counts p; every combination is one point.
//!
//! Syntax of a variable (`--grid`): `NAME=ITEM,ITEM,...`; of p (`--p`): `ITEM,ITEM,...`.
//! An item is a value (`64`, `dense`: any text without `,` or blanks) or an integer range:
//! `A..B` (A, A+1, ..., B), `A..B:+K` (step K), `A..B:*K` (A, A·K, A·K², ... up to B).
//! `n=64..1024:*2` is 64, 128, 256, 512, 1024. Values keep the order given; a value given
//! twice is an error.
//!
//! Variables given in one option are **paired**: they vary together instead of forming
//! every combination. `NAME:NAME=V:V,V:V,...` gives every item a value of each name,
//! separated by `:` (plain values, no ranges): `n:iters=65536:32,131072:16` is two steps,
//! (n = 65536, iters = 32) and (n = 131072, iters = 16). A pair given twice is an error; a
//! value may repeat in one name (`n:iters=64:1,128:1`).

use super::CampaignError;

/// Most points a grid may have (a typo such as `1..100000000` is refused, not run).
pub const MAX_POINTS: usize = 100_000;

/// One dimension of the grid: one size variable and its values, or several paired
/// variables that vary together, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// The variables' names (record keys: ASCII letters, digits and `_`): one for
    /// `NAME=ITEMS`, several for paired variables.
    pub names: Vec<String>,
    /// The steps along the dimension, in order: a value (as text) of every name, in the
    /// order of `names`.
    pub steps: Vec<Vec<String>>,
}

impl Axis {
    /// The values of variable `name` along the axis, one per step (None if it is not
    /// one of the axis's names).
    pub fn values_of(&self, name: &str) -> Option<Vec<&str>> {
        let k = self.names.iter().position(|n| n == name)?;
        Some(self.steps.iter().map(|step| step[k].as_str()).collect())
    }
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
    /// Dimensions (single or paired variables), in the order given.
    pub axes: Vec<Axis>,
    /// Processor counts, in the order given.
    pub ps: Vec<usize>,
}

impl Grid {
    /// The grid of `axes` (each `NAME=ITEMS`, or `NAME:NAME=V:V,...` for paired
    /// variables) and `ps` (`ITEMS` of integers >= 1).
    pub fn parse(axes: &[String], ps: &str) -> Result<Grid, CampaignError> {
        let mut parsed: Vec<Axis> = Vec::new();
        for a in axes {
            let axis = parse_axis(a)?;
            if let Some(name) = axis
                .names
                .iter()
                .find(|n| parsed.iter().any(|x| x.names.contains(n)))
            {
                return Err(usage(a, &format!("variable {name} once")));
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
            .map(|a| a.steps.len())
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

    /// The names of every variable, in the order given.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.axes
            .iter()
            .flat_map(|a| a.names.iter().map(String::as_str))
    }

    /// The values of variable `name`, one per step of its axis (None if the grid has no
    /// such variable).
    pub fn values_of(&self, name: &str) -> Option<Vec<&str>> {
        self.axes.iter().find_map(|a| a.values_of(name))
    }

    /// Every point, the last axis varying fastest and p fastest of all (so that a size's
    /// p = 1 point comes before its other p when 1 is listed first). Paired variables
    /// take their values together, step by step.
    pub fn points(&self) -> Vec<Point> {
        let mut out = vec![Vec::<(String, String)>::new()];
        for a in &self.axes {
            out = out
                .into_iter()
                .flat_map(|prefix| {
                    a.steps.iter().map(move |step| {
                        let mut x = prefix.clone();
                        x.extend(a.names.iter().cloned().zip(step.iter().cloned()));
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

/// Parses `NAME=ITEMS`, or `NAME:NAME=V:V,V:V,...` for paired variables.
pub fn parse_axis(text: &str) -> Result<Axis, CampaignError> {
    let (names, items) = text.split_once('=').ok_or_else(|| {
        usage(
            text,
            "NAME=VALUES, such as n=64,128 or n=64..1024:*2, or NAME:NAME=V:V,... \
             (paired), such as n:iters=64:8,128:4",
        )
    })?;
    let names: Vec<&str> = names.split(':').collect();
    for name in &names {
        check_name(name, text)?;
    }
    if let [name] = names[..] {
        let steps = parse_items(items, text)?.into_iter().map(|v| vec![v]);
        return Ok(Axis {
            names: vec![name.to_string()],
            steps: steps.collect(),
        });
    }
    if let Some(twice) = names
        .iter()
        .enumerate()
        .find_map(|(i, n)| names[..i].contains(n).then_some(n))
    {
        return Err(usage(text, &format!("variable {twice} once")));
    }
    let expected = format!(
        "comma-separated items of {} values separated by ':' (plain values, no ranges, \
         no blanks), such as {}",
        names.len(),
        names.iter().map(|_| "8").collect::<Vec<_>>().join(":")
    );
    let mut steps: Vec<Vec<String>> = Vec::new();
    for item in items.split(',') {
        let step: Vec<String> = item.trim().split(':').map(String::from).collect();
        let plain =
            |v: &String| !v.is_empty() && !v.contains("..") && !v.contains(char::is_whitespace);
        if step.len() != names.len() || !step.iter().all(plain) {
            return Err(usage(text, &expected));
        }
        if steps.contains(&step) {
            return Err(usage(
                text,
                &format!("each item once ({} comes twice)", step.join(":")),
            ));
        }
        if steps.len() >= MAX_POINTS {
            return Err(usage(text, &format!("at most {MAX_POINTS} items")));
        }
        steps.push(step);
    }
    Ok(Axis {
        names: names.iter().map(|n| n.to_string()).collect(),
        steps,
    })
}

/// Checks that `name` (from `text`) may be a grid variable: a record key other than p and
/// the keys records use themselves.
fn check_name(name: &str, text: &str) -> Result<(), CampaignError> {
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
    if crate::record::reserved_keys().any(|k| k == name)
        || super::records::BOOKKEEPING_KEYS.contains(&name)
    {
        return Err(usage(
            text,
            "a variable name other than the keys records use (p, tag, rep, run_s and the categories)",
        ));
    }
    Ok(())
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
        assert_eq!(g.axes[0].names, ["n"]);
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

    #[test]
    fn paired_variables_vary_together() {
        let g = Grid::parse(&s(&["n:iters=64:8,128:4,256:4", "impl=a,b"]), "1,2").unwrap();
        assert_eq!(g.axes[0].names, ["n", "iters"]);
        assert_eq!(g.variables().collect::<Vec<_>>(), ["n", "iters", "impl"]);
        assert_eq!(g.values_of("iters").unwrap(), ["8", "4", "4"]);
        assert_eq!(g.values_of("impl").unwrap(), ["a", "b"]);
        assert_eq!(g.values_of("m"), None);
        let labels: Vec<String> = g.points().iter().map(Point::label).collect();
        // 3 pairs x 2 impls x 2 p: 12 points, not 3 x 3 x 2 x 2.
        assert_eq!(labels.len(), 12);
        assert_eq!(labels[0], "n=64 iters=8 impl=a p=1");
        assert_eq!(labels[3], "n=64 iters=8 impl=b p=2");
        assert_eq!(labels[4], "n=128 iters=4 impl=a p=1");
        assert_eq!(labels[11], "n=256 iters=4 impl=b p=2");
        assert!(!labels.iter().any(|l| l.starts_with("n=64 iters=4")));
        // The cartesian product of the same values for comparison.
        let product = Grid::parse(&s(&["n=64,128,256", "iters=8,4"]), "1").unwrap();
        assert_eq!(product.points().len(), 6);
    }

    #[test]
    fn bad_paired_variables_are_usage_errors_that_quote_the_input() {
        for bad in [
            "n:iters=64:8,128",
            "n:iters=64:8:2",
            "n:iters=64..128:8",
            "n:iters=64:",
            "n:iters=64:8,64:8",
            "n:n=1:2",
            "n:p=64:1",
            "n:rep=64:1",
            "n::iters=64:1",
            "n:iters=64: 8",
            "n:iters=",
        ] {
            let e = Grid::parse(&s(&[bad]), "1").unwrap_err();
            assert!(matches!(e, CampaignError::Usage(_)), "{bad}: {e}");
            assert!(e.to_string().contains(&format!("{bad:?}")), "{e}");
        }
        let e = Grid::parse(&s(&["n:iters=64:8"]), "1").unwrap();
        assert_eq!(e.points().len(), 1);
        let e = Grid::parse(&s(&["n:iters=64:8,128:8", "iters=1"]), "1").unwrap_err();
        assert!(
            e.to_string().ends_with("expected variable iters once"),
            "{e}"
        );
        let e = Grid::parse(&s(&["n:iters=64:8,128"]), "1").unwrap_err();
        assert!(
            e.to_string()
                .contains("expected comma-separated items of 2 values separated by ':'"),
            "{e}"
        );
    }
}
