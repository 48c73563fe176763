//! Standard base64 (RFC 4648, padded) for Secret `data` and ConfigMap `binaryData`
//! values, as Go's `base64.StdEncoding` (line breaks in the input are skipped).

const STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(STD[((v >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn value(c: u8) -> Option<u32> {
    STD.iter().position(|&x| x == c).map(|p| p as u32)
}

/// Decode; the error is the byte offset of the first bad input byte.
pub fn decode(src: &[u8]) -> Result<Vec<u8>, usize> {
    let clean: Vec<(usize, u8)> = src
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, c)| *c != b'\n' && *c != b'\r')
        .collect();
    if !clean.len().is_multiple_of(4) {
        return Err(clean.last().map(|(i, _)| i + 1).unwrap_or(0).min(src.len()));
    }
    let mut out = Vec::with_capacity(clean.len() / 4 * 3);
    let quanta = clean.len() / 4;
    for (q, quad) in clean.chunks(4).enumerate() {
        let last = q + 1 == quanta;
        let pads = quad.iter().rev().take_while(|(_, c)| *c == b'=').count();
        if pads > 2 || (pads > 0 && !last) {
            let (i, _) = quad
                .iter()
                .find(|(_, c)| *c == b'=')
                .copied()
                .unwrap_or((0, 0));
            return Err(i);
        }
        let mut v = 0u32;
        for (i, c) in &quad[..4 - pads] {
            v = (v << 6) | value(*c).ok_or(*i)?;
        }
        v <<= 6 * pads as u32;
        let bytes = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
        out.extend_from_slice(&bytes[..3 - pads]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_known_values() {
        for s in ["", "a", "ab", "abc", "abcd", "hello world\n"] {
            assert_eq!(
                decode(encode(s.as_bytes()).as_bytes()).unwrap(),
                s.as_bytes()
            );
        }
        assert_eq!(encode(b"ab"), "YWI=");
        assert_eq!(decode(b"YW\nI=").unwrap(), b"ab");
        assert!(decode(b"YWI").is_err());
        assert!(decode(b"Y!I=").is_err());
        assert!(decode(b"YQ==YQ==").is_err());
    }
}
