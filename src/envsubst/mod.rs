//! TEMPORARY minimal envsubst (plain `${VAR}` and `${VAR:=default}`), replaced by the
//! full drone/envsubst engine on the `envsubst` branch.
use crate::error::{Error, Result};

pub struct Template(String);

pub fn parse(text: &str) -> Result<Template> {
    Ok(Template(text.to_string()))
}

impl Template {
    pub fn execute(&self, lookup: &dyn Fn(&str) -> Option<String>) -> String {
        let s = &self.0;
        let mut out = String::new();
        let mut rest = s.as_str();
        while let Some(i) = rest.find("${") {
            out.push_str(&rest[..i]);
            let after = &rest[i + 2..];
            match after.find('}') {
                Some(j) => {
                    let inner = &after[..j];
                    let (name, def) = match inner.split_once(":=") {
                        Some((n, d)) => (n, d),
                        None => (inner, ""),
                    };
                    let v = lookup(name).unwrap_or_default();
                    out.push_str(if v.is_empty() { def } else { &v });
                    rest = &after[j + 1..];
                }
                None => {
                    out.push_str(&rest[i..]);
                    rest = "";
                }
            }
        }
        out.push_str(rest);
        out
    }
}

pub mod processor {
    use super::*;
    use std::collections::BTreeMap;
    pub fn get_variable_map(text: &str) -> Result<BTreeMap<String, Option<String>>> {
        let mut m = BTreeMap::new();
        let mut rest = text;
        while let Some(i) = rest.find("${") {
            let after = &rest[i + 2..];
            let j = after
                .find('}')
                .ok_or_else(|| Error::new("missing closing brace"))?;
            let inner = &after[..j];
            let (n, d) = inner.split_once(":=").unwrap_or((inner, ""));
            m.entry(n.to_string()).or_insert(if d.is_empty() {
                None
            } else {
                Some(d.to_string())
            });
            rest = &after[j + 1..];
        }
        Ok(m)
    }
    pub fn get_variables(text: &str) -> Result<Vec<String>> {
        Ok(get_variable_map(text)?.into_keys().collect())
    }
    pub fn process(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String> {
        let m = get_variable_map(text)?;
        let missing: Vec<String> = m
            .iter()
            .filter(|(k, d)| lookup(k).is_none() && d.is_none())
            .map(|(k, _)| k.clone())
            .collect();
        if !missing.is_empty() {
            return Err(Error::new(format!("value for variables [{}] is not set. Please set the value using os environment variables or the clusterctl config file", missing.join(", "))));
        }
        Ok(parse(text)?.execute(lookup))
    }
}
