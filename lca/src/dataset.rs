//! The data one fit works on: measured values of a category at points of the external
//! variables, each remembering the data-file line it came from.

use crate::extraction::Extraction;
use crate::record::{Record, RecordError};
use std::collections::BTreeSet;

/// One measurement: values of the variables (in [`Dataset::variables`] order), the
/// category value (seconds, or whatever unit the record key has) and its line.
#[derive(Debug, Clone, PartialEq)]
pub struct DataPoint {
    /// Variable values.
    pub x: Vec<f64>,
    /// Measured value.
    pub y: f64,
    /// 1-based data-file line (0 for generated data).
    pub line: usize,
}

/// Measurements of one category over one or more variables.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// Data file name (for messages), `-` or a description for generated data.
    pub source: String,
    /// Category key (`li`, `rt`, `time`, …).
    pub category: String,
    /// Variable names (`n`, `p`, …).
    pub variables: Vec<String>,
    /// The points, in file order.
    pub points: Vec<DataPoint>,
}

/// Records that cannot make a data set.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DataError {
    /// A value that is not a finite number (names the line).
    #[error("{source_name}: {error}")]
    Record {
        /// Data file name.
        source_name: String,
        /// What is wrong at which line.
        error: RecordError,
    },
    /// Nothing selected.
    #[error("{source_name}: expected records with `{category}` and {vars} (after extraction `{extraction}`), found none; the file's records have tags: {tags}")]
    NoRecords {
        /// Data file name.
        source_name: String,
        /// Category.
        category: String,
        /// Variables, printed.
        vars: String,
        /// Extraction, printed.
        extraction: String,
        /// The tags the file's records do have (`(session)` for untagged records), comma
        /// separated, or `none (no records)`.
        tags: String,
    },
    /// Selected records come from different fragments.
    #[error("{source_name}: the selected records mix fragments ({tags}); choose one with -x tag=NAME (or `-x \"tag!=x\"`-style filters)")]
    MixedTags {
        /// Data file name.
        source_name: String,
        /// The tags found (`(session)` for untagged records).
        tags: String,
    },
}

/// The distinct tags of `records` (`(session)` for untagged ones), sorted, comma separated.
fn tags_of(records: &[Record]) -> String {
    let tags: BTreeSet<&str> = records
        .iter()
        .map(|r| r.tag().unwrap_or("(session)"))
        .collect();
    match tags.is_empty() {
        true => "none (no records)".to_owned(),
        false => tags.into_iter().collect::<Vec<_>>().join(", "),
    }
}

impl Dataset {
    /// A data set from generated points (tests, benchmarks).
    pub fn new(category: &str, variables: &[&str], points: Vec<DataPoint>) -> Dataset {
        Dataset {
            source: "-".into(),
            category: category.into(),
            variables: variables.iter().map(|s| s.to_string()).collect(),
            points,
        }
    }

    /// Selects the records that match `extraction` and carry the category and every
    /// variable, and reads their values. Records of different fragments (`tag=`) must not
    /// be mixed. Values that are not finite numbers are errors naming the line.
    pub fn from_records(
        records: &[Record],
        source: &str,
        category: &str,
        variables: &[String],
        extraction: &Extraction,
    ) -> Result<Dataset, DataError> {
        let rec_err = |error| DataError::Record {
            source_name: source.to_string(),
            error,
        };
        let mut points = Vec::new();
        let mut tags = BTreeSet::new();
        for r in records {
            if !extraction.matches(r) || !variables.iter().all(|v| r.has(v)) {
                continue;
            }
            let Some(y) = r.category(category).map_err(rec_err)? else {
                continue;
            };
            let mut x = Vec::with_capacity(variables.len());
            for v in variables {
                x.push(r.number(v).map_err(rec_err)?);
            }
            tags.insert(r.tag().unwrap_or("(session)").to_string());
            points.push(DataPoint {
                x,
                y,
                line: r.line(),
            });
        }
        if points.is_empty() {
            return Err(DataError::NoRecords {
                source_name: source.into(),
                category: category.into(),
                vars: variables.join(", "),
                extraction: extraction.to_string(),
                tags: tags_of(records),
            });
        }
        if tags.len() > 1 {
            return Err(DataError::MixedTags {
                source_name: source.into(),
                tags: tags.into_iter().collect::<Vec<_>>().join(", "),
            });
        }
        Ok(Dataset {
            source: source.into(),
            category: category.into(),
            variables: variables.to_vec(),
            points,
        })
    }

    /// The variables of `point` by name (what [`crate::expr::Expr::eval`] takes).
    pub fn bindings(&self, point: &DataPoint) -> crate::expr::Bindings {
        self.variables
            .iter()
            .cloned()
            .zip(point.x.iter().copied())
            .collect()
    }

    /// The measured values.
    pub fn ys(&self) -> Vec<f64> {
        self.points.iter().map(|p| p.y).collect()
    }

    /// The distinct values of variable `i`, sorted.
    pub fn distinct(&self, i: usize) -> Vec<f64> {
        let mut v: Vec<f64> = self.points.iter().map(|p| p.x[i]).collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    }

    /// Number of variables that take two or more values among the points: those a model
    /// can tell anything about (a variable held at one value, like p = 2 for the overheads
    /// of 2-core records, offers no terms to choose from).
    pub fn varying_variables(&self) -> usize {
        (0..self.variables.len())
            .filter(|&i| self.distinct(i).len() >= 2)
            .count()
    }

    /// Number of distinct points: measurements at identical variable values (repetitions
    /// of one configuration) count once.
    pub fn distinct_points(&self) -> usize {
        let mut keys: Vec<Vec<u64>> = self
            .points
            .iter()
            .map(|p| p.x.iter().map(|v| v.to_bits()).collect())
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys.len()
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// True when there are no points.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    #[test]
    fn selects_and_reports() {
        let recs = parse_records(
            "n=1 p=1 li=0 tt=2\nn=1 p=2 li=0.5 tt=4\nn=2 p=2 tt=3\nn=1 tag=a p=4 li=1 tt=8\n",
        )
        .unwrap();
        let vars = vec!["p".to_string()];
        let x = Extraction::parse("n=1").unwrap();
        let e = Dataset::from_records(&recs, "f.pp", "li", &vars, &x).unwrap_err();
        assert!(matches!(e, DataError::MixedTags { .. }), "{e}");
        let x = Extraction::parse("n=1 && tag!=a").unwrap();
        let d = Dataset::from_records(&recs, "f.pp", "li", &vars, &x).unwrap_err();
        // tag!=a never matches a record without a tag.
        assert!(matches!(d, DataError::NoRecords { .. }));
        let d = Dataset::from_records(&recs[..2], "f.pp", "time", &vars, &Extraction::default())
            .unwrap();
        assert_eq!(d.ys(), [2.0, 2.0]);
        assert_eq!(d.points[1].line, 2);
        let bad = parse_records("p=1 li=x").unwrap();
        let e =
            Dataset::from_records(&bad, "f.pp", "li", &vars, &Extraction::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.pp: line 1: `li`: expected a finite number, found `x`"
        );
    }
}
