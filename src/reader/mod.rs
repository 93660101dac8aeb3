//! The one reader of typed inputs: a serde `Deserializer` over an owned [`serde_json::Value`]
//! that keeps the path of where it is, so that the first shape problem comes back with its field
//! path and every field the target type ignores is collected as unknown.
//!
//! This is what `serde_path_to_error` and `serde_ignored` do together over serde_json's own value
//! deserializer, done in one layer instead of three. Each Kubernetes type's `Deserialize` is
//! compiled once per deserializer wrapped around it; with one layer the npm package's
//! WebAssembly went from 522 KB to 411 KB gzipped, the admission policy's from 382 KB to 282 KB,
//! and reading 10,000 observed pods natively from 99 ms to 65 ms (`read_10k_pods` in benches/).

use std::fmt::{self, Display};

use serde::de::{self, DeserializeSeed, Expected, IntoDeserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

use crate::error::{Code, Problem, Step, field_path};
use crate::fields::{deserialize_defaults, deserialize_names};
use crate::quantity::float_text;

mod repair;

pub(crate) use repair::{read_recovering, under};

/// How deep arrays and objects may nest: one level more than serde_json reads from JSON text (127),
/// so nothing read from text is refused for its depth. A value built in Rust can nest deeper, and
/// reading it into a type that holds free JSON (`managedFields[].fieldsV1`) would recurse until the
/// stack overflows.
pub(crate) const MAX_DEPTH: usize = 128;

/// What reading a value found: the value, or the first problem and where it is.
pub(crate) struct Outcome<T> {
    pub result: Result<T, ReadError>,
    /// Where the problem is (`spec.replicaSpecs.worker.replicas`), empty for the root.
    pub error_path: String,
    /// The path of every field the target type does not know, in the order read (objects' keys
    /// sorted, as `serde_json::Map` keeps them).
    pub unknown: Vec<String>,
    /// Where the problem is, for a repair.
    place: Place,
}

/// Where a problem is, segment by segment, whether it is about a key, and what kind of value was
/// asked for there.
#[derive(Default)]
struct Place {
    steps: Vec<Step>,
    at_key: bool,
    hint: Option<Hint>,
}

/// Reads a `T` from `value`; a value nesting deeper than [`MAX_DEPTH`] is refused first, with the
/// place where it does.
pub(crate) fn read<T: de::DeserializeOwned>(value: Value) -> Outcome<T> {
    match nested_too_deep(&value) {
        Some(steps) => too_deep(steps),
        None => read_within_depth(value),
    }
}

/// The outcome of reading a value that nests too deep at `steps`.
fn too_deep<T>(steps: Vec<Step>) -> Outcome<T> {
    let (error_path, error) = too_deep_error(&steps);
    Outcome { result: Err(error), error_path, unknown: Vec::new(), place: Place { steps, at_key: false, hint: None } }
}

/// The path and the error of a value that nests too deep at `steps`.
#[inline(never)]
fn too_deep_error(steps: &[Step]) -> (String, ReadError) {
    let message = format!("arrays and objects nest deeper than {MAX_DEPTH} levels here");
    (field_path(steps), ReadError { code: Code::TooLarge, message, kind: Kind::Value })
}

/// Reads a `T` from a `value` known to nest no deeper than [`MAX_DEPTH`].
pub(crate) fn read_within_depth<T: de::DeserializeOwned>(value: Value) -> Outcome<T> {
    let mut track = Track::default();
    let result = T::deserialize(Reader { value, track: &mut track });
    let (error_path, unknown, place) = track.finish();
    Outcome { result, error_path, unknown, place }
}

/// The place of the first array or object nested [`MAX_DEPTH`] levels below the top, found
/// without recursion.
pub(crate) fn nested_too_deep(value: &Value) -> Option<Vec<Step>> {
    type Children<'v> = Box<dyn Iterator<Item = (StepRef<'v>, &'v Value)> + 'v>;
    fn children(value: &Value) -> Option<Children<'_>> {
        match value {
            Value::Array(items) => Some(Box::new(items.iter().enumerate().map(|(i, v)| (StepRef::Index(i), v)))),
            Value::Object(map) => Some(Box::new(map.iter().map(|(k, v)| (StepRef::Key(k), v)))),
            _ => None,
        }
    }
    let mut stack = vec![children(value)?];
    let mut path = Vec::new();
    while let Some(top) = stack.last_mut() {
        let Some((step, child)) = top.next() else {
            stack.pop();
            path.pop();
            continue;
        };
        let Some(grandchildren) = children(child) else { continue };
        path.push(step);
        if stack.len() >= MAX_DEPTH {
            let owned = |s: &StepRef<'_>| match s {
                StepRef::Key(k) => Step::Key((*k).to_owned()),
                StepRef::Index(i) => Step::Index(*i),
            };
            return Some(path.iter().map(owned).collect());
        }
        stack.push(grandchildren);
    }
    None
}

