//! Limits for untrusted inputs (README "Limits"), one regression test per hostile
//! input of the hardening issue: each fails cleanly, naming the file (and document)
//! and the flag that raises the limit. The binary is run as a user runs it.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::json;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_capi-render"))
}

/// `capi-render render -f FILE --stdout`.
fn render_stdout(f: &Path) -> Output {
    bin()
        .arg("render")
        .arg("-f")
        .arg(f)
        .arg("--stdout")
        .output()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("capi-render-limits-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A clean failure: non-zero exit, no panic, the error names `file` and `flag`, and
/// the whole output stays short (no quoted megabytes).
fn assert_limit_error(o: &Output, file: &str, flag: &str) {
    let t = text(o);
    assert!(!o.status.success(), "expected a failure, got: {t:.2000}");
    assert!(!t.contains("panicked"), "{t:.2000}");
    assert!(t.contains(file), "error does not name {file}: {t:.2000}");
    assert!(t.contains(flag), "error does not name {flag}: {t:.2000}");
    assert!(t.len() < 16 * 1024, "{} bytes of output", t.len());
}

/// Billion laughs, four levels of ten: 11,110 nodes from a few hundred bytes.
fn alias_bomb() -> String {
    let mut d = String::from("kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\ndata:\n  a: &a [x,x,x,x,x,x,x,x,x,x]\n");
    let mut prev = 'a';
    for c in ['b', 'c', 'd', 'e'] {
        d.push_str(&format!(
            "  {c}: &{c} [{}]\n",
            vec![format!("*{prev}"); 10].join(",")
        ));
        prev = c;
    }
    d
}

// Finding 3: the alias budget was per document; 200 documents of amplification took
// 52 s and 7.7 GB.
#[test]
fn alias_amplification_across_documents_is_limited_for_the_whole_run() {
    let d = scratch("alias");
    let f = d.join("bombs.yaml");
    fs::write(&f, vec![alias_bomb(); 200].join("---\n")).unwrap();
    let o = render_stdout(&f);
    assert_limit_error(&o, "bombs.yaml, document ", "--max-yaml-alias-nodes");
    // Within one document nothing changed, and the flag raises the limit.
    let one = d.join("one.yaml");
    fs::write(&one, vec![alias_bomb(); 2].join("---\n")).unwrap();
    let o = bin()
        .args(["--max-yaml-alias-nodes", "10"])
        .arg("render")
        .arg("-f")
        .arg(&one)
        .arg("--stdout")
        .output()
        .unwrap();
    assert_limit_error(&o, "one.yaml, document 1", "--max-yaml-alias-nodes");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn big_scalar_aliases_are_limited_in_bytes() {
    let d = scratch("alias-bytes");
    let f = d.join("big.yaml");
    let big = "y".repeat(1 << 20);
    let doc = format!(
        "kind: ConfigMap\napiVersion: v1\nmetadata: {{name: x}}\ndata:\n  s: &s {big}\n  l: [{}]\n",
        vec!["*s"; 64].join(",")
    );
    fs::write(&f, doc).unwrap();
    let o = render_stdout(&f);
    assert_limit_error(&o, "big.yaml, document 1", "--max-yaml-alias-bytes");
    let _ = fs::remove_dir_all(&d);
}

// Finding 7: 400,000 tiny documents (34 MB) took 12 s and 1.3 GB.
#[test]
fn a_flood_of_tiny_documents_is_refused_before_parsing() {
    let d = scratch("docs");
    let f = d.join("many.yaml");
    let mut w = std::io::BufWriter::new(fs::File::create(&f).unwrap());
    for i in 0..400_000 {
        writeln!(w, "---\na: {i}").unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let o = render_stdout(&f);
    assert_limit_error(&o, "many.yaml", "--max-documents");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn input_files_are_limited_in_bytes_one_by_one_and_in_total() {
    let d = scratch("bytes");
    let f = d.join("x.yaml");
    fs::write(&f, format!("a: {}\n", "b".repeat(4096))).unwrap();
    let o = bin()
        .args(["--max-file-bytes", "1Ki", "render", "-f"])
        .arg(&f)
        .arg("--stdout")
        .output()
        .unwrap();
    assert_limit_error(&o, "x.yaml", "--max-file-bytes");
    assert!(
        text(&o).contains("4100 bytes is over the input file limit of 1024 bytes"),
        "{}",
        text(&o)
    );
    let g = d.join("y.yaml");
    fs::write(&g, format!("a: {}\n", "b".repeat(4096))).unwrap();
    let o = bin()
        .args(["--max-total-bytes", "6Ki", "render", "-f"])
        .arg(&f)
        .arg("-f")
        .arg(&g)
        .arg("--stdout")
        .output()
        .unwrap();
    assert_limit_error(&o, "y.yaml", "--max-total-bytes");
    let _ = fs::remove_dir_all(&d);
}

// Finding 5: `generate cluster --from /dev/zero` read until memory ran out.
#[cfg(unix)]
#[test]
fn generate_cluster_from_an_endless_file_stops_at_the_file_limit() {
    let o = bin()
        .args([
            "generate",
            "cluster",
            "c",
            "-n",
            "ns",
            "-i",
            "docker:v1.0.0",
        ])
        .args(["--from", "/dev/zero"])
        .output()
        .unwrap();
    assert_limit_error(&o, "/dev/zero", "--max-file-bytes");
    // stdin too.
    let mut c = bin()
        .args([
            "--max-file-bytes",
            "64Ki",
            "generate",
            "cluster",
            "c",
            "-n",
            "ns",
        ])
        .args(["-i", "docker:v1.0.0", "--from", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = c.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let chunk = vec![b'a'; 1 << 16];
        // The reader stops early; the broken pipe ends the feeding.
        for _ in 0..64 {
            if stdin.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let o = c.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_limit_error(&o, "stdin", "--max-file-bytes");
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

fn b64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// A provider ConfigMap in the operator's format whose gzip components inflate to
/// 64 MiB of zeros (twice the default per-ConfigMap limit).
fn gzip_bomb_configmap() -> serde_json::Value {
    let zeros = vec![0u8; 64 << 20];
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "v1.10.10", "namespace": "capi-system",
            "labels": {"provider.cluster.x-k8s.io/type": "core", "provider.cluster.x-k8s.io/name": "cluster-api",
                       "provider.cluster.x-k8s.io/version": "v1.10.10", "capi-render-test": "bomb"},
            "annotations": {"provider.cluster.x-k8s.io/compressed": "true"}},
        "data": {"metadata": "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 10\n  contract: v1beta1\n"},
        "binaryData": {"components": b64(&gzip(&zeros))},
    })
}

// Finding 4: a ConfigMap's gzip binaryData was inflated without limit (1.4 MB of input,
// 4.3 GB of memory), and the provider then rendered with no components.
#[test]
fn a_gzip_bomb_in_a_provider_configmap_is_refused() {
    let d = scratch("gzip");
    let cm = gzip_bomb_configmap();
    let cr = json!({"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": "CoreProvider",
        "metadata": {"name": "cluster-api", "namespace": "capi-system"},
        "spec": {"version": "v1.10.10", "fetchConfig": {"selector": {"matchLabels": {"capi-render-test": "bomb"}}}}});
    let f = d.join("providers.yaml");
    fs::write(&f, format!("{}\n---\n{}\n", cm, cr)).unwrap();
    let o = render_stdout(&f);
    assert_limit_error(&o, "capi-system/v1.10.10", "--max-gzip-bytes");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn bundle_verify_refuses_a_gzip_bomb() {
    let d = scratch("bundle");
    fs::create_dir_all(d.join("configmaps/capi-system")).unwrap();
    let body = format!("{}\n", gzip_bomb_configmap());
    fs::write(
        d.join("configmaps/capi-system/core-cluster-api-v1.10.10.yaml"),
        &body,
    )
    .unwrap();
    let sum = {
        use sha2::Digest;
        let h = sha2::Sha256::digest(body.as_bytes());
        h.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    fs::write(
        d.join("SHA256SUMS"),
        format!("{sum}  configmaps/capi-system/core-cluster-api-v1.10.10.yaml\n"),
    )
    .unwrap();
    let o = bin().args(["bundle", "verify"]).arg(&d).output().unwrap();
    assert_limit_error(&o, "core-cluster-api-v1.10.10.yaml", "--max-gzip-bytes");
    // The per-bundle limit, when it is the smaller one, is named instead.
    let o = bin()
        .args(["--max-bundle-gzip-bytes", "1Mi", "bundle", "verify"])
        .arg(&d)
        .output()
        .unwrap();
    assert_limit_error(
        &o,
        "core-cluster-api-v1.10.10.yaml",
        "--max-bundle-gzip-bytes",
    );
    let _ = fs::remove_dir_all(&d);
}

// Finding 6: `{{ printf "%0999999999d" 1 }}` allocated a gigabyte (Go prints
// `%!(NOVERB)`); a string-doubling loop grew without bound.
#[test]
fn printf_width_bombs_print_what_go_prints() {
    let out =
        capi_render::gotemplate::execute(r#"{{ printf "%0999999999d" 1 }}"#, &json!({})).unwrap();
    assert_eq!(out, "%!(NOVERB)%!(EXTRA int=1)");
}

#[test]
fn a_string_doubling_template_stops_at_the_output_limit() {
    // 2^26 bytes (64 MiB) if it ran to the end; the default limit is 16 MiB.
    let t = r#"{{ $s := "ab" }}{{ range until 25 }}{{ $s = printf "%s%s" $s $s }}{{ end }}{{ len $s }}"#;
    let e = capi_render::gotemplate::execute(t, &json!({})).unwrap_err();
    assert!(e.message().contains("--max-template-bytes"), "{e}");
    assert!(e.message().len() < 1024, "{} bytes", e.message().len());
    // Many wide verbs in one printf stop there too.
    let t = format!(
        "{{{{ printf \"{}\" {} }}}}",
        "%9999999d".repeat(20),
        vec!["1"; 20].join(" ")
    );
    let e = capi_render::gotemplate::execute(&t, &json!({})).unwrap_err();
    assert!(e.message().contains("--max-template-bytes"), "{e:.500}");
}

#[test]
fn a_runaway_template_loop_stops_at_the_step_limit() {
    let t = r#"{{ range until 1000000 }}{{ range until 1000000 }}{{ end }}{{ end }}"#;
    let e = capi_render::gotemplate::execute(t, &json!({})).unwrap_err();
    assert!(e.message().contains("--max-template-steps"), "{e}");
}
