//! `convert::from_tf_job` over the TFJobs of `examples/tfjob/`: each `NAME.yaml` gives exactly the
//! JSON of `NAME.converted.json` (the ElasticJob and the notes, as the core writes them pretty),
//! the same bytes the npm package's `text.fromTFJob(..., true)` returns (pkg/test/convert.test.js).
//! `UPDATE_GOLDEN=1 cargo test --test convert` writes them again.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::fs;
use std::path::Path;

use elasticjob::convert::from_tf_job;

#[test]
fn every_example_tf_job_converts_to_its_fixture() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/tfjob");
    let mut inputs: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 4, "the examples of examples/tfjob/ were not found");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for input in inputs {
        let value: serde_json::Value = serde_yaml_ng::from_str(&fs::read_to_string(&input).unwrap()).unwrap();
        let conversion = from_tf_job(value).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
        // The ElasticJob it gives validates as any other would.
        elasticjob::parse::job(serde_json::to_value(&conversion.elastic_job).unwrap()).unwrap();
        let text = format!("{}\n", serde_json::to_string_pretty(&conversion).unwrap());
        let expected_path = input.with_extension("converted.json");
        if update {
            fs::write(&expected_path, &text).unwrap();
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        assert_eq!(text, expected, "{} differs from {}", input.display(), expected_path.display());
    }
}
