//! The bottom layer every stage may import and that imports no stage. For now it holds
//! hashing; the shared data types move here with the structure work (issue 14).

pub mod hash;

pub use hash::{hex, sha256_hex};
