//! What the policy returns: the chosen model of each category of one fragment, with what
//! it was fitted on and what a user should know about it.

use super::heldout::HeldOut;
use super::{JointStep, PROCESSORS};
use crate::annotation::FragmentModel;
use crate::expr::{BinOp, Expr};
use crate::fit::FittedModel;
use crate::range::VarRange;

/// The chosen model of one category.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoryModel {
    /// Category key.
    pub category: String,
    /// The model: `expr` in the category's unit (processor-seconds) over the fragment's
    /// variables, `label` its form, `quality.r2` on the observations it was fitted to,
    /// `quality.cv` the held-out score.
    pub model: FittedModel,
    /// The model as `Σ coefficient · basis`, one entry per coefficient (a nonlinear form:
    /// the whole expression times 1), what the joint step ([`joint`](super::joint))
    /// re-estimates.
    pub terms: Vec<(f64, Expr)>,
    /// Held-out errors of its form (fitted on its own).
    pub held_out: HeldOut,
    /// The variables it was fitted over (`pc`: without p).
    pub variables: Vec<String>,
    /// Observations fitted (configurations; for overheads, those with p > 1, and those at
    /// p = 1 too where the overhead is material there, [`at_one`](super::at_one)).
    pub observations: usize,
    /// The factor a coefficient had to lower the held-out error by
    /// ([`crate::search::term_penalty`] of the observations and the variables that vary
    /// among them).
    pub penalty: f64,
    /// Records they came from.
    pub records: usize,
}

/// Every category model of one fragment.
#[derive(Debug, Clone, PartialEq)]
pub struct FragmentModels {
    /// Fragment tag, None for whole-session records.
    pub tag: Option<String>,
    /// Variables.
    pub variables: Vec<String>,
    /// Models, work first, then the overheads, then the others.
    pub categories: Vec<CategoryModel>,
    /// What the policy decided that a user should know (categories left out, …).
    pub notes: Vec<String>,
    /// The measured range of each variable over the fragment's records (written into the
    /// models file, so that predictions far outside it warn).
    pub ranges: Vec<VarRange>,
    /// Set when the overheads' coefficients were re-estimated jointly so that their sum
    /// follows the measured time ([`joint`](super::joint)).
    pub joint: Option<JointStep>,
}

impl FragmentModels {
    /// The model of `category`.
    pub fn category(&self, category: &str) -> Option<&CategoryModel> {
        self.categories.iter().find(|c| c.category == category)
    }

    /// The fragment's time `T = Σ C / p` (seconds) over the categories that
    /// [`::category::time::time_terms`] sums (those of [`PARTITION`](super::PARTITION),
    /// with `pc + ml` in the place of `rt`, which is not fitted when `pc` is).
    pub fn time(&self) -> Expr {
        Expr::bin(BinOp::Div, self.processor_time(), Expr::var(PROCESSORS))
    }

    /// The fragment's processor-time `Σ C` (processor-seconds, what the records' `tt`
    /// measures) over the categories of [`time`](Self::time).
    pub fn processor_time(&self) -> Expr {
        self.counted()
            .map(|c| c.model.expr.clone())
            .reduce(|a, b| Expr::bin(BinOp::Add, a, b))
            .unwrap_or(Expr::Num(0.0))
    }

    /// The category models that the time sums.
    pub fn counted(&self) -> impl Iterator<Item = &CategoryModel> {
        let terms = ::category::time::time_terms_of_keys(
            self.categories.iter().map(|c| c.category.as_str()),
        );
        self.categories
            .iter()
            .filter(move |c| ::category::time::counts(&terms, &c.category))
    }

    /// The models as a models-file fragment (`// lcm:` lines), named by the tag or
    /// `session`.
    pub fn fragment_model(&self) -> FragmentModel {
        FragmentModel {
            name: self.tag.clone().unwrap_or_else(|| "session".into()),
            categories: self
                .categories
                .iter()
                .map(|c| (c.category.clone(), c.model.expr.clone()))
                .collect(),
            ranges: self.ranges.clone(),
        }
    }
}
