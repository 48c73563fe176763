//! sprig dict functions (dict.go). Go maps are shared references, so `set`,
//! `unset` and `merge` mutate their argument in Go; here they return a new
//! map (see differences.txt). `keys`/`values` come out in key order where Go's
//! order is random.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::{empty, strval, NIL_DEREF};
use crate::gotemplate::value::{Elem, Value};

fn map_of(v: &Value) -> Option<&BTreeMap<String, Value>> {
    match v {
        Value::Map(m, _) => Some(m),
        _ => None,
    }
}

pub fn dict(a: &[Value]) -> Result<Value, String> {
    let mut m = BTreeMap::new();
    let mut i = 0;
    while i < a.len() {
        let k = strval(&a[i]);
        let v = a.get(i + 1).cloned().unwrap_or_else(|| Value::str(""));
        m.insert(k, v);
        i += 2;
    }
    Ok(Value::map(m))
}

pub fn get(d: &Value, key: &str) -> Value {
    map_of(d)
        .and_then(|m| m.get(key).cloned())
        .unwrap_or_else(|| Value::str(""))
}

pub fn set(d: &Value, key: &str, v: Option<&Value>) -> Value {
    let mut m = map_of(d).cloned().unwrap_or_default();
    match v {
        Some(v) => {
            m.insert(key.to_string(), v.clone());
        }
        None => {
            m.remove(key);
        }
    }
    Value::map(m)
}

pub fn has_key(d: &Value, key: &str) -> bool {
    map_of(d).is_some_and(|m| m.contains_key(key))
}

pub fn pluck(key: &str, dicts: &[Value]) -> Value {
    Value::list(
        dicts
            .iter()
            .filter_map(|d| map_of(d).and_then(|m| m.get(key).cloned()))
            .collect(),
    )
}

pub fn keys(dicts: &[Value]) -> Value {
    Value::str_list(
        dicts
            .iter()
            .filter_map(map_of)
            .flat_map(|m| m.keys().cloned())
            .collect(),
    )
}

pub fn values(d: &Value) -> Value {
    Value::list(
        map_of(d)
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default(),
    )
}

pub fn pick_omit(d: &Value, keys: &[Value], pick: bool) -> Value {
    let names: Vec<&str> = keys.iter().filter_map(|k| k.as_str()).collect();
    let m = map_of(d).map(|m| {
        m.iter()
            .filter(|(k, _)| names.contains(&k.as_str()) == pick)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    });
    Value::map(m.unwrap_or_default())
}

fn merge_into(dst: &mut BTreeMap<String, Value>, src: &BTreeMap<String, Value>, overwrite: bool) {
    for (k, sv) in src {
        match dst.get_mut(k) {
            None => {
                dst.insert(k.clone(), sv.clone());
            }
            Some(dv) => match (&*dv, sv) {
                (Value::Map(dm, Elem::Any), Value::Map(sm, Elem::Any)) => {
                    let mut n = (**dm).clone();
                    merge_into(&mut n, sm, overwrite);
                    *dv = Value::Map(Rc::new(n), Elem::Any);
                }
                _ => {
                    if (overwrite && !empty(sv)) || (!overwrite && empty(dv)) {
                        *dv = sv.clone();
                    }
                }
            },
        }
    }
}

/// mergo.Merge / MergeWithOverwrite of maps.
pub fn merge(dst: &Value, srcs: &[Value], overwrite: bool) -> Value {
    let mut m = map_of(dst).cloned().unwrap_or_default();
    for s in srcs {
        if let Some(sm) = map_of(s) {
            merge_into(&mut m, sm, overwrite);
        }
    }
    Value::map(m)
}

fn type_assert_map(v: &Value) -> Result<&BTreeMap<String, Value>, String> {
    match v {
        Value::Map(m, Elem::Any) => Ok(m),
        Value::Invalid | Value::Nil => {
            Err("interface conversion: interface {} is nil, not map[string]interface {}".into())
        }
        v => Err(format!(
            "interface conversion: interface {{}} is {}, not map[string]interface {{}}",
            v.type_name()
        )),
    }
}

pub fn dig(ps: &[Value]) -> Result<Value, String> {
    if ps.len() < 3 {
        return Err("dig needs at least three arguments".into());
    }
    let mut dict = type_assert_map(&ps[ps.len() - 1])?;
    let def = &ps[ps.len() - 2];
    let mut keys = Vec::new();
    for k in &ps[..ps.len() - 2] {
        match k {
            Value::Str(s) => keys.push(s.to_string()),
            Value::Invalid | Value::Nil => {
                return Err("interface conversion: interface {} is nil, not string".into())
            }
            v => {
                return Err(format!(
                    "interface conversion: interface {{}} is {}, not string",
                    v.type_name()
                ))
            }
        }
    }
    for (i, k) in keys.iter().enumerate() {
        let Some(step) = dict.get(k) else {
            return Ok(def.clone());
        };
        if i == keys.len() - 1 {
            return Ok(step.clone());
        }
        dict = type_assert_map(step)?;
    }
    let _ = NIL_DEREF;
    Ok(def.clone())
}
