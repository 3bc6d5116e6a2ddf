//! libFuzzer entry point for [`ckb_fuzz::config`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ckb_fuzz::config(data));
