//! libFuzzer entry point for [`ckb_fuzz::table_cache`].
#![no_main]

libfuzzer_sys::fuzz_target!(init: ckb_fuzz::contain_decoder_panics(), |data: &[u8]| ckb_fuzz::table_cache(data));
