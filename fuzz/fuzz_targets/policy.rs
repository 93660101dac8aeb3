//! The admission policy's `validate` with arbitrary payloads; see elasticjob_fuzz::policy for what
//! is checked. Here the payload also goes through the policy's own waPC function, called natively:
//! its Kubewarden answer must say what the verdict says.
#![no_main]

use serde_json::Value;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((payload, verdict)) = elasticjob_fuzz::policy::run(data) else { return };
    let answer = match elasticjob_policy::validate(&payload) {
        Ok(answer) => answer,
        Err(e) => panic!("the policy's validate failed: {e}"),
    };
    let answer: Value = match serde_json::from_slice(&answer) {
        Ok(answer) => answer,
        Err(e) => panic!("the policy answered with something that is not JSON: {e}"),
    };
    assert_eq!(answer["accepted"].as_bool(), Some(verdict.is_accepted()), "{answer}");
    assert_eq!(answer["message"].as_str().map(str::to_owned), verdict.message(), "{answer}");
    assert_eq!(answer["code"].as_u64(), verdict.code().map(u64::from), "{answer}");
});
