//! Small pieces of Go's encoding/json and encoding/base64 behaviour the round trip
//! depends on: how a float64 is written, how a number comes back from JSON text
//! (int64 when the text parses as one, else float64), and base64 for `[]byte`.

use serde_json::{Number, Value};

/// Go `encoding/json` text of a number held as Go float64/int64/uint64.
pub fn number_text(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    float_text(n.as_f64().unwrap_or(0.0))
}

/// Go `encoding/json` text of a float64: shortest digits, 'f' form for
/// 1e-6 <= |f| < 1e21, else 'e' form with a cleaned exponent (`1e+21`, `1.5e-7`).
pub fn float_text(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let s = format!("{f:e}");
        match s.split_once('e') {
            Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
            _ => s,
        }
    } else {
        format!("{f}")
    }
}

/// A number after JSON text → apimachinery's `unmarshal` (UseNumber, then int64 if
/// the text is an integer that fits, else float64).
pub fn normalize_number(n: &Number) -> Value {
    let text = number_text(n);
    match text.parse::<i64>() {
        Ok(i) => Value::from(i),
        Err(_) => match n.as_f64() {
            Some(f) => Number::from_f64(f)
                .map(Value::Number)
                .unwrap_or(Value::Null),
            None => Value::Null,
        },
    }
}

/// Apply [`normalize_number`] throughout a JSON value (what a raw JSON field's
/// MarshalJSON → unmarshal round trip does).
pub fn normalize_numbers(v: &Value) -> Value {
    match v {
        Value::Number(n) => normalize_number(n),
        Value::Array(a) => Value::Array(a.iter().map(normalize_numbers).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), normalize_numbers(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

const STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// base64.StdEncoding.EncodeToString.
pub fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let idx = [(v >> 18) & 63, (v >> 12) & 63, (v >> 6) & 63, v & 63];
        out.push(char::from(STD[idx[0] as usize]));
        out.push(char::from(STD[idx[1] as usize]));
        if chunk.len() > 1 {
            out.push(char::from(STD[idx[2] as usize]));
        } else {
            out.push('=');
        }
        if chunk.len() > 2 {
            out.push(char::from(STD[idx[3] as usize]));
        } else {
            out.push('=');
        }
    }
    out
}

fn decode_char(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// base64.StdEncoding.Decode (padded, not strict, `\r`/`\n` skipped). The error is the
/// byte offset Go's CorruptInputError reports.
pub fn base64_decode(src: &[u8]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0usize;
    loop {
        // One quantum (Go's decodeQuantum).
        let mut dbuf = [0u8; 4];
        let mut dlen = 4usize;
        let mut j = 0usize;
        let mut trailing_err: Option<usize> = None;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                return Err(si - j);
            }
            let c = src[si];
            si += 1;
            if let Some(v) = decode_char(c) {
                dbuf[j] = v;
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' {
                return Err(si - 1);
            }
            // Padding.
            match j {
                0 | 1 => return Err(si - 1),
                2 => {
                    while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(src.len());
                    }
                    if src[si] != b'=' {
                        return Err(si - 1);
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                si += 1;
            }
            if si < src.len() {
                trailing_err = Some(si);
            }
            dlen = j;
            break;
        }
        let val = (u32::from(dbuf[0]) << 18)
            | (u32::from(dbuf[1]) << 12)
            | (u32::from(dbuf[2]) << 6)
            | u32::from(dbuf[3]);
        let bytes = [(val >> 16) as u8, (val >> 8) as u8, val as u8];
        out.extend_from_slice(&bytes[..dlen.saturating_sub(1)]);
        if let Some(e) = trailing_err {
            return Err(e);
        }
        if dlen < 4 {
            return Ok(out);
        }
    }
}

/// `json.Marshal` text of a JSON value: compact, map keys in byte order (serde_json's
/// map is a BTreeMap, like Go's sorted keys), Go's HTML-safe string escaping and Go's
/// number texts. The one copy every stage that quotes or hashes Go JSON uses.
pub fn marshal(v: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, v);
    out
}

fn write_json(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&json_number_text(n)),
        Value::String(s) => write_json_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, k);
                out.push(':');
                write_json(out, item);
            }
            out.push('}');
        }
    }
}

/// A number's `encoding/json` text (integers as such, floats in Go's format).
pub fn json_number_text(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        crate::yaml::emit::go_json_float(n.as_f64().unwrap_or(0.0))
    }
}

/// Go's `encodeState.string` with `escapeHTML` on.
fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_texts_like_go() {
        assert_eq!(float_text(0.5), "0.5");
        assert_eq!(float_text(3.0), "3");
        assert_eq!(float_text(1e20), "100000000000000000000");
        assert_eq!(float_text(1e21), "1e+21");
        assert_eq!(float_text(1.5e-7), "1.5e-7");
        assert_eq!(float_text(0.000001), "0.000001");
        assert_eq!(float_text(-0.0), "-0");
    }

    #[test]
    fn base64_round_trip_and_errors() {
        assert_eq!(base64_encode(b"hello"), "aGVsbG8=");
        assert_eq!(base64_decode(b"aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode(b"aGVs\nbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode(b"Cg==").unwrap(), b"\n");
        assert_eq!(base64_decode(b"Ch==").unwrap(), b"\n");
        assert_eq!(base64_decode(b"Cg"), Err(0));
        assert_eq!(base64_decode(b"aGVsbG8"), Err(4));
        assert_eq!(base64_decode(b"a!=="), Err(1));
        assert_eq!(base64_decode(b"Cg==x"), Err(4));
    }
}
