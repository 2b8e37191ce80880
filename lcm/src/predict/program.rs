//! The library entry point: an annotated program, read, recognized, composed and compiled
//! once, then predicted at any number of points.

use super::account::{account, totals, Accounting, Shape};
use super::compose::{ComposeOptions, ComposedModel, Composer};
use super::datatrace::{adjustments, moves, Move};
use super::derive;
use super::error::{PredictError, Warning};
use super::machine::Machine;
use super::recognize::Recognizer;
use super::source::SourceFile;
use super::tree::{render, Node, NodeKind};
use crate::pamela;
use lca::expr::{Bindings, Expr};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How to read and price a program.
#[derive(Debug, Clone)]
pub struct PredictOptions {
    /// The function the program starts in (default `main`).
    pub entry: String,
    /// A models file (`lca --emit annotation` output): its fragments' models replace those
    /// written in the source.
    pub models: Option<PathBuf>,
    /// A machine file (`lcm calibrate`); None: [`Machine::default`].
    pub machine: Option<PathBuf>,
    /// The source of the version that was measured (the models were fitted on it): data
    /// movement it already had is not counted again.
    pub measured: Option<PathBuf>,
}

impl Default for PredictOptions {
    fn default() -> Self {
        PredictOptions {
            entry: "main".into(),
            models: None,
            machine: None,
            measured: None,
        }
    }
}

/// A program ready to predict.
#[derive(Debug)]
pub struct Program {
    /// The file name used in messages.
    pub file: String,
    /// The recognized structure (models merged in).
    pub root: Node,
    /// What was seen but not modeled, with places.
    pub warnings: Vec<Warning>,
    /// The communication prices used.
    pub machine: Machine,
    /// Data moves priced as new in this version.
    pub moves_added: Vec<Move>,
    /// Data moves of the measured version that no longer happen (their cost is subtracted).
    pub moves_removed: Vec<Move>,
    /// The composed PAMELA model (everything included).
    pub model: ComposedModel,
    comm: Vec<Option<Expr>>,
    shape: Shape,
    compiled: pamela::CompiledModel,
    compiled_plain: pamela::CompiledModel,
}

/// Seconds that each part adds to the predicted time; they sum to `total_s`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Contributions {
    /// Per fragment name: its work over the run divided by p (processor-seconds / p).
    pub fragments: Vec<(String, f64)>,
    /// Structural load imbalance LI+ / p.
    pub load_imbalance_s: f64,
    /// Pipeline fill, drain and stage imbalance (stages waiting) / p.
    pub pipeline_s: f64,
    /// Processors left idle by `p` overrides or too few data-parallel items / p.
    pub idle_s: f64,
    /// Data-trace communication (processor-seconds / p; negative when moves were removed).
    pub communication_s: f64,
    /// Condition synchronization waits beyond the structure (send/recv, barrier phases).
    pub synchronization_s: f64,
    /// Contention for processors, the memory system and locks (omega beyond phi).
    pub contention_s: f64,
    /// The predicted time.
    pub total_s: f64,
}

/// A prediction at one point without the per-instance breakdown
/// ([`Program::predict_brief`]).
#[derive(Debug, Clone, Serialize)]
pub struct Brief {
    /// The point.
    pub bindings: Bindings,
    /// Predicted run time in seconds (the compiled PAMELA model's T_main).
    pub seconds: f64,
    /// What each part adds.
    pub contributions: Contributions,
    /// Fragments evaluated beyond 2x their measured range (as in [`Accounting`]).
    pub range_warnings: Vec<lca::range::RangeWarning>,
    /// Models that evaluate negative at this point (as in [`Accounting`]).
    pub negative_models: Vec<super::negative::NegativeModel>,
    /// Fragments with fewer items than processors and too little `li` (as in
    /// [`Accounting`]).
    pub few_items: Vec<super::few_items::FewItems>,
    /// The relative error the models add at this point beyond their measured ranges: for
    /// each fragment whose range line carries an error growth (`lca` measured it, docs/
    /// models.md "How far a model extrapolates"), growth times the doublings the point lies
    /// beyond, weighed by the fragment's share of the predicted processor time; 0 inside
    /// every range or where no growth is known. `lcm compare` widens its tie band by it.
    pub extrapolation_error: f64,
}

/// A prediction at one point.
#[derive(Debug, Clone, Serialize)]
pub struct Prediction {
    /// The point.
    pub bindings: Bindings,
    /// Predicted run time in seconds (the compiled PAMELA model's T_main).
    pub seconds: f64,
    /// What each part adds.
    pub contributions: Contributions,
    /// The detailed breakdown.
    pub accounting: Accounting,
}

fn read(path: &Path) -> Result<String, PredictError> {
    crate::read_input(path).map_err(|e| PredictError::Io {
        path: path.display().to_string(),
        source: e,
    })
}

