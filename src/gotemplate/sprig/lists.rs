//! sprig list functions (list.go): they accept any slice and return
//! `[]interface {}`; non-slices give sprig's "Cannot ... on type KIND" errors
//! and nil gives Go's nil-dereference panic text.

use std::rc::Rc;

use super::{empty, strval, NIL_DEREF};
use crate::gotemplate::value::{Elem, Value};

fn items<'a>(v: &'a Value, what: &str) -> Result<&'a [Value], String> {
    match v {
        Value::List(l, _) => Ok(l),
        Value::Invalid | Value::Nil => Err(NIL_DEREF.into()),
        v => Err(format!("{what} {}", v.kind_name())),
    }
}

fn list(v: Vec<Value>) -> Result<Value, String> {
    Ok(Value::list(v))
}

/// sprig strslice.
pub fn strslice(v: &Value) -> Vec<String> {
    match v {
        Value::List(l, _) => l
            .iter()
            .filter(|x| !matches!(x, Value::Nil | Value::Invalid))
            .map(strval)
            .collect(),
        Value::Invalid | Value::Nil => Vec::new(),
        v => vec![strval(v)],
    }
}

pub fn sort_alpha(v: &Value) -> Vec<String> {
    match v {
        Value::List(..) => {
            let mut s = strslice(v);
            s.sort();
            s
        }
        v => vec![strval(v)],
    }
}

pub fn compact(v: &Value) -> Result<Value, String> {
    let l = items(v, "Cannot compact on type")?;
    list(l.iter().filter(|x| !empty(x)).cloned().collect())
}

pub fn push(l: &Value, v: &Value, front: bool) -> Result<Value, String> {
    let what = if front {
        "Cannot prepend on type"
    } else {
        "Cannot push on type"
    };
    let l = items(l, what)?;
    crate::gotemplate::budget::fits_list(l.len().saturating_add(1))?;
    let mut out = l.to_vec();
    if front {
        out.insert(0, v.clone());
    } else {
        out.push(v.clone());
    }
    list(out)
}

pub fn first_last(v: &Value, first: bool) -> Result<Value, String> {
    let what = if first {
        "Cannot find first on type"
    } else {
        "Cannot find last on type"
    };
    let l = items(v, what)?;
    let x = if first { l.first() } else { l.last() };
    Ok(x.cloned().unwrap_or(Value::Nil))
}

pub fn rest_initial(v: &Value, rest: bool) -> Result<Value, String> {
    let what = if rest {
        "Cannot find rest on type"
    } else {
        "Cannot find initial on type"
    };
    let l = items(v, what)?;
    if l.is_empty() {
        return list(Vec::new());
    }
    list(if rest {
        l[1..].to_vec()
    } else {
        l[..l.len() - 1].to_vec()
    })
}

pub fn reverse(v: &Value) -> Result<Value, String> {
    let l = items(v, "Cannot find reverse on type")?;
    list(l.iter().rev().cloned().collect())
}

pub fn uniq(v: &Value) -> Result<Value, String> {
    let l = items(v, "Cannot find uniq on type")?;
    let mut out: Vec<Value> = Vec::new();
    for x in l {
        if !out.iter().any(|y| y.deep_equal(x)) {
            out.push(x.clone());
        }
    }
    list(out)
}

pub fn without(v: &Value, omit: &[Value]) -> Result<Value, String> {
    let l = items(v, "Cannot find without on type")?;
    list(
        l.iter()
            .filter(|x| !omit.iter().any(|o| o.deep_equal(x)))
            .cloned()
            .collect(),
    )
}

pub fn has(needle: &Value, hay: &Value) -> Result<Value, String> {
    match hay {
        Value::Invalid | Value::Nil => Ok(Value::Bool(false)),
        hay => {
            let l = items(hay, "Cannot find has on type")?;
            Ok(Value::Bool(l.iter().any(|x| x.deep_equal(needle))))
        }
    }
}

pub fn slice(v: &Value, idx: &[Value]) -> Result<Value, String> {
    let (l, e) = match v {
        Value::List(l, e) => (l, *e),
        Value::Invalid | Value::Nil => return Err(NIL_DEREF.into()),
        v => {
            return Err(format!(
                "list should be type of slice or array but {}",
                v.kind_name()
            ))
        }
    };
    if l.is_empty() {
        return Ok(Value::Nil);
    }
    let start = idx.first().map(super::to_int64).unwrap_or(0);
    let end = if idx.len() < 2 {
        l.len() as i64
    } else {
        super::to_int64(&idx[1])
    };
    if start < 0 || end < start || end as u64 > l.len() as u64 {
        return Err("reflect: slice index out of range".into());
    }
    Ok(Value::List(
        Rc::new(l[start as usize..end as usize].to_vec()),
        e,
    ))
}

pub fn concat(lists: &[Value]) -> Result<Value, String> {
    // Sized first: concatenating a list with itself doubles it, within the step limit.
    let total = lists.iter().fold(0usize, |n, l| match l {
        Value::List(x, _) => n.saturating_add(x.len()),
        _ => n,
    });
    crate::gotemplate::budget::fits_list(total)?;
    let mut out = Vec::with_capacity(total);
    for l in lists {
        match l {
            Value::List(x, _) => out.extend(x.iter().cloned()),
            Value::Invalid | Value::Nil => return Err(NIL_DEREF.into()),
            v => return Err(format!("Cannot concat type {} as list", v.kind_name())),
        }
    }
    if out.is_empty() {
        return Ok(Value::Nil);
    }
    list(out)
}

pub fn chunk(size: i64, v: &Value) -> Result<Value, String> {
    let l = items(v, "Cannot chunk type")?;
    if size <= 0 {
        return Err("runtime error: integer divide by zero".into());
    }
    let out: Vec<Value> = l
        .chunks(size as usize)
        .map(|c| Value::list(c.to_vec()))
        .collect();
    Ok(Value::List(Rc::new(out), Elem::Any))
}
