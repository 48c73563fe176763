//! Masterminds semver v3.3.0 as sprig uses it: `NewVersion` (loose: `v`
//! prefix, missing minor/patch), `NewConstraint` / `Check` (operators
//! `= != > < >= => <= =< ~ ~> ^`, wildcards, `a - b` ranges, `,` and `||`),
//! and `*Version`'s comparison and bumps (the methods templates call are in `methods`).

use std::cmp::Ordering;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: String,
    pub metadata: String,
    pub original: String,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        if !self.metadata.is_empty() {
            write!(f, "+{}", self.metadata)?;
        }
        Ok(())
    }
}

mod scan;

fn only(s: &str, set: impl Fn(char) -> bool) -> bool {
    s.chars().all(set)
}

fn is_num(c: char) -> bool {
    c.is_ascii_digit()
}

fn is_allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

fn validate_pre(p: &str) -> Result<(), String> {
    for part in p.split('.') {
        if only(part, is_num) {
            if part.len() > 1 && part.starts_with('0') {
                return Err("Version segment starts with 0".into());
            }
        } else if !only(part, is_allowed) {
            return Err("Invalid Prerelease string".into());
        }
    }
    Ok(())
}

fn validate_meta(m: &str) -> Result<(), String> {
    if m.split('.').all(|p| only(p, is_allowed)) {
        Ok(())
    } else {
        Err("Invalid Metadata string".into())
    }
}

fn seg(s: &str) -> Result<u64, String> {
    s.trim_start_matches('.').parse::<u64>().map_err(|_| {
        format!(
            "Error parsing version segment: strconv.ParseUint: parsing {}: value out of range",
            crate::go::quote::quote(s.trim_start_matches('.'))
        )
    })
}

/// semver.NewVersion.
pub fn parse(v: &str) -> Result<Version, String> {
    let Some(m) = scan::version(v) else {
        return Err("Invalid Semantic Version".into());
    };
    let text = |s: &std::ops::Range<usize>| &v[s.clone()];
    // The `-` and `+` marks are not part of the prerelease and metadata.
    let tail =
        |s: &Option<std::ops::Range<usize>>| s.as_ref().map_or("", |s| &v[s.start + 1..s.end]);
    let out = Version {
        major: seg(text(&m.major))?,
        minor: m.minor.as_ref().map_or(Ok(0), |s| seg(text(s)))?,
        patch: m.patch.as_ref().map_or(Ok(0), |s| seg(text(s)))?,
        pre: tail(&m.pre).to_string(),
        metadata: tail(&m.meta).to_string(),
        original: v.to_string(),
    };
    if !out.pre.is_empty() {
        validate_pre(&out.pre)?;
    }
    if !out.metadata.is_empty() {
        validate_meta(&out.metadata)?;
    }
    Ok(out)
}

