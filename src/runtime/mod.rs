//! Cluster API's Runtime SDK client, as the topology controller of the release we follow
//! (v1.14.2, `internal/runtime/client`) speaks it to the extensions a ClusterClass's
//! external patches name: discovery of each extension's handlers, then calls of
//! GeneratePatches, ValidateTopology and DiscoverVariables.
//!
//! The library never opens a connection: a [`Transport`] does (the CLI's is HTTP(S) over
//! ureq, `cli/runtime.rs`; tests use fakes). The rules kept here are the client's:
//! - [`config`]: ExtensionConfig objects among the inputs, pointed at reachable URLs by
//!   `--runtime-extension NAME=URL`, loopback only unless remote extensions are allowed;
//! - [`registry`]: discovery (defaults: timeout 10 s, failure policy `Fail`; handler
//!   names DNS-1123 labels, timeouts 0–30 s, hooks of the catalog), handlers registered
//!   as `<handler>.<extensionconfig>`; a call merges the ExtensionConfig's settings under
//!   the request's, checks the namespace selector, takes the handler's timeout and
//!   applies its failure policy (`Ignore` passes an unreachable handler; a `Failure`
//!   response is an error whatever the policy).

pub mod config;
pub mod registry;
pub mod session;
#[cfg(test)]
mod tests;

use std::time::Duration;

pub use config::{extension_configs, ExtensionConfig};
pub use registry::{Handler, Registry};
pub use session::{Answer, Session};

/// The hooks' API group and version.
pub const HOOKS_API_VERSION: &str = "hooks.runtime.cluster.x-k8s.io/v1alpha1";

/// The hooks capi-render calls (the catalog's topology mutation hooks and discovery).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Hook {
    Discovery,
    GeneratePatches,
    ValidateTopology,
    DiscoverVariables,
}

impl Hook {
    /// The hook's name in the catalog.
    pub fn name(self) -> &'static str {
        match self {
            Hook::Discovery => "Discovery",
            Hook::GeneratePatches => "GeneratePatches",
            Hook::ValidateTopology => "ValidateTopology",
            Hook::DiscoverVariables => "DiscoverVariables",
        }
    }

    /// The catalog's hook of this name and API version, if capi-render knows it.
    pub fn parse(api_version: &str, name: &str) -> Option<Hook> {
        if api_version != HOOKS_API_VERSION {
            return None;
        }
        [
            Hook::Discovery,
            Hook::GeneratePatches,
            Hook::ValidateTopology,
            Hook::DiscoverVariables,
        ]
        .into_iter()
        .find(|h| h.name() == name)
    }

    /// `catalog.GVHToPath`: `/<group>/<version>/<hook, lower case>[/<handler, lower case>]`.
    pub fn path(self, handler: &str) -> String {
        let base = format!("/{HOOKS_API_VERSION}/{}", self.name().to_lowercase());
        if handler.is_empty() {
            base
        } else {
            format!("{base}/{}", handler.to_lowercase())
        }
    }
}

/// Hooks of the Runtime SDK catalog capi-render does not call but an extension may
/// serve: discovery accepts them as Cluster API does (`IsHookRegistered`).
pub const OTHER_CATALOG_HOOKS: &[&str] = &[
    "BeforeClusterCreate",
    "AfterControlPlaneInitialized",
    "BeforeClusterUpgrade",
    "BeforeControlPlaneUpgrade",
    "AfterControlPlaneUpgrade",
    "BeforeWorkersUpgrade",
    "AfterWorkersUpgrade",
    "AfterClusterUpgrade",
    "BeforeClusterDelete",
    "GenerateUpgradePlan",
    "CanUpdateMachine",
    "CanUpdateMachineSet",
    "UpdateMachine",
];

/// A failed exchange with an extension (`errCallingExtensionHandler`): unreachable, a
/// timeout, a status other than 200, or a body that is not the hook's response. The
/// `Ignore` failure policy passes these, and only these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError(pub String);

/// One POST of a JSON body to an extension: the response body on status 200.
pub trait Transport: Send + Sync {
    /// POST `body` to `url` within `timeout`. Errors read like Cluster API's
    /// (`http call failed: ...`).
    fn post(&self, url: &str, body: &[u8], timeout: Duration) -> Result<Vec<u8>, CallError>;
}
