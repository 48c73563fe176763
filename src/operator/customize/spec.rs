//! The parts of the v1alpha2 `ProviderSpec` the customisation stage reads (operator.md
//! §1.2–§1.4), decoded from JSON with Go's `encoding/json` rules for the operator's
//! Go types (`api/v1alpha2/provider_types.go`, `controllermanagerconfig_types.go`):
//!
//! * `null` is the same as an absent field (the API server prunes nulls of
//!   non-nullable fields, and Go leaves the zero value);
//! * absent scalars take Go's zero value: `verbosity` absent is `0`, so `--v=0`
//!   (the CRD default `1` is applied by the conversion stage before this one, R1.5.3);
//! * pointer and slice/map fields keep "absent" apart from "empty"
//!   (`tolerations: []`, `nodeSelector: {}`, `imagePullSecrets: []`, `command: []`
//!   are meaningful, R6.3);
//! * integers are accepted as JSON integers or integral floats (our YAML reader gives
//!   `f64`, as Go's does); durations are `metav1.Duration` strings (`time.ParseDuration`).
//!
//! Kubernetes-typed values (`affinity`, `tolerations`, `env`, `resources`,
//! `imagePullSecrets`) are kept as JSON: the Deployment's typed round trip after
//! customisation normalises them as the operator's typed assignment would.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::typed::duration;

/// `ProviderSpec` (the fields used by §6–§7).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderSpec {
    pub manager: Option<ManagerSpec>,
    pub deployment: Option<DeploymentSpec>,
    /// `manifestPatches` (legacy, R7.2).
    pub manifest_patches: Vec<String>,
    /// `patches` (R7.1).
    pub patches: Vec<Patch>,
    /// `additionalDeployments`; `None` when absent (Go's nil map).
    pub additional_deployments: Option<BTreeMap<String, AdditionalDeployment>>,
}

/// One `additionalDeployments` entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AdditionalDeployment {
    pub manager: Option<ManagerSpec>,
    pub deployment: Option<DeploymentSpec>,
}

/// `ManagerSpec` with its inline `ControllerManagerConfiguration`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ManagerSpec {
    /// `syncPeriod` in nanoseconds.
    pub sync_period: Option<i64>,
    pub leader_election: Option<LeaderElection>,
    pub cache_namespace: String,
    /// `controller.groupKindConcurrency`; `None` when `controller` is absent.
    pub group_kind_concurrency: Option<BTreeMap<String, i64>>,
    pub metrics_bind_address: String,
    pub metrics_diagnostics_address: String,
    pub metrics_insecure_diagnostics: bool,
    pub health_probe_bind_address: String,
    pub health_readiness_endpoint_name: String,
    pub health_liveness_endpoint_name: String,
    pub webhook_port: Option<i64>,
    pub webhook_host: String,
    pub webhook_cert_dir: String,
    pub profiler_address: String,
    pub max_concurrent_reconciles: i64,
    pub verbosity: i64,
    pub feature_gates: BTreeMap<String, bool>,
    pub additional_args: BTreeMap<String, String>,
}

/// component-base `LeaderElectionConfiguration` (durations in nanoseconds, zero when absent).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeaderElection {
    pub leader_elect: Option<bool>,
    pub lease_duration: i64,
    pub renew_deadline: i64,
    pub retry_period: i64,
    pub resource_name: String,
    pub resource_namespace: String,
}

/// `DeploymentSpec`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeploymentSpec {
    pub replicas: Option<i64>,
    /// A JSON object (possibly empty).
    pub node_selector: Option<Value>,
    /// A JSON array (possibly empty).
    pub tolerations: Option<Value>,
    pub affinity: Option<Value>,
    pub containers: Vec<ContainerSpec>,
    pub service_account_name: String,
    /// A JSON array (possibly empty).
    pub image_pull_secrets: Option<Value>,
}

/// `ContainerSpec`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContainerSpec {
    pub name: String,
    pub image_url: Option<String>,
    pub args: BTreeMap<String, String>,
    /// `corev1.EnvVar` objects.
    pub env: Vec<Value>,
    pub resources: Option<Value>,
    pub command: Option<Vec<String>>,
}

/// `Patch` with its optional `PatchSelector`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Patch {
    pub patch: String,
    pub target: Option<PatchSelector>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct PatchSelector {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
    pub label_selector: String,
}

// ---------------------------------------------------------------------------
// Field access with Go's decoding rules

fn bad(path: &str, want: &str, got: &Value) -> Error {
    let what = crate::go::json::type_name(got);
    Error::new(format!(
        "invalid ProviderSpec: {path}: expected {want}, got {what} {got}"
    ))
}

