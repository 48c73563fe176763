//! The bottom layer every stage may import and that imports no stage: the shared data
//! types (input files and objects, rendered units, the render set and options), hashing
//! and the compact form of objects; `par`, work on all cores largest first.

pub mod clusterctl;
pub mod compact;
pub mod hash;
pub mod k8s;
pub mod object;
pub mod par;
pub mod pointer;
pub mod unit;

pub use hash::{hex, sha256_hex};
pub use unit::{
    unit_dir, ClusterMode, FieldValidation, InputFile, InputObject, ProviderInfo, RenderOptions,
    RenderSet, RenderedUnit, SealedFile, SecretsMode, UnitKind, NAMESPACES_DIR, REVIEW_DIR,
};
