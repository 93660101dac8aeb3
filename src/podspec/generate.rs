//! The table of `table.rs`, made from k8s-openapi's JSON Schemas (its `schemars` feature).

use k8s_openapi::api::core::v1 as theirs;
use serde_json::Value;

/// The table is k8s-openapi's JSON Schema of the parts of objects the core holds as JSON:
/// `UPDATE_GOLDEN=1 cargo test --features schema --lib podspec` writes it again.
#[test]
fn the_table_is_k8s_openapis_schema() {
    let mut generator = schemars::SchemaGenerator::default();
    // The roots: what `checked.rs` holds as JSON.
    generator.subschema_for::<theirs::Affinity>();
    generator.subschema_for::<theirs::ContainerResizePolicy>();
    generator.subschema_for::<theirs::ContainerRestartRule>();
    generator.subschema_for::<theirs::EnvFromSource>();
    generator.subschema_for::<theirs::EnvVarSource>();
    generator.subschema_for::<theirs::LocalObjectReference>();
    generator.subschema_for::<theirs::Lifecycle>();
    generator.subschema_for::<theirs::Probe>();
    generator.subschema_for::<theirs::VolumeDevice>();
    generator.subschema_for::<theirs::HostAlias>();
    generator.subschema_for::<theirs::PodDNSConfig>();
    generator.subschema_for::<theirs::PodReadinessGate>();
    generator.subschema_for::<theirs::PodResourceClaim>();
    generator.subschema_for::<theirs::PodSchedulingGate>();
    generator.subschema_for::<theirs::PodSchedulingGroup>();
    generator.subschema_for::<theirs::TopologySpreadConstraint>();
    generator.subschema_for::<theirs::Volume>();
    generator.subschema_for::<theirs::SecurityContext>();
    generator.subschema_for::<theirs::PodOS>();
    generator.subschema_for::<theirs::Toleration>();
    generator.subschema_for::<theirs::ContainerPort>();
    generator.subschema_for::<theirs::VolumeMount>();
    generator.subschema_for::<theirs::PodSecurityContext>();
    generator.subschema_for::<theirs::PodStatus>();
    generator.subschema_for::<theirs::ServiceStatus>();
    generator.subschema_for::<k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry>();
    generator.subschema_for::<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>();
    generator.subschema_for::<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference>();
    let made = table_from(generator.definitions());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/podspec/table.rs");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, &made).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    assert_eq!(
        std::fs::read_to_string(path).unwrap_or_default(),
        made,
        "run UPDATE_GOLDEN=1 cargo test --features schema --lib podspec"
    );
}

/// The Rust text of the table of JSON Schemas' definitions.
fn table_from(defs: &serde_json::Map<String, Value>) -> String {
    let short = |reference: &str| reference.rsplit('.').next().unwrap_or(reference).to_owned();
    let kind = |p: &Value| -> String {
        fn kind_of(p: &Value, short: &dyn Fn(&str) -> String) -> String {
            if let Some(r) = p.get("$ref").and_then(Value::as_str) {
                return match short(r).as_str() {
                    "Quantity" => "Kind::Quantity".into(),
                    "Time" => "Kind::Time".into(),
                    "FieldsV1" => "Kind::FieldsV1".into(),
                    "IntOrString" => "Kind::IntOrString".into(),
                    name => format!("Kind::Object(&{})", upper(name)),
                };
            }
            match (p.get("type").and_then(Value::as_str), p.get("format").and_then(Value::as_str)) {
                (Some("string"), None) => "Kind::Str".into(),
                (Some("boolean"), None) => "Kind::Bool".into(),
                (Some("integer"), Some("int32")) => "Kind::I32".into(),
                (Some("integer"), Some("int64")) => "Kind::I64".into(),
                (Some("array"), None) => format!("Kind::Array(&{})", kind_of(&p["items"], short)),
                (Some("object"), None) => format!("Kind::Map(&{})", kind_of(&p["additionalProperties"], short)),
                other => format!("compile_error!(\"a field of a kind the table has not: {other:?}\")"),
            }
        }
        kind_of(p, &short)
    };
    let mut types: Vec<(String, Value)> = defs
        .iter()
        .filter(|(name, _)| !["Quantity", "Time", "FieldsV1", "IntOrString"].contains(&short(name).as_str()))
        .map(|(name, def)| (short(name), def.clone()))
        .collect();
    types.sort_by(|a, b| a.0.cmp(&b.0));
    let mut text = String::from(
        "//! The API's schema of the parts of a pod spec the core holds as JSON (`checked.rs`) and of\n\
         //! every type they reach (Kubernetes 1.36), made from k8s-openapi's JSON Schemas by\n\
         //! `podspec::generate::the_table_is_k8s_openapis_schema`\n\
         //! (`UPDATE_GOLDEN=1 cargo test --features schema --lib podspec`). Do not edit.\n\n\
         use super::schema::{Kind, Type, opt, req};\n",
    );
    for (name, def) in &types {
        let required: Vec<&str> =
            def.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        text += &format!("\npub(crate) const {}: Type = Type {{\n    name: \"{name}\",\n    fields: &[", upper(name));
        // The fields packed into lines of at most 120 characters.
        let mut line = String::new();
        for (key, p) in def.get("properties").and_then(Value::as_object).into_iter().flatten() {
            let f = if required.contains(&key.as_str()) { "req" } else { "opt" };
            let field = format!("{f}(\"{key}\", {}),", kind(p));
            if !line.is_empty() && line.len() + 1 + field.len() > 112 {
                text += &format!("\n        {line}");
                line.clear();
            }
            line = if line.is_empty() { field } else { format!("{line} {field}") };
        }
        text += &format!("\n        {line}\n    ],\n}};\n");
    }
    text
}

/// `ConfigMapVolumeSource` as `CONFIG_MAP_VOLUME_SOURCE`.
fn upper(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|j| chars.get(j));
        let next = chars.get(i + 1);
        let starts_word = c.is_uppercase()
            && prev.is_some_and(|p| p.is_lowercase() || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase())));
        if starts_word {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}
