//! Web pages of games: one page per game (`durak replay --html OUT.html FILE`), and the pages of
//! many games with an index ([`write_html_pages`]).
//!
//! A game's page is a small HTML file with the game's compact data ([`data`]) inline as JSON;
//! the viewer (`viewer-HASH.js`, `viewer-HASH.css`, `site-HASH.css`) is one copy per folder,
//! written beside the pages ([`layout::write_assets`]). The page has no external resource (a
//! Content-Security-Policy forbids any other), and works opened from the folder and served by a
//! web server alike. The viewer steps with buttons, a slider and keys, plays the game by itself,
//! jumps to the next fault or round, and reads its position from the URL fragment,
//! `#step=5&seat=1` (`seat` absent: the full view), which it keeps up to date.
//! `&press=ArrowRight,ArrowRight` presses keys after loading (for scripted tests).

pub mod data;
pub mod layout;

use crate::error::ReplayError;
use crate::read::read_replay;
use crate::sim::{simulate, Simulation};
use crate::view::{all_views, result_text, StepView};
use layout::{page, script_json, Bot, Page, VIEWER_CSS, VIEWER_JS};
use maud::{html, Markup};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Where a game's page sits: links back to the pages above it, and what the page above knows
/// of the game (its table and id in a tournament).
#[derive(Clone, Debug, Default)]
pub struct GameContext {
    /// Links shown above the title, as (href, text): `("index.html", "← tournament")`.
    pub crumbs: Vec<(String, String)>,
    /// Words for the title: `table 3, game 2 (id 17)`.
    pub place: Option<String>,
    /// The path from the page to the folder of the viewer's files: `""` or `"../"`.
    pub root: String,
}

/// The seats' names as a title: `greedy vs random`, `a · b · c`.
pub fn seats_title(sim: &Simulation) -> String {
    let h = &sim.header;
    let names: Vec<String> = (0..h.players).map(|s| h.seat_label(s)).collect();
    if names.len() == 2 {
        names.join(" vs ")
    } else {
        names.join(" · ")
    }
}

fn header(sim: &Simulation, ctx: &GameContext) -> Markup {
    let h = &sim.header;
    let end = sim.end();
    html! {
        header.game {
            div.titles {
                h1 { (Bot(&seats_title(sim))) }
                p.meta {
                    (h.variant.name()) ", " (h.players) " players"
                    @if let Some(place) = &ctx.place { ", " (place) }
                    ", game " (h.game) " of its series · deck seed " (h.seed)
                    " · dealer seat " (h.dealer)
                }
                p.result { (Bot(&result_text(h, end))) }
            }
            @if sim.verified() {
                p.verdict.ok title="re-simulated with the rules engine: every line agrees" {
                    "✓ verified"
                }
            } @else {
                p.verdict.bad { "✗ " (Bot(&crate::text::verdict(sim))) }
            }
        }
    }
}

/// The page of one game.
pub fn game_page(sim: &Simulation, ctx: &GameContext) -> String {
    let h = &sim.header;
    let views: Vec<StepView> = all_views(sim, None).iter().map(StepView::escaped).collect();
    let data = data::game_data(sim, &views);
    let title = format!(
        "{} · {} {}game {} · Durak replay",
        seats_title(sim),
        h.variant.name(),
        ctx.place
            .as_ref()
            .map(|p| format!("{p}, "))
            .unwrap_or_default(),
        h.game
    );
    let body = html! {
        (header(sim, ctx))
        main #viewer aria-live="polite" {
            noscript { p.noscript { "This page needs JavaScript to show the game step by step." } }
        }
        script type="application/json" #replay-data { (script_json(&data)) }
    };
    page(Page {
        title: &title,
        root: &ctx.root,
        styles: &[VIEWER_CSS],
        scripts: &[VIEWER_JS],
        class: "replay",
        crumbs: &ctx.crumbs,
        body,
    })
}

/// The page of one game, alone.
pub fn html_page(sim: &Simulation) -> String {
    game_page(sim, &GameContext::default())
}

fn write_file(path: &Path, text: &str) -> Result<(), ReplayError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| ReplayError::write(dir, e))?;
    }
    std::fs::write(path, text).map_err(|e| ReplayError::write(path, e))
}