/// A present, non-null field.
fn field<'a>(m: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    m.get(key).filter(|v| !v.is_null())
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn as_object<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>> {
    v.as_object().ok_or_else(|| bad(path, "an object", v))
}

fn as_array<'a>(v: &'a Value, path: &str) -> Result<&'a Vec<Value>> {
    v.as_array().ok_or_else(|| bad(path, "an array", v))
}

fn as_string(v: &Value, path: &str) -> Result<String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| bad(path, "a string", v))
}

fn as_bool(v: &Value, path: &str) -> Result<bool> {
    v.as_bool().ok_or_else(|| bad(path, "a boolean", v))
}

/// A Go `int`: a JSON integer, or an integral float (what our YAML reader produces).
fn as_int(v: &Value, path: &str) -> Result<i64> {
    if let Some(i) = v.as_i64() {
        return Ok(i);
    }
    match v.as_f64() {
        Some(f)
            if f.fract() == 0.0
                && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) =>
        {
            Ok(f as i64)
        }
        _ => Err(bad(path, "an integer", v)),
    }
}

fn opt_string(m: &Map<String, Value>, key: &str, path: &str) -> Result<String> {
    match field(m, key) {
        Some(v) => as_string(v, &child(path, key)),
        None => Ok(String::new()),
    }
}

fn opt_int(m: &Map<String, Value>, key: &str, path: &str) -> Result<Option<i64>> {
    field(m, key)
        .map(|v| as_int(v, &child(path, key)))
        .transpose()
}

fn opt_bool(m: &Map<String, Value>, key: &str, path: &str) -> Result<Option<bool>> {
    field(m, key)
        .map(|v| as_bool(v, &child(path, key)))
        .transpose()
}

fn opt_duration(m: &Map<String, Value>, key: &str, path: &str) -> Result<Option<i64>> {
    match field(m, key) {
        None => Ok(None),
        Some(v) => {
            let p = child(path, key);
            let s = as_string(v, &p)?;
            duration::parse(&s)
                .map(Some)
                .map_err(|e| Error::new(format!("invalid ProviderSpec: {p}: {e}")))
        }
    }
}

fn opt_object(m: &Map<String, Value>, key: &str, path: &str) -> Result<Option<Value>> {
    match field(m, key) {
        None => Ok(None),
        Some(v) => {
            as_object(v, &child(path, key))?;
            Ok(Some(v.clone()))
        }
    }
}

fn opt_array(m: &Map<String, Value>, key: &str, path: &str) -> Result<Option<Value>> {
    match field(m, key) {
        None => Ok(None),
        Some(v) => {
            as_array(v, &child(path, key))?;
            Ok(Some(v.clone()))
        }
    }
}

fn string_map(m: &Map<String, Value>, key: &str, path: &str) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    if let Some(v) = field(m, key) {
        let p = child(path, key);
        for (k, x) in as_object(v, &p)? {
            // A null map value decodes to Go's zero value "".
            let s = if x.is_null() {
                String::new()
            } else {
                as_string(x, &child(&p, k))?
            };
            out.insert(k.clone(), s);
        }
    }
    Ok(out)
}

fn sub<'a>(
    m: &'a Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<&'a Map<String, Value>>> {
    field(m, key)
        .map(|v| as_object(v, &child(path, key)))
        .transpose()
}

// ---------------------------------------------------------------------------
// Decoders

impl ProviderSpec {
    /// Decode `spec` (a JSON object; `null` is an empty spec).
    pub fn from_json(spec: &Value) -> Result<ProviderSpec> {
        if spec.is_null() {
            return Ok(ProviderSpec::default());
        }
        let path = "spec";
        let m = as_object(spec, path)?;
        let mut out = ProviderSpec {
            manager: sub(m, "manager", path)?
                .map(|x| ManagerSpec::from_map(x, &child(path, "manager")))
                .transpose()?,
            deployment: sub(m, "deployment", path)?
                .map(|x| DeploymentSpec::from_map(x, &child(path, "deployment")))
                .transpose()?,
            ..Default::default()
        };
        if let Some(v) = field(m, "manifestPatches") {
            let p = child(path, "manifestPatches");
            for (i, x) in as_array(v, &p)?.iter().enumerate() {
                out.manifest_patches.push(if x.is_null() {
                    String::new()
                } else {
                    as_string(x, &format!("{p}[{i}]"))?
                });
            }
        }
        if let Some(v) = field(m, "patches") {
            let p = child(path, "patches");
            for (i, x) in as_array(v, &p)?.iter().enumerate() {
                let ip = format!("{p}[{i}]");
                out.patches.push(Patch::from_map(as_object(x, &ip)?, &ip)?);
            }
        }
        if let Some(v) = field(m, "additionalDeployments") {
            let p = child(path, "additionalDeployments");
            let mut ads = BTreeMap::new();
            for (k, x) in as_object(v, &p)? {
                let kp = child(&p, k);
                let ad = if x.is_null() {
                    AdditionalDeployment::default()
                } else {
                    let xm = as_object(x, &kp)?;
                    AdditionalDeployment {
                        manager: sub(xm, "manager", &kp)?
                            .map(|y| ManagerSpec::from_map(y, &child(&kp, "manager")))
                            .transpose()?,
                        deployment: sub(xm, "deployment", &kp)?
                            .map(|y| DeploymentSpec::from_map(y, &child(&kp, "deployment")))
                            .transpose()?,
                    }
                };
                ads.insert(k.clone(), ad);
            }
            out.additional_deployments = Some(ads);
        }
        Ok(out)
    }
}

