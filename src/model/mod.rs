//! The bottom layer every stage may import and that imports no stage: hashing and the
//! compact form of objects; the shared data types move here with the structure work
//! (issue 14).

pub mod compact;
pub mod hash;

pub use hash::{hex, sha256_hex};
