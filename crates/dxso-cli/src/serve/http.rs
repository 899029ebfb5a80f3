//! The HTTP side of the playground: a `tiny_http` server on 127.0.0.1, a few worker threads,
//! and the rules every request passes before a handler sees it — the Host and Origin must be
//! the server's own, a body is at most [`MAX_BODY`] bytes — and the one after: a handler that
//! panics answers 500, the server goes on.

use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

/// The largest request body taken: 4 MiB (a shader text or a scene with inline data; the
/// command line reads bigger files).
pub const MAX_BODY: usize = 4 << 20;

/// Threads answering requests at once.
const WORKERS: usize = 8;

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

/// Serve until the process ends: `handle` answers each request that passes the checks.
pub fn run<F>(server: tiny_http::Server, port: u16, handle: F)
where
    F: Fn(&Incoming) -> Reply + Send + Sync + 'static,
{
    let server = Arc::new(server);
    let handle = Arc::new(handle);
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let server = Arc::clone(&server);
            let handle = Arc::clone(&handle);
            std::thread::spawn(move || {
                while let Ok(request) = server.recv() {
                    answer(request, port, &*handle);
                }
            })
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
}

fn header<'r>(request: &'r tiny_http::Request, name: &str) -> Option<&'r str> {
    request
        .headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
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

fn answer(mut request: tiny_http::Request, port: u16, handle: &dyn Fn(&Incoming) -> Reply) {
    let reply = check_and_handle(&mut request, port, handle);
    // Every answer is whole in memory: sent with its Content-Length, never chunked.
    let mut response = tiny_http::Response::from_data(reply.body)
        .with_status_code(reply.status)
        .with_chunked_threshold(usize::MAX);
    let headers = [
        ("Content-Type", reply.content_type),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        (
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'",
        ),
    ];
    for (name, value) in headers {
        if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(h);
        }
    }
    // A client that went away is no concern of the server's.
    let _ = request.respond(response);
}

fn check_and_handle(
    request: &mut tiny_http::Request,
    port: u16,
    handle: &dyn Fn(&Incoming) -> Reply,
) -> Reply {
    if !header(request, "Host").is_some_and(|h| own_host(h, port)) {
        return Reply::error(
            403,
            format!(
                "the playground answers requests for 127.0.0.1:{port} or localhost:{port} only"
            ),
        );
    }
    if let Some(origin) = header(request, "Origin")
        && !own_origin(origin, port)
    {
        return Reply::error(403, format!("requests from {origin} are refused"));
    }
    if request.body_length().is_some_and(|n| n > MAX_BODY) {
        return too_large();
    }
    let mut body = Vec::new();
    if let Err(e) = request
        .as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut body)
    {
        return Reply::error(400, format!("reading the request body: {e}"));
    }
    if body.len() > MAX_BODY {
        return too_large();
    }
    let method = request.method().as_str().to_string();
    let url = request.url().to_string();
    let path = url.split(['?', '#']).next().unwrap_or("");
    let incoming = Incoming {
        method: &method,
        path,
        body: &body,
    };
    match catch_unwind(AssertUnwindSafe(|| handle(&incoming))) {
        Ok(reply) => reply,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Reply::error(500, format!("internal error (a bug in dxso): {what}"))
        }
    }
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

    fn request(host: &str) -> tiny_http::Request {
        let host = tiny_http::Header::from_bytes("Host", host).expect("a header");
        tiny_http::TestRequest::new()
            .with_method(tiny_http::Method::Post)
            .with_path("/api/check")
            .with_header(host)
            .with_body("{}")
            .into()
    }

    #[test]
    fn a_handler_that_panics_answers_500() {
        let mut r = request("127.0.0.1:8080");
        let reply = check_and_handle(&mut r, 8080, &|_: &Incoming| -> Reply { panic!("boom") });
        assert_eq!(reply.status, 500);
        let v: serde_json::Value = serde_json::from_slice(&reply.body).expect("JSON");
        assert!(
            v["error"].as_str().expect("a message").contains("boom"),
            "{v}"
        );
    }

    #[test]
    fn a_foreign_host_is_refused_before_the_handler() {
        let mut r = request("evil.example:8080");
        let reply = check_and_handle(&mut r, 8080, &|_: &Incoming| -> Reply {
            unreachable!("the handler is not called")
        });
        assert_eq!(reply.status, 403);
    }
}
