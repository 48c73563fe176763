//! `render --secrets`: which objects of a provider carry a value of its config Secret,
//! and (`flux-substitute`) the same objects with `${VAR}` placeholders that Flux's
//! kustomize-controller restores at apply time (`postBuild.substituteFrom`).
//!
//! The components are substituted twice: with the Secret's values (what `keep`
//! writes) and with every Secret key `K` standing for the text `${K}`. Both go through
//! the same processing; an object that differs between the two carries a value. A
//! value embedded in a larger string (`foo-${VAR}-bar`) stays embedded, and a
//! `${VAR:=default}` whose `VAR` the Secret sets becomes `${VAR}` (Flux then produces
//! the Secret's value, as we did). Each placeholder object is then proved: Flux's
//! substitution (drone/envsubst, as fluxcd/pkg/envsubst forks it: unset variables
//! are empty, newlines are dropped from values) of its YAML with the Secret's values
//! must give back the `keep` object exactly; anything else (`${VAR^^}`, a value with
//! a newline, other `$` text in the same object) is an error naming the object.
//! Objects without a placeholder whose YAML has a `$` get Flux's
//! `kustomize.toolkit.fluxcd.io/substitute: disabled` annotation, so Flux leaves them
//! as rendered.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::{Error, Result};

/// Flux's annotation (and label) that turns its substitution off for one object.
pub const SUBSTITUTE_ANNOTATION: &str = "kustomize.toolkit.fluxcd.io/substitute";

/// The variables that stand for themselves: `K` → `${K}`.
pub fn placeholder_vars(vars: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    vars.keys()
        .map(|k| (k.clone(), format!("${{{k}}}")))
        .collect()
}

/// The Secret in flux-system that holds a copy of the config Secret `ns/name`.
pub fn flux_secret_name(ns: &str, name: &str) -> String {
    format!("{ns}-{name}")
}

/// Flux refuses a whole Kustomization when a variable name does not match
/// `^[_[:alpha:]][_[:alpha:][:digit:]]*$`.
pub fn check_names(vars: &BTreeMap<String, String>) -> Result<()> {
    for k in vars.keys() {
        let ok = k
            .chars()
            .next()
            .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
            && k.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
        if !ok {
            return Err(Error::new(format!(
                "key {k:?}: Flux substitutes only variables named like ^[_[:alpha:]][_[:alpha:][:digit:]]*$ and refuses the whole Kustomization otherwise; rename the key, or render with --secrets keep"
            )));
        }
    }
    Ok(())
}

