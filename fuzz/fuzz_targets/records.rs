//! lca's profile-record reader (`lca -f DATAFILE`): any text gives records or an error
//! naming the line, never a panic; a record prints back to text that reads as itself.
#![no_main]

mod tools_common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = tools_common::text(data);
    match lca::record::parse_records(&text) {
        Err(e) => tools_common::check_message(&e.to_string(), text.len()),
        Ok(records) => {
            for r in &records {
                let again = lca::record::parse_records(&r.to_string()).expect("reads back");
                assert_eq!(again[0].fields(), r.fields());
                for c in r.categories() {
                    if let Err(e) = r.category(c) {
                        tools_common::check_message(&e.to_string(), text.len());
                    }
                }
                let _ = r.category("time");
            }
        }
    }
});
