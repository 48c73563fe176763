//! Loading `render` inputs: files or directories (walked recursively for `*.yaml` /
//! `*.yml`, in sorted order), every YAML document parsed with Go's rules, every file
//! hashed (sha256) for the lock file.

use std::path::{Path, PathBuf};

use crate::model::sha256_hex;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::limits::{Limit, Meter};
use crate::model::{InputFile, InputObject};

mod stream;

/// The files and objects of one load.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub files: Vec<InputFile>,
    pub objects: Vec<InputObject>,
}

fn is_yaml_name(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("yaml") | Some("yml")
    )
}

/// The files named by `paths`: a file as is (whatever its extension), a directory
/// walked recursively for `*.yaml`/`*.yml`, sorted by path. Duplicates are kept once.
/// A directory without any such file is an error (a wrong path must not read as "no
/// inputs"). A symbolic link in a directory is followed only when it leads inside the
/// directory ([`walk_dir`]).
pub fn list_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    Ok(list_inputs(paths)?.into_iter().map(|(p, _)| p).collect())
}

/// [`list_files`], each with whether it was named itself (not found in a directory).
fn list_inputs(paths: &[PathBuf]) -> Result<Vec<(PathBuf, bool)>> {
    let mut out: Vec<(PathBuf, bool)> = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p)
            .map_err(|e| Error::new(format!("cannot read input {}: {e}", p.display())))?;
        if meta.is_dir() {
            let mut found = walk_dir(p)?;
            found.sort();
            if found.is_empty() {
                return Err(Error::new(format!(
                    "input directory {} holds no *.yaml or *.yml file; check the path",
                    p.display()
                )));
            }
            out.extend(found.into_iter().map(|f| (f, false)));
        } else {
            out.push((p.clone(), true));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|(p, _)| seen.insert(p.clone()));
    Ok(out)
}

/// The `*.yaml`/`*.yml` files of the directory `dir`, recursively (SECURITY.md: the
/// directory is trusted as a place, not what is inside it). A symbolic link that
/// leads outside `dir` (or nowhere) is an error naming it, never dropped in silence;
/// one that leads inside is followed: a link to a file is read under the link's name
/// unless its target is read anyway, a link to a directory adds nothing (the
/// directory is walked anyway).
fn walk_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    let root = dir
        .canonicalize()
        .map_err(|e| Error::new(format!("cannot read input {}: {e}", dir.display())))?;
    let mut found = Vec::new();
    let mut linked = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            Error::new(format!(
                "cannot walk input directory {}: {e}",
                dir.display()
            ))
        })?;
        let ft = entry.file_type();
        if ft.is_file() && is_yaml_name(entry.path()) {
            found.push(entry.into_path());
        } else if ft.is_symlink() {
            let link = entry.path();
            let refuse = |why: &str| {
                Error::new(format!(
                    "input directory {}: {} is a symbolic link {why}; capi-render reads only inside the directories named with -f",
                    dir.display(),
                    link.display()
                ))
                .in_file(link.display())
                .with_hint(format!(
                    "`readlink -f {}` shows where it leads: copy that file into {} in place of the link, or name it with its own -f if you trust it",
                    link.display(),
                    dir.display()
                ))
            };
            let target = match link.canonicalize() {
                Ok(t) => t,
                Err(_) if !is_yaml_name(link) => continue,
                Err(_) => return Err(refuse("that leads nowhere")),
            };
            let is_dir = target.is_dir();
            if !is_dir && !is_yaml_name(link) {
                continue;
            }
            if !target.starts_with(&root) {
                return Err(refuse("that leads outside the directory"));
            }
            if !is_dir {
                linked.push((entry.into_path(), target));
            }
        }
    }
    if !linked.is_empty() {
        let read: std::collections::BTreeSet<PathBuf> =
            found.iter().filter_map(|f| f.canonicalize().ok()).collect();
        let mut targets = std::collections::BTreeSet::new();
        for (link, target) in linked {
            if !read.contains(&target) && targets.insert(target) {
                found.push(link);
            }
        }
    }
    Ok(found)
}

