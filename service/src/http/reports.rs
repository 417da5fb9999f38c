//! Fixed tournaments on the site: the list (`/tournaments`), a tournament's page
//! (`/tournaments/ID`), and its full report as `durak tournament --html` writes it, served from
//! its directory: `/tournaments/ID/report/PATH` is `DATA/tournaments/ID/html/PATH` (the index,
//! the bots' pages, every game's replay page, the games list and its data), and
//! `/tournaments/ID/results.jsonl` and `.../tournament.toml` the two files its pages link to
//! (`../results.jsonl`). Only files inside that folder are served (`files.rs`: no `..`, no
//! symbolic link, regular files only).

use super::files::{self, Refused};
use super::pages::{error_page, page, page_error};
use super::{blocking, ApiError, AppState, Visitor};
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use maud::html;
use std::path::PathBuf;

/// The largest file of a report served.
const MAX_FILE: u64 = 256 << 20;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/tournaments", get(list))
        .route("/tournaments/{id}", get(tournament))
        .route("/tournaments/{id}/report", get(report_index))
        .route("/tournaments/{id}/report/", get(report_index))
        .route("/tournaments/{id}/report/{*path}", get(report_file))
        .route("/tournaments/{id}/{file}", get(data_file))
}

fn time(ms: Option<i64>) -> String {
    ms.map(super::pages::time).unwrap_or_default()
}

async fn list(State(s): State<AppState>, v: Visitor) -> Response {
    let all = match blocking(move || Ok(s.tournaments.list(&s.ladder)?)).await {
        Ok(v) => v,
        Err(e) => return page_error(&v, e),
    };
    let body = html! {
        @if all.is_empty() {
            p { "None yet. The organiser starts one among the bots in the ladder with "
                code { "POST /api/tournaments" } "." }
        } @else {
            div.scroll { table #tournaments {
                thead { tr { th.num { "id" } th { "state" } th { "started" } th { "ended" } th { "report" } } }
                tbody { @for t in &all { tr {
                    td.num { a href=(t.url) { (t.id) } }
                    td { span class=(format!("state {}", t.state)) { (t.state.as_str()) } }
                    td { (time(Some(t.created))) }
                    td { (time(t.finished)) }
                    td { @if let Some(r) = &t.report { a href=(r) { "the full report" } } }
                } } }
            } }
        }
        p.note { "A fixed tournament is played among the versions in the ladder when it starts, \
                  with duplicate deals, by the engine of " code { "durak tournament" } ", while \
                  the ladder goes on." }
    };
    page("Tournaments", None, &v, &[], body).into_response()
}

