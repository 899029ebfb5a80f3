//! The HTTP side of the playground: a small HTTP/1.1 server on std::net, bound to
//! 127.0.0.1, one thread per connection (at most [`MAX_CONNECTIONS`] at once), one request per
//! connection (every answer says `Connection: close`, so an idle keep-alive connection never
//! holds a thread that a new request waits for), and the rules every request passes before a
//! handler sees it — a head of at most [`MAX_HEAD`] bytes, the Host and Origin the server's
//! own, a body of at most [`MAX_BODY`] bytes with its Content-Length — and the one after: a
//! handler that panics answers 500, the server goes on.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The largest request body taken: 4 MiB (a shader text or a scene with inline data; the
/// command line reads bigger files).
pub const MAX_BODY: usize = 4 << 20;

/// The largest request line and headers taken.
pub const MAX_HEAD: usize = 16 << 10;

/// Connections served at once; more are answered 503.
pub const MAX_CONNECTIONS: usize = 64;

/// How long a client may take to send its request, or to take the answer.
const IO_TIMEOUT: Duration = Duration::from_secs(30);

/// An answer: a status, a content type and the body.
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Reply {
    /// A JSON answer.
    pub fn json(status: u16, value: &serde_json::Value) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec()),
        }
    }

    /// `{"error": message}` with a 4xx or 5xx status.
    pub fn error(status: u16, message: impl Into<String>) -> Reply {
        Reply::json(status, &serde_json::json!({"error": message.into()}))
    }
}

/// A request as a handler sees it: the method, the path (without the query) and the body.
pub struct Incoming<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub body: &'a [u8],
}

