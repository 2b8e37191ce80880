//! The functions a fragment's code calls that hold parallel constructs: the constructs
//! `// lcm: overheads = machine` does not price (only those written in the fragment's own
//! code are), named in a warning when nothing else is there to price.
use super::syntax::{path_last, FragmentScan};
use super::Recognizer;
use crate::predict::tree::{Fragment, InnerCosts};
use std::collections::HashSet;
use syn::visit::Visit;

/// The names of the functions called in the code visited, first seen first.
#[derive(Default)]
struct Calls {
    names: Vec<String>,
}

impl Calls {
    fn push(&mut self, name: String) {
        if !self.names.contains(&name) {
            self.names.push(name);
        }
    }
}

impl<'ast> Visit<'ast> for Calls {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Some((_, last)) = path_last(&c.func) {
            self.push(last);
        }
        syn::visit::visit_expr_call(self, c);
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        self.push(m.method.to_string());
        syn::visit::visit_expr_method_call(self, m);
    }
}

impl Recognizer<'_> {
    /// Whether function `name` of this file, or one it calls (transitively), holds a
    /// parallel construct; `seen` stops recursion.
    fn holds_parallelism(&self, name: &str, seen: &mut HashSet<String>) -> bool {
        if !seen.insert(name.to_string()) {
            return false;
        }
        let Some(body) = self.fns.get(name).copied() else {
            return false;
        };
        let mut scan = FragmentScan::default();
        scan.visit_block(body);
        if !scan.parallel.is_empty() {
            return true;
        }
        let mut calls = Calls::default();
        calls.visit_block(body);
        calls.names.iter().any(|c| self.holds_parallelism(c, seen))
    }

    /// The functions of this file that `stmts` call whose code (or the code they call)
    /// holds a parallel construct.
    fn callees_with_parallelism(&self, stmts: &[&syn::Stmt]) -> Vec<String> {
        let mut calls = Calls::default();
        for s in stmts {
            calls.visit_stmt(s);
        }
        calls
            .names
            .into_iter()
            .filter(|c| self.holds_parallelism(c, &mut HashSet::new()))
            .collect()
    }

    /// Warns when fragment `frag` (at `line`, its code `stmts`) says `overheads = machine`
    /// but its own code holds no parallel construct to price: naming the functions it
    /// calls that hold some (their costs are not priced), or saying that nothing is there.
    pub(super) fn check_machine_overheads(
        &mut self,
        frag: &Fragment,
        line: usize,
        stmts: &[&syn::Stmt],
    ) {
        if frag.inside.overheads != Some(InnerCosts::Machine) || !frag.inside.constructs.is_empty()
        {
            return;
        }
        let callees = self.callees_with_parallelism(stmts);
        let name = &frag.name;
        let message = if callees.is_empty() {
            format!(
                "fragment `{name}`: `overheads = machine`, but neither its code nor the functions it calls hold a parallel construct: nothing is priced"
            )
        } else {
            let called: Vec<String> = callees.iter().map(|c| format!("`{c}`")).collect();
            format!(
                "fragment `{name}`: `overheads = machine`, but its own code holds no parallel construct: nothing is priced; the constructs in the functions it calls ({}) are not (only those written in the fragment's code are): write their cost into a rule, e.g. `pc = {name}.pc + JOINS*join_s` for the joins of a recursion, `+ TASKS*task_s` for tasks spawned in a scope (docs/models.md, \"Recursive parallelism\")",
                called.join(", ")
            )
        };
        self.warn(line, message);
    }
}
