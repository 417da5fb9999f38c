//! One self-contained HTML page per game (`durak replay --html OUT.html FILE`), and an index of
//! pages for a tournament ([`write_html_pages`]).
//!
//! The page has no external resource at all (a Content-Security-Policy forbids any network
//! request): its CSS and JavaScript are inline, the game is embedded as JSON, and every step's
//! state is computed here in Rust, for the full view and for each seat's view (from the engine's
//! observation), so the script only renders. Cards are drawn with CSS. The page steps with
//! buttons, a slider and the arrow keys (Home/End, PageUp/PageDown too), and reads its position
//! from the URL fragment, `#step=5&seat=1` (`seat` absent: the full view), which it keeps up to
//! date. `&press=ArrowRight,ArrowRight` presses keys after loading (for scripted tests).

use crate::error::ReplayError;
use crate::read::read_replay;
use crate::sim::{simulate, Simulation};
use crate::view::{all_views, result_text, StepView};
use durak_protocol::text::escape_controls;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

const CSS: &str = include_str!("page/page.css");
const JS: &str = include_str!("page/page.js");
const INDEX_CSS: &str = include_str!("page/index.css");

/// Escape text for HTML (element content and quoted attributes); control characters and
/// bidirectional overrides become visible escapes first (`\e`, `\u{202e}`), as on a terminal.
pub fn escape(s: &str) -> String {
    let s = escape_controls(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[derive(Serialize)]
struct SeatInfo {
    seat: usize,
    name: String,
}

#[derive(Serialize)]
struct PageData<'a> {
    source: &'a str,
    variant: &'a str,
    players: usize,
    game: u32,
    /// Seeds as text: JavaScript numbers cannot hold every u64.
    seed: String,
    series_seed: String,
    dealer: usize,
    seats: Vec<SeatInfo>,
    verified: bool,
    /// The verification in one sentence.
    verdict: String,
    /// The step where the replay differs (1-based), if it does at a step.
    differs_at: Option<usize>,
    result: String,
    /// Steps (1-based) with a fault.
    fault_steps: Vec<usize>,
    /// Every step in the full view.
    steps: Vec<StepView>,
    /// `seat_views[s][i]`: seat `s`'s view of step `i`, as a [`delta`] from the full view.
    seat_views: Vec<Vec<Value>>,
}

/// What `view` changes in `base`, or `None` when they are equal. Objects give the changed keys
/// (a key `view` lacks is `null`), recursively; arrays of objects of the same length give one
/// delta per element (`{}` for an equal one); anything else is replaced whole. [`merge`] (and
/// `merge` in page.js, its mirror) undoes it. Seat views differ from the full view in a few
/// fields only (hidden hands, private events, the legal choices), so the page stays small.
pub fn delta(base: &Value, view: &Value) -> Option<Value> {
    if base == view {
        return None;
    }
    Some(match (base, view) {
        (Value::Object(b), Value::Object(v)) => {
            let mut out = Map::new();
            for (k, vv) in v {
                match b.get(k) {
                    Some(bv) => {
                        if let Some(d) = delta(bv, vv) {
                            out.insert(k.clone(), d);
                        }
                    }
                    None => {
                        out.insert(k.clone(), vv.clone());
                    }
                }
            }
            for k in b.keys() {
                if !v.contains_key(k) {
                    out.insert(k.clone(), Value::Null);
                }
            }
            Value::Object(out)
        }
        (Value::Array(b), Value::Array(v)) if patchable(b, v) => Value::Array(
            b.iter()
                .zip(v)
                .map(|(bv, vv)| delta(bv, vv).unwrap_or_else(|| Value::Object(Map::new())))
                .collect(),
        ),
        _ => view.clone(),
    })
}

fn patchable(b: &[Value], d: &[Value]) -> bool {
    b.len() == d.len() && b.iter().chain(d).all(Value::is_object)
}

/// `base` with a [`delta`] applied (what page.js does to show a seat's view).
pub fn merge(base: &Value, d: &Value) -> Value {
    match (base, d) {
        (Value::Array(b), Value::Array(dv)) if patchable(b, dv) => {
            Value::Array(b.iter().zip(dv).map(|(x, y)| merge(x, y)).collect())
        }
        (Value::Object(b), Value::Object(dv)) => {
            let mut out = b.clone();
            for (k, v) in dv {
                let merged = match b.get(k) {
                    Some(bv) => merge(bv, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Value::Object(out)
        }
        _ => d.clone(),
    }
}

fn page_data(sim: &Simulation) -> PageData<'_> {
    let h = &sim.header;
    // The views as every viewer shows them: the bots' text escaped.
    let escaped = |views: Vec<StepView>| views.iter().map(StepView::escaped).collect::<Vec<_>>();
    let steps = escaped(all_views(sim, None));
    let full: Vec<Value> = steps
        .iter()
        .map(|v| serde_json::to_value(v).expect("a view serializes"))
        .collect();
    let seat_views = (0..h.players)
        .map(|s| {
            escaped(all_views(sim, Some(s)))
                .iter()
                .zip(&full)
                .map(|(v, base)| {
                    let v = serde_json::to_value(v).expect("a view serializes");
                    delta(base, &v).unwrap_or_else(|| Value::Object(Map::new()))
                })
                .collect()
        })
        .collect();
    PageData {
        source: &sim.source,
        variant: h.variant.name(),
        players: h.players,
        game: h.game,
        seed: h.seed.to_string(),
        series_seed: h.series_seed.to_string(),
        dealer: h.dealer,
        seats: (0..h.players)
            .map(|s| SeatInfo {
                seat: s,
                name: escape_controls(&h.seat_label(s)).into_owned(),
            })
            .collect(),
        verified: sim.verified(),
        verdict: crate::text::verdict(sim),
        differs_at: sim.divergence.as_ref().and_then(|d| d.step),
        result: escape_controls(&result_text(h, sim.end())).into_owned(),
        fault_steps: sim
            .steps
            .iter()
            .filter(|s| !s.faults.is_empty())
            .map(|s| s.number)
            .collect(),
        steps,
        seat_views,
    }
}

/// JSON that is safe inside a `<script>` element: no `<` at all (so no `</script>`).
fn script_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v)
        .expect("page data serializes")
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// The page of one game, with a link back to an index page when `index` is given.
pub fn html_page_linked(sim: &Simulation, index: Option<&str>) -> String {
    let h = &sim.header;
    let title = format!(
        "Durak replay: {} game {} ({} players)",
        h.variant.name(),
        h.game,
        h.players
    );
    let back = index
        .map(|href| {
            format!(
                "<a class=\"back-link\" href=\"{}\">← all games</a>",
                escape(href)
            )
        })
        .unwrap_or_default();
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{title}</title>
<style>
{CSS}
</style>
</head>
<body>
<header>
  <div class="titles">{back}<h1>{title}</h1><div id="meta"></div></div>
  <div id="verdict"></div>
</header>
<nav id="controls" aria-label="steps">
  <button id="first" title="first step (Home)">|◀</button>
  <button id="prev" title="previous step (←)">◀</button>
  <input id="slider" type="range" min="1" max="1" value="1" aria-label="step">
  <button id="next" title="next step (→)">▶</button>
  <button id="last" title="last step (End)">▶|</button>
  <span id="status"></span>
  <label>view <select id="view"></select></label>
</nav>
<main>
  <section id="title-bar"></section>
  <section id="seats"></section>
  <section id="felt">
    <div id="stockpile"></div>
    <div id="table"></div>
    <div id="discard"></div>
  </section>
  <section id="decision"></section>
  <section id="events"></section>
</main>
<footer>← → step · Home End first / last · PageUp PageDown 10 steps · the page remembers its step in the address (#step=N&amp;seat=S)</footer>
<noscript><p class="noscript">This page needs JavaScript to show the game.</p></noscript>
<script type="application/json" id="replay-data">{data}</script>
<script>
{JS}
</script>
</body>
</html>
"#,
        title = escape(&title),
        data = script_json(&page_data(sim)),
    )
}

/// The page of one game.
pub fn html_page(sim: &Simulation) -> String {
    html_page_linked(sim, None)
}

fn write_file(path: &Path, text: &str) -> Result<(), ReplayError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| ReplayError::write(dir, e))?;
    }
    std::fs::write(path, text).map_err(|e| ReplayError::write(path, e))
}

