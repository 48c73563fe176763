//! A loopback HTTP server that records every request it gets (request line and
//! headers) and answers each from a function of its path: what the network tests
//! check a token, a redirect or a proxy against. It binds 127.0.0.1 only.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// One answer: the status line's code and text, extra header lines, the body.
pub struct Answer {
    pub status: &'static str,
    pub headers: Vec<String>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn ok(body: impl Into<Vec<u8>>) -> Answer {
        Answer {
            status: "200 OK",
            headers: Vec::new(),
            body: body.into(),
        }
    }

    pub fn redirect(to: &str) -> Answer {
        Answer {
            status: "302 Found",
            headers: vec![format!("Location: {to}")],
            body: Vec::new(),
        }
    }
}

/// The requests a [`serve`] got, each its request line and headers as sent.
#[derive(Clone, Default)]
pub struct Requests(Arc<Mutex<Vec<String>>>);

impl Requests {
    pub fn all(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    /// Whether any request carried `text` (in its line or a header).
    pub fn any_contains(&self, text: &str) -> bool {
        self.all().iter().any(|r| r.contains(text))
    }
}

/// Serve on a loopback port until the test process ends; the base URL and the log.
pub fn serve(answer: impl Fn(&str) -> Answer + Send + 'static) -> (String, Requests) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let log = Requests::default();
    let seen = log.clone();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut head = String::new();
            loop {
                let mut h = String::new();
                if r.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                    break;
                }
                head.push_str(&h);
            }
            let path = head
                .lines()
                .next()
                .and_then(|l| l.split_whitespace().nth(1))
                .unwrap_or("")
                .to_string();
            seen.0.lock().unwrap().push(head);
            let a = answer(&path);
            let mut text = format!(
                "HTTP/1.1 {}\r\nContent-Length: {}\r\nConnection: close\r\n",
                a.status,
                a.body.len()
            );
            for h in &a.headers {
                text.push_str(h);
                text.push_str("\r\n");
            }
            text.push_str("\r\n");
            let mut s = s;
            let _ = s
                .write_all(text.as_bytes())
                .and_then(|_| s.write_all(&a.body));
        }
    });
    (url, log)
}
