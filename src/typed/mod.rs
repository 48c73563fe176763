//! Side effects of clusterctl's typed round trips (R7.3, R7.5, R7.8).
//!
//! clusterctl converts some objects to Go structs and back with apimachinery's
//! `runtime.DefaultUnstructuredConverter`, as does cluster-api-operator. [`round_trip_as`]
//! reproduces `ToUnstructured(FromUnstructured(obj))` on our object model with the Go
//! types (k8s.io/api, apimachinery, apiextensions-apiserver) of the release the tool is
//! built on ([`K8s`]): v0.32.3 for clusterctl v1.10.10, v0.35.8 for cluster-api-operator
//! v0.29.0, v0.36.3 for clusterctl v1.14.2. A field the release does not have is dropped
//! (v0.36's pod `schedulingGroup` by v0.35, v0.35's `workloadRef` by v0.36, both by v0.32):
//!
//! * unknown and misspelled fields are dropped, at every depth;
//! * fields without `omitempty` appear with their zero value (`""`, `0`, `false`,
//!   `null` for nil slices, maps and pointers, `{}` for structs), e.g.
//!   `metadata.creationTimestamp: null`, Deployment `spec.strategy: {}`, `status: {}`;
//! * `omitempty` fields with an empty value (`""`, `0`, `false`, nil or empty list or map)
//!   are removed; structs are never empty;
//! * integer fields come back as integers (`i64` numbers), float fields stay `f64`;
//!   a float that is not integral in an integer field is an error
//!   (`cannot convert float64 to int32`); an integral one out of range wraps as Go's
//!   `int64(f)` then truncation do on amd64;
//! * `resource.Quantity` values are re-printed by [`quantity`] (`0.5` → `500m`,
//!   `1024Mi` → `1Gi`, but texts ParseQuantity keeps, such as `1e3` or `+1Mi`, stay);
//! * `IntOrString` keeps int-versus-string; `[]byte` (caBundle) is base64-decoded and
//!   re-encoded (padding and line breaks normalised; `""` disappears when omitempty);
//! * `metav1.Time` is parsed as RFC 3339 and printed in UTC (zero time → `null`); a
//!   field tagged `omitzero` (v0.34 and later: `ObjectMeta.CreationTimestamp`) is left out
//!   when zero, so v0.35 and v0.36 print no `creationTimestamp: null`;
//! * raw JSON (`JSON`, `RawExtension`, `FieldsV1`) is kept, with integral floats turned
//!   into integers (it went through JSON text);
//! * `JSONSchemaPropsOrBool/-OrArray/-OrStringArray` decode their schema with
//!   encoding/json rules: a non-schema `items` (e.g. `true` or `[]`) becomes `null`.
//!
//! `apiVersion` and `kind` (inline TypeMeta, `omitempty`) are kept as they are; clusterctl's
//! `scheme.Convert` then sets them to the registered GVK, which is the same value.
//!
//! Errors are FromUnstructured's texts. clusterctl calls `scheme.Scheme.Convert`, which
//! prefixes them: see [`scheme_convert_error`]. The type model is generated from the Go
//! types by `conformance/oracle/cmd/typegen` (see `conformance/regen-typed.sh`).

mod convert;
pub mod duration;
pub mod gotime;
mod model;
pub mod quantity;

pub use model::K8s;

use crate::model::pointer::Pointer as _;
use serde_json::Value;

use crate::error::{Error, Result};

/// The (apiVersion, kind) pairs clusterctl v1.10 round-trips, in the model's order (the
/// later releases' kinds are these less Cluster API's).
pub fn supported_kinds() -> Vec<(String, String)> {
    model::model(K8s::V0_32)
        .roots
        .iter()
        .map(|(a, k, _)| (a.to_string(), k.to_string()))
        .collect()
}

/// Whether [`round_trip_as`] knows this apiVersion and kind in clusterctl v1.10's model.
pub fn is_supported(api_version: &str, kind: &str) -> bool {
    model::model(K8s::V0_32)
        .roots
        .iter()
        .any(|(a, k, _)| *a == api_version && *k == kind)
}

/// Round trip an object typed by its own `apiVersion` and `kind`, in clusterctl v1.10's
/// types (the topology code of `topology plan`, which only v1.10 has).
pub fn round_trip(obj: &Value) -> Result<Value> {
    round_trip_in(K8s::V0_32, obj)
}

/// Round trip an object typed by its own `apiVersion` and `kind`, in `release`'s types.
pub fn round_trip_in(release: K8s, obj: &Value) -> Result<Value> {
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    round_trip_as(release, obj, api_version, kind)
}

