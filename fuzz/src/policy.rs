//! (d) The admission policy's `validate` entry (`elasticjob::admission::review_payload`, which the
//! waPC binding of bindings/policy/ calls): arbitrary bytes, or a payload built from arbitrary settings, an
//! operation, a kind and an object (a valid job or plan with mutations, or any JSON).
//!
//! Checked: the same payload gives the same verdict; a rejection has code 400 or 500, a message and
//! paths; 500 exactly when the settings are refused; the verdict on a payload is `review`'s on the
//! request and settings it holds.

use arbitrary::{Arbitrary, Unstructured};
use elasticjob::admission::{
    self, AdmissionRequest, CODE_BAD_SETTINGS, CODE_INVALID, GroupVersionKind, Settings, Verdict,
};
use serde_json::{Value, json};

use super::check::{self, Root};
use super::json::{Doc, Json, Word};

const OPERATIONS: [&str; 5] = ["CREATE", "UPDATE", "DELETE", "CONNECT", ""];
const KINDS: [(&str, &str, &str); 5] = [
    ("elastic.iml.github.io", "v1alpha1", "ElasticJob"),
    ("elastic.iml.github.io", "v1alpha1", "ScalePlan"),
    ("elastic.iml.github.io", "v1", "ElasticJob"),
    ("", "v1", "Pod"),
    ("elastic.iml.github.io", "v1alpha1", "Unknown"),
];

/// The input, as `arbitrary` builds it from the bytes.
#[derive(Arbitrary, Debug)]
pub enum Input {
    /// The payload as it is.
    Bytes(Vec<u8>),
    /// A payload built from its parts.
    Built(Payload),
}

/// The parts of a payload.
#[derive(Arbitrary, Debug)]
pub struct Payload {
    settings: SettingsInput,
    operation: u8,
    kind: u8,
    object: Option<Doc>,
}

/// Settings: the real fields with arbitrary values, or any JSON.
#[derive(Arbitrary, Debug)]
enum SettingsInput {
    Absent,
    Fields {
        max_replicas_per_type: Option<u8>,
        max_total_replicas: Option<u8>,
        allowed_strategies: Option<Vec<bool>>,
        require_resource_limits: bool,
        allowed_image_registries: Option<Vec<Word>>,
        deny_privileged: bool,
        max_restart_count: Option<u8>,
    },
    Any(Json),
}

impl SettingsInput {
    fn value(&self) -> Option<Value> {
        match self {
            SettingsInput::Absent => None,
            SettingsInput::Fields {
                max_replicas_per_type,
                max_total_replicas,
                allowed_strategies,
                require_resource_limits,
                allowed_image_registries,
                deny_privileged,
                max_restart_count,
            } => {
                let mut s = serde_json::Map::new();
                let mut set = |k: &str, v: Value| {
                    s.insert(k.to_owned(), v);
                };
                if let Some(n) = max_replicas_per_type {
                    set("maxReplicasPerType", json!(n % 12));
                }
                if let Some(n) = max_total_replicas {
                    set("maxTotalReplicas", json!(n % 24));
                }
                if let Some(list) = allowed_strategies {
                    let names: Vec<&str> = list
                        .iter()
                        .map(|ps| if *ps { "ParameterServerStrategy" } else { "AllreduceStrategy" })
                        .collect();
                    set("allowedStrategies", json!(names));
                }
                if *require_resource_limits {
                    set("requireResourceLimits", json!(true));
                }
                if let Some(list) = allowed_image_registries {
                    set("allowedImageRegistries", json!(list.iter().map(Word::text).collect::<Vec<_>>()));
                }
                if *deny_privileged {
                    set("denyPrivileged", json!(true));
                }
                if let Some(n) = max_restart_count {
                    set("maxRestartCount", json!(n % 6));
                }
                Some(Value::Object(s))
            }
            SettingsInput::Any(j) => Some(j.value()),
        }
    }
}

/// The target: returns the payload and its verdict, for the fuzz target to ask the policy's waPC
/// binding too.
pub fn run(data: &[u8]) -> Option<(Vec<u8>, Verdict)> {
    let input = Input::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    Some(check_input(&input))
}

/// Every check on one input.
pub fn check_input(input: &Input) -> (Vec<u8>, Verdict) {
    let (payload, parts) = match input {
        Input::Bytes(bytes) => (bytes.clone(), None),
        Input::Built(p) => {
            let (group, version, kind) = KINDS[usize::from(p.kind) % KINDS.len()];
            let operation = OPERATIONS[usize::from(p.operation) % OPERATIONS.len()];
            let kind = GroupVersionKind { group: group.into(), version: version.into(), kind: kind.into() };
            let object = p.object.as_ref().map_or(Value::Null, Doc::value);
            let mut payload = json!({"request": {"uid": "1", "operation": operation, "kind": kind, "object": object}});
            let settings = p.settings.value();
            if let Some(s) = &settings {
                payload["settings"] = s.clone();
            }
            let text = payload.to_string();
            // The object and settings as the payload's text holds them: a float does not always
            // come back from serde_json's text as the same f64. Text nested deeper than serde_json
            // reads (128 levels) is a payload `review_payload` must refuse as it is, with nothing
            // to compare it with.
            match serde_json::from_str::<Value>(&text) {
                Ok(mut read) => {
                    let object = read["request"]["object"].take();
                    let settings = settings.map(|_| read["settings"].take());
                    let request =
                        AdmissionRequest { operation: operation.into(), kind, object, old_object: Value::Null };
                    (text.into_bytes(), Some((request, settings)))
                }
                Err(_) => {
                    let verdict = admission::review_payload(text.as_bytes());
                    assert_eq!(verdict.code(), Some(CODE_INVALID), "a payload serde_json cannot read: {verdict:?}");
                    (text.into_bytes(), None)
                }
            }
        }
    };
    let verdict = admission::review_payload(&payload);
    assert_eq!(verdict, admission::review_payload(&payload), "two verdicts on one payload");
    if let Verdict::Rejected { code, error } = &verdict {
        assert!(*code == CODE_INVALID || *code == CODE_BAD_SETTINGS, "a rejection with code {code}");
        check::error(error, Root::Document);
    }
    if let Some((request, settings)) = parts {
        match Settings::from_value(settings.unwrap_or(Value::Null)) {
            Ok(settings) => assert_eq!(
                verdict,
                admission::review(request, &settings),
                "review_payload and review disagree on one request"
            ),
            Err(e) => {
                check::error(&e, Root::Document);
                assert_eq!(verdict.code(), Some(CODE_BAD_SETTINGS), "settings refused, yet the verdict is {verdict:?}");
            }
        }
    }
    (payload, verdict)
}
