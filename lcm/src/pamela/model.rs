//! A parsed model ([`Program`]) and its compiled time model ([`CompiledModel`]).
use std::sync::Arc;

use super::ast::{Decl, DeclKind};
use super::compile::{analyze, omega};
use super::error::{PamelaError, Span};
use super::eval::{Bindings, Code, SlotMap};
use super::expr::{Expr, Func};
use super::normal::{NProc, Normalizer};
use super::simplify::{call, simplify};

/// A parsed PAMELA model: its equations, as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    decls: Vec<Decl>,
}

/// Names tried, in order, for the process whose time is predicted.
const MAIN_NAMES: [&str; 2] = ["main", "L"];

impl Program {
    pub(crate) fn from_decls(decls: Vec<Decl>) -> Program {
        Program { decls }
    }

    /// The equations, in source order.
    pub fn decls(&self) -> &[Decl] {
        &self.decls
    }

    /// Names of the `numeric parameter`s, in source order.
    pub fn parameters(&self) -> Vec<String> {
        self.decls
            .iter()
            .filter(|d| {
                matches!(
                    d.kind,
                    DeclKind::Numeric {
                        parameter: true,
                        ..
                    }
                )
            })
            .map(|d| d.name.clone())
            .collect()
    }

    /// Gives a parameter (or a numeric equation without arguments) the value `value`:
    /// `numeric parameter P` becomes `numeric P = value`, as the compiler paper evaluates
    /// a model by recompiling it without the parameter modifier.
    /// The value must be a finite number.
    pub fn set(&mut self, name: &str, value: f64) -> Result<(), PamelaError> {
        if !value.is_finite() {
            return Err(PamelaError::Eval(format!(
                "`{name}` = {value}: expected a finite number"
            )));
        }
        match self.decls.iter_mut().find(|d| d.name == name) {
            Some(d) if matches!(d.kind, DeclKind::Numeric { .. }) && d.params.is_empty() => {
                d.kind = DeclKind::Numeric {
                    parameter: false,
                    value: Some(Expr::Num(value)),
                };
                Ok(())
            }
            Some(d) => Err(PamelaError::semantic(
                d.span,
                format!("`{name}` is not a numeric without arguments; it cannot be set"),
            )),
            None => Err(PamelaError::UnknownName {
                name: name.to_string(),
                parameters: self.parameters().join(", "),
            }),
        }
    }

    /// The name of the main process (`main`, else `L`).
    pub fn main_name(&self) -> Result<&str, PamelaError> {
        for n in MAIN_NAMES {
            if let Some(d) = self.decls.iter().find(|d| d.name == n) {
                if matches!(d.kind, DeclKind::Process(_)) && d.params.is_empty() {
                    return Ok(n);
                }
            }
        }
        Err(PamelaError::semantic(
            Span { line: 1, col: 1 },
            "the model has no `process main = ...` (the process whose time is predicted)",
        ))
    }

    /// The main process in normal form (all equations substituted).
    pub fn normal_form(&self) -> Result<NProc, PamelaError> {
        let main = self.main_name()?;
        let span = self
            .decls
            .iter()
            .find(|d| d.name == main)
            .map(|d| d.span)
            .unwrap_or_default();
        let mut n = Normalizer::new(&self.decls)?;
        n.process(main, span)
    }

    /// Compiles the main process into its symbolic, simplified time model.
    pub fn compile(&self) -> Result<CompiledModel, PamelaError> {
        let p = self.normal_form()?;
        let a = analyze(&p);
        let om = omega(&a.demands);
        let (phi, t) = if p.has_conditions() {
            let phi = Expr::TimeEquations(Arc::new(p));
            let t = simplify(&call(Func::Max, vec![phi.clone(), om.clone()]));
            (phi, t)
        } else {
            (simplify(&a.phi), simplify(&a.t))
        };
        CompiledModel::new(t, phi, om)
    }
}

/// The compiled time model of a program's main process. All times are in the model's own
/// time unit (whatever unit its `delay`/`use` arguments are in).
#[derive(Clone, Debug)]
pub struct CompiledModel {
    t_main: Expr,
    phi: Expr,
    omega: Expr,
    parameters: Vec<String>,
    code_t: Code,
    code_phi: Code,
    code_omega: Code,
    nslots: usize,
}

