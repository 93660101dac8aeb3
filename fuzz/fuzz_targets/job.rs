//! Any bytes as an ElasticJob (and, after the first NUL, a ScalePlan): read, validated, rendered,
//! planned, every TF_CONFIG asked for; see elasticjob_fuzz::job for what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| elasticjob_fuzz::job::run(data));
