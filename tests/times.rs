//! The core's times read and written as Kubernetes' own are: on every input of
//! `tests/fixtures/times.tsv`, which apimachinery's `metav1.Time` writes and checks
//! (`tests/cluster/times`, run by `make test-consumers`), the same error or moment, and the same
//! text written back (but for Go's zero time, which `MarshalJSON` writes as `null`: the core writes
//! it as a time, as k8s-openapi did).
// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use elasticjob::Time;
use elasticjob::podspec::ObjectMeta;
use serde_json::json;

#[test]
fn times_are_read_and_written_as_apimachinery_does() {
    let golden = include_str!("fixtures/times.tsv");
    let (mut read, mut refused) = (0, 0);
    for line in golden.lines() {
        let (text, want) = line.split_once('\t').expect("text and answer");
        let ours = match Time::parse(text) {
            None => "error".to_owned(),
            Some(t) => {
                let written = if t.to_string() == "0001-01-01T00:00:00Z" { "null".to_owned() } else { t.to_string() };
                format!("{} {} {written}", t.unix_seconds(), t.subsec_nanos())
            }
        };
        assert_eq!(ours, want, "{text:?}");
        if want == "error" {
            refused += 1
        } else {
            read += 1
        }
        // The same through serde, as a field of an object's metadata.
        let meta = serde_json::from_value::<ObjectMeta>(json!({"creationTimestamp": text}));
        assert_eq!(meta.is_ok(), want != "error", "{text:?}");
    }
    assert!(read > 800 && refused > 4000, "{read} read, {refused} refused");
}

#[test]
fn a_time_is_written_in_utc_whole_seconds() {
    let meta: ObjectMeta =
        serde_json::from_value(json!({"creationTimestamp": "2026-01-02T03:04:05.999+01:00", "name": "a"})).unwrap();
    assert_eq!(serde_json::to_value(&meta).unwrap(), json!({"creationTimestamp": "2026-01-02T02:04:05Z", "name": "a"}));
    let wrong = serde_json::from_value::<ObjectMeta>(json!({"creationTimestamp": "2026-01-02 03:04:05Z"}));
    assert_eq!(
        wrong.map_err(|e| e.to_string()).err().as_deref(),
        Some("invalid value: string \"2026-01-02 03:04:05Z\", expected an RFC 3339 time such as 2026-01-02T03:04:05Z")
    );
    let wrong_type = serde_json::from_value::<ObjectMeta>(json!({"deletionTimestamp": 5}));
    assert!(wrong_type.is_err());
}
