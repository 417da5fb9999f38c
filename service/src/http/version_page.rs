//! A version's page, `/bots/BOT/versions/N` (issue 25, "every game of mine"): its build and
//! check, its comparison with the previous version, and what `GET
//! /api/bots/BOT/versions/N/games` holds (`api::mygames`): the head to head per opponent
//! (paired by deal), the Elo above each opponent as the games accumulate (the report's line
//! chart, inline SVG), its time per decision from its newest games' replays, its faults, and
//! its games filtered by opponent, result and fault, paged by the same query parameters.
//!
//! To its author and the organiser only (the lines hold the bot's stderr: `private.rs`), each
//! game of the list also links to the lines the bot read in it and to the game's replay
//! (`/games/J/G/seats/S/lines`, `/games/J/G/replay.jsonl`: the login cookie opens them, as the
//! game's page) and prints the `durak rerun` command that re-runs its first decision.

use super::api::mygames::{self, GamesPage, GamesQuery};
use super::pages::{
    error_page, fmt_ci, fmt_elo, page, page_error, plural, state_badge, time, version_link,
};
use super::{blocking, private, ApiError, AppState, Visitor};
use crate::domain::VersionState;
use crate::store::{self, Version};
use crate::views::version::{self as figures, DecisionTime, HeadToHead};
use crate::views::{self, GameSummary};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use durak_replay::html::layout::Bot;
use durak_report::charts::{interval_chart, line_chart, Bar, Series};
use maud::{html, Markup};

/// Games a page of the version's list shows unless `per_page` says otherwise.
pub const PER_PAGE: usize = 25;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/bots/{bot}/versions/{n}", get(version))
        .route("/games/{job}/{game}/seats/{seat}/lines", get(lines))
        .route("/games/{job}/{game}/replay.jsonl", get(replay_file))
}

/// Whether the visitor may read the version's private lines: its author or the organiser.
fn is_private(who: &Visitor, ver: &Version) -> bool {
    who.who()
        .is_some_and(|a| a.organiser || a.id == ver.account)
}

/// What the page adds to each of the author's games: the step of the bot's first decision (the
/// one the printed command re-runs), if it was asked one.
struct Rerun {
    step: Option<usize>,
}

