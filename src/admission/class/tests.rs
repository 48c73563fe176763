//! The ClusterClass webhook against Cluster API v1.14.2 itself: `testdata/webhook-cases.jsonl`
//! holds a valid v1beta2 class (`base`) and, per case, a JSON patch of it and the refusal
//! Go's `admission.ClusterClass{}.ValidateCreate` printed for it (`apierrors.NewInvalid`,
//! recorded with the gates `ClusterTopology=true, MachineTaintPropagation=true,
//! RuntimeSDK=false`; "" when admitted): at least one valid and one invalid case per
//! rule, named by the Go function. Then the rules one by one where a case needs more
//! than the recorded gates, and the status variables.

use serde_json::{json, Value};

use super::*;

const CASES: &str = include_str!("testdata/webhook-cases.jsonl");

/// The refusal text of a class ("" when admitted).
fn verdict(cc: &Value, gates: &Gates) -> String {
    let (errs, warnings) = validate_create_with(cc, gates);
    assert!(warnings.is_empty());
    if errs.is_empty() {
        String::new()
    } else {
        refusal(cc, &errs)
    }
}

fn base() -> Value {
    let first = CASES.lines().next().expect("the base line");
    serde_json::from_str::<Value>(first).expect("base")["base"].clone()
}

fn patched(ops: &Value) -> Value {
    let mut cc = base();
    let p: json_patch::Patch = serde_json::from_value(ops.clone()).expect("a JSON patch");
    json_patch::patch(&mut cc, &p).expect("the patch applies");
    cc
}

