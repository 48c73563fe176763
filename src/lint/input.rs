//! Reading what `lint` is given: only the named folders and files, never through a
//! symbolic link (a link is a finding, not followed), each file within the input
//! limits (`limits::read_text`, one `Meter` per run). A file that cannot be read or
//! parsed is a `file-invalid` finding and the rules see none of its documents.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{file_finding, label_type, Doc, File, Finding, Release, Severity};
use crate::error::{Error, Result};
use crate::limits::{Limit, Meter};

/// The releases under `dir` and the findings of reading them.
///
/// `dir` is a release folder when it holds `metadata.yaml` or a `*-components.yaml`
/// (its label is the parent folder's name), a provider folder when one of its
/// folders is a version (`v` and a digit), else a repository (each folder a label).
pub fn read_provider(dir: &Path) -> Result<(Vec<Release>, Vec<Finding>)> {
    let meta = std::fs::metadata(dir)
        .map_err(|e| Error::new(format!("--provider {}: {e}", dir.display())))?;
    if !meta.is_dir() {
        return Err(Error::new(format!(
            "--provider {}: not a directory (a release folder <label>/<version>/, a provider folder or a repository)",
            dir.display()
        )));
    }
    let meter = Meter::current();
    let mut findings = Vec::new();
    let mut releases = Vec::new();
    let entries = list(dir, &mut findings, "")?;
    let is_release = entries
        .iter()
        .any(|(n, d)| !d && (n == "metadata.yaml" || n.ends_with("-components.yaml")));
    let is_provider = entries.iter().any(|(n, d)| *d && looks_like_version(n));
    if is_release {
        let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let name = |p: Option<&Path>| {
            p.and_then(Path::file_name)
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let version = name(Some(&abs));
        let label = name(abs.parent());
        releases.push(read_release(
            dir,
            "",
            &label,
            &version,
            &meter,
            &mut findings,
        )?);
    } else if is_provider {
        let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let label = abs
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        read_label(
            dir,
            "",
            &label,
            &entries,
            &meter,
            &mut releases,
            &mut findings,
        )?;
    } else {
        for (label, is_dir) in &entries {
            if !is_dir || label == "cert-manager" {
                continue;
            }
            let sub = dir.join(label);
            let subs = list(&sub, &mut findings, label)?;
            read_label(
                &sub,
                label,
                label,
                &subs,
                &meter,
                &mut releases,
                &mut findings,
            )?;
        }
    }
    Ok((releases, findings))
}

fn looks_like_version(n: &str) -> bool {
    n.strip_prefix('v')
        .and_then(|r| r.chars().next())
        .is_some_and(|c| c.is_ascii_digit())
}

fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_string()
    } else {
        format!("{rel}/{name}")
    }
}

fn read_label(
    dir: &Path,
    rel: &str,
    label: &str,
    entries: &[(String, bool)],
    meter: &Meter,
    releases: &mut Vec<Release>,
    findings: &mut Vec<Finding>,
) -> Result<()> {
    if label_type(label).is_none() {
        findings.push(
            file_finding(
                "provider-label",
                Severity::Warning,
                if rel.is_empty() { "." } else { rel },
                format!("folder {label:?} is not a provider manifest label"),
            )
            .with_hint("name it cluster-api, bootstrap-<name>, control-plane-<name>, infrastructure-<name>, ipam-<name>, runtime-extension-<name> or addon-<name>"),
        );
    }
    for (version, is_dir) in entries {
        if !is_dir {
            continue;
        }
        let r = join(rel, version);
        releases.push(read_release(
            &dir.join(version),
            &r,
            label,
            version,
            meter,
            findings,
        )?);
    }
    Ok(())
}

/// The entries of `dir` as (name, is a directory), sorted; symbolic links and names
/// that are not UTF-8 are findings and left out.
fn list(dir: &Path, findings: &mut Vec<Finding>, rel: &str) -> Result<Vec<(String, bool)>> {
    let rd = std::fs::read_dir(dir)
        .map_err(|e| Error::new(format!("failed to read {}: {e}", dir.display())))?;
    let mut out = Vec::new();
    for e in rd {
        let e = e.map_err(|e| Error::new(format!("failed to read {}: {e}", dir.display())))?;
        let Ok(name) = e.file_name().into_string() else {
            continue;
        };
        let ft = e
            .file_type()
            .map_err(|err| Error::new(format!("{}: {err}", e.path().display())))?;
        if ft.is_symlink() {
            findings.push(file_finding(
                "file-invalid",
                Severity::Error,
                &join(rel, &name),
                "is a symbolic link; lint reads only what is inside the given folder",
            ));
            continue;
        }
        out.push((name, ft.is_dir()));
    }
    out.sort();
    Ok(out)
}

