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
//!   namespace filters) omit a zero `creationTimestamp` (apimachinery's `omitzero`).
//!
//! The other v1.14 differences of the components pipeline do not reach the operator's
//! output (the added Namespace object is dropped, R6.1.1). Checked against the
//! operator's own Fetch phase (`conformance/operator-customize.sh`,
//! `fixtures/operator-fetch`).

use std::collections::BTreeMap;

use crate::config::{Clusterctl, Config, ImageMeta};

/// The followed release.
pub const OPERATOR_VERSION: &str = "v0.29.0";

/// The clusterctl behaviour of the components stages under the followed release.
pub const COMPONENTS_CLUSTERCTL: Clusterctl = Clusterctl::V1_14;

/// `cfg` as the operator's clusterctl library reads it: image `name`s kept, zero
/// creation timestamps omitted by the components pipeline.
pub fn components_config(mut cfg: Config) -> Config {
    cfg.set_clusterctl(COMPONENTS_CLUSTERCTL);
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
    fn image_names_are_kept_and_zero_times_omitted() {
        let cfg = Config::from_text(IMAGES, Path::new("c.yaml"), BTreeMap::new()).unwrap();
        assert_eq!(cfg.images.as_ref().unwrap()["all"].name, "");
        let imgs = operator_images(&cfg).unwrap();
        assert_eq!(imgs["all"].name, "renamed");
        assert_eq!(imgs["all"].repository, "mirror.example.com");
        let c = components_config(cfg);
        assert!(c.clusterctl.omits_zero_creation_timestamp());
        assert_eq!(c.images.unwrap()["all"].name, "renamed");
    }

    #[test]
    fn no_images_stay_none() {
        assert!(operator_images(&Config::new(BTreeMap::new())).is_none());
    }
}
