//! `dxso serve`: the playground's JSON API, endpoint by endpoint with good and bad input, its
//! limits, and a bounded loopback load test. The real binary on a free port (it names the
//! port on its first line), talked to with a small HTTP/1.1 client over std::net.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `dxso serve --port 0`, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(file: Option<&Path>) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_dxso"));
        cmd.args(["serve", "--port", "0"]);
        if let Some(f) = file {
            cmd.arg(f);
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dxso serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the first line");
        let port = line
            .trim()
            .strip_prefix("listening on http://127.0.0.1:")
            .and_then(|rest| rest.strip_suffix('/'))
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("the first line names the port: {line:?}"));
        Server { child, port }
    }

    /// One request on its own connection: (status, body).
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> (u16, Vec<u8>) {
        request(self.port, method, path, headers, body)
    }

    fn get(&self, path: &str) -> (u16, Vec<u8>) {
        self.request("GET", path, &[], b"")
    }

    /// POST a JSON body to `/api/ENDPOINT`: (status, the answer's JSON).
    fn post(&self, endpoint: &str, body: &Value) -> (u16, Value) {
        let (status, bytes) = self.request(
            "POST",
            &format!("/api/{endpoint}"),
            &[],
            body.to_string().as_bytes(),
        );
        (status, json_of(&bytes))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn json_of(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(bytes)))
}

fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).expect("write");
    // A server that refuses a body may close before reading all of it.
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {text:?}"));
    let at = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("headers end")
        + 4;
    (status, out[at..].to_vec())
}

/// Send `raw` bytes as they are; the answer's status.
fn raw_status(port: u16, raw: &[u8]) -> u16 {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let _ = s.write_all(raw);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out);
    text.split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {text:?}"))
}

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(data(name)).expect("test data")
}

/// tests/data/scale.json with its shader inline.
fn scale_scene() -> Value {
    let mut scene: Value = serde_json::from_str(&read("scale.json")).expect("scene");
    let obj = scene.as_object_mut().expect("an object");
    obj.remove("shader");
    obj.insert("shader_asm".into(), read("scale.asm").into());
    scene
}

fn dxso(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_dxso"))
        .args(args)
        .output()
        .expect("dxso runs");
    assert!(
        out.status.success(),
        "dxso {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

const VALID: &str = "vs_2_0\ndcl_position v0\nmov oPos, v0\n";
const INVALID: &str = "vs_2_0\ndcl_position v0\nmov oPos, r0\n";

#[test]
fn page_and_assets() {
    let s = Server::start(None);
    let (status, body) = s.get("/");
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&body).contains("dxso playground"));
    for path in ["/app.js", "/style.css"] {
        assert_eq!(s.get(path).0, 200, "{path}");
    }
    let (status, body) = s.get("/nope");
    assert_eq!(status, 404);
    assert!(json_of(&body)["error"].is_string());
    let (status, body) = s.request("POST", "/", &[], b"");
    assert_eq!(status, 405);
    assert!(json_of(&body)["error"].is_string());
    let (status, body) = s.get("/api/initial");
    assert_eq!(status, 200);
    assert_eq!(
        json_of(&body),
        json!({"name": null, "shader": null, "scene": null})
    );
}

#[test]
fn initial_file_and_scene_paths() {
    let s = Server::start(Some(&data("scale.json")));
    let (_, body) = s.get("/api/initial");
    let v = json_of(&body);
    assert_eq!(v["shader"], read("scale.asm"));
    assert_eq!(v["scene"], read("scale.json"));
    // The scene's relative paths start at its folder.
    let scene: Value = serde_json::from_str(&read("scale.json")).expect("scene");
    let (status, v) = s.post("run", &json!({"scene": scene}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["vertices"].as_array().map(Vec::len), Some(3));
    drop(s);
    // A draw scene opens with its (first draw's) pixel shader; its paths start at its folder.
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/draw");
    let s = Server::start(Some(&examples.join("textured.scene.json")));
    let (_, body) = s.get("/api/initial");
    let v = json_of(&body);
    let ps = std::fs::read_to_string(examples.join("textured.ps.asm")).expect("the example");
    assert_eq!(v["shader"], ps);
    let scene: Value = serde_json::from_str(v["scene"].as_str().unwrap()).expect("scene");
    let (status, png) = s.request(
        "POST",
        "/api/draw",
        &[],
        json!({"scene": scene}).to_string().as_bytes(),
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&png));
    assert_eq!(
        png,
        std::fs::read(examples.join("textured.scene.png")).expect("the picture")
    );
}

