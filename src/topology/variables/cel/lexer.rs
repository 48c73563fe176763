//! CEL tokens (cel-spec lexical grammar): numbers (int, uint `u`, double, hex), string
//! literals (single/double/triple quotes, raw `r`, escapes), identifiers, operators.

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
    Ident(String),
    /// Operators and punctuation, e.g. `&&`, `(`, `.`.
    Op(&'static str),
}

const OPS: &[&str] = &[
    "&&", "||", "==", "!=", "<=", ">=", "<", ">", "!", "+", "-", "*", "/", "%", "?", ":", ".", ",",
    "(", ")", "[", "]", "{", "}",
];

/// Splits a CEL expression into tokens.
pub fn lex(src: &str) -> Result<Vec<Tok>, String> {
    lex_at(src).map(|(toks, _)| toks)
}

/// Splits a CEL expression into tokens, with the character index each starts at.
pub fn lex_at(src: &str) -> Result<(Vec<Tok>, Vec<usize>), String> {
    let chars: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    let mut starts = Vec::new();
    // Where the previous round began: the start of the token it pushed, if any.
    let mut round = 0;
    while i < chars.len() {
        let c = chars[i];
        starts.resize(out.len(), round);
        round = i;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let (tok, next) = lex_number(&chars, i)?;
            out.push(tok);
            i = next;
            continue;
        }
        let raw = (c == 'r' || c == 'R') && matches!(chars.get(i + 1), Some('"') | Some('\''));
        if c == '"' || c == '\'' || raw {
            let start = if raw { i + 1 } else { i };
            let (s, next) = lex_string(&chars, start, raw)?;
            out.push(Tok::Str(s));
            i = next;
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(chars[start..i].iter().collect()));
            continue;
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        if let Some(op) = OPS.iter().find(|o| o.len() == 2 && **o == two) {
            out.push(Tok::Op(op));
            i += 2;
            continue;
        }
        if let Some(op) = OPS.iter().find(|o| o.len() == 1 && o.starts_with(c)) {
            out.push(Tok::Op(op));
            i += 1;
            continue;
        }
        return Err(format!("Syntax error: token recognition error at: '{c}'"));
    }
    starts.resize(out.len(), round);
    Ok((out, starts))
}

fn lex_number(chars: &[char], start: usize) -> Result<(Tok, usize), String> {
    let mut i = start;
    if chars[i] == '0' && matches!(chars.get(i + 1), Some('x') | Some('X')) {
        i += 2;
        let s = i;
        while i < chars.len() && chars[i].is_ascii_hexdigit() {
            i += 1;
        }
        let text: String = chars[s..i].iter().collect();
        if matches!(chars.get(i), Some('u') | Some('U')) {
            let v =
                u64::from_str_radix(&text, 16).map_err(|_| "invalid uint literal".to_string())?;
            return Ok((Tok::Uint(v), i + 1));
        }
        let v = i64::from_str_radix(&text, 16).map_err(|_| "invalid int literal".to_string())?;
        return Ok((Tok::Int(v), i));
    }
    let mut is_double = false;
    while i < chars.len() && chars[i].is_ascii_digit() {
        i += 1;
    }
    if chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()) {
        is_double = true;
        i += 1;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(chars.get(i), Some('e') | Some('E')) {
        let mut j = i + 1;
        if matches!(chars.get(j), Some('+') | Some('-')) {
            j += 1;
        }
        if chars.get(j).is_some_and(|d| d.is_ascii_digit()) {
            is_double = true;
            i = j;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    let text: String = chars[start..i].iter().collect();
    if is_double {
        let v: f64 = text
            .parse()
            .map_err(|_| "invalid double literal".to_string())?;
        return Ok((Tok::Double(v), i));
    }
    if matches!(chars.get(i), Some('u') | Some('U')) {
        let v: u64 = text
            .parse()
            .map_err(|_| "invalid uint literal".to_string())?;
        return Ok((Tok::Uint(v), i + 1));
    }
    let v: i64 = text
        .parse()
        .map_err(|_| "invalid int literal".to_string())?;
    Ok((Tok::Int(v), i))
}

fn lex_string(chars: &[char], start: usize, raw: bool) -> Result<(String, usize), String> {
    let q = chars[start];
    let triple = chars.get(start + 1) == Some(&q) && chars.get(start + 2) == Some(&q);
    let mut i = start + if triple { 3 } else { 1 };
    let mut out = String::new();
    loop {
        let Some(&c) = chars.get(i) else {
            return Err("Syntax error: unterminated string literal".into());
        };
        if triple {
            if c == q && chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q) {
                return Ok((out, i + 3));
            }
        } else if c == q {
            return Ok((out, i + 1));
        } else if c == '\n' {
            return Err("Syntax error: unterminated string literal".into());
        }
        if c == '\\' && !raw {
            let e = *chars
                .get(i + 1)
                .ok_or("Syntax error: unterminated string literal")?;
            i += 2;
            match e {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'a' => out.push('\u{7}'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'v' => out.push('\u{b}'),
                '\\' | '\'' | '"' | '`' | '?' => out.push(e),
                'x' | 'u' | 'U' => {
                    let n = match e {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex: String = chars
                        .get(i..i + n)
                        .ok_or("invalid escape")?
                        .iter()
                        .collect();
                    let cp =
                        u32::from_str_radix(&hex, 16).map_err(|_| "invalid escape".to_string())?;
                    out.push(char::from_u32(cp).ok_or("invalid escape")?);
                    i += n;
                }
                d if d.is_digit(8) => {
                    let oct: String = chars
                        .get(i - 1..i + 2)
                        .ok_or("invalid escape")?
                        .iter()
                        .collect();
                    let cp =
                        u32::from_str_radix(&oct, 8).map_err(|_| "invalid escape".to_string())?;
                    out.push(char::from_u32(cp).ok_or("invalid escape")?);
                    i += 2;
                }
                _ => return Err(format!("Syntax error: invalid escape sequence \\{e}")),
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_starts_are_character_indexes() {
        let (toks, at) = lex_at("self.é  >= 'x' // c\n&& r'a'").unwrap();
        assert_eq!(toks.len(), 7);
        assert_eq!(at, vec![0, 4, 5, 8, 11, 20, 23]);
    }

    #[test]
    fn tokens() {
        let t = lex("self.a >= 1.5 && size(self.b) != 0u || 'x\\n' in [\"y\"]").unwrap();
        assert_eq!(t[0], Tok::Ident("self".into()));
        assert_eq!(t[3], Tok::Op(">="));
        assert_eq!(t[4], Tok::Double(1.5));
        assert!(t.contains(&Tok::Uint(0)));
        assert!(t.contains(&Tok::Str("x\n".into())));
        assert!(t.contains(&Tok::Ident("in".into())));
    }

    #[test]
    fn strings_and_errors() {
        assert_eq!(lex("r'a\\b'").unwrap(), vec![Tok::Str("a\\b".into())]);
        assert_eq!(lex("'''a'b'''").unwrap(), vec![Tok::Str("a'b".into())]);
        assert_eq!(lex("0x1F").unwrap(), vec![Tok::Int(31)]);
        assert!(lex("'abc").is_err());
        assert!(lex("a # b").is_err());
    }
}
