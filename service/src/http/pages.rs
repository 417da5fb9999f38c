//! Pages for people (maud templates, the look of the tournament report: its layout and
//! styles, `durak_report::site_page`), each the counterpart of an `/api/` route: the
//! leaderboard (live: server-sent events, `live.rs`, or polling), a bot, a version
//! (`version_page.rs`), a game (the replay viewer), the
//! author's own page (submit, versions, tokens), registration and login. Tournaments and their
//! reports are in `reports.rs`.
//!
//! As the report's pages, they load no inline script or style (the layout's
//! Content-Security-Policy forbids them): their own files are [`SERVICE_CSS`] and
//! [`LEADERBOARD_JS`], served under `/assets/` with the report's.

use super::{blocking, private, ApiError, AppState, Visitor};
use crate::auth::Account;
use crate::domain::VersionState;
use crate::store::Version;
use crate::views::{self, GameSummary};
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use durak_replay::html::layout::{Asset, Bot};
use maud::{html, Markup};

/// `limit`: the rate limit of login, registration and token attempts (`limits.rs`).
pub fn routes(limit: super::limits::AttemptLimit) -> Router<AppState> {
    Router::new()
        .route("/", get(leaderboard))
        .route("/bots/{bot}", get(bot))
        .route("/games/{job}/{game}", get(game))
        .route("/me", get(me))
        .route("/assets/{file}", get(asset))
        .route("/docs/{file}", get(doc))
        .merge(super::forms::routes(limit))
        .merge(super::admin::routes())
        .merge(super::challenge_pages::routes())
        .merge(super::version_page::routes())
        .merge(super::play_pages::routes())
}

/// The service's own style, after the report's.
pub const SERVICE_CSS: Asset = Asset::new("service", "css", include_str!("page/service.css"));
/// The leaderboard's script: live by server-sent events, else polling.
pub const LEADERBOARD_JS: Asset =
    Asset::new("leaderboard", "js", include_str!("page/leaderboard.js"));
/// A version's page's script: it follows the version's games once it plays.
pub const VERSION_JS: Asset = Asset::new("version", "js", include_str!("page/version.js"));

/// Where the pages find their files.
pub const ASSET_ROOT: &str = "/assets/";

/// The navigation above every page.
pub(super) fn crumbs(who: Option<&Account>) -> Vec<(String, String)> {
    let mut c = vec![
        ("/".to_string(), "durak serve: leaderboard".to_string()),
        ("/tournaments".to_string(), "tournaments".to_string()),
        ("/seasons".to_string(), "seasons".to_string()),
        ("/api/openapi.json".to_string(), "API".to_string()),
    ];
    match who {
        Some(a) => {
            c.push(("/me".to_string(), format!("{}'s page", a.name)));
            if a.organiser {
                c.push(("/organiser".to_string(), "organiser".to_string()));
            }
        }
        None => {
            c.push(("/register".to_string(), "register".to_string()));
            c.push(("/login".to_string(), "log in".to_string()));
        }
    }
    c
}

/// A page: the navigation, a header (the title, a line under it, who is logged in), the body.
pub(super) fn page(
    title: &str,
    meta: Option<Markup>,
    v: &Visitor,
    scripts: &[Asset],
    body: Markup,
) -> Html<String> {
    page_styled(title, meta, v, &[], scripts, body)
}

/// [`page`] with styles of its own besides the service's (the play page: the replay viewer's).
pub(super) fn page_styled(
    title: &str,
    meta: Option<Markup>,
    v: &Visitor,
    styles: &[Asset],
    scripts: &[Asset],
    body: Markup,
) -> Html<String> {
    let who = v.who();
    let body = html! {
        header.report.site {
            div {
                h1 { (Bot(title)) }
                @if let Some(m) = meta { p.meta { (m) } }
            }
            @if let Some(a) = who {
                div.who {
                    span.meta { "logged in as " a href="/me" { (Bot(&a.name)) } }
                    form.inline method="post" action="/logout" {
                        (csrf_field(v))
                        button type="submit" { "log out" }
                    }
                }
            }
        }
        main.report { (body) }
    };
    Html(durak_report::site_page(
        &format!("{title} · durak serve"),
        ASSET_ROOT,
        &crumbs(who),
        &[&[SERVICE_CSS], styles].concat(),
        scripts,
        body,
    ))
}

pub(super) fn layout(title: &str, v: &Visitor, body: Markup) -> Html<String> {
    page(title, None, v, &[], body)
}

