//! Web pages of games: one page per game (`durak replay --html OUT.html FILE`; the tournament
//! report, crate `durak-report`, writes one per game with [`game_page`]).
//!
//! A game's page is a small HTML file with the game's compact data ([`data`]) inline as JSON;
//! the viewer (`viewer-HASH.js`, `viewer-HASH.css`, `site-HASH.css`) is one copy per folder,
//! written beside the pages ([`layout::write_assets`]). The page has no external resource (a
//! Content-Security-Policy forbids any other), and works opened from the folder and served by a
//! web server alike. The viewer steps with buttons, a slider and keys, plays the game by itself,
//! jumps to the next fault or round, and reads its position from the URL fragment,
//! `#step=5&seat=1` (`seat` absent: the full view), which it keeps up to date.
//! `&press=ArrowRight,ArrowRight` presses keys after loading (for scripted tests). Made with the
//! game's analysis ([`GameContext::endgame`]), it shows the endgame's value at each decision of
//! the solved part and jumps to the next or previous blunder (`b`, `B`).

pub mod data;
pub mod layout;

use crate::error::ReplayError;
use crate::sim::Simulation;
use crate::view::{all_views, result_text, StepView};
use layout::{page, script_json, Bot, Page, VIEWER_CSS, VIEWER_JS};
use maud::{html, Markup};
use std::path::Path;

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
    /// Lines said under the title: what the page leaves out for its reader (the judge
    /// service: a bot's log shown to its author only).
    pub notes: Vec<String>,
    /// The endgame's values ([`data::endgame_codes`] of the game's analysis, issue 26): the
    /// viewer shows each decision's value and jumps between blunders. Empty: none shown.
    pub endgame: Vec<String>,
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
                    // A place says which game it is; alone, the game's number in its series.
                    @if let Some(place) = &ctx.place { ", " (place) } @else { ", game " (h.game) " of its series" }
                    " · deck seed " (h.seed)
                    " · dealer seat " (h.dealer)
                }
                p.result { (Bot(&result_text(h, end))) }
                @for n in &ctx.notes { p.meta.note { (Bot(n)) } }
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
    let mut data = data::game_data(sim, &views);
    data.eg = ctx.endgame.clone();
    let place = ctx
        .place
        .clone()
        .unwrap_or_else(|| format!("game {}", h.game));
    let title = format!(
        "{} · {} {place} · Durak replay",
        seats_title(sim),
        h.variant.name()
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

/// The page of one game, alone, with its endgame's values (the solver's default budget).
pub fn html_page(sim: &Simulation) -> String {
    let ctx = GameContext {
        endgame: data::endgame_codes(&crate::analyze::analyze(sim)),
        ..GameContext::default()
    };
    game_page(sim, &ctx)
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