/// A [`Step`] borrowed from the value.
enum StepRef<'v> {
    Key(&'v str),
    Index(usize),
}

/// A shape problem: a message as serde words it, and its code.
#[derive(Debug)]
pub(crate) struct ReadError {
    pub code: Code,
    pub message: String,
    /// What kind of problem, for [`repair`] to mend it.
    kind: Kind,
}

/// What went wrong, in the terms a repair needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A value of the wrong kind or out of its range, or one its type's own reader refused.
    Value,
    /// A struct lacks this required field.
    MissingField(&'static str),
    /// An enum name not among the type's; the first of them, if any.
    UnknownVariant(Option<&'static str>),
}

impl Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ReadError {}

impl de::Error for ReadError {
    fn custom<M: Display>(message: M) -> Self {
        ReadError { code: Code::InvalidValue, message: message.to_string(), kind: Kind::Value }
    }

    fn invalid_type(unexpected: Unexpected<'_>, expected: &dyn Expected) -> Self {
        let message = format!("invalid type: {}, expected {expected}", Found(unexpected));
        ReadError { code: Code::InvalidType, message, kind: Kind::Value }
    }

    fn invalid_value(unexpected: Unexpected<'_>, expected: &dyn Expected) -> Self {
        let message = format!("invalid value: {}, expected {expected}", Found(unexpected));
        ReadError { code: Code::InvalidValue, message, kind: Kind::Value }
    }

    fn missing_field(field: &'static str) -> Self {
        ReadError { code: Code::Required, message: format!("missing field `{field}`"), kind: Kind::MissingField(field) }
    }

    /// A field that a type refusing unknown fields (`Options`, the policy's settings) does not
    /// know: `unknown_field`, as the unknown fields of other types are reported.
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        let message = <de::value::Error as de::Error>::unknown_field(field, expected).to_string();
        ReadError { code: Code::UnknownField, message, kind: Kind::Value }
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        // Worded as serde words it (its own error type keeps the default wording).
        let message = <de::value::Error as de::Error>::unknown_variant(variant, expected).to_string();
        ReadError { code: Code::InvalidValue, message, kind: Kind::UnknownVariant(expected.first().copied()) }
    }
}

/// A value a type did not expect, worded as serde's `Unexpected` words it, a float written by
/// [`float_text`] rather than by Rust's float printer, which with its tables weighs 14 KB of the
/// npm package's module.
struct Found<'a>(Unexpected<'a>);

impl Display for Found<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Unexpected::Bool(b) => write!(f, "boolean `{b}`"),
            Unexpected::Unsigned(i) => write!(f, "integer `{i}`"),
            Unexpected::Signed(i) => write!(f, "integer `{i}`"),
            Unexpected::Float(x) => {
                // serde's `WithDecimalPoint`: `.0` after a finite whole number.
                let text = float_text(x);
                let point = if x.is_finite() && !text.contains('.') { ".0" } else { "" };
                write!(f, "floating point `{text}{point}`")
            }
            Unexpected::Char(c) => write!(f, "character `{c}`"),
            Unexpected::Str(s) => write!(f, "string {s:?}"),
            Unexpected::Bytes(_) => f.write_str("byte array"),
            Unexpected::Unit => f.write_str("unit value"),
            Unexpected::Option => f.write_str("Option value"),
            Unexpected::NewtypeStruct => f.write_str("newtype struct"),
            Unexpected::Seq => f.write_str("sequence"),
            Unexpected::Map => f.write_str("map"),
            Unexpected::Enum => f.write_str("enum"),
            Unexpected::UnitVariant => f.write_str("unit variant"),
            Unexpected::NewtypeVariant => f.write_str("newtype variant"),
            Unexpected::TupleVariant => f.write_str("tuple variant"),
            Unexpected::StructVariant => f.write_str("struct variant"),
            Unexpected::Other(other) => f.write_str(other),
        }
    }
}

