//! Derived fragment models: the restructuring rules a restructured source writes in its
//! annotation blocks, resolved against the measured version's models file (docs/models.md,
//! "Derived models").
//!
//! A fragment is *derived* when its annotation block holds `// lcm: like NAME`,
//! `// lcm: contention = EXPR`, or a category line whose expression refers to a measured
//! model (`FRAGMENT.CATEGORY`). Its categories are then, in this order:
//! 1. with `like NAME`: every category model of the measured fragment NAME;
//! 2. each category line of the block, replacing the inherited model of that category,
//!    every reference `F.c` replaced by the measured model of category `c` of fragment `F`
//!    (0 when `F` was measured but the fit left `c` out), and `F.c_pK` (K a whole number)
//!    by that model at K processors (`p` replaced by K: what the measured version lost with
//!    K threads, e.g. `F.ml_p2`, whatever the derived fragment's own processors); K may
//!    also be a variable (`F.ml_pNAME`, NAME starting with a letter), bound where the
//!    fragment runs like any other (a variable override `// lcm: NAME = EXPR` above a task
//!    reads the processors outside it: `F.ml_pboth` with `both = p` above two tasks of
//!    `p/2` threads each is the model at all of them);
//! 3. with `contention = E`: the fragment shares the machine with other busy tasks and its
//!    pure computation slows by the share `E`: `E * pc` is added to `ml` (to `rt` as
//!    `E * rt` when the models have no `pc`).
//!
//! A fragment that is not derived keeps today's rule: a models file's fragment of the same
//! name replaces the models written in the source.

use super::error::PredictError;
use super::source::SourceFile;
use super::tree::{Node, NodeKind, CATEGORIES};
use category::Category;
use lca::annotation::{references, Annotation, FragmentModel};
use lca::expr::{BinOp, Expr};
use std::collections::BTreeMap;

/// The measured version's models: the models file's name (for messages) and its fragments.
#[derive(Debug, Clone, Copy)]
pub struct Measured<'a> {
    /// The models file as named on the command line.
    pub file: &'a str,
    /// Its fragments.
    pub fragments: &'a [FragmentModel],
}

/// The restructuring rules of one fragment's annotation block.
#[derive(Debug, Default)]
struct Rules {
    like: Option<(usize, String)>,
    contention: Option<(usize, Expr)>,
    /// `(line, category, expression)` of the block's category lines.
    lines: Vec<(usize, String, Expr)>,
}

impl Rules {
    fn of(src: &SourceFile, line: usize) -> Rules {
        let mut r = Rules::default();
        for (l, a) in src.block_above(line) {
            match a {
                Annotation::Like(name) => r.like = Some((l, name)),
                Annotation::Contention(e) => r.contention = Some((l, e)),
                Annotation::Model { category, expr } if CATEGORIES.contains(&category.as_str()) => {
                    r.lines.push((l, category, expr))
                }
                _ => {}
            }
        }
        r
    }

    fn is_derived(&self) -> bool {
        self.like.is_some()
            || self.contention.is_some()
            || self.lines.iter().any(|(_, _, e)| !references(e).is_empty())
    }

    /// The first line that makes the fragment derived (for messages).
    fn first_line(&self) -> usize {
        let mut lines: Vec<usize> = self.lines.iter().map(|(l, _, _)| *l).collect();
        lines.extend(self.like.as_ref().map(|(l, _)| *l));
        lines.extend(self.contention.as_ref().map(|(l, _)| *l));
        lines.into_iter().min().unwrap_or(0)
    }
}

