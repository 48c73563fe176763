//! The ClusterClass webhook's MachineHealthCheck class checks
//! (`validateMachineHealthCheckClass` → the MachineHealthCheck webhook's
//! `validateCommonFields`, topology.md §9): `nodeStartupTimeout` at least 30s unless 0
//! (disabled), `maxUnhealthy` an int or a percentage, `remediationTemplate` in the
//! ClusterClass namespace.

use serde_json::Value;

use super::obj;
use super::variables::field_error::{self as fe, BadValue, FieldError};

/// Go's `%#v` of an `intstr.IntOrString` (how a field error prints the bad value).
fn int_or_string_go_syntax(v: &Value) -> String {
    match v {
        Value::String(s) => format!(
            "intstr.IntOrString{{Type:1, IntVal:0, StrVal:{}}}",
            crate::go::quote::quote(s)
        ),
        other => format!(
            "intstr.IntOrString{{Type:0, IntVal:{}, StrVal:\"\"}}",
            other.as_f64().map(|f| f as i64).unwrap_or(0)
        ),
    }
}

/// `intstr.GetScaledValueFromIntOrPercent(v, 0, false)`'s error, if any.
fn max_unhealthy_error(v: &Value) -> Option<String> {
    let Value::String(s) = v else { return None };
    let Some(num) = s.strip_suffix('%') else {
        return Some(
            "invalid value for IntOrString: invalid type: string is not a percentage".to_string(),
        );
    };
    match num.parse::<i64>() {
        Ok(_) if !num.starts_with('+') || num.len() > 1 => None,
        _ => Some(format!(
            "invalid value {}: strconv.Atoi: parsing {}: invalid syntax",
            crate::go::quote::quote(s),
            crate::go::quote::quote(num)
        )),
    }
}

/// The common-field errors of one MachineHealthCheck class at `path`.
pub fn mhc_class_errors(mhc: &Value, path: &str, class_namespace: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(Value::String(t)) = mhc.get("nodeStartupTimeout") {
        if let Ok(ns) = crate::typed::duration::parse(t) {
            let secs = ns as f64 / 1e9;
            if secs != 0.0 && secs < 30.0 {
                errs.push(FieldError::invalid(
                    &fe::child(path, "nodeStartupTimeout"),
                    // `m.Spec.NodeStartupTimeout.String()` on the *metav1.Duration:
                    // its generated (gogo) String, not time.Duration's.
                    BadValue::Str(format!(
                        "&Duration{{Duration:{},}}",
                        crate::typed::duration::format(ns)
                    )),
                    "must be at least 30s",
                ));
            }
        }
    }
    if let Some(m) = mhc.get("maxUnhealthy").filter(|v| !v.is_null()) {
        if let Some(e) = max_unhealthy_error(m) {
            errs.push(FieldError::invalid(
                &fe::child(path, "maxUnhealthy"),
                BadValue::GoSyntax(int_or_string_go_syntax(m)),
                format!("must be either an int or a percentage: {e}"),
            ));
        }
    }
    if let Some(r) = mhc.get("remediationTemplate").filter(|v| v.is_object()) {
        // Defaulting gave a namespace-less reference the ClusterClass namespace.
        let ns = match obj::str_at(r, &["namespace"]) {
            "" => class_namespace,
            n => n,
        };
        if ns != class_namespace {
            errs.push(FieldError::invalid(
                &fe::child(path, "remediationTemplate.namespace"),
                BadValue::Str(ns.to_string()),
                "must match metadata.namespace",
            ));
        }
    }
    errs
}

/// The control plane's health check class (its errors come before the
/// `machineInfrastructure` rule, which the caller checks).
pub fn control_plane_errors(cc: &Value) -> Vec<FieldError> {
    match obj::get(cc, &["spec", "controlPlane", "machineHealthCheck"]).filter(|v| !v.is_null()) {
        Some(m) => mhc_class_errors(
            m,
            "spec.controlPlane.machineHealthCheck",
            obj::namespace(cc),
        ),
        None => Vec::new(),
    }
}

/// Every MachineDeployment class's health check.
pub fn machine_deployment_errors(cc: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for md in obj::get(cc, &["spec", "workers", "machineDeployments"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(m) = md.get("machineHealthCheck").filter(|v| !v.is_null()) {
            let path = fe::child(
                &fe::key(
                    "spec.workers.machineDeployments",
                    obj::str_at(md, &["class"]),
                ),
                "machineHealthCheck",
            );
            errs.extend(mhc_class_errors(m, &path, obj::namespace(cc)));
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn common_field_rules() {
        let m = json!({"nodeStartupTimeout": "10s", "maxUnhealthy": "forty",
            "remediationTemplate": {"kind": "X", "name": "r", "namespace": "other"}});
        let errs = mhc_class_errors(&m, "p", "default");
        let got: Vec<(String, String)> = errs
            .iter()
            .map(|e| (e.field.clone(), e.detail.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("p.nodeStartupTimeout".to_string(), "must be at least 30s".to_string()),
                ("p.maxUnhealthy".to_string(), "must be either an int or a percentage: invalid value for IntOrString: invalid type: string is not a percentage".to_string()),
                ("p.remediationTemplate.namespace".to_string(), "must match metadata.namespace".to_string()),
            ]
        );
        assert_eq!(
            errs[0].bad_value,
            BadValue::Str("&Duration{Duration:10s,}".into())
        );
        assert_eq!(
            errs[1].bad_value,
            BadValue::GoSyntax("intstr.IntOrString{Type:1, IntVal:0, StrVal:\"forty\"}".into())
        );
        // 0 disables the timeout; percentages and ints are fine; no namespace is defaulted.
        let ok = json!({"nodeStartupTimeout": "0s", "maxUnhealthy": "40%", "remediationTemplate": {"name": "r"}});
        assert!(mhc_class_errors(&ok, "p", "default").is_empty());
        assert!(mhc_class_errors(&json!({"maxUnhealthy": 3}), "p", "default").is_empty());
        assert!(max_unhealthy_error(&json!("x%"))
            .unwrap()
            .contains("parsing \"x\""));
    }
}
