//! The table-driven reader of a pod's volumes (`podspec::schema`) against k8s-openapi's
//! compiled `Volume`, through this reader: the same error at the same path, the same unknown
//! fields, the same JSON written, for every field of every type the table has.

use k8s_openapi::api::core::v1 as theirs;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::read;
use crate::podspec::schema::{Kind, Type};
use crate::podspec::volume_schema::VOLUME;
use crate::podspec::{PodSpec, Volume};

/// What reading `value` as `T` gives: the written JSON or the error's words, the error's path,
/// and the unknown fields.
fn outcome<T: DeserializeOwned + Serialize>(value: &Value) -> (Result<String, String>, String, Vec<String>) {
    let outcome = read::<T>(value.clone());
    let written = outcome.result.map(|v| serde_json::to_string(&v).unwrap_or_default()).map_err(|e| e.to_string());
    (written, outcome.error_path, outcome.unknown)
}

/// Reads `value` as a volume through the table and through k8s-openapi, and asserts the same
/// outcome; returns whether it read.
fn same(value: &Value) -> bool {
    let ours = outcome::<Volume>(value);
    assert_eq!(ours, outcome::<theirs::Volume>(value), "{value}");
    // And inside a pod spec, where the paths are longer.
    let spec = json!({"containers": [], "volumes": [{"name": "first"}, value]});
    assert_eq!(outcome::<PodSpec>(&spec), outcome::<theirs::PodSpec>(&spec), "{spec}");
    ours.0.is_ok()
}

/// A good value of a kind, with every field of an object set, down to `depth` objects.
fn full(kind: &Kind, depth: usize) -> Value {
    match kind {
        Kind::Str => json!("text"),
        Kind::Bool => json!(true),
        Kind::I32 => json!(420),
        Kind::I64 => json!(3_000_000_000_i64),
        Kind::Quantity => json!("250m"),
        Kind::Time => json!("2026-01-02T03:04:05.5+01:00"),
        Kind::FieldsV1 => json!({"f:metadata": {}}),
        Kind::Object(ty) if depth > 0 => full_object(ty, depth - 1),
        Kind::Object(_) => json!({}),
        Kind::Array(kind) => json!([full(kind, depth), full(kind, depth)]),
        Kind::Map(kind) => json!({"b": full(kind, depth), "a": full(kind, depth)}),
    }
}

fn full_object(ty: &Type, depth: usize) -> Value {
    Value::Object(ty.fields.iter().map(|f| (f.key.to_owned(), full(&f.kind, depth))).collect())
}

/// Every type of the table, once, with the path of keys that reaches it from a volume.
fn reachable() -> Vec<(Vec<&'static str>, &'static Type)> {
    let mut seen: Vec<(Vec<&'static str>, &'static Type)> = vec![(Vec::new(), &VOLUME)];
    let mut i = 0;
    while let Some((path, ty)) = seen.get(i).cloned() {
        for field in ty.fields {
            let mut kind = &field.kind;
            while let Kind::Array(k) | Kind::Map(k) = kind {
                kind = k;
            }
            if let Kind::Object(next) = kind
                && !seen.iter().any(|(_, t)| std::ptr::eq(*t, *next))
            {
                seen.push(([path.clone(), vec![field.key]].concat(), next));
            }
        }
        i += 1;
    }
    seen
}

/// `inner` placed at `path` under a volume named `v` (arrays and maps on the way hold it once).
fn at(path: &[&'static str], inner: Value) -> Value {
    let mut value = inner;
    let mut ty: Vec<&'static Type> = vec![&VOLUME];
    for key in path {
        let Some(field) = ty.last().and_then(|t| t.fields.iter().find(|f| f.key == *key)) else { break };
        let mut kind = &field.kind;
        while let Kind::Array(k) | Kind::Map(k) = kind {
            kind = k;
        }
        if let Kind::Object(next) = kind {
            ty.push(next);
        }
    }
    // Wrap from the innermost key out.
    for (depth, key) in path.iter().enumerate().rev() {
        let field = ty.get(depth).and_then(|t| t.fields.iter().find(|f| f.key == *key));
        let wrapped = match field.map(|f| &f.kind) {
            Some(Kind::Array(_)) => json!([value]),
            Some(Kind::Map(_)) => json!({"k": value}),
            _ => value,
        };
        value = json!({ *key: wrapped });
    }
    if let Value::Object(map) = &mut value {
        map.entry("name").or_insert(json!("v"));
    }
    value
}

#[test]
fn every_type_and_field_reads_and_writes_as_k8s_openapis() {
    let types = reachable();
    assert!(types.len() > 50, "{} types", types.len());
    let mut read = 0;
    for (path, ty) in &types {
        let good = full_object(ty, 2);
        read += usize::from(same(&at(path, good.clone())));
        same(&at(path, json!({})));
        same(&at(path, json!({"unknownField": 1, "another": {"deep": null}})));
        same(&at(path, json!("a string where an object belongs")));
        same(&at(path, json!([])));
        for field in ty.fields {
            let key = field.key;
            same(&at(path, json!({ key: null })));
            same(&at(path, json!({ key: full(&field.kind, 1) })));
            for wrong in
                [json!("x"), json!(7), json!(-1.5), json!(true), json!([1]), json!({"a": 1}), json!(4_000_000_000_u64)]
            {
                same(&at(path, json!({ key: wrong })));
            }
        }
    }
    assert!(read >= types.len(), "{read} of {} full objects read", types.len());
    // What the core relies on: the name first of the keys k8s-openapi writes, every source set.
    assert!(same(&json!({"name": "tmp", "emptyDir": {"sizeLimit": "1Gi"}, "hostPath": {}})));
    assert!(same(&json!({"name": "t", "emptyDir": null, "projected": {"sources": [{"serviceAccountToken": {}}]}})));
}

#[test]
fn the_volume_says_its_name_and_sources() {
    let volume = read::<Volume>(json!({"name": "cfg", "configMap": {"name": "c"}, "secret": null}))
        .result
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(volume.name(), "cfg");
    assert_eq!(volume.sources().collect::<Vec<_>>(), ["configMap"]);
    assert_eq!(volume.get("configMap"), Some(&json!({"name": "c"})));
    assert_eq!(Volume::kinds().count(), 30);
}
