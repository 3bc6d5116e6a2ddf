//! libFuzzer entry point for [`ckb_fuzz::scan_cache`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ckb_fuzz::scan_cache(data));
