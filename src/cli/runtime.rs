//! `--runtime-extension NAME=URL`, `--runtime-extension-ca FILE`,
//! `--allow-remote-extensions` (render and diff): the HTTP(S) transport the Runtime SDK
//! client of the library calls extensions through ([`capi_render::runtime`]). The only
//! network these commands use, and only when asked: to the URLs the command line gives,
//! loopback ones unless `--allow-remote-extensions` is on the command line (a lock's
//! `allowRemote` is never read as permission). Redirects are not followed; a loopback
//! URL is called directly whatever `HTTP_PROXY`/`HTTPS_PROXY`/`ALL_PROXY` say, an allowed
//! remote one through the proxy they name (`NO_PROXY` honoured).

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::PathBuf;
use std::time::Duration;

use capi_render::error::Error;
use capi_render::go::untrusted::quote_untrusted_bytes;
use capi_render::render::Rendering;
use capi_render::runtime::config::{is_loopback_url, UrlPolicy};
use capi_render::runtime::{CallError, Transport};
use clap::Args;

/// A response body larger than this is refused (an extension's answer is a patch list).
pub const MAX_RESPONSE_BYTES: u64 = 16 << 20;

/// The flags that point ExtensionConfigs at running extensions.
#[derive(Args, Debug, Clone, Default)]
pub struct ExtensionArgs {
    /// Call the runtime extension of ExtensionConfig NAME (among the inputs) at URL
    /// (http, or https with --runtime-extension-ca): the handlers of ClusterClass
    /// external patches. Repeat for several. Loopback addresses only, unless
    /// --allow-remote-extensions.
    #[arg(long = "runtime-extension", value_name = "NAME=URL")]
    pub runtime_extension: Vec<String>,
    /// The CA certificate (PEM) an https extension's certificate is checked against;
    /// the only root trusted for extensions.
    #[arg(long = "runtime-extension-ca", value_name = "FILE")]
    pub runtime_extension_ca: Option<PathBuf>,
    /// Let --runtime-extension URLs name hosts other than this machine. Read from the
    /// command line only: --from-lock never takes it from the lock.
    #[arg(long = "allow-remote-extensions")]
    pub allow_remote_extensions: bool,
    /// At most N calls to the extensions at once (default: one per render worker, as
    /// many as cores). Clusters still render in parallel; their calls wait their turn.
    #[arg(long = "runtime-concurrency", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub runtime_concurrency: Option<u32>,
}

impl ExtensionArgs {
    /// The URLs by ExtensionConfig name.
    pub fn urls(&self) -> Result<BTreeMap<String, String>, Error> {
        let mut out = BTreeMap::new();
        for f in &self.runtime_extension {
            let (n, u) = capi_render::runtime::config::parse_flag(f)?;
            if out.insert(n.clone(), u).is_some() {
                return Err(Error::new(format!(
                    "--runtime-extension {n}=... is given twice"
                )));
            }
        }
        Ok(out)
    }
}

/// `--from-lock`: the recorded `NAME=URL`s and CA, unless flags are given with it (the
/// extension may run at another address on this machine); `--runtime-concurrency` and
/// `--allow-remote-extensions` as given. The lock comes with the tree (a pull request
/// may edit it): its `allowRemote` is never permission, so its URLs are held to the
/// loopback rule unless the command line allows remote extensions.
pub fn recorded_or_given(
    given: &ExtensionArgs,
    c: &capi_render::gitops::lock::RenderCommand,
) -> ExtensionArgs {
    if !given.runtime_extension.is_empty() {
        return given.clone();
    }
    ExtensionArgs {
        runtime_extension: c.runtime_extensions.clone(),
        runtime_extension_ca: c.runtime_extension_ca.as_ref().map(PathBuf::from),
        allow_remote_extensions: given.allow_remote_extensions,
        runtime_concurrency: given.runtime_concurrency,
    }
}

