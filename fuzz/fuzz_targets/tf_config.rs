//! Arbitrary sparse cluster maps to TF_CONFIG; see elasticjob_fuzz::tf_config for what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| elasticjob_fuzz::tf_config::run(data));
