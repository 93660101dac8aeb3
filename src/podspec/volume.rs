//! A pod's volume, read against the API's schema of `Volume` (`volume_schema.rs`, made from
//! k8s-openapi's) and held as the JSON k8s-openapi would write for it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::schema;
use super::volume_schema::VOLUME;

/// A pod's volume: its name and its source, as JSON read against the API's schema; the same
/// JSON in and out as k8s-openapi's `Volume`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Volume(Map<String, Value>);

impl Volume {
    /// A volume of the JSON k8s-openapi would write for it (an object); the caller vouches that it
    /// is.
    pub(crate) fn of(json: Value) -> Volume {
        match json {
            Value::Object(map) => Volume(map),
            _ => Volume::default(),
        }
    }

    /// The volume's name.
    pub fn name(&self) -> &str {
        self.0.get("name").and_then(Value::as_str).unwrap_or_default()
    }

    /// The value of one of the volume's fields (a source such as `hostPath`).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// The volume's sources, as their fields are spelled (`emptyDir`): every field but its name.
    pub fn sources(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str).filter(|key| *key != "name")
    }

    /// Every source a volume may have, as its field is spelled, in the API's order.
    pub fn kinds() -> impl Iterator<Item = &'static str> {
        VOLUME.fields.iter().map(|f| f.key).filter(|key| *key != "name")
    }
}

impl<'de> Deserialize<'de> for Volume {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Volume, D::Error> {
        schema::read(&VOLUME, deserializer).map(Volume)
    }
}

impl Serialize for Volume {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

#[cfg(all(test, feature = "schema"))]
mod tests {
    use k8s_openapi::api::core::v1 as theirs;
    use serde_json::Value;

    /// The table is k8s-openapi's JSON Schema of `Volume`: `UPDATE_GOLDEN=1 cargo test --features
    /// schema --lib podspec` writes it again.
    #[test]
    fn the_table_is_k8s_openapis_schema() {
        let made = table_from(&schemars::schema_for!(theirs::Volume).to_value());
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/podspec/volume_schema.rs");
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(path, &made).unwrap_or_else(|e| panic!("{path}: {e}"));
        }
        assert_eq!(
            std::fs::read_to_string(path).unwrap_or_default(),
            made,
            "run UPDATE_GOLDEN=1 cargo test --features schema --lib podspec"
        );
    }

    /// The Rust text of the table of a JSON Schema.
    fn table_from(schema: &Value) -> String {
        let defs = schema.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
        let short = |reference: &str| reference.rsplit('.').next().unwrap_or(reference).to_owned();
        let kind = |p: &Value| -> String {
            fn kind_of(p: &Value, short: &dyn Fn(&str) -> String) -> String {
                if let Some(r) = p.get("$ref").and_then(Value::as_str) {
                    return match short(r).as_str() {
                        "Quantity" => "Kind::Quantity".into(),
                        "Time" => "Kind::Time".into(),
                        "FieldsV1" => "Kind::FieldsV1".into(),
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
            .filter(|(name, _)| !["Quantity", "Time", "FieldsV1"].contains(&short(name).as_str()))
            .map(|(name, def)| (short(name), def.clone()))
            .collect();
        types.push(("Volume".to_owned(), schema.clone()));
        types.sort_by(|a, b| a.0.cmp(&b.0));
        let mut text = String::from(
            "//! The API's schema of `Volume` and of every type it reaches (Kubernetes 1.36), made from\n\
             //! k8s-openapi's JSON Schema by `podspec::volume::tests::the_table_is_k8s_openapis_schema`\n\
             //! (`UPDATE_GOLDEN=1 cargo test --features schema --lib podspec`). Do not edit.\n\n\
             use super::schema::{Kind, Type, opt, req};\n",
        );
        for (name, def) in &types {
            let required: Vec<&str> =
                def.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
            text +=
                &format!("\npub(crate) const {}: Type = Type {{\n    name: \"{name}\",\n    fields: &[\n", upper(name));
            for (key, p) in def.get("properties").and_then(Value::as_object).into_iter().flatten() {
                let f = if required.contains(&key.as_str()) { "req" } else { "opt" };
                text += &format!("        {f}(\"{key}\", {}),\n", kind(p));
            }
            text += "    ],\n};\n";
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
                && prev
                    .is_some_and(|p| p.is_lowercase() || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase())));
            if starts_word {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
        }
        out
    }
}
