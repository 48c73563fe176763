//! Digests as lower-case hex: the lock's and bundle's file sums, input sums, the
//! short hashes in generated names, sprig's `sha256sum`.

use sha2::{Digest, Sha256};

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    // Two table lookups per byte into a byte buffer (not one `write!` or `char` push
    // per byte: every file of a tree and every Cluster's fingerprint is a sum).
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = Vec::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[usize::from(b >> 4)]);
        s.push(DIGITS[usize::from(b & 0xf)]);
    }
    // Hex digits only: always UTF-8 (checked, 64 bytes for a sha256).
    String::from_utf8(s).unwrap_or_default()
}

/// Lower-case hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// A sha256 that starts with the same bytes for many texts (each Cluster's fingerprint
/// starts with its namespace's): those bytes are absorbed once, and
/// [`Sha256Prefix::hex_with`] hashes only the rest. The digest is
/// `sha256_hex(prefix + rest)`.
#[derive(Clone)]
pub struct Sha256Prefix(Sha256);

impl Sha256Prefix {
    pub fn new(prefix: &[u8]) -> Self {
        Sha256Prefix(Sha256::new_with_prefix(prefix))
    }

    /// Lower-case hex sha256 of the prefix followed by `rest`.
    pub fn hex_with(&self, rest: &[u8]) -> String {
        hex(&self.0.clone().chain_update(rest).finalize())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_prefix_absorbed_once_gives_the_whole_text_s_digest() {
        // Prefixes around sha256's 64-byte block (the state keeps a partial block).
        for n in [0, 1, 55, 63, 64, 65, 127, 128, 700] {
            let prefix: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
            let p = super::Sha256Prefix::new(&prefix);
            for rest in [&b""[..], b"x", &[b'a'; 64], &[b'z'; 200]] {
                let whole = [prefix.as_slice(), rest].concat();
                assert_eq!(
                    p.hex_with(rest),
                    super::sha256_hex(&whole),
                    "{n} + {}",
                    rest.len()
                );
            }
        }
    }

    #[test]
    fn known_digest() {
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(super::hex(&[0, 0xab, 0xff]), "00abff");
        // Every byte, against the formatter.
        let all: Vec<u8> = (0..=255).collect();
        let want: String = all.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(super::hex(&all), want);
    }
}