impl ManagerSpec {
    pub fn from_map(m: &Map<String, Value>, path: &str) -> Result<ManagerSpec> {
        let mut out = ManagerSpec {
            sync_period: opt_duration(m, "syncPeriod", path)?,
            cache_namespace: opt_string(m, "cacheNamespace", path)?,
            profiler_address: opt_string(m, "profilerAddress", path)?,
            max_concurrent_reconciles: opt_int(m, "maxConcurrentReconciles", path)?.unwrap_or(0),
            verbosity: opt_int(m, "verbosity", path)?.unwrap_or(0),
            additional_args: string_map(m, "additionalArgs", path)?,
            ..Default::default()
        };
        if let Some(le) = sub(m, "leaderElection", path)? {
            let p = child(path, "leaderElection");
            out.leader_election = Some(LeaderElection {
                leader_elect: opt_bool(le, "leaderElect", &p)?,
                lease_duration: opt_duration(le, "leaseDuration", &p)?.unwrap_or(0),
                renew_deadline: opt_duration(le, "renewDeadline", &p)?.unwrap_or(0),
                retry_period: opt_duration(le, "retryPeriod", &p)?.unwrap_or(0),
                resource_name: opt_string(le, "resourceName", &p)?,
                resource_namespace: opt_string(le, "resourceNamespace", &p)?,
            });
        }
        if let Some(c) = sub(m, "controller", path)? {
            let p = child(path, "controller");
            let mut gkc = BTreeMap::new();
            if let Some(v) = field(c, "groupKindConcurrency") {
                let gp = child(&p, "groupKindConcurrency");
                for (k, x) in as_object(v, &gp)? {
                    let n = if x.is_null() {
                        0
                    } else {
                        as_int(x, &child(&gp, k))?
                    };
                    gkc.insert(k.clone(), n);
                }
            }
            out.group_kind_concurrency = Some(gkc);
        }
        if let Some(x) = sub(m, "metrics", path)? {
            let p = child(path, "metrics");
            out.metrics_bind_address = opt_string(x, "bindAddress", &p)?;
            out.metrics_diagnostics_address = opt_string(x, "diagnosticsAddress", &p)?;
            out.metrics_insecure_diagnostics =
                opt_bool(x, "insecureDiagnostics", &p)?.unwrap_or(false);
        }
        if let Some(x) = sub(m, "health", path)? {
            let p = child(path, "health");
            out.health_probe_bind_address = opt_string(x, "healthProbeBindAddress", &p)?;
            out.health_readiness_endpoint_name = opt_string(x, "readinessEndpointName", &p)?;
            out.health_liveness_endpoint_name = opt_string(x, "livenessEndpointName", &p)?;
        }
        if let Some(x) = sub(m, "webhook", path)? {
            let p = child(path, "webhook");
            out.webhook_port = opt_int(x, "port", &p)?;
            out.webhook_host = opt_string(x, "host", &p)?;
            out.webhook_cert_dir = opt_string(x, "certDir", &p)?;
        }
        if let Some(v) = field(m, "featureGates") {
            let p = child(path, "featureGates");
            for (k, x) in as_object(v, &p)? {
                let b = if x.is_null() {
                    false
                } else {
                    as_bool(x, &child(&p, k))?
                };
                out.feature_gates.insert(k.clone(), b);
            }
        }
        Ok(out)
    }
}

