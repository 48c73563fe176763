//! Masterminds semver's five regular expressions as hand-written scanners. Each gives
//! what the expression gives under RE2's leftmost-first rules (property test
//! `scanners_are_the_regexes`, which keeps the expressions as the oracle): every
//! character the expressions name is ASCII, an operator is always the whole run of
//! operator characters where it starts (a shorter one would leave an operator
//! character where blanks or a version must follow), and a version part is taken
//! greedily (nothing that may follow it could start inside it). Compiling the
//! expressions was a tenth of a one-Cluster `topology plan`.

/// A span of the text, as `start..end` byte offsets.
pub type Span = std::ops::Range<usize>;

/// RE2's `\s` as the expressions spell it: `[\t\n\f\r ]`.
fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// The version class `[0-9|x|X|\*]` of a constraint (the `|` is literal).
fn is_cv(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'|' | b'x' | b'X' | b'*')
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

fn is_op_char(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'>' | b'<' | b'~' | b'^')
}

/// `=||!=|>|<|>=|=>|<=|=<|~|~>|\^`.
fn is_op(s: &[u8]) -> bool {
    matches!(
        s,
        b"=" | b"" | b"!=" | b">" | b"<" | b">=" | b"=>" | b"<=" | b"=<" | b"~" | b"~>" | b"^"
    )
}

fn skip(t: &[u8], mut i: usize, f: impl Fn(u8) -> bool) -> usize {
    while i < t.len() && f(t[i]) {
        i += 1;
    }
    i
}

/// A version's parts: the whole and its groups (`major`, `.minor`, `.patch`,
/// `-pre`, `pre`, `+meta`, `meta`), empty spans for absent ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    pub whole: Span,
    pub major: Span,
    pub minor: Option<Span>,
    pub patch: Option<Span>,
    pub pre: Option<Span>,
    pub meta: Option<Span>,
}

/// `v?(N+)(\.N+)?(\.N+)?(-(I+(\.I+)*))?(\+(I+(\.I+)*))?` at `i`, greedily, where N is
/// `num` and I an identifier character.
fn version_at(t: &[u8], i: usize, num: fn(u8) -> bool) -> Option<Parts> {
    let start = i;
    let mut i = i;
    if t.get(i) == Some(&b'v') && t.get(i + 1).is_some_and(|&b| num(b)) {
        i += 1;
    }
    let m = skip(t, i, num);
    if m == i {
        return None;
    }
    let major = i..m;
    i = m;
    let mut dotted = || {
        if t.get(i) == Some(&b'.') && t.get(i + 1).is_some_and(|&b| num(b)) {
            let e = skip(t, i + 1, num);
            let s = i..e;
            i = e;
            Some(s)
        } else {
            None
        }
    };
    let minor = dotted();
    let patch = dotted();
    let mut tagged = |mark: u8| {
        if t.get(i) != Some(&mark) || !t.get(i + 1).is_some_and(|&b| is_ident(b)) {
            return None;
        }
        let mut e = skip(t, i + 1, is_ident);
        while t.get(e) == Some(&b'.') && t.get(e + 1).is_some_and(|&b| is_ident(b)) {
            e = skip(t, e + 1, is_ident);
        }
        let s = i..e;
        i = e;
        Some(s)
    };
    let pre = tagged(b'-');
    let meta = tagged(b'+');
    Some(Parts {
        whole: start..i,
        major,
        minor,
        patch,
        pre,
        meta,
    })
}

fn digit(b: u8) -> bool {
    b.is_ascii_digit()
}

/// `^SV$`: a whole text that is a version.
pub fn version(s: &str) -> Option<Parts> {
    let t = s.as_bytes();
    version_at(t, 0, digit).filter(|p| p.whole.end == t.len())
}

/// The operator run at `i` when it is one of the operators (maybe the empty one), with
/// where it ends.
fn op_at(t: &[u8], i: usize) -> Option<Span> {
    let e = skip(t, i, is_op_char);
    is_op(&t[i..e]).then_some(i..e)
}

