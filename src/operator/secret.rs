//! Variables of a provider from its config Secret (operator.md §5.1): `data` values
//! base64-decoded, `stringData` merged over them (what the API server does on write).
//! Nothing else is a variable source: never the environment, never the config file.

use crate::model::pointer::Pointer as _;
use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::InputObject;

/// Find the Secret `namespace/name` among the inputs.
pub fn find_secret<'a>(
    objects: &'a [InputObject],
    namespace: &str,
    name: &str,
) -> Option<&'a InputObject> {
    objects.iter().find(|o| {
        o.value.get("kind").and_then(Value::as_str) == Some("Secret")
            && o.value.get("apiVersion").and_then(Value::as_str) == Some("v1")
            && o.value.ptr("/metadata/namespace").and_then(Value::as_str) == Some(namespace)
            && o.value.ptr("/metadata/name").and_then(Value::as_str) == Some(name)
    })
}

/// The Secret's variables. Errors name the field, never a value.
pub fn variables(secret: &Value) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    if let Some(data) = secret.get("data").filter(|v| !v.is_null()) {
        let m = data
            .as_object()
            .ok_or_else(|| Error::new("data: must be a mapping"))?;
        for (k, v) in m {
            let s = match v {
                Value::Null => "",
                Value::String(s) => s.as_str(),
                _ => return Err(Error::new(format!("data.{k}: must be a base64 string"))),
            };
            let bytes = crate::go::base64::decode(s.as_bytes()).map_err(|off| {
                Error::new(format!("data.{k}: illegal base64 data at input byte {off}"))
            })?;
            out.insert(k.clone(), String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    if let Some(sd) = secret.get("stringData").filter(|v| !v.is_null()) {
        let m = sd
            .as_object()
            .ok_or_else(|| Error::new("stringData: must be a mapping"))?;
        for (k, v) in m {
            let s = match v {
                Value::Null => String::new(),
                Value::String(s) => s.clone(),
                _ => return Err(Error::new(format!("stringData.{k}: must be a string"))),
            };
            out.insert(k.clone(), s);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn data_decoded_and_string_data_wins() {
        let v = variables(
            &json!({"data": {"A": "YQ==", "B": "Yg=="}, "stringData": {"B": "override", "C": "c"}}),
        )
        .unwrap();
        assert_eq!(v["A"], "a");
        assert_eq!(v["B"], "override");
        assert_eq!(v["C"], "c");
    }

    #[test]
    fn bad_base64_names_the_key_not_the_value() {
        let e = variables(&json!({"data": {"TOKEN": "s3cr3t!"}})).unwrap_err();
        assert!(
            e.message().starts_with("data.TOKEN: illegal base64 data"),
            "{e}"
        );
        assert!(!e.message().contains("s3cr3t"));
    }
}
