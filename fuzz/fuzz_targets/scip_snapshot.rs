//! libFuzzer entry point for [`ckb_fuzz::scip_snapshot`].
#![no_main]

libfuzzer_sys::fuzz_target!(init: ckb_fuzz::contain_decoder_panics(), |data: &[u8]| ckb_fuzz::scip_snapshot(data));
