//! # elasticjob-policy
//!
//! A Kubewarden admission policy (waPC, `wasm32-wasip1`) that refuses bad `ElasticJob`s and
//! `ScalePlan`s with the messages the CLI and the preview page give. It is a binding only: every
//! decision is [`elasticjob::admission`]'s; this crate registers the waPC functions and writes
//! Kubewarden's JSON answers.
//!
//! - `validate`: [`validate`], the payload `{"request": <AdmissionRequest>, "settings": {...}}`;
//! - `validate_settings`: [`validate_settings`], the settings alone;
//! - `protocol_version`: the SDK's, `"v1"`.
//!
//! No function returns a waPC error or panics on bad input: a payload that cannot be read is a
//! rejection with the cause, settings that cannot be read are `{"valid": false, "message": ...}`.
//! The policy never logs, so it never calls the host.
#![warn(missing_docs)]

use elasticjob::admission::{self, Settings, Verdict};
use kubewarden_policy_sdk::settings::SettingsValidationResponse;
use kubewarden_policy_sdk::wapc_guest::{self, CallResult};
use kubewarden_policy_sdk::{accept_request, mutate_request, protocol_version_guest, reject_request};

/// Registers the policy's functions with the waPC guest; the host calls it once per instance.
#[unsafe(no_mangle)]
pub extern "C" fn wapc_init() {
    wapc_guest::register_function("validate", validate);
    wapc_guest::register_function("validate_settings", validate_settings);
    wapc_guest::register_function("protocol_version", protocol_version_guest);
}

/// Kubewarden's `validate`: [`admission::review_payload`], answered as a `ValidationResponse`
/// (`{"accepted": ..., "message": ..., "code": ..., "mutated_object": ..., ...}`). An accepted
/// `ElasticJob` CREATE that Kueue queues and that is not suspended is accepted with the job
/// suspended as its `mutated_object` ([`admission::mutation_payload`]).
///
/// # Errors
/// Only if the answer cannot be serialised to JSON, which does not happen for these types.
pub fn validate(payload: &[u8]) -> CallResult {
    match admission::review_payload(payload) {
        Verdict::Accepted => match admission::mutation_payload(payload) {
            Some(job) => mutate_request(job),
            None => accept_request(),
        },
        rejected => reject_request(rejected.message(), rejected.code(), None, None),
    }
}

/// Kubewarden's `validate_settings`: [`Settings::from_slice`], answered as
/// `{"valid": true, "message": null}` or `{"valid": false, "message": "PATH: MESSAGE; ..."}`.
/// Unknown fields and wrong types are answered too (the SDK's `validate_settings` helper returns
/// a waPC error for those instead).
///
/// # Errors
/// Only if the answer cannot be serialised to JSON, which does not happen for this type.
pub fn validate_settings(payload: &[u8]) -> CallResult {
    let response = match Settings::from_slice(payload) {
        Ok(_) => SettingsValidationResponse { valid: true, message: None },
        Err(e) => SettingsValidationResponse { valid: false, message: Some(e.to_string()) },
    };
    Ok(serde_json::to_vec(&response)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_kubewarden_json() {
        let accept = validate(br#"{"settings": {}, "request": {"operation": "DELETE", "kind": {"group": "", "version": "v1", "kind": "Pod"}}}"#);
        assert_eq!(
            String::from_utf8(accept.unwrap()).unwrap(),
            r#"{"accepted":true,"message":null,"code":null,"mutated_object":null,"audit_annotations":null,"warnings":null}"#
        );
        let reject = validate(b"not json");
        assert_eq!(
            String::from_utf8(reject.unwrap()).unwrap(),
            r#"{"accepted":false,"message":"cannot read the validation payload: expected ident at line 1 column 2","code":400,"mutated_object":null,"audit_annotations":null,"warnings":null}"#
        );
    }

    #[test]
    fn settings_answers_are_kubewarden_json() {
        assert_eq!(String::from_utf8(validate_settings(b"{}").unwrap()).unwrap(), r#"{"valid":true,"message":null}"#);
        assert_eq!(
            String::from_utf8(validate_settings(br#"{"maxRestartCount": "3"}"#).unwrap()).unwrap(),
            r#"{"valid":false,"message":"maxRestartCount: invalid type: string \"3\", expected u32"}"#
        );
    }

    #[test]
    fn protocol_version_is_v1() {
        assert_eq!(protocol_version_guest(b"").unwrap(), br#""v1""#);
    }
}
