//! The built policy (`make policy`: `target/policy/elasticjob_policy.wasm`) in a waPC host, the
//! engine Kubewarden's policy-server uses (wasmtime through `wasmtime-provider` and `wapc`):
//! the artifact's imports and exports, `protocol_version`, and every fixture of
//! `tests/fixtures.rs` with the same answer, byte for byte, as the native build.
//!
//! Not part of a plain `cargo test` (it needs the .wasm); `make test-policy` builds the policy and
//! runs it, and it fails when the .wasm is missing.

mod common;
#[path = "common/host.rs"]
mod host;

use std::collections::BTreeSet;
use std::sync::OnceLock;
use std::sync::atomic::Ordering;

use wasmtime_provider::wasmtime::{Engine, ExternType, Module};

fn compiled() -> &'static (Engine, Module) {
    static COMPILED: OnceLock<(Engine, Module)> = OnceLock::new();
    COMPILED.get_or_init(|| host::compile(&common::wasm_bytes()))
}

fn new_instance() -> wapc::WapcHost {
    let (engine, module) = compiled();
    host::instance(&host::pre(engine, module))
}

#[test]
fn exports_only_the_wapc_entry_points() {
    let (_, module) = compiled();
    let exports: BTreeSet<&str> = module.exports().map(|e| e.name()).collect();
    assert_eq!(exports, BTreeSet::from(["memory", "wapc_init", "__guest_call"]));
}

#[test]
fn imports_only_wapc_and_wasi_and_never_calls_the_host() {
    let (_, module) = compiled();
    let imports: Vec<(String, String)> =
        module.imports().map(|i| (i.module().to_owned(), i.name().to_owned())).collect();
    for (module_name, name) in &imports {
        assert!(
            module_name == "wapc" || module_name == "wasi_snapshot_preview1",
            "unexpected import {module_name}.{name}"
        );
    }
    assert!(imports.iter().all(|(_, name)| !name.contains("wbindgen")), "{imports:?}");
    // The guest side of the waPC protocol only: no `__host_call`, so no logging and no host
    // capability.
    let wapc: BTreeSet<&str> = imports.iter().filter(|(m, _)| m == "wapc").map(|(_, n)| n.as_str()).collect();
    assert_eq!(wapc, BTreeSet::from(["__guest_request", "__guest_response", "__guest_error"]));
    for import in module.imports() {
        assert!(matches!(import.ty(), ExternType::Func(_)), "{}.{} is not a function", import.module(), import.name());
    }
}

#[test]
fn contains_no_wasm_bindgen_code() {
    let bytes = common::wasm_bytes();
    for needle in [&b"__wbindgen"[..], b"wasm-bindgen", b"wasm_bindgen"] {
        assert!(
            !bytes.windows(needle.len()).any(|w| w == needle),
            "the policy contains `{}`",
            String::from_utf8_lossy(needle)
        );
    }
}

#[test]
fn speaks_protocol_v1() {
    let instance = new_instance();
    assert_eq!(host::call(&instance, "protocol_version", b""), br#""v1""#);
}

/// Every `validate` fixture on one instance, in order: bad payloads must not trap it.
#[test]
fn validate_answers_match_the_fixtures_and_the_native_build() {
    let instance = new_instance();
    let cases = common::validate_cases();
    assert!(cases.len() >= 20, "{} fixtures", cases.len());
    for case in &cases {
        let answer = host::call(&instance, "validate", &case.payload);
        case.check(&answer, false);
        assert_eq!(answer, elasticjob_policy::validate(&case.payload).unwrap(), "{}", case.name);
    }
    assert_eq!(host::HOST_CALLS.load(Ordering::SeqCst), 0, "the policy called the host");
}

#[test]
fn validate_settings_answers_match_the_fixtures_and_the_native_build() {
    let instance = new_instance();
    let cases = common::settings_cases();
    assert!(cases.len() >= 10, "{} fixtures", cases.len());
    for case in &cases {
        let answer = host::call(&instance, "validate_settings", &case.payload);
        case.check(&answer, false);
        assert_eq!(answer, elasticjob_policy::validate_settings(&case.payload).unwrap(), "{}", case.name);
    }
}

#[test]
fn an_unknown_function_is_a_wapc_error_not_a_trap() {
    let instance = new_instance();
    let error = instance.call("mutate", b"{}").unwrap_err().to_string();
    assert!(error.contains("No handler registered for function mutate"), "{error}");
    // The instance still answers.
    assert_eq!(host::call(&instance, "protocol_version", b""), br#""v1""#);
}