/// Where the reader is: the steps from the top to the value being read, the one record of a
/// place (written as a path only when a problem or an unknown field is reported).
#[derive(Default)]
struct Track {
    /// The steps to the value being read; a key is moved in from the map being read, not copied.
    steps: Vec<Step>,
    /// The steps to the error, set by the deepest frame it passes through.
    error_steps: Option<Vec<Step>>,
    /// Whether the error is about a map key rather than a value.
    error_at_key: bool,
    /// The kind of value the frame entered last was asked for.
    hint: Option<Hint>,
    /// The kind of value the deepest failing frame was asked for: [`Track::hint`] when the error
    /// left it. A frame fails before it enters another (a wrong kind, a value its visitor refuses),
    /// or after, for a missing field, whose repair needs no hint.
    error_hint: Option<Hint>,
    unknown: Vec<String>,
}

/// What a frame was asked to read, so that a repair can put a value of that kind in its place.
#[derive(Clone, Copy, Debug)]
enum Hint {
    Any,
    Bool,
    Int,
    Float,
    Str,
    Seq,
    Map,
    Unit,
    Enum(&'static [&'static str]),
}

impl Track {
    /// What the read left: the error's path, the unknown fields, and where the error is.
    #[inline(never)]
    fn finish(self) -> (String, Vec<String>, Place) {
        let hint = if self.error_steps.is_some() { self.error_hint } else { self.hint };
        let error_path = self.error_steps.as_deref().map(field_path).unwrap_or_default();
        let place = Place { steps: self.error_steps.unwrap_or_default(), at_key: self.error_at_key, hint };
        (error_path, self.unknown, place)
    }

    /// Steps into the value at `step`.
    fn enter(&mut self, step: Step) {
        self.steps.push(step);
    }

    /// Steps out again; the first error on the way up keeps the place it happened at.
    /// (Not generic, so that it is compiled once rather than once per type read.)
    #[inline(never)]
    fn leave(&mut self, failed: bool) {
        if failed && self.error_steps.is_none() {
            self.error_steps = Some(self.steps.clone());
            self.error_hint = self.hint;
        }
        self.steps.pop();
    }

    /// The key being read: the last step.
    fn key(&self) -> &str {
        match self.steps.last() {
            Some(Step::Key(key)) => key,
            _ => "",
        }
    }

    /// Notes that the error is about the key being read.
    #[inline(never)]
    fn failed_at_key(&mut self) {
        if self.error_steps.is_none() {
            self.error_at_key = true;
        }
    }
}

struct Reader<'t> {
    value: Value,
    track: &'t mut Track,
}

impl<'de> Reader<'_> {
    /// The value as it is, to the visitor.
    fn any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_string(s),
            Value::Array(items) => visit_seq(items, self.track, visitor),
            Value::Object(entries) => visit_map(entries, self.track, visitor),
        }
    }

    /// [`Reader::any`], noting first what kind of value is asked for.
    fn hinted<V: Visitor<'de>>(self, hint: Hint, visitor: V) -> Result<V::Value, ReadError> {
        self.track.hint = Some(hint);
        self.any(visitor)
    }
}