/// A request's head: the request line and the headers.
struct Head {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Serve until the process ends: `handle` answers each request that passes the checks.
pub fn run<F>(listener: TcpListener, port: u16, handle: F)
where
    F: Fn(&Incoming) -> Reply + Send + Sync + 'static,
{
    let handle = Arc::new(handle);
    let active = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        if active.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
            active.fetch_sub(1, Ordering::AcqRel);
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            send(
                &stream,
                false,
                &Reply::error(503, "the playground is busy: too many connections"),
            );
            continue;
        }
        let (handler, counter) = (Arc::clone(&handle), Arc::clone(&active));
        let spawned = std::thread::Builder::new()
            .name("dxso-serve".into())
            .spawn(move || {
                connection(stream, port, &*handler);
                counter.fetch_sub(1, Ordering::AcqRel);
            });
        if spawned.is_err() {
            // The thread (and the stream it owned) is gone; count it out.
            active.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// Whether each request is logged to stderr (`DXSO_SERVE_LOG=1`): its method, path, status
/// and time.
fn logging() -> bool {
    static LOG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *LOG.get_or_init(|| std::env::var_os("DXSO_SERVE_LOG").is_some_and(|v| v != "0"))
}

/// Serve one connection: one request, one answer, then close.
fn connection(stream: TcpStream, port: u16, handle: &dyn Fn(&Incoming) -> Reply) {
    let started = std::time::Instant::now();
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let mut reader = BufReader::new(&stream);
    let (reply, what, head_only, unread) = match read_head(&mut reader) {
        Err(reply) => (reply, String::from("(unreadable request)"), false, false),
        Ok(head) => {
            let what = format!("{} {}", head.method, head.target);
            let head_only = head.method == "HEAD";
            let (reply, unread) = check_and_handle(&head, &mut reader, port, handle);
            (reply, what, head_only, unread)
        }
    };
    if logging() {
        eprintln!(
            "dxso serve: {what} -> {} in {:.1} ms",
            reply.status,
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    send(&stream, head_only, &reply);
    let _ = stream.shutdown(Shutdown::Write);
    if unread {
        // A body left unread (a refused upload): take it and drop it, so that closing does
        // not reset the connection before the client reads the answer. Bounded.
        let _ = std::io::copy(&mut reader.take(64 << 20), &mut std::io::sink());
    }
}

/// Read the request line and headers (at most [`MAX_HEAD`] bytes).
fn read_head(reader: &mut impl BufRead) -> Result<Head, Reply> {
    let mut limited = reader.take(MAX_HEAD as u64);
    let mut lines = Vec::new();
    loop {
        let mut line = Vec::new();
        match limited.read_until(b'\n', &mut line) {
            Ok(0) => {
                return Err(Reply::error(
                    400,
                    "the request ended before its headers did",
                ));
            }
            Ok(_) => {}
            Err(e) => return Err(Reply::error(400, format!("reading the request: {e}"))),
        }
        if !line.ends_with(b"\n") {
            return Err(Reply::error(
                431,
                format!(
                    "the request line and headers are longer than {} KiB",
                    MAX_HEAD >> 10
                ),
            ));
        }
        let line = String::from_utf8_lossy(&line)
            .trim_end_matches(['\r', '\n'])
            .to_string();
        if line.is_empty() {
            if lines.is_empty() {
                continue; // blank lines before a request line are allowed (RFC 9112 2.2)
            }
            break;
        }
        lines.push(line);
    }
    let mut parts = lines[0].split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Reply::error(400, "a malformed request line"));
    };
    if !version.starts_with("HTTP/1.") || method.is_empty() || !target.starts_with('/') {
        return Err(Reply::error(400, "a malformed request line"));
    }
    let mut headers = Vec::new();
    for line in &lines[1..] {
        let Some((name, value)) = line.split_once(':') else {
            return Err(Reply::error(400, "a malformed header line"));
        };
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    Ok(Head {
        method: method.to_string(),
        target: target.to_string(),
        headers,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// Write an answer (its headers, and its body unless the request was a HEAD).
fn send(mut stream: &TcpStream, head_only: bool, reply: &Reply) {
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n\
         Content-Security-Policy: default-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'\r\n\r\n",
        reply.status,
        reason(reply.status),
        reply.content_type,
        reply.body.len()
    );
    // A client that went away is no concern of the server's.
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| {
            if head_only {
                Ok(())
            } else {
                stream.write_all(&reply.body)
            }
        })
        .and_then(|()| stream.flush());
}

/// Whether a Host header names this server (`127.0.0.1:PORT` or `localhost:PORT`): a page
/// of another site that a rebound DNS name points here carries its own name.
fn own_host(host: &str, port: u16) -> bool {
    host == format!("127.0.0.1:{port}") || host == format!("localhost:{port}")
}

/// Whether an Origin header is this server's own page.
fn own_origin(origin: &str, port: u16) -> bool {
    origin
        .strip_prefix("http://")
        .is_some_and(|host| own_host(host, port))
}

/// Check the request, read its body and call the handler. Returns the answer, and whether a
/// body was left unread.
fn check_and_handle(
    head: &Head,
    body: &mut impl Read,
    port: u16,
    handle: &dyn Fn(&Incoming) -> Reply,
) -> (Reply, bool) {
    let length = head.header("Content-Length");
    let unread = length.is_some_and(|l| l != "0") || head.header("Transfer-Encoding").is_some();
    if !head.header("Host").is_some_and(|h| own_host(h, port)) {
        return (
            Reply::error(
                403,
                format!(
                    "the playground answers requests for 127.0.0.1:{port} or localhost:{port} only"
                ),
            ),
            unread,
        );
    }
    if let Some(origin) = head.header("Origin")
        && !own_origin(origin, port)
    {
        return (
            Reply::error(403, format!("requests from {origin} are refused")),
            unread,
        );
    }
    if head.header("Transfer-Encoding").is_some() {
        return (
            Reply::error(
                411,
                "send the body with a Content-Length (no Transfer-Encoding)",
            ),
            unread,
        );
    }
    let length = match length.map(|l| l.parse::<u64>()) {
        None => 0,
        Some(Ok(n)) => n,
        Some(Err(_)) => return (Reply::error(400, "a malformed Content-Length"), unread),
    };
    if length > MAX_BODY as u64 {
        return (too_large(), unread);
    }
    let mut bytes = Vec::new();
    match body.take(length).read_to_end(&mut bytes) {
        Ok(n) if n as u64 == length => {}
        Ok(_) => {
            return (
                Reply::error(400, "the body is shorter than its Content-Length"),
                false,
            );
        }
        Err(e) => {
            return (
                Reply::error(400, format!("reading the request body: {e}")),
                false,
            );
        }
    }
    let path = head.target.split(['?', '#']).next().unwrap_or("");
    let incoming = Incoming {
        method: &head.method,
        path,
        body: &bytes,
    };
    let reply = match catch_unwind(AssertUnwindSafe(|| handle(&incoming))) {
        Ok(reply) => reply,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Reply::error(500, format!("internal error (a bug in dxso): {what}"))
        }
    };
    (reply, false)
}

fn too_large() -> Reply {
    Reply::error(
        413,
        format!(
            "the request body is larger than {} MiB, the playground's limit (the command line reads bigger files)",
            MAX_BODY >> 20
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        assert!(own_host("127.0.0.1:8080", 8080));
        assert!(own_host("localhost:8080", 8080));
        assert!(!own_host("evil.example:8080", 8080));
        assert!(!own_host("127.0.0.1:8081", 8080));
        assert!(own_origin("http://localhost:8080", 8080));
        assert!(!own_origin("https://localhost:8080", 8080));
        assert!(!own_origin("null", 8080));
        assert!(!own_origin("http://evil.example", 8080));
    }

    fn head(host: &str) -> Head {
        read_head(
            &mut format!("POST /api/check HTTP/1.1\r\nHost: {host}\r\nContent-Length: 2\r\n\r\n")
                .as_bytes(),
        )
        .unwrap_or_else(|r| panic!("a head: {}", r.status))
    }

    #[test]
    fn a_handler_that_panics_answers_500() {
        let (reply, _) = check_and_handle(
            &head("127.0.0.1:8080"),
            &mut &b"{}"[..],
            8080,
            &|_: &Incoming| -> Reply { panic!("boom") },
        );
        assert_eq!(reply.status, 500);
        let v: serde_json::Value = serde_json::from_slice(&reply.body).expect("JSON");
        assert!(
            v["error"].as_str().expect("a message").contains("boom"),
            "{v}"
        );
    }

    #[test]
    fn a_foreign_host_is_refused_before_the_handler() {
        let (reply, unread) = check_and_handle(
            &head("evil.example:8080"),
            &mut &b"{}"[..],
            8080,
            &|_: &Incoming| -> Reply { unreachable!("the handler is not called") },
        );
        assert_eq!((reply.status, unread), (403, true));
    }

    #[test]
    fn heads() {
        for bad in [
            "GET\r\n\r\n",
            "GET / FTP/1.0\r\n\r\n",
            "GET / HTTP/1.1\r\nno colon\r\n\r\n",
            "GET / HTTP/1.1\r\n",
        ] {
            assert!(read_head(&mut bad.as_bytes()).is_err(), "{bad:?}");
        }
        let long = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_HEAD));
        assert_eq!(
            read_head(&mut long.as_bytes()).err().map(|r| r.status),
            Some(431)
        );
        let h = read_head(&mut &b"\r\nGET /x?y HTTP/1.1\r\nhost:  a:1 \r\n\r\n"[..])
            .ok()
            .expect("a head");
        assert_eq!(
            (h.method.as_str(), h.target.as_str(), h.header("Host")),
            ("GET", "/x?y", Some("a:1"))
        );
    }
}
