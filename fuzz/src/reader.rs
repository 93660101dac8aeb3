//! (e) The core's reader with arbitrary JSON against every input type: a job, a scale plan, observed
//! pods, options, a sparse cluster, a container, a rendered list, policy settings, an admission
//! request, a replica type, a time. The JSON is a valid document of some kind with mutations, or
//! any value.
//!
//! Checked: the same input gives the same answer; every error says where, and a reader's path names
//! a place in the document; the reader that reports every problem (`parse::checked`) agrees with
//! the one that stops at the first (`parse::from_value`): it accepts exactly what the other reads
//! without unknown fields, and reports the other's problem among its own; a job or plan read and
//! written reads back the same.

use arbitrary::{Arbitrary, Unstructured};
use elasticjob::Time;
use elasticjob::admission::{AdmissionRequest, Settings};
use elasticjob::podspec::Container;
use elasticjob::tfconfig::SparseClusterSpec;
use elasticjob::{List, Options, ReplicaType, parse};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::check::{self, Root};
use super::json::Doc;

/// The input, as `arbitrary` builds it from the bytes.
#[derive(Arbitrary, Debug)]
pub struct Input {
    /// Which type to read.
    kind: u8,
    doc: Doc,
}

/// The target.
pub fn run(data: &[u8]) {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else { return };
    check_input(&input);
}

/// Every check on one input.
pub fn check_input(input: &Input) {
    let doc = input.doc.value();
    match input.kind % 11 {
        0 => {
            if let Some(job) = checked(&doc, parse::job) {
                round_trip(&job, parse::job);
            }
        }
        1 => {
            if let Some(plan) = checked(&doc, parse::scale_plan) {
                round_trip(&plan, parse::scale_plan);
            }
        }
        2 => match check::deterministic("parse::pods", || parse::pods(doc.clone())) {
            Ok(pods) => {
                let count = doc.as_array().or_else(|| doc.get("items").and_then(Value::as_array)).map_or(0, Vec::len);
                assert_eq!(pods.len(), count, "parse::pods read another number of pods");
            }
            Err(e) => {
                check::error(&e, Root::Document);
                // Paths start at the argument's name (`pods[3].status`); the rest names a place in
                // the list.
                if let Some(items) = doc.get("items").or(Some(&doc)).filter(|v| v.is_array()) {
                    for p in e.problems() {
                        let rest = p
                            .path
                            .strip_prefix("pods")
                            .unwrap_or_else(|| panic!("a pod's problem outside `pods`: {p:?}"));
                        assert!(
                            check::resolves(items, rest.trim_start_matches('.')),
                            "{p:?} is not in the list {items}"
                        );
                    }
                }
            }
        },
        3 => both::<Options>(&doc),
        4 => both::<SparseClusterSpec>(&doc),
        5 => both::<Container>(&doc),
        6 => both::<List>(&doc),
        7 => match check::deterministic("Settings::from_value", || Settings::from_value(doc.clone())) {
            Ok(settings) => assert!(settings.validate().is_ok()),
            Err(e) => check::error(&e, Root::Document),
        },
        8 => drop(plain::<AdmissionRequest>(&doc, Root::Document)),
        9 => drop(plain::<ReplicaType>(&doc, Root::Value)),
        _ => drop(plain::<Time>(&doc, Root::Value)),
    }
}

/// A type read both ways: [`plain`], and strictly (unknown fields are problems) by
/// `parse::strict`, which must agree.
fn both<T: DeserializeOwned + Serialize + std::fmt::Debug>(doc: &Value) {
    let first = plain::<T>(doc, Root::Document);
    let strict = check::deterministic("parse::strict", || parse::strict::<T>(doc.clone()));
    agree(doc, first, strict);
}

/// Read by `parse::from_value`, which stops at the first problem.
fn plain<T: DeserializeOwned + Serialize>(
    doc: &Value,
    root: Root,
) -> elasticjob::Result<(T, Vec<elasticjob::Problem>)> {
    let read = check::deterministic("parse::from_value", || parse::from_value::<T>(doc.clone()));
    match &read {
        Ok((_, unknown)) => {
            for p in unknown {
                check::problem(p, root);
                assert!(check::resolves(doc, &p.path), "unknown field {p:?} is not in the document");
            }
        }
        Err(e) => {
            check::error(e, root);
            check::in_document(e, doc);
        }
    }
    read
}

/// Read and checked by a core reader that reports every problem (`parse::job`, ...), and by the
/// plain reader, which must agree.
fn checked<T: DeserializeOwned + Serialize + std::fmt::Debug>(
    doc: &Value,
    reader: fn(Value) -> elasticjob::Result<T>,
) -> Option<T> {
    let first = plain::<T>(doc, Root::Document);
    let all = check::deterministic("a checking reader", || reader(doc.clone()));
    if let Err(e) = &all {
        check::error(e, Root::Document);
    }
    // A shape problem or an unknown field the plain reader finds is among the checking reader's.
    match (&first, &all) {
        (Err(one), Err(many)) => {
            let p = one.problems().first();
            assert!(
                p.is_some_and(|p| many.problems().contains(p)),
                "the first problem {p:?} is not among every problem: {many}"
            );
        }
        (Err(one), Ok(_)) => panic!("the checking reader accepted what the plain one refuses: {one}"),
        (Ok((_, unknown)), Ok(_)) => {
            assert!(unknown.is_empty(), "the checking reader accepted unknown fields {unknown:?}")
        }
        (Ok(_), Err(_)) => {}
    }
    all.ok()
}

/// `parse::strict` agrees with `parse::from_value`: it accepts exactly what the other reads
/// without unknown fields, and reports the other's first problem among its own.
fn agree<T: std::fmt::Debug + Serialize>(
    doc: &Value,
    first: elasticjob::Result<(T, Vec<elasticjob::Problem>)>,
    strict: elasticjob::Result<T>,
) {
    match (first, strict) {
        (Ok((a, unknown)), Ok(b)) => {
            assert!(unknown.is_empty(), "parse::strict accepted unknown fields {unknown:?}");
            assert_eq!(check::bytes(&a), check::bytes(&b));
        }
        (Ok((_, unknown)), Err(e)) => {
            check::error(&e, Root::Document);
            let paths: Vec<&str> = unknown.iter().map(|p| p.path.as_str()).collect();
            for p in e.problems() {
                assert!(
                    paths.contains(&p.path.as_str()),
                    "parse::strict refused {p:?}, which the plain reader read: {doc}"
                );
            }
        }
        (Err(one), Err(many)) => {
            check::error(&many, Root::Document);
            let p = one.problems().first();
            assert!(p.is_some_and(|p| many.problems().contains(p)), "the first problem {p:?} is not among {many}");
        }
        (Err(one), Ok(_)) => panic!("parse::strict accepted what the plain reader refuses: {one}"),
    }
}

/// What a checking reader accepted, written to JSON and read again, is the same.
fn round_trip<T: Serialize + PartialEq + std::fmt::Debug>(value: &T, reader: fn(Value) -> elasticjob::Result<T>) {
    let written = serde_json::to_value(value).unwrap_or_default();
    match reader(written.clone()) {
        Ok(again) => assert!(again == *value, "read back differently: {written}"),
        Err(e) => panic!("what was read, written and read again is refused: {e}: {written}"),
    }
}