/// Flux's substitution of `text` with `vars` (non-strict: an unset variable is empty;
/// newlines are removed from every value, as kustomize-controller loads them).
pub fn flux_substitute(text: &str, vars: &BTreeMap<String, String>) -> Result<String> {
    let t = crate::envsubst::parse(text).map_err(|e| Error::new(e.to_string()))?;
    let lookup = |k: &str| Some(vars.get(k).map(|v| v.replace('\n', "")).unwrap_or_default());
    let out = t.execute_bytes(&lookup).map_err(|e| e.to_error())?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The indices of the objects that differ between the two renderings (the ones
/// carrying a config-Secret value). Both have the same objects in the same order
/// unless a value decides an object's identity, which is an error.
pub fn carriers(real: &[Value], held: &[Value]) -> Result<Vec<usize>> {
    if real.len() != held.len() {
        return Err(Error::new(
            "a config Secret value decides which objects the components have; render with --secrets keep",
        ));
    }
    Ok((0..real.len()).filter(|&i| real[i] != held[i]).collect())
}

/// Values shorter than this are not searched for ([`containing`]): a `1` or `eu` is
/// everywhere, and a credential is never that short.
const MIN_SEARCHED: usize = 6;

/// Where the placeholders do not render (a variable used through a function, or
/// where a `${VAR}` text is not valid): the indices of the objects whose YAML holds a
/// value of at least [`MIN_SEARCHED`] characters, as is or in base64.
pub fn containing(real: &[Value], vars: &BTreeMap<String, String>) -> Vec<usize> {
    let needles: Vec<String> = vars
        .values()
        .filter(|v| v.len() >= MIN_SEARCHED)
        .flat_map(|v| [v.clone(), crate::go::base64::encode(v.as_bytes())])
        .collect();
    (0..real.len())
        .filter(|&i| {
            let text = crate::yaml::to_yaml(&real[i]);
            needles.iter().any(|n| text.contains(n.as_str()))
        })
        .collect()
}

/// The objects `flux-substitute` writes: the placeholder object where one carries a
/// value (proved to give the `keep` object back under Flux's substitution), the
/// `keep` object elsewhere, annotated to be left alone by Flux when it has a `$`.
pub fn flux_objects(
    real: Vec<Value>,
    held: Vec<Value>,
    carriers: &[usize],
    vars: &BTreeMap<String, String>,
) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(real.len());
    for (i, (r, h)) in real.into_iter().zip(held).enumerate() {
        if carriers.binary_search(&i).is_ok() {
            let text = crate::yaml::to_yaml(&h);
            let back = flux_substitute(&text, vars)
                .and_then(|t| crate::yaml::read::parse_value_lenient(&t))
                .ok();
            if back.as_ref() != Some(&r) {
                return Err(Error::new(format!(
                    "{}: Flux's substitution of its placeholders would not give back the rendered object (a variable used with a function such as ${{VAR^^}}, a value with a newline, or other `$` text beside a placeholder); render with --secrets keep",
                    crate::model::object::describe(&h)
                )));
            }
            out.push(h);
        } else if crate::yaml::to_yaml(&r).contains('$') {
            out.push(disabled(r));
        } else {
            out.push(r);
        }
    }
    Ok(out)
}

/// `o` with Flux's substitution turned off.
fn disabled(mut o: Value) -> Value {
    if let Some(m) = o.get_mut("metadata").and_then(Value::as_object_mut) {
        let a = m
            .entry("annotations")
            .or_insert_with(|| Value::Object(Default::default()));
        if !a.is_object() {
            *a = Value::Object(Default::default());
        }
        if let Some(a) = a.as_object_mut() {
            a.insert(SUBSTITUTE_ANNOTATION.into(), Value::from("disabled"));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars() -> BTreeMap<String, String> {
        [
            ("CREDS".to_string(), "c2VjcmV0".to_string()),
            ("REGION".into(), "eu-1".into()),
        ]
        .into_iter()
        .collect()
    }

    #[test]
    fn placeholders_and_flux_substitution_round_trip() {
        let ph = placeholder_vars(&vars());
        assert_eq!(ph["CREDS"], "${CREDS}");
        assert_eq!(
            flux_substitute("a: foo-${REGION}-bar\nb: ${UNSET}\n", &vars()).unwrap(),
            "a: foo-eu-1-bar\nb: \n"
        );
    }

    #[test]
    fn names_flux_refuses_are_errors() {
        let mut v = vars();
        assert!(check_names(&v).is_ok());
        v.insert("my-key".into(), "x".into());
        let e = check_names(&v).unwrap_err();
        assert!(e.message().contains("\"my-key\""), "{e}");
        assert!(!e.message().contains("x\""));
    }

    #[test]
    fn carriers_get_placeholders_others_keep_and_dollars_are_protected() {
        let real = vec![
            json!({"kind": "Secret", "metadata": {"name": "s"}, "data": {"c": "c2VjcmV0"}}),
            json!({"kind": "ConfigMap", "metadata": {"name": "m"}, "data": {"sh": "echo $HOME"}}),
            json!({"kind": "ConfigMap", "metadata": {"name": "n"}}),
        ];
        let mut held = real.clone();
        held[0]["data"]["c"] = json!("${CREDS}");
        let c = carriers(&real, &held).unwrap();
        assert_eq!(c, [0]);
        let out = flux_objects(real.clone(), held.clone(), &c, &vars()).unwrap();
        assert_eq!(out[0]["data"]["c"], "${CREDS}");
        assert_eq!(
            out[1]["metadata"]["annotations"][SUBSTITUTE_ANNOTATION],
            "disabled"
        );
        assert_eq!(out[2], real[2]);
    }

    #[test]
    fn containing_finds_long_values_as_is_or_in_base64() {
        let objs = vec![
            json!({"data": {"c": "c2VjcmV0"}}),
            json!({"data": {"c": crate::go::base64::encode(b"c2VjcmV0")}}),
            json!({"data": {"region": "eu-1"}}),
        ];
        assert_eq!(containing(&objs, &vars()), [0, 1]);
    }

    #[test]
    fn a_placeholder_beside_other_dollar_text_is_refused() {
        // `${X}` in a rendered object (from `$${X}` in the components): Flux would
        // blank it.
        let real = vec![json!({"kind": "ConfigMap", "metadata": {"name": "m"},
                               "data": {"a": "eu-1 ${X}"}})];
        let held = vec![json!({"kind": "ConfigMap", "metadata": {"name": "m"},
                               "data": {"a": "${REGION} ${X}"}})];
        let e = flux_objects(real.clone(), held.clone(), &[0], &vars()).unwrap_err();
        assert!(
            e.message().starts_with("ConfigMap m: Flux's substitution"),
            "{e}"
        );
        assert!(carriers(&real, &held[..0]).is_err());
    }
}
