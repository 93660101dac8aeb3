//! The reader of the core's own structs whose every field is `#[serde(default)]`, and of the narrow
//! readers of observed pods and services, whose every field is an `Option` or a type tag: what
//! serde's derive reads, read with less code.
//!
//! serde's derive reads each field into a local of its own, checks it for a second occurrence,
//! and builds the struct at the end; every type read inside it is inlined, so a job's reader was
//! one function of 19 KB in the npm package's module. Here the struct starts with every field at
//! its type's default, as the derive's `#[serde(default)]` fills a missing one, and each field is
//! read in place by [`read_in`], one function a type of field, shared by every struct that has
//! one. What is read is the same: a missing field is the field's default, `null`
//! is read by the field's type (`None` for an `Option`, refused by anything else), a key the struct
//! does not know is skipped (and noted by the reader as unknown). A key given twice, which JSON
//! text may hold and a `serde_json::Value` cannot, is read twice and the last kept, as a `Value`
//! keeps it; serde's derive refuses it. The core reads every input through a `Value`, and refusing
//! it in text read straight by serde_json cost the npm module 2 KB.
//!
//! The keys are written next to the fields, so a test holds them equal to the keys serde's derive
//! writes and JSON Schema lists (`deserialize_defaults!`'s `test`).

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, Visitor};

/// `impl Deserialize` for structs whose fields are all `#[serde(default)]` (or, for a narrow
/// reader, `Option`s and type tags): `test name; Name { field "jsonKey", ... } ...`, every field
/// of the struct (the compiler refuses a list that leaves one out). A field serde requires is
/// written `field "jsonKey" required PLACEHOLDER`: it holds the placeholder until it is read, and
/// a map without it is refused with serde's `missing_field`, as the derive refuses it. `name` is
/// the test that holds the keys (and the required ones) equal to the ones the struct's JSON Schema
/// lists or, for `Name in Type { ... }` (a narrow reader of an API type), among the ones `Type`'s
/// lists.
macro_rules! deserialize_defaults {
    (test $test:ident; $($name:ident $(in $schema:ty)? { $($field:ident $key:literal $(required $start:expr)?,)* })*) => {
        #[cfg(all(test, feature = "schema"))]
        #[test]
        fn $test() {
            $($crate::fields::deserialize_defaults!(
                @check $name $(in $schema)?; &[$($($crate::fields::deserialize_defaults!(@key $key, $start),)?)*]
            );)*
        }
    $(
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                #[allow(non_camel_case_types)]
                #[derive(Clone, Copy)]
                enum Field {
                    $($field,)*
                }
                const FIELDS: &[Field] = &[$(Field::$field,)*];
                // One bit a field in `seen`.
                const _: () = assert!(FIELDS.len() <= 64);

                struct StructVisitor;

                impl<'de> serde::de::Visitor<'de> for StructVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str(concat!("struct ", stringify!($name)))
                    }

                    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        // Every field named, so the compiler holds the list whole; a required
                        // one holds its placeholder until it is read.
                        let mut value = $name { $($field: $crate::fields::deserialize_defaults!(@start $($start)?),)* };
                        let mut seen = 0u64;
                        while let Some(index) = map.next_key_seed($crate::fields::FieldIndex($name::KEYS))? {
                            let field = index.and_then(|i| FIELDS.get(i));
                            if let Some(i) = index {
                                seen |= 1u64.checked_shl(i as u32).unwrap_or(0);
                            }
                            match field {
                                $(Some(Field::$field) => $crate::fields::read_in(&mut value.$field, &mut map)?,)*
                                None => {
                                    map.next_value::<serde::de::IgnoredAny>()?;
                                }
                            }
                        }
                        // A required field missing, the first in declaration order, as serde's derive.
                        $($(
                            if seen & (1u64 << (Field::$field as u32)) == 0 {
                                return Err(<A::Error as serde::de::Error>::missing_field(
                                    $crate::fields::deserialize_defaults!(@key $key, $start),
                                ));
                            }
                        )?)*
                        let _ = seen;
                        Ok(value)
                    }
                }

                deserializer.deserialize_struct(stringify!($name), $name::KEYS, StructVisitor)
            }
        }

        impl $name {
            /// The JSON keys of the struct's fields, in the order they are declared.
            pub(crate) const KEYS: &[&str] = &[$($key,)*];
        }
    )*};
    (@check $name:ident; $required:expr) => {
        $crate::fields::check_keys::<$name>($name::KEYS, $required, true)
    };
    (@check $name:ident in $schema:ty; $required:expr) => {
        $crate::fields::check_keys::<$schema>($name::KEYS, $required, false)
    };
    (@start) => {
        Default::default()
    };
    (@start $start:expr) => {
        $start
    };
    // The key of a required field (its placeholder named only to mark it required).
    (@key $key:literal, $start:expr) => {
        $key
    };
}

pub(crate) use deserialize_defaults;

