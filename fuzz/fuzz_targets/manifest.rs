//! libFuzzer entry point for [`ckb_fuzz::manifest`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ckb_fuzz::manifest(data));
