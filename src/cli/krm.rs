//! `capi-render krm`: a KRM function (config.kubernetes.io/v1 `ResourceList` on stdin,
//! `ResourceList` on stdout), so kustomize can run capi-render as an exec generator.
//! On failure the output list carries an error `result` and the exit code is 1.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use capi_render::krm;
use capi_render::model::{RenderOptions, RenderSet};
use capi_render::render;
use capi_render::Error;
use clap::Args;

#[derive(Args, Debug)]
pub struct KrmArgs {}

fn render(
    text: &str,
    config: Option<&Path>,
    repository: Option<&Path>,
) -> Result<RenderSet, Error> {
    let req = krm::parse_resource_list(text)?;
    let fo = &req.options;
    // `..default()`: RenderOptions gains fields on other branches.
    #[allow(clippy::needless_update)]
    let opts = RenderOptions {
        repository: fo
            .repository
            .as_ref()
            .map(Into::into)
            .or_else(|| repository.map(Path::to_path_buf)),
        config: fo
            .config
            .as_ref()
            .map(Into::into)
            .or_else(|| config.map(Path::to_path_buf)),
        no_namespaces: fo.no_namespaces,
        oci_layout: fo.oci_layout.as_ref().map(Into::into),
        capi_version: fo.capi_version.clone(),
        // A config the functionConfig names is the kustomization's: its local paths
        // stay inside the kustomization's directory, as the function's own paths do.
        reads_inside: match fo.config {
            Some(_) => Some(std::env::current_dir().map_err(|e| {
                Error::new(format!("cannot tell the kustomization's directory: {e}"))
            })?),
            None => None,
        },
        ..RenderOptions::default()
    };
    let paths: Vec<std::path::PathBuf> = fo.inputs.iter().map(Into::into).collect();
    let items = krm::item_objects(&req.items);
    if items.is_empty() {
        return render::render_paths(&paths, &opts);
    }
    let mut loaded = capi_render::load::load_paths(&paths)?;
    loaded.objects.extend(items);
    render::render_objects(loaded.objects, loaded.files, &opts)
}

pub fn run(_a: &KrmArgs, config: Option<&Path>, repository: Option<&Path>) -> ExitCode {
    let read = capi_render::limits::read_stdin_text("the ResourceList on stdin", |e| {
        Error::new(format!("failed to read the ResourceList from stdin: {e}"))
    });
    let (out, code) = match read {
        Err(e) => {
            super::print_error(&e);
            (krm::error_list(&e), ExitCode::FAILURE)
        }
        Ok(text) => match render(&text, config, repository) {
            Ok(set) => {
                for w in &set.warnings {
                    super::ui::warn(w);
                }
                (krm::output_list(&set), ExitCode::SUCCESS)
            }
            Err(e) => {
                super::print_error(&e);
                (krm::error_list(&e), ExitCode::FAILURE)
            }
        },
    };
    let mut so = std::io::stdout().lock();
    if so
        .write_all(out.as_bytes())
        .and_then(|_| so.flush())
        .is_err()
    {
        return ExitCode::FAILURE;
    }
    code
}
