//! Annotated Rust sources (`lcm tree`, `lcm predict`): nesting check, syn, the recognizer,
//! composition into PAMELA and a prediction at one point (full and brief, which must agree). Any text gives an error naming
//! where, or a prediction; never a panic, a stack overflow or unbounded memory.
#![no_main]

mod tools_common;

use lcm::predict::{PredictOptions, Program};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = tools_common::text(data);
    tools_common::on_big_stack(move || {
        let opts = PredictOptions::default();
        let program = match Program::from_source("fuzz.rs", &text, &opts) {
            Ok(p) => p,
            Err(e) => return tools_common::check_message(&e.to_string(), text.len()),
        };
        let _ = program.tree_text();
        let at: lca::expr::Bindings = program.parameters().into_iter().map(|p| (p, 4.0)).collect();
        // The grid's per-point evaluation gives the same time or the same error.
        match (program.predict(&at), program.predict_brief(&at)) {
            (Ok(p), Ok(b)) => {
                assert!(!p.seconds.is_nan());
                assert_eq!(p.seconds.to_bits(), b.seconds.to_bits());
                assert_eq!(p.accounting.range_warnings, b.range_warnings);
            }
            (Err(e), Err(f)) => {
                assert_eq!(e.to_string(), f.to_string());
                tools_common::check_message(&e.to_string(), text.len());
            }
            (p, b) => panic!("predict {p:?} but predict_brief {b:?}"),
        }
    });
});
