//! Why a fragment could not be modelled.

use crate::record::{RecordError, CATEGORY_KEYS};

/// Why a fragment could not be modelled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PolicyError {
    /// A value that is not a number.
    #[error("{source_name}: {error}")]
    Record {
        /// Data file.
        source_name: String,
        /// Line and key.
        error: RecordError,
    },
    /// No record of the fragment carries a category.
    #[error("{source_name}: fragment {fragment}: expected records with categories ({}) and the variables {variables}, found none", CATEGORY_KEYS.join(" "))]
    NoCategories {
        /// Data file.
        source_name: String,
        /// Fragment (`(session)` for untagged records).
        fragment: String,
        /// The variables, printed.
        variables: String,
    },
    /// The fragment's work could not be fitted.
    #[error("{source_name}: fragment {fragment}, category {category}: no model could be fitted to {observations} observations")]
    NoModel {
        /// Data file.
        source_name: String,
        /// Fragment.
        fragment: String,
        /// Category.
        category: String,
        /// Observations it had.
        observations: usize,
    },
}
