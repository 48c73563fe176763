//! Go's `encoding/json` view of variable values: `json.Marshal` bytes (compact, map
//! keys sorted, HTML-safe escaping, Go float texts) and the int64/float64 split that
//! `k8s.io/apimachinery/pkg/util/json.Unmarshal` makes for numbers.

use crate::go::float::json as go_json_float;

/// The integer a number decodes to with apimachinery's JSON decoder (integral and
/// within int64), or `None` when it stays a float64.
pub fn as_int64(n: &serde_json::Number) -> Option<i64> {
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    if n.as_u64().is_some() {
        return None;
    }
    let f = n.as_f64()?;
    // Go marshals an integral float64 without a fraction ("7"), which decodes as int64
    // when it fits; 2^63 itself does not.
    if f.fract() == 0.0
        && f.abs() < 9.223_372_036_854_776e18
        && go_json_float(f)
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'-')
    {
        Some(f as i64)
    } else {
        None
    }
}

/// `json.Marshal(v)` as a string.
pub use crate::typed::gojson::marshal;

/// A number's Go JSON text.
pub use crate::typed::gojson::json_number_text as number_text;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marshal_sorts_keys_and_escapes_html() {
        let v = json!({"b": [1.0, 1.5, true, null], "a": "<x&y>\n"});
        assert_eq!(
            marshal(&v),
            r#"{"a":"\u003cx\u0026y\u003e\n","b":[1,1.5,true,null]}"#
        );
    }

    #[test]
    fn integral_floats_decode_as_int64() {
        let n = |f: f64| serde_json::Number::from_f64(f).unwrap();
        assert_eq!(as_int64(&n(7.0)), Some(7));
        assert_eq!(as_int64(&n(-3.0)), Some(-3));
        assert_eq!(as_int64(&n(1.5)), None);
        assert_eq!(as_int64(&n(1e21)), None);
    }
}