/// `(OPS)\s*(CV)` at `i`: the operator and the version.
fn term_at(t: &[u8], i: usize) -> Option<(Span, Parts)> {
    let op = op_at(t, i)?;
    let v = skip(t, op.end, is_space);
    Some((op, version_at(t, v, is_cv)?))
}

/// `^\s*(OPS)\s*(CV)\s*$`: a whole text that is one constraint.
pub fn constraint(s: &str) -> Option<(Span, Parts)> {
    let t = s.as_bytes();
    let (op, cv) = term_at(t, skip(t, 0, is_space))?;
    (skip(t, cv.whole.end, is_space) == t.len()).then_some((op, cv))
}

/// Every match of `\s*(CV)\s+-\s+(CV)\s*`, left to right: the whole match and its two
/// versions.
pub fn ranges(s: &str) -> Vec<(Span, Span, Span)> {
    let t = s.as_bytes();
    let mut out = Vec::new();
    let mut p = 0;
    while p < t.len() {
        match range_at(t, p) {
            Some(m) => {
                p = m.0.end;
                out.push(m);
            }
            None => p += 1,
        }
    }
    out
}

fn range_at(t: &[u8], p: usize) -> Option<(Span, Span, Span)> {
    let a = version_at(t, skip(t, p, is_space), is_cv)?.whole;
    let dash = skip(t, a.end, is_space);
    if dash == a.end || t.get(dash) != Some(&b'-') {
        return None;
    }
    let b_start = skip(t, dash + 1, is_space);
    if b_start == dash + 1 {
        return None;
    }
    let b = version_at(t, b_start, is_cv)?.whole;
    Some((p..skip(t, b.end, is_space), a, b))
}

/// Every match of `(OPS)\s*(CV)`, left to right.
pub fn terms(s: &str) -> Vec<Span> {
    let t = s.as_bytes();
    let mut out = Vec::new();
    let mut p = 0;
    while p < t.len() {
        match term_at(t, p) {
            Some((op, cv)) => {
                out.push(op.start..cv.whole.end);
                p = cv.whole.end;
            }
            None => p += 1,
        }
    }
    out
}

