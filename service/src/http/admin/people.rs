//! The organiser's pages of people: invites (make one, shown once; list; revoke an unused
//! one) and authors (list; suspend with a reason, which takes their versions out of the
//! ladder; reinstate).

use super::{back, button, org_page, reason, refused, time};
use crate::admin;
use crate::domain::VersionState;
use crate::http::pages::{csrf_field, error_page, layout, page_error};
use crate::http::{api, blocking, ApiError, AppState, Visitor};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use maud::html;
use serde::Deserialize;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/organiser/invites", get(invites).post(new_invite))
        .route("/organiser/invites/{id}/revoke", post(revoke_invite))
        .route("/organiser/authors", get(authors))
        .route("/organiser/authors/{id}/suspend", post(suspend))
        .route("/organiser/authors/{id}/reinstate", post(reinstate))
}

async fn invites(State(s): State<AppState>, v: Visitor) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    let list = match blocking(move || Ok(admin::invites(&s.ladder.db)?)).await {
        Ok(l) => l,
        Err(e) => return page_error(&v, e),
    };
    let body = html! {
        p { "An invite creates one account (" code { "POST /api/accounts" } " or the "
            a href="/register" { "registration page" } "). The token is shown once, when it is made." }
        form.box #new-invite method="post" action="/organiser/invites" {
            (csrf_field(&v))
            button type="submit" { "Make an invite" }
        }
        @if list.is_empty() { p { "No invite yet." } } @else {
            table #invites {
                thead { tr { th.num { "id" } th { "made" } th { "state" } th {} } }
                tbody { @for i in &list { tr data-invite=(i.id) {
                    td.num { (i.id) }
                    td { (time(i.created)) }
                    td {
                        @if let Some(name) = &i.used_by { "used by " (name) }
                        @else if let Some(t) = i.revoked { "revoked " (time(t)) }
                        @else { "unused" }
                    }
                    td { @if i.used_by.is_none() && i.revoked.is_none() {
                        (button(&v, &format!("/organiser/invites/{}/revoke", i.id), "Revoke"))
                    } }
                } } }
            }
        }
    };
    org_page("Organiser: invites", &v, "/organiser/invites", body).into_response()
}

async fn new_invite(State(s): State<AppState>, v: Visitor) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    match blocking(move || Ok(crate::auth::new_invite(&s.ladder.db)?)).await {
        Ok(token) => {
            let body = html! {
                p { "The invite (shown only this once): give it to one author, who registers with it." }
                p.token #invite { (token) }
                p { a href="/organiser/invites" { "Back to the invites" } }
            };
            layout("New invite", &v, body).into_response()
        }
        Err(e) => page_error(&v, e),
    }
}

async fn revoke_invite(State(s): State<AppState>, v: Visitor, Path(id): Path<i64>) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    match blocking(move || admin::revoke_invite(&s.ladder.db, id).map_err(not_done)).await {
        Ok(()) => back("/organiser/invites"),
        Err(e) => page_error(&v, e),
    }
}

/// A refusal in words (409: the thing is not in a state that allows it).
fn not_done(e: crate::admin::AdminError) -> ApiError {
    ApiError::new(e.status(), e.to_string())
}

async fn authors(State(s): State<AppState>, v: Visitor) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    let list = match blocking(move || Ok(admin::accounts(&s.ladder.db)?)).await {
        Ok(l) => l,
        Err(e) => return page_error(&v, e),
    };
    let body = html! {
        p { "A suspended account's tokens and logins open nothing (each told why), and its \
             versions leave the ladder; reinstated, it may log in and submit again (its versions \
             stay out until it submits)." }
        table #authors {
            thead { tr { th { "name" } th { "since" } th.num { "bots" } th.num { "in the ladder" } th { "state" } th {} } }
            tbody { @for a in &list { tr data-author=(a.name) {
                td { (a.name) @if a.organiser { " (organiser)" } }
                td { (time(a.created)) }
                td.num { (a.bots) }
                td.num { (a.active) }
                td { @if let Some(r) = &a.suspended { span.state.suspended { "suspended" } " " (r) } @else { "active" } }
                td {
                    @if a.suspended.is_some() {
                        (button(&v, &format!("/organiser/authors/{}/reinstate", a.id), "Reinstate"))
                    } @else if !a.organiser {
                        form.inline.suspend method="post" action=(format!("/organiser/authors/{}/suspend", a.id)) {
                            (csrf_field(&v))
                            input type="text" name="reason" required placeholder="reason";
                            button type="submit" { "Suspend" }
                        }
                    }
                }
            } } }
        }
    };
    org_page("Organiser: authors", &v, "/organiser/authors", body).into_response()
}

#[derive(Deserialize)]
struct ReasonForm {
    #[serde(default)]
    reason: String,
}

async fn suspend(
    State(s): State<AppState>,
    v: Visitor,
    Path(id): Path<i64>,
    Form(f): Form<ReasonForm>,
) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    let why = match reason(&f.reason) {
        Ok(r) => r,
        Err(e) => return error_page(400, &v, &e.to_string()),
    };
    let done = blocking(move || {
        admin::set_suspended(&s.ladder.db, id, Some(&why)).map_err(not_done)?;
        // Its versions in the ladder leave it.
        let out = format!("its author's account was suspended by the organiser: {why}");
        for ver in crate::store::versions_of_account(&s.ladder.db, id)? {
            if ver.state == VersionState::Active && !ver.house {
                api::set_out(&s, &ver.bot, ver.n, VersionState::Suspended, &out)?;
            }
        }
        Ok(())
    });
    match done.await {
        Ok(()) => back("/organiser/authors"),
        Err(e) => page_error(&v, e),
    }
}

async fn reinstate(State(s): State<AppState>, v: Visitor, Path(id): Path<i64>) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    match blocking(move || admin::set_suspended(&s.ladder.db, id, None).map_err(not_done)).await {
        Ok(()) => back("/organiser/authors"),
        Err(e) => page_error(&v, e),
    }
}
