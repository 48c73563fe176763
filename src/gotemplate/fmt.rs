//! Go's `fmt` printing of template values: `Sprint`, `Sprintln`, `Sprintf`
//! verbs and flags and strconv float formats (`strconv.Quote` is [`crate::go::quote`]).

use super::value::Value;

use crate::go::quote::{is_print as is_go_print, quote, quote_with};

/// `%U` / `%#U` of a rune.
pub fn unicode_u(c: char, sharp: bool) -> String {
    let mut s = format!("U+{:04X}", c as u32);
    if sharp && is_go_print(c) {
        s.push_str(&format!(" '{c}'"));
    }
    s
}

/// Shortest decimal digits and decimal point position of a finite float
/// (`digits` without leading zeros; value = 0.digits × 10^dp).
fn shortest_digits(f: f64) -> (String, i32) {
    decompose(&format!("{:e}", f.abs()))
}

/// Digits of `f` rounded to `n` (≥ 1) significant digits.
fn rounded_digits(f: f64, n: usize) -> (String, i32) {
    decompose(&format!("{:.*e}", n.saturating_sub(1), f.abs()))
}

fn decompose(e: &str) -> (String, i32) {
    let (mant, exp) = e.split_once('e').unwrap_or((e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    if digits.chars().all(|c| c == '0') {
        return ("0".into(), 1);
    }
    (digits, exp + 1)
}

fn exp_text(exp: i32, upper: bool) -> String {
    let e = if upper { 'E' } else { 'e' };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{e}{sign}{:02}", exp.abs())
}

/// %e form from digits: `prec` digits after the point.
fn fmt_e(neg: bool, digits: &str, dp: i32, prec: usize, upper: bool) -> String {
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    let mut d = digits.chars();
    s.push(d.next().unwrap_or('0'));
    if prec > 0 {
        s.push('.');
        let rest: String = d.collect();
        s.push_str(&rest);
        for _ in rest.len()..prec {
            s.push('0');
        }
    }
    let exp = if digits == "0" { 0 } else { dp - 1 };
    s.push_str(&exp_text(exp, upper));
    s
}

/// %f form from digits with `prec` digits after the point.
fn fmt_f(neg: bool, digits: &str, dp: i32, prec: usize) -> String {
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    let b = digits.as_bytes();
    if dp > 0 {
        for i in 0..dp as usize {
            s.push(*b.get(i).unwrap_or(&b'0') as char);
        }
    } else {
        s.push('0');
    }
    if prec > 0 {
        s.push('.');
        for i in 0..prec as i32 {
            let j = dp + i;
            let c = if j < 0 || j as usize >= b.len() {
                '0'
            } else {
                b[j as usize] as char
            };
            s.push(c);
        }
    }
    s
}

/// strconv.FormatFloat(f, verb, prec, 64) for verbs e E f F g G x X.
pub fn format_float(f: f64, verb: char, prec: Option<usize>) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    let neg = f.is_sign_negative();
    match verb {
        'e' | 'E' => {
            let (d, dp) = match prec {
                Some(p) => rounded_digits(f, p + 1),
                None => shortest_digits(f),
            };
            let p = prec.unwrap_or(d.len().saturating_sub(1));
            fmt_e(neg, &d, dp, p, verb == 'E')
        }
        'f' | 'F' => match prec {
            Some(p) => {
                let s = format!("{:.*}", p, f.abs());
                if neg {
                    format!("-{s}")
                } else {
                    s
                }
            }
            None => {
                let (d, dp) = shortest_digits(f);
                let p = (d.len() as i32 - dp).max(0) as usize;
                fmt_f(neg, &d, dp, p)
            }
        },
        'g' | 'G' => {
            let shortest = prec.is_none();
            let (d, dp) = match prec {
                Some(p) => rounded_digits(f, p.max(1)),
                None => shortest_digits(f),
            };
            let nd = d.trim_end_matches('0').len().max(1);
            let d = &d[..nd];
            let mut eprec = prec.map(|p| p.max(1)).unwrap_or(nd) as i32;
            if eprec > nd as i32 && nd as i32 >= dp {
                eprec = nd as i32;
            }
            if shortest {
                eprec = 6;
            }
            let exp = dp - 1;
            let upper = verb == 'G';
            if d == "0" {
                return if neg { "-0" } else { "0" }.into();
            }
            if exp < -4 || exp >= eprec {
                let p = prec.map(|p| p.max(1)).unwrap_or(nd).min(nd);
                return fmt_e(neg, d, dp, p - 1, upper);
            }
            fmt_f(neg, d, dp, (nd as i32 - dp).max(0) as usize)
        }
        'x' | 'X' => hex_float(f, prec, verb == 'X'),
        'b' => {
            let bits = f.to_bits();
            let mut e = ((bits >> 52) & 0x7ff) as i64;
            let mut mant = bits & ((1u64 << 52) - 1);
            if e == 0 {
                e = 1;
            } else {
                mant |= 1u64 << 52;
            }
            let exp = e - 1075;
            format!(
                "{}{mant}p{}{exp}",
                if neg { "-" } else { "" },
                if exp >= 0 { "+" } else { "" }
            )
        }
        _ => format!("%!{verb}(float64={})", format_float(f, 'g', None)),
    }
}

/// strconv 'x' format: -0x1.8p+01.
fn hex_float(f: f64, prec: Option<usize>, upper: bool) -> String {
    let bits = f.to_bits();
    let neg = bits >> 63 == 1;
    let mut exp = ((bits >> 52) & 0x7ff) as i32;
    let mut mant = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        if mant != 0 {
            // Subnormal: normalise.
            exp = -1022;
            while mant & (1u64 << 52) == 0 {
                mant <<= 1;
                exp -= 1;
            }
            mant &= (1u64 << 52) - 1;
        }
    } else {
        exp -= 1023;
    }
    let zero = f == 0.0;
    if zero {
        exp = 0;
    }
    // 52 bits = 13 hex digits.
    let mut hex = format!("{mant:013x}");
    let lead = if zero { '0' } else { '1' };
    match prec {
        None => {
            while hex.ends_with('0') {
                hex.pop();
            }
        }
        Some(p) if p < 13 => {
            // Round to p hex digits, half to even.
            let shift = (13 - p) * 4;
            let full = (1u64 << 52) | mant;
            let mut m = full >> shift;
            let rem = full & ((1u64 << shift) - 1);
            let half = 1u64 << (shift - 1);
            if rem > half || (rem == half && m & 1 == 1) {
                m += 1;
            }
            if m >> (p * 4) > 1 {
                m >>= 1;
                exp += 1;
            }
            let frac = m & ((1u64 << (p * 4)) - 1);
            hex = if p == 0 {
                String::new()
            } else {
                format!("{frac:0width$x}", width = p)
            };
        }
        Some(p) => {
            while hex.len() < p {
                hex.push('0');
            }
        }
    }
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    s.push_str("0x");
    s.push(lead);
    if !hex.is_empty() {
        s.push('.');
        s.push_str(&hex);
    }
    s.push('p');
    s.push(if exp < 0 { '-' } else { '+' });
    s.push_str(&format!("{:02}", exp.abs()));
    if upper {
        s = s.to_uppercase();
    }
    s
}

