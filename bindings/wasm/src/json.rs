//! JavaScript values to JSON values, the way `JSON.stringify` reads them, but refusing what JSON
//! cannot hold instead of dropping it silently: every refusal names the field path.
//!
//! - a property whose value is `undefined` is left out (so an optional field passed as
//!   `undefined` is absent, not `null`); an `undefined` array item becomes `null`;
//! - an object with a `toJSON` method (a `Date`) is read through it;
//! - a number that is a whole number becomes an integer, others a float; `NaN` and infinities
//!   are refused;
//! - `Map`, `Set`, typed arrays, `bigint`, functions and symbols are refused, as is nesting deeper
//!   than [`MAX_DEPTH`] (a cycle).

use elasticjob::error::Step;
use elasticjob::{Code, Error, Problem};
use js_sys::{Array, Function, Object, Reflect};
use serde_json::{Map, Number, Value};
use wasm_bindgen::{JsCast, JsValue};

/// How deep objects may nest, as serde_json's own limit for JSON text.
pub const MAX_DEPTH: usize = 128;

/// Reads a JavaScript value as JSON.
///
/// # Errors
/// [`Error::Parse`] with code `invalid_type` at the path of the first value JSON cannot hold.
pub fn from_js(value: &JsValue) -> Result<Value, Error> {
    let mut steps = Vec::new();
    read(value, &mut steps, 0).map_err(|message| Error::Parse(Problem::at(&steps, Code::InvalidType, message)))
}

/// Reads `value`; on failure `steps` are left at the offending value and the message is returned.
fn read(value: &JsValue, steps: &mut Vec<Step>, depth: usize) -> Result<Value, String> {
    if value.is_null() || value.is_undefined() {
        return Ok(Value::Null);
    }
    if let Some(b) = value.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Some(n) = value.as_f64() {
        return number(n);
    }
    if let Some(s) = value.as_string() {
        return Ok(Value::String(s));
    }
    if value.is_bigint() {
        return Err("a bigint is not JSON: pass a number or a string".to_owned());
    }
    if value.is_symbol() || value.is_function() || !value.is_object() {
        return Err(format!("{} is not JSON", describe(value)));
    }
    if depth >= MAX_DEPTH {
        return Err(format!("objects nest deeper than {MAX_DEPTH} levels (is there a cycle?)"));
    }
    if let Some(array) = value.dyn_ref::<Array>() {
        let mut items = Vec::with_capacity(array.length() as usize);
        for (i, item) in array.iter().enumerate() {
            steps.push(Step::Index(i));
            items.push(read(&item, steps, depth + 1)?);
            steps.pop();
        }
        return Ok(Value::Array(items));
    }
    if value.is_instance_of::<js_sys::Map>() || value.is_instance_of::<js_sys::Set>() {
        return Err(format!("{} is not JSON: pass a plain object or an array", describe(value)));
    }
    if js_sys::ArrayBuffer::is_view(value) || value.is_instance_of::<js_sys::ArrayBuffer>() {
        return Err(format!("{} is not JSON", describe(value)));
    }
    if let Some(to_json) =
        Reflect::get(value, &JsValue::from_str("toJSON")).ok().and_then(|f| f.dyn_into::<Function>().ok())
    {
        let replaced = to_json.call0(value).map_err(|e| format!("its toJSON() threw: {}", message(&e)))?;
        return read(&replaced, steps, depth + 1);
    }
    let object: &Object = value.unchecked_ref();
    let mut map = Map::new();
    for key in Object::keys(object).iter() {
        let item = Reflect::get(object, &key).map_err(|e| format!("reading a property threw: {}", message(&e)))?;
        // `JSON.stringify` leaves out properties that are undefined, functions or symbols; a
        // function or symbol here is a mistake worth reporting, `undefined` the usual "absent".
        if item.is_undefined() {
            continue;
        }
        steps.push(Step::Key(key.as_string().unwrap_or_default()));
        let item = read(&item, steps, depth + 1)?;
        if let Some(Step::Key(key)) = steps.pop() {
            map.insert(key, item);
        }
    }
    Ok(Value::Object(map))
}

fn number(n: f64) -> Result<Value, String> {
    // Whole numbers within the range where every integer is exact become integers, as
    // `JSON.stringify` followed by a JSON parser would read them.
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if n.fract() == 0.0 && n.abs() <= EXACT {
        #[allow(clippy::cast_possible_truncation)]
        return Ok(Value::Number(Number::from(n as i64)));
    }
    Number::from_f64(n).map(Value::Number).ok_or_else(|| format!("{n} is not a JSON number"))
}

/// `a Map`, `a function`, `an instance of Foo`: what a refused value is, for the message.
fn describe(value: &JsValue) -> String {
    if value.is_function() {
        return "a function".to_owned();
    }
    if value.is_symbol() {
        return "a symbol".to_owned();
    }
    let name = Object::get_prototype_of(value)
        .constructor()
        .name()
        .as_string()
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "Object".to_owned());
    match name.as_str() {
        "Map" | "Set" => format!("a {name}"),
        _ => format!("an instance of {name}"),
    }
}

fn message(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "an exception".to_owned())
}

/// The JSON text of a value: compact, or with `pretty` as `JSON.stringify(value, null, 2)` writes
/// it. Pretty text is the compact text indented by [`indent`], not serde_json's pretty printer:
/// that would compile every `Serialize` of the rendered objects a second time (22 KB of the npm
/// package's gzipped wasm).
///
/// # Errors
/// Only what serde_json refuses to write (a map with keys that are not strings).
pub fn to_text<T: serde::Serialize>(value: &T, pretty: bool) -> serde_json::Result<String> {
    let text = serde_json::to_string(value)?;
    Ok(if pretty { indent(&text) } else { text })
}

/// `text`, compact JSON as serde_json writes it (no white space outside strings), indented as
/// `serde_json::to_string_pretty` and `JSON.stringify(value, null, 2)` write it: two spaces a level,
/// `"key": value`, empty objects and arrays as `{}` and `[]`. One pass; the text between the
/// punctuation is copied as it is.
fn indent(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let mut depth = 0usize;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    // `start..i` is text still to be copied.
    let (mut start, mut i) = (0, 0);
    while let Some(&b) = bytes.get(i) {
        if b == b'"' {
            i = string_end(bytes, i + 1);
            continue;
        }
        if !matches!(b, b'{' | b'[' | b'}' | b']' | b',' | b':') {
            i += 1;
            continue;
        }
        out.push_str(text.get(start..i).unwrap_or_default());
        match b {
            b'{' | b'[' => {
                let close = if b == b'{' { b'}' } else { b']' };
                if bytes.get(i + 1) == Some(&close) {
                    out.push_str(if b == b'{' { "{}" } else { "[]" });
                    i += 1;
                } else {
                    out.push(char::from(b));
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(char::from(b));
            }
            b',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            _ => out.push_str(": "),
        }
        i += 1;
        start = i;
    }
    out.push_str(text.get(start..).unwrap_or_default());
    out
}

/// The index after the `"` that closes the string whose text starts at `i`.
fn string_end(bytes: &[u8], mut i: usize) -> usize {
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            b'\\' => i += 1,
            b'"' => return i,
            _ => {}
        }
    }
    i
}
