//! libFuzzer entry point for [`ckb_fuzz::sql_guard::sql_guard`] (feature `sql`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ckb_fuzz::sql_guard::sql_guard(data));