/// `%v` of a value (what `{{ . }}` and `print` write).
pub fn sprint_value(v: &Value) -> String {
    let mut p = Printer::default();
    p.print_arg(v, 'v');
    p.buf
}

/// fmt.Sprint.
pub fn sprint(args: &[Value]) -> String {
    let mut p = Printer::default();
    let mut prev_string = false;
    for (i, a) in args.iter().enumerate() {
        let is_string = matches!(a, Value::Str(_));
        if i > 0 && !is_string && !prev_string {
            p.buf.push(' ');
        }
        p.print_arg(a, 'v');
        prev_string = is_string;
    }
    p.buf
}

/// fmt.Sprintln.
pub fn sprintln(args: &[Value]) -> String {
    let mut p = Printer::default();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            p.buf.push(' ');
        }
        p.print_arg(a, 'v');
    }
    p.buf.push('\n');
    p.buf
}

/// fmt.Sprintf.
/// Printing stops once the text is over `--max-template-bytes` (Go's own caps bound
/// one verb's width and precision to about ten million; many verbs could still print
/// gigabytes): the caller sees a string over the limit and fails.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut p = Printer {
        cap: usize::try_from(crate::limits::Limits::current().template_bytes).unwrap_or(usize::MAX),
        ..Printer::default()
    };
    p.do_printf(format, args);
    p.buf
}

