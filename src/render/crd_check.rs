//! `render`'s inputs checked against the CRDs its providers install ([`crate::validate`]).

use std::borrow::Cow;

use super::Inputs;
use crate::model::{InputObject, RenderedUnit};

/// The input objects checked against the CRDs the rendered providers install
/// ([`crate::validate`]): every problem is an error (all of them in one), a kind with
/// no CRD is not reported yet. A deferred file's Clusters (unchanged since the last run) are not
/// read again. Nothing with `--no-validate` (`off`).
pub(super) fn validate_inputs(
    inputs: &Inputs,
    providers: &[RenderedUnit],
    off: bool,
) -> crate::Result<Vec<String>> {
    if off {
        return Ok(Vec::new());
    }
    let index = crate::validate::CrdIndex::from_objects(providers.iter().flat_map(|u| &u.objects));
    // One topology Cluster decoded at a time: a fleet's Clusters stay compact.
    let clusters = inputs.clusters.iter().filter_map(|c| {
        c.value.as_ref().map(|v| InputObject {
            file: c.file.to_string(),
            doc: c.doc,
            value: v.decode(),
        })
    });
    let objects = inputs.objects.iter().map(Cow::Borrowed);
    let (errors, warnings) =
        crate::validate::check_objects(objects.chain(clusters.map(Cow::Owned)), &index);
    // The no-CRD warnings are not printed yet: every page and test that renders the
    // synthetic quick-start providers (no Cluster CRD) would change; `check_objects`
    // returns them for the caller that prints them.
    let _ = warnings;
    if errors.is_empty() {
        return Ok(Vec::new());
    }
    Err(crate::Error::new(format!(
        "{} problem(s) against the CRDs the tree installs (the API server would refuse these objects on apply):\n{}",
        errors.len(),
        errors.join("\n")
    ))
    .with_hint("fix each field named above; or pass --no-validate to skip this check"))
}