fn read_release(
    dir: &Path,
    rel: &str,
    label: &str,
    version: &str,
    meter: &Meter,
    findings: &mut Vec<Finding>,
) -> Result<Release> {
    let mut files = Vec::new();
    for (name, is_dir) in list(dir, findings, rel)? {
        if is_dir || !(name.ends_with(".yaml") || name.ends_with(".yml")) {
            continue;
        }
        let shown = join(rel, &name);
        if let Some(f) = read_one(&dir.join(&name), &name, &shown, meter, findings) {
            files.push(f);
        }
    }
    Ok(Release {
        label: label.to_string(),
        provider_type: label_type(label),
        version: version.to_string(),
        rel: if rel.is_empty() {
            ".".into()
        } else {
            rel.into()
        },
        files,
        contract: None,
    })
}

/// Read and parse one file; a failure is a `file-invalid` finding and a file marked
/// `invalid` (no documents).
fn read_one(
    path: &Path,
    name: &str,
    shown: &str,
    meter: &Meter,
    findings: &mut Vec<Finding>,
) -> Option<File> {
    let invalid = |findings: &mut Vec<Finding>, e: Error, text: String| {
        findings.push(file_finding(
            "file-invalid",
            Severity::Error,
            shown,
            e.to_string(),
        ));
        Some(File {
            name: name.to_string(),
            rel: shown.to_string(),
            text,
            docs: vec![],
            invalid: true,
        })
    };
    let text = match crate::limits::read_text(path, shown, |e| Error::new(e.to_string())) {
        Ok(t) => t,
        Err(e) => return invalid(findings, e, String::new()),
    };
    match parse(&text, shown, meter) {
        Ok(docs) => Some(File {
            name: name.to_string(),
            rel: shown.to_string(),
            text,
            docs,
            invalid: false,
        }),
        Err(e) => invalid(findings, e, String::new()),
    }
}

/// The documents of a file (as clusterctl reads them: a repeated key keeps its last
/// value), with their index and first line.
pub fn parse(text: &str, shown: &str, meter: &Meter) -> Result<Vec<Doc>> {
    let docs = crate::yaml::split::split_documents_at(text)?;
    meter.charge(Limit::Documents, docs.len() as u64)?;
    let mut out = Vec::new();
    for (i, (line, doc)) in docs.iter().enumerate() {
        let v = crate::yaml::read::parse_value_lenient_in(doc, meter)
            .map_err(|e| e.wrap(format!("document {}", i + 1)))?;
        match v {
            Value::Null => {}
            Value::Object(_) => out.push(Doc {
                file: shown.to_string(),
                doc: i + 1,
                line: *line,
                value: v,
            }),
            _ => {
                return Err(Error::new(format!(
                    "document {}: a document must be a mapping (a Kubernetes object)",
                    i + 1
                )))
            }
        }
    }
    Ok(out)
}

/// The files of `paths` (a directory gives its `*.yaml` files, sorted, not
/// recursively), shown as given.
pub fn read_files(paths: &[PathBuf]) -> Result<(Vec<File>, Vec<Finding>)> {
    let meter = Meter::current();
    let mut findings = Vec::new();
    let mut files = Vec::new();
    for p in paths {
        let meta =
            std::fs::metadata(p).map_err(|e| Error::new(format!("-f {}: {e}", p.display())))?;
        let shown = p.display().to_string();
        if meta.is_dir() {
            let mut sub = Vec::new();
            for (name, is_dir) in list(p, &mut findings, &shown)? {
                if !is_dir && (name.ends_with(".yaml") || name.ends_with(".yml")) {
                    sub.push(name);
                }
            }
            for name in sub {
                let s = join(&shown, &name);
                if let Some(f) = read_one(&p.join(&name), &name, &s, &meter, &mut findings) {
                    files.push(f);
                }
            }
        } else {
            // A file named on the command line (a link too) is the user's own choice.
            let name = p
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Some(f) = read_one(p, &name, &shown, &meter, &mut findings) {
                files.push(f);
            }
        }
    }
    Ok((files, findings))
}