#[test]
fn assemble() {
    let s = Server::start(None);
    let (status, v) = s.post("assemble", &json!({"source": VALID}));
    assert_eq!(status, 200, "{v}");
    let expected: Vec<String> = dxso(&["asm", data("scale.asm").to_str().unwrap(), "--hex"])
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(v["tokens"][0], "fffe0200");
    assert_eq!(
        v["tokens"].as_array().and_then(|t| t.last()),
        Some(&json!("0000ffff"))
    );
    assert_eq!(v["instructions"][1]["text"], "mov oPos, v0");
    // Each token's meaning (dxso::binary::describe), parallel to the tokens.
    assert_eq!(v["meanings"].as_array().map(Vec::len), Some(8), "{v}");
    assert_eq!(v["tokens"][5], "c00f0000");
    assert_eq!(
        v["meanings"][5],
        json!({"role": "destination", "instruction": 1,
               "text": "destination: oPos (RASTOUT 0), write mask xyzw"})
    );
    assert_eq!(
        v["meanings"][0]["text"],
        "version token: vs_2_0 (a vertex shader, model 2.0)"
    );
    assert_eq!(
        v["meanings"][4]["text"],
        "instruction: mov (opcode 1), 2 parameter tokens"
    );
    assert_eq!(
        v["meanings"][6]["text"],
        "source: v0 (INPUT 0), swizzle xyzw"
    );
    assert_eq!(v["meanings"][2]["text"], "dcl usage: position, index 0");
    assert_eq!(
        v["meanings"][7],
        json!({"role": "end", "instruction": null, "text": "end token"})
    );
    // The same tokens as `dxso asm --hex`.
    let (_, v) = s.post("assemble", &json!({"source": read("scale.asm")}));
    assert_eq!(v["tokens"], json!(expected));
    // A header becomes the constant table (as `asm --ctab`).
    let (_, v) = s.post("assemble", &json!({"source": read("named.asm")}));
    assert_eq!(
        v["tokens"][1].as_str().map(|t| t.ends_with("fffe")),
        Some(true),
        "{v}"
    );
    assert_eq!(v["meanings"][1]["role"], "comment");
    assert!(
        v["meanings"][1]["text"]
            .as_str()
            .unwrap()
            .ends_with("(CTAB: the constant table)"),
        "{v}"
    );
    assert_eq!(
        v["meanings"][2]["text"],
        format!(
            "comment DWORD 1 of {}: the tag \"CTAB\"",
            u32::from_str_radix(&v["tokens"][1].as_str().unwrap()[..4], 16).unwrap()
        )
    );

    let (status, v) = s.post(
        "assemble",
        &json!({"source": "vs_2_0\nmov oPos, v0\nfoo r0, r1\n"}),
    );
    assert_eq!(status, 422, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("shader:3:1: error:"),
        "{v}"
    );
    assert_eq!(v["diagnostics"][0]["line"], 3);
    assert_eq!(v["diagnostics"][0]["col"], 1);
    let (status, v) = s.post("assemble", &json!({"text": VALID}));
    assert_eq!(status, 400, "{v}");
    assert!(v["error"].is_string());
}

