//! The one rule for where `GITHUB_TOKEN` goes: only to the exact origin (scheme, host,
//! port) of `--github-api-url`, compared on parsed URLs, never on their text. A URL
//! that starts with the API's text can name another host (`https://api.github.com@evil.example/`,
//! `https://api.github.com.evil.example/`) or port (`:4100` and `:41007`).

use ureq::http::Uri;

/// A parsed origin: lowercase scheme and host, and the port (the scheme's default when
/// none is written).
#[derive(Debug, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

/// The origin of `url`, `None` when it is not an absolute http(s) URL or carries user
/// information (`user:password@`), which a request with a token never needs.
fn origin(url: &str) -> Option<Origin> {
    let uri: Uri = url.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = uri.authority()?;
    if authority.as_str().contains('@') {
        return None;
    }
    let host = authority.host().to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    Some(Origin {
        scheme,
        host,
        port: authority.port_u16().unwrap_or(default_port),
    })
}

/// Whether a request to `url` may carry the token meant for the API at `api`: both
/// parse, and their scheme, host and port are equal.
pub fn token_goes_to(url: &str, api: &str) -> bool {
    match (origin(url), origin(api)) {
        (Some(u), Some(a)) => u == a,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::token_goes_to;

    #[test]
    fn only_the_exact_origin_gets_the_token() {
        let api = "https://api.github.com";
        for url in [
            "https://api.github.com/repos/o/r/releases",
            "https://API.GitHub.com:443/repos/o/r/releases?per_page=100",
            "HTTPS://api.github.com/x",
        ] {
            assert!(token_goes_to(url, api), "{url}");
        }
        for url in [
            "https://api.github.com@evil.example/o/v1/core-components.yaml",
            "https://api.github.com.evil.example/o/v1/core-components.yaml",
            "https://api.github.com:8443/x",
            "http://api.github.com/x",
            "https://user:pw@api.github.com/x",
            "https://evil.example/?u=https://api.github.com",
            "api.github.com/x",
            "",
        ] {
            assert!(!token_goes_to(url, api), "{url}");
        }
        // The findings: a port prefix, and user information naming the API.
        let local = "http://127.0.0.1:4100";
        assert!(token_goes_to("http://127.0.0.1:4100/repos/o/r", local));
        assert!(!token_goes_to(
            "http://127.0.0.1:41007/o/v1.0.0/x.yaml",
            local
        ));
        assert!(!token_goes_to(
            "http://127.0.0.1:4100@127.0.0.1:4200/o/v1.0.0/core-components.yaml",
            local
        ));
        // An API URL that does not parse gets no token at all.
        assert!(!token_goes_to("http://127.0.0.1:4100/x", "not a url"));
    }
}
