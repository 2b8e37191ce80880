//! The default fast pp engine with its threaded pipeline (what `pp run.pplog` runs) on any
//! bytes, held to the reference engine: the same profiles, tables, JSON and warnings, or
//! the same error. Text traces get a valid header prepended when the input has none, so
//! that the fuzzer spends its time on events.
#![no_main]

#[allow(dead_code)]
mod pp_paths;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let bytes = if data.starts_with(b"PPLOG") || data.starts_with(b"pptrace") {
        data.to_vec()
    } else {
        let mut b = b"pptrace 1\nprocessors 3\n".to_vec();
        b.extend_from_slice(data);
        b
    };
    if let Ok(reader) = pplib::log::LogReader::from_bytes(bytes.clone(), "fuzz.pplog") {
        pp_paths::engines_agree(&reader, &bytes);
    }
});
