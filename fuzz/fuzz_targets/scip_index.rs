//! libFuzzer entry point for [`ckb_fuzz::scip_index`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ckb_fuzz::scip_index(data));
