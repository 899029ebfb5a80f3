//! `dxso serve [--port 8080] [--open] [SCENE.json | SHADER]`: the playground, a local web
//! page over the same library calls as the commands (`docs/playground.md`).
//!
//! - `http`: the server (127.0.0.1 only, one request a connection, body limit, Host/Origin
//!   checks, panics caught);
//! - `api`: the JSON endpoints, each a thin door to what a command calls;
//! - `scenes`: every call into scenes and draws;
//! - `examples`: the scenes under `examples/`, built in, for the page's pickers;
//! - `assets`: the page (HTML, JS, CSS) built into the binary.

mod api;
mod assets;
mod examples;
mod http;
mod scenes;

use crate::Failure;
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Start the server on 127.0.0.1:`port` (0: any free port), print
/// `listening on http://127.0.0.1:PORT/` as the first line of stdout, and serve until
/// interrupted. `file`: a scene (`.json`) or a shader the page opens with.
pub fn serve(port: u16, open: bool, file: Option<&Path>) -> Result<(), Failure> {
    let (initial, dir) = initial(file)?;
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("listening on 127.0.0.1:{port}"))?;
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(port);
    let url = format!("http://127.0.0.1:{port}/");
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on {url}")
            .and_then(|()| out.flush())
            .context("writing stdout")?;
    }
    eprintln!("dxso serve: the playground; press Ctrl-C to stop");
    if open {
        open_browser(&url);
    }
    let state = api::State { dir, initial };
    http::run(listener, port, move |r: &http::Incoming| {
        if let Some(path) = r.path.strip_prefix("/api/") {
            return api::route(&state, r.method, path, r.body);
        }
        match (r.method, assets::get(r.path)) {
            ("GET" | "HEAD", Some(reply)) => reply,
            (_, Some(_)) => http::Reply::error(405, format!("{} {}: use GET", r.method, r.path)),
            (_, None) => http::Reply::error(404, format!("no page {}", r.path)),
        }
    });
    Ok(())
}

/// What the page opens with (`/api/initial`): `{"name", "shader", "scene"}` (each null when
/// not given), and the folder a scene's relative paths start from.
fn initial(file: Option<&Path>) -> Result<(serde_json::Value, PathBuf), Failure> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let Some(file) = file else {
        return Ok((
            serde_json::json!({"name": null, "shader": null, "scene": null}),
            cwd,
        ));
    };
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => cwd,
    };
    let name = file.display().to_string();
    let is_scene = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_scene {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let shader = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| scene_shader(&v, &dir));
        return Ok((
            serde_json::json!({"name": name, "shader": shader, "scene": text}),
            dir,
        ));
    }
    Ok((
        serde_json::json!({"name": name, "shader": shader_text(&bytes), "scene": null}),
        dir,
    ))
}

/// The shader a scene's page opens with: a draw scene's pixel shader (the scene's own, or its
/// first draw's), else its vertex shader; a file it names, or its inline text.
fn scene_shader(scene: &serde_json::Value, dir: &Path) -> Option<String> {
    let first_draw = scene
        .get("draws")
        .and_then(|d| d.as_array())
        .and_then(|d| d.first());
    let mut places = vec![scene];
    places.extend(first_draw);
    for (file, inline) in [
        ("pixel_shader", "pixel_shader_asm"),
        ("shader", "shader_asm"),
    ] {
        for place in &places {
            if let Some(path) = place.get(file).and_then(|s| s.as_str())
                && let Ok(bytes) = std::fs::read(dir.join(path))
            {
                return Some(shader_text(&bytes));
            }
            if let Some(text) = place.get(inline).and_then(|s| s.as_str()) {
                return Some(text.to_string());
            }
        }
    }
    None
}

/// A shader file as the editor shows it: text as it is; binary tokens as hex tokens (the
/// page disassembles them).
fn shader_text(bytes: &[u8]) -> String {
    if crate::input::is_bytecode(bytes) && dxso::source::hex_tokens(bytes).is_none() {
        let mut s = String::new();
        for w in bytes.chunks(4) {
            let mut t = [0u8; 4];
            t[..w.len()].copy_from_slice(w);
            s.push_str(&format!("{:08x}\n", u32::from_le_bytes(t)));
        }
        s
    } else {
        String::from_utf8_lossy(bytes).into_owned()
    }
}

fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if std::process::Command::new(opener).arg(url).spawn().is_err() {
        eprintln!("dxso serve: could not start {opener}; open {url} yourself");
    }
}