/// The hidden field of a form's CSRF token (`csrf.rs`): first in every form that posts.
pub(super) fn csrf_field(v: &Visitor) -> Markup {
    html! { input type="hidden" name=(super::csrf::FIELD) value=(v.csrf()); }
}

/// An error page with its status.
pub(super) fn error_page(status: u16, v: &Visitor, message: &str) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = html! { p.error { (message) } p { a href="/" { "Back to the leaderboard" } } };
    (
        code,
        layout(code.canonical_reason().unwrap_or("Error"), v, body),
    )
        .into_response()
}

pub(super) fn page_error(v: &Visitor, e: ApiError) -> Response {
    error_page(e.status.as_u16(), v, &e.message)
}

pub(super) fn fmt_elo(e: Option<f64>) -> String {
    e.map_or_else(|| "-".into(), |e| format!("{e:+.0}"))
}

pub(super) fn fmt_ci(ci: [Option<f64>; 2]) -> String {
    let end = |v: Option<f64>, inf: &str| v.map_or_else(|| inf.to_string(), |v| format!("{v:+.0}"));
    format!("{} … {}", end(ci[0], "-∞"), end(ci[1], "+∞"))
}

/// A leaderboard row's void games and voided attempts: `1 (4)`, `-` for none.
fn void_cell(games: u64, attempts: u64) -> String {
    if games == 0 && attempts == 0 {
        "-".into()
    } else {
        format!("{games} ({attempts})")
    }
}

/// What the game page says of a game played again because the machine starved a bot, or given
/// up as void.
fn void_note(row: &crate::store::GameRow) -> Option<String> {
    let why = row.voided.join("; ");
    match (row.void, row.voided.len()) {
        (true, n) => Some(format!(
            "This game is void: given up after {n} voided attempts (a bot starved by the \
             machine each time), it counts for nobody, neither a loss nor a draw. Why: {why}."
        )),
        (false, 0) => None,
        (false, n) => Some(format!(
            "Played again after {n} voided attempt{} (a bot starved by the machine; this is \
             the game that counts). Why: {why}.",
            if n == 1 { "" } else { "s" }
        )),
    }
}

pub(super) fn version_link(bot: &str, n: i64) -> String {
    format!("/bots/{bot}/versions/{n}")
}

async fn leaderboard(State(s): State<AppState>, v: Visitor) -> Html<String> {
    let lb = s.ladder.board.current();
    let paused = s.ladder.is_paused();
    let meta = html! {
        (lb.variant) " · tables of " (lb.table_size) " · Elo with 95% intervals (" (lb.interval) ") · "
        a #season href=(format!("/seasons/{}", lb.season)) { "season " (lb.season) }
        ": its games only, fresh ratings each season"
    };
    let body = html! {
        p #info { (lb.games) " games among the versions on the board"
            @if lb.games_void > 0 { " (" (lb.games_void) " void: counted for nobody)" }
            @if paused { " · the ladder is paused" } }
        div.scroll {
            table.standings #leaderboard {
                thead { tr {
                    th.num { "rank" } th { "bot" } th { "author" } th.num { "Elo" } th.num { "95% interval" }
                    th.num title="games against the versions on the board now" { "games" }
                    th.num { "losses" } th.num { "loss rate" }
                    th.num title="void games (given up after 3 voided attempts, counted for nobody), and in parentheses the attempts voided and played again" { "void (voided)" }
                } }
                tbody #rows {
                    @for r in &lb.rows {
                        tr data-bot=(r.bot) class=[r.tied.then_some("tied")] {
                            td.num { (r.rank_label) }
                            td { a href=(version_link(&r.bot, r.version)) { (Bot(&r.bot)) " v" (r.version) } }
                            td { (Bot(&r.author)) }
                            td.num { (fmt_elo(r.elo)) }
                            td.num { (fmt_ci(r.elo_ci95)) }
                            td.num { (r.games) }
                            td.num { (r.losses) }
                            td.num { (format!("{:.1}%", 100.0 * r.loss_rate)) }
                            td.num { (void_cell(r.void_games, r.attempts_voided)) }
                        }
                    }
                }
            }
        }
        p.note { "Ratings are Elo from one fit of all ladder games among the versions in the \
             ladder, with 95% intervals paired by deal; a rank marked = is shared: the data does \
             not order those bots yet. The games counted (above, and each bot's) are the \
             finished jobs' games among the versions on the board now: a game with a version \
             that left the ladder (replaced by a newer one, withdrawn, disqualified) is on that \
             version's page, not here; " a href="/api/status" { "/api/status" } " counts every \
             game recorded. The table updates by itself." }
        p #writing { "Writing a bot: " a href="/docs/PROTOCOL.md" { "the protocol" } " and "
            a href="/docs/WRITING_A_BOT.md" { "how to write one" } " (and "
            a href="/docs/STARTER_KITS.md" { "the starter kits" } " in Java, C++ and TypeScript, \
             in the sources' " code { "starter-kits/" } "); "
            code { "durak check-bot" } " runs this server's check on your machine." }
        p { "To take part: " a href="/register" { "register" } ", then submit your bot's folder \
             on your page or with " code { "durak submit --server URL --token TOKEN FOLDER" } "." }
    };
    page("Leaderboard", Some(meta), &v, &[LEADERBOARD_JS], body)
}

