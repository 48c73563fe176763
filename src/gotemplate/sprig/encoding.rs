//! Hashes and encodings sprig offers: sha1/sha256/sha512/adler32 sums and
//! standard base64/base32 (decode errors return Go's error text, as sprig does).

use sha2::{Digest, Sha512};

use crate::model::hex;

pub fn sha512_hex(b: &[u8]) -> String {
    hex(&Sha512::digest(b))
}

/// SHA-1 (FIPS 180-4).
pub fn sha1_hex(data: &[u8]) -> String {
    let mut h: [u32; 5] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0];
    let mut msg = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bits.to_be_bytes());
    for chunk in msg.chunks(64) {
        let mut w = [0u32; 80];
        for (i, word) in chunk.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A827999),
                20..=39 => (b ^ c ^ d, 0x6ED9EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1BBCDC),
                _ => (b ^ c ^ d, 0xCA62C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

pub fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in data {
        a = (a + x as u32) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// `b64enc`: base64.StdEncoding.EncodeToString.
pub fn b64enc(data: &[u8]) -> String {
    crate::go::base64::encode(data)
}

pub fn b32enc(data: &[u8]) -> String {
    let mut out = String::new();
    for c in data.chunks(5) {
        let mut n: u64 = 0;
        for i in 0..5 {
            n = n << 8 | *c.get(i).unwrap_or(&0) as u64;
        }
        let chars = (c.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                out.push(B32[(n >> (35 - 5 * i) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decode with `alphabet` (quantum `q` chars → `bits` each); Go's error text
/// on bad input.
fn decode(s: &str, alphabet: &[u8], q: usize, bits: u32, kind: &str) -> String {
    let err = |i: usize| format!("illegal {kind} data at input byte {i}");
    let bytes: Vec<(usize, u8)> = s
        .bytes()
        .enumerate()
        .filter(|(_, b)| *b != b'\n' && *b != b'\r')
        .collect();
    if !bytes.len().is_multiple_of(q) {
        let i = bytes.len() - bytes.len() % q;
        return err(bytes.get(i).map(|x| x.0).unwrap_or(s.len()));
    }
    let mut out: Vec<u8> = Vec::new();
    for group in bytes.chunks(q) {
        let mut acc: u64 = 0;
        let mut n = 0;
        let mut pad = false;
        for (pos, b) in group {
            if *b == b'=' {
                pad = true;
                continue;
            }
            if pad {
                return err(*pos);
            }
            let Some(v) = alphabet.iter().position(|a| a == b) else {
                return err(*pos);
            };
            acc = acc << bits | v as u64;
            n += 1;
        }
        let total_bits = n * bits as usize;
        let nbytes = total_bits / 8;
        if pad && n < 2 {
            return err(group[n].0);
        }
        let extra = total_bits - nbytes * 8;
        let acc = acc >> extra;
        for i in (0..nbytes).rev() {
            out.push((acc >> (8 * i)) as u8);
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `b64dec`: the decoded text, or Go's error text (sprig returns `err.Error()`).
pub fn b64dec(s: &str) -> String {
    match crate::go::base64::decode(s.as_bytes()) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(i) => format!("illegal base64 data at input byte {i}"),
    }
}

pub fn b32dec(s: &str) -> String {
    decode(s, B32, 8, 5, "base32")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        assert_eq!(sha1_hex(b"abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(
            crate::model::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(adler32(b"Wikipedia"), 0x11E60398);
    }

    #[test]
    fn base64_round_trip() {
        assert_eq!(b64enc(b"Hello"), "SGVsbG8=");
        assert_eq!(b64dec("SGVsbG8="), "Hello");
        assert_eq!(b64dec("!!"), "illegal base64 data at input byte 0");
        assert_eq!(b32enc(b"Hello"), "JBSWY3DP");
        assert_eq!(b32dec("JBSWY3DP"), "Hello");
    }
}