async fn version(
    State(s): State<AppState>,
    who: Visitor,
    Path((bot, n)): Path<(String, i64)>,
    query: Result<Query<GamesQuery>, QueryRejection>,
) -> Response {
    let mut q = match query {
        Ok(Query(q)) => q,
        Err(e) => {
            return error_page(
                400,
                &who,
                &format!(
                    "{e}\n  fix: opponent=BOT, result=won|lost|draw, fault=1, page=0.., \
                     per_page=1..200"
                ),
            )
        }
    };
    q.per_page = Some(q.per_page.unwrap_or(PER_PAGE));
    // The form sends "any" as an empty value.
    q.opponent = q.opponent.filter(|o| !o.is_empty());
    q.result = q.result.filter(|r| !r.is_empty());
    let (b2, s2, q2) = (bot.clone(), s.clone(), q);
    let reader = who.account.clone();
    let got = blocking(move || {
        let Some(view) = s2.cache.version(&s2, &b2, n)? else {
            return Ok(None);
        };
        let games = mygames::games_page(&s2, &b2, n, &q2)?
            .ok_or_else(|| ApiError::not_found(format!("bot {b2:?} has no version {n}")))?;
        let mine = reader
            .as_ref()
            .is_some_and(|a| a.organiser || a.id == view.version.account);
        let reruns = if mine {
            games.games.iter().map(|g| rerun_of(&s2, g)).collect()
        } else {
            Vec::new()
        };
        Ok(Some((view, games, reruns, q2)))
    })
    .await;
    let (v, games, reruns, q) = match got {
        Ok(Some(x)) => x,
        Ok(None) => return error_page(404, &who, &format!("bot {bot:?} has no version {n}")),
        Err(e) => return page_error(&who, e),
    };
    let ver = &v.version;
    let private = is_private(&who, ver);
    let waiting = ver.state.in_check();
    // Playing: its page follows its games (`page/version.js`); the newest page, unfiltered,
    // reloads itself, another says what came in.
    let playing = matches!(ver.state, VersionState::Active | VersionState::Comparing);
    let newest =
        games.page == 0 && q.opponent.is_none() && q.result.is_none() && q.fault.unwrap_or(0) == 0;
    let meta = html! {
        "by " (Bot(&ver.author)) " · " (state_badge(ver)) " · submitted " (time(ver.submitted))
        @if let Some(sha) = &ver.sha256 { " · sha256 " code { (sha[..12.min(sha.len())]) } }
    };
    let body = html! {
        @if waiting { meta http-equiv="refresh" content="3"; }
        @if let Some(r) = &ver.reason { p.error { (r) } }
        @if let Some(t) = ver.files_removed {
            p #files-removed { "Its files (the archive, its folder and build) were removed on " (time(t))
                ": this server keeps a failed version's files "
                (plural(s.ladder.cfg.quota.failed_keep_days as u64, "day")) " ([quota] failed_keep_days). \
                This page and its reports stay." }
        }
        @if waiting { p { "Being built and checked: this page reloads until the report is in." } }
        @if playing {
            p #live hidden data-api=(format!("/api/bots/{}/versions/{}", ver.bot, ver.n))
                data-games=(v.games) data-state=(ver.state.as_str())
                data-reload=(if newest { "1" } else { "0" }) {}
        }
        @if let Some(c) = &v.previous { (comparison(c, ver)) }
        @if let Some(st) = &views::standing_of(&s.ladder, ver.id) {
            p.standing { "On the leaderboard: " strong { (st.rank_label) } ", Elo " (fmt_elo(st.elo))
                " (" (fmt_ci(st.elo_ci95)) "), " (standing_games(st)) "." }
        }
        p { "Command: " code { (ver.command) } " · language: " (ver.language) }
        @if !games.head_to_head.is_empty() { (head_to_head(&bot, n, &games.head_to_head)) }
        @if !v.ladder_timing.is_empty() { (ladder_timing(&v.ladder_timing, v.ladder_timing_games)) }
        @if let Some(b) = &v.build {
            h2 { "Build" }
            p { code { (b["command"].as_str().unwrap_or("")) } " — "
                @if b["ok"].as_bool() == Some(true) { "done" } @else { "FAILED" }
                " in " (format!("{:.1}", b["elapsed_ms"].as_f64().unwrap_or(0.0) / 1000.0)) " s" }
            @if let Some(f) = b["failure"].as_str() { p.error { (f) } }
            pre #build-output { (b["output"].as_str().unwrap_or("")) }
        }
        @if let Some(t) = &v.report_text {
            h2 { "check-bot report" }
            pre #report { (t) }
        }
        @if let Some(rows) = v.timing.as_array() {
            @if !rows.is_empty() {
                h2 { "Time per decision (check-bot)" }
                table {
                    thead { tr { th { "decision" } th.num { "answers" } th.num { "median ms" } th.num { "p95 ms" } th.num { "max ms" } } }
                    tbody { @for r in rows { tr {
                        td { (r["decision"].as_str().unwrap_or("")) }
                        td.num { (r["answers"]) } td.num { (r["median_ms"]) } td.num { (r["p95_ms"]) } td.num { (r["max_ms"]) }
                    } } }
                }
            }
        }
        (super::pages::endgame_accuracy(&v.endgame, v.games))
        (games_section(&bot, n, &v.games, &games, &q, private.then_some((&reruns[..], ver))))
        @if !v.faults.is_empty() {
            h2 { "Faults" }
            p { "Its latest games with a fault (each links to its game; "
                a href=(list_link(&bot, n, &q_with(&q, |f| { f.fault = Some(1); f.page = None; }))) { "every game it faulted in" }
                ")." }
            (super::pages::games_table(&v.faults))
        }
        p { a href=(format!("/bots/{}", ver.bot)) { "All versions of " (ver.bot) } }
    };
    let mut resp = page(
        &format!("{} v{}", ver.bot, ver.n),
        Some(meta),
        &who,
        &[super::pages::VERSION_JS],
        body,
    )
    .into_response();
    if private {
        // The page holds links and commands made for this reader only.
        resp.headers_mut().insert(
            header::CACHE_CONTROL,
            header::HeaderValue::from_static("private, no-cache"),
        );
    }
    resp
}

