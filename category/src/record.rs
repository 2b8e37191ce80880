//! A profile record (docs/records.md) as a value: what `pp` measured for one window of one
//! run, with the user's note. `pp` produces it, `lca` reads it as a record directly
//! (`lca::record::Record::from_profile`), and its [`Display`](std::fmt::Display) is the
//! record line a data file holds.
//!
//! The line: the note's `key=value` tokens, `tag=NAME` for a fragment, `p=`, then the
//! measured categories in record order ([`Category::ALL`]), each value formatted by
//! [`format_seconds`] (the shortest decimal that reads back as the same `f64`).

use crate::Category;
use std::fmt;

/// One profile record.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRecord {
    /// The user's note, `(key, value)` pairs in the order given (`n=1024 impl=dp`).
    pub note: Vec<(String, String)>,
    /// The fragment's name, `None` for the whole session.
    pub tag: Option<String>,
    /// p, the processors of the run.
    pub processors: u32,
    /// The measured categories (processor-seconds), in record order; a category not
    /// measured is absent, never 0.
    pub categories: Vec<(Category, f64)>,
}

impl ProfileRecord {
    /// The value of category `c`, `None` when it was not measured.
    pub fn get(&self, c: Category) -> Option<f64> {
        self.categories
            .iter()
            .find(|(k, _)| *k == c)
            .map(|(_, v)| *v)
    }

    /// The tag as a record token holds it: whitespace (which would end the token) becomes
    /// `_`.
    pub fn tag_token(&self) -> Option<String> {
        self.tag.as_ref().map(|t| {
            t.chars()
                .map(|c| if c.is_whitespace() { '_' } else { c })
                .collect()
        })
    }

    /// This record with every category divided by `divisor` (per-execution amounts from a
    /// run's totals; a divisor of 0 counts as 1).
    pub fn divided(&self, divisor: u64) -> ProfileRecord {
        let d = divisor.max(1) as f64;
        ProfileRecord {
            categories: self.categories.iter().map(|(c, v)| (*c, v / d)).collect(),
            ..self.clone()
        }
    }
}

impl fmt::Display for ProfileRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        for (k, v) in &self.note {
            write!(f, "{sep}{k}={v}")?;
            sep = " ";
        }
        if let Some(tag) = self.tag_token() {
            write!(f, "{sep}tag={tag}")?;
            sep = " ";
        }
        write!(f, "{sep}p={}", self.processors)?;
        for (c, v) in &self.categories {
            write!(f, " {}={}", c.key(), format_seconds(*v))?;
        }
        Ok(())
    }
}

/// Formats seconds as the shortest decimal that round-trips (`0`, `0.0132`, `1.7436`,
/// `2.5e-7`): plain notation from 1e-4 to 1e15, exponent notation outside.
pub fn format_seconds(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        "0".to_owned()
    } else if (1e-4..1e15).contains(&a) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_round_trip() {
        for v in [0.0132, 1.7436, 0.1 + 0.2, 2.5e-7, 123456.789, 1e-9, 3e20] {
            let s = format_seconds(v);
            assert_eq!(s.parse::<f64>().unwrap(), v, "{s}");
        }
        assert_eq!(format_seconds(0.0), "0");
        assert_eq!(format_seconds(0.0132), "0.0132");
        assert_eq!(format_seconds(2.5e-7), "2.5e-7");
    }

    #[test]
    fn the_line_and_per_execution_values() {
        let r = ProfileRecord {
            note: vec![],
            tag: Some("row pass".into()),
            processors: 2,
            categories: vec![
                (Category::Li, 0.5),
                (Category::Fj, 0.25),
                (Category::Tt, 3.0),
            ],
        };
        assert_eq!(r.to_string(), "tag=row_pass p=2 li=0.5 fj=0.25 tt=3");
        let per = r.divided(4);
        assert_eq!(per.get(Category::Fj), Some(0.0625));
        assert_eq!(per.get(Category::Rt), None);
        assert_eq!(per.processors, 2);
        assert_eq!(r.divided(0), r);
    }
}