/// `--check` found the tree out of date: name the handlers the run's Clusters were
/// patched by, whose answers may be what changed.
pub fn note_handlers(session: Option<&capi_render::runtime::Session>) {
    let Some(s) = session else { return };
    let handlers = s.handlers_called();
    if !handlers.is_empty() {
        super::ui::info(&format!(
            "the Clusters of this run were patched by runtime extension handler(s) {}: one that now answers differently than when the tree was written makes its Clusters' files out of date too",
            handlers.join(", ")
        ));
    }
}

/// Let `r`'s Clusters call the extensions of the ExtensionConfigs among its inputs.
pub fn call_extensions(r: &mut Rendering, a: &ExtensionArgs) -> Result<(), Error> {
    let urls = a.urls()?;
    let policy = UrlPolicy {
        allow_remote: a.allow_remote_extensions,
    };
    let transport = HttpTransport::new(a.runtime_extension_ca.as_deref(), policy)?;
    r.call_extensions(
        &urls,
        policy,
        a.runtime_concurrency.map(|n| n as usize),
        Box::new(transport),
    )
}

/// POSTs over ureq (rustls); https trusts the given CA only. Every URL is checked
/// against the policy before a connection; redirects are answers, not followed.
pub struct HttpTransport {
    policy: UrlPolicy,
    /// No proxy: loopback URLs.
    direct: ureq::Agent,
    /// The proxy the environment names, if any: remote URLs (when allowed).
    proxied: ureq::Agent,
}

impl HttpTransport {
    pub fn new(ca: Option<&std::path::Path>, policy: UrlPolicy) -> Result<HttpTransport, Error> {
        let mut tls = None;
        if let Some(path) = ca {
            let pem = std::fs::read(path).map_err(|e| {
                Error::new(format!("--runtime-extension-ca {}: {e}", path.display()))
            })?;
            let mut certs = Vec::new();
            for item in ureq::tls::parse_pem(&pem) {
                match item {
                    Ok(ureq::tls::PemItem::Certificate(c)) => certs.push(c.to_owned()),
                    Ok(_) => {}
                    Err(e) => {
                        return Err(Error::new(format!(
                            "--runtime-extension-ca {}: {e}",
                            path.display()
                        )))
                    }
                }
            }
            if certs.is_empty() {
                return Err(Error::new(format!(
                    "--runtime-extension-ca {}: no PEM certificate in the file",
                    path.display()
                )));
            }
            tls = Some(
                ureq::tls::TlsConfig::builder()
                    .root_certs(ureq::tls::RootCerts::new_with_certs(&certs))
                    .build(),
            );
        }
        let agent = |proxy_from_env: bool| -> ureq::Agent {
            let mut cfg = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0);
            if let Some(t) = &tls {
                cfg = cfg.tls_config(t.clone());
            }
            if !proxy_from_env {
                cfg = cfg.proxy(None);
            }
            cfg.build().into()
        };
        Ok(HttpTransport {
            policy,
            direct: agent(false),
            proxied: agent(true),
        })
    }
}

