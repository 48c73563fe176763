//! Air-gapped bundles (`capi-render bundle`): everything needed to install the
//! providers named by provider CRs without network access — the repository subset,
//! operator ConfigMaps, the image list (optionally rewritten to a mirror), OCI
//! layouts — with `SHA256SUMS`, and `bundle verify`.

pub mod build;
pub mod difference;
pub mod images;
pub mod inputs;
pub mod oci;
pub mod rederive;
pub mod resolve;
pub mod stage;
pub mod sums;
pub mod verify;

pub use build::{build, write, BundleOptions, Summary};
pub use verify::{verify, Report};