impl DeploymentSpec {
    pub fn from_map(m: &Map<String, Value>, path: &str) -> Result<DeploymentSpec> {
        let mut out = DeploymentSpec {
            replicas: opt_int(m, "replicas", path)?,
            node_selector: opt_object(m, "nodeSelector", path)?,
            tolerations: opt_array(m, "tolerations", path)?,
            affinity: opt_object(m, "affinity", path)?,
            service_account_name: opt_string(m, "serviceAccountName", path)?,
            image_pull_secrets: opt_array(m, "imagePullSecrets", path)?,
            ..Default::default()
        };
        if let Some(v) = field(m, "containers") {
            let p = child(path, "containers");
            for (i, x) in as_array(v, &p)?.iter().enumerate() {
                let ip = format!("{p}[{i}]");
                out.containers
                    .push(ContainerSpec::from_map(as_object(x, &ip)?, &ip)?);
            }
        }
        Ok(out)
    }
}

impl ContainerSpec {
    pub fn from_map(m: &Map<String, Value>, path: &str) -> Result<ContainerSpec> {
        let mut out = ContainerSpec {
            name: opt_string(m, "name", path)?,
            image_url: field(m, "imageUrl")
                .map(|v| as_string(v, &child(path, "imageUrl")))
                .transpose()?,
            args: string_map(m, "args", path)?,
            resources: opt_object(m, "resources", path)?,
            ..Default::default()
        };
        if let Some(v) = field(m, "env") {
            let p = child(path, "env");
            for (i, x) in as_array(v, &p)?.iter().enumerate() {
                as_object(x, &format!("{p}[{i}]"))?;
                out.env.push(x.clone());
            }
        }
        if let Some(v) = field(m, "command") {
            let p = child(path, "command");
            let mut cmd = Vec::new();
            for (i, x) in as_array(v, &p)?.iter().enumerate() {
                cmd.push(if x.is_null() {
                    String::new()
                } else {
                    as_string(x, &format!("{p}[{i}]"))?
                });
            }
            out.command = Some(cmd);
        }
        Ok(out)
    }
}

impl Patch {
    pub fn from_map(m: &Map<String, Value>, path: &str) -> Result<Patch> {
        Ok(Patch {
            patch: opt_string(m, "patch", path)?,
            target: sub(m, "target", path)?
                .map(|t| {
                    let p = child(path, "target");
                    Ok::<_, Error>(PatchSelector {
                        group: opt_string(t, "group", &p)?,
                        version: opt_string(t, "version", &p)?,
                        kind: opt_string(t, "kind", &p)?,
                        name: opt_string(t, "name", &p)?,
                        namespace: opt_string(t, "namespace", &p)?,
                        label_selector: opt_string(t, "labelSelector", &p)?,
                    })
                })
                .transpose()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absent_null_and_empty_are_told_apart() {
        let s = ProviderSpec::from_json(&json!({
            "deployment": {"tolerations": [], "nodeSelector": null, "imagePullSecrets": [],
                           "containers": [{"name": "manager", "command": []}]},
        }))
        .unwrap();
        let d = s.deployment.unwrap();
        assert_eq!(d.tolerations, Some(json!([])));
        assert_eq!(d.node_selector, None);
        assert_eq!(d.image_pull_secrets, Some(json!([])));
        assert_eq!(d.containers[0].command, Some(vec![]));
        assert!(s.manager.is_none());
        assert!(s.additional_deployments.is_none());
    }

    #[test]
    fn go_zero_values_and_float_integers() {
        let s = ProviderSpec::from_json(&json!({"manager": {"maxConcurrentReconciles": 5.0,
            "syncPeriod": "1m30s", "webhook": {"port": 0.0}}}))
        .unwrap();
        let m = s.manager.unwrap();
        assert_eq!(m.verbosity, 0);
        assert_eq!(m.max_concurrent_reconciles, 5);
        assert_eq!(m.sync_period, Some(90_000_000_000));
        assert_eq!(m.webhook_port, Some(0));
        assert_eq!(m.group_kind_concurrency, None);
    }

    #[test]
    fn type_errors_name_the_field() {
        let e = ProviderSpec::from_json(&json!({"manager": {"verbosity": "x"}})).unwrap_err();
        assert_eq!(
            e.message(),
            "invalid ProviderSpec: spec.manager.verbosity: expected an integer, got string \"x\""
        );
        let e = ProviderSpec::from_json(&json!({"manager": {"syncPeriod": "7"}})).unwrap_err();
        assert_eq!(
            e.message(),
            "invalid ProviderSpec: spec.manager.syncPeriod: time: missing unit in duration \"7\""
        );
        assert!(ProviderSpec::from_json(&json!({"deployment": {"replicas": 1.5}})).is_err());
    }
}