#[test]
fn every_recorded_case_is_go_s_verdict() {
    let mut failures = Vec::new();
    let mut rules = std::collections::BTreeMap::<String, (usize, usize)>::new();
    for line in CASES.lines().skip(1) {
        let case: Value = serde_json::from_str(line).expect("a case");
        let cc = patched(&case["patch"]);
        let expected = case["expected"].as_str().unwrap_or("");
        let got = verdict(&cc, &Gates::default());
        let counts = rules
            .entry(case["go"].as_str().unwrap_or("").into())
            .or_default();
        if expected.is_empty() {
            counts.0 += 1;
        } else {
            counts.1 += 1;
        }
        // Our CEL parser's syntax errors are worded as ours, not ANTLR's: what comes
        // before them must be Go's.
        let (expected, got) = match case["compare_before"].as_str() {
            Some(cut) => (
                expected.split(cut).next().unwrap_or("").to_string(),
                got.split(cut).next().unwrap_or("").to_string(),
            ),
            None => (expected.to_string(), got),
        };
        if expected != got {
            failures.push(format!(
                "{}:\n  go:   {expected}\n  ours: {got}",
                case["name"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    rules.remove("validate");
    for (rule, (valid, invalid)) in rules {
        assert!(invalid > 0, "{rule}: no refused case");
        assert!(valid > 0, "{rule}: no admitted case");
    }
}

#[test]
fn default_changes_nothing() {
    let mut cc = base();
    default(&mut cc);
    assert_eq!(cc, base());
}

/// The issue's input: a v1beta2 variable without `required`. The v1beta2 CRD schema
/// lists `name`, `required` and `schema` as required, so the API server refuses the class
/// before any webhook runs (`spec.variables[0].required: Required value`, the
/// integrator's CRD stage); the webhook itself has no rule on it and admits the class
/// (recorded as `var_no_required` from Go too).
#[test]
fn a_variable_without_required_passes_the_webhook() {
    let mut cc = base();
    cc["spec"]["variables"][0]
        .as_object_mut()
        .unwrap()
        .remove("required");
    assert_eq!(verdict(&cc, &Gates::default()), "");
    // Its status definition carries no `required` (a nil *bool).
    let s = status_variables(&cc);
    assert_eq!(s[0]["definitions"][0].get("required"), None);
}

#[test]
fn taints_need_the_machine_taint_propagation_gate() {
    let mut cc = base();
    cc["spec"]["controlPlane"]["taints"] =
        json!([{"key": "example.com/a", "effect": "NoSchedule"}]);
    assert_eq!(verdict(&cc, &Gates::default()), "");
    let off = Gates {
        machine_taint_propagation: false,
        ..Gates::default()
    };
    assert_eq!(
        verdict(&cc, &off),
        "ClusterClass.cluster.x-k8s.io \"cc\" is invalid: spec.controlPlane.taints: Forbidden: taints are not allowed to be set when the feature gate MachineTaintPropagation is disabled"
    );
    cc["spec"]["workers"]["machinePools"][0]["taints"] =
        json!([{"key": "node.kubernetes.io/unschedulable"}]);
    assert_eq!(
        verdict(&cc, &Gates::default()),
        "ClusterClass.cluster.x-k8s.io \"cc\" is invalid: spec.workers.machinePools[mp-0].taints[0].key: Invalid value: \"node.kubernetes.io/unschedulable\": taint key must not have the prefix node.kubernetes.io/, except for node.kubernetes.io/out-of-service"
    );
}

#[test]
fn external_patches_need_the_runtime_sdk_gate() {
    let mut cc = base();
    cc["spec"]["patches"] =
        json!([{"name": "ext", "external": {"generatePatchesExtension": "gen.ext"}}]);
    let on = Gates {
        runtime_sdk: true,
        ..Gates::default()
    };
    assert_eq!(verdict(&cc, &on), "");
    assert_eq!(
        verdict(&cc, &Gates::default()),
        "ClusterClass.cluster.x-k8s.io \"cc\" is invalid: spec.patches[0].external: Forbidden: patch.external can be used only if the RuntimeSDK feature flag is enabled"
    );
    cc["spec"]["patches"][0]["external"] = json!({"settings": {"k": "v"}});
    assert_eq!(
        verdict(&cc, &on),
        "ClusterClass.cluster.x-k8s.io \"cc\" is invalid: spec.patches[0].external: Invalid value: {\"settings\":{\"k\":\"v\"}}: one of validateTopologyExtension and generatePatchesExtension must be defined"
    );
}

/// Go's answer (v1.14.2's `addNewStatusVariable` and sort on the decoded class, marshalled)
/// for variables that exercise the typed round trip: unknown fields dropped, `false`
/// pointers kept, empty maps and lists omitted, a later definition of a name replacing
/// an earlier one, a zero schema omitted but one with an empty map kept.
#[test]
fn status_variables_as_the_controller_writes_them() {
    let mut cc = base();
    cc["spec"]["variables"] = serde_json::from_str(VARIABLES).unwrap();
    let go: Value = serde_json::from_str(GO_STATUS).unwrap();
    assert_eq!(status_variables(&cc), go);
    cc["spec"].as_object_mut().unwrap().remove("variables");
    assert_eq!(status_variables(&cc), json!([]));
    cc["spec"]["variables"] = json!([{"name": "", "required": true}]);
    assert_eq!(
        status_variables(&cc),
        json!([{"definitionsConflict": false, "definitions": [{"from": "inline", "required": true}]}])
    );
}

const VARIABLES: &str = r#"[{"name": "b", "required": false, "schema": {"openAPIV3Schema": {"type": "string", "uniqueItems": false, "x-kubernetes-validations": [{"rule": "true", "reason": ""}], "unknown": 1}}}, {"name": "a", "required": true, "deprecatedV1Beta1Metadata": {"labels": {"l": "v"}, "annotations": {}}, "schema": {"openAPIV3Schema": {"type": "object", "x-metadata": {"annotations": {"k": "v"}, "labels": {}}, "properties": {"p": {"type": "integer", "default": 3, "example": null, "enum": []}}, "required": [], "x-kubernetes-preserve-unknown-fields": false}}}, {"name": "b", "required": true, "schema": {"openAPIV3Schema": {"type": "integer", "maximum": 0, "exclusiveMaximum": true, "allOf": [{"type": "integer"}], "not": {"minimum": 2}}}}, {"name": "c"}, {"name": "d", "schema": {"openAPIV3Schema": {}}}, {"name": "e", "schema": {"openAPIV3Schema": {"x-metadata": {}}}}, {"name": "f", "schema": {"openAPIV3Schema": {"properties": {}}}}]"#;

const GO_STATUS: &str = r#"[{"name":"a","definitionsConflict":false,"definitions":[{"from":"inline","required":true,"deprecatedV1Beta1Metadata":{"labels":{"l":"v"}},"schema":{"openAPIV3Schema":{"type":"object","properties":{"p":{"type":"integer","default":3}},"x-kubernetes-preserve-unknown-fields":false,"x-metadata":{"annotations":{"k":"v"}}}}}]},{"name":"b","definitionsConflict":false,"definitions":[{"from":"inline","required":true,"schema":{"openAPIV3Schema":{"type":"integer","maximum":0,"exclusiveMaximum":true,"allOf":[{"type":"integer"}],"not":{"minimum":2}}}}]},{"name":"c","definitionsConflict":false,"definitions":[{"from":"inline"}]},{"name":"d","definitionsConflict":false,"definitions":[{"from":"inline"}]},{"name":"e","definitionsConflict":false,"definitions":[{"from":"inline"}]},{"name":"f","definitionsConflict":false,"definitions":[{"from":"inline","schema":{"openAPIV3Schema":{}}}]}]"#;

#[test]
fn blang_semver_tolerant_parsing() {
    use super::semver::{compare_with_build_tags, parse_tolerant};
    let v = |s: &str| parse_tolerant(s).map(|v| v.to_string());
    assert_eq!(v(" v1.30").as_deref(), Some("1.30.0"));
    assert_eq!(v("v01.002.0003").as_deref(), Some("1.2.3"));
    assert_eq!(
        v("1.30.0-rc.1+build.5").as_deref(),
        Some("1.30.0-rc.1+build.5")
    );
    for bad in [
        "",
        "x",
        "1.30-rc.0",
        "1.2.3-01",
        "1.2.3+",
        "1.2.3-a..b",
        "1.2.x",
    ] {
        assert_eq!(v(bad), None, "{bad}");
    }
    let c = |a: &str, b: &str| {
        compare_with_build_tags(&parse_tolerant(a).unwrap(), &parse_tolerant(b).unwrap())
    };
    assert_eq!(c("1.30.0-rc.1", "1.30.0"), -1);
    assert_eq!(c("1.30.0-rc.2", "1.30.0-rc.10"), -1);
    assert_eq!(c("1.30.0-alpha", "1.30.0-1"), 1);
    assert_eq!(c("1.30.0+2", "1.30.0+10"), -1);
    assert_eq!(c("1.30.0+a", "1.30.0+b"), 2);
    assert_eq!(c("1.30.0+a", "1.30.0+a"), 0);
    assert_eq!(c("1.30.0+a.1", "1.30.0+a"), 1);
}

#[test]
fn label_texts_are_apimachinery_v0_36_s() {
    assert_eq!(
        meta::label_key_errors(&"k".repeat(64)),
        ["name part must be no more than 63 bytes"]
    );
    assert!(meta::label_key_errors("a/b/c")[0].starts_with("a valid label key must consist"));
    assert!(meta::label_key_errors("example.com/ok").is_empty());
    let errs = meta::metadata_errors(Some(&json!({"labels": {"k": "v".repeat(64)}})), "p");
    assert_eq!(errs[0].detail, "must be no more than 63 bytes");
}

/// Every JSON pointer of `v`.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                pointers(x, p.clone(), out);
                out.push(p);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                pointers(x, p.clone(), out);
                out.push(p);
            }
        }
        _ => {}
    }
}

/// Any field of any type: the webhook and the status never panic, whatever the shape
/// (the CRD schema normally refuses wrong types first).
#[test]
fn any_shape_is_judged_without_panicking() {
    let mut cc = base();
    cc["spec"]["controlPlane"]["healthCheck"] = json!({"checks": {"nodeStartupTimeoutSeconds": 5},
        "remediation": {"triggerIf": {"unhealthyLessThanOrEqualTo": "x"}}});
    cc["spec"]["workers"]["machineDeployments"][0]["rollout"] =
        json!({"strategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}});
    cc["spec"]["kubernetesVersions"] = json!(["v1.30.0", "v1.31.0"]);
    cc["spec"]["controlPlane"]["taints"] = json!([{"key": "a"}]);
    let mut all = Vec::new();
    pointers(&cc, String::new(), &mut all);
    let odd = [
        json!(null),
        json!(-1),
        json!(1.5),
        json!("x"),
        json!([]),
        json!({}),
        json!([null]),
    ];
    let gates = Gates {
        runtime_sdk: true,
        machine_taint_propagation: false,
    };
    for p in &all {
        for o in &odd {
            let mut c = cc.clone();
            *c.pointer_mut(p).expect("a pointer of the class") = o.clone();
            let _ = validate_create(&c);
            let _ = validate_create_with(&c, &gates);
            assert!(status_variables(&c).is_array());
        }
    }
    assert!(all.len() > 50);
    for whole in odd {
        let _ = validate_create(&whole);
        assert!(status_variables(&whole).is_array());
    }
}
