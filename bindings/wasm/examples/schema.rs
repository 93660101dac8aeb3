//! Prints one JSON Schema (draft 2020-12) whose `$defs` hold every type crossing the JavaScript
//! boundary, read from the core's `schemars` derives and k8s-openapi's schemas. The npm build turns
//! it into `types.d.ts` with json-schema-to-typescript (an interface per definition).
//!
//! ```sh
//! cargo run -p elasticjob-wasm --features schema --example schema > elasticjob.schema.json
//! ```
//!
//! Schemas describe what the core reads (schemars' deserialize contract): a field with a default
//! is optional. Written for json-schema-to-typescript, which makes a type of the root schema and of
//! each definition, and a numbered copy of a definition referred to with sibling keywords:
//! - the root schema is `ElasticJob` (so no extra type is emitted);
//! - Kubernetes definitions are named by their last segment (`io.k8s.api.core.v1.Pod` -> `Pod`);
//!   two definitions with one name stop the program;
//! - a `$ref` with sibling keywords (a field's description) becomes `allOf: [{$ref}]`;
//! - Kubernetes' `x-kubernetes-int-or-string` becomes `type: [integer, string]`, and an object
//!   schema that lists no properties (`FieldsV1`) allows any.

use std::collections::BTreeMap;
use std::process::ExitCode;

use elasticjob::api::{ElasticJob, ReplicaType, ScalePlan};
use elasticjob::podspec::{Container, Pod};
use elasticjob::tfconfig::{SparseClusterSpec, TfConfig};
use elasticjob::{ErrorReport, List, Options, Plan, Problem, SummaryRow};
use elasticjob_wasm::Validation;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

fn main() -> ExitCode {
    let mut generator = SchemaSettings::draft2020_12().for_deserialize().into_generator();
    // Inputs, then outputs; each pulls in what it refers to.
    generator.subschema_for::<ElasticJob>();
    generator.subschema_for::<ScalePlan>();
    generator.subschema_for::<Pod>();
    generator.subschema_for::<Options>();
    generator.subschema_for::<ReplicaType>();
    generator.subschema_for::<Container>();
    generator.subschema_for::<SparseClusterSpec>();
    generator.subschema_for::<List>();
    generator.subschema_for::<Plan>();
    generator.subschema_for::<SummaryRow>();
    generator.subschema_for::<elasticjob::view::JobView>();
    generator.subschema_for::<TfConfig>();
    generator.subschema_for::<Problem>();
    generator.subschema_for::<ErrorReport>();
    generator.subschema_for::<Validation>();
    generator.subschema_for::<elasticjob::convert::Conversion>();
    generator.subschema_for::<elasticjob::Constants>();
    generator.subschema_for::<elasticjob::Workload>();
    generator.subschema_for::<elasticjob::ResourceFlavor>();
    generator.subschema_for::<elasticjob::podgroup::PodGroup>();
    let definitions = generator.take_definitions(true);

    let mut names = BTreeMap::new();
    for key in definitions.keys() {
        let short = key.rsplit('.').next().unwrap_or(key).to_owned();
        if let Some(other) = names.values().find(|s: &&String| **s == short) {
            eprintln!("schema: `{key}` and another definition are both named `{other}`");
            return ExitCode::FAILURE;
        }
        names.insert(key.clone(), short);
    }
    let mut defs = Map::new();
    for (key, mut schema) in definitions {
        normalize(&mut schema, &names);
        defs.insert(names.get(&key).cloned().unwrap_or(key), schema);
    }
    let Some(Value::Object(mut root)) = defs.remove(ROOT) else {
        eprintln!("schema: no `{ROOT}` definition");
        return ExitCode::FAILURE;
    };
    root.insert("$schema".to_owned(), json!("https://json-schema.org/draft/2020-12/schema"));
    root.insert("title".to_owned(), json!(ROOT));
    root.insert("$defs".to_owned(), Value::Object(defs));
    match serde_json::to_string_pretty(&root) {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("schema: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The definition that is the root schema.
const ROOT: &str = "ElasticJob";

/// Renames `$ref`s (the root's becomes `#`) and rewrites a schema the way the module docs say.
fn normalize(schema: &mut Value, names: &BTreeMap<String, String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref")
                && let Some(name) = target.strip_prefix("#/$defs/").and_then(|t| names.get(t))
            {
                *target = if name == ROOT { "#".to_owned() } else { format!("#/$defs/{name}") };
            }
            if map.len() > 1
                && let Some(target) = map.remove("$ref")
            {
                map.insert("allOf".to_owned(), json!([{ "$ref": target }]));
            }
            if map.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
                map.insert("type".to_owned(), json!(["integer", "string"]));
            }
            let free_form = map.get("type") == Some(&json!("object"))
                && !["properties", "additionalProperties", "patternProperties"].iter().any(|k| map.contains_key(*k));
            if free_form {
                map.insert("additionalProperties".to_owned(), Value::Bool(true));
            }
            map.values_mut().for_each(|v| normalize(v, names));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| normalize(v, names)),
        _ => {}
    }
}