fn compare_pre_part(s: &str, o: &str) -> Ordering {
    if s == o {
        return Ordering::Equal;
    }
    if s.is_empty() {
        return Ordering::Less;
    }
    if o.is_empty() {
        return Ordering::Greater;
    }
    match (s.parse::<u64>(), o.parse::<u64>()) {
        (Err(_), Err(_)) => {
            if s > o {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (_, Err(_)) => Ordering::Less,
        (Err(_), _) => Ordering::Greater,
        (Ok(a), Ok(b)) => {
            if a > b {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    }
}

fn compare_pre(a: &str, b: &str) -> Ordering {
    let sa: Vec<&str> = a.split('.').collect();
    let sb: Vec<&str> = b.split('.').collect();
    for i in 0..sa.len().max(sb.len()) {
        let d = compare_pre_part(
            sa.get(i).copied().unwrap_or(""),
            sb.get(i).copied().unwrap_or(""),
        );
        if d != Ordering::Equal {
            return d;
        }
    }
    Ordering::Equal
}

impl Version {
    pub fn compare(&self, o: &Version) -> Ordering {
        let c = (self.major, self.minor, self.patch).cmp(&(o.major, o.minor, o.patch));
        if c != Ordering::Equal {
            return c;
        }
        match (self.pre.is_empty(), o.pre.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => compare_pre(&self.pre, &o.pre),
        }
    }

    fn v_prefix(&self) -> &str {
        if self.original.starts_with('v') {
            "v"
        } else {
            ""
        }
    }

    pub(super) fn bumped(&self, major: u64, minor: u64, patch: u64) -> Version {
        let mut n = Version {
            major,
            minor,
            patch,
            pre: String::new(),
            metadata: String::new(),
            original: String::new(),
        };
        n.original = format!("{}{}", self.v_prefix(), n);
        n
    }
}

#[allow(dead_code)] // `orig` is kept for Go's (unused) error texts.
struct Constraint {
    con: Version,
    orig: String,
    op: String,
    minor_dirty: bool,
    patch_dirty: bool,
    dirty: bool,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "*" | "X")
}

fn parse_constraint(c: &str) -> Result<Constraint, String> {
    if c.is_empty() {
        return Ok(Constraint {
            con: parse("0.0.0")?,
            orig: String::new(),
            op: String::new(),
            minor_dirty: false,
            patch_dirty: false,
            dirty: true,
        });
    }
    let Some((op, cv)) = scan::constraint(c) else {
        return Err(format!("improper constraint: {c}"));
    };
    let part = |s: &Option<std::ops::Range<usize>>| s.as_ref().map_or("", |s| &c[s.clone()]);
    // `.minor`, `.patch` and `-prerelease` keep their marks, as the expression's groups do.
    let (whole, major) = (&c[cv.whole.clone()], &c[cv.major.clone()]);
    let (minor, patch, pre) = (part(&cv.minor), part(&cv.patch), part(&cv.pre));
    let mut ver = whole.to_string();
    let (mut minor_dirty, mut patch_dirty, mut dirty) = (false, false, false);
    if is_x(major) || major.is_empty() {
        ver = format!("0.0.0{pre}");
        dirty = true;
    } else if is_x(minor.trim_start_matches('.')) || minor.is_empty() {
        minor_dirty = true;
        dirty = true;
        ver = format!("{major}.0.0{pre}");
    } else if is_x(patch.trim_start_matches('.')) || patch.is_empty() {
        dirty = true;
        patch_dirty = true;
        ver = format!("{major}{minor}.0{pre}");
    }
    let con = parse(&ver).map_err(|_| "constraint Parser Error".to_string())?;
    Ok(Constraint {
        con,
        orig: whole.to_string(),
        op: c[op].to_string(),
        minor_dirty,
        patch_dirty,
        dirty,
    })
}

fn rewrite_range(s: &str) -> String {
    let mut out = s.to_string();
    for (whole, a, b) in scan::ranges(s) {
        let (whole, a, b) = (&s[whole], &s[a], &s[b]);
        out = out.replacen(whole, &format!(">= {a}, <= {b} "), 1);
    }
    out
}

/// A parsed constraint set: OR of ANDs.
pub struct Constraints(Vec<Vec<Constraint>>);

/// semver.NewConstraint.
pub fn parse_constraints(c: &str) -> Result<Constraints, String> {
    let c = rewrite_range(c);
    let mut ors = Vec::new();
    for part in c.split("||") {
        if !scan::valid(part) {
            return Err(format!("improper constraint: {part}"));
        }
        let mut found: Vec<&str> = scan::terms(part).into_iter().map(|m| &part[m]).collect();
        if found.is_empty() {
            found.push(part);
        }
        ors.push(
            found
                .into_iter()
                .map(parse_constraint)
                .collect::<Result<Vec<_>, _>>()?,
        );
    }
    Ok(Constraints(ors))
}

impl Constraints {
    pub fn check(&self, v: &Version) -> bool {
        self.0.iter().any(|and| and.iter().all(|c| c.check(v)))
    }
}

impl Constraint {
    fn check(&self, v: &Version) -> bool {
        let c = &self.con;
        let pre_block = !v.pre.is_empty() && c.pre.is_empty();
        match self.op.as_str() {
            "" | "=" => {
                if pre_block {
                    return false;
                }
                if self.dirty {
                    return self.tilde(v);
                }
                v.compare(c) == Ordering::Equal
            }
            "!=" => self.not_equal(v),
            ">" => {
                if pre_block {
                    return false;
                }
                if !self.dirty {
                    return v.compare(c) == Ordering::Greater;
                }
                if v.major > c.major {
                    true
                } else if v.major < c.major || self.minor_dirty {
                    false
                } else if self.patch_dirty {
                    v.minor > c.minor
                } else {
                    v.compare(c) == Ordering::Greater
                }
            }
            "<" => !pre_block && v.compare(c) == Ordering::Less,
            ">=" | "=>" => !pre_block && v.compare(c) != Ordering::Less,
            "<=" | "=<" => {
                if pre_block {
                    return false;
                }
                if !self.dirty {
                    return v.compare(c) != Ordering::Greater;
                }
                !(v.major > c.major
                    || (v.major == c.major && v.minor > c.minor && !self.minor_dirty))
            }
            "~" | "~>" => self.tilde(v),
            "^" => self.caret(v),
            _ => false,
        }
    }

    fn tilde(&self, v: &Version) -> bool {
        let c = &self.con;
        if !v.pre.is_empty() && c.pre.is_empty() {
            return false;
        }
        if v.compare(c) == Ordering::Less {
            return false;
        }
        if c.major == 0 && c.minor == 0 && c.patch == 0 && !self.minor_dirty && !self.patch_dirty {
            return true;
        }
        if v.major != c.major {
            return false;
        }
        v.minor == c.minor || self.minor_dirty
    }

    fn caret(&self, v: &Version) -> bool {
        let c = &self.con;
        if !v.pre.is_empty() && c.pre.is_empty() {
            return false;
        }
        if v.compare(c) == Ordering::Less {
            return false;
        }
        if c.major > 0 || self.minor_dirty {
            return v.major == c.major;
        }
        if c.major == 0 && v.major > 0 {
            return false;
        }
        if c.minor > 0 || self.patch_dirty {
            return v.minor == c.minor;
        }
        if c.minor == 0 && v.minor > 0 {
            return false;
        }
        c.patch == v.patch
    }

    fn not_equal(&self, v: &Version) -> bool {
        let c = &self.con;
        if self.dirty {
            if !v.pre.is_empty() && c.pre.is_empty() {
                return false;
            }
            if c.major != v.major {
                return true;
            }
            if c.minor != v.minor && !self.minor_dirty {
                return true;
            } else if self.minor_dirty {
                return false;
            } else if c.patch != v.patch && !self.patch_dirty {
                return true;
            } else if self.patch_dirty {
                if !v.pre.is_empty() || !c.pre.is_empty() {
                    return compare_pre(&v.pre, &c.pre) != Ordering::Equal;
                }
                return false;
            }
        }
        v.compare(c) != Ordering::Equal
    }
}

/// sprig `semverCompare constraint version`.
pub fn semver_compare(constraint: &str, version: &str) -> Result<bool, String> {
    let c = parse_constraints(constraint)?;
    let v = parse(version)?;
    Ok(c.check(&v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loose_versions() {
        let v = parse("v1.30.2+k3s1").unwrap();
        assert_eq!((v.major, v.minor, v.patch), (1, 30, 2));
        assert_eq!(v.metadata, "k3s1");
        assert_eq!(v.to_string(), "1.30.2+k3s1");
        assert_eq!(parse("1.2").unwrap().to_string(), "1.2.0");
        assert_eq!(parse("garbage").unwrap_err(), "Invalid Semantic Version");
        assert_eq!(
            parse("1.2.3-01").unwrap_err(),
            "Version segment starts with 0"
        );
    }

    #[test]
    fn census_constraints() {
        let c = |c: &str, v: &str| semver_compare(c, v).unwrap();
        assert!(c("< v1.25", "v1.24.17"));
        assert!(!c("< v1.25", "v1.25.0"));
        assert!(c(">= v1.24", "v1.30.2"));
        assert!(!c("< v1.25", "v1.25.0-rc.1"));
        // 1.25.0-rc.1 > 1.25.0-0 ("rc" outranks "0"); lower prereleases pass.
        assert!(!c("< v1.25-0", "v1.25.0-rc.1"));
        assert!(c("< v1.25-0", "v1.24.0-rc.1"));
        // "rc" outranks the numeric "0" (Go agrees: golden census semverCompare-133#1).
        assert!(!c("< 1.33.0-0", "1.33.0-rc.0"));
        assert!(c("< 1.33.0-0", "v1.29.0"));
        assert!(c("~1.27", "v1.27.3"));
        assert!(c("^1.20", "v1.27.3"));
        assert!(c("1.x", "v1.27.3"));
        assert!(c(">1.2, <2", "v1.27.3"));
        assert!(c("<1.25 || >=1.27", "v1.27.3"));
        assert!(!c("!=1.27.3", "v1.27.3"));
        assert!(c("1.27.1 - 1.28", "v1.27.3"));
        assert!(c("*", "v1.27.3"));
        assert_eq!(
            semver_compare("abc", "1.2.3").unwrap_err(),
            "improper constraint: abc"
        );
    }
}