/// Round trip an object through `release`'s Go type registered for `api_version`/`kind`.
/// The error message is FromUnstructured's.
pub fn round_trip_as(release: K8s, obj: &Value, api_version: &str, kind: &str) -> Result<Value> {
    let m = model::model(release);
    let idx = m
        .roots
        .iter()
        .find(|(a, k, _)| *a == api_version && *k == kind)
        .map(|r| r.2)
        .ok_or_else(|| {
            Error::new(format!(
                "typed round trip: unsupported type {api_version}, Kind={kind}"
            ))
        })?;
    let map = obj
        .as_object()
        .ok_or_else(|| Error::new("cannot restore struct from: not an object"))?;
    convert::Walker::new(m)
        .round_trip_struct(map, idx)
        .map_err(|e| {
            let err = Error::new(e.message());
            match e.path() {
                Some(p) => err.with_hint(format!(
                    "the value of {p} in the {kind} {:?} has the wrong type or range",
                    obj.ptr("/metadata/name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                )),
                None => err,
            }
        })
}

/// `json.Unmarshal` of an object into the Go type of its apiVersion and kind (one of
/// [`supported_kinds`]): Go's error text when a field has the wrong JSON type or an
/// integer is out of its Go type's range (`json: cannot unmarshal number 2147483648 into
/// Go struct field MachineDeploymentTopology.spec.topology.workers.machineDeployments.replicas
/// of type int32`).
pub fn json_decode_check(obj: &Value) -> Result<()> {
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    let m = model::model(K8s::V0_32);
    let Some(idx) = m
        .roots
        .iter()
        .find(|(a, k, _)| *a == api_version && *k == kind)
        .map(|r| r.2)
    else {
        return Ok(());
    };
    let Some(map) = obj.as_object() else {
        return Ok(());
    };
    convert::Walker::new(m)
        .json_decode_struct(map, idx)
        .map_err(|e| Error::new(e.message()))
}

/// The error `scheme.Scheme.Convert(unstructured, typed)` returns when FromUnstructured
/// fails: `unable to convert unstructured object to <group>/<version>, Kind=<kind>: <err>`.
pub fn scheme_convert_error(api_version: &str, kind: &str, err: &Error) -> Error {
    let gv = if api_version.contains('/') {
        api_version.to_string()
    } else {
        format!("/{api_version}")
    };
    Error::new(format!(
        "unable to convert unstructured object to {gv}, Kind={kind}: {err}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deployment_defaults() {
        let d = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "x", "bogus": 1},
            "spec": {"replicas": 1.0, "template": {"spec": {"containers": [
                {"name": "c", "image": "i", "env": [{"name": "A", "value": ""}],
                 "resources": {"limits": {"cpu": 0.5, "memory": "1024Mi"}}}]}}}
        });
        let out = round_trip(&d).unwrap();
        assert_eq!(
            out["metadata"],
            json!({"name": "x", "creationTimestamp": null})
        );
        assert_eq!(out["spec"]["replicas"], json!(1));
        assert!(out["spec"]["replicas"].is_i64());
        assert_eq!(out["spec"]["strategy"], json!({}));
        assert_eq!(out["spec"]["selector"], Value::Null);
        assert_eq!(out["status"], json!({}));
        let c = &out["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(c["env"], json!([{"name": "A"}]));
        assert_eq!(
            c["resources"]["limits"],
            json!({"cpu": "500m", "memory": "1Gi"})
        );
        assert_eq!(
            out["spec"]["template"]["metadata"],
            json!({"creationTimestamp": null})
        );
    }

    #[test]
    fn conversion_errors() {
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 2.5}});
        assert_eq!(
            round_trip(&d).unwrap_err().message(),
            "cannot convert float64 to int32"
        );
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": "2"}});
        let e = round_trip(&d).unwrap_err();
        assert_eq!(e.message(), "unrecognized type: int32");
        assert_eq!(
            e.hint(),
            Some("the value of spec.replicas in the Deployment \"d\" has the wrong type or range")
        );
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": "x"}]}]}}}});
        let e = round_trip(&d).unwrap_err();
        assert!(
            e.hint()
                .unwrap()
                .contains("spec.template.spec.containers[0].ports[0].containerPort"),
            "{:?}",
            e.hint()
        );
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": []});
        assert_eq!(
            round_trip(&d).unwrap_err().message(),
            "cannot restore struct from: slice"
        );
        let e = scheme_convert_error("apps/v1", "Deployment", &Error::new("boom"));
        assert_eq!(
            e.message(),
            "unable to convert unstructured object to apps/v1, Kind=Deployment: boom"
        );
    }

    #[test]
    fn unsupported_kind_is_an_error() {
        assert!(round_trip(&json!({"apiVersion": "v1", "kind": "Pod"})).is_err());
        assert!(is_supported(
            "apiextensions.k8s.io/v1beta1",
            "CustomResourceDefinition"
        ));
        assert_eq!(supported_kinds().len(), 17);
    }
}