/// Reads and recognizes a source text: the structure tree and warnings (models from
/// `models` merged in, named `models_origin`).
pub fn structure(
    name: &str,
    text: &str,
    entry: &str,
    models: Option<(&str, &str)>,
) -> Result<(Node, Vec<Warning>), PredictError> {
    let src = SourceFile::parse(name, text)?;
    let mut r = Recognizer::new(&src);
    let mut root = r.program(entry)?;
    let mut warnings = r.warnings;
    let Some((mname, mtext)) = models else {
        derive::apply(&mut root, &src, None)?;
        return Ok((root, warnings));
    };
    let fm = lca::annotation::parse_models(mtext).map_err(|e| PredictError::Annotation {
        file: mname.to_string(),
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let measured = derive::Measured {
        file: mname,
        fragments: &fm,
    };
    let derived = derive::apply(&mut root, &src, Some(&measured))?;
    let map: BTreeMap<String, FileModels> = fm
        .iter()
        .filter(|m| !derived.contains(&m.name))
        .map(|m| (m.name.clone(), (m.categories.clone(), m.ranges.clone())))
        .collect();
    merge_models(&mut root, &map, mname, name, &mut warnings);
    Ok((root, warnings))
}

/// A models file's fragment: its category models and measured ranges.
type FileModels = (Vec<(String, Expr)>, Vec<lca::range::VarRange>);

fn merge_models(
    n: &mut Node,
    map: &BTreeMap<String, FileModels>,
    origin: &str,
    file: &str,
    warnings: &mut Vec<Warning>,
) {
    let line = n.line;
    if let NodeKind::Fragment(f) = &mut n.kind {
        if let Some((cats, ranges)) = map.get(&f.name) {
            if !f.categories.is_empty() && f.categories != *cats {
                let w = Warning {
                    file: file.to_string(),
                    line,
                    message: format!(
                        "fragment `{}`: models from {origin} replace the ones in the source",
                        f.name
                    ),
                };
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
            f.categories = cats.clone();
            f.ranges = ranges.clone();
            f.model_origin = origin.to_string();
        }
    }
    for c in &mut n.children {
        merge_models(c, map, origin, file, warnings);
    }
}

fn compile(model: &ComposedModel) -> Result<pamela::CompiledModel, PredictError> {
    Ok(model.program.compile()?)
}

/// The composed PAMELA model of a program without compiling it (what `--pamela` prints;
/// useful when the engine rejects a model).
pub fn compose_file(path: &Path, opts: &PredictOptions) -> Result<ComposedModel, PredictError> {
    let text = read(path)?;
    let name = path.display().to_string();
    let (root, _, machine, measured) = prepare(&name, &text, opts)?;
    let (comm, _, _) = adjustments(&root, &machine, measured.as_deref());
    Ok(Composer::new(&name, ComposeOptions::default(), &comm)
        .compose(&root)?
        .0)
}

type Prepared = (Node, Vec<Warning>, Machine, Option<Vec<Move>>);

fn prepare(name: &str, text: &str, opts: &PredictOptions) -> Result<Prepared, PredictError> {
    let models_text = match &opts.models {
        Some(p) => Some((p.display().to_string(), read(p)?)),
        None => None,
    };
    let models = models_text.as_ref().map(|(n, t)| (n.as_str(), t.as_str()));
    let (root, warnings) = structure(name, text, &opts.entry, models)?;
    let machine = match &opts.machine {
        Some(p) => Machine::load(p)?,
        None => Machine::default(),
    };
    let root = match &machine.costs {
        Some(costs) => {
            super::handoff::apply(super::overheads::apply(root, &machine.origin, costs), costs)
        }
        None => root,
    };
    let measured = match &opts.measured {
        Some(p) => {
            let t = read(p)?;
            // With the same models file: its derived fragments resolve like this one's.
            let (mroot, _) = structure(&p.display().to_string(), &t, &opts.entry, models)?;
            Some(moves(&mroot))
        }
        None => None,
    };
    Ok((root, warnings, machine, measured))
}

impl Program {
    /// Reads `path` (and the option files) and prepares it.
    pub fn load(path: &Path, opts: &PredictOptions) -> Result<Program, PredictError> {
        let text = read(path)?;
        Program::from_source(&path.display().to_string(), &text, opts)
    }

    /// Prepares a program from its text (`name` used in messages; option files are read
    /// from disk).
    pub fn from_source(
        name: &str,
        text: &str,
        opts: &PredictOptions,
    ) -> Result<Program, PredictError> {
        let (root, warnings, machine, measured) = prepare(name, text, opts)?;
        Program::build(name, root, warnings, machine, measured.as_deref())
    }

    /// Prepares an already recognized tree.
    pub fn build(
        name: &str,
        mut root: Node,
        mut warnings: Vec<Warning>,
        machine: Machine,
        measured: Option<&[Move]>,
    ) -> Result<Program, PredictError> {
        let families = super::machine::indexed::KeyFamilies::of(&machine.bindings());
        expand_indexed_keys(&mut root, &families);
        let (comm, moves_added, moves_removed) = adjustments(&root, &machine, measured);
        let (model, w) = Composer::new(name, ComposeOptions::default(), &comm).compose(&root)?;
        for x in w {
            if !warnings.contains(&x) {
                warnings.push(x);
            }
        }
        let plain_opts = ComposeOptions {
            resources: false,
            ..ComposeOptions::default()
        };
        let (plain, _) = Composer::new(name, plain_opts, &comm).compose(&root)?;
        let compiled = compile(&model)?;
        let compiled_plain = compile(&plain)?;
        let shape = Shape::of(&root, &comm);
        Ok(Program {
            file: name.to_string(),
            root,
            warnings,
            machine,
            moves_added,
            moves_removed,
            model,
            comm,
            shape,
            compiled,
            compiled_plain,
        })
    }

    /// The structure tree as `lcm tree` prints it.
    pub fn tree_text(&self) -> String {
        render(&self.root, &self.file)
    }

    /// The models of each fragment as the prediction uses them (models file merged in,
    /// restructuring rules resolved; see [`super::derive`]), once per name in program order.
    pub fn fragment_models(&self) -> Vec<lca::annotation::FragmentModel> {
        fn walk(n: &Node, out: &mut Vec<lca::annotation::FragmentModel>) {
            if let NodeKind::Fragment(f) = &n.kind {
                if !out.iter().any(|m| m.name == f.name) {
                    out.push(lca::annotation::FragmentModel {
                        name: f.name.clone(),
                        categories: f.categories.clone(),
                        ranges: f.ranges.clone(),
                    });
                }
            }
            for c in &n.children {
                walk(c, out);
            }
        }
        let mut out = Vec::new();
        walk(&self.root, &mut out);
        out
    }

    /// The variables a prediction needs values for.
    pub fn parameters(&self) -> Vec<String> {
        self.model.parameters.iter().cloned().collect()
    }

    /// The machine file's keys and the user's values (which win), checked to bind every
    /// parameter of the model.
    fn bindings(&self, user: &Bindings) -> Result<Bindings, PredictError> {
        let mut bindings = self.machine.bindings();
        bindings.extend(user.iter().map(|(k, v)| (k.clone(), *v)));
        for p in &self.model.parameters {
            if !bindings.contains_key(p) {
                return Err(PredictError::Unbound {
                    name: p.clone(),
                    needed_by: self.unbound_needed_by(p),
                });
            }
        }
        Ok(bindings)
    }

    /// Who needs the unbound variable `name`, and for a machine key where it comes from.
    fn unbound_needed_by(&self, name: &str) -> String {
        let model = match first_use(&self.root, name) {
            Some(what) => format!("{what} in {}", self.file),
            None => format!("the model of {}", self.file),
        };
        if !Machine::knows_key(name) {
            return model;
        }
        if self.machine.values.is_empty() {
            format!("{model}; a key of the machine file, and no --machine was given: `lcm calibrate -o FILE` writes one")
        } else {
            format!(
                "{model}; a key of the machine file, which {} does not hold: `lcm calibrate -o FILE` of this version writes it",
                self.machine.origin
            )
        }
    }

    /// Predicts the run time at `user`'s values without the per-instance breakdown: the
    /// same time, contributions (up to rounding) and range warnings as [`Program::predict`],
    /// in work proportional to the program's distinct subtrees rather than to its fragment
    /// instances (a function called from many places is evaluated once per point and
    /// environment). For grids and comparisons.
    pub fn predict_brief(&self, user: &Bindings) -> Result<Brief, PredictError> {
        let bindings = &self.bindings(user)?;
        let p = super::account::ev(&Expr::Var("p".into()), bindings, "the machine's processors")?;
        let (tot, critical_path_s) =
            totals(&self.root, &self.shape, &self.file, &self.comm, bindings)?;
        let total = self.compiled.eval(bindings)?;
        let plain = self.compiled_plain.eval(bindings)?;
        let contributions = Contributions {
            fragments: tot.work.iter().map(|(n, w)| (n.clone(), w / p)).collect(),
            load_imbalance_s: tot.li_plus / p,
            pipeline_s: tot.waiting / p,
            idle_s: tot.idle / p,
            communication_s: tot.comm / p,
            synchronization_s: tidy(plain - critical_path_s, total),
            contention_s: tidy(total - plain, total),
            total_s: total,
        };
        let extrapolation_error = tot.extrapolation_error(total * p);
        Ok(Brief {
            bindings: user.clone(),
            seconds: total,
            contributions,
            extrapolation_error,
            range_warnings: tot.range_warnings,
            negative_models: tot.negative_models,
            few_items: tot.few_items,
        })
    }

    /// Predicts the run time at `bindings` (seconds), with the breakdown of every fragment
    /// instance.
    pub fn predict(&self, user: &Bindings) -> Result<Prediction, PredictError> {
        let bindings = &self.bindings(user)?;
        let acc = account(&self.root, &self.file, &self.comm, bindings)?;
        let total = self.compiled.eval(bindings)?;
        let plain = self.compiled_plain.eval(bindings)?;
        let p = acc.p;
        let mut by_name: Vec<(String, f64)> = Vec::new();
        let mut comm = 0.0;
        for f in &acc.fragments {
            let share = f.executions * f.work / p;
            comm += f.executions * f.comm_s * f.procs / p;
            match by_name.iter_mut().find(|(n, _)| *n == f.name) {
                Some((_, v)) => *v += share,
                None => by_name.push((f.name.clone(), share)),
            }
        }
        let contributions = Contributions {
            fragments: by_name,
            load_imbalance_s: acc.parallels.iter().map(|x| x.li_plus).sum::<f64>() / p,
            pipeline_s: acc.pipelines.iter().map(|x| x.waiting).sum::<f64>() / p,
            idle_s: acc.idle / p,
            communication_s: comm,
            synchronization_s: tidy(plain - acc.critical_path_s, total),
            contention_s: tidy(total - plain, total),
            total_s: total,
        };
        Ok(Prediction {
            bindings: user.clone(),
            seconds: total,
            contributions,
            accounting: acc,
        })
    }
}

/// What first uses variable `name` in the tree below `node`, in words: a loop's trip
/// count, a parallel construct's item or copy count, an override, a fragment's models.
fn first_use(node: &Node, name: &str) -> Option<String> {
    let uses = |e: &Expr| e.variables().contains(name);
    let at = node.line;
    if node.p_override.as_ref().is_some_and(uses) {
        return Some(format!("the `p =` override at line {at}"));
    }
    if let Some((v, _)) = node.var_overrides.iter().find(|(_, e)| uses(e)) {
        return Some(format!("the `{v} =` override at line {at}"));
    }
    let found = match &node.kind {
        NodeKind::Loop { count, .. } if uses(count) => {
            Some(format!("the trip count of the loop at line {at}"))
        }
        NodeKind::DataParallel { count, .. } if uses(count) => Some(format!(
            "the item count of the parallel iterator at line {at}"
        )),
        NodeKind::ParallelLoop { count, .. } if uses(count) => {
            Some(format!("the spawn count at line {at}"))
        }
        NodeKind::Fragment(f)
            if f.categories.iter().any(|(_, e)| uses(e))
                || f.executions.as_ref().is_some_and(uses) =>
        {
            Some(format!("the models of fragment `{}` (line {at})", f.name))
        }
        _ => None,
    };
    found.or_else(|| node.children.iter().find_map(|c| first_use(c, name)))
}

impl Program {
    /// One line per machine key the program's models or structure use that the machine
    /// file lacks and [`super::machine::Machine::stand_ins`] binds from another key: which
    /// key, what needs it, what stands in and its value. A prediction that rests on a
    /// stand-in should say so (a calibration that dropped a key on a busy machine).
    pub fn machine_stand_in_notes(&self) -> Vec<String> {
        self.machine
            .stand_ins()
            .into_iter()
            .filter_map(|(key, by, v)| {
                let user = first_use(&self.root, &key)?;
                Some(format!(
                    "{key} (needed by {user}) is not in {}: {by} = {} s stands in (docs/machine.md)",
                    self.machine.origin,
                    lca::expr::format_number(v)
                ))
            })
            .collect()
    }
}

/// Rounding noise of a difference of two times (relative 1e-9 of the total) is 0.
fn tidy(v: f64, total: f64) -> f64 {
    if v.abs() <= 1e-9 * total.abs() {
        0.0
    } else {
        v
    }
}

/// Predicts the run time in seconds of the program in `path` at `bindings` (which must give
/// `p` and every variable of the models, e.g. `n`).
pub fn predict_file(
    path: &Path,
    bindings: &Bindings,
    opts: &PredictOptions,
) -> Result<f64, PredictError> {
    Ok(Program::load(path, opts)?.predict(bindings)?.seconds)
}

/// Replaces, in every fragment's category models under `node`, the machine keys indexed by
/// a variable (`mem_slowdown_kboth`: [`super::machine::indexed`]) by their interpolation.
fn expand_indexed_keys(node: &mut Node, families: &super::machine::indexed::KeyFamilies) {
    if let NodeKind::Fragment(f) = &mut node.kind {
        for (_, e) in &mut f.categories {
            *e = families.expand(e);
        }
    }
    for c in &mut node.children {
        expand_indexed_keys(c, families);
    }
}