pub(super) fn state_badge(v: &Version) -> Markup {
    html! { span class=(format!("state {}", v.state)) { (v.state) } }
}

async fn bot(State(s): State<AppState>, v: Visitor, Path(name): Path<String>) -> Response {
    let n2 = name.clone();
    let s2 = s.clone();
    let view = match blocking(move || Ok(views::bot_view(&s2.ladder, &n2)?)).await {
        Ok(Some(v)) => v,
        Ok(None) => return error_page(404, &v, &format!("no bot named {name:?}")),
        Err(e) => return page_error(&v, e),
    };
    let meta = html! { "by " (Bot(&view.author)) @if view.house { " (a house bot: built in)" } };
    let body = html! {
        table {
            thead { tr { th { "version" } th { "state" } th { "submitted" } th.num { "games" }
                         th.num { "Elo" } th { "note" } } }
            tbody {
                @for v in &view.versions {
                    tr {
                        td { a href=(version_link(&view.bot, v.version.n)) { "v" (v.version.n) } }
                        td { (state_badge(&v.version)) }
                        td { (time(v.version.submitted)) }
                        td.num { (v.games) }
                        td.num { (fmt_elo(v.standing.as_ref().and_then(|r| r.elo))) }
                        td { (v.version.reason.clone().unwrap_or_default()) }
                    }
                }
            }
        }
    };
    let max_deals = s.ladder.cfg.challenges.max_deals;
    let body = html! { (body) (super::challenge_pages::form(&v, &view.bot, max_deals))
    (super::play_pages::form(&s, &v, &view.bot)) };
    page(&format!("Bot {}", view.bot), Some(meta), &v, &[], body).into_response()
}

pub use crate::dates::time;

pub(super) fn games_table(games: &[GameSummary]) -> Markup {
    html! {
        div.scroll { table.games {
            thead { tr { th { "game" } th { "seats" } th { "result" } th.num { "moves" } th { "faults" } } }
            tbody {
                @for g in games {
                    tr {
                        (game_cells(g))
                    }
                }
            }
        } }
    }
}

/// A game's cells in a games table: its link, seats, result, moves and faults (the version
/// page's table adds its own columns after them).
pub(super) fn game_cells(g: &GameSummary) -> Markup {
    html! {
        td { a href=(g.url) { "job " (g.job) " game " (g.game) } }
        td { (g.seats.join(", ")) }
        td { (g.result) }
        td.num { (g.moves) }
        td { @for f in &g.faults { (g.seats.get(f.seat).cloned().unwrap_or_default()) ": " (f.kind.name()) " (" (Bot(&f.detail)) ") " } }
    }
}

/// Its endgame accuracy (issue 26) over its games analysed so far.
pub(super) fn endgame_accuracy(e: &crate::analysis::VersionAccuracy, games: u64) -> Markup {
    html! {
        @if games > 0 {
            h2 { "Endgame accuracy" }
            p #endgame {
                @match e.tally.text() {
                    Some(t) => { (t) }
                    None => { "No endgame decision of this version valued yet." }
                }
                " · over " (e.games_analysed) " of its " (plural(games, "game")) " analysed"
                @if e.thrown_away > 0 { " · " (plural(e.thrown_away, "won position")) " thrown away" }
            }
            p.note { "The share of its own decisions in the games' endgames (stock empty, two players,                 every card known) that kept the exact value of its position. A game's page shows its                 values and jumps between blunders (b, B)." }
        }
    }
}

