//! A valid job, arbitrary observed pods and scale plan through every controller operation; see
//! elasticjob_fuzz::reconcile for what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| elasticjob_fuzz::reconcile::run(data));
