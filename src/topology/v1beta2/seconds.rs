//! v1beta2's `*Seconds` integers and v1beta1's Go duration strings.

use serde_json::Value;

use crate::error::{Error, Result};

const NANOS: i64 = 1_000_000_000;

/// A v1beta2 `*Seconds` value as the v1beta1 duration string the conversion writes
/// (`300` → `"5m0s"`). `path` names the field in errors.
pub fn to_duration(v: &Value, path: &str) -> Result<Value> {
    let secs = v
        .as_i64()
        .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
        .filter(|s| (0..=i64::from(i32::MAX)).contains(s))
        .ok_or_else(|| {
            Error::new(format!(
                "{path}: expected a non-negative int32 of seconds, got {v}"
            ))
        })?;
    Ok(Value::from(crate::typed::duration::format(secs * NANOS)))
}

/// A v1beta1 duration string as whole seconds (v1beta2 `*Seconds`; sub-second parts
/// are truncated as the conversion does).
pub fn from_duration(v: &Value, path: &str) -> Result<Value> {
    let s = v
        .as_str()
        .ok_or_else(|| Error::new(format!("{path}: expected a duration string, got {v}")))?;
    let nanos = crate::typed::duration::parse(s).map_err(|e| Error::new(format!("{path}: {e}")))?;
    Ok(Value::from(nanos / NANOS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn seconds_become_go_durations() {
        assert_eq!(to_duration(&json!(300), "p").unwrap(), json!("5m0s"));
        assert_eq!(to_duration(&json!(0), "p").unwrap(), json!("0s"));
        assert_eq!(to_duration(&json!(3661.0), "p").unwrap(), json!("1h1m1s"));
    }

    #[test]
    fn bad_seconds_name_the_field() {
        let e = to_duration(&json!("10s"), "spec.x").unwrap_err();
        assert!(e.message().contains("spec.x"), "{}", e.message());
        assert!(to_duration(&json!(-1), "p").is_err());
        assert!(to_duration(&json!(1.5), "p").is_err());
    }

    #[test]
    fn durations_become_whole_seconds() {
        assert_eq!(from_duration(&json!("5m0s"), "p").unwrap(), json!(300));
        assert_eq!(from_duration(&json!("1500ms"), "p").unwrap(), json!(1));
        assert!(from_duration(&json!(3), "p").is_err());
    }
}
