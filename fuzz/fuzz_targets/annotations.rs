//! `// lcm:` annotation lines and models files (`lca --emit annotation` output, read by
//! `lcm --models`): an error naming line and column, or models whose printed form reads
//! back to the same models.
#![no_main]

mod tools_common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = tools_common::text(data);
    tools_common::on_big_stack(move || {
        for line in text.lines() {
            if let Err(e) = lca::annotation::parse_line(line) {
                tools_common::check_message(&e.to_string(), line.len());
            }
        }
        match lca::annotation::parse_models(&text) {
            Err(e) => tools_common::check_message(&e.to_string(), text.len()),
            Ok(models) => {
                let printed: String = models.iter().map(|m| m.to_string()).collect();
                let back = lca::annotation::parse_models(&printed).expect("printed models read");
                assert_eq!(back.len(), models.len());
            }
        }
    });
});
