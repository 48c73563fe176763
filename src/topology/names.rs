//! Object names (topology.md §1). clusterctl appends 5 random characters from
//! apimachinery's `utilrand.String` alphabet; capi-render derives those characters from
//! a SHA-256 of stable inputs (cluster namespace and name, the object's role, the
//! topology name), so that rendering twice gives the same names. Length and alphabet
//! are clusterctl's, so the names are indistinguishable in shape.

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// apimachinery `util/rand` alphabet: no vowels, no 0, 1 or 3.
pub const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
pub const SUFFIX_LEN: usize = 5;
pub const MAX_NAME_LEN: usize = 63;
pub const MAX_PREFIX_LEN: usize = MAX_NAME_LEN - SUFFIX_LEN;

/// Five characters from [`ALPHABET`], a function of `seed` only.
pub fn suffix(seed: &str) -> String {
    let digest = Sha256::digest(seed.as_bytes());
    digest
        .iter()
        .take(SUFFIX_LEN)
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect()
}

/// The stable seed of one generated name: who the object belongs to and what it is.
pub fn seed(cluster_ns: &str, cluster: &str, role: &str) -> String {
    format!("{cluster_ns}/{cluster}/{role}")
}

/// `names.SimpleNameGenerator`: prefix (cut to 58 bytes) + 5 characters.
pub fn simple(prefix: &str, seed: &str) -> String {
    format!("{}{}", truncate(prefix, MAX_PREFIX_LEN), suffix(seed))
}

fn truncate(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Which naming strategy a generated name follows (R1.5).
pub enum Strategy<'a> {
    /// InfraCluster or ControlPlane: `{{ .cluster.name }}-{{ .random }}`.
    Cluster,
    /// MachineDeployment: `.machineDeployment.topologyName` is available.
    MachineDeployment(&'a str),
    /// MachinePool: `.machinePool.topologyName` is available.
    MachinePool(&'a str),
}

/// `names.ControlPlaneNameGenerator` / `MachineDeploymentNameGenerator` / …: the
/// naming-strategy template (default when `None`) rendered with `.cluster.name`,
/// `.random` and the topology name; names over 63 characters keep 58 and get 5 new
/// characters.
pub fn from_template(
    template: Option<&str>,
    cluster: &str,
    strategy: Strategy,
    seed: &str,
) -> Result<String> {
    let random = suffix(seed);
    let name = match template {
        None => match &strategy {
            Strategy::Cluster => format!("{cluster}-{random}"),
            Strategy::MachineDeployment(t) | Strategy::MachinePool(t) => {
                format!("{cluster}-{t}-{random}")
            }
        },
        Some(t) => render(t, cluster, &strategy, &random)?,
    };
    if name.len() > MAX_NAME_LEN {
        return Ok(simple(
            truncate(&name, MAX_PREFIX_LEN),
            &format!("{seed}/too-long"),
        ));
    }
    Ok(name)
}

/// Render a naming template with the generator's data.
pub fn render(template: &str, cluster: &str, strategy: &Strategy, random: &str) -> Result<String> {
    let mut data = json!({"cluster": {"name": cluster}, "random": random});
    match strategy {
        Strategy::Cluster => {}
        Strategy::MachineDeployment(t) => data["machineDeployment"] = json!({ "topologyName": t }),
        Strategy::MachinePool(t) => data["machinePool"] = json!({ "topologyName": t }),
    }
    // names.go: template.New("template name generator").Option("missingkey=error"),
    // no sprig; parse errors wrapped with the template, execution errors without.
    let o = crate::gotemplate::Options {
        name: "template name generator",
        sprig: false,
        missing_key_error: true,
    };
    crate::gotemplate::parse_check(template, &o).map_err(|e| {
        Error::new(format!(
            "parsing template {}: {e}",
            crate::go::quote::quote(template)
        ))
    })?;
    let out = crate::gotemplate::execute_with(template, &data, &o)
        .map_err(|e| Error::new(format!("rendering template: {e}")))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naming_templates_are_go_templates_without_sprig_and_with_missingkey_error() {
        let md = Strategy::MachineDeployment("md-0");
        assert_eq!(
            render(
                "{{ .cluster.name }}-{{ .machineDeployment.topologyName }}-{{ .random }}",
                "c1",
                &md,
                "abcde"
            )
            .unwrap(),
            "c1-md-0-abcde"
        );
        assert_eq!(
            render("{{ .cluster.nam }}", "c1", &Strategy::Cluster, "abcde").unwrap_err().message(),
            "rendering template: template: template name generator:1:11: executing \"template name generator\" at <.cluster.nam>: map has no entry for key \"nam\""
        );
        assert_eq!(
            render("{{ upper .cluster.name }}", "c1", &Strategy::Cluster, "abcde").unwrap_err().message(),
            "parsing template \"{{ upper .cluster.name }}\": template: template name generator:1: function \"upper\" not defined"
        );
        // Builtins stay available.
        assert_eq!(
            render(
                "{{ printf \"%s-x\" .cluster.name }}",
                "c1",
                &Strategy::Cluster,
                "abcde"
            )
            .unwrap(),
            "c1-x"
        );
    }

    #[test]
    fn suffix_is_stable_and_in_alphabet() {
        let a = suffix("ns/c/infra");
        assert_eq!(a, suffix("ns/c/infra"));
        assert_eq!(a.len(), 5);
        assert!(a.bytes().all(|b| ALPHABET.contains(&b)));
        assert_ne!(a, suffix("ns/c/control-plane"));
    }

    #[test]
    fn alphabet_is_apimachinery_utilrand() {
        assert_eq!(ALPHABET.len(), 27);
        assert!(!ALPHABET.iter().any(|c| b"aeiou013".contains(c)));
    }

    #[test]
    fn simple_cuts_long_prefixes() {
        let long = "x".repeat(70);
        let n = simple(&long, "s");
        assert_eq!(n.len(), 63);
        assert!(n.starts_with(&"x".repeat(58)));
    }

    #[test]
    fn template_strategies_and_overflow() {
        let t = "{{ .machineDeployment.topologyName }}-{{ .cluster.name }}-{{ .random }}";
        let n = from_template(Some(t), "c1", Strategy::MachineDeployment("md"), "s").unwrap();
        assert_eq!(n, format!("md-c1-{}", suffix("s")));
        let long = format!("{}-{{{{ .random }}}}", "x".repeat(70));
        let n = from_template(Some(&long), "c1", Strategy::Cluster, "s").unwrap();
        assert_eq!(n.len(), 63);
        assert!(n.starts_with(&"x".repeat(58)));
        assert!(from_template(Some("{{ .nope.x }}"), "c1", Strategy::Cluster, "s").is_err());
    }

    #[test]
    fn default_strategies() {
        let n = from_template(None, "c1", Strategy::MachineDeployment("md-0"), "s").unwrap();
        assert!(n.starts_with("c1-md-0-"));
        assert_eq!(n.len(), "c1-md-0-".len() + 5);
        let n = from_template(None, "c1", Strategy::Cluster, "s").unwrap();
        assert!(n.starts_with("c1-") && n.len() == 8);
    }
}