impl CompiledModel {
    fn new(t_main: Expr, phi: Expr, omega: Expr) -> Result<CompiledModel, PamelaError> {
        let mut names = t_main.variables();
        names.extend(phi.variables());
        names.extend(omega.variables());
        let parameters: Vec<String> = names.into_iter().collect();
        let mut slots = SlotMap::with_names(&parameters);
        let code_t = slots.compile(&t_main)?;
        let code_phi = slots.compile(&phi)?;
        let code_omega = slots.compile(&omega)?;
        Ok(CompiledModel {
            t_main,
            phi,
            omega,
            parameters,
            code_t,
            code_phi,
            code_omega,
            nslots: slots.len(),
        })
    }

    /// The lower bound on the execution time of `main` (Eq. 3.15), simplified.
    pub fn t_main(&self) -> &Expr {
        &self.t_main
    }
    /// The critical path of `main` (condition synchronization only).
    pub fn phi(&self) -> &Expr {
        &self.phi
    }
    /// The contention bound of `main` over the whole run: max over resources of total
    /// demand / multiplicity.
    pub fn omega(&self) -> &Expr {
        &self.omega
    }
    /// Parameters the model still depends on (sorted).
    pub fn parameters(&self) -> &[String] {
        &self.parameters
    }

    fn slots(&self, b: &Bindings) -> Result<Vec<f64>, PamelaError> {
        let mut s = vec![0.0; self.nslots];
        for (k, n) in self.parameters.iter().enumerate() {
            s[k] = parameter(b, n)?;
        }
        Ok(s)
    }

    /// Evaluates `T_main`; `bindings` gives a value to every parameter (extra names are
    /// ignored).
    pub fn eval(&self, bindings: &Bindings) -> Result<f64, PamelaError> {
        const STACK: usize = 16;
        if self.nslots <= STACK {
            // no allocation on the common path
            let mut s = [0.0f64; STACK];
            for (k, n) in self.parameters.iter().enumerate() {
                s[k] = parameter(bindings, n)?;
            }
            return finite("T_main", self.code_t.eval(&mut s[..self.nslots])?, bindings);
        }
        let mut s = self.slots(bindings)?;
        finite("T_main", self.code_t.eval(&mut s)?, bindings)
    }

    /// Evaluates (`T_main`, `phi`, `omega`).
    pub fn eval_parts(&self, bindings: &Bindings) -> Result<(f64, f64, f64), PamelaError> {
        let mut s = self.slots(bindings)?;
        Ok((
            finite("T_main", self.code_t.eval(&mut s)?, bindings)?,
            finite("phi", self.code_phi.eval(&mut s)?, bindings)?,
            finite("omega", self.code_omega.eval(&mut s)?, bindings)?,
        ))
    }
}

/// The value of parameter `name`, which must be given and finite.
fn parameter(b: &Bindings, name: &str) -> Result<f64, PamelaError> {
    match b.get(name) {
        None => Err(PamelaError::Unbound {
            name: name.to_string(),
        }),
        Some(v) if !v.is_finite() => Err(PamelaError::Eval(format!(
            "`{name}` = {v}: expected a finite number"
        ))),
        Some(v) => Ok(*v),
    }
}

/// `value` of the model's `what` if finite; else an error naming it and the parameters.
fn finite(what: &str, value: f64, b: &Bindings) -> Result<f64, PamelaError> {
    if value.is_finite() {
        return Ok(value);
    }
    let at: Vec<String> = b.iter().map(|(k, v)| format!("{k}={v}")).collect();
    Err(PamelaError::Eval(format!(
        "{what} = {value} at {}: expected a finite number (a division by zero or an \
         overflow in the model)",
        if at.is_empty() {
            "the values given".to_string()
        } else {
            at.join(" ")
        }
    )))
}

impl Expr {
    /// Evaluates the expression; `bindings` gives every free variable (slow path: the
    /// expression is translated at each call; [`CompiledModel::eval`] is the fast one).
    pub fn eval(&self, bindings: &Bindings) -> Result<f64, PamelaError> {
        let names: Vec<String> = self.variables().into_iter().collect();
        let mut slots = SlotMap::with_names(&names);
        let code = slots.compile(self)?;
        let mut s = vec![0.0; slots.len()];
        for (k, n) in names.iter().enumerate() {
            s[k] = *bindings
                .get(n)
                .ok_or_else(|| PamelaError::Unbound { name: n.clone() })?;
        }
        code.eval(&mut s)
    }

    /// The simplified form of the expression.
    pub fn simplified(&self) -> Expr {
        simplify(self)
    }
}
