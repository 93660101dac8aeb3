//! Resource bounds: the answer of the core at and past each of its bounds, one test each
//! (tests/bounds/cases.rs builds the inputs; benches/bounds.rs prints the time and peak memory of
//! the same cases). Over a bound the answer is an error with the path of what is too large; the
//! time is never asserted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "bounds/cases.rs"]
#[allow(dead_code)]
mod cases;

use cases::{Answer, answer};
use elasticjob::Code;

fn refused(name: &str) -> Vec<(String, Code)> {
    let a = answer(name);
    assert!(matches!(a, Answer::Refused(_)), "{name}: {a:?}");
    a.problems()
}

fn message(name: &str) -> String {
    match answer(name) {
        Answer::Refused(problems) => problems.into_iter().map(|p| p.message).collect::<Vec<_>>().join("; "),
        done => panic!("{name}: {done:?}"),
    }
}

/// The core bounds counts, not bytes: a valid 4 MiB job is read, validated and rendered, its
/// 4 MiB value copied onto each of the two worker pods (the API server, which takes requests of
/// at most 3 MiB, would refuse to store it).
#[test]
fn a_4_mib_document_is_rendered() {
    assert_eq!(answer("document_4mib"), Answer::Done("8 objects, 8.4 MB of JSON".into()));
    assert_eq!(answer("admission_4mib"), Answer::Done("accepted".into()));
}

#[test]
fn four_mib_of_annotations_are_too_large_at_annotations() {
    assert_eq!(refused("annotations_4mib"), [("metadata.annotations".to_owned(), Code::TooLarge)]);
}

/// JSON text nesting deeper than 127 levels is a syntax error (serde_json's limit, with its line
/// and column), as the policy's payload and through the npm package's reader of JavaScript values
/// (128 levels); a value built in Rust is refused by the core's reader at the 129th level, with its
/// path, before it could overflow the stack.
#[test]
fn nesting_10000_deep_is_refused() {
    assert_eq!(refused("nesting_10000_text"), [(String::new(), Code::Syntax)]);
    assert_eq!(message("nesting_10000_text"), "recursion limit exceeded at line 1 column 176");
    assert_eq!(refused("nesting_10000_admission"), [(String::new(), Code::Syntax)]);
    assert_eq!(
        message("nesting_10000_admission"),
        "cannot read the validation payload: recursion limit exceeded at line 1 column 261"
    );
    let path = format!("metadata.managedFields[0].fieldsV1{}", "[0]".repeat(124));
    assert_eq!(refused("nesting_10000_value"), [(path, Code::TooLarge)]);
}

/// 10,000 workers is the most a type may have: the job is valid, its preview is too large to
/// hold (its TF_CONFIGs would list 50 million addresses), and the controller creates its workers
/// over several passes. 10,001 is out of range.
#[test]
fn a_job_with_10000_workers() {
    assert_eq!(answer("workers_10000_validate"), Answer::Done("valid, 10000 workers".into()));
    assert_eq!(refused("workers_10000_render"), [("spec.replicaSpecs".to_owned(), Code::TooLarge)]);
    assert_eq!(
        answer("workers_10000_reconcile"),
        Answer::Done("the first pass creates 1997 worker pods, the rest wait for later passes".into())
    );
    assert_eq!(refused("workers_10001"), [("spec.replicaSpecs.worker.replicas".to_owned(), Code::OutOfRange)]);
}

/// A million labels: one problem at `metadata.labels`, not a million.
#[test]
fn a_million_labels_are_too_large_at_labels() {
    assert_eq!(refused("labels_1m"), [("metadata.labels".to_owned(), Code::TooLarge)]);
}

#[test]
fn huge_quantities_are_invalid_at_their_paths() {
    let container = "spec.replicaSpecs.worker.template.spec.containers[0].resources";
    assert_eq!(
        refused("quantities"),
        [
            (format!("{container}.limits.memory"), Code::InvalidQuantity),
            (format!("{container}.requests.cpu"), Code::InvalidQuantity),
            ("spec.resourceLimits.cpu".to_owned(), Code::InvalidQuantity),
            ("spec.resourceLimits.memory".to_owned(), Code::InvalidQuantity),
        ]
    );
    let m = message("quantities");
    assert!(
        m.contains("`1e308` is not a Kubernetes quantity")
            && m.contains("`99999999999999999999Ei` is not a Kubernetes quantity"),
        "{m}"
    );
}

/// 100,000 observed pods is the most the core plans with; one more is refused at `pods`, as a
/// list of pods before any pod is read, and by `reconcile` itself.
#[test]
fn observed_pods_are_bounded() {
    assert_eq!(answer("observed_100000"), Answer::Done("a plan of 1 actions".into()));
    assert_eq!(refused("observed_100001"), [("pods".to_owned(), Code::TooLarge)]);
    assert_eq!(refused("observed_100001_json"), [("pods".to_owned(), Code::TooLarge)]);
}
