//! The organiser's pages of what runs besides the ladder: fixed tournaments (start one with
//! its deals per table; the list, the running one first; cancel a queued or running one) and
//! worker tokens (issue one, shown
//! once; the list with each token's last contact; revoke).

use super::{back, button, org_page, refused, time, when};
use crate::domain::TournamentState;
use crate::http::pages::{csrf_field, error_page, layout, page_error};
use crate::http::{blocking, ApiError, AppState, Visitor};
use crate::tournament::Cancelled;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use maud::html;
use serde::Deserialize;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/organiser/tournaments", get(tournaments).post(start))
        .route("/organiser/tournaments/{id}/cancel", post(cancel))
        .route("/organiser/workers", get(workers).post(new_worker))
        .route("/organiser/workers/{id}/revoke", post(revoke_worker))
}

async fn tournaments(State(s): State<AppState>, v: Visitor) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    let listed = blocking(move || {
        let list = s.tournaments.list(&s.ladder)?;
        Ok((list, s.tournaments.cancelling()))
    });
    let (list, cancelling) = match listed.await {
        Ok(l) => l,
        Err(e) => return page_error(&v, e),
    };
    let running = list.iter().find(|t| t.state == TournamentState::Running);
    let body = html! {
        p { "A fixed tournament among the versions in the ladder now: duplicate deals at every \
             table of the ladder's size, the ladder's limits and sandbox; the ladder goes on \
             meanwhile. One runs at a time; its report is written when it ends. Cancelled, a \
             queued one never plays, and the running one stops at its tables' next games (the \
             games played stay in its directory)." }
        @if let Some(t) = running {
            p #running { "Tournament " a href=(t.url) { (t.id) }
                " is running: the next can start when it ends." }
        }
        form.box #start-tournament method="post" action="/organiser/tournaments" {
            (csrf_field(&v))
            label { "Deals per table (1 to 10000): "
                input type="number" name="games" value="10" min="1" max="10000" required; }
            button type="submit" { "Start a tournament" }
        }
        @if list.is_empty() { p { "No tournament yet." } } @else {
            table #tournaments-admin {
                thead { tr { th.num { "id" } th { "state" } th { "started" } th { "ended" } th { "report" } th {} } }
                tbody { @for t in &list { tr data-tournament=(t.id) {
                    td.num { a href=(t.url) { (t.id) } }
                    td { span class=(format!("state {}", t.state)) { (t.state.as_str()) } }
                    td { (time(t.created)) }
                    td { (when(t.finished)) }
                    td { @if let Some(r) = &t.report { a href=(r) { "report" } } }
                    td {
                        @if cancelling == Some(t.id) { "cancelling: its tables stop at their next games" }
                        @else if t.state.is_open() {
                            (button(&v, &format!("/organiser/tournaments/{}/cancel", t.id), "Cancel"))
                        }
                    }
                } } }
            }
        }
    };
    org_page("Organiser: tournaments", &v, "/organiser/tournaments", body).into_response()
}

#[derive(Deserialize)]
struct StartForm {
    #[serde(default)]
    games: String,
}

async fn start(State(s): State<AppState>, v: Visitor, Form(f): Form<StartForm>) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    let games: u32 = match f.games.trim().parse() {
        Ok(g) => g,
        Err(_) => {
            return error_page(
                400,
                &v,
                &format!(
                    "games = {:?}: give the deals per table as a number, 1 to 10000",
                    f.games
                ),
            )
        }
    };
    let started = blocking(move || s.tournaments.start(games).map_err(ApiError::from));
    match started.await {
        Ok((id, _)) => Redirect::to(&format!("/tournaments/{id}")).into_response(),
        Err(e) => page_error(&v, e),
    }
}

/// Cancel a tournament (`Tournaments::cancel`): 404 for none such, 409 for one that is over.
async fn cancel(State(s): State<AppState>, v: Visitor, Path(id): Path<i64>) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    let done = blocking(move || match s.tournaments.cancel(id)? {
        Cancelled::Yes => Ok(()),
        Cancelled::Unknown => Err(ApiError::not_found(format!("there is no tournament {id}"))),
        Cancelled::Over(state) => Err(ApiError::new(
            409,
            format!("tournament {id} is over ({state}): only a queued or running one is cancelled"),
        )),
    });
    match done.await {
        Ok(()) => back("/organiser/tournaments"),
        Err(e) => page_error(&v, e),
    }
}

async fn workers(State(s): State<AppState>, v: Visitor) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    let list = match blocking(move || Ok(crate::auth::worker_tokens(&s.ladder.db)?)).await {
        Ok(l) => l,
        Err(e) => return page_error(&v, e),
    };
    let body = html! {
        p { "A worker token lets " code { "durak worker --server URL --token TOKEN" }
            " claim the ladder's jobs on another machine; it opens the worker routes only. \
             Revoked, it claims nothing more (a job it holds goes back to the queue when its \
             lease ends)." }
        form.box #new-worker method="post" action="/organiser/workers" {
            (csrf_field(&v))
            label { "Label: " input type="text" name="label" value="worker" required; }
            button type="submit" { "Issue a worker token" }
        }
        @if list.is_empty() { p { "No worker token yet." } } @else {
            table #workers {
                thead { tr { th.num { "id" } th { "label" } th { "issued" } th { "last contact" } th { "state" } th {} } }
                tbody { @for w in &list { tr data-worker=(w.id) {
                    td.num { (w.id) }
                    td { (w.label) }
                    td { (time(w.created)) }
                    td { (when(w.last_seen)) }
                    td { @if w.revoked { "revoked" } @else { "valid" } }
                    td { @if !w.revoked { (button(&v, &format!("/organiser/workers/{}/revoke", w.id), "Revoke")) } }
                } } }
            }
        }
    };
    org_page("Organiser: worker tokens", &v, "/organiser/workers", body).into_response()
}

#[derive(Deserialize)]
struct LabelForm {
    #[serde(default)]
    label: String,
}

async fn new_worker(State(s): State<AppState>, v: Visitor, Form(f): Form<LabelForm>) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    let label: String = f.label.trim().chars().take(100).collect();
    match blocking(move || Ok(crate::auth::new_worker_token(&s.ladder.db, &label)?)).await {
        Ok((id, token)) => {
            let body = html! {
                p { "Worker token " (id) " (shown only this once): give it to "
                    code { "durak worker --token" } " on the worker's machine." }
                p.token #worker-token { (token) }
                p { a href="/organiser/workers" { "Back to the worker tokens" } }
            };
            layout("New worker token", &v, body).into_response()
        }
        Err(e) => page_error(&v, e),
    }
}

async fn revoke_worker(State(s): State<AppState>, v: Visitor, Path(id): Path<i64>) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    let done = blocking(move || {
        if crate::auth::revoke_worker_token(&s.ladder.db, id)? {
            Ok(())
        } else {
            Err(ApiError::not_found(format!(
                "there is no worker token {id}"
            )))
        }
    });
    match done.await {
        Ok(()) => back("/organiser/workers"),
        Err(e) => page_error(&v, e),
    }
}
