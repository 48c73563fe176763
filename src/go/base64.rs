//! `encoding/base64.StdEncoding`: padded standard alphabet; decoding skips `\r` and
//! `\n` and reports errors at the byte offset Go's `CorruptInputError` gives.

const STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// base64.StdEncoding.EncodeToString.
pub fn encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let idx = [(v >> 18) & 63, (v >> 12) & 63, (v >> 6) & 63, v & 63];
        out.push(char::from(STD[idx[0] as usize]));
        out.push(char::from(STD[idx[1] as usize]));
        if chunk.len() > 1 {
            out.push(char::from(STD[idx[2] as usize]));
        } else {
            out.push('=');
        }
        if chunk.len() > 2 {
            out.push(char::from(STD[idx[3] as usize]));
        } else {
            out.push('=');
        }
    }
    out
}

fn decode_char(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// base64.StdEncoding.Decode (padded, not strict, `\r`/`\n` skipped). The error is the
/// byte offset Go's CorruptInputError reports.
pub fn decode(src: &[u8]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0usize;
    loop {
        // One quantum (Go's decodeQuantum).
        let mut dbuf = [0u8; 4];
        let mut dlen = 4usize;
        let mut j = 0usize;
        let mut trailing_err: Option<usize> = None;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                return Err(si - j);
            }
            let c = src[si];
            si += 1;
            if let Some(v) = decode_char(c) {
                dbuf[j] = v;
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' {
                return Err(si - 1);
            }
            // Padding.
            match j {
                0 | 1 => return Err(si - 1),
                2 => {
                    while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(src.len());
                    }
                    if src[si] != b'=' {
                        return Err(si - 1);
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                si += 1;
            }
            if si < src.len() {
                trailing_err = Some(si);
            }
            dlen = j;
            break;
        }
        let val = (u32::from(dbuf[0]) << 18)
            | (u32::from(dbuf[1]) << 12)
            | (u32::from(dbuf[2]) << 6)
            | u32::from(dbuf[3]);
        let bytes = [(val >> 16) as u8, (val >> 8) as u8, val as u8];
        out.extend_from_slice(&bytes[..dlen.saturating_sub(1)]);
        if let Some(e) = trailing_err {
            return Err(e);
        }
        if dlen < 4 {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trip_and_errors() {
        assert_eq!(encode(b"hello"), "aGVsbG8=");
        assert_eq!(decode(b"aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode(b"aGVs\nbG8=").unwrap(), b"hello");
        assert_eq!(decode(b"Cg==").unwrap(), b"\n");
        assert_eq!(decode(b"Ch==").unwrap(), b"\n");
        assert_eq!(decode(b"Cg"), Err(0));
        assert_eq!(decode(b"aGVsbG8"), Err(4));
        assert_eq!(decode(b"a!=="), Err(1));
        assert_eq!(decode(b"Cg==x"), Err(4));
    }

    #[test]
    fn decode_errors_match_go() {
        // Go's base64.StdEncoding.DecodeString on these inputs (error offsets).
        assert_eq!(decode(b"YW\nI=").unwrap(), b"ab");
        assert_eq!(decode(b"YWI"), Err(0));
        assert_eq!(decode(b"Y!I="), Err(1));
        assert_eq!(decode(b"YQ==YQ=="), Err(4));
        assert_eq!(decode(b"YQ="), Err(3));
        assert_eq!(decode(b"YWJj\r\nZA==").unwrap(), b"abcd");
    }
}
