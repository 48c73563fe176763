//! cel-go's AST validators in the environment new rules compile in (k8s.io/apiserver
//! v0.32.3 `environment/base.go`): `duration`, `timestamp` and `matches` literals, and
//! homogeneous list and map literals. They run only on what type-checks.

use super::types::{format, substitute, T};
use super::Checker;
use crate::topology::variables::cel::parser::Lit;

impl Checker<'_> {
    /// The environment's AST validators (k8s.io/apiserver `base.go`: duration,
    /// timestamp and regex literals, homogeneous aggregate literals); `None` where one
    /// cannot be followed.
    pub(super) fn validate(&mut self) -> Option<()> {
        for (name, lit, at) in std::mem::take(&mut self.literal_args) {
            // Other literals: `duration(1)` does not type-check, `timestamp(1)` evaluates.
            let Lit::Str(s) = &lit else {
                continue;
            };
            let valid = match name.as_str() {
                "matches" => match crate::go::regex::compile(s) {
                    Ok(_) => true,
                    Err(e) if e.to_string().contains("size limit") => return None,
                    Err(_) => false,
                },
                "duration" => plain_duration(s).then_some(true)?,
                _ => rfc3339(s).then_some(true)?,
            };
            if !valid {
                self.error(at, format!("invalid {name} argument"));
            }
        }
        let mut found = Vec::new();
        for a in &self.aggregates {
            let ty = |t: &T| substitute(&self.m, t, true);
            let step = if a.map { 2 } else { 1 };
            let mut firsts: Vec<T> = Vec::new();
            for (i, (t, at)) in a.elems.iter().enumerate() {
                let t = ty(t);
                let slot = i % step;
                if i < step {
                    firsts.push(t);
                    continue;
                }
                if t != firsts[slot] {
                    let msg = format!(
                        "expected type '{}' but found '{}'",
                        format(&firsts[slot]),
                        format(&t)
                    );
                    found.push((*at, msg));
                    if !a.map {
                        break;
                    }
                }
            }
        }
        self.errors.extend(found);
        Some(())
    }
}

/// A duration Go's `time.ParseDuration` surely reads: `0`, or numbers with units.
fn plain_duration(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    if s == "0" {
        return true;
    }
    let mut rest = s;
    let units = ["ns", "us", "\u{b5}s", "ms", "s", "m", "h"];
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        let num = &rest[..digits];
        if num.is_empty() || num == "." || num.matches('.').count() > 1 || digits > 15 {
            return false;
        }
        rest = &rest[digits..];
        let Some(u) = units.iter().find(|u| rest.starts_with(**u)) else {
            return false;
        };
        rest = &rest[u.len()..];
    }
    true
}

/// An RFC 3339 timestamp of the plain form Go's `time.Parse(time.RFC3339, ...)`
/// surely reads: `2006-01-02T15:04:05[.frac](Z|+07:00)`, with fields in range.
fn rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    let ok = || -> Option<bool> {
        let (mo, d, h, mi, se) = (
            num(5..7)?,
            num(8..10)?,
            num(11..13)?,
            num(14..16)?,
            num(17..19)?,
        );
        num(0..4)?;
        if b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
            return Some(false);
        }
        if !(1..=12).contains(&mo) || !(1..=28).contains(&d) || h > 23 || mi > 59 || se > 59 {
            return Some(false);
        }
        let mut rest = &s[19..];
        if let Some(r) = rest.strip_prefix('.') {
            let n = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            if n == 0 {
                return Some(false);
            }
            rest = &r[n..];
        }
        Some(
            rest == "Z" || {
                let z = rest.as_bytes();
                z.len() == 6
                    && matches!(z[0], b'+' | b'-')
                    && z[3] == b':'
                    && rest[1..3].parse::<u32>().is_ok_and(|v| v < 24)
                    && rest[4..6].parse::<u32>().is_ok_and(|v| v < 60)
            },
        )
    };
    s.len() >= 20 && s.is_ascii() && ok().unwrap_or(false)
}
