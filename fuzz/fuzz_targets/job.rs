//! Any bytes as an ElasticJob (and, split at the first NUL, a ScalePlan): reading, validating,
//! rendering, planning and TF_CONFIG must return a value or an error, never panic.
#![no_main]

use elasticjob::{Options, ReplicaType, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (job, plan) = match data.iter().position(|b| *b == 0) {
        Some(at) => data.split_at(at),
        None => (data, &[][..]),
    };
    let Ok(job) = std::str::from_utf8(job) else { return };
    let Ok((job, _)) = parse::from_json::<elasticjob::ElasticJob>(job) else { return };
    let plan = std::str::from_utf8(plan.get(1..).unwrap_or_default())
        .ok()
        .and_then(|p| parse::from_json::<elasticjob::ScalePlan>(p).ok())
        .map(|(p, _)| p);
    let options = Options::default();
    let _ = elasticjob::render(&job, plan.as_ref(), &options);
    if let Ok(now) = parse::time("2026-01-01T00:00:00Z") {
        let _ = elasticjob::reconcile(&job, plan.as_ref(), &[], &now, &options);
    }
    for t in ReplicaType::ALL {
        let _ = elasticjob::tf_config(&job, t, 0, plan.as_ref());
    }
});
