//! The file-backed log reader (`LogReader::open`: sniffing the content, binary chunks read
//! from the file on demand) on any bytes, held to the in-memory reader, then the default
//! engine held to the reference.
#![no_main]

mod pp_paths;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pp_paths::file_reader_agrees(data);
});
