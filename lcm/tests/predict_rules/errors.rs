//! Bad input: malformed annotations, missing models and variables, zero processors.

use super::*;

#[test]
fn malformed_annotation_is_an_error_naming_the_line() {
    let src = "fn main() {\n    // lcm: fragment a\n    // lcm: rt = 2*(n\n    a();\n}\n";
    match Program::from_source("bad.rs", src, &PredictOptions::default()) {
        Err(e @ PredictError::Annotation { line: 3, .. }) => {
            assert!(e.to_string().starts_with("bad.rs:3:"), "{e}")
        }
        other => panic!("expected an annotation error at line 3, got {other:?}"),
    }
    let orphan = "fn main() {\n    // lcm: rt = 2\n    a();\n}\n";
    match Program::from_source("orphan.rs", orphan, &PredictOptions::default()) {
        Err(PredictError::Annotation {
            line: 2, message, ..
        }) => {
            assert!(message.contains("fragment"), "{message}")
        }
        other => panic!("expected an error at line 2, got {other:?}"),
    }
}

#[test]
fn fragment_without_model_is_an_error() {
    let src = "fn main() {\n    // lcm: fragment a\n    a();\n}\n";
    match Program::from_source("nomodel.rs", src, &PredictOptions::default()) {
        Err(PredictError::Structure {
            line: 3, message, ..
        }) => {
            assert!(message.contains("no model"), "{message}")
        }
        other => panic!("expected a structure error, got {other:?}"),
    }
}

#[test]
fn missing_variable_is_reported() {
    let prog = program(PIPE);
    match prog.predict(&at(&[("p", 2.0), ("A", 1.0)])) {
        Err(PredictError::Unbound { name, .. }) => assert_eq!(name, "B"),
        other => panic!("expected unbound B, got {other:?}"),
    }
}

#[test]
fn zero_processors_is_an_error_naming_the_fragment() {
    let src = JOIN.replacen(
        "        || {\n            // lcm: fragment big",
        "        // lcm: p = floor(p/2)\n        || {\n            // lcm: fragment big",
        1,
    );
    match program(&src).predict(&at(&[("p", 1.0)])) {
        Err(e @ PredictError::Eval { .. }) => {
            assert!(e.to_string().contains("fragment `big`"), "{e}")
        }
        other => panic!("expected an error for p_f = 0, got {other:?}"),
    }
}