/// Parse one file's text into objects; `doc` is the 0-based index among the file's
/// documents (empty documents count, so the index matches what an editor shows).
/// The file is its own run for the limits; see [`parse_file_in`].
pub fn parse_file(path: &str, text: &str) -> Result<Vec<InputObject>> {
    parse_file_in(path, text, &Meter::current())
}

/// [`parse_file`] counting documents, YAML nodes and alias expansions against the
/// run-wide limits of `meter`. The documents are counted before any is parsed, so a
/// file of a million tiny documents fails at once.
pub fn parse_file_in(path: &str, text: &str, meter: &Meter) -> Result<Vec<InputObject>> {
    parse_file_mapped(path, text, meter, &|o| o)
}

/// [`parse_file_in`], each object handed to `map` as soon as it is parsed, on the
/// thread that parsed it: only the mapped forms are collected (a fleet of Clusters in
/// one file is never held as parsed values all at once).
pub fn parse_file_mapped<T: Send>(
    path: &str,
    text: &str,
    meter: &Meter,
    map: &(dyn Fn(InputObject) -> T + Sync),
) -> Result<Vec<T>> {
    Ok(parse_docs(path, text, (0, 0), meter, map)?.1)
}

/// The documents of `text`, a part of file `path` that starts at a document and
/// follows `before` = (documents, lines) of the file ([`stream`]): how many documents
/// the part holds (empty ones included) and its objects through `map`.
fn parse_docs<T: Send>(
    path: &str,
    text: &str,
    (docs_before, lines_before): (usize, usize),
    meter: &Meter,
    map: &(dyn Fn(InputObject) -> T + Sync),
) -> Result<(usize, Vec<T>)> {
    use rayon::prelude::*;
    // Slices of the text, not copies (a fleet's Clusters file is tens of megabytes).
    let docs = crate::yaml::split::split_documents_at_borrowed(text)
        .map_err(|e| e.wrap(format!("{path}: failed to read yaml")).in_file(path))?;
    meter
        .charge(Limit::Documents, docs.len() as u64)
        .map_err(|e| e.wrap(path).in_file(path))?;
    let one = |i: usize, line: usize, doc: &str, meter: &Meter| {
        parse_document(path, docs_before + i, doc, lines_before + line, meter)
    };
    // A large file (a fleet's Clusters in one file) is parsed on all cores first, as
    // `yaml::read::parse_documents` does: when every document parses, each value is
    // the in-order one (a parse depends on the meter only through its caps, and the
    // run stayed within every limit); on any failure the counts go back and the file
    // is parsed again in order, so the error is the in-order one.
    if docs.len() > 1 && text.len() >= crate::yaml::read::PARALLEL_MIN_BYTES {
        let before = meter.counts();
        let all: Option<Vec<Option<T>>> = docs
            .par_iter()
            .enumerate()
            .map(|(i, (line, doc))| Some(one(i, *line, doc, meter).ok()?.map(map)))
            .collect();
        match all {
            Some(objs) => return Ok((docs.len(), objs.into_iter().flatten().collect())),
            None => meter.restore(before),
        }
    }
    let mut out = Vec::new();
    for (i, (line, doc)) in docs.iter().enumerate() {
        out.extend(one(i, *line, doc, meter)?.map(map));
    }
    Ok((docs.len(), out))
}

/// Document `i` of the file, counted against `meter`: `None` for an empty document.
/// Line numbers in errors count from the file's start.
fn parse_document(
    path: &str,
    i: usize,
    doc: &str,
    first_line: usize,
    meter: &Meter,
) -> Result<Option<InputObject>> {
    let v = crate::yaml::read::parse_value_at(doc, first_line, meter)
        .map_err(|e| e.wrap(format!("{path}, document {}", i + 1)).in_file(path))?;
    match v {
        Value::Null => Ok(None),
        Value::Object(_) => Ok(Some(InputObject {
            file: path.to_string(),
            doc: i,
            value: v,
        })),
        _ => Err(Error::new(format!(
            "{path}, document {}: a document must be a mapping (a Kubernetes object)",
            i + 1
        ))
        .in_file(path)),
    }
}

/// Read and parse every input path, within the process-wide [`crate::limits::Limits`].
pub fn load_paths(paths: &[PathBuf]) -> Result<Loaded> {
    load_paths_in(paths, &Meter::current())
}