async fn tournament(State(s): State<AppState>, v: Visitor, Path(id): Path<i64>) -> Response {
    let s2 = s.clone();
    let view = match blocking(move || Ok(s.tournaments.view(&s.ladder, id)?)).await {
        Ok(Some(v)) => v,
        Ok(None) => return error_page(404, &v, &format!("no tournament {id}")),
        Err(e) => return page_error(&v, e),
    };
    // `dir` is relative to the data directory (what the page shows).
    let dir = view.dir.clone();
    let standings =
        std::fs::read_to_string(s2.ladder.paths.root.join(&dir).join("standings.txt")).ok();
    let running = view.state == crate::domain::TournamentState::Running;
    let meta = html! {
        span class=(format!("state {}", view.state)) { (view.state.as_str()) }
        " · " (view.games_played) " games played"
        @if let Some(b) = &view.bots { " · " (b.len()) " bots" }
    };
    let body = html! {
        @if running { meta http-equiv="refresh" content="3"; }
        @if let Some(e) = &view.error { p.error { (e) } }
        @if let Some(r) = &view.report {
            nav.links aria-label="report" {
                a #report href=(r) { "the full report: standings, charts, a page per bot and per game" }
                a href={ "/tournaments/" (id) "/results.jsonl" } { "results.jsonl" }
                a href={ "/tournaments/" (id) "/tournament.toml" } { "tournament.toml" }
            }
        } @else if running {
            p { "Its report is written when it ends; this page reloads until then." }
        }
        @if let Some(t) = standings { pre #standings { (t) } }
        p.note { "Its directory on the server: " code { "DATA/" (dir) } " in the data directory (a " code { "durak tournament" }
                 " directory: " code { "durak standings DIR" } " prints it again)." }
    };
    page(&format!("Tournament {id}"), Some(meta), &v, &[], body).into_response()
}

/// A tournament's directory, from its row.
async fn dir_of(s: AppState, id: i64) -> Result<PathBuf, ApiError> {
    blocking(move || {
        s.tournaments
            .dir(&s.ladder, id)?
            .ok_or_else(|| ApiError::not_found(format!("no tournament {id}")))
    })
    .await
}

async fn report_index(Path(id): Path<i64>) -> Redirect {
    Redirect::to(&crate::tournament::report_url(id))
}

/// Serve `rel` inside `root`.
async fn serve(root: PathBuf, rel: String, v: Visitor) -> Response {
    let name = rel.clone();
    let read = tokio::task::spawn_blocking(move || files::read_inside(&root, &rel, MAX_FILE)).await;
    match read {
        Ok(Ok(bytes)) => {
            let ty = files::content_type(&name);
            let mut r = ([(header::CONTENT_TYPE, ty)], bytes).into_response();
            let h = r.headers_mut();
            h.insert(
                "x-content-type-options",
                HeaderValue::from_static("nosniff"),
            );
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            if ty.starts_with("text/html") {
                h.insert(
                    header::CONTENT_SECURITY_POLICY,
                    HeaderValue::from_static(durak_replay::html::layout::CSP),
                );
            }
            r
        }
        Ok(Err(Refused::BadPath(why))) => error_page(
            400,
            &v,
            &format!("{why}: a report's files are named by plain relative paths"),
        ),
        Ok(Err(Refused::TooLarge)) => error_page(
            413,
            &v,
            &format!("{name}: larger than {MAX_FILE} bytes, the largest file served"),
        ),
        Ok(Err(Refused::NotFound)) | Err(_) => {
            error_page(404, &v, &format!("{name}: no such file in the report"))
        }
    }
}

async fn report_file(
    State(s): State<AppState>,
    v: Visitor,
    Path((id, rel)): Path<(i64, String)>,
) -> Response {
    match dir_of(s, id).await {
        Ok(dir) => serve(dir.join("html"), rel, v).await,
        Err(e) => page_error(&v, e),
    }
}

/// The tournament's own files that its report links to (`../results.jsonl`).
async fn data_file(
    State(s): State<AppState>,
    v: Visitor,
    Path((id, file)): Path<(i64, String)>,
) -> Response {
    if !matches!(
        file.as_str(),
        durak_tournaments::results::RESULTS_FILE | durak_tournaments::results::CONFIG_FILE
    ) {
        return error_page(404, &v, &format!("no {file:?} here"));
    }
    let results = file == durak_tournaments::results::RESULTS_FILE;
    match dir_of(s, id).await {
        Ok(dir) if results => public_results_file(serve(dir, file, v).await).await,
        Ok(dir) => serve(dir, file, v).await,
        Err(e) => page_error(&v, e),
    }
}

/// `results.jsonl` served to anyone: the stderr quoted in faults' details cut
/// (`private::public_results`), as the report's game pages leave it out.
async fn public_results_file(r: Response) -> Response {
    if !r.status().is_success() {
        return r;
    }
    let (mut parts, body) = r.into_parts();
    // The body's length changes: the file's length must not be announced.
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    match axum::body::to_bytes(body, MAX_FILE as usize + 1).await {
        Ok(b) => Response::from_parts(parts, super::private::public_results(&b).into()),
        Err(e) => ApiError::internal(e).into_response(),
    }
}
