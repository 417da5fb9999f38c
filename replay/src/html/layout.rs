//! The one layout of every page (a game's, a tournament report's), written with
//! [maud](https://maud.lambda.xyz): templates checked by the compiler, every spliced value
//! HTML-escaped unless wrapped in `PreEscaped`, which only this crate's own markup and JSON use.
//!
//! A page has no external resource: its CSS and JavaScript are files beside it ([`Asset`]),
//! named after a hash of their content so that pages written by another version of `durak` keep
//! their own; a Content-Security-Policy forbids anything else (no network, no inline script).
//! The same files work opened from a folder (`file://`) and served by a web server.

use durak_protocol::text::escape_controls;
use maud::{html, Markup, PreEscaped, Render, DOCTYPE};
use serde::Serialize;
use std::path::Path;

/// No network, no inline script or style: only the page's own files (and inline JSON data,
/// which is not run).
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                       img-src 'self' data:; connect-src 'self'";

/// Text a bot controls (names, stderr, fault details): control characters and bidirectional
/// overrides made visible escapes (`\e`, `\u{202e}`), then HTML-escaped like any value.
pub struct Bot<'a>(pub &'a str);

impl Render for Bot<'_> {
    fn render_to(&self, buffer: &mut String) {
        escape_controls(self.0).as_ref().render_to(buffer);
    }
}

/// A CSS or JavaScript file the pages load, written beside them.
#[derive(Clone, Copy, Debug)]
pub struct Asset {
    pub stem: &'static str,
    pub ext: &'static str,
    pub text: &'static str,
    /// FNV-1a of `text` ([`Asset::new`] computes it: pages name their files by it, and a
    /// server that renders pages would otherwise hash every file for every page).
    pub hash: u32,
}

const fn fnv1a(s: &str) -> u32 {
    let b = s.as_bytes();
    let mut h: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < b.len() {
        h ^= b[i] as u32;
        h = h.wrapping_mul(0x0100_0193);
        i += 1;
    }
    h
}

impl Asset {
    /// An asset, its hash computed once, at compile time.
    pub const fn new(stem: &'static str, ext: &'static str, text: &'static str) -> Asset {
        Asset {
            stem,
            ext,
            text,
            hash: fnv1a(text),
        }
    }

    /// `viewer-1a2b3c4d.js`: the hash of the content, so that a page always gets the script it
    /// was written with.
    pub fn file_name(&self) -> String {
        format!("{}-{:08x}.{}", self.stem, self.hash, self.ext)
    }

    /// Write the file into `dir` unless it is there already with this content.
    pub fn write_into(&self, dir: &Path) -> std::io::Result<()> {
        let path = dir.join(self.file_name());
        if std::fs::read(&path).is_ok_and(|b| b == self.text.as_bytes()) {
            return Ok(());
        }
        std::fs::write(path, self.text)
    }
}

/// The style every page shares (colours, type, tables, the header).
pub const SITE_CSS: Asset = Asset::new("site", "css", include_str!("../page/site.css"));
/// The game viewer's style and script.
pub const VIEWER_CSS: Asset = Asset::new("viewer", "css", include_str!("../page/viewer.css"));
pub const VIEWER_JS: Asset = Asset::new("viewer", "js", include_str!("../page/viewer.js"));
/// Every asset: written together, so that any page of a folder finds what it needs.
pub const ASSETS: [Asset; 3] = [SITE_CSS, VIEWER_CSS, VIEWER_JS];

/// Write every asset into `dir`.
pub fn write_assets(dir: &Path) -> std::io::Result<()> {
    ASSETS.iter().try_for_each(|a| a.write_into(dir))
}

/// JSON that is safe inside a `<script type="application/json">` element: no `<` (so no
/// `</script>`), and no line or paragraph separator.
pub fn script_json<T: Serialize>(v: &T) -> PreEscaped<String> {
    PreEscaped(
        serde_json::to_string(v)
            .expect("page data serializes")
            .replace('<', "\\u003c")
            .replace('\u{2028}', "\\u2028")
            .replace('\u{2029}', "\\u2029"),
    )
}

/// What a page puts in the layout.
pub struct Page<'a> {
    pub title: &'a str,
    /// The path from the page to the folder of the assets: `""` or `"../"`.
    pub root: &'a str,
    pub styles: &'a [Asset],
    pub scripts: &'a [Asset],
    /// A class on `<body>` (`replay`, `report`).
    pub class: &'a str,
    /// Links shown above the title (`← all games`), as (href, text).
    pub crumbs: &'a [(String, String)],
    pub body: Markup,
}

/// The layout: head (charset, viewport, CSP, title, styles), a header with the crumbs, the body,
/// then the scripts.
pub fn page(p: Page<'_>) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta http-equiv="Content-Security-Policy" content=(CSP);
                title { (Bot(p.title)) }
                // No icon: without this line a browser asks the server for /favicon.ico (a 404).
                link rel="icon" href="data:,";
                link rel="stylesheet" href={ (p.root) (SITE_CSS.file_name()) };
                @for s in p.styles {
                    link rel="stylesheet" href={ (p.root) (s.file_name()) };
                }
            }
            body class=(p.class) {
                @if !p.crumbs.is_empty() {
                    nav.crumbs aria-label="pages" {
                        @for (href, text) in p.crumbs {
                            a href=(href) { (text) }
                        }
                    }
                }
                (p.body)
                @for s in p.scripts {
                    script src={ (p.root) (s.file_name()) } {}
                }
            }
        }
    }
    .into_string()
}
