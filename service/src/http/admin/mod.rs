//! The organiser's pages (issue 24): what the API's organiser routes do, as forms. Each page
//! is under `/organiser` and opens for the organiser's login only (401 without a login, 403
//! for another account); each form posts with its CSRF token (`http/csrf.rs` checks it, and the
//! `Origin`, before these handlers run) and answers with the page it changed (303), or with a
//! token shown once. Here the ladder (pause, resume, the settings in force); `people.rs`
//! invites and authors; `bots.rs` versions taken out with a reason; `runs.rs` fixed
//! tournaments and worker tokens.

mod bots;
mod people;
mod runs;

use super::pages::{csrf_field, error_page, layout, page_error, time};
use super::{blocking, AppState, Visitor};
use axum::extract::State;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use maud::{html, Markup};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/organiser", get(ladder))
        .route("/organiser/ladder/pause", post(pause))
        .route("/organiser/ladder/resume", post(resume))
        .merge(people::routes())
        .merge(bots::routes())
        .merge(runs::routes())
}

/// The organiser's pages, in the order of their navigation: (path, name).
const SECTIONS: &[(&str, &str)] = &[
    ("/organiser", "ladder"),
    ("/organiser/invites", "invites"),
    ("/organiser/authors", "authors"),
    ("/organiser/bots", "bots and versions"),
    ("/organiser/tournaments", "tournaments"),
    ("/organiser/workers", "worker tokens"),
];

/// The page that refuses a request that is not the organiser's: 401 without a login, 403 for
/// another account; `None` for the organiser.
fn refused(v: &Visitor) -> Option<Response> {
    match v.who() {
        None => Some(error_page(
            401,
            v,
            "log in first: this page is the organiser's (log in with the organiser's token)",
        )),
        Some(a) if !a.organiser => Some(error_page(
            403,
            v,
            "only the organiser may do this: this page is the organiser's",
        )),
        Some(_) => None,
    }
}

/// An organiser's page: the sections' navigation, then `body`.
fn org_page(title: &str, v: &Visitor, current: &str, body: Markup) -> Html<String> {
    let body = html! {
        nav.sections #organiser-nav {
            @for (path, name) in SECTIONS {
                @if *path == current { strong { (name) } } @else { a href=(path) { (name) } }
            }
        }
        (body)
    };
    layout(title, v, body)
}

/// A button alone in a form that posts to `action` (its CSRF token first).
fn button(v: &Visitor, action: &str, label: &str) -> Markup {
    html! {
        form.inline method="post" action=(action) {
            (csrf_field(v))
            button type="submit" { (label) }
        }
    }
}

/// After a form: back to the page it changed.
fn back(to: &str) -> Response {
    Redirect::to(to).into_response()
}

/// A form without its reason (400).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("give a reason: the author reads it on the version's page")]
struct NoReason;

/// A reason from a form: trimmed, at most 300 characters; `Err` when empty.
fn reason(text: &str) -> Result<String, NoReason> {
    let r: String = text.trim().chars().take(300).collect();
    if r.is_empty() {
        return Err(NoReason);
    }
    Ok(r)
}

async fn ladder(State(s): State<AppState>, v: Visitor) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    let s2 = s.clone();
    let got = blocking(move || {
        let season = crate::season::current(&s2.ladder.db)?;
        Ok((crate::views::status_of(&s2.ladder)?, season))
    });
    let (status, season) = match got.await {
        Ok(st) => st,
        Err(e) => return page_error(&v, e),
    };
    let body = html! {
        h2 { "The ladder" }
        p #ladder-state {
            @if status.paused { strong { "Paused" } ": no new job starts; the tables playing finish theirs." }
            @else { strong { "Playing" } }
            " · " (status.games) " games recorded · " (status.active_versions) " versions in the ladder · "
            (status.queued_versions) " waiting for their check · " (status.open_jobs) " open jobs ("
            (status.worker_jobs) " held by workers)"
        }
        @if status.paused { (button(&v, "/organiser/ladder/resume", "Resume the ladder")) }
        @else { (button(&v, "/organiser/ladder/pause", "Pause the ladder")) }
        (super::seasons::organiser_section(&v, &season, s.ladder.cfg.season.ends_ms))
        h2 { "Settings in force" }
        p.note { "As this server started (serve.toml and the command line; docs/SERVICE.md): \
                  change them there and restart." }
        (settings(&s))
    };
    org_page("Organiser: the ladder", &v, "/organiser", body).into_response()
}

/// The settings in force, as a table of (setting, value).
fn settings(s: &AppState) -> Markup {
    let c = &s.ladder.cfg;
    let l = &c.ladder;
    let mut rows: Vec<(String, String)> = vec![
        ("variant".into(), l.variant.name().to_string()),
        ("table_size".into(), l.table_size.to_string()),
        ("deals (per job)".into(), l.deals.to_string()),
        ("concurrency (tables)".into(), l.concurrency.to_string()),
        ("local_play".into(), l.local_play.to_string()),
        ("lease_s".into(), (l.lease_ms / 1000).to_string()),
        (
            "max_consecutive_faults".into(),
            l.max_consecutive_faults.to_string(),
        ),
        ("house_bots".into(), l.house_bots.join(", ")),
        (
            "seed".into(),
            l.seed.map_or("random".into(), |x| x.to_string()),
        ),
        ("startup_ms".into(), l.limits.startup_ms.to_string()),
        ("move_ms".into(), l.limits.move_ms.to_string()),
        ("bank_ms".into(), l.limits.bank_ms.to_string()),
        ("max_line_bytes".into(), l.limits.max_line_bytes.to_string()),
        ("sandbox".into(), c.sandbox.name().to_string()),
        (
            "registration".into(),
            format!("{:?}", c.registration).to_lowercase(),
        ),
        ("check games".into(), c.check_games.to_string()),
        ("check long".into(), c.check_long.to_string()),
        ("check concurrency".into(), c.check_concurrency.to_string()),
        ("build timeout_s".into(), c.build.timeout_s.to_string()),
        (
            "upload max_archive".into(),
            c.upload.max_archive.to_string(),
        ),
        (
            "quota submissions_per_day".into(),
            c.quota.submissions_per_day.to_string(),
        ),
        ("quota storage".into(), c.quota.storage.to_string()),
        (
            "quota failed_keep_days".into(),
            c.quota.failed_keep_days.to_string(),
        ),
    ];
    for (k, value) in c.resources.entries() {
        rows.push((format!("sandbox.limits {k}"), value));
    }
    html! {
        table #settings {
            thead { tr { th { "setting" } th { "value" } } }
            tbody { @for (k, val) in &rows { tr { td { code { (k) } } td { (val) } } } }
        }
    }
}

async fn pause(State(s): State<AppState>, v: Visitor) -> Response {
    set_paused(s, v, true).await
}

async fn resume(State(s): State<AppState>, v: Visitor) -> Response {
    set_paused(s, v, false).await
}

async fn set_paused(s: AppState, v: Visitor, paused: bool) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    match blocking(move || Ok(s.ladder.set_paused(paused)?)).await {
        Ok(()) => back("/organiser"),
        Err(e) => page_error(&v, e),
    }
}

/// A date for a page, or `never`.
fn when(t: Option<i64>) -> String {
    t.map_or_else(|| "never".to_string(), time)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_blank_reason_is_refused_saying_who_reads_it() {
        assert_eq!(super::reason("  \n "), Err(super::NoReason));
        assert_eq!(
            super::NoReason.to_string(),
            "give a reason: the author reads it on the version's page"
        );
        assert_eq!(super::reason(" cheats ").as_deref(), Ok("cheats"));
    }
}
