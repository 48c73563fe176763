//! R6.4: the manager container (`findManagerContainer`, `customizeManagerContainer`).
//!
//! The container named `manager`, else the first container (issue #787). Flags are
//! set with the set-arg rule ([`super::set_arg`]) in exactly the operator's order:
//!
//! 1. `controller.groupKindConcurrency` k→n: `--<lowercase k>-concurrency=n`
//! 2. `maxConcurrentReconciles` ≠ 0: `--max-concurrent-reconciles`
//! 3. non-empty strings: `cacheNamespace`→`--namespace`, `health.healthProbeBindAddress`→
//!    `--health-addr`, `metrics.bindAddress`→`--metrics-bind-addr`,
//!    `metrics.diagnosticsAddress`→`--diagnostics-address`, `webhook.host`→`--webhook-host`,
//!    `webhook.certDir`→`--webhook-cert-dir`, `profilerAddress`→`--profiler-address`
//! 4. `health.livenessEndpointName` / `readinessEndpointName`: the probe's `httpGet.path`
//!    becomes `/<name>` when the container has that probe with an `httpGet`
//! 5. `leaderElection.leaderElect` set: `--leader-elect=<bool>`; when true,
//!    `--leader-election-id=<ns>/<name>` (both non-empty) and the lease, renew and retry
//!    durations as `<seconds>s` when they round to more than 0 s
//! 6. `metrics.insecureDiagnostics` true: `--insecure-diagnostics=true`
//! 7. `webhook.port` set (0 included): `--webhook-port`
//! 8. `syncPeriod` rounding to more than 0 s: `--sync-period=<seconds>s`
//! 9. `verbosity` ≠ 1: `--v` (absent means Go's 0, so `--v=0`)
//! 10. `featureGates` non-empty: merged over the first existing `--feature-gates=` arg
//!     (entries without `=` dropped, value true iff exactly `true`), rendered as sorted
//!     `k=<bool>` strings
//! 11. `additionalArgs`: `arg "<k>" already exists` if any current arg starts with `k=`,
//!     else appended.
//!
//! Go iterates `groupKindConcurrency` and `additionalArgs` (maps) in random order; we
//! take keys in byte order (R6.4.13), so the relative order of the flags one map adds,
//! and which of several conflicting `additionalArgs` keys is reported, are our choice.
//! Durations are rounded like Go's `Duration.Round(time.Second)` (halves away from zero).

use serde_json::{Map, Value};

use super::podspec::{args, container_name, containers_mut, set_args};
use super::set_arg::set_arg;
use super::spec::ManagerSpec;
use crate::error::{Error, Result};
use crate::go::quote::quote as go_quote;

const MANAGER: &str = "manager";
const DEFAULT_VERBOSITY: i64 = 1;
const SECOND: i64 = 1_000_000_000;

/// `findManagerContainer`: `manager`, else the first container, else `None`.
pub fn find_manager_container(d: &mut Value) -> Option<&mut Map<String, Value>> {
    let cs = containers_mut(d)?;
    let i = cs
        .iter()
        .position(|c| container_name(c) == MANAGER)
        .or(if cs.is_empty() { None } else { Some(0) })?;
    cs[i].as_object_mut()
}

/// `int(d.Round(time.Second).Seconds())`.
pub fn round_seconds(d: i64) -> i64 {
    let less_than_half = |x: i64| (x as u64).wrapping_add(x as u64) < SECOND as u64;
    let r = d % SECOND;
    let rounded = if d < 0 {
        let r = -r;
        if less_than_half(r) {
            d + r
        } else {
            d.checked_sub(SECOND - r).unwrap_or(i64::MIN)
        }
    } else if less_than_half(r) {
        d - r
    } else {
        d.checked_add(SECOND - r).unwrap_or(i64::MAX)
    };
    rounded / SECOND
}

/// `parseFeatureGates`: the first `--feature-gates=` arg as a map.
fn parse_feature_gates(args: &[String]) -> std::collections::BTreeMap<String, bool> {
    let mut gates = std::collections::BTreeMap::new();
    if let Some(v) = args.iter().find_map(|a| a.strip_prefix("--feature-gates=")) {
        for gate in v.split(',') {
            if let Some((k, v)) = gate.split_once('=') {
                gates.insert(k.to_string(), v == "true");
            }
        }
    }
    gates
}