#[test]
fn disassemble() {
    let s = Server::start(None);
    let (_, asm) = s.post("assemble", &json!({"source": read("named.asm")}));
    let hex = asm["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let (status, v) = s.post("disassemble", &json!({"source": hex}));
    assert_eq!(status, 200, "{v}");
    let text = v["text"].as_str().unwrap();
    assert!(
        text.contains("// Parameters:") && text.contains("m4x4 o0, v0, c8"),
        "{text}"
    );
    let (status, v) = s.post("disassemble", &json!({"source": hex, "style": "unity"}));
    assert_eq!(status, 200, "{v}");
    assert!(
        v["text"].as_str().unwrap().contains("dcl_texcoord0 v0"),
        "{v}"
    );

    let (status, v) = s.post("disassemble", &json!({"source": hex, "style": "fancy"}));
    assert_eq!(status, 400, "{v}");
    let (status, v) = s.post("disassemble", &json!({"source": "fffe0300\n12345678\n"}));
    assert_eq!(status, 422, "{v}");
    assert!(
        v["error"].as_str().unwrap().starts_with("shader: error:"),
        "{v}"
    );
}

#[test]
fn check() {
    let s = Server::start(None);
    let (status, v) = s.post("check", &json!({"source": VALID}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["valid"], true);
    assert_eq!(v["version"], "vs_2_0");
    let (status, v) = s.post("check", &json!({"source": INVALID, "caps": "min"}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["valid"], false);
    let d = &v["diagnostics"][0];
    assert_eq!(
        (d["rule"].as_str(), d["line"].as_u64(), d["col"].as_u64()),
        (Some("V040"), Some(3), Some(1)),
        "{v}"
    );
    assert!(
        v["text"]
            .as_str()
            .unwrap()
            .contains("shader:3:1: error[V040]"),
        "{v}"
    );
    // A text that does not assemble: its errors at their line and column.
    let (_, v) = s.post("check", &json!({"source": "vs_2_0\n\nmvo oPos, v0\n"}));
    assert_eq!(v["valid"], false);
    assert_eq!(v["diagnostics"][0]["line"], 3, "{v}");

    let (status, v) = s.post("check", &json!({"source": VALID, "caps": "huge"}));
    assert_eq!(status, 400, "{v}");
    let (status, v) = s.post("check", &json!({"source": 5}));
    assert_eq!(status, 400, "{v}");
}

#[test]
fn translate() {
    let s = Server::start(None);
    for (to, marker) in [
        ("wgsl", "@vertex"),
        ("glsl", "#version"),
        ("hlsl", "float4"),
        ("msl", "metal"),
    ] {
        for float in ["strict", "ieee"] {
            let (status, v) = s.post(
                "translate",
                &json!({"source": VALID, "to": to, "float": float}),
            );
            assert_eq!(status, 200, "{to} {float}: {v}");
            assert!(v["code"].as_str().unwrap().contains(marker), "{to}: {v}");
            assert!(v["interface"].is_object(), "{v}");
        }
    }
    // The same text as `dxso translate`.
    let (_, v) = s.post("translate", &json!({"source": read("scale.asm")}));
    assert_eq!(
        v["code"].as_str().unwrap(),
        dxso(&["translate", data("scale.asm").to_str().unwrap()])
    );

    let (status, v) = s.post("translate", &json!({"source": INVALID}));
    assert_eq!(status, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("error[V040]"), "{v}");
    let (status, v) = s.post("translate", &json!({"source": VALID, "to": "spirv"}));
    assert_eq!(status, 400, "{v}");
    let (status, v) = s.post("translate", &json!({"source": VALID, "float": "loose"}));
    assert_eq!(status, 400, "{v}");
}

#[test]
fn ctab() {
    let s = Server::start(None);
    let (status, v) = s.post("ctab", &json!({"source": read("named.asm")}));
    assert_eq!(status, 200, "{v}");
    let names: Vec<&str> = v["table"]["constants"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    for n in ["viewProj", "world", "lights", "offsets"] {
        assert!(names.contains(&n), "{n}: {v}");
    }
    let view_proj = v["table"]["constants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "viewProj")
        .unwrap();
    assert_eq!(
        (
            view_proj["register"].as_str(),
            view_proj["register_count"].as_u64()
        ),
        (Some("c8"), Some(4))
    );
    let (status, v) = s.post("ctab", &json!({"source": VALID}));
    assert_eq!((status, &v), (200, &json!({"table": null})));

    let (status, v) = s.post("ctab", &json!({"source": "vs_2_0\nfoo\n"}));
    assert_eq!(status, 422, "{v}");
    let (status, _) = s.post("ctab", &json!({}));
    assert_eq!(status, 400);
}

#[test]
fn run_and_trace() {
    let s = Server::start(None);
    let (status, v) = s.post("run", &json!({"scene": scale_scene()}));
    assert_eq!(status, 200, "{v}");
    // The outputs `dxso run` prints, value for value.
    let cli: Value =
        serde_json::from_str(&dxso(&["run", data("scale.json").to_str().unwrap()])).expect("JSON");
    assert_eq!(v["outputs"], cli["outputs"]);
    assert_eq!(v["vertices"], cli["vertices"]);
    assert_eq!(v["warnings"], json!([]));
    // The scene as text works as well.
    let (status, _) = s.post("run", &json!({"scene": scale_scene().to_string()}));
    assert_eq!(status, 200);

    let (status, v) = s.post("trace", &json!({"scene": scale_scene(), "vertex": 1}));
    assert_eq!(status, 200, "{v}");
    let cli = dxso(&["run", data("scale.json").to_str().unwrap(), "--trace", "1"]);
    assert_eq!(v["text"].as_str().unwrap(), cli);
    assert_eq!(v["steps"][0]["text"], "mul o0, v0, c0");
    // A vertex's step names the constants it reads; a pixel's (below) has no such key.
    let step = v["steps"][0].as_object().expect("a step");
    let keys: Vec<&str> = step.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["active", "constants", "effect", "instruction", "text"]
    );
    assert_eq!(step["active"], true);
    assert!(
        step["effect"].as_str().unwrap().starts_with("o0 = ("),
        "{v}"
    );
    assert_eq!(v["outputs"][0]["register"], "o0");

    let mut bad = scale_scene();
    bad.as_object_mut().unwrap().remove("vertex_count");
    let (status, v) = s.post("run", &json!({"scene": bad}));
    assert_eq!(status, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("vertex_count"), "{v}");
    let (status, v) = s.post("run", &json!({"scene": "{not json"}));
    assert_eq!(status, 422, "{v}");
    let mut huge = scale_scene();
    huge["vertex_count"] = json!(1_000_000_000u64);
    huge.as_object_mut().unwrap().remove("indices");
    let (status, v) = s.post("run", &json!({"scene": huge}));
    assert_eq!(status, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("at most"), "{v}");
    let mut ps = scale_scene();
    ps["shader_asm"] = json!("ps_2_0\nmov oC0, c0\n");
    let (status, v) = s.post("run", &json!({"scene": ps}));
    assert_eq!(status, 422, "{v}");
    let (status, v) = s.post("trace", &json!({"scene": scale_scene(), "vertex": 99}));
    assert_eq!(status, 422, "{v}");
    let (status, v) = s.post("trace", &json!({"scene": scale_scene()}));
    assert_eq!(status, 400, "{v}");
}

#[test]
fn a_shader_that_loops_for_ever_stops() {
    let s = Server::start(None);
    let mut scene = scale_scene();
    scene["shader_asm"] = json!(
        "vs_3_0\ndefi i0, 255, 0, 1, 0\ndcl_position v0\ndcl_position o0\nmov r0, v0\n\
         rep i0\nrep i0\nrep i0\nrep i0\nadd r0, r0, c0\nendrep\nendrep\nendrep\nendrep\nmov o0, r0\n"
    );
    let started = Instant::now();
    let (status, v) = s.post("trace", &json!({"scene": scene, "vertex": 0}));
    assert_eq!(status, 200, "{v}");
    assert!(v["stopped"].is_string(), "{v}");
    let (status, v) = s.post("run", &json!({"scene": scene}));
    assert!(status == 200 || status == 422, "{status} {v}");
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn limits_and_refusals() {
    let s = Server::start(None);
    // Bodies past 4 MiB: 413 with a message, by Content-Length or by what arrives.
    let big = vec![b' '; (4 << 20) + 1];
    let (status, body) = s.request("POST", "/api/check", &[], &big);
    assert_eq!(status, 413);
    assert!(json_of(&body)["error"].as_str().unwrap().contains("4 MiB"));
    // Other origins and other host names (DNS rebinding) are refused.
    let (status, body) = s.request(
        "POST",
        "/api/check",
        &[("Origin", "http://evil.example")],
        b"{}",
    );
    assert_eq!(status, 403);
    assert!(json_of(&body)["error"].is_string());
    let (status, _) = s.request("GET", "/", &[("Host", "evil.example")], b"");
    assert_eq!(status, 403);
    let origin = format!("http://localhost:{}", s.port);
    let (status, _) = s.request(
        "POST",
        "/api/check",
        &[("Origin", &origin)],
        br#"{"source": "vs_2_0\n"}"#,
    );
    assert_eq!(status, 200);
    // Bad requests.
    for (method, path, body, want) in [
        ("GET", "/api/check", "", 405),
        ("POST", "/api/initial", "", 405),
        ("POST", "/api/nothing", "{}", 404),
        ("POST", "/api/check", "not json", 400),
        (
            "POST",
            "/api/check",
            "{\"source\": \"vs_2_0\", \"extra\": 1}",
            400,
        ),
        ("POST", "/api/run", "[]", 400),
        ("POST", "/api/check", "\u{0}\u{ff}", 400),
    ] {
        let (status, body) = s.request(method, path, &[], body.as_bytes());
        assert_eq!(status, want, "{method} {path} {body:?}");
        assert!(json_of(&body)["error"].is_string(), "{method} {path}");
    }
    // Malformed or unframed requests.
    let host = format!("Host: 127.0.0.1:{}\r\n", s.port);
    for (raw, want) in [
        ("NONSENSE\r\n\r\n".to_string(), 400),
        (
            format!(
                "GET / HTTP/1.1\r\n{host}X-Long: {}\r\n\r\n",
                "a".repeat(20_000)
            ),
            431,
        ),
        (
            format!(
                "POST /api/check HTTP/1.1\r\n{host}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
            ),
            411,
        ),
        (
            format!("POST /api/check HTTP/1.1\r\n{host}Content-Length: 12x\r\n\r\n"),
            400,
        ),
    ] {
        assert_eq!(
            raw_status(s.port, raw.as_bytes()),
            want,
            "{}",
            &raw[..raw.len().min(60)]
        );
    }
    // Connections past 64 at once are answered 503; the server serves again once they close.
    let idle: Vec<TcpStream> = (0..64)
        .map(|_| TcpStream::connect(("127.0.0.1", s.port)).expect("connect"))
        .collect();
    let busy = format!("GET / HTTP/1.1\r\n{host}\r\n");
    assert_eq!(raw_status(s.port, busy.as_bytes()), 503);
    drop(idle);
    let again = Instant::now();
    while s.get("/").0 != 200 {
        assert!(again.elapsed() < Duration::from_secs(30), "serving again");
        std::thread::sleep(Duration::from_millis(20));
    }
    // HEAD: the headers alone.
    let (status, body) = s.request("HEAD", "/", &[], b"");
    assert_eq!((status, body.len()), (200, 0));
    // Still serving.
    assert_eq!(s.get("/").0, 200);
}

/// 10,000 requests from 8 client threads on loopback, a mix of the endpoints the page calls
/// as one types: none may fail; prints the p99 latency.
#[test]
fn load() {
    const CLIENTS: usize = 8;
    const REQUESTS: usize = 10_000;
    let s = Server::start(None);
    let port = s.port;
    let started = Instant::now();
    let threads: Vec<_> = (0..CLIENTS)
        .map(|c| {
            std::thread::spawn(move || {
                let mut times = Vec::new();
                for i in (c..REQUESTS).step_by(CLIENTS) {
                    let body = json!({"source": VALID}).to_string();
                    let (path, method, body) = match i % 4 {
                        0 => ("/api/check", "POST", body),
                        1 => ("/api/assemble", "POST", body),
                        2 => ("/api/ctab", "POST", body),
                        _ => ("/", "GET", String::new()),
                    };
                    let t = Instant::now();
                    let (status, _) = request(port, method, path, &[], body.as_bytes());
                    times.push(t.elapsed());
                    assert_eq!(status, 200, "request {i}: {method} {path}");
                }
                times
            })
        })
        .collect();
    let mut times: Vec<Duration> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("a client"))
        .collect();
    assert_eq!(times.len(), REQUESTS);
    times.sort();
    let p = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "load: {REQUESTS} requests from {CLIENTS} clients in {:.2} s: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        started.elapsed().as_secs_f64(),
        p(0.5).as_secs_f64() * 1e3,
        p(0.99).as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
    );
}

/// A 32x16 frame cleared to black, a 16x16 quad at its left in the pixel shader's colour.
fn quad_scene() -> Value {
    json!({
        "width": 32, "height": 16, "clear": {"color": "0xff000000"},
        "pixel_shader_asm": "ps_2_0\ndef c0, 1, 0.5, 0, 1\nmov oC0, c0\n",
        "primitive": "TRIANGLESTRIP", "vertex_count": 4,
        "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITIONT", "usage_index": 0}],
        "streams": [{"stride": 16, "f32": [0, 0, 0.5, 1, 16, 0, 0.5, 1, 0, 16, 0.5, 1, 16, 16, 0.5, 1]}],
        "states": {"CULLMODE": "NONE"},
    })
}

#[test]
fn draw_and_pixel() {
    let s = Server::start(None);
    let (status, png) = s.request(
        "POST",
        "/api/draw",
        &[],
        json!({"scene": quad_scene()}).to_string().as_bytes(),
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&png));
    // The picture `dxso draw -o OUT.png` writes, byte for byte.
    let dir = std::env::temp_dir().join(format!("dxso-serve-draw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder");
    let scene_path = dir.join("quad.json");
    std::fs::write(&scene_path, quad_scene().to_string()).expect("write the scene");
    let out = dir.join("quad.png");
    dxso(&[
        "draw",
        scene_path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(png, std::fs::read(&out).expect("the CLI's picture"));
    let decoded = png::Decoder::new(std::io::Cursor::new(&png))
        .read_info()
        .expect("a PNG");
    assert_eq!((decoded.info().width, decoded.info().height), (32, 16));

    let (status, v) = s.post("pixel", &json!({"scene": quad_scene(), "x": 5, "y": 5}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["pixel"]["targets"][0],
        json!([1.0, 0.5019608, 0.0, 1.0]),
        "{v}"
    );
    assert_eq!(v["draws"][0]["shader"]["steps"][0]["text"], "mov oC0, c0");
    let step = v["draws"][0]["shader"]["steps"][0]
        .as_object()
        .expect("a step");
    let keys: Vec<&str> = step.keys().map(String::as_str).collect();
    assert_eq!(keys, ["active", "effect", "instruction", "text"]);
    assert_eq!(step["active"], true);
    assert_eq!(v["draws"][0]["merge"]["written"], true);
    // The text `dxso draw --trace-pixel` prints.
    let cli = dxso(&["draw", scene_path.to_str().unwrap(), "--trace-pixel", "5,5"]);
    assert_eq!(v["text"].as_str().unwrap(), cli);
    let (status, v) = s.post("pixel", &json!({"scene": quad_scene(), "x": 24, "y": 5}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["draws"], json!([]));
    assert_eq!(v["pixel"]["targets"][0], json!([0.0, 0.0, 0.0, 1.0]));
    let _ = std::fs::remove_dir_all(&dir);

    // Bad input.
    let (status, v) = s.post("pixel", &json!({"scene": quad_scene(), "x": 32, "y": 0}));
    assert_eq!(status, 422, "{v}");
    let (status, v) = s.post("draw", &json!({"scene": quad_scene(), "target": 1}));
    assert_eq!(status, 422, "{v}");
    let mut big = quad_scene();
    big["width"] = json!(8192);
    big["height"] = json!(8192);
    let (status, v) = s.post("draw", &json!({"scene": big}));
    assert_eq!(status, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("at most"), "{v}");
    let mut bad = quad_scene();
    bad["states"] = json!({"CULLMODE": "SIDEWAYS"});
    let (status, v) = s.post("draw", &json!({"scene": bad}));
    assert_eq!(status, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("SIDEWAYS"), "{v}");
    let (status, v) = s.post("pixel", &json!({"scene": quad_scene(), "x": 1}));
    assert_eq!(status, 400, "{v}");
    // A run scene is not a draw scene, and the other way round.
    let (status, v) = s.post("run", &json!({"scene": quad_scene()}));
    assert_eq!(status, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("/api/draw"), "{v}");
}

#[test]
fn examples_built_in() {
    let s = Server::start(None);
    let (status, body) = s.get("/api/examples");
    assert_eq!(status, 200);
    let v = json_of(&body);
    let list = v["examples"].as_array().expect("a list");
    let names: Vec<&str> = list.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "textured",
            "terrain",
            "two_sided",
            "fog",
            "bump",
            "blending",
            "heightmap"
        ]
    );
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    for e in list {
        let name = e["name"].as_str().unwrap();
        // Each scene has its shaders inline: it draws, wherever the server runs, the picture
        // committed beside it (what `dxso draw` drew), byte for byte.
        if e["kind"] == "draw" {
            let (status, png) = s.request(
                "POST",
                "/api/draw",
                &[],
                json!({"scene": e["scene"]}).to_string().as_bytes(),
            );
            assert_eq!(status, 200, "{name}: {}", String::from_utf8_lossy(&png));
            let file = examples.join(format!("draw/{name}.scene.png"));
            assert!(png == std::fs::read(&file).unwrap(), "{name}: not {file:?}");
        }
    }
    // The terrain: its pixel shader opens in the editor; its mesh is the scene's geometry.
    let terrain = &list[1];
    let ps = std::fs::read_to_string(examples.join("draw/terrain.ps.asm")).unwrap();
    assert_eq!(terrain["shader"], ps);
    assert_eq!(
        terrain["scene"]["shader_asm"]
            .as_str()
            .map(|t| t.contains("vs_")),
        Some(true)
    );
    let mesh = &terrain["mesh"];
    assert_eq!(mesh["primitive"], "TRIANGLELIST");
    assert_eq!(mesh["vertex_count"], 3174);
    assert_eq!(mesh["indices"].as_array().map(Vec::len), Some(3174));
    assert_eq!(mesh["declaration"][0]["usage"], "POSITION");
    assert_eq!(mesh["streams"][0]["stride"], 16);
    // The heightmap is a run scene: it runs as `dxso run` runs its file.
    let heightmap = &list[6];
    assert_eq!(heightmap["kind"], "run");
    let (status, v) = s.post("run", &json!({"scene": heightmap["scene"]}));
    assert_eq!(status, 200, "{v}");
    let cli: Value = serde_json::from_str(&dxso(&[
        "run",
        examples.join("heightmap/scene.json").to_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(v["vertices"], cli["vertices"]);
    let (status, _) = s.post("examples", &json!({}));
    assert_eq!(status, 405);
}

#[test]
fn a_png_becomes_an_inline_texture() {
    let s = Server::start(None);
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/heightmap");
    let png = std::fs::read(examples.join("height.png")).unwrap();
    let (status, body) = s.request("POST", "/api/texture", &[], &png);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let t = json_of(&body);
    assert_eq!(
        (&t["format"], &t["width"], &t["height"]),
        (&json!("A8B8G8R8"), &json!(4), &json!(4))
    );
    // height.png's second texel is grey 17: R, G, B, then an opaque A.
    assert_eq!(t["levels"][0].as_array().unwrap()[4..8], [17, 17, 17, 255]);
    // In place of the file, the scene runs as `dxso run` runs the one naming the file.
    let mut scene: Value =
        serde_json::from_str(&std::fs::read_to_string(examples.join("scene-png.json")).unwrap())
            .unwrap();
    scene["shader_asm"] = json!(std::fs::read_to_string(examples.join("displace.asm")).unwrap());
    scene.as_object_mut().unwrap().remove("shader");
    scene["textures"]["s0"] = t;
    let (status, v) = s.post("run", &json!({"scene": scene}));
    assert_eq!(status, 200, "{v}");
    let cli: Value = serde_json::from_str(&dxso(&[
        "run",
        examples.join("scene-png.json").to_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(v["vertices"], cli["vertices"]);
    // Not a PNG: 422 with the reader's message.
    let (status, body) = s.request("POST", "/api/texture", &[], b"GIF89a");
    assert_eq!(status, 422);
    assert!(
        json_of(&body)["error"].as_str().unwrap().starts_with("PNG"),
        "{}",
        String::from_utf8_lossy(&body)
    );
    // A PNG larger than a scene in a request can hold inline (1024x1024, 8 KiB of PNG): 422.
    let mut big = Vec::new();
    {
        let mut e = png::Encoder::new(&mut big, 1024, 1024);
        e.set_color(png::ColorType::Grayscale);
        let mut w = e.write_header().expect("a header");
        w.write_image_data(&vec![0u8; 1024 * 1024])
            .expect("the pixels");
    }
    let (status, body) = s.request("POST", "/api/texture", &[], &big);
    assert_eq!(status, 422);
    assert_eq!(
        json_of(&body)["error"],
        "PNG: 1024x1024 is more than the 262144 texels allowed here"
    );
    let (status, _) = s.get("/api/texture");
    assert_eq!(status, 405);
}

#[test]
fn a_draw_scenes_vertex_stage() {
    let s = Server::start(None);
    // The quad has no vertex shader: its POSITIONT vertices pass through.
    let (status, v) = s.post("run", &json!({"scene": quad_scene(), "draw": 0}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["draw"], 0);
    assert_eq!(v["vertices"].as_array().map(Vec::len), Some(4));
    assert_eq!(v["outputs"], json!({"o0": "POSITION0"}));
    assert_eq!(v["vertices"][1]["o0"], json!([16.0, 0.0, 0.5, 1.0]));
    // A draw with a vertex shader: the two_sided example's, against its trace.
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/draw");
    let scene = std::fs::read_to_string(examples.join("two_sided.scene.json")).unwrap();
    let mut scene: Value = serde_json::from_str(&scene).unwrap();
    scene["shader_asm"] =
        json!(std::fs::read_to_string(examples.join("two_sided.vs.asm")).unwrap());
    scene["pixel_shader_asm"] =
        json!(std::fs::read_to_string(examples.join("two_sided.ps.asm")).unwrap());
    let obj = scene.as_object_mut().unwrap();
    obj.remove("shader");
    obj.remove("pixel_shader");
    let (status, v) = s.post("run", &json!({"scene": scene, "draw": 0}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["vertices"].as_array().map(Vec::len), Some(12));
    let (status, t) = s.post("trace", &json!({"scene": scene, "vertex": 2, "draw": 0}));
    assert_eq!(status, 200, "{t}");
    assert_eq!(t["steps"][0]["text"], "mov o0, v0");
    assert_eq!(
        t["outputs"][1],
        json!({"register": "o1", "semantic": "COLOR0", "value": [0.9, 0.5, 0.3, 1.0]})
    );
    // The trace's outputs are the table's row.
    let reg = t["outputs"][0]["register"].as_str().unwrap();
    assert_eq!(t["outputs"][0]["value"], v["vertices"][2][reg]);
    assert_eq!(v["vertices"][2]["o0"], json!([-0.51, 0.48541018, 0.5, 1.0]));
    // Bad input.
    let (status, v) = s.post("run", &json!({"scene": quad_scene(), "draw": 1}));
    assert_eq!(status, 422, "{v}");
    assert_eq!(v["error"], "draw 1: the scene has 1 draw");
    let (status, v) = s.post("run", &json!({"scene": scale_scene(), "draw": 0}));
    assert_eq!(status, 422, "{v}");
    let (status, v) = s.post(
        "trace",
        &json!({"scene": quad_scene(), "vertex": 4, "draw": 0}),
    );
    assert_eq!(status, 422, "{v}");
}
