//! The vocabulary the lost-cycles tools share: the categories of a predicate profile
//! ([`Category`]: record key, human name, order, which category is a part of which), the
//! one rule that sums categories into a window's processor-time ([`time`]), and a profile
//! record as a value ([`ProfileRecord`]) that `pp` produces and `lca` consumes inside one
//! process, written as text (docs/records.md) only when it goes to a file.
//!
//! ```
//! use category::{time, Category, ProfileRecord};
//! assert_eq!(Category::from_key("li"), Some(Category::Li));
//! assert_eq!(Category::Tt.sum_of(), [Category::Li, Category::Ip, Category::Sl, Category::Wc, Category::Rt]);
//! // A fitted fragment with a baseline split: T·p = li + pc + ml (os is inside the work).
//! let terms = time::time_terms_of_keys(["pc", "ml", "li", "os"]);
//! assert_eq!(terms, [Category::Li, Category::Pc, Category::Ml]);
//! let r = ProfileRecord {
//!     note: vec![("n".into(), "1024".into())],
//!     tag: Some("cols".into()),
//!     processors: 4,
//!     categories: vec![(Category::Li, 0.0132), (Category::Rt, 1.73), (Category::Tt, 1.7436)],
//! };
//! assert_eq!(r.to_string(), "n=1024 tag=cols p=4 li=0.0132 rt=1.73 tt=1.7436");
//! ```
#![deny(missing_docs)]

mod categories;
pub mod record;
pub mod time;

pub use categories::{keys, Category, UnknownCategory};
pub use record::{format_seconds, ProfileRecord};