macro_rules! hinted {
    ($($method:ident $hint:ident),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
            self.hinted(Hint::$hint, visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Reader<'_> {
    type Error = ReadError;

    hinted!(
        deserialize_any Any, deserialize_bool Bool, deserialize_i8 Int, deserialize_i16 Int, deserialize_i32 Int,
        deserialize_i64 Int, deserialize_i128 Int, deserialize_u8 Int, deserialize_u16 Int, deserialize_u32 Int,
        deserialize_u64 Int, deserialize_u128 Int, deserialize_f32 Float, deserialize_f64 Float, deserialize_char Str,
        deserialize_str Str, deserialize_string Str, deserialize_identifier Str, deserialize_bytes Seq,
        deserialize_byte_buf Seq, deserialize_unit Unit,
    );

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, ReadError> {
        self.hinted(Hint::Unit, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, ReadError> {
        self.hinted(Hint::Seq, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        self.hinted(Hint::Seq, visitor)
    }

    #[inline(never)]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    /// k8s-openapi's `Quantity` takes a number as the text Rust writes it: a float is handed to it
    /// as that text ([`float_text`]), so its own float arm, and Rust's float
    /// printer with it (14 KB of the npm package's module), is never compiled. Anything else, as
    /// its `deserialize_any` would have it. Inlined, so the name is known where it is compared.
    #[inline(always)]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        if name != "Quantity" {
            return visitor.visit_newtype_struct(self);
        }
        self.track.hint = Some(Hint::Any);
        match self.value {
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => visitor.visit_u64(u),
                (None, Some(i)) => visitor.visit_i64(i),
                (None, None) => visitor.visit_string(float_text(n.as_f64().unwrap_or(f64::NAN))),
            },
            Value::String(s) => visitor.visit_string(s),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    /// Enums are read from their name (`"OnFailure"`); the inputs hold no other kind.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        self.track.hint = Some(Hint::Enum(variants));
        match self.value {
            Value::String(s) => visitor.visit_enum(s.into_deserializer()),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    /// Called for a field the target type does not know: note its path, skip its value.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.track.unknown.push(field_path(&self.track.steps));
        visitor.visit_unit()
    }

    /// Objects and arrays go straight to the visitor, anything else to its `invalid type` error:
    /// these are read for every Kubernetes type, so `deserialize_any`'s other arms are left out.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        self.deserialize_map(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.track.hint = Some(Hint::Map);
        match self.value {
            Value::Object(entries) => visit_map(entries, self.track, visitor),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.track.hint = Some(Hint::Seq);
        match self.value {
            Value::Array(items) => visit_seq(items, self.track, visitor),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }
}

fn visit_seq<'de, V: Visitor<'de>>(items: Vec<Value>, track: &mut Track, visitor: V) -> Result<V::Value, ReadError> {
    let len = items.len();
    let mut seq = SeqReader { items: items.into_iter(), index: 0, track };
    let value = visitor.visit_seq(&mut seq)?;
    if seq.items.len() == 0 { Ok(value) } else { Err(de::Error::invalid_length(len, &"fewer elements in array")) }
}

fn visit_map<'de, V: Visitor<'de>>(
    entries: Map<String, Value>,
    track: &mut Track,
    visitor: V,
) -> Result<V::Value, ReadError> {
    let len = entries.len();
    let mut map = MapReader { entries: entries.into_iter(), value: None, track };
    let value = visitor.visit_map(&mut map)?;
    if map.entries.len() == 0 { Ok(value) } else { Err(de::Error::invalid_length(len, &"fewer elements in map")) }
}

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            (None, None) => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

struct SeqReader<'t> {
    items: std::vec::IntoIter<Value>,
    index: usize,
    track: &'t mut Track,
}

// The generic methods of the readers (compiled once per type read) only hand values to serde; the
// bookkeeping is in plain methods compiled once.
impl SeqReader<'_> {
    /// The next item, its index entered.
    fn advance(&mut self) -> Option<Value> {
        let value = self.items.next()?;
        self.track.enter(Step::Index(self.index));
        self.index += 1;
        Some(value)
    }
}

impl<'de> SeqAccess<'de> for SeqReader<'_> {
    type Error = ReadError;

    #[inline(never)]
    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, ReadError> {
        let Some(value) = self.advance() else { return Ok(None) };
        let read = seed.deserialize(Reader { value, track: &mut *self.track });
        self.track.leave(read.is_err());
        read.map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapReader<'t> {
    entries: <Map<String, Value> as IntoIterator>::IntoIter,
    /// The value of the key last read (the last step of the track until its value is read).
    value: Option<Value>,
    track: &'t mut Track,
}

impl MapReader<'_> {
    /// Moves to the next entry and enters its key.
    fn advance(&mut self) -> bool {
        let Some((key, value)) = self.entries.next() else { return false };
        self.track.enter(Step::Key(key));
        self.value = Some(value);
        true
    }

    fn take_value(&mut self) -> Result<Value, ReadError> {
        self.value.take().ok_or_else(|| de::Error::custom("a map value was asked for before its key"))
    }
}

impl<'de> MapAccess<'de> for MapReader<'_> {
    type Error = ReadError;

    fn next_key_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, ReadError> {
        if !self.advance() {
            return Ok(None);
        }
        let read = seed.deserialize(Key(self.track.key()));
        if read.is_err() {
            self.track.failed_at_key();
            self.track.leave(true);
        }
        read.map(Some)
    }

    #[inline(never)]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, ReadError> {
        let value = self.take_value()?;
        let read = seed.deserialize(Reader { value, track: &mut *self.track });
        self.track.leave(read.is_err());
        read
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// A map key: JSON keys are strings, read as numbers where the target type has numeric keys (the
/// indices of a sparse cluster spec). The inputs' maps are keyed by strings, replica types (read
/// from strings) and these indices only.
struct Key<'a>(&'a str);

macro_rules! parse_key {
    ($($method:ident $visit:ident $ty:ty),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
            match self.0.parse::<$ty>() {
                Ok(n) => visitor.$visit(n.into()),
                Err(_) => Err(de::Error::invalid_value(Unexpected::Str(self.0), &visitor)),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key<'_> {
    type Error = ReadError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        visitor.visit_str(self.0)
    }

    parse_key!(
        deserialize_u8 visit_u64 u8, deserialize_u16 visit_u64 u16, deserialize_u32 visit_u64 u32,
        deserialize_u64 visit_u64 u64, deserialize_i8 visit_i64 i8, deserialize_i16 visit_i64 i16,
        deserialize_i32 visit_i64 i32, deserialize_i64 visit_i64 i64
    );

    forward_to_deserialize_any! {
        bool i128 u128 f32 f64 char str string bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

// A problem read back (a host passing the errors of a refused job): `error`, of the lowest layer,
// may not use `fields`.
deserialize_names! {
    test code_names_are_the_written_ones;
    Code {
        Syntax "syntax", InvalidType "invalid_type", InvalidValue "invalid_value", Required "required",
        UnknownField "unknown_field", InvalidName "invalid_name", OutOfRange "out_of_range",
        InvalidQuantity "invalid_quantity", InvalidAddress "invalid_address", Duplicate "duplicate",
        Mismatch "mismatch", NoContainers "no_containers", ExceedsResourceLimits "exceeds_resource_limits",
        TfConfigHole "tf_config_hole", TooLarge "too_large", TfJob "tf_job", Forbidden "forbidden",
    }
}

deserialize_defaults! {
    test problem_keys_are_the_written_ones;
    Problem {
        path "path" required String::new(), code "code" required Code::Syntax,
        message "message" required String::new(),
    }
}

#[cfg(test)]
mod checked_tests;

#[cfg(test)]
mod tests {
    use crate::podspec::{Container, PodSpec};
    use serde_json::json;

    use super::*;

    fn error_of<T: de::DeserializeOwned + fmt::Debug>(value: Value) -> (String, Code, String) {
        let outcome = read::<T>(value);
        match outcome.result {
            Ok(v) => (format!("read {v:?}"), Code::InvalidValue, String::new()),
            Err(e) => (outcome.error_path, e.code, e.message),
        }
    }

    /// A float where another kind is asked for is worded as serde words it, and a quantity given
    /// as a float is the text k8s-openapi's `Quantity` makes of it, without Rust's float printer.
    #[test]
    fn floats_read_as_serde_and_k8s_openapi_read_them() {
        use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
        let floats = [0.5, -2.5, 1e21, 1e-7, 1658206780088562.2, 3.0e300, 123.456];
        for x in floats {
            let (_, code, message) = error_of::<String>(json!(x));
            let serdes = <de::value::Error as de::Error>::invalid_type(Unexpected::Float(x), &"a string");
            assert_eq!((code, message), (Code::InvalidType, serdes.to_string()));
            let ours = read::<Quantity>(json!(x)).result.unwrap();
            let k8s: Quantity = serde_json::from_value(json!(x)).unwrap();
            assert_eq!(ours, k8s, "{x}");
        }
        for (value, quantity) in [(json!(2), "2"), (json!(-3), "-3"), (json!("250m"), "250m")] {
            assert_eq!(read::<Quantity>(value).result.unwrap().0, quantity);
        }
        let (path, code, message) = error_of::<Quantity>(json!([1]));
        assert_eq!(
            (path.as_str(), code, message.as_str()),
            ("", Code::InvalidType, "invalid type: sequence, expected Quantity")
        );
    }

    #[test]
    fn empty_keys_keep_their_place_in_paths() {
        use std::collections::BTreeMap;
        // Found by the reader fuzz target: leading empty keys vanished, so `..a` was written `a`.
        let doc = json!({"": {"": {"a": [5]}}});
        type Nested = BTreeMap<String, BTreeMap<String, BTreeMap<String, Vec<String>>>>;
        let (path, code, _) = error_of::<Nested>(doc);
        assert_eq!((path.as_str(), code), ("..a[0]", Code::InvalidType));
        let steps = [Step::Key(String::new()), Step::Key(String::new()), Step::Key("a".into()), Step::Index(0)];
        assert_eq!(field_path(&steps), "..a[0]");
    }

    #[test]
    fn an_error_keeps_the_path_of_the_deepest_value() {
        let spec = json!({"containers": [{"name": "a"}, {"name": "b", "ports": [{"containerPort": "http"}]}]});
        assert_eq!(
            error_of::<PodSpec>(spec),
            (
                "containers[1].ports[0].containerPort".to_owned(),
                Code::InvalidType,
                "invalid type: string \"http\", expected i32".to_owned()
            )
        );
    }

    #[test]
    fn a_missing_field_is_reported_at_its_object() {
        assert_eq!(
            error_of::<Vec<RestartPolicyHolder>>(json!([{"policy": "Always"}, {}])),
            ("[1]".to_owned(), Code::Required, "missing field `policy`".to_owned())
        );
    }

    #[test]
    fn objects_arrays_and_enums_refuse_other_kinds() {
        assert_eq!(error_of::<PodSpec>(json!({"containers": {}})).0, "containers");
        assert_eq!(error_of::<Container>(json!("main")).1, Code::InvalidType);
        assert_eq!(
            error_of::<RestartPolicyHolder>(json!({"policy": 3})),
            ("policy".to_owned(), Code::InvalidType, "invalid type: integer `3`, expected enum Always".to_owned())
        );
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct RestartPolicyHolder {
        policy: Always,
    }

    #[derive(Debug, serde::Deserialize)]
    enum Always {
        Always,
    }

    #[test]
    fn unknown_fields_are_listed_once_at_their_top() {
        let container =
            json!({"name": "a", "imag": {"deep": {"deeper": 1}}, "ports": [{"containerPort": 1, "nmae": "x"}]});
        let outcome = read::<Container>(container);
        assert!(outcome.result.is_ok());
        assert_eq!(outcome.unknown, ["imag", "ports[0].nmae"]);
    }

    #[test]
    fn numeric_keys_are_read_from_their_text() {
        let outcome = read::<std::collections::BTreeMap<u32, String>>(json!({"1": "b", "0": "a"}));
        assert_eq!(
            outcome.result.ok().map(|m| m.into_values().collect::<Vec<_>>()),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            error_of::<std::collections::BTreeMap<u32, String>>(json!({"-1": "a"})),
            ("-1".to_owned(), Code::InvalidValue, "invalid value: string \"-1\", expected u32".to_owned())
        );
    }

    #[test]
    fn a_type_that_refuses_unknown_fields_reports_them_as_unknown() {
        // Found by the reader fuzz target: the code was `invalid_value`.
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Strict {
            image: Option<String>,
        }
        assert_eq!(
            error_of::<Strict>(json!({"imag": "x"})),
            ("imag".to_owned(), Code::UnknownField, "unknown field `imag`, expected `image`".to_owned())
        );
    }

    #[test]
    fn values_nest_at_most_as_deep_as_json_text() {
        let nested = |depth: usize| (1..depth).fold(json!([]), |v, _| Value::Array(vec![v]));
        assert!(read::<Value>(nested(MAX_DEPTH)).result.is_ok());
        let (path, code, message) = error_of::<Value>(nested(MAX_DEPTH + 1));
        assert_eq!((path, code), ("[0]".repeat(MAX_DEPTH), Code::TooLarge));
        assert_eq!(message, "arrays and objects nest deeper than 128 levels here");
        // Deeper than serde_json reads text.
        let text = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(serde_json::from_str::<Value>(&text(MAX_DEPTH - 1)).is_ok());
        assert!(serde_json::from_str::<Value>(&text(MAX_DEPTH)).is_err());
    }

    #[test]
    fn null_is_an_absent_option() {
        let outcome = read::<Container>(json!({"name": "a", "image": null}));
        assert_eq!(outcome.result.ok().map(|c| c.image), Some(None));
    }
}
