//! The challenges' pages (`ladder/challenges.rs`): the form on a bot's page (with its CSRF
//! token, checked by `csrf.rs` before the handler runs) and `/challenges/ID` with its games.

use super::api::challenges::{challenge_out, make, ChallengeBody};
use super::pages::{csrf_field, error_page, games_table, page, page_error, version_link};
use super::{blocking, AppState, Visitor};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use maud::{html, Markup};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/challenges", post(create))
        .route("/challenges/{id}", get(show))
}

/// The form on bot `opponent`'s page, for a logged-in author.
pub fn form(v: &Visitor, opponent: &str, max_deals: u32) -> Markup {
    html! {
        @if v.account.is_some() {
            h2 { "Challenge " (opponent) }
            form.box #challenge method="post" action="/challenges" {
                (csrf_field(v))
                input type="hidden" name="opponent" value=(opponent);
                label { "Your bot: " input type="text" name="bot" required; }
                label { "Deals (each at both seats, at most " (max_deals) "): "
                    input type="number" name="deals" min="1" max=(max_deals) value="5" required; }
                button type="submit" { "Play it (unrated)" }
            }
        }
    }
}

async fn create(State(s): State<AppState>, v: Visitor, Form(f): Form<ChallengeBody>) -> Response {
    let Some(a) = v.account.clone() else {
        return error_page(401, &v, "log in first");
    };
    match blocking(move || make(&s, a.id, &f)).await {
        Ok(id) => Redirect::to(&format!("/challenges/{id}")).into_response(),
        Err(e) => page_error(&v, e),
    }
}

async fn show(State(s): State<AppState>, v: Visitor, Path(id): Path<i64>) -> Response {
    let c = match blocking(move || Ok(challenge_out(&s, id)?)).await {
        Ok(Some(c)) => c,
        Ok(None) => return error_page(404, &v, &format!("no challenge {id}")),
        Err(e) => return page_error(&v, e),
    };
    let w = &c.view;
    let e = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:+.0}"));
    let body = html! {
        @if matches!(w.state.as_str(), "queued" | "playing") { meta http-equiv="refresh" content="5"; }
        p #challenge-state { "State: " strong { (w.state) } " · "
            (w.games) " of " (w.planned_games) " games"
            @if w.void_games > 0 { " (" (w.void_games) " void: counted for nobody)" }
            " · unrated" }
        table {
            tbody {
                tr { th { "wins, draws, losses" } td.num { (w.wins) ", " (w.draws) ", " (w.losses) } }
                tr { th { "score" } td.num { (format!("{:.1} %", 100.0 * w.score)) } }
                tr { th { "Elo above " (w.opponent) " (95 %, paired by deal)" }
                     td.num { (e(w.elo)) " (" (e(w.elo_ci95[0])) " … " (e(w.elo_ci95[1])) ")" } }
                tr { th { "LOS" } td.num { (w.los.map_or("-".to_string(), |l| format!("{:.1} %", 100.0 * l))) } }
            }
        }
        h2 { "Games" }
        @if c.game_list.is_empty() { p { "No game yet." } } @else { (games_table(&c.game_list)) }
    };
    let meta = html! {
        a href=(version_link(&w.bot, w.version)) { (w.bot) " v" (w.version) } " against "
        a href=(version_link(&w.opponent, w.opponent_version)) { (w.opponent) " v" (w.opponent_version) }
    };
    page(&format!("Challenge {id}"), Some(meta), &v, &[], body).into_response()
}
