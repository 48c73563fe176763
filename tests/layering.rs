//! The import graph of `src/` flows one way (ARCHITECTURE "Layering"): no cycle between
//! top-level modules, none between the sibling files of any module, and the bottom
//! layer (`model`, `go`, `yaml`, ...) imports no stage.
//!
//! The graph is read from the source: `crate::a::b` paths, `super::` / `self::` paths
//! resolved against the file's own module, and `use` lists in braces. Comments and
//! `#[cfg(test)]` code do not count (a test may reach anywhere).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type ModPath = Vec<String>;

/// The bottom layer: these import only each other.
const FOUNDATION: &[&str] = &[
    "error", "model", "go", "limits", "yaml", "paths", "redact", "suggest", "progress",
];

struct Source {
    /// The file's module path (`src/a/b.rs` and `src/a/b/mod.rs` are `[a, b]`).
    module: ModPath,
    file: String,
    text: String,
}

fn module_of(rel: &Path) -> ModPath {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_string());
    }
    parts
}

/// The file without comments and without its test code.
fn production_text(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t == "#[cfg(test)]" && lines.peek().is_some_and(|n| n.trim() == "mod tests {") {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Files that are test modules declared elsewhere (`#[cfg(test)] mod golden_tests;`).
fn test_module_files(sources: &[Source]) -> BTreeSet<ModPath> {
    let mut set = BTreeSet::new();
    for s in sources {
        let mut lines = s.text.lines().peekable();
        while let Some(line) = lines.next() {
            if line.trim() == "#[cfg(test)]" {
                if let Some(next) = lines.peek() {
                    let n = next.trim();
                    if let Some(name) = n.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
                        let mut m = s.module.clone();
                        m.push(name.to_string());
                        set.insert(m);
                    }
                }
            }
        }
    }
    set
}

fn ident_at(s: &str) -> Option<&str> {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (end > 0).then(|| &s[..end])
}

/// The paths one file names: each as an absolute module path (possibly continuing into
/// an item name, which the caller ignores when no module has that name).
fn referenced(src: &Source) -> Vec<ModPath> {
    let text = production_text(&src.text);
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let prev_ok = i == 0 || {
            let p = bytes[i - 1];
            !(p.is_ascii_alphanumeric() || p == b'_' || p == b':')
        };
        let rest = &text[i..];
        let base: Option<(ModPath, usize)> = if !prev_ok {
            None
        } else if let Some(r) = rest.strip_prefix("crate::") {
            Some((Vec::new(), rest.len() - r.len()))
        } else if rest.starts_with("super::") || rest.starts_with("self::") {
            let mut m = src.module.clone();
            let mut r = rest;
            if let Some(x) = r.strip_prefix("self::") {
                r = x;
            }
            while let Some(x) = r.strip_prefix("super::") {
                m.pop();
                r = x;
            }
            Some((m, rest.len() - r.len()))
        } else {
            None
        };
        let Some((base, used)) = base else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let r = &rest[used..];
        if let Some(list) = r.strip_prefix('{') {
            let list = &list[..list.find('}').unwrap_or(list.len())];
            for item in list.split(',') {
                let mut p = base.clone();
                p.extend(id_path(item.trim()));
                out.push(p);
            }
        } else {
            let mut p = base;
            p.extend(id_path(r));
            out.push(p);
        }
        i += used.max(1);
    }
    out
}

/// `a::b::c` at the start of `s`, as segments.
fn id_path(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut r = s;
    while let Some(id) = ident_at(r) {
        out.push(id.to_string());
        match r[id.len()..].strip_prefix("::") {
            Some(x) => r = x,
            None => break,
        }
    }
    out
}

fn sources(root: &Path) -> Vec<Source> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(root).sort_by_file_name() {
        let e = e.unwrap();
        if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "rs") {
            let rel = e.path().strip_prefix(root).unwrap();
            out.push(Source {
                module: module_of(rel),
                file: rel.display().to_string(),
                text: std::fs::read_to_string(e.path()).unwrap(),
            });
        }
    }
    out
}

/// parent module -> (child -> (child it names -> a file that names it)).
type Graphs = BTreeMap<ModPath, BTreeMap<String, BTreeMap<String, String>>>;

fn graphs(sources: &[Source]) -> Graphs {
    let tests = test_module_files(sources);
    let modules: BTreeSet<ModPath> = sources.iter().map(|s| s.module.clone()).collect();
    let mut g = Graphs::new();
    for s in sources {
        if s.module.is_empty() || tests.iter().any(|t| s.module.starts_with(t)) {
            continue;
        }
        for target in referenced(s) {
            let k = s
                .module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if k >= s.module.len() || k >= target.len() {
                continue; // the module itself, an ancestor, or a descendant
            }
            if !modules.contains(&target[..=k]) {
                continue; // an item of the parent (a constant in mod.rs), not a module
            }
            g.entry(s.module[..k].to_vec())
                .or_default()
                .entry(s.module[k].clone())
                .or_default()
                .entry(target[k].clone())
                .or_insert_with(|| s.file.clone());
        }
    }
    g
}