fn set_probe_path(c: &mut Map<String, Value>, probe: &str, endpoint: &str) {
    if endpoint.is_empty() {
        return;
    }
    if let Some(Value::Object(h)) = c.get_mut(probe).and_then(|p| p.get_mut("httpGet")) {
        h.insert("path".into(), Value::String(format!("/{endpoint}")));
    }
}

/// `customizeManagerContainer`.
pub fn customize_manager_container(m: &ManagerSpec, c: &mut Map<String, Value>) -> Result<()> {
    let mut a = args(c);

    if let Some(gkc) = &m.group_kind_concurrency {
        for (k, v) in gkc {
            set_arg(
                &mut a,
                &format!("--{}-concurrency", k.to_lowercase()),
                &v.to_string(),
            );
        }
    }
    if m.max_concurrent_reconciles != 0 {
        set_arg(
            &mut a,
            "--max-concurrent-reconciles",
            &m.max_concurrent_reconciles.to_string(),
        );
    }
    for (flag, value) in [
        ("--namespace", &m.cache_namespace),
        ("--health-addr", &m.health_probe_bind_address),
        ("--metrics-bind-addr", &m.metrics_bind_address),
        ("--diagnostics-address", &m.metrics_diagnostics_address),
        ("--webhook-host", &m.webhook_host),
        ("--webhook-cert-dir", &m.webhook_cert_dir),
        ("--profiler-address", &m.profiler_address),
    ] {
        if !value.is_empty() {
            set_arg(&mut a, flag, value);
        }
    }
    set_probe_path(c, "livenessProbe", &m.health_liveness_endpoint_name);
    set_probe_path(c, "readinessProbe", &m.health_readiness_endpoint_name);

    if let Some(le) = &m.leader_election {
        if let Some(elect) = le.leader_elect {
            set_arg(
                &mut a,
                "--leader-elect",
                if elect { "true" } else { "false" },
            );
            if elect {
                if !le.resource_name.is_empty() && !le.resource_namespace.is_empty() {
                    set_arg(
                        &mut a,
                        "--leader-election-id",
                        &format!("{}/{}", le.resource_namespace, le.resource_name),
                    );
                }
                for (flag, d) in [
                    ("--leader-elect-lease-duration", le.lease_duration),
                    ("--leader-elect-renew-deadline", le.renew_deadline),
                    ("--leader-elect-retry-period", le.retry_period),
                ] {
                    let s = round_seconds(d);
                    if s > 0 {
                        set_arg(&mut a, flag, &format!("{s}s"));
                    }
                }
            }
        }
    }
    if m.metrics_insecure_diagnostics {
        set_arg(&mut a, "--insecure-diagnostics", "true");
    }
    if let Some(p) = m.webhook_port {
        set_arg(&mut a, "--webhook-port", &p.to_string());
    }
    if let Some(sp) = m.sync_period {
        let s = round_seconds(sp);
        if s > 0 {
            set_arg(&mut a, "--sync-period", &format!("{s}s"));
        }
    }
    if m.verbosity != DEFAULT_VERBOSITY {
        set_arg(&mut a, "--v", &m.verbosity.to_string());
    }
    if !m.feature_gates.is_empty() {
        let mut gates = parse_feature_gates(&a);
        for (k, v) in &m.feature_gates {
            gates.insert(k.clone(), *v);
        }
        let mut rendered: Vec<String> = gates.iter().map(|(k, v)| format!("{k}={v}")).collect();
        rendered.sort();
        set_arg(&mut a, "--feature-gates", &rendered.join(","));
    }
    let mut result = Ok(());
    for (k, v) in &m.additional_args {
        let prefix = format!("{k}=");
        if a.iter().any(|x| x.starts_with(&prefix)) {
            result = Err(Error::new(format!("arg {} already exists", go_quote(k))));
            break;
        }
        set_arg(&mut a, k, v);
    }
    // The operator mutates the container's args in place before returning the error;
    // the error aborts the whole stage, so what is left behind does not matter.
    set_args(c, a);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operator::customize::spec::ProviderSpec;
    use serde_json::json;

    fn manager(j: Value) -> ManagerSpec {
        ProviderSpec::from_json(&json!({"manager": j}))
            .unwrap()
            .manager
            .unwrap()
    }

    /// Customise a manager container holding `args` and return its args.
    fn run(args: &[&str], m: Value) -> Result<Vec<String>> {
        let mut c = json!({"name": "manager", "args": args})
            .as_object()
            .unwrap()
            .clone();
        customize_manager_container(&manager(m), &mut c)?;
        Ok(super::args(&c))
    }

    fn ok(args: &[&str], m: Value) -> Vec<String> {
        run(args, m).unwrap()
    }

    #[test]
    fn group_kind_concurrency_lowercased_in_key_order() {
        assert_eq!(
            ok(
                &[],
                json!({"verbosity": 1, "controller": {"groupKindConcurrency": {"Machine": 5, "Cluster": 2}}})
            ),
            ["--cluster-concurrency=2", "--machine-concurrency=5"]
        );
    }

    #[test]
    fn max_concurrent_reconciles_only_when_non_zero() {
        assert_eq!(
            ok(&[], json!({"verbosity": 1, "maxConcurrentReconciles": 0})),
            Vec::<String>::new()
        );
        assert_eq!(
            ok(
                &["--max-concurrent-reconciles=1"],
                json!({"verbosity": 1, "maxConcurrentReconciles": 10})
            ),
            ["--max-concurrent-reconciles=10"]
        );
    }

    #[test]
    fn string_fields_in_order() {
        assert_eq!(
            ok(
                &[],
                json!({"verbosity": 1, "profilerAddress": "p", "cacheNamespace": "ns",
                "health": {"healthProbeBindAddress": ":9440"},
                "metrics": {"bindAddress": ":8080", "diagnosticsAddress": ":8443"},
                "webhook": {"host": "h", "certDir": "/certs"}})
            ),
            [
                "--namespace=ns",
                "--health-addr=:9440",
                "--metrics-bind-addr=:8080",
                "--diagnostics-address=:8443",
                "--webhook-host=h",
                "--webhook-cert-dir=/certs",
                "--profiler-address=p"
            ]
        );
    }

    #[test]
    fn probe_paths_only_with_http_get() {
        let mut c = json!({"name": "manager",
            "livenessProbe": {"httpGet": {"path": "/healthz", "port": "healthz"}},
            "readinessProbe": {"exec": {"command": ["x"]}}})
        .as_object()
        .unwrap()
        .clone();
        customize_manager_container(
            &manager(json!({"verbosity": 1, "health": {"livenessEndpointName": "live", "readinessEndpointName": "ready"}})),
            &mut c,
        )
        .unwrap();
        assert_eq!(c["livenessProbe"]["httpGet"]["path"], "/live");
        assert_eq!(c["readinessProbe"], json!({"exec": {"command": ["x"]}}));
    }

    #[test]
    fn leader_election() {
        assert_eq!(
            ok(
                &[],
                json!({"verbosity": 1, "leaderElection": {"leaderElect": true, "resourceName": "n",
                "resourceNamespace": "ns", "leaseDuration": "15.5s", "renewDeadline": "10s", "retryPeriod": "400ms"}})
            ),
            [
                "--leader-elect=true",
                "--leader-election-id=ns/n",
                "--leader-elect-lease-duration=16s",
                "--leader-elect-renew-deadline=10s"
            ]
        );
        assert_eq!(
            ok(
                &["--leader-elect=true"],
                json!({"verbosity": 1, "leaderElection": {"leaderElect": false, "resourceName": "n",
                "resourceNamespace": "ns", "leaseDuration": "15s"}})
            ),
            ["--leader-elect=false"]
        );
        assert_eq!(
            ok(
                &[],
                json!({"verbosity": 1, "leaderElection": {"resourceName": "n"}})
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            ok(
                &[],
                json!({"verbosity": 1, "leaderElection": {"leaderElect": true, "resourceName": "n"}})
            ),
            ["--leader-elect=true"]
        );
    }

    #[test]
    fn insecure_diagnostics_only_when_true() {
        assert_eq!(
            ok(
                &[],
                json!({"verbosity": 1, "metrics": {"insecureDiagnostics": false}})
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            ok(
                &[],
                json!({"verbosity": 1, "metrics": {"insecureDiagnostics": true}})
            ),
            ["--insecure-diagnostics=true"]
        );
    }

    #[test]
    fn webhook_port_including_zero() {
        assert_eq!(
            ok(&[], json!({"verbosity": 1, "webhook": {"port": 0}})),
            ["--webhook-port=0"]
        );
        assert_eq!(
            ok(
                &["--webhook-port=9443"],
                json!({"verbosity": 1, "webhook": {"port": 9444}})
            ),
            ["--webhook-port=9444"]
        );
    }

    #[test]
    fn sync_period_in_rounded_seconds() {
        assert_eq!(
            ok(&[], json!({"verbosity": 1, "syncPeriod": "7h"})),
            ["--sync-period=25200s"]
        );
        assert_eq!(
            ok(&[], json!({"verbosity": 1, "syncPeriod": "1.5s"})),
            ["--sync-period=2s"]
        );
        assert_eq!(
            ok(&[], json!({"verbosity": 1, "syncPeriod": "400ms"})),
            Vec::<String>::new()
        );
    }

    #[test]
    fn verbosity_default_one_is_silent_zero_is_not() {
        assert_eq!(ok(&["--v=2"], json!({"verbosity": 1})), ["--v=2"]);
        assert_eq!(ok(&["--v=2"], json!({"verbosity": 0})), ["--v=0"]);
        assert_eq!(ok(&[], json!({})), ["--v=0"]);
        assert_eq!(ok(&["--v=2"], json!({"verbosity": 5})), ["--v=5"]);
    }

    #[test]
    fn feature_gates_merge_over_the_first_existing_arg() {
        assert_eq!(
            ok(
                &[
                    "--feature-gates=MachinePool=true,ClusterTopology=True,junk,A-B=true",
                    "--feature-gates=X=true"
                ],
                json!({"verbosity": 1, "featureGates": {"A": true, "MachinePool": false}})
            ),
            // Sorted as rendered strings: "A-B=true" < "A=true" ('-' < '=').
            [
                "--feature-gates=A-B=true,A=true,ClusterTopology=false,MachinePool=false",
                "--feature-gates=X=true"
            ]
        );
        assert_eq!(
            ok(
                &["--feature-gates=A=true"],
                json!({"verbosity": 1, "featureGates": {}})
            ),
            ["--feature-gates=A=true"]
        );
    }

    #[test]
    fn additional_args_append_or_conflict() {
        assert_eq!(
            ok(
                &["--a=1"],
                json!({"verbosity": 1, "additionalArgs": {"--z": "1", "--b": "2"}})
            ),
            ["--a=1", "--b=2", "--z=1"]
        );
        let e = run(
            &["--a=1"],
            json!({"verbosity": 1, "additionalArgs": {"--a": "1"}}),
        )
        .unwrap_err();
        assert_eq!(e.message(), "arg \"--a\" already exists");
        // Conflicts with flags produced by earlier manager steps too.
        let e = run(&[], json!({"verbosity": 3, "additionalArgs": {"--v": "4"}})).unwrap_err();
        assert_eq!(e.message(), "arg \"--v\" already exists");
        // The key is used verbatim: without dashes it does not match "--a=1".
        assert_eq!(
            ok(
                &["--a=1"],
                json!({"verbosity": 1, "additionalArgs": {"a": "2"}})
            ),
            ["--a=1", "a=2"]
        );
    }

    #[test]
    fn manager_container_fallback_to_first() {
        let mut d = json!({"spec": {"template": {"spec": {"containers": [{"name": "kube-rbac-proxy"}, {"name": "x"}]}}}});
        assert_eq!(
            container_name(&Value::Object(
                find_manager_container(&mut d).unwrap().clone()
            )),
            "kube-rbac-proxy"
        );
        let mut d = json!({"spec": {"template": {"spec": {"containers": [{"name": "x"}, {"name": "manager"}]}}}});
        assert_eq!(
            container_name(&Value::Object(
                find_manager_container(&mut d).unwrap().clone()
            )),
            "manager"
        );
        let mut d = json!({"spec": {"template": {"spec": {"containers": []}}}});
        assert!(find_manager_container(&mut d).is_none());
    }

    #[test]
    fn rounding_matches_go() {
        assert_eq!(round_seconds(1_499_999_999), 1);
        assert_eq!(round_seconds(1_500_000_000), 2);
        assert_eq!(round_seconds(-1_500_000_000), -2);
        assert_eq!(round_seconds(i64::MAX), 9_223_372_036);
    }
}
