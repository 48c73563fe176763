//! A compact, exact byte form of an object (`serde_json::Value`), for the Clusters of a
//! fleet while they wait to be rendered: a parsed Cluster costs about 12 KB (every
//! `BTreeMap` node is allocated for eleven entries), its compact form about a
//! twentieth of that. Decoding gives back the very same value: numbers keep their
//! variant and bits, maps their keys.
//!
//! Layout: one tag byte per value; `null`/`false`/`true` are the tag alone; numbers
//! are 8 bytes (little endian: u64, i64 or f64 bits); strings are a length and the
//! UTF-8 bytes; arrays and maps a count and their items (a map's keys as strings, in
//! the map's order). Lengths and counts are LEB128.

use serde_json::{Map, Number, Value};

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const U64: u8 = 3;
const I64: u8 = 4;
const F64: u8 = 5;
const STR: u8 = 6;
const ARR: u8 = 7;
const MAP: u8 = 8;

/// An encoded value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compact(Box<[u8]>);

impl Compact {
    pub fn encode(v: &Value) -> Compact {
        let mut out = Vec::with_capacity(256);
        put(v, &mut out);
        Compact(out.into_boxed_slice())
    }

    pub fn decode(&self) -> Value {
        let mut at = 0;
        // Only `encode` makes a Compact, so the bytes are well formed.
        take(&self.0, &mut at).unwrap_or(Value::Null)
    }

    /// The encoded bytes (the same value always gives the same bytes: a map's keys are
    /// in their sorted order).
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Encoded size in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn put_len(mut n: usize, out: &mut Vec<u8>) {
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn put_str(s: &str, out: &mut Vec<u8>) {
    put_len(s.len(), out);
    out.extend_from_slice(s.as_bytes());
}

fn put(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(NULL),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                out.push(U64);
                out.extend_from_slice(&u.to_le_bytes());
            } else if let Some(i) = n.as_i64() {
                out.push(I64);
                out.extend_from_slice(&i.to_le_bytes());
            } else {
                out.push(F64);
                let f = n.as_f64().unwrap_or(0.0);
                out.extend_from_slice(&f.to_bits().to_le_bytes());
            }
        }
        Value::String(s) => {
            out.push(STR);
            put_str(s, out);
        }
        Value::Array(a) => {
            out.push(ARR);
            put_len(a.len(), out);
            a.iter().for_each(|x| put(x, out));
        }
        Value::Object(m) => {
            out.push(MAP);
            put_len(m.len(), out);
            for (k, x) in m {
                put_str(k, out);
                put(x, out);
            }
        }
    }
}

fn take_len(b: &[u8], at: &mut usize) -> Option<usize> {
    let mut n = 0usize;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        n |= usize::from(byte & 0x7f).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            return Some(n);
        }
    }
    None
}

fn take_bytes<'a>(b: &'a [u8], at: &mut usize, n: usize) -> Option<&'a [u8]> {
    let s = b.get(*at..at.checked_add(n)?)?;
    *at += n;
    Some(s)
}

fn take_str(b: &[u8], at: &mut usize) -> Option<String> {
    let n = take_len(b, at)?;
    String::from_utf8(take_bytes(b, at, n)?.to_vec()).ok()
}

fn take_8(b: &[u8], at: &mut usize) -> Option<[u8; 8]> {
    take_bytes(b, at, 8)?.try_into().ok()
}

fn take(b: &[u8], at: &mut usize) -> Option<Value> {
    let tag = *b.get(*at)?;
    *at += 1;
    Some(match tag {
        NULL => Value::Null,
        FALSE => Value::Bool(false),
        TRUE => Value::Bool(true),
        U64 => Value::Number(u64::from_le_bytes(take_8(b, at)?).into()),
        I64 => Value::Number(i64::from_le_bytes(take_8(b, at)?).into()),
        F64 => Value::Number(Number::from_f64(f64::from_bits(u64::from_le_bytes(
            take_8(b, at)?,
        )))?),
        STR => Value::String(take_str(b, at)?),
        ARR => {
            let n = take_len(b, at)?;
            let mut a = Vec::with_capacity(n.min(b.len()));
            for _ in 0..n {
                a.push(take(b, at)?);
            }
            Value::Array(a)
        }
        MAP => {
            let n = take_len(b, at)?;
            let mut m = Map::new();
            for _ in 0..n {
                let k = take_str(b, at)?;
                m.insert(k, take(b, at)?);
            }
            Value::Object(m)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decoding_gives_back_the_same_value() {
        let values = [
            json!(null),
            json!({}),
            json!([]),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
                "metadata": {"name": "c", "labels": {"a": "b"}},
                "spec": {"topology": {"replicas": 3.0, "n": -4, "u": u64::MAX, "f": 0.1,
                    "tiny": 5e-324, "big": 1.7976931348623157e308, "neg0": -0.0,
                    "list": [true, false, null, "ü\u{0}\u{85}", [], {}]}}}),
            json!("x".repeat(300)),
        ];
        for v in values {
            let c = Compact::encode(&v);
            let back = c.decode();
            assert_eq!(back, v);
            // Number variants and bits, not only equality.
            assert_eq!(back.to_string(), v.to_string());
        }
        let f = Compact::encode(&json!(-0.0)).decode();
        assert!(f.as_f64().unwrap().is_sign_negative());
    }

    #[test]
    fn a_cluster_is_small() {
        let c = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
            "metadata": {"name": "c000001", "namespace": "ns1"},
            "spec": {"topology": {"class": "quick-start", "version": "v1.32.0",
                "controlPlane": {"replicas": 3.0},
                "workers": {"machineDeployments": [{"class": "default-worker", "name": "md-0", "replicas": 1.0}]}}}});
        assert!(
            Compact::encode(&c).len() < 300,
            "{}",
            Compact::encode(&c).len()
        );
    }
}