/// Strongly connected components with more than one member (Tarjan).
fn cycles(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        edges: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        if let Some(ws) = t.edges.get(v) {
            for w in ws.keys() {
                if !t.index.contains_key(w.as_str()) {
                    visit(t, w);
                    let lw = t.low[w.as_str()];
                    t.low.insert(v, t.low[v].min(lw));
                } else if t.on.contains(w.as_str()) {
                    let iw = t.index[w.as_str()];
                    t.low.insert(v, t.low[v].min(iw));
                }
            }
        }
        if t.low[v] == t.index[v] {
            let mut c = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                c.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if c.len() > 1 {
                c.sort();
                t.out.push(c);
            }
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn describe(
    parent: &ModPath,
    edges: &BTreeMap<String, BTreeMap<String, String>>,
    c: &[String],
) -> String {
    let mut s = format!(
        "cycle in `crate::{}`: {}\n",
        parent.join("::"),
        c.join(", ")
    );
    for a in c {
        for (b, file) in &edges[a] {
            if c.contains(b) {
                s.push_str(&format!("  {a} -> {b} (src/{file})\n"));
            }
        }
    }
    s
}

fn src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_cycle_between_modules_or_sibling_files() {
    let g = graphs(&sources(&src()));
    assert!(
        g.get(&Vec::new()).is_some_and(|top| top.len() > 20),
        "the top-level graph was read"
    );
    let problems: Vec<String> = g
        .iter()
        .flat_map(|(parent, edges)| {
            cycles(edges)
                .into_iter()
                .map(move |c| describe(parent, edges, &c))
        })
        .collect();
    assert!(
        problems.is_empty(),
        "the import graph has cycles:\n{}",
        problems.join("")
    );
}

#[test]
fn the_bottom_layer_imports_no_stage() {
    let g = graphs(&sources(&src()));
    let top = &g[&Vec::new()];
    let mut bad = Vec::new();
    for m in FOUNDATION {
        for (to, file) in top.get(*m).into_iter().flatten() {
            if !FOUNDATION.contains(&to.as_str()) {
                bad.push(format!("{m} -> {to} (src/{file})"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "bottom-layer modules import stages:\n{}",
        bad.join("\n")
    );
    // `model` is the very bottom: only the error type.
    let model: Vec<&String> = top
        .get("model")
        .into_iter()
        .flat_map(|e| e.keys())
        .collect();
    assert!(
        model.iter().all(|m| *m == "error"),
        "model imports {model:?}"
    );
}

// The reader itself: a cycle planted in a scratch tree is found, with the files that
// make it; comments and test code are not edges.
#[test]
fn a_planted_cycle_is_found() {
    let dir = std::env::temp_dir().join(format!("capi-layering-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::create_dir_all(dir.join("b")).unwrap();
    let w = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
    w("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n");
    w("a/mod.rs", "mod x;\nmod y;\nuse crate::b::Thing;\n");
    w("a/x.rs", "use super::{y, other};\n// use crate::c::Z;\n");
    w("a/y.rs", "fn f() { super::x::g() }\n");
    w("b/mod.rs", "pub struct Thing;\nuse crate::{c};\n");
    w(
        "c.rs",
        "pub struct Z;\n#[cfg(test)]\nmod tests {\n    use crate::a::X;\n}\n",
    );
    let g = graphs(&sources(&dir));
    let top = &g[&Vec::new()];
    assert!(cycles(top).is_empty(), "{top:?}");
    assert_eq!(top["a"].keys().collect::<Vec<_>>(), ["b"]);
    assert_eq!(top["b"].keys().collect::<Vec<_>>(), ["c"]);
    assert!(!top.contains_key("c"), "test code is not an edge");
    let inner = &g[&vec!["a".to_string()]];
    assert_eq!(cycles(inner), vec![vec!["x".to_string(), "y".to_string()]]);
    assert!(describe(&vec!["a".into()], inner, &cycles(inner)[0]).contains("x -> y (src/a/x.rs)"));
    w("c.rs", "use crate::a::X;\n");
    let g = graphs(&sources(&dir));
    assert_eq!(
        cycles(&g[&Vec::new()]),
        vec![vec!["a", "b", "c"]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Files stay small enough to read in one sitting, in `src/` and `tests/`; the
/// exceptions are named.
#[test]
fn no_source_file_over_800_lines() {
    // The Go template parser mirrors text/template/parse in one file on purpose.
    const EXEMPT: &[&str] = &["src/gotemplate/parse.rs"];
    let tests_dir = src().parent().unwrap().join("tests");
    let long: Vec<String> = [("src", sources(&src())), ("tests", sources(&tests_dir))]
        .iter()
        .flat_map(|(dir, files)| files.iter().map(move |s| (format!("{dir}/{}", s.file), s)))
        .filter(|(path, _)| !EXEMPT.contains(&path.as_str()))
        .filter_map(|(path, s)| {
            let n = s.text.lines().count();
            (n > 800).then(|| format!("{path}: {n} lines"))
        })
        .collect();
    assert!(long.is_empty(), "split these files:\n{}", long.join("\n"));
}
