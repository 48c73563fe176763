//! How the Go types of Cluster API v1.14.2 (`api/core/v1beta2`) and the libraries its
//! Cluster webhook calls see a decoded field: `IsDefined` / `IsZero` of the topology
//! structs, `intstr.IntOrString`, blang `semver.Parse` and `net.ParseCIDR`.

use serde_json::Value;

use crate::go::quote::quote;
use crate::model::object as obj;

/// A field of a v1beta2 topology or health-check struct is Go's zero value
/// (`reflect.Value.IsZero`, and `reflect.DeepEqual` against the empty struct): absent or
/// `null`, an empty string, or an object all of whose fields are zero. In these structs
/// every number and bool is behind a pointer (set: not zero), a list once present
/// decodes to a non-nil slice (not zero, even empty), and the only maps are
/// `labels` and `annotations` (a present map is not zero).
pub fn is_zero(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Number(_) | Value::Bool(_) | Value::Array(_)) => false,
        Some(Value::Object(m)) => m.iter().all(|(k, v)| match v {
            Value::Object(_) if k == "labels" || k == "annotations" => false,
            _ => is_zero(Some(v)),
        }),
    }
}

/// `Topology.IsDefined`: `spec.topology` is not the empty struct.
pub fn topology_is_defined(cluster: &Value) -> bool {
    !is_zero(obj::get(cluster, &["spec", "topology"]))
}

/// `ContractVersionedObjectReference.IsDefined` (`spec.controlPlaneRef`,
/// `spec.infrastructureRef`): a kind, name or apiGroup is set.
pub fn contract_ref_is_defined(r: Option<&Value>) -> bool {
    r.is_some_and(|r| {
        ["kind", "name", "apiGroup"]
            .iter()
            .any(|f| !obj::str_at(r, &[f]).is_empty())
    })
}

/// `ClusterClassTemplateReference.IsDefined`: a kind, name or apiVersion is set.
pub fn template_ref_is_defined(r: Option<&Value>) -> bool {
    r.is_some_and(|r| {
        ["kind", "name", "apiVersion"]
            .iter()
            .any(|f| !obj::str_at(r, &[f]).is_empty())
    })
}

/// `*HealthCheck.IsDefined` (topology and class alike): its checks or its remediation
/// are set.
pub fn health_check_is_defined(hc: Option<&Value>) -> bool {
    hc.is_some_and(|hc| !is_zero(hc.get("checks")) || !is_zero(hc.get("remediation")))
}

/// An `intstr.IntOrString` as decoded: an int or a string.
pub enum IntOrString<'a> {
    Int(i64),
    Str(&'a str),
}

impl<'a> IntOrString<'a> {
    /// The field, when set (`nil` otherwise). A value of another JSON type is what the
    /// CRD schema refuses before the webhook runs; it is read as the int 0.
    pub fn of(v: Option<&'a Value>) -> Option<Self> {
        match v? {
            Value::Null => None,
            Value::String(s) => Some(IntOrString::Str(s)),
            Value::Number(n) => Some(IntOrString::Int(
                crate::go::json::as_int64(n).unwrap_or_default(),
            )),
            _ => Some(IntOrString::Int(0)),
        }
    }

    /// `IntOrString.String()`.
    pub fn text(&self) -> String {
        match self {
            IntOrString::Int(i) => i.to_string(),
            IntOrString::Str(s) => s.to_string(),
        }
    }

    /// The error of `intstr.GetScaledValueFromIntOrPercent(v, 0, false)`, if any.
    pub fn scaled_value_error(&self) -> Option<String> {
        let IntOrString::Str(s) = self else {
            return None;
        };
        let why = match s.strip_suffix('%') {
            None => "invalid type: string is not a percentage".to_string(),
            Some(digits) => match crate::go::strconv::atoi(digits) {
                Ok(_) => return None,
                Err(e) => format!("invalid value {}: {e}", quote(s)),
            },
        };
        Some(format!("invalid value for IntOrString: {why}"))
    }
}

const NUMBERS: &str = "0123456789";
const ALPHANUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789";

fn contains_only(s: &str, set: &str) -> bool {
    s.chars().all(|c| set.contains(c))
}

/// A major, minor or patch number: digits only, no leading zero, fits a uint64.
fn semver_number(s: &str) -> bool {
    contains_only(s, NUMBERS) && !(s.len() > 1 && s.starts_with('0')) && s.parse::<u64>().is_ok()
}

/// blang/semver v4 `semver.Parse(s)` succeeds.
pub fn is_blang_semver(s: &str) -> bool {
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    let [major, minor, rest] = parts.as_slice() else {
        return false;
    };
    if !semver_number(major) || !semver_number(minor) {
        return false;
    }
    let (rest, build) = match rest.split_once('+') {
        Some((r, b)) => (r, Some(b)),
        None => (*rest, None),
    };
    let (patch, pre) = match rest.split_once('-') {
        Some((p, pre)) => (p, Some(pre)),
        None => (rest, None),
    };
    if !semver_number(patch) {
        return false;
    }
    let pre_ok = pre.is_none_or(|pre| {
        pre.split('.').all(|p| {
            !p.is_empty()
                && if contains_only(p, NUMBERS) {
                    semver_number(p)
                } else {
                    contains_only(p, ALPHANUM)
                }
        })
    });
    let build_ok = build.is_none_or(|b| {
        b.split('.')
            .all(|p| !p.is_empty() && contains_only(p, ALPHANUM))
    });
    pre_ok && build_ok
}

