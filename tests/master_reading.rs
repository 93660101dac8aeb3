//! One reading of a job, DLRover's master's: the core's first plan (`initial_scale_plan`) of each
//! job of `tests/fixtures/master-reading/` (absent replicas per type, no chief, an evaluator, GPU
//! in limits only, two containers, no requests, ...) is the first ScalePlan DLRover 0.6.1's master
//! writes for it, as `tests/fixtures/master-reading.plans.json` holds it: each type's replicas and
//! resource, the same bytes, and the same PS services. A job the master stops on (its error there)
//! is one the core refuses.
//!
//! The plans file is the output of the master's own code, `tests/e2e/master_first_plan.py` (see
//! docs/testing.md); `tests/e2e/played-master.test.js` holds the master the cluster tests play to
//! the same file, so the three read every job alike.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

#[test]
fn the_cores_first_plan_is_the_real_masters_for_every_job_of_the_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let plans: Value =
        serde_json::from_str(&fs::read_to_string(root.join("master-reading.plans.json")).unwrap()).unwrap();
    let mut cases: Vec<_> = fs::read_dir(root.join("master-reading")).unwrap().map(|e| e.unwrap().path()).collect();
    cases.sort();
    assert!(cases.len() >= 10, "the corpus of tests/fixtures/master-reading/ was not found");
    assert_eq!(cases.len(), plans.as_object().unwrap().len(), "one plan in master-reading.plans.json per job");
    for path in cases {
        let case = path.file_stem().unwrap().to_string_lossy().into_owned();
        let want = &plans[&case];
        assert!(!want.is_null(), "{case}: no plan in master-reading.plans.json");
        let job: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let parsed = elasticjob::parse::job(job);
        if let Some(error) = want["error"].as_str() {
            let refused =
                parsed.err().unwrap_or_else(|| panic!("{case}: the master stops on it ({error}); the core accepts it"));
            let said: Vec<String> = refused.problems().iter().map(|p| p.message.clone()).collect();
            assert!(
                said.iter().any(|m| m.contains(error)),
                "{case}: the core's refusal names the master's error `{error}`: {said:?}"
            );
            continue;
        }
        let job = parsed.unwrap_or_else(|e| panic!("{case}: {e}"));
        let plan = elasticjob::initial_scale_plan(&job);
        let specs: serde_json::Map<String, Value> = plan
            .spec
            .replica_resource_specs
            .iter()
            .map(|(t, s)| (t.to_string(), json!({"replicas": s.replicas, "resource": s.resource})))
            .collect();
        assert_eq!(Value::Object(specs), want["replicaResourceSpecs"], "{case}: replicaResourceSpecs");
        // The master lists each PS by its service's DNS name in the job's namespace.
        let services: Vec<String> = want["psHosts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                let h = h.as_str().unwrap();
                format!("{}:{}", h.split('.').next().unwrap(), h.rsplit(':').next().unwrap())
            })
            .collect();
        assert_eq!(plan.spec.ps_hosts, services, "{case}: psHosts");
    }
}
