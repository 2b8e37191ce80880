//! Text traces: the bytes follow a valid `.pptrace` header, so the fuzzer spends its time
//! on event lines (and the pp engine's stack matching) rather than on finding the header.
#![no_main]

mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut bytes = b"pptrace 1\nprocessors 3\n".to_vec();
    bytes.extend_from_slice(data);
    common::check(&bytes);
});