/// `impl Deserialize` for enums of unit variants, each read from its name: `test name; Enum {
/// Variant "name", ... } ...`, every variant (the test's `match` refuses a list that leaves one
/// out, and holds each name equal to the one serde's derive writes). What serde's derive reads, in
/// the same words, through one reader for every such enum ([`read_variant`]) rather than one
/// compiled for each.
macro_rules! deserialize_names {
    (test $test:ident; $($name:ident { $($variant:ident $key:literal,)* })*) => {
        #[cfg(test)]
        #[test]
        fn $test() {
            $(
                let name_of = |value: $name| match value {
                    $($name::$variant => $key,)*
                };
                for value in $name::VALUES {
                    assert_eq!(serde_json::to_value(value).ok(), Some(serde_json::Value::from(name_of(*value))));
                }
            )*
        }
    $(
        impl $name {
            /// The variants, in the order of their names.
            const VALUES: &[$name] = &[$($name::$variant,)*];
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                const NAMES: &[&str] = &[$($key,)*];
                let index = $crate::fields::read_variant(deserializer, stringify!($name), NAMES)?;
                $name::VALUES.get(index).copied().ok_or_else(|| {
                    <D::Error as serde::de::Error>::invalid_value(serde::de::Unexpected::Unsigned(index as u64), &"a variant")
                })
            }
        }
    )*};
}

pub(crate) use deserialize_names;

/// Reads the index of a unit variant among `names` (of the enum `name`), as serde's derive reads
/// the variant: by name (or, from a format that gives one, by index), refusing another variant's
/// content and any other value in serde's words.
#[inline(never)]
pub(crate) fn read_variant<'de, D: de::Deserializer<'de>>(
    deserializer: D,
    name: &'static str,
    names: &'static [&'static str],
) -> Result<usize, D::Error> {
    deserializer.deserialize_enum(name, names, VariantVisitor { name, names })
}

struct VariantVisitor {
    name: &'static str,
    names: &'static [&'static str],
}

impl<'de> Visitor<'de> for VariantVisitor {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "enum {}", self.name)
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<usize, A::Error> {
        let (index, variant) = data.variant_seed(VariantIndex(self.names))?;
        de::VariantAccess::unit_variant(variant)?;
        Ok(index)
    }
}

/// A variant's identifier: its index among the names.
struct VariantIndex(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for VariantIndex {
    type Value = usize;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

/// What serde's derive expects of a variant index: `variant index 0 <= i < N`.
struct IndexBelow(usize);

impl de::Expected for IndexBelow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "variant index 0 <= i < {}", self.0)
    }
}

impl Visitor<'_> for VariantIndex {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_u64<E: de::Error>(self, index: u64) -> Result<usize, E> {
        match usize::try_from(index) {
            Ok(i) if i < self.0.len() => Ok(i),
            _ => Err(E::invalid_value(de::Unexpected::Unsigned(index), &IndexBelow(self.0.len()))),
        }
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<usize, E> {
        self.0.iter().position(|n| *n == name).ok_or_else(|| E::unknown_variant(name, self.0))
    }

    fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<usize, E> {
        match self.0.iter().position(|n| n.as_bytes() == name) {
            Some(i) => Ok(i),
            None => Err(E::unknown_variant(&String::from_utf8_lossy(name), self.0)),
        }
    }
}

/// Reads the value of the map's current key into `slot`: one function a type of field.
#[inline(never)]
pub(crate) fn read_in<'de, T: de::Deserialize<'de>, A: MapAccess<'de>>(
    slot: &mut T,
    map: &mut A,
) -> Result<(), A::Error> {
    *slot = map.next_value()?;
    Ok(())
}

/// A key of a struct: the index of the field it names among `KEYS`, if any.
pub(crate) struct FieldIndex(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for FieldIndex {
    type Value = Option<usize>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for FieldIndex {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|k| *k == key))
    }
}

/// Fails unless `keys` are the properties of `T`'s JSON Schema (made from the same serde
/// attributes as its writer) and `required` the ones it requires; or, not `all`, some of them (a
/// narrow reader of an API type).
#[cfg(all(test, feature = "schema"))]
pub(crate) fn check_keys<T: schemars::JsonSchema>(keys: &[&str], required: &[&str], all: bool) {
    use serde_json::Value;
    let schema = schemars::schema_for!(T);
    let listed = |name: &str| -> Vec<String> {
        let mut keys: Vec<String> = match schema.get(name) {
            Some(Value::Object(properties)) => properties.keys().cloned().collect(),
            Some(Value::Array(keys)) => keys.iter().filter_map(|key| key.as_str().map(str::to_owned)).collect(),
            _ => Vec::new(),
        };
        keys.sort_unstable();
        keys
    };
    let written = listed("properties");
    let mut ours: Vec<String> = keys.iter().map(|key| (*key).to_owned()).collect();
    if !all {
        let unknown: Vec<&String> = ours.iter().filter(|key| !written.contains(key)).collect();
        assert_eq!(unknown, Vec::<&String>::new(), "keys {} does not have", T::schema_name());
        return;
    }
    ours.sort_unstable();
    assert_eq!(ours, written, "the keys of {}", T::schema_name());
    let mut ours_required: Vec<String> = required.iter().map(|key| (*key).to_owned()).collect();
    ours_required.sort_unstable();
    assert_eq!(ours_required, listed("required"), "the required fields of {}", T::schema_name());
}
