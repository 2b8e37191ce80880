//! Fitted fragment models as the study keeps them: per fragment and category, the chosen
//! expression with its form and goodness of fit.

use lca::annotation::FragmentModel;
use lca::expr::{BinOp, Expr};
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

    /// This fragment with the models of `categories` (all when None) multiplied by `factor`
    /// (an expression in the program's variables); `why` is added to their forms.
    pub fn scaled(&self, categories: Option<&[&str]>, factor: &Expr, why: &str) -> FragmentFit {
        let mut out = self.clone();
        for c in &mut out.categories {
            if categories.is_none_or(|cs| cs.contains(&c.category.as_str())) {
                c.expr = Expr::bin(BinOp::Mul, factor.clone(), c.expr.clone());
                c.form = format!("{why}: ({})", c.form);
            }
        }
        out
    }

    /// This fragment as it behaves beside another busy instance of the program: its memory
    /// loss `ml` grows by `k` times its pure computation `pc` (`k` measured by the study's
    /// co-run calibration). Unchanged when `k <= 0` or the fragment has no `pc` model.
    pub fn with_co_run(&self, k: f64) -> FragmentFit {
        let mut out = self.clone();
        let Some(pc) = self.categories.iter().find(|c| c.category == "pc") else {
            return out;
        };
        if !(k.is_finite() && k > 0.0) {
            return out;
        }
        let extra = Expr::bin(BinOp::Mul, Expr::Num(k), pc.expr.clone());
        match out.categories.iter_mut().find(|c| c.category == "ml") {
            Some(ml) => {
                ml.expr = Expr::bin(BinOp::Add, ml.expr.clone(), extra);
                ml.form = format!("{} + co-run {k:.3}*pc", ml.form);
            }
            None => {
                let at = out
                    .categories
                    .iter()
                    .position(|c| c.category == "pc")
                    .map_or(0, |i| i + 1);
                out.categories.insert(
                    at,
                    CategoryFit {
                        category: "ml".into(),
                        expr: extra,
                        form: format!("co-run {k:.3}*pc"),
                        r2: f64::NAN,
                        points: pc.points,
                    },
                );
            }
        }
        out
    }

    /// This fragment without its `category` model (unchanged when it has none).
    pub fn without(&self, category: &str) -> FragmentFit {
        let mut out = self.clone();
        out.categories.retain(|c| c.category != category);
        out
    }

    /// This fragment with `expr` added to its `category` model (inserted when it has none);
    /// `why` describes the term in its form.
    pub fn with_extra(&self, category: &str, expr: Expr, why: &str) -> FragmentFit {
        let mut out = self.clone();
        match out.categories.iter_mut().find(|c| c.category == category) {
            Some(c) => {
                c.expr = Expr::bin(BinOp::Add, c.expr.clone(), expr);
                c.form = format!("{} + {why}", c.form);
            }
            None => out.categories.push(CategoryFit {
                category: category.into(),
                expr,
                form: why.into(),
                r2: f64::NAN,
                points: 0,
            }),
        }
        out
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
    fn co_run_adds_a_share_of_pc_to_ml() {
        let f = FragmentFit {
            name: "cols".into(),
            categories: vec![cat("pc", "2*n"), cat("li", "p")],
        };
        let mut vars = BTreeMap::new();
        vars.insert("n".to_string(), 10.0);
        vars.insert("p".to_string(), 1.0);
        assert_eq!(f.seconds(&vars), 21.0);
        let g = f.with_co_run(0.5);
        assert_eq!(g.categories[1].category, "ml");
        assert_eq!(g.seconds(&vars), 31.0);
        let h = g.with_co_run(0.1);
        assert!((h.seconds(&vars) - 33.0).abs() < 1e-9);
        assert_eq!(f.with_co_run(-0.2), f);
        let half = f.scaled(Some(&["li"]), &parse("1/2").unwrap(), "one lock of two");
        assert!((half.seconds(&vars) - 20.5).abs() < 1e-9);
        assert!(half.categories[1].form.starts_with("one lock of two"));
        let all = f.scaled(None, &parse("1/n").unwrap(), "per group");
        assert!((all.seconds(&vars) - 2.1).abs() < 1e-9);
        assert_eq!(f.with_co_run(f64::NAN), f);
    }
}
