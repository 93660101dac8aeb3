//! Reading a value against a table of the API's schema, with the same outcome as reading it into
//! k8s-openapi's types and writing it back: the same first error at the same path with the same
//! words, the same unknown fields, and the same JSON out.
//!
//! One reader for every type of the table, driven by the table, in place of the compiled reader of
//! each type: the thirty sources of a `Volume` and the fifty-odd types they reach cost about 40 KB
//! of each gzipped WebAssembly module as compiled readers, and the other parts the core only
//! carries another 25 to 30 KB (docs/benchmarks.md). It reads through the crate's path-tracking
//! reader like any `Deserialize`, so paths and unknown fields come out as they do for every other
//! type; scalars are read by the very `Deserialize` of the type k8s-openapi uses (`i32`, `String`,
//! `Quantity`, `IntOrString`), so their errors are the same words, but for a time, which is read
//! as the API server reads one (`podspec::Time`).
//!
//! What k8s-openapi does that the table keeps (`src/reader/checked_tests.rs` holds the two equal):
//! - every field is read as optional: `null` or nothing leaves an optional field out, and a
//!   required one takes its type's default (`""`, `0`, `false`, an empty list, map or object), which
//!   is written;
//! - an unknown field is skipped (and, through the reader, reported);
//! - the fields are written in the order of their keys, as k8s-openapi writes them.

use std::fmt;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::FieldsV1;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::Time;

/// A type of the table: its name (as a shape error says it) and its fields.
pub(crate) struct Type {
    pub name: &'static str,
    pub fields: &'static [Field],
}

/// A field: its key, its kind, and whether the API requires it.
pub(crate) struct Field {
    pub key: &'static str,
    pub kind: Kind,
    pub required: bool,
}

/// What a field holds.
pub(crate) enum Kind {
    Str,
    Bool,
    I32,
    I64,
    /// A Kubernetes quantity (`250m`), as k8s-openapi's `Quantity` reads it.
    Quantity,
    /// A time, as the API server reads and writes one (`podspec::Time`).
    Time,
    /// Free JSON (`managedFields[].fieldsV1`).
    FieldsV1,
    /// A port by number or name, as k8s-openapi's `IntOrString` reads it.
    IntOrString,
    Object(&'static Type),
    Array(&'static Kind),
    /// A map from strings to values of the kind.
    Map(&'static Kind),
}

/// An optional field, for the generated table.
pub(crate) const fn opt(key: &'static str, kind: Kind) -> Field {
    Field { key, kind, required: false }
}

/// A required field, for the generated table.
pub(crate) const fn req(key: &'static str, kind: Kind) -> Field {
    Field { key, kind, required: true }
}

/// Reads an object of `ty` from `deserializer` into the JSON k8s-openapi would write for it.
pub(crate) fn read<'de, D: Deserializer<'de>>(
    ty: &'static Type,
    deserializer: D,
) -> Result<Map<String, Value>, D::Error> {
    deserializer.deserialize_struct(ty.name, &[], ObjectVisitor(ty))
}

/// The value of `kind` that k8s-openapi writes for a required field left out.
pub(crate) fn default_of(kind: &Kind) -> Value {
    match kind {
        Kind::Str | Kind::Quantity => Value::String(String::new()),
        Kind::Bool => Value::Bool(false),
        Kind::I32 | Kind::I64 | Kind::IntOrString => Value::from(0),
        Kind::Time => Value::String("1970-01-01T00:00:00Z".to_owned()),
        Kind::FieldsV1 => Value::Null,
        Kind::Object(ty) => Value::Object(with_defaults(ty, Map::new())),
        Kind::Array(_) => Value::Array(Vec::new()),
        Kind::Map(_) => Value::Object(Map::new()),
    }
}

/// `object` with every required field of `ty` it lacks set to its default.
fn with_defaults(ty: &Type, mut object: Map<String, Value>) -> Map<String, Value> {
    for field in ty.fields.iter().filter(|f| f.required) {
        if !object.contains_key(field.key) {
            object.insert(field.key.to_owned(), default_of(&field.kind));
        }
    }
    object
}

/// Reads a value of a kind.
struct KindSeed(&'static Kind);

impl<'de> DeserializeSeed<'de> for KindSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        Ok(match self.0 {
            Kind::Str => Value::String(String::deserialize(deserializer)?),
            Kind::Bool => Value::Bool(bool::deserialize(deserializer)?),
            Kind::I32 => Value::from(i32::deserialize(deserializer)?),
            Kind::I64 => Value::from(i64::deserialize(deserializer)?),
            Kind::Quantity => Value::String(Quantity::deserialize(deserializer)?.0),
            Kind::Time => Value::String(Time::deserialize(deserializer)?.to_string()),
            Kind::FieldsV1 => FieldsV1::deserialize(deserializer)?.0,
            Kind::IntOrString => match IntOrString::deserialize(deserializer)? {
                IntOrString::Int(n) => Value::from(n),
                IntOrString::String(s) => Value::String(s),
            },
            Kind::Object(ty) => Value::Object(read(ty, deserializer)?),
            Kind::Array(kind) => Value::Array(deserializer.deserialize_seq(ArrayVisitor(kind))?),
            Kind::Map(kind) => Value::Object(deserializer.deserialize_map(MapVisitor(kind))?),
        })
    }
}

/// Reads a field's value as k8s-openapi reads every field: `null` as none.
struct FieldSeed(&'static Kind);

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<Value>, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for FieldSeed {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<Value>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Value>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<Value>, D::Error> {
        KindSeed(self.0).deserialize(deserializer).map(Some)
    }
}

/// A key of an object of a type: its field, or none for a key the type does not have.
struct KeySeed(&'static Type);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Option<&'static Field>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Option<&'static Field>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.0.fields.iter().find(|f| f.key == key))
    }
}

/// An object of a type.
struct ObjectVisitor(&'static Type);

impl<'de> Visitor<'de> for ObjectVisitor {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = Map::new();
        while let Some(field) = map.next_key_seed(KeySeed(self.0))? {
            match field {
                // A required time has no default in k8s-openapi (`metav1.Condition`'s
                // `lastTransitionTime`): `null` is refused as a time, and so is a missing one.
                Some(field) if field.required && matches!(field.kind, Kind::Time) => {
                    object.insert(field.key.to_owned(), map.next_value_seed(KindSeed(&field.kind))?);
                }
                Some(field) => {
                    if let Some(value) = map.next_value_seed(FieldSeed(&field.kind))? {
                        object.insert(field.key.to_owned(), value);
                    }
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let time = |f: &&Field| f.required && matches!(f.kind, Kind::Time);
        if let Some(missing) = self.0.fields.iter().filter(time).find(|f| !object.contains_key(f.key)) {
            return Err(de::Error::missing_field(missing.key));
        }
        Ok(with_defaults(self.0, object))
    }
}

/// A list of values of a kind, as serde reads a `Vec`.
struct ArrayVisitor(&'static Kind);

impl<'de> Visitor<'de> for ArrayVisitor {
    type Value = Vec<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Value>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(KindSeed(self.0))? {
            items.push(item);
        }
        Ok(items)
    }
}

/// A map from strings to values of a kind, as serde reads a `BTreeMap`.
struct MapVisitor(&'static Kind);

impl<'de> Visitor<'de> for MapVisitor {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(KindSeed(self.0))?;
            object.insert(key, value);
        }
        Ok(object)
    }
}