fn names(fragments: &[FragmentModel]) -> String {
    if fragments.is_empty() {
        return "none".into();
    }
    fragments
        .iter()
        .map(|f| format!("`{}`", f.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn err(file: &str, line: usize, message: String) -> PredictError {
    PredictError::Annotation {
        file: file.to_string(),
        line,
        column: 1,
        message,
    }
}

/// `expr` with every reference `F.c` replaced by the measured model (see the module docs),
/// and the references with the models that replaced them.
fn resolve(
    expr: &Expr,
    measured: &Measured,
    file: &str,
    line: usize,
) -> Result<(Expr, Vec<(String, Expr)>), PredictError> {
    let mut map = BTreeMap::new();
    for (frag, cat) in references(expr) {
        let Some(m) = measured.fragments.iter().find(|f| f.name == frag) else {
            return Err(err(
                file,
                line,
                format!(
                    "`{frag}.{cat}` refers to fragment `{frag}`, which {} does not hold (it holds {})",
                    measured.file,
                    names(measured.fragments)
                ),
            ));
        };
        let (cat_name, at_p) = split_processors(&cat);
        if !CATEGORIES.contains(&cat_name) {
            let has: Vec<&str> = m.categories.iter().map(|(c, _)| c.as_str()).collect();
            return Err(err(
                file,
                line,
                format!(
                    "`{frag}.{cat}`: expected a category after `{frag}.` (one of {}, or one of them with `_pK` for its model at K processors, K a whole number or a variable), found `{cat}` ({} models `{frag}` with {})",
                    CATEGORIES.join(" "),
                    measured.file,
                    has.join(" ")
                ),
            ));
        }
        let mut model = absent_category(m, cat_name).map_err(|why| {
            err(
                file,
                line,
                format!(
                    "`{frag}.{cat}`: {} models `{frag}` with {}, {why}",
                    measured.file,
                    held(m)
                ),
            )
        })?;
        if let Some(k) = at_p {
            let p = BTreeMap::from([("p".to_string(), k)]);
            model = super::env::substitute(&model, &p);
        }
        map.insert(format!("{frag}.{cat}"), model);
    }
    let resolved = super::env::substitute(expr, &map);
    Ok((resolved, map.into_iter().collect()))
}

/// The model of category `cat` of measured fragment `m`: its own, or where the fit left
/// it out, the sum of its terms for a sum (`rt = pc + ml`, `tt = li + ip + sl + wc + rt`,
/// each term itself resolved so), 0 for any other (the fit found it immaterial). A part of
/// another category (`fj` of `li`) has no such answer: `lca model` fits the whole, so
/// the part's absence says nothing of its size; the error (Err) says so.
fn absent_category(m: &FragmentModel, cat: &str) -> Result<Expr, String> {
    if let Some(e) = m.category(cat) {
        return Ok(e.clone());
    }
    let Some(c) = Category::from_key(cat) else {
        return Ok(Expr::Num(0.0));
    };
    if let Some(whole) = c.part_of() {
        return Err(format!(
            "not {cat}: {cat} ({}) is a part of {}, which the fit keeps whole; refer to `{}.{}` (the whole), or fit {cat} itself (`lca --auto -c {cat}`) into the models file",
            c.title(),
            whole.key(),
            m.name,
            whole.key()
        ));
    }
    let terms = c.sum_of();
    if terms.is_empty() {
        return Ok(Expr::Num(0.0));
    }
    let mut sum: Option<Expr> = None;
    for t in terms {
        let e = absent_category(m, t.key())?;
        sum = Some(match sum {
            Some(s) => Expr::bin(BinOp::Add, s, e),
            None => e,
        });
    }
    Ok(sum.unwrap_or(Expr::Num(0.0)))
}

/// The categories a measured fragment's models hold, for messages.
fn held(m: &FragmentModel) -> String {
    let has: Vec<&str> = m.categories.iter().map(|(c, _)| c.as_str()).collect();
    if has.is_empty() {
        "no category".into()
    } else {
        has.join(" ")
    }
}

/// A reference's category and, for `CAT_pK`, the processors K it is taken at: a whole
/// number, or a variable (`CAT_pNAME`, NAME a name that starts with a letter: the model at
/// as many processors as NAME is bound to where the fragment runs).
fn split_processors(cat: &str) -> (&str, Option<Expr>) {
    for c in CATEGORIES {
        let Some(k) = cat.strip_prefix(c).and_then(|r| r.strip_prefix("_p")) else {
            continue;
        };
        if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(k) = k.parse::<f64>() {
                return (c, Some(Expr::Num(k)));
            }
        }
        if super::env::is_variable_name(k) {
            return (c, Some(Expr::Var(k.to_string())));
        }
    }
    (cat, None)
}

fn set(categories: &mut Vec<(String, Expr)>, category: &str, expr: Expr) {
    match categories.iter_mut().find(|(c, _)| c == category) {
        Some((_, e)) => *e = expr,
        None => categories.push((category.to_string(), expr)),
    }
}

/// Adds the contention slowdown `share` (see the module docs) to `categories`.
fn add_contention(
    categories: &mut Vec<(String, Expr)>,
    share: Expr,
    fragment: &str,
    file: &str,
    line: usize,
) -> Result<(), PredictError> {
    let get = |c: &str| {
        categories
            .iter()
            .find(|(k, _)| k == c)
            .map(|(_, e)| e.clone())
    };
    if let Some(pc) = get("pc") {
        let extra = Expr::bin(BinOp::Mul, share, pc);
        let ml = match get("ml") {
            Some(ml) => Expr::bin(BinOp::Add, ml, extra),
            None => extra,
        };
        set(categories, "ml", ml);
        return Ok(());
    }
    if let Some(rt) = get("rt") {
        let extra = Expr::bin(BinOp::Mul, share, rt.clone());
        set(categories, "rt", Expr::bin(BinOp::Add, rt, extra));
        return Ok(());
    }
    Err(err(
        file,
        line,
        format!("fragment `{fragment}`: expected a `pc` or `rt` model for `contention` to slow down, found neither"),
    ))
}

/// A derived fragment's category models, measured range, and the measured models its
/// rules refer to (`F.c` with its model).
type DerivedModels = (
    Vec<(String, Expr)>,
    Vec<lca::range::VarRange>,
    Vec<(String, Expr)>,
);

/// The derived categories of one fragment (see the module docs).
fn derive_fragment(
    name: &str,
    rules: &Rules,
    measured: &Measured,
    file: &str,
) -> Result<DerivedModels, PredictError> {
    let mut categories = Vec::new();
    let mut ranges = Vec::new();
    let mut referenced: Vec<(String, Expr)> = Vec::new();
    let mut note = |refs: Vec<(String, Expr)>| {
        for r in refs {
            if !referenced.iter().any(|(n, _)| *n == r.0) {
                referenced.push(r);
            }
        }
    };
    if let Some((line, base)) = &rules.like {
        let Some(m) = measured.fragments.iter().find(|f| f.name == *base) else {
            return Err(err(
                file,
                *line,
                format!(
                    "`like {base}`: expected a fragment of {}, found none named `{base}` (it holds {})",
                    measured.file,
                    names(measured.fragments)
                ),
            ));
        };
        categories = m.categories.clone();
        ranges = m.ranges.clone();
    }
    for (line, category, expr) in &rules.lines {
        let (resolved, refs) = resolve(expr, measured, file, *line)?;
        note(refs);
        if ranges.is_empty() {
            if let Some((frag, _)) = references(expr).first() {
                if let Some(m) = measured.fragments.iter().find(|f| f.name == *frag) {
                    ranges = m.ranges.clone();
                }
            }
        }
        set(&mut categories, category, resolved);
    }
    if let Some((line, share)) = &rules.contention {
        let (share, refs) = resolve(share, measured, file, *line)?;
        note(refs);
        add_contention(&mut categories, share, name, file, *line)?;
    }
    Ok((categories, ranges, referenced))
}

/// Resolves the derived fragments of the tree under `node` (read from `src`) against
/// `measured`; returns the names of the fragments it derived. Without a models file a
/// derived fragment is an error naming its line.
pub fn apply(
    node: &mut Node,
    src: &SourceFile,
    measured: Option<&Measured>,
) -> Result<Vec<String>, PredictError> {
    let mut derived = Vec::new();
    walk(node, src, measured, &mut derived)?;
    Ok(derived)
}

fn walk(
    node: &mut Node,
    src: &SourceFile,
    measured: Option<&Measured>,
    derived: &mut Vec<String>,
) -> Result<(), PredictError> {
    let line = node.line;
    if let NodeKind::Fragment(f) = &mut node.kind {
        let rules = Rules::of(src, line);
        if rules.is_derived() {
            let Some(m) = measured else {
                return Err(err(
                    &src.name,
                    rules.first_line(),
                    format!(
                        "fragment `{}` derives its models from the measured version's (`like`, `contention` or `FRAGMENT.CATEGORY`): expected --models FILE with them, found none",
                        f.name
                    ),
                ));
            };
            let (categories, ranges, referenced) = derive_fragment(&f.name, &rules, m, &src.name)?;
            f.categories = categories;
            f.referenced = referenced;
            if f.ranges.is_empty() {
                f.ranges = ranges;
            }
            f.model_origin = format!("{} by the rules in {}", m.file, src.name);
            derived.push(f.name.clone());
        }
    }
    check_no_references(node, &src.name)?;
    for c in &mut node.children {
        walk(c, src, measured, derived)?;
    }
    Ok(())
}

/// A reference left anywhere but in a derived fragment's category lines (a variable
/// override, a trip count, `bytes`) is an error: only category models can be derived.
fn check_no_references(node: &Node, file: &str) -> Result<(), PredictError> {
    let mut exprs: Vec<&Expr> = node.p_override.iter().collect();
    exprs.extend(node.var_overrides.iter().map(|(_, e)| e));
    if let NodeKind::Fragment(f) = &node.kind {
        exprs.extend(f.categories.iter().map(|(_, e)| e));
        exprs.extend(f.executions.iter());
        exprs.extend(f.bytes.iter());
    }
    for e in exprs {
        if let Some((frag, cat)) = references(e).first() {
            return Err(err(
                file,
                node.line,
                format!(
                    "`{frag}.{cat}`: a reference to a measured model may stand only in a fragment's category line (`// lcm: CATEGORY = EXPR`), not in an override, a trip count or `bytes`"
                ),
            ));
        }
    }
    Ok(())
}
