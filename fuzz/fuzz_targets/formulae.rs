//! The section-5 expression parser (lca formulae, fitted models, `// lcm:` right-hand
//! sides), one line: an error with a column inside the text, or a tree that prints back to text
//! parsing to the same tree and evaluates without panicking.
#![no_main]

mod tools_common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // One line, as every caller gives it (a forms-file line, an annotation line, an
    // argument): a newline inside would be quoted by the error as any other character.
    let full = tools_common::text(data);
    let text = full.lines().next().unwrap_or("").to_string();
    tools_common::on_big_stack(move || match lca::expr::parse(&text) {
        Err(e) => {
            assert!(e.column <= text.chars().count() + 1, "{e}");
            tools_common::check_message(&e.to_string(), text.len());
        }
        Ok(e) => {
            let printed = e.to_string();
            let back = lca::expr::parse(&printed).expect("printed text parses");
            assert_eq!(back.to_string(), printed);
            let mut b = lca::expr::Bindings::new();
            for v in e.variables() {
                b.insert(v, 3.0);
            }
            let _ = e.eval(&b);
            let _ = e.additive_terms();
        }
    });
});