/// Write the page of one game to `out`.
pub fn write_html_page(sim: &Simulation, out: &Path) -> Result<(), ReplayError> {
    write_file(out, &html_page(sim))
}

fn safe_name(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "game".into()
    } else {
        cleaned
    }
}

/// A page name for each replay: its file stem, made unique with its folder's name (and then a
/// number) when two replays share a stem.
fn page_names(replays: &[PathBuf]) -> Vec<String> {
    let mut used = HashSet::new();
    replays
        .iter()
        .map(|p| {
            let stem = safe_name(&p.file_stem().unwrap_or_default().to_string_lossy());
            let parent = p
                .parent()
                .and_then(|d| d.file_name())
                .map(|d| safe_name(&d.to_string_lossy()));
            let mut candidates = vec![stem.clone()];
            if let Some(parent) = parent {
                candidates.push(format!("{parent}-{stem}"));
            }
            let name = candidates
                .into_iter()
                .find(|c| !used.contains(c))
                .unwrap_or_else(|| {
                    (2..)
                        .map(|i| format!("{stem}-{i}"))
                        .find(|c| !used.contains(c))
                        .expect("some number is free")
                });
            used.insert(name.clone());
            format!("{name}.html")
        })
        .collect()
}

/// Write one page per replay into `out_dir`, and `out_dir/index.html` linking every page (in
/// the order given), with `standings_html` (an HTML fragment, e.g. a `<table>`, inserted as is)
/// above the list of games. Returns the index page's path.
///
/// Each replay is read and verified: the index shows each game's variant, seats, result, faults,
/// moves and whether it verified. A replay that cannot be read (missing, not a replay, ...) does
/// not stop the others: the index lists it with its error instead of a link. Only a page or the
/// index that cannot be written is an error.
///
/// Page names are the replay file stems (`game-0003.html`); when two replays share a stem, the
/// later one is prefixed with its folder's name.
pub fn write_html_pages(
    replays: &[PathBuf],
    out_dir: &Path,
    standings_html: Option<&str>,
) -> Result<PathBuf, ReplayError> {
    std::fs::create_dir_all(out_dir).map_err(|e| ReplayError::write(out_dir, e))?;
    let names = page_names(replays);
    let mut rows = String::new();
    let (mut ok, mut bad) = (0usize, 0usize);
    for (i, (path, name)) in replays.iter().zip(&names).enumerate() {
        let shown = escape(&path.display().to_string());
        match read_replay(path) {
            Err(e) => {
                bad += 1;
                rows.push_str(&format!(
                    "<tr class=\"error\"><td>{}</td><td colspan=\"6\">{shown}: cannot read: {}</td><td class=\"bad\">✗</td></tr>\n",
                    i + 1,
                    escape(&e.to_string())
                ));
            }
            Ok(replay) => {
                let sim = simulate(&replay);
                let h = &sim.header;
                write_file(
                    &out_dir.join(name),
                    &html_page_linked(&sim, Some("index.html")),
                )?;
                let end = sim.end();
                let seats: Vec<String> = (0..h.players)
                    .map(|s| {
                        let class = if end.loser == Some(s) {
                            " class=\"loser\""
                        } else {
                            ""
                        };
                        format!("<span{class}>{s}: {}</span>", escape(&h.seat_label(s)))
                    })
                    .collect();
                let faults: Vec<String> = end
                    .faults
                    .iter()
                    .map(|f| format!("seat {} {}", f.seat, escape(&f.kind)))
                    .collect();
                let (verified, class) = if sim.verified() {
                    ok += 1;
                    ("✓".to_string(), "ok")
                } else {
                    bad += 1;
                    let d = sim
                        .divergence
                        .as_ref()
                        .map(|d| d.to_string())
                        .unwrap_or_default();
                    (format!("✗ <small>{}</small>", escape(&d)), "bad")
                };
                rows.push_str(&format!(
                    "<tr{}><td>{}</td><td><a href=\"{}\">{}</a></td><td>{} · game {}</td><td class=\"seats\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{class}\">{verified}</td></tr>\n",
                    if end.faults.is_empty() { "" } else { " class=\"fault\"" },
                    i + 1,
                    escape(name),
                    shown,
                    h.variant.name(),
                    h.game,
                    seats.join(" "),
                    escape(&result_text(h, end)),
                    if faults.is_empty() { "—".into() } else { faults.join(", ") },
                    end.moves,
                ));
            }
        }
    }
    let standings = standings_html
        .map(|s| format!("<section class=\"standings\"><h2>Standings</h2>\n{s}\n</section>"))
        .unwrap_or_default();
    let index = format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Durak replays</title>
<style>
{INDEX_CSS}
</style>
</head>
<body>
<h1>Durak replays</h1>
{standings}
<section class="games">
<h2>Games</h2>
<p>{count} games: {ok} verified{bad_text}.</p>
<table>
<thead><tr><th>#</th><th>replay</th><th>game</th><th>seats</th><th>result</th><th>faults</th><th>moves</th><th>verified</th></tr></thead>
<tbody>
{rows}</tbody>
</table>
</section>
</body>
</html>
"#,
        count = replays.len(),
        bad_text = if bad > 0 {
            format!(", {bad} not verified or unreadable")
        } else {
            String::new()
        },
    );
    let index_path = out_dir.join("index.html");
    write_file(&index_path, &index)?;
    Ok(index_path)
}
