//! Raw bytes into `pplib::log::LogReader::from_bytes` (binary or text, by content) and the
//! pp engine.
#![no_main]

mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check(data);
});
