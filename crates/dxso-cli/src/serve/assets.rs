//! The page's files, built into the binary: the playground needs no network and no files
//! beside the binary.

use super::http::Reply;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// The asset at `path`, if there is one.
pub fn get(path: &str) -> Option<Reply> {
    let (content_type, body) = match path {
        "/" | "/index.html" => ("text/html; charset=utf-8", INDEX_HTML),
        "/app.js" => ("text/javascript; charset=utf-8", APP_JS),
        "/style.css" => ("text/css; charset=utf-8", STYLE_CSS),
        _ => return None,
    };
    Some(Reply {
        status: 200,
        content_type,
        body: body.as_bytes().to_vec(),
    })
}
