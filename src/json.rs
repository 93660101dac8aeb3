//! The JSON text the hosts write: compact as serde_json writes it, or indented as
//! `JSON.stringify(value, null, 2)` writes it.

/// The JSON text of a value: compact, or with `pretty` as `JSON.stringify(value, null, 2)` writes
/// it. Pretty text is the compact text indented by `indent` (below), not serde_json's pretty printer:
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