/// Write the viewer's files into `dir` (created if need be).
pub fn write_assets(dir: &Path) -> Result<(), ReplayError> {
    std::fs::create_dir_all(dir).map_err(|e| ReplayError::write(dir, e))?;
    layout::write_assets(dir).map_err(|e| ReplayError::write(dir, e))
}

/// Write the page of one game to `out`, and the viewer's files beside it.
pub fn write_html_page(sim: &Simulation, out: &Path) -> Result<(), ReplayError> {
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    write_assets(dir)?;
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
pub fn page_names(replays: &[PathBuf]) -> Vec<String> {
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
/// the order given), with `standings_html` (an HTML fragment of this workspace's own, e.g. a
/// `<table>`, inserted as is) above the list of games.
/// Returns the index page's path.
///
/// Each replay is read and verified: the index shows each game's variant, seats, result, faults,
/// moves and whether it verified. A replay that cannot be read (missing, not a replay, ...) does
/// not stop the others: the index lists it with its error instead of a link. Only a page or the
/// index that cannot be written is an error. Replays are read one at a time.
///
/// Page names are the replay file stems (`game-0003.html`); when two replays share a stem, the
/// later one is prefixed with its folder's name.
pub fn write_html_pages(
    replays: &[PathBuf],
    out_dir: &Path,
    standings_html: Option<&str>,
) -> Result<PathBuf, ReplayError> {
    write_assets(out_dir)?;
    let names = page_names(replays);
    let ctx = GameContext {
        crumbs: vec![("index.html".into(), "← all games".into())],
        ..GameContext::default()
    };
    let mut rows = Vec::new();
    let (mut ok, mut bad) = (0usize, 0usize);
    for (i, (path, name)) in replays.iter().zip(&names).enumerate() {
        let shown = path.display().to_string();
        match read_replay(path) {
            Err(e) => {
                bad += 1;
                rows.push(html! {
                    tr.error {
                        td.num { (i + 1) }
                        td colspan="6" { (Bot(&shown)) ": cannot read: " (Bot(&e.to_string())) }
                        td.bad { "✗" }
                    }
                });
            }
            Ok(replay) => {
                let sim = simulate(&replay);
                let h = &sim.header;
                write_file(&out_dir.join(name), &game_page(&sim, &ctx))?;
                let end = sim.end();
                let verified = sim.verified();
                if verified {
                    ok += 1;
                } else {
                    bad += 1;
                }
                let divergence = sim
                    .divergence
                    .as_ref()
                    .map(|d| d.to_string())
                    .unwrap_or_default();
                rows.push(html! {
                    tr class=[(!end.faults.is_empty()).then_some("fault")] {
                        td.num { (i + 1) }
                        td { a href=(name) { (name) } }
                        td { (h.variant.name()) " · game " (h.game) }
                        td.seats {
                            @for s in 0..h.players {
                                span class=[(end.loser == Some(s)).then_some("loser")] {
                                    (s) ": " (Bot(&h.seat_label(s)))
                                }
                                " "
                            }
                        }
                        td { (Bot(&result_text(h, end))) }
                        td {
                            @if end.faults.is_empty() { "—" }
                            @for (j, f) in end.faults.iter().enumerate() {
                                @if j > 0 { ", " }
                                "seat " (f.seat) " " (Bot(&f.kind))
                            }
                        }
                        td.num { (end.moves) }
                        @if verified { td.ok { "✓" } }
                        @else { td.bad { "✗ " small { (Bot(&divergence)) } } }
                    }
                });
            }
        }
    }
    let body = html! {
        header.report { h1 { "Durak replays" } }
        main.report {
            @if let Some(s) = standings_html {
                section.standings { h2 { "Standings" } (maud::PreEscaped(s)) }
            }
            section.games {
                h2 { "Games" }
                p {
                    (replays.len()) " games: " (ok) " verified"
                    @if bad > 0 { ", " (bad) " not verified or unreadable" }
                    "."
                }
                div.scroll {
                    table {
                        thead { tr {
                            th { "#" } th { "replay" } th { "game" } th { "seats" }
                            th { "result" } th { "faults" } th { "moves" } th { "verified" }
                        } }
                        tbody { @for r in &rows { (r) } }
                    }
                }
            }
        }
    };
    let index = page(Page {
        title: "Durak replays",
        root: "",
        styles: &[],
        scripts: &[],
        class: "report",
        crumbs: &[],
        body,
    });
    let index_path = out_dir.join("index.html");
    write_file(&index_path, &index)?;
    Ok(index_path)
}