/// Read and parse every input path, all of them one run for `meter`: bytes per file
/// and in total, documents, YAML nodes and alias expansions.
pub fn load_paths_in(paths: &[PathBuf], meter: &Meter) -> Result<Loaded> {
    let mut objects = Vec::new();
    let files = load_paths_with(paths, meter, &mut |o| {
        objects.push(o);
        Ok(())
    })?;
    Ok(Loaded { files, objects })
}

/// [`load_paths_in`], handing each object to `sink` as its file is parsed (a few
/// files' objects at a time are held here): the files read, with their sums.
///
/// Files are read and parsed a few at a time in parallel, each against a meter that
/// starts at the run's counts before the group, and their counts are then added in
/// file order. The first file of a group starts at exactly the counts a sequential
/// load would give it. A later file that failed, or whose counts take the run over a
/// limit, is parsed again against the exact sequential counts, so every result and
/// every error is the one a load of one file after the other gives (a limit only
/// changes a parse when it is breached).
pub fn load_paths_with(
    paths: &[PathBuf],
    meter: &Meter,
    sink: &mut dyn FnMut(InputObject) -> Result<()>,
) -> Result<Vec<InputFile>> {
    load_paths_deferring(paths, meter, &|_, _| false, &mut |l| match l {
        Item::Object(o) => sink(o),
        Item::Deferred(_) => Ok(()),
    })
}

/// What [`load_paths_deferring`] hands on, in file order: an object (or what
/// [`load_paths_mapped`]'s `map` made of it), or a file left unparsed.
pub enum Item<T = InputObject> {
    Object(T),
    /// A file read and summed but not parsed: `defer` accepted its path and sha256.
    Deferred(InputFile),
}

/// [`load_paths_with`], except that a file for which `defer(path, sha256)` holds is
/// read and summed but not parsed (the caller knows its objects from an earlier run:
/// an unchanged file of Clusters). Such a file counts its bytes toward the run's
/// total, not its documents or YAML nodes: it was parsed within the limits when it
/// was recorded, and parsing it again is what this skips.
pub fn load_paths_deferring(
    paths: &[PathBuf],
    meter: &Meter,
    defer: &(dyn Fn(&str, &str) -> bool + Sync),
    sink: &mut dyn FnMut(Item) -> Result<()>,
) -> Result<Vec<InputFile>> {
    load_paths_mapped(paths, meter, defer, &|o| o, sink)
}

/// [`load_paths_deferring`], each object handed to `map` on the thread that parsed it
/// ([`parse_file_mapped`]) and its result to `sink`: a caller that keeps objects in a
/// smaller form (render's compact Clusters) never holds a whole file's parsed values.
pub fn load_paths_mapped<T: Send>(
    paths: &[PathBuf],
    meter: &Meter,
    defer: &(dyn Fn(&str, &str) -> bool + Sync),
    map: &(dyn Fn(InputObject) -> T + Sync),
    sink: &mut dyn FnMut(Item<T>) -> Result<()>,
) -> Result<Vec<InputFile>> {
    use rayon::prelude::*;
    let inputs = list_inputs(paths)?;
    let mut files = Vec::with_capacity(inputs.len());
    let hand_on =
        |file: InputFile, objs: Option<Vec<T>>, sink: &mut dyn FnMut(Item<T>) -> Result<()>| {
            crate::limits::memory::check(&file.path, String::new)?;
            match objs {
                None => sink(Item::Deferred(file)),
                Some(objs) => objs.into_iter().try_for_each(|o| sink(Item::Object(o))),
            }
        };
    // Files are read one after the other until they add up to SEQUENTIAL_BYTES: a few
    // small inputs (`topology plan` of a ClusterClass and a Cluster) never start the
    // thread pool, whose threads cost more than such a parse.
    let start = meter.counts()[0];
    let mut next = 0;
    while let Some((f, named)) = inputs.get(next) {
        if meter.counts()[0].saturating_sub(start) >= SEQUENTIAL_BYTES {
            break;
        }
        let (file, objs) = load_one(f, *named, meter, defer, map)?;
        files.push(file.clone());
        hand_on(file, objs, sink)?;
        next += 1;
    }
    let group = rayon::current_num_threads().max(1) * 2;
    for chunk in inputs[next..].chunks(group) {
        let before = meter.counts();
        let parsed: Vec<(Result<OneFile<T>>, [u64; 5])> = chunk
            .par_iter()
            .map(|(f, named)| {
                let m = meter.starting_at(before);
                let r = load_one(f, *named, &m, defer, map);
                (r, m.counts())
            })
            .collect();
        for (i, ((r, after), (f, named))) in parsed.into_iter().zip(chunk).enumerate() {
            let counts = meter.counts();
            let delta: [u64; 5] = std::array::from_fn(|k| after[k].saturating_sub(before[k]));
            let total: [u64; 5] = std::array::from_fn(|k| counts[k].saturating_add(delta[k]));
            let exact = i == 0 || (r.is_ok() && meter.within(total));
            let (file, objs) = if exact {
                let loaded = r?;
                meter.restore(total);
                loaded
            } else {
                load_one(f, *named, meter, defer, map)?
            };
            files.push(file.clone());
            hand_on(file, objs, sink)?;
        }
    }
    Ok(files)
}

