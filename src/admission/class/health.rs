//! `validateMachineHealthCheckClasses` (v1.14.2) on the v1beta2 `healthCheck` of the
//! control plane and of every MachineDeployment class: `checks.nodeStartupTimeoutSeconds`
//! at least 30 unless 0, `remediation.triggerIf.unhealthyLessThanOrEqualTo` and (workers)
//! `remediation.maxInFlight` an int or a percentage, and a control-plane health check
//! only with `machineInfrastructure`. Also the `intstr.IntOrString` rules the rollout
//! check shares.

use serde_json::Value;

use super::{list, text};
use crate::topology::obj;
use crate::topology::variables::field_error::{child, key, BadValue, FieldError};

/// An `*intstr.IntOrString` as the webhook decodes it: a JSON number is an int, a JSON
/// string a string; `None` for nil (absent or null).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum IntOrStr {
    Int(i64),
    Str(String),
}

impl IntOrStr {
    pub(super) fn at(v: &Value, path: &[&str]) -> Option<IntOrStr> {
        match obj::get(v, path)? {
            Value::Number(n) => Some(IntOrStr::Int(
                n.as_i64()
                    .unwrap_or_else(|| n.as_f64().unwrap_or(0.0) as i64),
            )),
            Value::String(s) => Some(IntOrStr::Str(s.clone())),
            _ => None,
        }
    }

    /// `IntOrString.String()`.
    pub(super) fn text(&self) -> String {
        match self {
            IntOrStr::Int(i) => i.to_string(),
            IntOrStr::Str(s) => s.clone(),
        }
    }

    /// `intstr.GetScaledValueFromIntOrPercent(v, 0, false)`'s error text, if any.
    pub(super) fn scale_error(&self) -> Option<String> {
        let IntOrStr::Str(s) = self else { return None };
        let why = match s.strip_suffix('%') {
            None => "invalid type: string is not a percentage".to_string(),
            Some(num) => match crate::go::strconv::atoi(num) {
                Ok(_) => return None,
                Err(e) => format!("invalid value {}: {e}", crate::go::quote::quote(s)),
            },
        };
        Some(format!("invalid value for IntOrString: {why}"))
    }

    /// The `must be either an int or a percentage` error of a set value at `path`.
    pub(super) fn check(v: Option<&IntOrStr>, path: &str, errs: &mut Vec<FieldError>) {
        if let Some(e) = v.and_then(IntOrStr::scale_error) {
            let bad = v.map(IntOrStr::text).unwrap_or_default();
            errs.push(FieldError::invalid(
                path,
                BadValue::Str(bad),
                format!("must be either an int or a percentage: {e}"),
            ));
        }
    }
}

/// `ControlPlaneClassHealthCheck.IsDefined` / `MachineDeploymentClassHealthCheck.IsDefined`:
/// `checks` or `remediation` is not Go's zero value (a list, even empty, is not zero;
/// `maxInFlight` is a field of the workers' remediation only).
fn is_defined(hc: &Value, workers: bool) -> bool {
    let set = |p: &[&str]| obj::get(hc, p).is_some_and(|v| !v.is_null());
    let list_set = |p: &[&str]| obj::get(hc, p).is_some_and(Value::is_array);
    let checks = set(&["checks", "nodeStartupTimeoutSeconds"])
        || list_set(&["checks", "unhealthyNodeConditions"])
        || list_set(&["checks", "unhealthyMachineConditions"]);
    let template_ref = ["kind", "name", "apiVersion"]
        .iter()
        .any(|k| !text(hc, &["remediation", "templateRef", k]).is_empty());
    let remediation = (workers && set(&["remediation", "maxInFlight"]))
        || set(&["remediation", "triggerIf", "unhealthyLessThanOrEqualTo"])
        || !text(hc, &["remediation", "triggerIf", "unhealthyInRange"]).is_empty()
        || template_ref;
    checks || remediation
}

/// `validateMachineHealthCheckNodeStartupTimeoutSeconds` and
/// `validateMachineHealthCheckUnhealthyLessThanOrEqualTo` of one health check at `path`.
fn common(hc: &Value, path: &str, errs: &mut Vec<FieldError>) {
    if let Some(t) = obj::get(hc, &["checks", "nodeStartupTimeoutSeconds"])
        .and_then(Value::as_number)
        .and_then(crate::go::json::as_int64)
    {
        if t != 0 && t < 30 {
            errs.push(FieldError::invalid(
                &child(&child(path, "checks"), "nodeStartupTimeoutSeconds"),
                BadValue::Int(t),
                "must be at least 30s",
            ));
        }
    }
    let u = IntOrStr::at(
        hc,
        &["remediation", "triggerIf", "unhealthyLessThanOrEqualTo"],
    );
    IntOrStr::check(
        u.as_ref(),
        &format!("{path}.remediation.triggerIf.unhealthyLessThanOrEqualTo"),
        errs,
    );
}

/// `validateMachineHealthCheckClasses`.
pub(super) fn health_check_classes(cc: &Value, errs: &mut Vec<FieldError>) {
    let null = Value::Null;
    let cp = obj::get(cc, &["spec", "controlPlane", "healthCheck"]).unwrap_or(&null);
    if is_defined(cp, false) {
        let path = "spec.controlPlane.healthCheck";
        common(cp, path, errs);
        let mi = ["kind", "name", "apiVersion"].iter().any(|k| {
            !text(
                cc,
                &[
                    "spec",
                    "controlPlane",
                    "machineInfrastructure",
                    "templateRef",
                    k,
                ],
            )
            .is_empty()
        });
        if !mi {
            errs.push(FieldError::forbidden(
                path,
                "can be only set if spec.controlPlane.machineInfrastructure is set",
            ));
        }
    }
    for md in list(cc, &["spec", "workers", "machineDeployments"]) {
        let hc = md.get("healthCheck").unwrap_or(&null);
        if !is_defined(hc, true) {
            continue;
        }
        let path = child(
            &key("spec.workers.machineDeployments", text(md, &["class"])),
            "healthCheck",
        );
        common(hc, &path, errs);
        let m = IntOrStr::at(hc, &["remediation", "maxInFlight"]);
        IntOrStr::check(m.as_ref(), &format!("{path}.remediation.maxInFlight"), errs);
    }
}
