//! R6.3.7: one `deployment.containers[]` entry (`customizeContainer`).
//!
//! The container is found by exact name (else
//! `cannot find container "<name>" in deployment "<deployment>"`), then, in this order:
//! `args` entries are set with the set-arg rule (keys in byte order — Go iterates the
//! map in random order, R6.4.13); each `env` entry removes the *first* existing
//! variable of its name and is appended (so overridden variables move to the end, in
//! spec order); `resources` replaces the whole requirements; `imageUrl` replaces
//! `image`; `command` (when not null; `[]` removes it) replaces the command.

use serde_json::Value;

use super::podspec::{args, container_name, containers_mut, set_args};
use super::set_arg::set_arg;
use super::spec::ContainerSpec;
use crate::components::filters::name;
use crate::error::{Error, Result};
use crate::go::quote::quote as go_quote;

/// `removeEnv`: remove the first env var named `n`.
fn remove_env(env: &mut Vec<Value>, n: &str) {
    if let Some(i) = env.iter().position(|e| container_name(e) == n) {
        env.remove(i);
    }
}

/// `customizeContainer`.
pub fn customize_container(cs: &ContainerSpec, d: &mut Value) -> Result<()> {
    let dn = name(d).to_string();
    let not_found = || {
        Error::new(format!(
            "cannot find container {} in deployment {}",
            go_quote(&cs.name),
            go_quote(&dn)
        ))
    };
    let containers = containers_mut(d).ok_or_else(not_found)?;
    let c = containers
        .iter_mut()
        .find(|c| container_name(c) == cs.name)
        .and_then(Value::as_object_mut)
        .ok_or_else(not_found)?;

    if !cs.args.is_empty() {
        let mut a = args(c);
        for (k, v) in &cs.args {
            set_arg(&mut a, k, v);
        }
        set_args(c, a);
    }
    if !cs.env.is_empty() {
        let mut env = match c.get("env") {
            Some(Value::Array(e)) => e.clone(),
            _ => Vec::new(),
        };
        for e in &cs.env {
            remove_env(&mut env, container_name(e));
            env.push(e.clone());
        }
        c.insert("env".into(), Value::Array(env));
    }
    if let Some(r) = &cs.resources {
        c.insert("resources".into(), r.clone());
    }
    if let Some(i) = &cs.image_url {
        c.insert("image".into(), Value::String(i.clone()));
    }
    if let Some(cmd) = &cs.command {
        c.insert(
            "command".into(),
            Value::Array(cmd.iter().cloned().map(Value::String).collect()),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operator::customize::spec::ContainerSpec;
    use serde_json::json;

    fn dep() -> Value {
        json!({"kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [
            {"name": "manager", "image": "gcr.io/a/m:1", "args": ["--a=1", "--b=2"],
             "command": ["/manager"],
             "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}, {"name": "A", "value": "3"}],
             "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "100m"}}},
            {"name": "sidecar", "image": "gcr.io/a/s:1"}
        ]}}}})
    }

    fn cs(j: Value) -> ContainerSpec {
        ContainerSpec::from_map(j.as_object().unwrap(), "c").unwrap()
    }

    fn c(d: &Value, i: usize) -> &Value {
        &d["spec"]["template"]["spec"]["containers"][i]
    }

    #[test]
    fn args_set_in_place_or_appended_in_key_order() {
        let mut d = dep();
        customize_container(
            &cs(json!({"name": "manager", "args": {"--z": "9", "--b": "7", "--c": "8"}})),
            &mut d,
        )
        .unwrap();
        assert_eq!(
            c(&d, 0)["args"],
            json!(["--a=1", "--b=7", "--c=8", "--z=9"])
        );
    }

    #[test]
    fn env_removes_first_and_appends_in_spec_order() {
        let mut d = dep();
        customize_container(
            &cs(json!({"name": "manager", "env": [{"name": "A", "value": "x"}, {"name": "C", "value": "y"}]})),
            &mut d,
        )
        .unwrap();
        assert_eq!(
            c(&d, 0)["env"],
            json!([{"name": "B", "value": "2"}, {"name": "A", "value": "3"},
                   {"name": "A", "value": "x"}, {"name": "C", "value": "y"}])
        );
    }

    #[test]
    fn resources_replaced_wholesale() {
        let mut d = dep();
        customize_container(
            &cs(json!({"name": "manager", "resources": {"limits": {"memory": "1Gi"}}})),
            &mut d,
        )
        .unwrap();
        assert_eq!(c(&d, 0)["resources"], json!({"limits": {"memory": "1Gi"}}));
    }

    #[test]
    fn image_url_replaces_image() {
        let mut d = dep();
        customize_container(
            &cs(json!({"name": "sidecar", "imageUrl": "quay.io/x/y:2"})),
            &mut d,
        )
        .unwrap();
        assert_eq!(c(&d, 1)["image"], "quay.io/x/y:2");
        assert_eq!(c(&d, 0)["image"], "gcr.io/a/m:1");
    }

    #[test]
    fn command_replaced_and_empty_list_clears_null_keeps() {
        let mut d = dep();
        customize_container(&cs(json!({"name": "manager", "command": null})), &mut d).unwrap();
        assert_eq!(c(&d, 0)["command"], json!(["/manager"]));
        customize_container(
            &cs(json!({"name": "manager", "command": ["/bin/x", "-y"]})),
            &mut d,
        )
        .unwrap();
        assert_eq!(c(&d, 0)["command"], json!(["/bin/x", "-y"]));
        customize_container(&cs(json!({"name": "manager", "command": []})), &mut d).unwrap();
        assert_eq!(c(&d, 0)["command"], json!([]));
    }

    #[test]
    fn unknown_container_is_an_error() {
        let mut d = dep();
        let e = customize_container(&cs(json!({"name": "nope"})), &mut d).unwrap_err();
        assert_eq!(
            e.message(),
            "cannot find container \"nope\" in deployment \"d\""
        );
    }
}
