//! Container image references and clusterctl image overrides (R2.3).
//!
//! Parsing follows the docker distribution reference grammar in its canonical-only
//! form (`reference.ParseNamed`): an image must already be fully qualified
//! (`registry/path/name[:tag][@digest]`); a short name such as `nginx:1.0` is an error.

use std::collections::BTreeMap;

use crate::config::ImageMeta;
use crate::error::{Error, Result};

/// A parsed image: `repository/name[:tag][@digest]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub repository: String,
    pub name: String,
    pub tag: String,
    pub digest: String,
}

impl std::fmt::Display for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.repository, self.name)?;
        if !self.tag.is_empty() {
            write!(f, ":{}", self.tag)?;
        }
        if !self.digest.is_empty() {
            write!(f, "@{}", self.digest)?;
        }
        Ok(())
    }
}

fn invalid() -> Error {
    Error::new("invalid reference format")
}

fn is_alnum_lower(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// path-component: `[a-z0-9]+ (separator [a-z0-9]+)*`, separator `[_.]|__|[-]+`.
fn path_component_ok(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || !is_alnum_lower(b[0]) || !is_alnum_lower(b[b.len() - 1]) {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if is_alnum_lower(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && !is_alnum_lower(b[i]) {
            i += 1;
        }
        let sep = &s[start..i];
        let ok = sep == "_"
            || sep == "."
            || sep == "__"
            || (!sep.is_empty() && sep.bytes().all(|c| c == b'-'));
        if !ok {
            return false;
        }
    }
    true
}

/// domain-component: `[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]`.
fn domain_component_ok(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

fn domain_ok(d: &str) -> bool {
    let (host, port) = match d.rsplit_once(':') {
        Some((h, p)) if !h.starts_with('[') || h.ends_with(']') => (h, Some(p)),
        _ => (d, None),
    };
    if let Some(p) = port {
        if p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()) {
            return false;
        }
    }
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return !inner.is_empty() && inner.bytes().all(|c| c.is_ascii_hexdigit() || c == b':');
    }
    host.split('.').all(domain_component_ok)
}

fn tag_ok(t: &str) -> bool {
    let b = t.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && (b[0].is_ascii_alphanumeric() || b[0] == b'_')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

fn digest_ok(d: &str) -> Result<()> {
    let (alg, hex) = d.split_once(':').ok_or_else(invalid)?;
    let alg_ok = alg.split(['-', '_', '+', '.']).all(|p| {
        let b = p.as_bytes();
        !b.is_empty() && b[0].is_ascii_alphabetic() && b.iter().all(|c| c.is_ascii_alphanumeric())
    });
    if !alg_ok || hex.len() < 32 || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(invalid());
    }
    let want = match alg {
        "sha256" => Some(64),
        "sha384" => Some(96),
        "sha512" => Some(128),
        _ => None,
    };
    match want {
        None => Err(Error::new("unsupported digest algorithm")),
        Some(n) if n != hex.len() => Err(Error::new("invalid checksum digest length")),
        Some(_) if hex.bytes().any(|c| c.is_ascii_uppercase()) => {
            Err(Error::new("invalid checksum digest format"))
        }
        _ => Ok(()),
    }
}

/// Does the first path segment name a registry (docker's `splitDockerDomain` rule)?
fn looks_like_domain(first: &str) -> bool {
    first.contains('.')
        || first.contains(':')
        || first == "localhost"
        || first.bytes().any(|c| c.is_ascii_uppercase())
}

/// distribution/reference v0.6.0 `ParseNormalizedNamed`'s `remote`: the repository
/// path after `splitDockerDomain` (official images get `library/`), cut at the first
/// `:`. Its case is checked before anything else is parsed.
fn normalized_remote(s: &str) -> String {
    let remainder = match s.split_once('/') {
        None => format!("library/{s}"),
        Some((d, r)) => {
            let (domain, rest) = if d == "localhost" {
                (d, r)
            } else if d == "index.docker.io" {
                ("docker.io", r)
            } else if d.contains('.') || d.contains(':') || d.to_lowercase() != d {
                (d, r)
            } else {
                ("docker.io", s)
            };
            if domain == "docker.io" && !rest.contains('/') {
                format!("library/{rest}")
            } else {
                rest.to_string()
            }
        }
    };
    match remainder.split_once(':') {
        Some((a, _)) => a.to_string(),
        None => remainder,
    }
}

/// `reference.ParseNamed` + clusterctl's `ImageFromString`.
pub fn parse_image(s: &str) -> Result<Image> {
    parse_canonical(s).map_err(|e| e.wrap("couldn't parse image name"))
}

fn parse_canonical(s: &str) -> Result<Image> {
    if s.len() == 64
        && s.bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    {
        return Err(Error::new(format!(
            "invalid repository name ({s}), cannot specify 64-byte hexadecimal strings"
        )));
    }
    let remote = normalized_remote(s);
    if remote.to_lowercase() != remote {
        return Err(Error::new(format!(
            "invalid reference format: repository name ({remote}) must be lowercase"
        )));
    }
    let (rest, digest) = match s.split_once('@') {
        Some((a, d)) => (a, d.to_string()),
        None => (s, String::new()),
    };
    // The tag is after the last ':' that follows the last '/'.
    let last_slash = rest.rfind('/').map(|i| i + 1).unwrap_or(0);
    let (name, tag) = match rest[last_slash..].rfind(':') {
        Some(i) => (
            &rest[..last_slash + i],
            rest[last_slash + i + 1..].to_string(),
        ),
        None => (rest, String::new()),
    };
    // ParseNormalizedNamed never hands an empty name to Parse: it prefixes
    // `docker.io/library/`, which then fails the reference grammar.
    if name.is_empty() {
        return Err(invalid());
    }
    let (domain, path) = match name.split_once('/') {
        Some((d, p)) if looks_like_domain(d) => (Some(d), p),
        _ => (None, name),
    };
    if let Some(d) = domain {
        if !domain_ok(d) {
            return Err(invalid());
        }
    }
    if !path.split('/').all(path_component_ok) {
        return Err(invalid());
    }
    if (!tag.is_empty() || rest.ends_with(':')) && !tag_ok(&tag) {
        return Err(invalid());
    }
    if !digest.is_empty() || s.ends_with('@') {
        digest_ok(&digest)?;
    }
    if name.len() > 255 {
        return Err(Error::new(
            "repository name must not be more than 255 characters",
        ));
    }
    let docker_hub_short = domain == Some("docker.io") && !path.contains('/');
    if domain.is_none() || domain == Some("index.docker.io") || docker_hub_short {
        return Err(Error::new("repository name must be canonical"));
    }
    let (repository, base) = match name.rsplit_once('/') {
        Some((r, b)) => (r.to_string(), b.to_string()),
        None => (String::new(), name.to_string()),
    };
    Ok(Image {
        repository,
        name: base,
        tag,
        digest,
    })
}

/// The effective override for `component` and image `name`: `all`, then the
/// component, then `component/name`; at each step a non-empty field wins.
fn image_meta(images: &BTreeMap<String, ImageMeta>, component: &str, name: &str) -> ImageMeta {
    let mut m = ImageMeta::default();
    for key in [
        "all".to_string(),
        component.to_string(),
        format!("{component}/{name}"),
    ] {
        if let Some(o) = images.get(&key) {
            if !o.repository.is_empty() {
                m.repository = o.repository.clone();
            }
            if !o.name.is_empty() {
                m.name = o.name.clone();
            }
            if !o.tag.is_empty() {
                m.tag = o.tag.clone();
            }
        }
    }
    m
}

/// clusterctl's `AlterImage(component, image)`: parse (always), then apply the
/// configured overrides, if any.
pub fn alter_image(
    images: Option<&BTreeMap<String, ImageMeta>>,
    component: &str,
    image: &str,
) -> Result<String> {
    let mut img = parse_image(image)?;
    let Some(images) = images else {
        return Ok(image.to_string());
    };
    let m = image_meta(images, component, &img.name);
    if !m.repository.is_empty() {
        img.repository = m.repository.trim_end_matches('/').to_string();
    }
    if !m.name.is_empty() {
        img.name = m.name;
    }
    if !m.tag.is_empty() {
        img.tag = m.tag;
    }
    Ok(img.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_references_parse() {
        let i = parse_image("registry.k8s.io/cluster-api/cluster-api-controller:v1.10.10").unwrap();
        assert_eq!(i.repository, "registry.k8s.io/cluster-api");
        assert_eq!(i.name, "cluster-api-controller");
        assert_eq!(i.tag, "v1.10.10");
        let d = format!("localhost:5000/a/b@sha256:{}", "a".repeat(64));
        assert_eq!(parse_image(&d).unwrap().to_string(), d);
    }

    #[test]
    fn short_names_are_not_canonical() {
        for s in [
            "nginx:1.0",
            "docker.io/nginx:1.0",
            "library/nginx",
            "index.docker.io/a/b",
        ] {
            // docker.io/nginx is normalised to docker.io/library/nginx, so it is not canonical either.
            let e = parse_image(s);
            assert_eq!(
                e.unwrap_err().message(),
                "couldn't parse image name: repository name must be canonical",
                "{s}"
            );
        }
    }

    #[test]
    fn malformed_references_fail() {
        assert!(parse_image("gcr.io/Foo/bar")
            .unwrap_err()
            .message()
            .contains("must be lowercase"));
        assert!(parse_image("gcr.io/foo/bar:").is_err());
        assert!(parse_image("gcr.io/foo//bar").is_err());
        assert!(parse_image("gcr.io/foo/bar@sha256:abc").is_err());
        assert!(parse_image("").is_err());
    }

    #[test]
    fn lowercase_errors_show_the_normalised_remote() {
        // Texts printed by distribution/reference v0.6.0 (clusterctl v1.10.10 and the
        // operator's cluster-api v1.12.10 both use it).
        for (s, remote) in [
            ("Nginx:1.0", "library/Nginx"),
            ("docker.io/Nginx", "library/Nginx"),
            ("index.docker.io/Nginx:1", "library/Nginx"),
            ("docker.io/Example/agent", "Example/agent"),
            ("gcr.io/Foo/bar:v1", "Foo/bar"),
            ("localhost/Foo", "Foo"),
        ] {
            assert_eq!(
                parse_image(s).unwrap_err().message(),
                format!("couldn't parse image name: invalid reference format: repository name ({remote}) must be lowercase"),
                "{s}"
            );
        }
        // An uppercase first segment is a domain, so only the rest is checked.
        assert_eq!(
            parse_image("Example/agent:v1").unwrap().repository,
            "Example"
        );
        assert_eq!(
            parse_image("").unwrap_err().message(),
            "couldn't parse image name: invalid reference format"
        );
    }

    #[test]
    fn overrides_apply_in_order() {
        let mut m = BTreeMap::new();
        m.insert(
            "all".to_string(),
            ImageMeta {
                repository: "mirror.io/all/".into(),
                name: String::new(),
                tag: "".into(),
            },
        );
        m.insert(
            "cluster-api".to_string(),
            ImageMeta {
                repository: "".into(),
                name: String::new(),
                tag: "v2".into(),
            },
        );
        m.insert(
            "cluster-api/other".to_string(),
            ImageMeta {
                repository: "mirror.io/special".into(),
                name: String::new(),
                tag: "".into(),
            },
        );
        let a = alter_image(
            Some(&m),
            "cluster-api",
            "registry.k8s.io/cluster-api/ctrl:v1",
        )
        .unwrap();
        assert_eq!(a, "mirror.io/all/ctrl:v2");
        let b = alter_image(Some(&m), "cluster-api", "registry.k8s.io/x/other:v1").unwrap();
        assert_eq!(b, "mirror.io/special/other:v2");
        assert_eq!(
            alter_image(None, "c", "gcr.io/a/b:v1").unwrap(),
            "gcr.io/a/b:v1"
        );
    }
}