/// The step of the first decision the version's bot was asked in game `g` (not a forced move):
/// computed once per game, the first time a page asks (a simulation of its replay), and kept
/// (`store::rerun_steps`), so a page of 25 games does not simulate 25 replays each view.
fn rerun_of(s: &AppState, g: &GameSummary) -> Rerun {
    let db = &s.ladder.db;
    if let Ok(Some(steps)) = store::rerun_steps(db, g.job, g.game) {
        return Rerun {
            step: steps.get(g.seat).copied().flatten(),
        };
    }
    let Some(sim) = store::game(db, g.job, g.game)
        .ok()
        .flatten()
        .and_then(|row| figures::simulate_row(&s.ladder, &row).ok())
    else {
        return Rerun { step: None };
    };
    let steps = first_decisions(&sim);
    // Not kept, it is computed again next time: nothing is lost.
    let _ = store::save_rerun_steps(db, g.job, g.game, &steps);
    Rerun {
        step: steps.get(g.seat).copied().flatten(),
    }
}

/// Per seat, the step of its first decision asked (a request, not a forced move).
pub fn first_decisions(sim: &durak_replay::Simulation) -> Vec<Option<usize>> {
    (0..sim.header.players)
        .map(|seat| {
            sim.steps
                .iter()
                .find(|st| {
                    st.decision.is_some_and(|d| d.seat == seat)
                        && st.request.is_some()
                        && !st.forced
                })
                .map(|st| st.number)
        })
        .collect()
}

/// The query `q` changed by `f` (the filter and paging links keep the other parameters).
fn q_with(q: &GamesQuery, f: impl FnOnce(&mut GamesQuery)) -> GamesQuery {
    let mut q = GamesQuery {
        opponent: q.opponent.clone(),
        result: q.result.clone(),
        fault: q.fault,
        page: q.page,
        per_page: q.per_page,
    };
    f(&mut q);
    q
}

/// The version page's link for the games list of `q` (the list's anchor).
pub fn list_link(bot: &str, n: i64, q: &GamesQuery) -> String {
    let mut u = form_urlencoded::Serializer::new(String::new());
    if let Some(o) = &q.opponent {
        u.append_pair("opponent", o);
    }
    if let Some(r) = &q.result {
        u.append_pair("result", r);
    }
    if q.fault.unwrap_or(0) != 0 {
        u.append_pair("fault", "1");
    }
    if let Some(p) = q.page.filter(|&p| p > 0) {
        u.append_pair("page", &p.to_string());
    }
    if let Some(pp) = q.per_page.filter(|&pp| pp != PER_PAGE) {
        u.append_pair("per_page", &pp.to_string());
    }
    let query = u.finish();
    let base = version_link(bot, n);
    if query.is_empty() {
        format!("{base}#games")
    } else {
        format!("{base}?{query}#games")
    }
}

/// The opponent's bot name of a head-to-head label (`bot vN`).
fn bot_of_label(label: &str) -> &str {
    label.rsplit_once(" v").map_or(label, |(b, _)| b)
}

fn head_to_head(bot: &str, n: i64, rows: &[HeadToHead]) -> Markup {
    let none = GamesQuery::default();
    let bars: Vec<Bar> = rows
        .iter()
        .filter(|h| h.elo.is_some())
        .map(|h| Bar {
            label: h.opponent.clone(),
            tag: String::new(),
            value: h.elo,
            lo: h.elo_ci95[0],
            hi: h.elo_ci95[1],
            text: format!("{} ({})", fmt_elo(h.elo), fmt_ci(h.elo_ci95)),
        })
        .collect();
    let series: Vec<Series> = rows
        .iter()
        .filter(|h| !h.history.is_empty())
        .map(|h| Series {
            name: h.opponent.clone(),
            points: h.history.iter().map(|&(g, e)| (g as f64, e)).collect(),
        })
        .collect();
    html! {
        h2 #head-to-head { "Head to head" }
        table.h2h {
            thead { tr {
                th { "opponent" } th.num { "games" } th.num title="whole deals: every seat rotation of the deal played" { "deals" }
                th.num { "won" } th.num { "drawn" } th.num { "lost" } th.num { "score" }
                th.num { "Elo above it (95 %, paired by deal)" } th {}
            } }
            tbody { @for h in rows { tr {
                @let (ob, on) = h.opponent.rsplit_once(" v").unwrap_or((h.opponent.as_str(), "0"));
                td { a href=(version_link(ob, on.parse().unwrap_or(0))) { (Bot(&h.opponent)) } }
                td.num { (h.games) } td.num { (h.deals) }
                td.num { (h.wins) } td.num { (h.draws) } td.num { (h.losses) }
                td.num { (format!("{:.1} %", 100.0 * h.score)) }
                td.num { @if h.deals > 0 { (fmt_elo(h.elo)) " (" (fmt_ci(h.elo_ci95)) ")" } @else { "-" } }
                td { a.games-of href=(list_link(bot, n, &q_with(&none, |f| f.opponent = Some(bot_of_label(&h.opponent).to_string())))) { "its games" } }
            } } }
        }
        p.note { "Elo is paired by deal (each deal played at every seat rotation, so both hold \
            each hand): heads-up games only; at larger tables the counts alone." }
        @if !bars.is_empty() || !series.is_empty() {
            div.chart-grid {
                @if !bars.is_empty() {
                    (interval_chart("Elo above each opponent and its 95% interval, paired by deal (an arrow: no bound on that side)", &bars, "", None))
                }
                @if !series.is_empty() {
                    (line_chart("Elo above each opponent as games accumulate (in job order; none while the score is 0 or 100 %)", "games", "", &series))
                }
            }
        }
    }
}

