//! Semantic versions as apimachinery's `version.ParseSemantic` reads them (R3.5).
//!
//! Optional leading whitespace, optional `v`, exactly three numeric components with
//! no leading zeros, optional `-pre.release` and `+build`. `String()` drops the `v`.

use std::cmp::Ordering;
use std::fmt;

use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Vec<String>,
    pub build: Vec<String>,
}

fn ident_ok(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

fn parse_num(s: &str, what: &str, full: &str) -> Result<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::new(format!("illegal version string \"{full}\"")));
    }
    if s.len() > 1 && s.starts_with('0') {
        return Err(Error::new(format!(
            "illegal zero-prefixed version component \"{s}\" in \"{full}\""
        )));
    }
    s.parse::<u64>().map_err(|_| {
        Error::new(format!(
            "illegal {what} version component \"{s}\" in \"{full}\""
        ))
    })
}

impl Version {
    /// `version.ParseSemantic`.
    pub fn parse(s: &str) -> Result<Version> {
        let t = s.trim_start();
        let t = t.trim_end();
        let t = t.strip_prefix('v').unwrap_or(t);
        let (rest, build) = match t.split_once('+') {
            Some((a, b)) => (a, Some(b)),
            None => (t, None),
        };
        let (core, pre) = match rest.split_once('-') {
            Some((a, b)) => (a, Some(b)),
            None => (rest, None),
        };
        let parts: Vec<&str> = core.split('.').collect();
        if parts.len() != 3 {
            return Err(Error::new(format!("illegal version string \"{s}\"")));
        }
        let major = parse_num(parts[0], "major", s)?;
        let minor = parse_num(parts[1], "minor", s)?;
        let patch = parse_num(parts[2], "patch", s)?;
        let mut pv = Vec::new();
        if let Some(p) = pre {
            for id in p.split('.') {
                if !ident_ok(id) {
                    return Err(Error::new(format!(
                        "illegal pre-release version string \"{s}\""
                    )));
                }
                if id.len() > 1 && id.starts_with('0') && id.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(Error::new(format!(
                        "illegal zero-prefixed version component \"{id}\" in \"{s}\""
                    )));
                }
                pv.push(id.to_string());
            }
        }
        let mut bv = Vec::new();
        if let Some(b) = build {
            for id in b.split('.') {
                if !ident_ok(id) {
                    return Err(Error::new(format!("illegal build metadata string \"{s}\"")));
                }
                bv.push(id.to_string());
            }
        }
        Ok(Version {
            major,
            minor,
            patch,
            pre: pv,
            build: bv,
        })
    }

    pub fn is_prerelease(&self) -> bool {
        !self.pre.is_empty()
    }

    fn cmp_pre(a: &[String], b: &[String]) -> Ordering {
        match (a.is_empty(), b.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        for (x, y) in a.iter().zip(b.iter()) {
            let o = match (x.parse::<u64>(), y.parse::<u64>()) {
                (Ok(p), Ok(q)) => p.cmp(&q),
                _ => x.as_bytes().cmp(y.as_bytes()),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        a.len().cmp(&b.len())
    }

    /// `Version.Compare`: build metadata is ignored.
    pub fn compare(&self, o: &Version) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(o.major, o.minor, o.patch))
            .then_with(|| Self::cmp_pre(&self.pre, &o.pre))
    }
}

impl fmt::Display for Version {
    /// `Version.String()`: `MAJOR.MINOR.PATCH[-pre][+build]`, no `v`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre.join("."))?;
        }
        if !self.build.is_empty() {
            write!(f, "+{}", self.build.join("."))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_semver_with_or_without_v() {
        assert_eq!(Version::parse("v1.10.10").unwrap().to_string(), "1.10.10");
        assert_eq!(Version::parse(" 1.0.0 ").unwrap().to_string(), "1.0.0");
        assert_eq!(
            Version::parse("v2.0.2+exp.sha.5114f85")
                .unwrap()
                .to_string(),
            "2.0.2+exp.sha.5114f85"
        );
    }

    #[test]
    fn rejects_malformed() {
        for s in [
            "v1.0",
            "latest",
            "v01.0.0",
            "v1.0.0-01",
            "Foo.Bar",
            "v1.0.0-",
            "v1.0.0+a..b",
            "",
        ] {
            assert!(Version::parse(s).is_err(), "{s}");
        }
    }

    #[test]
    fn release_beats_prerelease_and_numeric_ids_compare_numerically() {
        let p = |s| Version::parse(s).unwrap();
        assert_eq!(p("v1.0.0").compare(&p("v1.0.0-rc.1")), Ordering::Greater);
        assert_eq!(
            p("v1.0.0-alpha.10").compare(&p("v1.0.0-alpha.9")),
            Ordering::Greater
        );
        assert_eq!(
            p("v1.0.0-alpha").compare(&p("v1.0.0-alpha.1")),
            Ordering::Less
        );
        assert_eq!(p("v1.0.0+a").compare(&p("v1.0.0+b")), Ordering::Equal);
    }
}