impl Transport for HttpTransport {
    fn post(&self, url: &str, body: &[u8], timeout: Duration) -> Result<Vec<u8>, CallError> {
        let fail = |e: String| CallError(format!("http call failed: {e}"));
        self.policy
            .check(url)
            .map_err(|e| fail(format!("Post {url:?} refused: {}", e.message())))?;
        let agent = if is_loopback_url(url) {
            &self.direct
        } else {
            &self.proxied
        };
        let resp = agent
            .post(url)
            .config()
            .timeout_global(Some(timeout))
            .build()
            .header("Content-Type", "application/json")
            .send(body)
            .map_err(|e| fail(format!("Post {url:?}: {e}")))?;
        let status = resp.status().as_u16();
        let mut out = Vec::new();
        resp.into_body()
            .into_reader()
            .take(MAX_RESPONSE_BYTES + 1)
            .read_to_end(&mut out)
            .map_err(|e| fail(format!("reading the response: {e}")))?;
        if out.len() as u64 > MAX_RESPONSE_BYTES {
            return Err(fail(format!(
                "the response is larger than {MAX_RESPONSE_BYTES} bytes"
            )));
        }
        if (300..400).contains(&status) {
            return Err(fail(format!(
                "got response with status code {status} (a redirect, which capi-render does not follow: point --runtime-extension at the address the extension serves): response : {}",
                quote_untrusted_bytes(&out)
            )));
        }
        if status != 200 {
            return Err(fail(format!(
                "got response with status code {status} != 200: response : {}",
                quote_untrusted_bytes(&out)
            )));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;
    use std::net::TcpListener;

    /// A one-request HTTP server on loopback answering `status` and `body`; returns its
    /// URL and the request it got.
    fn serve_once(status: u16, body: &'static str) -> (String, std::thread::JoinHandle<String>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", l.local_addr().unwrap());
        let h = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut buf = vec![0u8; 65536];
            let mut got = Vec::new();
            loop {
                let n = s.read(&mut buf).unwrap();
                got.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&got);
                if let Some(i) = text.find("\r\n\r\n") {
                    let len: usize = text
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length: ")
                                .map(|v| v.trim().parse().unwrap())
                        })
                        .unwrap_or(0);
                    if got.len() >= i + 4 + len {
                        break;
                    }
                }
                if n == 0 {
                    break;
                }
            }
            write!(
                s,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
            String::from_utf8_lossy(&got).into_owned()
        });
        (url, h)
    }

    #[test]
    fn posts_json_and_returns_the_body() {
        let (url, h) = serve_once(200, r#"{"status":"Success"}"#);
        let t = HttpTransport::new(None, UrlPolicy::default()).unwrap();
        let out = t
            .post(
                &format!("{url}/hooks"),
                br#"{"a":1}"#,
                Duration::from_secs(5),
            )
            .unwrap();
        assert_eq!(out, br#"{"status":"Success"}"#);
        let req = h.join().unwrap();
        assert!(req.starts_with("POST /hooks HTTP/1.1"), "{req}");
        assert!(req.ends_with(r#"{"a":1}"#), "{req}");
    }

    #[test]
    fn a_status_other_than_200_and_no_server_are_call_errors() {
        let (url, h) = serve_once(500, "boom");
        let t = HttpTransport::new(None, UrlPolicy::default()).unwrap();
        let e = t.post(&url, b"{}", Duration::from_secs(5)).unwrap_err();
        assert_eq!(
            e.0,
            "http call failed: got response with status code 500 != 200: response : \"boom\""
        );
        h.join().unwrap();
        // Nothing listens on this port any more.
        let e = t.post(&url, b"{}", Duration::from_secs(5)).unwrap_err();
        assert!(e.0.starts_with("http call failed: Post"), "{}", e.0);
    }

    #[test]
    fn a_redirect_is_an_error_and_a_refused_url_is_never_connected() {
        let (url, h) = serve_once(302, "moved");
        let t = HttpTransport::new(None, UrlPolicy::default()).unwrap();
        let e = t.post(&url, b"{}", Duration::from_secs(5)).unwrap_err();
        assert!(
            e.0.contains("status code 302 (a redirect, which capi-render does not follow"),
            "{}",
            e.0
        );
        assert!(e.0.ends_with("response : \"moved\""), "{}", e.0);
        h.join().unwrap();
        // The policy is checked again here: no connection is attempted.
        let e = t
            .post("http://0.0.0.0:9/x", b"{}", Duration::from_secs(5))
            .unwrap_err();
        assert!(e.0.contains("is not a loopback address"), "{}", e.0);
        let remote = HttpTransport::new(None, UrlPolicy { allow_remote: true }).unwrap();
        assert!(remote.policy.check("http://10.0.0.1").is_ok());
    }

    #[test]
    fn a_ca_file_without_a_certificate_is_refused() {
        let dir = std::env::temp_dir().join(format!("capi-render-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("ca.crt");
        std::fs::write(&f, "not a certificate\n").unwrap();
        let e = HttpTransport::new(Some(&f), UrlPolicy::default())
            .err()
            .unwrap();
        assert!(
            e.message().contains("no PEM certificate"),
            "{}",
            e.message()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