fn ladder_timing(rows: &[DecisionTime], over: u64) -> Markup {
    html! {
        h2 #timing { "Time per decision (its games)" }
        table.timing {
            thead { tr { th { "decision" } th.num { "answers" } th.num { "median ms" } th.num { "p95 ms" } th.num { "max ms" } } }
            tbody { @for r in rows { tr {
                td { (r.decision) } td.num { (r.answers) }
                td.num { (format!("{:.2}", r.median_ms)) } td.num { (format!("{:.2}", r.p95_ms)) } td.num { (format!("{:.2}", r.max_ms)) }
            } } }
        }
        p.note { "From the replays of its newest " (plural(over, "game")) " (at most "
            (figures::TIMING_GAMES) "): the time from the request written to the answer read; \
            forced moves are played by the referee and not counted." }
    }
}

/// A command line's word for `sh`: as is when plain, else in single quotes.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The command that re-runs the decision at `step` of game `g` with the version's command.
pub fn rerun_command(g: &GameSummary, step: usize, command: &str) -> String {
    format!(
        "durak rerun g{}-{}.jsonl --step {step} {}",
        g.job,
        g.game,
        shell_word(command)
    )
}

fn games_section(
    bot: &str,
    n: i64,
    all: &u64,
    games: &GamesPage,
    q: &GamesQuery,
    private: Option<(&[Rerun], &Version)>,
) -> Markup {
    let opponents: Vec<&str> = {
        let mut o: Vec<&str> = games
            .head_to_head
            .iter()
            .map(|h| bot_of_label(&h.opponent))
            .collect();
        o.sort();
        o.dedup();
        o
    };
    let first = games.page * games.per_page;
    let filtered = q.opponent.is_some() || q.result.is_some() || q.fault.unwrap_or(0) != 0;
    html! {
        h2 #games { "Games (" (all) ")" }
        form.filters method="get" action=(version_link(bot, n)) {
            label { "opponent " select name="opponent" {
                option value="" selected[q.opponent.is_none()] { "any" }
                @for o in &opponents { option value=(o) selected[q.opponent.as_deref() == Some(*o)] { (o) } }
            } }
            " "
            label { "result " select name="result" {
                option value="" selected[q.result.is_none()] { "any" }
                @for r in ["won", "lost", "draw", "void"] { option value=(r) selected[q.result.as_deref() == Some(r)] { (r) } }
            } }
            " "
            label { input type="checkbox" name="fault" value="1" checked[q.fault.unwrap_or(0) != 0]; " with its fault" }
            " "
            button type="submit" { "show" }
            @if filtered { " " a href=(list_link(bot, n, &GamesQuery::default())) { "all games" } }
        }
        p #games-count {
            @if games.total == 0 { "No game" @if filtered { " with these filters" } "." }
            @else if games.games.is_empty() { "No game on this page: " (plural(games.total, "game")) " in " (games.pages) " page(s)." }
            @else {
                "Games " (first + 1) "–" (first + games.games.len()) " of " (games.total)
                @if filtered { " with these filters" } ", newest first."
            }
        }
        @if !games.games.is_empty() {
            div.scroll { table.games #game-list {
                thead { tr {
                    th { "game" } th { "seats" } th { "result" } th.num { "moves" } th { "faults" }
                    @if private.is_some() { th { "its lines, for " code { "durak rerun" } } }
                } }
                tbody {
                    @for (i, g) in games.games.iter().enumerate() {
                        tr {
                            (super::pages::game_cells(g))
                            @if let Some((reruns, ver)) = private {
                                td.rerun {
                                    a.lines href=(format!("/games/{}/{}/seats/{}/lines", g.job, g.game, g.seat)) download { "lines read" }
                                    " · "
                                    a.replay href=(format!("/games/{}/{}/replay.jsonl", g.job, g.game)) download=(format!("g{}-{}.jsonl", g.job, g.game)) { "replay" }
                                    @match reruns.get(i).and_then(|r| r.step) {
                                        Some(step) => { br; code.rerun-cmd { (rerun_command(g, step, &ver.command)) } }
                                        None => { br; span.note { "no decision of its own in this game" } }
                                    }
                                }
                            }
                        }
                    }
                }
            } }
            @if private.is_some() {
                p.note { "Download a game's replay, then run the command in your bot's folder: it \
                    feeds a fresh bot the lines this one read up to that step (its first decision; \
                    any step the game's page numbers as a request to it will do) and shows its answer \
                    beside the recorded one. The lines read and your bot's stderr are shown to you \
                    and the organiser only." }
            }
        }
        @if games.pages > 1 {
            nav.pages #pages {
                @if games.page > 0 {
                    a rel="prev" href=(list_link(bot, n, &q_with(q, |f| f.page = Some(games.page - 1)))) { "← newer" } " "
                }
                @for p in 0..games.pages {
                    @if p == games.page { strong { (p + 1) } " " }
                    @else if p < 3 || p + 3 >= games.pages || p.abs_diff(games.page) <= 2 {
                        a href=(list_link(bot, n, &q_with(q, |f| f.page = Some(p)))) { (p + 1) } " "
                    }
                }
                @if games.page + 1 < games.pages {
                    a rel="next" href=(list_link(bot, n, &q_with(q, |f| f.page = Some(games.page + 1)))) { "older →" }
                }
            }
        }
    }
}