/// A game in the replay viewer, as the reader may see it: the stderr of the seats that are not
/// theirs left out (`super::private`), and the page says whose log it is.
async fn game(State(s): State<AppState>, v: Visitor, Path((job, g)): Path<(i64, u32)>) -> Response {
    let mut crumbs = crumbs(v.who());
    let reader = v.account.clone();
    let html = blocking(move || {
        let row = crate::store::game(&s.ladder.db, job, g)?
            .ok_or_else(|| ApiError::not_found(format!("no game {g} in job {job}")))?;
        let visible = private::visible_seats(&s.ladder.db, &row, reader.as_ref())?;
        let text = crate::store::replays::of_row(&s.ladder.db, &s.ladder.paths.root, &row)
            .map_err(|e| ApiError::internal(format!("{}: {e}", row.replay)))?;
        let text = private::filter_replay(&text, &visible);
        let mut replay =
            durak_replay::parse_replay(&text, &row.replay).map_err(ApiError::internal)?;
        // The replay names its seats by version id (the ladder's names); shown: `bot vN`.
        let names = views::seat_labels(&s.ladder, [&row])?;
        for h in &mut replay.header.seats {
            if let Some(label) = row.seats.get(h.seat).and_then(|v| names.get(v)) {
                h.name = label.clone();
            }
        }
        let analysis = crate::analysis::of_game(&s.ladder.db, &row)?;
        let mut notes: Vec<String> = private::hidden(&visible)
            .into_iter()
            .map(|seat| {
                // `seat 1 (chatty v1, named sh-bot)`: the label's own parentheses not nested.
                let name = replay.header.seat_name(seat);
                let rest = name.strip_prefix("seat").unwrap_or(&name);
                format!("Seat{rest}: {}.", private::NOTE)
            })
            .collect();
        notes.extend(void_note(&row));
        if analysis.is_none() {
            notes.push(format!("{}.", crate::analysis::NOT_YET));
        }
        let sim = durak_replay::simulate(&replay);
        let mut seen = std::collections::HashSet::new();
        for v in row.seats.iter().filter(|v| seen.insert(**v)) {
            if let Some(label) = names.get(v) {
                let (bot, n) = label.rsplit_once(" v").unwrap_or((label, "0"));
                crumbs.push((format!("/bots/{bot}/versions/{n}"), label.clone()));
            }
        }
        let ctx = durak_replay::html::GameContext {
            crumbs,
            place: Some(format!("ladder job {job}, game {g}")),
            root: ASSET_ROOT.to_string(),
            notes,
            endgame: analysis.map(|a| a.endgame).unwrap_or_default(),
        };
        Ok(durak_replay::html::game_page(&sim, &ctx))
    })
    .await;
    match html {
        Ok(p) => (
            [
                (header::CACHE_CONTROL, "private, no-cache"),
                (header::VARY, "Authorization, Cookie"),
            ],
            Html(p),
        )
            .into_response(),
        Err(e) => page_error(&v, e),
    }
}

