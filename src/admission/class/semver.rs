//! `validateKubernetesVersions` (v1.14.2) with blang/semver v4's `ParseTolerant` and
//! Cluster API's `version.Compare(a, b, WithBuildTags())`, ported as they are (the
//! `semver` crate reads some versions differently: leading zeros, short versions).

use std::cmp::Ordering;

use serde_json::Value;

use super::list;
use crate::topology::variables::field_error::{index, BadValue, FieldError};

/// A prerelease identifier.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pre {
    Num(u64),
    Str(String),
}

/// A blang `semver.Version`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pre: Vec<Pre>,
    build: Vec<String>,
}

fn numeric(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

fn alphanum(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

fn leading_zero(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// A decimal number of `Parse`: digits only, no leading zero, fits a uint64.
fn number(s: &str) -> Option<u64> {
    if !numeric(s) || leading_zero(s) {
        return None;
    }
    s.parse().ok()
}

/// blang `semver.Parse`.
fn parse(s: &str) -> Option<Version> {
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    if s.is_empty() || parts.len() != 3 {
        return None;
    }
    let (major, minor) = (number(parts[0])?, number(parts[1])?);
    let mut rest = parts[2];
    let mut build = Vec::new();
    if let Some(i) = rest.find('+') {
        build = rest[i + 1..].split('.').map(String::from).collect();
        rest = &rest[..i];
    }
    let mut pre_parts = Vec::new();
    if let Some(i) = rest.find('-') {
        pre_parts = rest[i + 1..].split('.').collect();
        rest = &rest[..i];
    }
    let patch = number(rest)?;
    let mut pre = Vec::new();
    for p in pre_parts {
        if p.is_empty() {
            return None;
        }
        if numeric(p) {
            pre.push(Pre::Num(number(p)?));
        } else if alphanum(p) {
            pre.push(Pre::Str(p.to_string()));
        } else {
            return None;
        }
    }
    if build.iter().any(|b| b.is_empty() || !alphanum(b)) {
        return None;
    }
    Some(Version {
        major,
        minor,
        patch,
        pre,
        build,
    })
}

/// blang `semver.ParseTolerant`: spaces and a `v` trimmed, leading zeros dropped, a
/// missing minor or patch read as 0.
pub fn parse_tolerant(s: &str) -> Option<Version> {
    let s = s.trim();
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s
        .splitn(3, '.')
        .map(|p| {
            if p.len() <= 1 {
                return p.to_string();
            }
            let t = p.trim_start_matches('0');
            if t.is_empty() || !t.as_bytes()[0].is_ascii_digit() {
                format!("0{t}")
            } else {
                t.to_string()
            }
        })
        .collect();
    if parts.len() < 3 {
        if parts.last().is_some_and(|l| l.contains(['+', '-'])) {
            return None;
        }
        parts.resize(3, "0".to_string());
    }
    parse(&parts.join("."))
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        for (i, p) in self.pre.iter().enumerate() {
            f.write_str(if i == 0 { "-" } else { "." })?;
            match p {
                Pre::Num(n) => write!(f, "{n}")?,
                Pre::Str(s) => f.write_str(s)?,
            }
        }
        if !self.build.is_empty() {
            write!(f, "+{}", self.build.join("."))?;
        }
        Ok(())
    }
}

/// blang `Version.Compare` (build metadata ignored).
fn compare(a: &Version, b: &Version) -> Ordering {
    let core = (a.major, a.minor, a.patch).cmp(&(b.major, b.minor, b.patch));
    if core != Ordering::Equal {
        return core;
    }
    match (a.pre.is_empty(), b.pre.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        _ => {}
    }
    for (x, y) in a.pre.iter().zip(&b.pre) {
        let o = match (x, y) {
            (Pre::Num(x), Pre::Num(y)) => x.cmp(y),
            (Pre::Num(_), Pre::Str(_)) => Ordering::Less,
            (Pre::Str(_), Pre::Num(_)) => Ordering::Greater,
            (Pre::Str(x), Pre::Str(y)) => x.cmp(y),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.pre.len().cmp(&b.pre.len())
}

/// `version.Compare(a, b, version.WithBuildTags())`: -1, 0, 1, or 2 when only the
/// build tags differ and cannot be ordered.
pub fn compare_with_build_tags(a: &Version, b: &Version) -> i8 {
    match compare(a, b) {
        Ordering::Less => return -1,
        Ordering::Greater => return 1,
        Ordering::Equal => {}
    }
    let id = |s: &String| -> Result<u64, String> {
        if numeric(s) {
            Ok(s.parse().unwrap_or(u64::MAX))
        } else {
            Err(s.clone())
        }
    };
    for (x, y) in a.build.iter().zip(&b.build) {
        let c = match (id(x), id(y)) {
            (Ok(x), Ok(y)) => match x.cmp(&y) {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            },
            (Ok(_), Err(_)) => -1,
            (Err(_), Ok(_)) => 1,
            (Err(x), Err(y)) => {
                if x == y {
                    0
                } else {
                    2
                }
            }
        };
        if c != 0 {
            return c;
        }
    }
    match a.build.len().cmp(&b.build.len()) {
        Ordering::Equal => 0,
        Ordering::Less => -1,
        Ordering::Greater => 1,
    }
}

/// `validateKubernetesVersions` of `spec.kubernetesVersions` (Go reports at
/// `spec.kubernetesVersion[i]`): each a semantic version, greater than the one before
/// (the same with other build tags is tolerated), and at most one minor above it.
pub(super) fn kubernetes_versions(cc: &Value, errs: &mut Vec<FieldError>) {
    let mut previous: Option<Version> = None;
    for (i, v) in list(cc, &["spec", "kubernetesVersions"]).iter().enumerate() {
        let v = v.as_str().unwrap_or("");
        let path = index("spec.kubernetesVersion", i);
        let bad = |m: String| FieldError::invalid(&path, BadValue::Str(v.into()), m);
        let Some(s) = parse_tolerant(v) else {
            errs.push(bad("version must be a valid semantic version".into()));
            continue;
        };
        if let Some(p) = &previous {
            if compare_with_build_tags(&s, p) <= 0 {
                errs.push(bad(format!("version must be greater than v{p}")));
            }
            if p.minor != s.minor && p.minor.wrapping_add(1) != s.minor {
                errs.push(bad(format!(
                    "expecting a version with minor {} or {}, found version {s}",
                    p.minor,
                    p.minor.wrapping_add(1)
                )));
            }
        }
        previous = Some(s);
    }
}
