//! The objects of a render as they are read: each admitted, a topology Cluster kept in
//! its compact form until it renders, a file left unparsed by an incremental run
//! (deferred) parsed only when one of its Clusters must render after all.

use crate::model::{InputFile, InputObject};

type Arc<T> = std::sync::Arc<T>;

/// The objects of a render, gathered as they are read ([`crate::load::load_paths_with`]),
/// each admitted ([`crate::admit::check_one`]); a topology Cluster stays in its compact
/// form until it renders (a fraction of its parsed size), any other object as it is.
#[derive(Default)]
pub struct Inputs {
    pub(super) objects: Vec<InputObject>,
    pub(super) clusters: Vec<PendingCluster>,
    /// The first object `render` does not admit (reported once loading is over, so a
    /// file that fails to load is still reported first, as before).
    pub(super) refused: Option<crate::Error>,
    /// Per input file: how many topology Clusters it holds, and whether it holds
    /// anything else.
    pub(super) counts: std::collections::BTreeMap<String, (usize, bool)>,
}

/// An input object as [`Inputs`] keeps it ([`Inputs::admit`]).
pub struct Admitted {
    refused: Option<crate::Error>,
    item: std::result::Result<PendingCluster, InputObject>,
}

pub(super) struct PendingCluster {
    pub(super) namespace: String,
    pub(super) name: String,
    /// `None` for a Cluster of a deferred file until that file is parsed.
    pub(super) value: Option<crate::model::compact::Compact>,
    /// sha256 of the compact form: what the fingerprint hashes of the Cluster.
    pub(super) hash: String,
    pub(super) file: Arc<str>,
    pub(super) doc: usize,
    /// The deferred file it is recorded in, and its position there.
    pub(super) deferred: Option<(Arc<DeferredFile>, usize)>,
    /// The namespace of its ClusterClass when that is another one (`classNamespace`,
    /// `classRef.namespace`); unknown (`None`) for a deferred file's Cluster.
    pub(super) class_namespace: Option<String>,
}

/// A Cluster the previous run rendered from a file that is unchanged since: its
/// namespace, name and the sha256 of its compact form, as the lock records them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedCluster {
    pub namespace: String,
    pub name: String,
    pub hash: String,
}

/// An unchanged file of topology Clusters left unparsed ([`Inputs::defer`]); it is
/// parsed (once) only when one of its Clusters has to render after all.
pub(super) struct DeferredFile {
    pub(super) file: InputFile,
    parsed: std::sync::OnceLock<crate::Result<Vec<PendingCluster>>>,
}

impl DeferredFile {
    pub(super) fn parsed(&self) -> crate::Result<&[PendingCluster]> {
        let r = self.parsed.get_or_init(|| {
            let f = &self.file;
            let path: Arc<str> = Arc::from(f.path.as_str());
            let admitted = crate::load::parse_again(
                std::path::Path::new(&f.path),
                &f.path,
                &f.sha256,
                &crate::limits::Meter::current(),
                &|o| (crate::admit::check_one(&o), pending_of(o, path.clone())),
            )?;
            let mut out = Vec::with_capacity(admitted.len());
            for (checked, p) in admitted {
                checked?;
                out.push(p.map_err(|_| crate::load::changed_during_run(&f.path))?);
            }
            Ok(out)
        });
        r.as_deref().map_err(Clone::clone)
    }
}

/// A topology Cluster's pending form, or the object back when it is none.
impl PendingCluster {
    /// Namespace, name, file and document (none for a deferred file's Cluster).
    pub(super) fn origin(&self) -> (&str, &str, &str, Option<usize>) {
        let doc = self.deferred.is_none().then_some(self.doc);
        (&self.namespace, &self.name, &self.file, doc)
    }
}

fn pending_of(o: InputObject, file: Arc<str>) -> std::result::Result<PendingCluster, InputObject> {
    use crate::topology::{input, obj, v1beta2};
    let v = &o.value;
    let topology_cluster = (input::is_cluster(v) || v1beta2::is_cluster(v))
        && obj::get(v, &["spec", "topology"]).is_some_and(|t| !t.is_null());
    if !topology_cluster {
        return Err(o);
    }
    let mut value = o.value;
    input::set_missing_namespaces(std::slice::from_mut(&mut value), "");
    let (namespace, name) = (
        obj::namespace(&value).to_string(),
        obj::name(&value).to_string(),
    );
    let class_namespace = crate::topology::class_unit::foreign_class_namespace(&value);
    let value = crate::model::compact::Compact::encode(&value);
    Ok(PendingCluster {
        namespace,
        name,
        hash: crate::model::sha256_hex(value.as_bytes()),
        value: Some(value),
        file,
        doc: o.doc,
        deferred: None,
        class_namespace,
    })
}

impl Inputs {
    pub fn from_objects(objects: Vec<InputObject>) -> Inputs {
        let mut inputs = Inputs::default();
        objects.into_iter().for_each(|o| inputs.push(o));
        inputs
    }

    pub fn push(&mut self, o: InputObject) {
        self.push_admitted(Inputs::admit(o))
    }

    /// An object checked ([`crate::admit::check_one`]) and, when it is a topology
    /// Cluster, compacted: what [`Inputs::push_admitted`] keeps. Pure, so the loader
    /// runs it on the thread that parsed the object
    /// ([`crate::load::load_paths_mapped`]): a fleet in one file is never held as
    /// parsed values.
    pub fn admit(o: InputObject) -> Admitted {
        let refused = crate::admit::check_one(&o).err();
        let file = Arc::from(o.file.as_str());
        Admitted {
            refused,
            item: pending_of(o, file),
        }
    }

    /// Keep an admitted object ([`Inputs::admit`]), in input order.
    pub fn push_admitted(&mut self, a: Admitted) {
        if self.refused.is_none() {
            self.refused = a.refused;
        }
        match a.item {
            Ok(mut p) => {
                if let Some(last) = self.clusters.last().filter(|l| *l.file == *p.file) {
                    p.file = last.file.clone();
                }
                self.counts.entry(p.file.to_string()).or_default().0 += 1;
                self.clusters.push(p);
            }
            Err(o) => {
                self.counts.entry(o.file.clone()).or_default().1 = true;
                self.objects.push(o);
            }
        }
    }

    /// An input file left unparsed ([`crate::load::Item::Deferred`]): the Clusters
    /// the previous run recorded for it, in file order.
    pub fn defer(&mut self, file: InputFile, clusters: Vec<RecordedCluster>) {
        self.counts
            .insert(file.path.clone(), (clusters.len(), false));
        let path: Arc<str> = Arc::from(file.path.as_str());
        let d = Arc::new(DeferredFile {
            file,
            parsed: Default::default(),
        });
        for (k, c) in clusters.into_iter().enumerate() {
            self.clusters.push(PendingCluster {
                namespace: c.namespace,
                name: c.name,
                value: None,
                hash: c.hash,
                file: path.clone(),
                doc: k,
                deferred: Some((d.clone(), k)),
                class_namespace: None,
            });
        }
    }
}