/// The bytes of input read in order before files are read on the thread pool.
const SEQUENTIAL_BYTES: u64 = 256 * 1024;

/// One input file read: its sum and its objects (`None`: deferred, not parsed).
type OneFile<T> = (InputFile, Option<Vec<T>>);

/// Read and parse one input file (`named`: given itself, not found in a directory).
fn load_one<T: Send>(
    f: &Path,
    named: bool,
    meter: &Meter,
    defer: &(dyn Fn(&str, &str) -> bool + Sync),
    map: &(dyn Fn(InputObject) -> T + Sync),
) -> Result<OneFile<T>> {
    let shown = f.display().to_string();
    if is_large(f, meter) {
        return load_large(f, &shown, named, meter, defer, map);
    }
    let bytes = crate::limits::read_file_within(f, &shown, meter.limits().file_bytes, |e| {
        Error::new(format!("cannot read input {shown}: {e}"))
    })?;
    meter
        .charge(Limit::TotalBytes, bytes.len() as u64)
        .map_err(|e| e.wrap(&shown).in_file(&shown))?;
    let file = InputFile {
        path: shown.clone(),
        sha256: sha256_hex(&bytes),
    };
    if defer(&file.path, &file.sha256) {
        return Ok((file, None));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::new(format!("{shown}: not valid UTF-8")).in_file(&shown))?;
    let objs = parse_file_mapped(&shown, &text, meter, map)?;
    drop(text);
    if named && objs.is_empty() {
        return Err(empty_file(&shown));
    }
    Ok((file, Some(objs)))
}

/// [`load_one`] of a file of [`stream::STREAM_BYTES`] or more: summed, then (unless
/// deferred) parsed a part at a time.
fn load_large<T: Send>(
    f: &Path,
    shown: &str,
    named: bool,
    meter: &Meter,
    defer: &(dyn Fn(&str, &str) -> bool + Sync),
    map: &(dyn Fn(InputObject) -> T + Sync),
) -> Result<OneFile<T>> {
    let (sha256, size) = stream::sum(f, shown, meter.limits().file_bytes)?;
    meter
        .charge(Limit::TotalBytes, size)
        .map_err(|e| e.wrap(shown).in_file(shown))?;
    let file = InputFile {
        path: shown.to_string(),
        sha256,
    };
    if defer(&file.path, &file.sha256) {
        return Ok((file, None));
    }
    let objs = stream::parse(f, shown, &file.sha256, meter, map)?;
    if named && objs.is_empty() {
        return Err(empty_file(shown));
    }
    Ok((file, Some(objs)))
}

/// A regular file of [`stream::STREAM_BYTES`] or more, within the file limit (a file
/// over it is refused by the whole-file read, which names its size).
fn is_large(f: &Path, meter: &Meter) -> bool {
    std::fs::metadata(f).is_ok_and(|m| {
        m.is_file() && m.len() >= stream::STREAM_BYTES && m.len() <= meter.limits().file_bytes
    })
}

