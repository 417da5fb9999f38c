//! No file path of the server in what it serves (issue 22). The server's own views name files
//! relative to the data directory (`replays/j3/g0001.jsonl.zst`, `tournaments/2`); what it
//! relays from elsewhere may hold the data directory's absolute path: a build's output
//! (`Compiling bot (/srv/durak/bots/v7)`), a tournament's `tournament.toml` and report (the
//! bots' working directories), an error from the file system. [`layer`] rewrites that path to
//! `DATA` in every answer that is text (HTML, JSON, JSON lines, plain text) and not a stream, so
//! no page and no API answer shows where the server keeps its files.

use super::AppState;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::path::Path;

/// What the data directory's path becomes.
pub const NAME: &str = "DATA";

/// The largest answer rewritten (a report's file is at most 256 MiB, `reports.rs`).
const MAX: usize = 256 << 20;

/// The forms of the data directory's path to hide: as configured and as the kernel resolves
/// it (through symbolic links), longest first.
pub fn forms(root: &Path) -> Vec<String> {
    let mut v = vec![root.display().to_string()];
    if let Ok(c) = root.canonicalize() {
        v.push(c.display().to_string());
    }
    v.retain(|p| p.len() > 1);
    v.sort_by_key(|p| std::cmp::Reverse(p.len()));
    v.dedup();
    v
}

/// `text` with every form of the path replaced by [`NAME`]; `None` when it holds none.
pub fn redact(text: &[u8], forms: &[String]) -> Option<Vec<u8>> {
    if !forms
        .iter()
        .any(|f| memchr::memmem::find(text, f.as_bytes()).is_some())
    {
        return None;
    }
    let mut out = text.to_vec();
    for f in forms {
        let mut next = Vec::with_capacity(out.len());
        let mut rest = &out[..];
        while let Some(i) = memchr::memmem::find(rest, f.as_bytes()) {
            next.extend_from_slice(&rest[..i]);
            next.extend_from_slice(NAME.as_bytes());
            rest = &rest[i + f.len()..];
        }
        next.extend_from_slice(rest);
        out = next;
    }
    Some(out)
}

fn is_text(r: &Response) -> bool {
    let ty = r
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    !ty.starts_with("text/event-stream")
        && (ty.starts_with("text/")
            || ty.contains("json")
            || ty.contains("javascript")
            || ty.contains("toml")
            || ty.contains("xml"))
}

/// The layer: answers that are text, rewritten (module documentation).
pub async fn layer(State(s): State<AppState>, req: Request, next: Next) -> Response {
    let r = next.run(req).await;
    if !is_text(&r) {
        return r;
    }
    let (mut parts, body) = r.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX).await {
        Ok(b) => b,
        Err(_) => {
            return super::ApiError::new(500, "the answer was too large to send").into_response()
        }
    };
    match redact(&bytes, &s.hidden_paths) {
        Some(out) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(out))
        }
        None => Response::from_parts(parts, Body::from(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_directory_becomes_its_name() {
        let hidden = vec!["/srv/durak/data".to_string()];
        let t = b"cwd = \"/srv/durak/data/bots/v3/\"\nx /srv/durak/data";
        assert_eq!(
            String::from_utf8(redact(t, &hidden).unwrap()).unwrap(),
            "cwd = \"DATA/bots/v3/\"\nx DATA"
        );
        assert_eq!(redact(b"nothing here", &hidden), None);
        let d = tempfile::tempdir().unwrap();
        let f = forms(d.path());
        assert!(f.contains(&d.path().display().to_string()), "{f:?}");
    }
}