/// `^(\s*(OPS)\s*(CV)\s*)((?:\s+|,\s*)(OPS)\s*(CV)\s*)*$`: constraints separated by
/// blanks or a comma.
pub fn valid(s: &str) -> bool {
    let t = s.as_bytes();
    let mut i = skip(t, 0, is_space);
    loop {
        let Some((_, cv)) = term_at(t, i) else {
            return false;
        };
        let after = skip(t, cv.whole.end, is_space);
        if after == t.len() {
            return true;
        }
        if t[after] == b',' {
            i = skip(t, after + 1, is_space);
        } else if after > cv.whole.end {
            i = after;
        } else {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    // Masterminds' expressions, as its source spells them (`\s` written out as RE2's
    // class): the oracle.
    const SV: &str = r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
    const CV: &str = r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
    const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";
    const S: &str = r"[\t\n\f\r ]";

    struct Oracle {
        version: Regex,
        constraint: Regex,
        range: Regex,
        find: Regex,
        valid: Regex,
    }

    fn oracle() -> &'static Oracle {
        static O: std::sync::OnceLock<Oracle> = std::sync::OnceLock::new();
        O.get_or_init(|| {
            let re = |p: String| Regex::new(&p).unwrap();
            Oracle {
                version: re(format!("^{SV}$")),
                constraint: re(format!(r"^{S}*({OPS}){S}*({CV}){S}*$")),
                range: re(format!(r"{S}*({CV}){S}+-{S}+({CV}){S}*")),
                find: re(format!(r"({OPS}){S}*({CV})")),
                valid: re(format!(
                    r"^({S}*({OPS}){S}*({CV}){S}*)((?:{S}+|,{S}*)({OPS}){S}*({CV}){S}*)*$"
                )),
            }
        })
    }

    type Groups = Vec<Option<Span>>;

    fn groups(re: &Regex, s: &str, wanted: &[usize]) -> Option<Groups> {
        let c = re.captures(s)?;
        Some(
            wanted
                .iter()
                .map(|&i| c.get(i).map(|m| m.range()))
                .collect(),
        )
    }

    /// A version's groups as the expressions number them from `base` (`-pre`, `pre`,
    /// `+meta`, `meta` included).
    fn version_groups(p: &Parts) -> Groups {
        let inner = |s: &Option<Span>| s.as_ref().map(|s| s.start + 1..s.end);
        vec![
            Some(p.whole.clone()),
            Some(p.major.clone()),
            p.minor.clone(),
            p.patch.clone(),
            p.pre.clone(),
            inner(&p.pre),
            p.meta.clone(),
            inner(&p.meta),
        ]
    }

    fn check(s: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        let o = oracle();
        // ^SV$: 0 whole, 1 major, 2 .minor, 3 .patch, 4 -pre, 5 pre, 7 +meta, 8 meta.
        let want = groups(&o.version, s, &[0, 1, 2, 3, 4, 5, 7, 8]);
        proptest::prop_assert_eq!(version(s).map(|p| version_groups(&p)), want, "version");
        // Constraint: 1 op, then the version from group 2 (its pre and meta at +4, +7).
        let want = groups(&o.constraint, s, &[1, 2, 3, 4, 5, 6, 7, 9, 10]);
        let got = constraint(s).map(|(op, p)| {
            let mut g = vec![Some(op)];
            g.extend(version_groups(&p));
            g
        });
        proptest::prop_assert_eq!(got, want, "constraint");
        let want: Vec<(Span, Span, Span)> = o
            .range
            .captures_iter(s)
            .map(|c| {
                let g = |i: usize| c.get(i).map(|m| m.range()).unwrap_or_default();
                (g(0), g(1), g(11))
            })
            .collect();
        proptest::prop_assert_eq!(ranges(s), want, "range");
        let want: Vec<Span> = o.find.find_iter(s).map(|m| m.range()).collect();
        proptest::prop_assert_eq!(terms(s), want, "find");
        proptest::prop_assert_eq!(valid(s), o.valid.is_match(s), "valid");
        Ok(())
    }

    #[test]
    fn scanners_are_the_regexes_on_the_census() {
        for s in [
            "",
            "1.2.3",
            "v1.30.2+k3s1",
            "1.2",
            "1.2.3-01",
            "1.2.3-rc.1+build.5",
            "1.2.3-",
            "1.2.3-a.",
            "< v1.25",
            ">= v1.24",
            "< v1.25-0",
            "~> 1.2",
            "!=1.x",
            "<>1",
            "=>=1",
            ">= 1.2, < 2",
            "1 , 2",
            "1 ,, 2",
            "1,",
            "1.2 - 3.4",
            "1.0 -1 - 2",
            " 1 - 2 ",
            "1|2",
            "^1.2.*",
            "vv1",
            "x1 - 2",
            "1.2.3.4",
            "\u{663}",
        ] {
            check(s).unwrap();
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// Random texts over the expressions' alphabet (and a few characters none of
        /// them takes) scan as the expressions match: same matches, same groups.
        #[test]
        fn scanners_are_the_regexes(
            s in r"([0-9]{1,2}|[vxX*|.+,!=<>~^ -]|\t|\n|[a-c]|\u{663}|\u{a0}){0,14}"
        ) {
            check(&s)?;
        }

        /// Texts shaped like versions and constraints, where the matches are.
        #[test]
        fn scanners_are_the_regexes_on_versions(
            s in r"( ?(=|!=|>|<|>=|=>|<=|=<|~|~>|\^|<>|=~)? ?v?[0-9xX*]{1,2}(\.[0-9xX*a]{1,2}){0,3}(-[0-9a-z.-]{0,4})?(\+[0-9a-z.]{0,3})? ?(,|-|  -  |\|\|| |\.)?){1,4}"
        ) {
            check(&s)?;
        }
    }
}
