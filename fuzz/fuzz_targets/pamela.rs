//! PAMELA models (`lcm pamela`, `lcm simulate`): parse, compile, evaluate and simulate
//! with small budgets. Any text gives an error naming where, or a model; never a panic,
//! a stack overflow or unbounded memory. Finite results only.
#![no_main]

mod tools_common;

use lcm::pamela::{self, Bindings, SimOptions};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = tools_common::text(data);
    tools_common::on_big_stack(move || {
        let program = match pamela::parse(&text) {
            Ok(p) => p,
            Err(e) => return tools_common::check_message(&e.to_string(), text.len()),
        };
        let at: Bindings = program.parameters().into_iter().map(|p| (p, 3.0)).collect();
        match program.compile() {
            Err(e) => tools_common::check_message(&e.to_string(), text.len()),
            Ok(model) => match model.eval_parts(&at) {
                Ok((t, phi, omega)) => {
                    assert!(t.is_finite() && phi.is_finite() && omega.is_finite());
                }
                Err(e) => tools_common::check_message(&e.to_string(), text.len()),
            },
        }
        let options = SimOptions { runs: 1, seed: 1 };
        match pamela::simulate_limited(&program, &at, &options, 20_000) {
            Ok(r) => assert!(!r.mean.is_nan()),
            Err(e) => tools_common::check_message(&e.to_string(), text.len()),
        }
    });
});