/// Go's `net.ParseCIDR(s)` succeeds (Go 1.26: `netip.ParseAddr` without a zone, `/`, a
/// decimal prefix length, leading zeros allowed, no longer than the address).
pub fn is_go_cidr(s: &str) -> bool {
    let Some((addr, bits)) = s.split_once('/') else {
        return false;
    };
    let max = if addr.contains(':') {
        if addr.parse::<std::net::Ipv6Addr>().is_err() {
            return false;
        }
        128
    } else {
        if addr.parse::<std::net::Ipv4Addr>().is_err() {
            return false;
        }
        32
    };
    // `dtoi`: digits to the end, stopping (not ok) once the value reaches 0xFFFFFF.
    let mut n: u32 = 0;
    for b in bits.bytes() {
        if !b.is_ascii_digit() {
            return false;
        }
        n = n * 10 + u32::from(b - b'0');
        if n >= 0xFF_FFFF {
            return false;
        }
    }
    !bits.is_empty() && n <= max
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn zero_values() {
        assert!(is_zero(None));
        assert!(is_zero(Some(
            &json!({"classRef": {"name": ""}, "version": null})
        )));
        assert!(!is_zero(Some(&json!({"version": "v1"}))));
        assert!(!is_zero(Some(&json!({"controlPlane": {"replicas": 0}}))));
        assert!(!is_zero(Some(
            &json!({"workers": {"machineDeployments": []}})
        )));
        assert!(!is_zero(Some(
            &json!({"controlPlane": {"metadata": {"labels": {}}}})
        )));
        assert!(!topology_is_defined(&json!({"spec": {"topology": {}}})));
        assert!(topology_is_defined(
            &json!({"spec": {"topology": {"classRef": {"name": "c"}}}})
        ));
        assert!(!health_check_is_defined(Some(
            &json!({"enabled": true, "checks": {}})
        )));
        assert!(health_check_is_defined(Some(
            &json!({"checks": {"nodeStartupTimeoutSeconds": 0}})
        )));
        assert!(health_check_is_defined(Some(
            &json!({"remediation": {"triggerIf": {"unhealthyInRange": "[1-2]"}}})
        )));
        assert!(contract_ref_is_defined(Some(&json!({"apiGroup": "g"}))));
        assert!(!contract_ref_is_defined(Some(&json!({"kind": ""}))));
        assert!(template_ref_is_defined(Some(&json!({"apiVersion": "v"}))));
    }

    #[test]
    fn int_or_string() {
        let v = json!("abc");
        let e = IntOrString::of(Some(&v)).unwrap();
        assert_eq!(
            e.scaled_value_error().unwrap(),
            "invalid value for IntOrString: invalid type: string is not a percentage"
        );
        let v = json!("a%");
        assert_eq!(
            IntOrString::of(Some(&v)).unwrap().scaled_value_error().unwrap(),
            "invalid value for IntOrString: invalid value \"a%\": strconv.Atoi: parsing \"a\": invalid syntax"
        );
        for ok in [json!("10%"), json!(3), json!("-5%")] {
            assert!(IntOrString::of(Some(&ok))
                .unwrap()
                .scaled_value_error()
                .is_none());
        }
        assert!(IntOrString::of(Some(&Value::Null)).is_none());
        assert_eq!(IntOrString::of(Some(&json!(0))).unwrap().text(), "0");
    }

    #[test]
    fn blang_semver() {
        for ok in [
            "1.2.3",
            "0.0.0",
            "1.33.0-rc.1+build.5",
            "1.2.3-alpha-1",
            "1.2.3+00",
        ] {
            assert!(is_blang_semver(ok), "{ok}");
        }
        for bad in [
            "",
            "1",
            "1.2",
            "01.2.3",
            "1.02.3",
            "1.2.03",
            "1.2.3x",
            "1.2.3-",
            "1.2.3-01",
            "1.2.3+",
            "1.2.3+a..b",
            "1.2.3-a_b",
            "v1.2.3",
            "1.2.-3",
            "99999999999999999999.1.1",
        ] {
            assert!(!is_blang_semver(bad), "{bad}");
        }
    }

    #[test]
    fn go_cidr() {
        for ok in [
            "10.10.10.10/24",
            "2004::1234:abcd:ffff:c0a8:101/64",
            "0.0.0.0/0",
            "10.0.0.0/008",
            "::ffff:1.2.3.4/100",
        ] {
            assert!(is_go_cidr(ok), "{ok}");
        }
        for bad in [
            "10.10.10.10",
            "10.0.0.0/33",
            "::/129",
            "10.0.0.0/",
            "10.0.0.0/+8",
            "010.0.0.0/8",
            "fe80::1%eth0/64",
            "x/8",
            "10.0.0.0/99999999",
        ] {
            assert!(!is_go_cidr(bad), "{bad}");
        }
    }
}
