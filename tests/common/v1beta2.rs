//! Helpers of the v1beta2 topology tests (`topology_v1beta2`,
//! `topology_v1beta2_equivalence`): corpus and fixture objects, finders by kind and name.

use capi_render::topology;
use regex::Regex;
use serde_json::{json, Value};

pub fn parse(text: &str) -> Vec<Value> {
    capi_render::yaml::parse_documents(text).unwrap()
}

/// A corpus file's text with its `${VAR:-default}` defaults applied (the test has
/// checked `common::corpus()` first).
pub fn corpus_text(rel: &str) -> String {
    let p = super::corpus_dir().join(rel);
    let text = std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e} (set CAPI_CORPUS)", p.display()));
    let defaults = Regex::new(r"\$\{[A-Z_]+:-([^}]*)\}").unwrap();
    defaults.replace_all(&text, "$1").into_owned()
}

/// A corpus file's objects with its defaults applied ([`corpus_text`]).
pub fn corpus_objects(rel: &str) -> Vec<Value> {
    parse(&corpus_text(rel))
}

pub fn fixture(rel: &str) -> Vec<Value> {
    parse(
        &std::fs::read_to_string(super::root().join("fixtures/topology-v1beta2").join(rel))
            .unwrap(),
    )
}

pub const DOCKER: &str = "repository/infrastructure-docker/v1.11.11";
pub const E2E: &str = "e2e-repository/infrastructure-docker/v1.11.11";

pub fn kinds(objs: &[Value]) -> Vec<String> {
    objs.iter()
        .map(|o| {
            format!(
                "{} {}",
                o["apiVersion"].as_str().unwrap(),
                o["kind"].as_str().unwrap()
            )
        })
        .collect()
}

pub fn one<'a>(objs: &'a [Value], kind: &str) -> &'a Value {
    let found: Vec<&Value> = objs.iter().filter(|o| o["kind"] == kind).collect();
    assert_eq!(found.len(), 1, "one {kind} in {:?}", kinds(objs));
    found[0]
}

pub fn named<'a>(objs: &'a [Value], kind: &str, name: &str) -> &'a Value {
    objs.iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name} in {:?}", kinds(objs)))
}

pub fn name(o: &Value) -> &str {
    o["metadata"]["name"].as_str().unwrap()
}

pub fn contract_ref(group: &str, kind: &str, name: &str) -> Value {
    json!({"apiGroup": group, "kind": kind, "name": name})
}

/// The kinds of the rendered objects, sorted.
pub fn sorted_kinds(objs: &[Value]) -> Vec<String> {
    let mut ks: Vec<String> = objs
        .iter()
        .map(|o| o["kind"].as_str().unwrap_or_default().to_string())
        .collect();
    ks.sort();
    ks
}

/// The desired objects of the equivalence pair's `v` (`v1beta1` or `v1beta2`) Cluster.
pub fn equivalence(v: &str) -> Vec<Value> {
    let mut objs = fixture("equivalence/templates.yaml");
    objs.extend(fixture(&format!("equivalence/{v}.yaml")));
    let (c, rest) = cluster_and_rest(objs);
    topology::render_cluster(&c, &rest).unwrap()
}

/// The first Cluster among `objs`, and the other objects.
pub fn cluster_and_rest(objs: Vec<Value>) -> (Value, Vec<Value>) {
    let c = objs
        .iter()
        .find(|o| o["kind"] == "Cluster")
        .expect("a Cluster among the objects")
        .clone();
    let rest = objs
        .into_iter()
        .filter(|o| o["kind"] != "Cluster")
        .collect();
    (c, rest)
}
