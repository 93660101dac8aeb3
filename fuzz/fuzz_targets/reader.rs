//! The core's reader with arbitrary JSON against every input type; see elasticjob_fuzz::reader.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| elasticjob_fuzz::reader::run(data));
