//! The file-backed log reader (`LogReader::open`: sniffing the content, binary chunks read
//! from the file on demand, text traces read from the file a line at a time and parsed by
//! one pass shared by the streams) on any bytes, held to the in-memory reader, then the
//! default engine held to the reference. Inputs that start like neither form get a text
//! trace header prepended half of the time, so that the fuzzer reaches the event lines.
#![no_main]

mod pp_paths;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let known = data.starts_with(b"PPLOG") || data.starts_with(b"pptrace");
    if !known && data.first().is_some_and(|b| b % 2 == 1) {
        let mut bytes = b"pptrace 1\nprocessors 3\n".to_vec();
        bytes.extend_from_slice(&data[1..]);
        pp_paths::file_reader_agrees(&bytes);
    } else {
        pp_paths::file_reader_agrees(data);
    }
});
