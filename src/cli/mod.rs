//! Subcommands of the binary beyond the clusterctl-compatible ones in `main.rs`: each
//! file holds one command's clap arguments and a `run` that calls the library.

pub mod bundle;
pub mod diff;
pub mod help;
pub mod krm;
pub mod limits;
pub mod output;
pub mod render;
pub mod topology;
pub mod ui;
pub mod upgrade;

use capi_render::Error;

/// Print an error: the message, then the input file and the hint (what to do next)
/// on lines of their own, so the first line stays clusterctl's text.
pub fn print_error(e: &Error) {
    eprintln!("Error: {e}");
    if let Some(f) = e.source_file() {
        eprintln!("  in {f}");
    }
    if let Some(h) = e.hint() {
        eprintln!("  hint: {h}");
    }
}

/// `render::render_paths` (load, then render), telling with `-v` what was read and
/// what each provider resolved to, and printing the render's warnings (not with `-q`).
/// (An input that gives no unit is an error of the library: `admit`.)
pub fn render_inputs(
    paths: &[std::path::PathBuf],
    opts: &capi_render::render::RenderOptions,
) -> Result<capi_render::render::RenderSet, Error> {
    let loaded = capi_render::load::load_paths(paths)?;
    let set = capi_render::render::render_objects(loaded.objects, loaded.files, opts)?;
    if ui::is_verbose() {
        for f in &set.inputs {
            ui::verbose(&format!("read {} (sha256 {})", f.path, f.sha256));
        }
        for u in &set.units {
            match &u.kind {
                capi_render::render::UnitKind::Provider(p) => ui::verbose(&format!(
                    "{} {}/{}: version {}, contract {}, from {}",
                    p.kind, u.namespace, u.name, p.version, p.contract, p.source
                )),
                capi_render::render::UnitKind::Cluster => ui::verbose(&format!(
                    "Cluster {}/{}: {} objects",
                    u.namespace,
                    u.name,
                    u.objects.len()
                )),
            }
        }
    }
    for w in &set.warnings {
        ui::warn(w);
    }
    Ok(set)
}