/// "Is my new version better?": its comparison with the bot's previous version.
fn comparison(c: &crate::ladder::compare::Comparison, ver: &Version) -> Markup {
    let waiting = ver.state == VersionState::Comparing;
    html! {
        h2 { "Against " a href=(version_link(&c.bot, c.version)) { "version " (c.version) } }
        p #comparison {
            "Verdict: " strong.verdict { (c.verdict.name()) }
            @if c.state == crate::domain::ComparisonState::Running { " (playing: " (plural(c.games, "game")) " so far)" }
            @if let Some(n) = &c.note { " — " (n) }
        }
        @if waiting { p { "This version enters the ladder once the comparison shows it is not worse \
            ([compare] require_not_worse)." } }
        table {
            tbody {
                tr { th { "games (whole deals)" } td.num { (c.games) " (" (c.deals) ")" } }
                @if c.void_games > 0 {
                    tr { th { "void games (deals left out): counted for nobody" } td.num { (c.void_games) " (" (c.void_deals) ")" } }
                }
                tr { th { "score" } td.num { (format!("{:.1} %", 100.0 * c.score)) } }
                tr { th { "Elo above version " (c.version) " (95 %, paired)" } td.num { (fmt_elo(c.elo)) " (" (fmt_ci(c.elo_ci95)) ")" } }
                tr { th { "LLR, bounds" } td.num { (format!("{:+.2} in [{:+.2}, {:+.2}]", c.llr, c.llr_bounds[0], c.llr_bounds[1])) } }
                tr { th { "SPRT" } td { (format!("H0 {} Elo vs H1 {} Elo, α {}, β {}, at most {} games", c.elo0, c.elo1, c.alpha, c.beta, c.max_games)) } }
            }
        }
    }
}

/// The game `job`/`g` and whether the visitor may read seat `seat`'s (or every seat's) lines.
fn game_for(
    s: &AppState,
    who: Option<&crate::auth::Account>,
    job: i64,
    g: u32,
) -> Result<(store::GameRow, Vec<bool>), ApiError> {
    let row = store::game(&s.ladder.db, job, g)?
        .ok_or_else(|| ApiError::not_found(format!("no game {g} in job {job}")))?;
    let visible = private::visible_seats(&s.ladder.db, &row, who)?;
    Ok((row, visible))
}

