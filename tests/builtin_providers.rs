//! The built-in provider list of each followed clusterctl release against what that
//! release prints for `clusterctl config repositories` (golden/clusterctl-providers,
//! written by conformance/run.sh from the real v1.10.10 and v1.14.2).

use capi_render::config::{Clusterctl, Config};
use std::collections::BTreeSet;

fn golden(v: &str) -> BTreeSet<(String, String, String)> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("golden/clusterctl-providers")
        .join(format!("{v}.stdout"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 4, "{l}");
            (
                f[0].to_string(),
                f[1].to_string(),
                format!("{}{}", f[2], f[3]),
            )
        })
        .collect()
}

fn ours(c: Clusterctl) -> BTreeSet<(String, String, String)> {
    let mut cfg = Config::new(Default::default());
    cfg.set_clusterctl(c);
    cfg.providers()
        .into_iter()
        .map(|p| (p.name.clone(), p.ptype.to_string(), p.url.clone()))
        .collect()
}

#[test]
fn builtin_providers_match_each_release() {
    for (v, c) in [("v1.10", Clusterctl::V1_10), ("v1.14", Clusterctl::V1_14)] {
        let want = golden(v);
        let got = ours(c);
        let missing: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{v}: missing {missing:?}, extra {extra:?}"
        );
    }
    assert_eq!(golden("v1.14").len(), 64);
}
