//! libFuzzer entry point for [`ckb_fuzz::snapshot`].
#![no_main]

libfuzzer_sys::fuzz_target!(init: ckb_fuzz::contain_decoder_panics(), |data: &[u8]| ckb_fuzz::snapshot(data));
