//! The organiser's page of bots and versions: every version with its state, and the ones
//! still in play (in the ladder, or waiting for their check) taken out with a reason:
//! disqualified (a breach of the rules) or removed.

use super::{back, org_page, reason, refused, time};
use crate::domain::VersionState;
use crate::http::pages::{csrf_field, error_page, page_error, version_link};
use crate::http::{api, blocking, ApiError, AppState, Visitor};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use maud::html;
use serde::Deserialize;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/organiser/bots", get(bots))
        .route("/organiser/bots/{bot}/versions/{n}/out", post(out))
}

async fn bots(State(s): State<AppState>, v: Visitor) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    let list = match blocking(move || Ok(crate::store::versions(&s.ladder.db, &[])?)).await {
        Ok(mut l) => {
            l.sort_by(|a, b| a.bot.cmp(&b.bot).then(b.n.cmp(&a.n)));
            l
        }
        Err(e) => return page_error(&v, e),
    };
    let body = html! {
        p { "Every version. One in play (in the ladder, or waiting for its check) is taken out \
             with a reason its author reads on the version's page: " strong { "disqualified" }
            " (it broke the rules) or " strong { "removed" } ". Its open jobs are cancelled and \
             the leaderboard is computed again without it." }
        div.scroll { table #versions {
            thead { tr { th { "version" } th { "author" } th { "state" } th { "submitted" } th { "note" } th { "take out" } } }
            tbody { @for ver in &list { tr data-version=(format!("{} v{}", ver.bot, ver.n)) {
                td { a href=(version_link(&ver.bot, ver.n)) { (ver.bot) " v" (ver.n) } }
                td { (ver.author) @if ver.house { " (house bot)" } }
                td { span class=(format!("state {}", ver.state)) { (ver.state) } }
                td { (time(ver.submitted)) }
                td { (ver.reason.clone().unwrap_or_default()) }
                td { @if !ver.state.is_out() {
                    form.inline.out method="post" action=(format!("/organiser/bots/{}/versions/{}/out", ver.bot, ver.n)) {
                        (csrf_field(&v))
                        input type="text" name="reason" required placeholder="reason";
                        button type="submit" name="action" value="disqualify" { "Disqualify" }
                        " "
                        button type="submit" name="action" value="remove" { "Remove" }
                    }
                } }
            } } }
        } }
    };
    org_page("Organiser: bots and versions", &v, "/organiser/bots", body).into_response()
}

#[derive(Deserialize)]
struct OutForm {
    #[serde(default)]
    reason: String,
    #[serde(default)]
    action: String,
}

async fn out(
    State(s): State<AppState>,
    v: Visitor,
    Path((bot, n)): Path<(String, i64)>,
    Form(f): Form<OutForm>,
) -> Response {
    if let Some(r) = refused(&v) {
        return r;
    }
    let state = match f.action.as_str() {
        "disqualify" => VersionState::Disqualified,
        "remove" => VersionState::Removed,
        other => {
            return error_page(
                400,
                &v,
                &format!("action {other:?}: the form takes disqualify or remove"),
            )
        }
    };
    let why = match reason(&f.reason) {
        Ok(r) => r,
        Err(e) => return error_page(400, &v, &e.to_string()),
    };
    let done = blocking(move || {
        let ver = crate::store::versions_of_bot(&s.ladder.db, &bot)?
            .into_iter()
            .find(|x| x.n == n)
            .ok_or_else(|| ApiError::not_found(format!("bot {bot:?} has no version {n}")))?;
        if ver.state.is_out() {
            return Err(ApiError::new(
                409,
                format!("{bot} v{n} is {} already: it is out of play", ver.state),
            ));
        }
        api::set_out(&s, &bot, n, state, &why)
    });
    match done.await {
        Ok(_) => back("/organiser/bots"),
        Err(e) => page_error(&v, e),
    }
}