/// Go's `fmt.parsenum`: digits at the start of `chars`, `None` (with everything
/// consumed) when the number grows past Go's `tooLarge` bound (1e6, checked before
/// each further digit), which makes Go print `%!(NOVERB)` and stop.
fn parse_num(chars: &mut std::iter::Peekable<std::str::CharIndices>) -> Result<Option<usize>, ()> {
    let mut n: Option<usize> = None;
    while let Some(&(_, d @ '0'..='9')) = chars.peek() {
        let cur = n.unwrap_or(0);
        if cur > 1_000_000 {
            chars.for_each(drop);
            return Err(());
        }
        n = Some(cur * 10 + (d as usize - 48));
        chars.next();
    }
    Ok(n)
}

#[derive(Default, Clone, Copy)]
struct Flags {
    plus: bool,
    minus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

#[derive(Default)]
struct Printer {
    buf: String,
    f: Flags,
    /// Stop printing verbs once `buf` is longer (0: no cap).
    cap: usize,
}

impl Printer {
    fn pad(&mut self, s: &str) {
        let n = s.chars().count();
        let w = self.f.width.unwrap_or(0);
        if n >= w {
            self.buf.push_str(s);
            return;
        }
        let fill = w - n;
        if self.f.minus {
            self.buf.push_str(s);
            self.buf.extend(std::iter::repeat_n(' ', fill));
        } else if self.f.zero {
            // Zero padding goes after a sign.
            let (sign, rest) = match s.chars().next() {
                Some(c @ ('+' | '-' | ' ')) if s.len() > 1 => (Some(c), &s[1..]),
                _ => (None, s),
            };
            if let Some(c) = sign {
                self.buf.push(c);
            }
            self.buf.extend(std::iter::repeat_n('0', fill));
            self.buf.push_str(rest);
        } else {
            self.buf.extend(std::iter::repeat_n(' ', fill));
            self.buf.push_str(s);
        }
    }

    fn bad_verb(&mut self, v: &Value, verb: char) {
        self.buf.push_str("%!");
        self.buf.push(verb);
        self.buf.push('(');
        match v {
            Value::Invalid | Value::Nil => self.buf.push_str("<nil>"),
            _ => {
                self.buf.push_str(&v.type_name());
                self.buf.push('=');
                self.print_value(v, 'v', 0);
            }
        }
        self.buf.push(')');
    }

    /// Top-level argument (a nil interface is `<nil>` for %v and %T only).
    fn print_arg(&mut self, v: &Value, verb: char) {
        match v {
            Value::Invalid | Value::Nil => match verb {
                'T' | 'v' => self.pad("<nil>"),
                _ => self.bad_verb(v, verb),
            },
            _ if verb == 'T' => {
                let t = v.type_name();
                self.pad(&t)
            }
            _ => self.print_value(v, verb, 0),
        }
    }

