//! TEMPORARY: identity placeholder until the typed round-trip model lands (branch `typed`).
use serde_json::Value;
pub fn round_trip(obj: &Value) -> crate::Result<Value> {
    Ok(obj.clone())
}
