//! The invariants the targets share: an error always says where, and the same input gives the same
//! bytes.

use elasticjob::{Code, Error, Problem};
use serde::Serialize;
use serde_json::Value;

/// Whether the input is a whole object (a job, a plan, a pod list), so that a problem without a
/// path can only be about the document as a whole; or a single value (a replica type, a time), so
/// that a problem without a path is about that value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    /// A document with fields.
    Document,
    /// One value.
    Value,
}

/// Every problem of `e` has a message and a path; a path is empty only where it must be: a syntax
/// error, a document of the wrong kind (`invalid_type`), a field missing from the document's top
/// level (`required`, naming the field in its message, after any context), or a top-level field whose name is empty
/// (`unknown_field`, saying so: a dotted path cannot spell an empty key).
pub fn error(e: &Error, root: Root) {
    let problems = e.problems();
    assert!(!problems.is_empty(), "an error without a problem: {e:?}");
    for p in problems {
        problem(p, root);
    }
    let report = e.report();
    assert_eq!(report.errors.as_slice(), problems, "the report lists other problems than the error");
    assert_eq!(report.message, e.to_string());
}

/// As [`error`], for one problem.
pub fn problem(p: &Problem, root: Root) {
    assert!(!p.message.trim().is_empty(), "a problem without a message: {p:?}");
    if p.path.is_empty() && root == Root::Document {
        let whole = match p.code {
            Code::Syntax | Code::InvalidType => true,
            // Naming the field, after any context (the policy's "cannot read the validation
            // payload: ").
            Code::Required => p.message.rsplit(": ").next().is_some_and(|m| m.starts_with("missing field `")),
            Code::UnknownField => p.message.contains("``"),
            _ => false,
        };
        assert!(whole, "a {} problem without a path: {p:?}", p.code);
    }
}

/// Every problem of a reader's error names a place that is in `doc` (for a missing field, the
/// object that lacks it).
pub fn in_document(e: &Error, doc: &Value) {
    for p in e.problems() {
        if p.code == Code::Syntax {
            continue;
        }
        assert!(resolves(doc, &p.path), "the path of {p:?} is not in the document {doc}");
    }
}

/// Whether `path` (`spec.replicaSpecs.worker.replicas`, `items[3].status`) names a value in `doc`.
/// Keys may hold `.` and `[` themselves (label keys do), so every way to split the path is tried.
pub fn resolves(doc: &Value, path: &str) -> bool {
    if path.is_empty() {
        return true;
    }
    if let (Value::Array(items), Some(rest)) = (doc, path.strip_prefix('[')) {
        let Some((index, after)) = rest.split_once(']') else { return false };
        let Some(item) = index.parse::<usize>().ok().and_then(|i| items.get(i)) else { return false };
        return after.is_empty() || next(item, after);
    }
    let Value::Object(map) = doc else { return false };
    map.iter()
        .any(|(key, child)| path.strip_prefix(key.as_str()).is_some_and(|after| after.is_empty() || next(child, after)))
}

fn next(child: &Value, after: &str) -> bool {
    match after.strip_prefix('.') {
        Some(rest) => resolves(child, rest),
        None => after.starts_with('[') && resolves(child, after),
    }
}

/// The JSON bytes of a value; outputs are compared by them.
pub fn bytes<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

/// The bytes of a result: the value, or the error's report.
pub fn result_bytes<T: Serialize>(result: &elasticjob::Result<T>) -> Vec<u8> {
    match result {
        Ok(v) => bytes(v),
        Err(e) => bytes(&e.report()),
    }
}

/// The same computation twice gives the same bytes.
pub fn deterministic<T: Serialize>(what: &str, run: impl Fn() -> elasticjob::Result<T>) -> elasticjob::Result<T> {
    let first = run();
    let again = run();
    assert!(result_bytes(&first) == result_bytes(&again), "{what} gave two different answers for one input");
    first
}
