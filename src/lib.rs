//! capi-render: offline, deterministic rendering of Cluster API manifests.
//!
//! The library is organised by layer and stage (ARCHITECTURE.md, "Layering"):
//!
//! * the bottom, which imports no stage: `model` (shared types, object accessors,
//!   hashing, compact objects), `yaml` (Go-compatible reading and writing), `go`
//!   (Go behaviour byte for byte: quoting, JSON, patches, base64, floats, regex),
//!   `limits`, `paths`, `redact`, `suggest`, `progress`, `error`;
//! * the stages: `load` and `admit` (inputs), `config`, `provider`, `version`,
//!   `repository` (local clusterctl repositories), `image`, `typed` (clusterctl's typed
//!   round trips), `envsubst`, `components` (the provider components pipeline),
//!   `template` (cluster templates), `gotemplate` (Go text/template with sprig),
//!   `operator` (declarative providers: resolution, customisation, upgrade plan) and
//!   `topology` (managed topologies);
//! * the commands: `generate` (`generate provider` / `generate cluster` /
//!   `list-images`), `render` (the streaming orchestrator), `gitops` (the GitOps tree,
//!   its lock and `--check`), `diff` (change impact), `krm` (the KRM function) and
//!   `bundle` (air-gapped bundles).

pub mod admission;
pub mod admit;
pub mod bundle;
pub mod certmanager;
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
pub mod impact;
pub mod krm;
pub mod limits;
pub mod lint;
pub mod load;
pub mod model;
pub mod operator;
pub mod paths;
pub mod progress;
pub mod provider;
pub mod redact;
pub mod render;
pub mod repository;
pub mod runtime;
pub mod sops;
pub mod suggest;
pub mod template;
pub mod topology;
pub mod typed;
pub mod validate;
pub mod version;
pub mod yaml;

pub use error::{Error, ErrorKind, Result};