async fn me(State(s): State<AppState>, v: Visitor) -> Response {
    let Some(a) = v.account.clone() else {
        return Redirect::to("/login").into_response();
    };
    let a2 = a.clone();
    let view = match blocking(move || Ok(views::me_view(&s.ladder, &a2)?)).await {
        Ok(v) => v,
        Err(e) => return page_error(&v, e),
    };
    let body = html! {
        h2 { "Submit a bot" }
        form.box #submit method="post" action="/submit" enctype="multipart/form-data" {
            (csrf_field(&v))
            p { "The bot's folder as a " code { ".tar.gz" } " or " code { ".zip" }
                " archive, with its " code { "bot.toml" } " (name, command, language, author, \
                and optionally build). Each upload is a new version of the bot it names. How to \
                write one: " a href="/docs/WRITING_A_BOT.md" { "the guide" } ", " a href="/docs/PROTOCOL.md" { "the protocol" } ", " a href="/docs/STARTER_KITS.md" { "the starter kits" } "." }
            label { "Archive: " input type="file" name="archive" required; }
            button type="submit" { "Upload" }
        }
        h2 { "Your versions" }
        @if view.versions.is_empty() { p { "None yet." } } @else {
            table #my-versions { thead { tr { th { "bot" } th { "version" } th { "state" } th { "note" } th {} } }
                tbody { @for ver in &view.versions { tr data-version=(format!("{} v{}", ver.bot, ver.n)) {
                    td { a href=(format!("/bots/{}", ver.bot)) { (ver.bot) } }
                    td { a href=(version_link(&ver.bot, ver.n)) { "v" (ver.n) } }
                    td { (state_badge(ver)) }
                    td { (ver.reason.clone().unwrap_or_default()) }
                    td { @if ver.state == VersionState::Active && !ver.house {
                        form.inline method="post" action=(format!("/me/bots/{}/versions/{}/withdraw", ver.bot, ver.n)) {
                            (csrf_field(&v))
                            button type="submit" { "Withdraw" }
                        }
                    } }
                } } }
            }
            p.note { "Withdrawn, a version leaves the ladder for good (its page and games stay); \
                      submit the bot again to bring it back." }
        }
        h2 { "Tokens" }
        p { "Use one with " code { "durak submit --server URL --token TOKEN FOLDER" } "." }
        table #my-tokens { thead { tr { th { "id" } th { "label" } th { "created" } th { "state" } th {} } }
            tbody { @for t in &view.tokens { tr data-token=(t.id) {
                td { (t.id) } td { (t.label) } td { (time(t.created)) }
                td { @if t.revoked { "revoked" } @else { "valid" } }
                td { @if !t.revoked {
                    form.inline method="post" action=(format!("/me/tokens/{}/revoke", t.id)) {
                        (csrf_field(&v))
                        button type="submit" { "Revoke" }
                    }
                } }
            } } }
        }
        form.box method="post" action="/me/tokens" {
            (csrf_field(&v))
            label { "Label: " input type="text" name="label" value="cli"; }
            button type="submit" { "New token" }
        }
        @if a.organiser {
            h2 { "Organiser" }
            p { "The organiser's pages: " a #organiser-pages href="/organiser" { "the ladder" } ", "
                a href="/organiser/invites" { "invites" } ", " a href="/organiser/authors" { "authors" } ", "
                a href="/organiser/bots" { "bots and versions" } ", "
                a href="/organiser/tournaments" { "tournaments" } ", "
                a href="/organiser/workers" { "worker tokens" } " (and the same through the API: see "
                a href="/api/openapi.json" { "the OpenAPI document" } ")." }
        }
    };
    layout(&format!("{}'s page", a.name), &v, body).into_response()
}

/// The pages' files (`durak_report::ASSETS`: the shared style, the viewer's, the report's; and
/// the service's own), by their hashed names: a name changes with the content, so they are
/// cached for good.
async fn asset(Path(file): Path<String>) -> Response {
    let Some(a) = durak_report::ASSETS
        .iter()
        .chain(&[SERVICE_CSS, LEADERBOARD_JS, VERSION_JS])
        .find(|a| a.file_name() == file)
    else {
        return (StatusCode::NOT_FOUND, "no such file").into_response();
    };
    let ty = if a.ext == "css" {
        "text/css; charset=utf-8"
    } else {
        "text/javascript; charset=utf-8"
    };
    (
        [
            (header::CONTENT_TYPE, ty),
            (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
        ],
        a.text,
    )
        .into_response()
}

/// The documents for bot authors the pages link to, served as text: (name, text).
pub const DOCS: &[(&str, &str)] = &[
    ("PROTOCOL.md", include_str!("../../../docs/PROTOCOL.md")),
    (
        "WRITING_A_BOT.md",
        include_str!("../../../docs/WRITING_A_BOT.md"),
    ),
    // starter-kits/README.md: the kits, their languages and what they need.
    (
        "STARTER_KITS.md",
        include_str!("../../../starter-kits/README.md"),
    ),
];

/// One of [`DOCS`], as plain text (Markdown).
async fn doc(Path(file): Path<String>) -> Response {
    let Some((_, text)) = DOCS.iter().find(|(name, _)| *name == file) else {
        return (StatusCode::NOT_FOUND, "no such document").into_response();
    };
    (
        [
            (header::CONTENT_TYPE, "text/markdown; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        *text,
    )
        .into_response()
}

/// `n thing` or `n things` (`loss`: `losses`).
pub(super) fn plural(n: u64, thing: &str) -> String {
    let es = if thing.ends_with('s') { "es" } else { "s" };
    durak_protocol::text::counted(n, thing, &format!("{thing}{es}"))
}

#[cfg(test)]
mod plural_tests {
    use super::plural;

    #[test]
    fn counts_read_as_words() {
        assert_eq!(plural(1, "loss"), "1 loss");
        assert_eq!(plural(2, "loss"), "2 losses");
        assert_eq!(plural(0, "game"), "0 games");
        assert_eq!(plural(1, "game"), "1 game");
    }
}