    fn print_value(&mut self, v: &Value, verb: char, depth: usize) {
        match v {
            Value::Invalid | Value::Nil => {
                if depth == 0 {
                    self.print_arg(v, verb)
                } else if verb == 'v' && self.f.sharp {
                    self.pad("interface {}(nil)")
                } else {
                    self.pad("<nil>")
                }
            }
            Value::Bool(b) => match verb {
                'v' | 't' => self.pad(if *b { "true" } else { "false" }),
                _ => self.bad_verb(v, verb),
            },
            Value::Int(i, _) => self.fmt_int(*i, verb, v),
            Value::Float(f) => self.fmt_float(*f, verb, v),
            Value::Str(s) => self.fmt_str(s, verb, v),
            Value::Semver(sv) => match verb {
                'v' | 's' | 'x' | 'X' | 'q' => {
                    let s = sv.to_string();
                    self.fmt_str(&s, verb, v)
                }
                _ => self.bad_verb(v, verb),
            },
            Value::List(items, _) => {
                if self.f.sharp && verb == 'v' {
                    self.buf.push_str(&v.type_name());
                    self.buf.push('{');
                    for (i, it) in items.iter().enumerate() {
                        if i > 0 {
                            self.buf.push_str(", ");
                        }
                        self.print_value(it, verb, depth + 1);
                    }
                    self.buf.push('}');
                    return;
                }
                self.buf.push('[');
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        self.buf.push(' ');
                    }
                    self.print_value(it, verb, depth + 1);
                }
                self.buf.push(']');
            }
            Value::Map(m, _) => {
                if self.f.sharp && verb == 'v' {
                    self.buf.push_str(&v.type_name());
                    self.buf.push('{');
                    for (i, (k, it)) in m.iter().enumerate() {
                        if i > 0 {
                            self.buf.push_str(", ");
                        }
                        self.buf.push_str(&quote(k));
                        self.buf.push(':');
                        self.print_value(it, verb, depth + 1);
                    }
                    self.buf.push('}');
                    return;
                }
                self.buf.push_str("map[");
                for (i, (k, it)) in m.iter().enumerate() {
                    if i > 0 {
                        self.buf.push(' ');
                    }
                    self.fmt_str(k, verb, &Value::str(k.as_str()));
                    self.buf.push(':');
                    self.print_value(it, verb, depth + 1);
                }
                self.buf.push(']');
            }
        }
    }

    fn fmt_int(&mut self, i: i64, verb: char, v: &Value) {
        let abs = i.unsigned_abs();
        let (digits, prefix) = match verb {
            'v' | 'd' => (abs.to_string(), ""),
            'b' => (format!("{abs:b}"), if self.f.sharp { "0b" } else { "" }),
            'o' => (format!("{abs:o}"), if self.f.sharp { "0" } else { "" }),
            'O' => (format!("{abs:o}"), "0o"),
            'x' => (format!("{abs:x}"), if self.f.sharp { "0x" } else { "" }),
            'X' => (format!("{abs:X}"), if self.f.sharp { "0X" } else { "" }),
            'c' => {
                let c = char::from_u32(i as u32).unwrap_or('\u{FFFD}');
                return self.pad(&c.to_string());
            }
            'q' => {
                let c = char::from_u32(i as u32).unwrap_or('\u{FFFD}');
                let s = quote_with(&c.to_string(), '\'', self.f.plus);
                return self.pad(&s);
            }
            'U' => {
                let c = char::from_u32(i as u32).unwrap_or('\u{FFFD}');
                let s = unicode_u(c, self.f.sharp);
                return self.pad(&s);
            }
            _ => return self.bad_verb(v, verb),
        };
        let mut digits = digits;
        if let Some(p) = self.f.prec {
            if p == 0 && i == 0 {
                digits.clear();
            }
            while digits.len() < p {
                digits.insert(0, '0');
            }
        }
        let sign = if i < 0 {
            "-"
        } else if self.f.plus {
            "+"
        } else if self.f.space {
            " "
        } else {
            ""
        };
        let s = format!("{sign}{prefix}{digits}");
        let zero = self.f.zero;
        if self.f.prec.is_some() {
            self.f.zero = false;
        }
        self.pad(&s);
        self.f.zero = zero;
    }

    fn fmt_float(&mut self, f: f64, verb: char, v: &Value) {
        let (verb2, prec) = match verb {
            'v' => ('g', self.f.prec),
            'g' | 'G' | 'x' | 'X' | 'b' => (verb, self.f.prec),
            'e' | 'E' | 'f' | 'F' => (verb, Some(self.f.prec.unwrap_or(6))),
            _ => return self.bad_verb(v, verb),
        };
        let mut s = format_float(f, verb2, prec);
        if self.f.sharp && verb != 'v' && !s.contains('.') && !s.contains("Inf") && s != "NaN" {
            // %#g keeps a decimal point.
            if let Some(i) = s.find(['e', 'E', 'p', 'P']) {
                s.insert(i, '.');
            } else {
                s.push('.');
            }
        }
        if !s.starts_with('-') {
            if self.f.plus {
                s.insert(0, '+');
            } else if self.f.space {
                s.insert(0, ' ');
            }
        } else if s == "+Inf" && !self.f.plus {
            s.remove(0);
        }
        if s.starts_with('+') && s.ends_with("Inf") && !self.f.plus {
            s.remove(0);
        }
        let zero = self.f.zero;
        if f.is_infinite() || f.is_nan() {
            self.f.zero = false;
        }
        self.pad(&s);
        self.f.zero = zero;
    }

    fn fmt_str(&mut self, s: &str, verb: char, v: &Value) {
        let s = match self.f.prec {
            Some(p) if matches!(verb, 'v' | 's' | 'q' | 'x' | 'X') => {
                s.chars().take(p).collect::<String>()
            }
            _ => s.to_string(),
        };
        match verb {
            'v' if self.f.sharp => {
                let q = quote(&s);
                self.pad(&q)
            }
            'v' | 's' => self.pad(&s),
            'q' => {
                let q = if self.f.sharp
                    && !s.contains('`')
                    && s.chars().all(|c| c == '\t' || is_go_print(c))
                {
                    format!("`{s}`")
                } else {
                    quote_with(&s, '"', self.f.plus)
                };
                self.pad(&q)
            }
            'x' | 'X' => {
                let mut h = String::new();
                for (i, b) in s.bytes().enumerate() {
                    if i > 0 && self.f.space {
                        h.push(' ');
                    }
                    if self.f.sharp && (i == 0 || self.f.space) {
                        h.push_str(if verb == 'x' { "0x" } else { "0X" });
                    }
                    if verb == 'x' {
                        h.push_str(&format!("{b:02x}"));
                    } else {
                        h.push_str(&format!("{b:02X}"));
                    }
                }
                self.pad(&h)
            }
            _ => self.bad_verb(v, verb),
        }
    }

    fn do_printf(&mut self, format: &str, args: &[Value]) {
        let mut argn = 0;
        let mut chars = format.char_indices().peekable();
        while let Some((_, c)) = chars.next() {
            if self.cap > 0 && self.buf.len() > self.cap {
                break;
            }
            if c != '%' {
                self.buf.push(c);
                continue;
            }
            self.f = Flags::default();
            // Flags.
            while let Some(&(_, c)) = chars.peek() {
                match c {
                    '#' => self.f.sharp = true,
                    '0' => self.f.zero = !self.f.minus,
                    '+' => self.f.plus = true,
                    '-' => {
                        self.f.minus = true;
                        self.f.zero = false
                    }
                    ' ' => self.f.space = true,
                    _ => break,
                }
                chars.next();
            }
            // Width, then precision, with Go's bound on each number.
            let Ok(w) = parse_num(&mut chars) else {
                self.buf.push_str("%!(NOVERB)");
                break;
            };
            self.f.width = w;
            if let Some(&(_, '.')) = chars.peek() {
                chars.next();
                let Ok(p) = parse_num(&mut chars) else {
                    self.buf.push_str("%!(NOVERB)");
                    break;
                };
                self.f.prec = Some(p.unwrap_or(0));
            }
            let Some((_, verb)) = chars.next() else {
                self.buf.push_str("%!(NOVERB)");
                break;
            };
            if verb == '%' {
                self.buf.push('%');
                continue;
            }
            if argn >= args.len() {
                self.buf.push_str(&format!("%!{verb}(MISSING)"));
                continue;
            }
            let a = &args[argn];
            argn += 1;
            if verb == 'w' {
                self.bad_verb(a, verb);
                continue;
            }
            self.print_arg(a, verb);
        }
        if argn < args.len() {
            self.f = Flags::default();
            self.buf.push_str("%!(EXTRA ");
            for (i, a) in args[argn..].iter().enumerate() {
                if i > 0 {
                    self.buf.push_str(", ");
                }
                match a {
                    Value::Invalid | Value::Nil => self.buf.push_str("<nil>"),
                    _ => {
                        self.buf.push_str(&a.type_name());
                        self.buf.push('=');
                        self.print_value(a, 'v', 0);
                    }
                }
            }
            self.buf.push(')');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_and_precision_are_capped_as_go_caps_them() {
        // Outputs of Go 1.x fmt.Sprintf(f, 1) (checked with a Go program).
        let one = [Value::int(1)];
        for f in [
            "%0999999999d",
            "%.0999999999d",
            "%99999999.2fX",
            "%-99999999d",
        ] {
            assert_eq!(sprintf(f, &one), "%!(NOVERB)%!(EXTRA int=1)", "{f}");
        }
        assert_eq!(sprintf("a%12345678sb", &one), "a%!(NOVERB)%!(EXTRA int=1)");
        // Up to Go's bound a width is honoured: 10,000,000 passes (1,000,000 is not
        // over 1e6 when the last digit is read).
        let s = sprintf("%10000000d", &one);
        assert_eq!(s.len(), 10_000_000);
        assert!(s.ends_with(" 1"));
    }

    #[test]
    fn float_v_matches_go() {
        let g = |f| format_float(f, 'g', None);
        assert_eq!(g(3.0), "3");
        assert_eq!(g(2.5), "2.5");
        assert_eq!(g(1e6), "1e+06");
        assert_eq!(g(123456.0), "123456");
        assert_eq!(g(1e21), "1e+21");
        assert_eq!(g(12345678901.0), "1.2345678901e+10");
        assert_eq!(g(0.0001), "0.0001");
        assert_eq!(g(0.00001), "1e-05");
        assert_eq!(g(-0.5), "-0.5");
        assert_eq!(g(0.0), "0");
    }

    #[test]
    fn float_verbs_with_precision() {
        assert_eq!(format_float(2.75, 'f', Some(1)), "2.8");
        assert_eq!(format_float(2.5, 'e', Some(6)), "2.500000e+00");
        assert_eq!(format_float(2.5, 'x', None), "0x1.4p+01");
        assert_eq!(format_float(1234.5678, 'g', Some(3)), "1.23e+03");
    }

    #[test]
    fn printf_verbs() {
        let s = Value::str("hi");
        assert_eq!(
            sprintf("%q|%5s|%-4s|%x", &[s.clone(), s.clone(), s.clone(), s]),
            "\"hi\"|   hi|hi  |6869"
        );
        assert_eq!(sprintf("%d", &[Value::Float(2.5)]), "%!d(float64=2.5)");
        assert_eq!(sprintf("%s %s", &[Value::str("a")]), "a %!s(MISSING)");
        assert_eq!(
            sprintf("%s", &[Value::str("a"), Value::int(1)]),
            "a%!(EXTRA int=1)"
        );
        assert_eq!(
            sprintf("v%d.%d", &[Value::int64(1), Value::int64(30)]),
            "v1.30"
        );
        assert_eq!(
            sprintf("%05d|%+d", &[Value::int(-42), Value::int(3)]),
            "-0042|+3"
        );
    }

    #[test]
    fn sprint_spacing() {
        let args = [
            Value::int(1),
            Value::int(2),
            Value::str("a"),
            Value::str("b"),
            Value::int(3),
        ];
        assert_eq!(sprint(&args), "1 2ab3");
        assert_eq!(sprintln(&[Value::str("x"), Value::int(2)]), "x 2\n");
    }

    #[test]
    fn composite_values() {
        let v = Value::from_json(&serde_json::json!({"b": [1, null, "x"], "a": {}}));
        assert_eq!(sprint_value(&v), "map[a:map[] b:[1 <nil> x]]");
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("a\"b\n\u{7}é"), "\"a\\\"b\\n\\aé\"");
        assert_eq!(quote_with("é", '"', true), "\"\\u00e9\"");
    }
}
