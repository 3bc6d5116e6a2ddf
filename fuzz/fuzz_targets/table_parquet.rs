//! libFuzzer entry point for [`ckb_fuzz::table_parquet`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ckb_fuzz::table_parquet(data));