/// Parse the input file `f` (shown as `shown`) again, as a run that recorded its sum
/// `sha256` read it, each object through `map` on the thread that parsed it; a file
/// whose sum is no longer `sha256` is an error. A large file is read a part at a time.
pub fn parse_again<T: Send>(
    f: &Path,
    shown: &str,
    sha256: &str,
    meter: &Meter,
    map: &(dyn Fn(InputObject) -> T + Sync),
) -> Result<Vec<T>> {
    if is_large(f, meter) {
        return stream::parse(f, shown, sha256, meter, map);
    }
    let changed = || changed_during_run(shown);
    let bytes = crate::limits::read_file_within(f, shown, meter.limits().file_bytes, |e| {
        Error::new(format!("cannot read input {shown}: {e}"))
    })?;
    if sha256_hex(&bytes) != sha256 {
        return Err(changed());
    }
    let text = String::from_utf8(bytes).map_err(|_| changed())?;
    parse_file_mapped(shown, &text, meter, map)
}

/// The error for an input whose bytes are no longer those its sum was taken of.
pub fn changed_during_run(shown: &str) -> Error {
    Error::new(format!(
        "{shown}: the input changed while capi-render was running; run it again"
    ))
    .in_file(shown)
}

fn empty_file(shown: &str) -> Error {
    Error::new(format!(
        "{shown}: no Kubernetes object in this file (it is empty or holds only comments); remove it from the inputs"
    ))
    .in_file(shown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limits;

    #[test]
    fn sha256_of_known_text() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn documents_keep_their_index() {
        let objs = parse_file("x.yaml", "a: 1\n---\n---\n# only a comment\n---\nb: 2\n").unwrap();
        assert_eq!(objs.len(), 2);
        assert_eq!(objs[0].doc, 0);
        // The empty document between two separators is not a document at all
        // (apimachinery's reader); the comment-only one is.
        assert_eq!(objs[1].doc, 2);
    }

    /// Loading in parallel groups gives what loading one file after the other gives:
    /// the same objects and counts, and a run-wide limit breached in a later file of a
    /// group names that file, with the sequential counts.
    #[test]
    fn parallel_loading_is_sequential_loading() {
        let dir = std::env::temp_dir().join(format!("capi-render-load-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let doc =
            |i: usize| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n---\n");
        for f in 0..7 {
            let text: String = (0..3).map(|i| doc(f * 10 + i)).collect();
            std::fs::write(dir.join(format!("f{f}.yaml")), text).unwrap();
        }
        let paths = [dir.clone()];
        let sequential = |m: &Meter| -> (Vec<InputObject>, Result<()>) {
            let mut objs = Vec::new();
            let mut r = Ok(());
            for (f, named) in list_inputs(&paths).unwrap() {
                match load_one(&f, named, m, &|_, _| false, &|o| o) {
                    Ok((_, o)) => objs.extend(o.unwrap_or_default()),
                    Err(e) => {
                        r = Err(e);
                        break;
                    }
                }
            }
            (objs, r)
        };
        let parallel = |m: &Meter| -> (Vec<InputObject>, Result<()>) {
            let mut objs = Vec::new();
            let r = load_paths_with(&paths, m, &mut |o| {
                objs.push(o);
                Ok(())
            })
            .map(|_| ());
            (objs, r)
        };
        // Without a breach, and with the document limit breached in the 4th file or the
        // node limit in the 2nd (on 2 cores, groups of 4 files: later files of a group).
        for (documents, nodes) in [(250_000, 40_000_000), (10, 40_000_000), (250_000, 40)] {
            let limits = Limits {
                documents,
                yaml_nodes: nodes,
                ..Limits::default()
            };
            let (a, b) = (Meter::new(limits), Meter::new(limits));
            let (sa, ra) = sequential(&a);
            let (pa, rb) = parallel(&b);
            assert_eq!(ra, rb, "documents {documents}, nodes {nodes}");
            assert_eq!(ra.is_err(), documents == 10 || nodes == 40);
            if ra.is_ok() {
                assert_eq!(sa, pa);
                assert_eq!(a.counts(), b.counts());
            } else {
                assert!(pa.len() <= sa.len() + 3);
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A large file parses on all cores to what one document after the other gives:
    /// the same objects and counts; a run-wide limit breached part way, or two broken
    /// documents, give the first error in document order, with the in-order counts.
    #[test]
    fn a_large_file_parses_as_one_document_after_another() {
        let doc = |i: usize| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: \"{}\"\n---\n",
                "x".repeat(2000)
            )
        };
        let many: String = (0..400).map(doc).collect();
        assert!(many.len() > 8 * crate::yaml::read::PARALLEL_MIN_BYTES);
        let sequential = |text: &str, m: &Meter| -> Result<Vec<InputObject>> {
            let docs = crate::yaml::split::split_documents_at(text)?;
            m.charge(Limit::Documents, docs.len() as u64)?;
            let mut out = Vec::new();
            for (i, (line, d)) in docs.iter().enumerate() {
                out.extend(parse_document("f.yaml", i, d, *line, m)?);
            }
            Ok(out)
        };
        // Each document has 13 nodes: the node limit runs out in document 201.
        for nodes in [40_000_000, 13 * 200 + 4] {
            let limits = Limits {
                yaml_nodes: nodes,
                ..Limits::default()
            };
            let (a, b) = (Meter::new(limits), Meter::new(limits));
            let want = sequential(&many, &a);
            let got = parse_file_in("f.yaml", &many, &b);
            assert_eq!(got, want, "nodes {nodes}");
            assert_eq!(a.counts(), b.counts());
            if nodes < 1_000_000 {
                assert!(got.unwrap_err().message().contains("document 201:"));
            } else {
                assert_eq!(got.unwrap().len(), 400);
            }
        }
        // Two broken documents: the first one is named.
        let broken: String = (0..400)
            .map(|i| match i {
                150 | 390 => "a: [\n---\n".to_string(),
                _ => doc(i),
            })
            .collect();
        let m = Meter::new(Limits::default());
        let e = parse_file_in("f.yaml", &broken, &m).unwrap_err();
        assert_eq!(
            Err(e.clone()),
            sequential(&broken, &Meter::new(Limits::default()))
        );
        assert!(e.message().starts_with("f.yaml, document 151:"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn links_in_a_directory_are_followed_inside_it_and_refused_outside() {
        use std::os::unix::fs::symlink;
        let d = std::env::temp_dir().join(format!("capi-render-load-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("in/data")).unwrap();
        std::fs::write(d.join("in/a.yaml"), "a: 1\n").unwrap();
        std::fs::write(d.join("in/data/b.txt"), "b: 2\n").unwrap();
        std::fs::write(d.join("outside.yaml"), "c: 3\n").unwrap();
        // Inside: a link to a file read anyway adds nothing; one to another file is
        // read under its name; one to a directory adds nothing.
        symlink(d.join("in/a.yaml"), d.join("in/again.yaml")).unwrap();
        symlink("data/b.txt", d.join("in/b.yaml")).unwrap();
        symlink("data", d.join("in/data2")).unwrap();
        let files = list_files(&[d.join("in")]).unwrap();
        assert_eq!(files, vec![d.join("in/a.yaml"), d.join("in/b.yaml")]);
        for (name, target) in [
            ("out.yaml", d.join("outside.yaml")),
            ("outdir", d.clone()),
            ("gone.yaml", d.join("missing.yaml")),
        ] {
            symlink(&target, d.join("in").join(name)).unwrap();
            let e = list_files(&[d.join("in")]).unwrap_err();
            assert!(
                e.message().contains(&format!(
                    "{} is a symbolic link",
                    d.join("in").join(name).display()
                )),
                "{e}"
            );
            std::fs::remove_file(d.join("in").join(name)).unwrap();
        }
        // Links that are not YAML files and lead nowhere are not inputs.
        symlink(d.join("missing"), d.join("in/notes.txt")).unwrap();
        assert_eq!(list_files(&[d.join("in")]).unwrap().len(), 2);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn non_mapping_document_is_an_error_naming_file_and_document() {
        let e = parse_file("f.yaml", "a: 1\n---\n- x\n").unwrap_err();
        assert!(e.message().starts_with("f.yaml, document 2:"), "{e}");
        let e = parse_file("f.yaml", "a: [\n").unwrap_err();
        assert!(e.message().starts_with("f.yaml, document 1:"), "{e}");
    }
}
