//! The cluster-api-operator release the operator pipeline follows, and what it means
//! for the clusterctl stages the pipeline borrows.
//!
//! cluster-api-operator v0.29.0 builds against Cluster API v1.13.5 and k8s.io v0.35.8.
//! Its Fetch phase runs clusterctl's `NewComponents` from that Cluster API, so two of
//! clusterctl's release-dependent behaviours are v1.14.2's, not v1.10.10's (the
//! library's default [`Clusterctl`]):
//! - image overrides honour `name` (`images:` in the operator's `--config` and in a
//!   config Secret's `images` key), new in Cluster API v1.13;
//! - the typed round trips of the components pipeline (`fixImages`, the target
//!   namespace filters) go through k8s.io v0.35.8's types ([`COMPONENTS_K8S`]): a zero
//!   `creationTimestamp` omitted (apimachinery's `omitzero`), the pod-spec fields of
//!   v0.35 kept and v0.36's dropped.
//!
//! The other v1.14 differences of the components pipeline do not reach the operator's
//! output (the added Namespace object is dropped, R6.1.1). Checked against the
//! operator's own Fetch phase (`conformance/operator-customize.sh`,
//! `fixtures/operator-fetch`).

use std::collections::BTreeMap;

use crate::config::{Clusterctl, Config, ImageMeta, K8s};

/// The followed release.
pub const OPERATOR_VERSION: &str = "v0.29.0";

/// The clusterctl behaviour of the components stages under the followed release.
pub const COMPONENTS_CLUSTERCTL: Clusterctl = Clusterctl::V1_14;

/// The k8s.io release the followed operator (and so its clusterctl library) is built on.
pub const COMPONENTS_K8S: K8s = K8s::V0_35;

/// `cfg` as the operator's clusterctl library reads it: image `name`s kept, typed round
/// trips in k8s.io v0.35.8's types.
pub fn components_config(mut cfg: Config) -> Config {
    cfg.set_clusterctl(COMPONENTS_CLUSTERCTL);
    cfg.k8s_override = Some(COMPONENTS_K8S);
    cfg
}

/// The image overrides of the operator's own clusterctl config (`--config`), as its
/// `imageOverrides` step reads them (R8): `name`s kept.
pub fn operator_images(cfg: &Config) -> Option<BTreeMap<String, ImageMeta>> {
    cfg.images.as_ref()?;
    components_config(cfg.clone()).images
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const IMAGES: &str =
        "images:\n  all:\n    repository: mirror.example.com\n    name: renamed\n    tag: v9\n";

    #[test]
    fn image_names_are_kept_and_round_trips_typed_as_v0_35() {
        let cfg = Config::from_text(IMAGES, Path::new("c.yaml"), BTreeMap::new()).unwrap();
        assert_eq!(cfg.images.as_ref().unwrap()["all"].name, "");
        let imgs = operator_images(&cfg).unwrap();
        assert_eq!(imgs["all"].name, "renamed");
        assert_eq!(imgs["all"].repository, "mirror.example.com");
        let c = components_config(cfg);
        assert_eq!(c.clusterctl, Clusterctl::V1_14);
        assert_eq!(c.k8s(), K8s::V0_35);
        assert_eq!(c.images.unwrap()["all"].name, "renamed");
    }

    #[test]
    fn no_images_stay_none() {
        assert!(operator_images(&Config::new(BTreeMap::new())).is_none());
    }
}
