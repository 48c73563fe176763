//! The ClusterClass and the templates it references (`scope.ClusterBlueprint`).

use serde_json::Value;

use super::obj;
use crate::error::{Error, Result};

/// One worker class (MachineDeploymentClass or MachinePoolClass) with its templates.
pub struct WorkerClass {
    pub class: Value,
    pub bootstrap: Value,
    pub infrastructure: Value,
}

pub struct Blueprint {
    pub cc: Value,
    pub infra_cluster_template: Value,
    pub cp_template: Value,
    pub cp_infra_template: Option<Value>,
    pub md_classes: Vec<(String, WorkerClass)>,
    pub mp_classes: Vec<(String, WorkerClass)>,
    /// Builtin variables as HEAD's controller builds them for v1beta2 Clusters
    /// (`v1beta2::builtins`); false for clusterctl v1.10.10's.
    pub head_builtins: bool,
    /// The Runtime SDK, when the render calls extensions ([`super::patches::external`]).
    pub runtime: Option<std::sync::Arc<crate::runtime::Session>>,
    /// The variables each external patch's extension defined (DiscoverVariables), by
    /// patch name.
    pub discovered: std::collections::BTreeMap<String, Vec<String>>,
}

impl Blueprint {
    /// The names of the variables defined from an external patch.
    pub fn external_definitions(&self, patch: &str) -> &[String] {
        self.discovered.get(patch).map_or(&[], Vec::as_slice)
    }
}

/// Find the object a ClusterClass ref names among `objects` (apiVersion, kind,
/// namespace and name all equal, as the dry-run client's Get).
pub fn resolve(objects: &[Value], r: &Value, cc_ns: &str) -> Result<Value> {
    let av = obj::str_at(r, &["apiVersion"]);
    let kind = obj::str_at(r, &["kind"]);
    let name = obj::str_at(r, &["name"]);
    let ns = match obj::str_at(r, &["namespace"]) {
        "" => cc_ns,
        n => n,
    };
    objects
        .iter()
        .find(|o| {
            obj::api_version(o) == av
                && obj::kind(o) == kind
                && obj::name(o) == name
                && obj::namespace(o) == ns
        })
        .cloned()
        .ok_or_else(|| {
            Error::new(format!(
                "failed to get {kind} {ns}/{name}: {}.{} {name:?} not found",
                plural(kind),
                obj::group_of(av)
            ))
        })
}