fn attachment(name: &str, ctype: &str, body: Vec<u8>) -> Response {
    (
        [
            (header::CONTENT_TYPE, ctype.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
            (header::CACHE_CONTROL, "private, no-cache".to_string()),
            (header::VARY, "Authorization, Cookie".to_string()),
        ],
        body,
    )
        .into_response()
}

/// `/games/J/G/seats/S/lines`: what the bot at `seat` read, sent and wrote on stderr in the
/// game (`durak replay --seat S --raw`), for its author and the organiser (logged in) only.
async fn lines(
    State(s): State<AppState>,
    v: Visitor,
    Path((job, g, seat)): Path<(i64, u32, usize)>,
) -> Response {
    let reader = v.account.clone();
    let got = blocking(move || {
        let (row, visible) = game_for(&s, reader.as_ref(), job, g)?;
        if seat >= row.seats.len() {
            return Err(ApiError::not_found(format!(
                "game {g} of job {job} has seats 0 to {}",
                row.seats.len() - 1
            )));
        }
        if !visible[seat] {
            return Err(ApiError::new(
                403,
                format!(
                    "seat {seat}'s lines hold its bot's stderr: its author and the organiser \
                     only\n  fix: log in as the bot's author"
                ),
            ));
        }
        let sim = figures::simulate_row(&s.ladder, &row).map_err(ApiError::internal)?;
        let lines = durak_replay::raw::transcript(&sim, seat).map_err(ApiError::internal)?;
        Ok(durak_replay::raw::to_text(&lines))
    })
    .await;
    match got {
        Ok(text) => attachment(
            &format!("g{job}-{g}-seat{seat}.txt"),
            "text/plain; charset=utf-8",
            text.into_bytes(),
        ),
        Err(e) => page_error(&v, e),
    }
}

/// `/games/J/G/replay.jsonl`: the game's replay as the visitor may read it (the stderr of the
/// seats that are not theirs left out), as a file named for `durak rerun`'s command.
async fn replay_file(
    State(s): State<AppState>,
    v: Visitor,
    Path((job, g)): Path<(i64, u32)>,
) -> Response {
    let reader = v.account.clone();
    let got = blocking(move || {
        let (row, visible) = game_for(&s, reader.as_ref(), job, g)?;
        let bytes = crate::store::replays::of_row(&s.ladder.db, &s.ladder.paths.root, &row)
            .map_err(|e| ApiError::internal(format!("{}: {e}", row.replay)))?;
        Ok(private::filter_replay(&bytes, &visible))
    })
    .await;
    match got {
        Ok(body) => attachment(&format!("g{job}-{g}.jsonl"), "application/x-ndjson", body),
        Err(e) => page_error(&v, e),
    }
}

/// A version's games on the leaderboard as its standing line says them: won, drawn and lost
/// (a game not lost nor drawn is won: one durak per game), and its void games beside them,
/// counted for nobody (issue 23).
fn standing_games(st: &crate::ladder::board::Row) -> String {
    let won = st.games.saturating_sub(st.losses + st.draws);
    let mut out = format!(
        "{}: {won} won, {} drawn, {} lost",
        plural(st.games, "game"),
        st.draws,
        st.losses
    );
    if st.void_games > 0 {
        out += &format!(
            "; {} void (counted for nobody, after {})",
            st.void_games,
            plural(st.attempts_voided, "voided attempt")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_quoted_for_the_shell_only_when_it_must_be() {
        assert_eq!(shell_word("./bot"), "./bot");
        assert_eq!(shell_word("python3 bot.py"), "'python3 bot.py'");
        assert_eq!(shell_word("echo 'hi'"), "'echo '\\''hi'\\'''");
        assert_eq!(shell_word("a$HOME"), "'a$HOME'");
    }

    #[test]
    fn list_links_keep_the_filters_and_leave_out_defaults() {
        let q = GamesQuery {
            opponent: Some("a b&c".into()),
            result: Some("won".into()),
            fault: Some(1),
            page: Some(2),
            per_page: Some(PER_PAGE),
        };
        assert_eq!(
            list_link("x", 3, &q),
            "/bots/x/versions/3?opponent=a+b%26c&result=won&fault=1&page=2#games"
        );
        let first = q_with(&q, |f| {
            f.page = Some(0);
            f.fault = Some(0);
        });
        assert_eq!(
            list_link("x", 3, &first),
            "/bots/x/versions/3?opponent=a+b%26c&result=won#games"
        );
        assert_eq!(
            list_link("x", 3, &GamesQuery::default()),
            "/bots/x/versions/3#games"
        );
    }
}
