//! Fitted fragment models as the study keeps them: per fragment and category, the chosen
//! expression with its form and goodness of fit.

use lca::annotation::FragmentModel;
use lca::expr::Expr;
use std::collections::BTreeMap;

/// The fitted model of one category of one fragment.
#[derive(Clone, Debug, PartialEq)]
pub struct CategoryFit {
    /// Category key (`pc`, `ml`, `li`, …).
    pub category: String,
    /// The model (processor-seconds per fragment execution).
    pub expr: Expr,
    /// The form the search chose (e.g. `n^2*log2(n) + 1`), for the report.
    pub form: String,
    /// Coefficient of determination on the fitted data (NaN when not meaningful).
    pub r2: f64,
    /// Number of records fitted.
    pub points: usize,
}

/// The fitted models of one fragment.
#[derive(Clone, Debug, PartialEq)]
pub struct FragmentFit {
    /// Fragment name.
    pub name: String,
    /// One fit per category.
    pub categories: Vec<CategoryFit>,
}

impl FragmentFit {
    /// The `lca` annotation model of this fragment.
    pub fn model(&self) -> FragmentModel {
        FragmentModel {
            name: self.name.clone(),
            categories: self
                .categories
                .iter()
                .map(|c| (c.category.clone(), c.expr.clone()))
                .collect(),
            ranges: Vec::new(),
        }
    }

    /// The fragment's predicted time per execution at `vars` (seconds): its category models
    /// summed by the one rule of [`category::time`] (`li + ip + sl + wc` plus `rt`, or
    /// `pc + ml`) and divided by p (Crovella's T = Σ C / p). NaN when a summed model cannot
    /// be evaluated.
    pub fn seconds(&self, vars: &BTreeMap<String, f64>) -> f64 {
        let p = vars.get("p").copied().unwrap_or(1.0).max(1e-9);
        let terms =
            category::time::time_terms_of_keys(self.categories.iter().map(|c| c.category.as_str()));
        let mut sum = 0.0;
        for c in &self.categories {
            if !category::time::counts(&terms, &c.category) {
                continue;
            }
            match c.expr.eval(vars) {
                Ok(v) => sum += v,
                Err(_) => return f64::NAN,
            }
        }
        sum / p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lca::expr::parse;

    fn cat(c: &str, e: &str) -> CategoryFit {
        CategoryFit {
            category: c.into(),
            expr: parse(e).unwrap(),
            form: e.into(),
            r2: 1.0,
            points: 4,
        }
    }

    #[test]
    fn seconds_sum_the_categories_over_p() {
        let f = FragmentFit {
            name: "cols".into(),
            categories: vec![cat("pc", "2*n"), cat("li", "p")],
        };
        let mut vars = BTreeMap::new();
        vars.insert("n".to_string(), 10.0);
        vars.insert("p".to_string(), 2.0);
        assert_eq!(f.seconds(&vars), 11.0);
        vars.remove("n");
        assert!(f.seconds(&vars).is_nan());
        assert_eq!(f.model().categories.len(), 2);
    }
}