/// The ClusterClass controller's `reconcileExternalReferences` as the plan's dry run
/// meets it: every referenced template must exist (errors aggregated, each unique ref once)
/// and, with `mock_crds` (clusterctl's dry run, not HEAD's controller), have a CRD there.
pub fn check_references(cc: &Value, objects: &[Value], mock_crds: bool) -> Result<()> {
    let mut refs: Vec<&Value> = Vec::new();
    for p in [
        &["spec", "infrastructure", "ref"][..],
        &["spec", "controlPlane", "ref"],
        &["spec", "controlPlane", "machineInfrastructure", "ref"],
    ] {
        if let Some(r) = obj::get(cc, p).filter(|v| !v.is_null()) {
            refs.push(r);
        }
    }
    for field in ["machineDeployments", "machinePools"] {
        if let Some(Value::Array(list)) = obj::get(cc, &["spec", "workers", field]) {
            for c in list {
                for k in ["bootstrap", "infrastructure"] {
                    if let Some(r) = obj::get(c, &["template", k, "ref"]).filter(|v| !v.is_null()) {
                        refs.push(r);
                    }
                }
            }
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut errs = Vec::new();
    for r in refs {
        let key = (
            obj::str_at(r, &["apiVersion"]),
            obj::str_at(r, &["kind"]),
            obj::str_at(r, &["namespace"]),
            obj::str_at(r, &["name"]),
        );
        if !seen.insert(key) {
            continue;
        }
        if let Err(e) = resolve(objects, r, obj::namespace(cc)) {
            let (av, kind, ns, name) = key;
            let (g, v) = av.rsplit_once('/').unwrap_or(("", av));
            let inner = e.message().split_once(": ").map(|x| x.1).unwrap_or("");
            errs.push(format!(
                "Could not find external object for the ClusterClass. refGroupVersionKind: {g}/{v}, Kind={kind}, refName: {name}, refNamespace: {ns}: failed to retrieve {kind} {ns}/{name}: {inner}"
            ));
        } else if let Some(e) = api_contract_error(key.0, key.1).filter(|_| mock_crds) {
            errs.push(e);
        }
    }
    if errs.is_empty() {
        return Ok(());
    }
    Err(Error::new(crate::go::errors::aggregate(errs)))
}

/// `conversion.UpdateReferenceAPIContract` on a found template: clusterctl's dry run
/// holds mock CRDs only for groups ending in `.cluster.x-k8s.io` (topology.go
/// `generateCRDs`), so any other group's CRD is not found. The name is
/// `contract.CalculateCRDName`; flect pluralizes every `…template` by adding `s`.
fn api_contract_error(api_version: &str, kind: &str) -> Option<String> {
    let group = obj::group_of(api_version);
    if group.ends_with(".cluster.x-k8s.io") {
        return None;
    }
    let crd = format!("{}.{group}", plural(kind));
    Some(format!(
        "failed to update apiVersion in ref: failed to retrieve metadata from GVK resource: customresourcedefinitions.apiextensions.k8s.io {crd:?} not found"
    ))
}

fn plural(kind: &str) -> String {
    let l = kind.to_lowercase();
    if l.ends_with('s') {
        format!("{l}es")
    } else if let Some(stem) = l.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{l}s")
    }
}

fn workers(cc: &Value, objects: &[Value], field: &str) -> Result<Vec<(String, WorkerClass)>> {
    let ns = obj::namespace(cc);
    let mut out = Vec::new();
    if let Some(Value::Array(list)) = obj::get(cc, &["spec", "workers", field]) {
        for c in list {
            let name = obj::str_at(c, &["class"]).to_string();
            let b = obj::get(c, &["template", "bootstrap", "ref"])
                .cloned()
                .unwrap_or(Value::Null);
            let i = obj::get(c, &["template", "infrastructure", "ref"])
                .cloned()
                .unwrap_or(Value::Null);
            out.push((
                name,
                WorkerClass {
                    class: c.clone(),
                    bootstrap: resolve(objects, &b, ns)?,
                    infrastructure: resolve(objects, &i, ns)?,
                },
            ));
        }
    }
    Ok(out)
}

impl Blueprint {
    pub fn load(cc: &Value, objects: &[Value]) -> Result<Blueprint> {
        let ns = obj::namespace(cc);
        let get_ref = |p: &[&str]| obj::get(cc, p).cloned().unwrap_or(Value::Null);
        let infra = resolve(objects, &get_ref(&["spec", "infrastructure", "ref"]), ns)?;
        let cp = resolve(objects, &get_ref(&["spec", "controlPlane", "ref"]), ns)?;
        let cp_infra = match obj::get(
            cc,
            &["spec", "controlPlane", "machineInfrastructure", "ref"],
        ) {
            Some(r) if !r.is_null() => Some(resolve(objects, r, ns)?),
            _ => None,
        };
        Ok(Blueprint {
            cc: cc.clone(),
            infra_cluster_template: infra,
            cp_template: cp,
            cp_infra_template: cp_infra,
            md_classes: workers(cc, objects, "machineDeployments")?,
            mp_classes: workers(cc, objects, "machinePools")?,
            head_builtins: false,
            runtime: None,
            discovered: Default::default(),
        })
    }

    pub fn md_class(&self, name: &str) -> Option<&WorkerClass> {
        self.md_classes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c)
    }

    pub fn mp_class(&self, name: &str) -> Option<&WorkerClass> {
        self.mp_classes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resolve_matches_all_of_gvk_and_key() {
        let objs = vec![json!({"apiVersion": "a/v1", "kind": "XTemplate",
            "metadata": {"name": "t", "namespace": "ns"}})];
        let r = json!({"apiVersion": "a/v1", "kind": "XTemplate", "name": "t"});
        assert!(resolve(&objs, &r, "ns").is_ok());
        assert!(resolve(&objs, &r, "other").is_err());
        let r2 = json!({"apiVersion": "a/v2", "kind": "XTemplate", "name": "t"});
        assert!(resolve(&objs, &r2, "ns").is_err());
    }

    #[test]
    fn api_contract_needs_a_cluster_x_k8s_io_group() {
        assert_eq!(
            api_contract_error(
                "infrastructure.cluster.x-k8s.io/v1beta1",
                "DockerClusterTemplate"
            ),
            None
        );
        assert_eq!(
            api_contract_error("infrastructure.example.com/v1beta1", "FooClusterTemplate").as_deref(),
            Some("failed to update apiVersion in ref: failed to retrieve metadata from GVK resource: customresourcedefinitions.apiextensions.k8s.io \"fooclustertemplates.infrastructure.example.com\" not found")
        );
        assert!(api_contract_error("cluster.x-k8s.io/v1beta1", "XTemplate")
            .unwrap()
            .contains("\"xtemplates.cluster.x-k8s.io\""));
    }
}
