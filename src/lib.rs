//! capi-render: offline, deterministic rendering of Cluster API manifests.
//!
//! The library is organised by pipeline stage (see ARCHITECTURE.md):
//! `yaml` (read/write, Go-compatible), `envsubst` (clusterctl's variable engine),
//! `config` (clusterctl config + variable lookup), `provider`, `version`,
//! `repository` (local clusterctl repositories), `image` (image references and
//! overrides), `typed` (side effects of clusterctl's typed round trips),
//! `components` (the provider components pipeline), `template` (cluster templates),
//! and `generate` (the `generate provider` / `generate cluster` / `list-images` flows).

pub mod admit;
pub mod bundle;
pub mod components;
pub mod config;
pub mod diff;
pub mod envsubst;
pub mod error;
pub mod generate;
pub mod gitops;
pub mod go;
pub mod gotemplate;
pub mod image;
pub mod krm;
pub mod limits;
pub mod load;
pub mod model;
pub mod operator;
pub mod paths;
pub mod progress;
pub mod provider;
pub mod redact;
pub mod render;
pub mod repository;
pub mod suggest;
pub mod template;
pub mod topology;
pub mod typed;
pub mod version;
pub mod yaml;

pub use error::{Error, ErrorKind, Result};
