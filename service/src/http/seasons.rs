//! Seasons over HTTP (issue 24, `crate::season`): `GET /api/seasons`, `GET /api/seasons/{n}`,
//! `POST /api/seasons/end` (the organiser's token); the pages `/seasons` and `/seasons/{n}`
//! (an ended season's final standings, its final tournament's report and its ladder
//! leaderboard as it stood at the end); the organiser's button (`POST /organiser/season/end`,
//! a form with its CSRF token).

use super::pages::{csrf_field, error_page, fmt_ci, fmt_elo, layout, page_error, time};
use super::{blocking, ApiError, AppState, JsonBody, Organiser, Visitor};
use crate::domain::EndedBy;
use crate::season::{self, EndError, Season};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post, MethodRouter};
use axum::{Json, Router};
use maud::{html, Markup};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The API's routes (`api::routes` lists them with the others).
pub fn api_routes() -> Vec<(&'static str, &'static str, MethodRouter<AppState>)> {
    vec![
        ("get", "/api/seasons", get(api_list)),
        ("get", "/api/seasons/{n}", get(api_one)),
        ("post", "/api/seasons/end", post(api_end)),
    ]
}

/// The pages' routes.
pub fn page_routes() -> Router<AppState> {
    Router::new()
        .route("/seasons", get(list_page))
        .route("/seasons/{n}", get(season_page))
        .route("/organiser/season/end", post(end_form))
}

/// A season as JSON: its row, its address, and once ended its final tournament (state,
/// standings, report) and its ladder leaderboard at the end; the current one's leaderboard is
/// `/api/leaderboard`.
fn view(s: &AppState, season: &Season) -> Result<SeasonView, ApiError> {
    let l = &s.ladder;
    let tournament = match season.tournament {
        Some(id) => s.tournaments.view(l, id)?,
        None => None,
    };
    let leaderboard = match season.ended {
        Some(_) => season::leaderboard(&l.db, season.n)?,
        None => None,
    };
    Ok(SeasonView {
        n: season.n,
        current: season.ended.is_none(),
        started: season.started,
        ended: season.ended,
        ended_by: season.ended_by,
        url: format!("/seasons/{}", season.n),
        final_tournament: tournament,
        final_error: season.final_error.clone(),
        leaderboard,
    })
}

/// `GET /api/seasons/{n}`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SeasonView {
    pub n: i64,
    /// Not ended yet.
    pub current: bool,
    /// Unix ms.
    pub started: i64,
    pub ended: Option<i64>,
    pub ended_by: Option<EndedBy>,
    pub url: String,
    /// Its final tournament once it ended (as `GET /api/tournaments/{id}` shows it).
    pub final_tournament: Option<crate::tournament::TournamentView>,
    /// Why it has no final tournament.
    pub final_error: Option<String>,
    /// Its ladder leaderboard as it stood at its end.
    #[schema(value_type = Option<crate::ladder::board::Leaderboard>)]
    pub leaderboard: Option<Value>,
}

/// `GET /api/seasons`: every season, newest first.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SeasonsList {
    /// The current season's number.
    pub current: Option<i64>,
    /// Why submissions are closed, if they are (between a season's end and its final
    /// tournament's).
    pub submissions_closed: Option<String>,
    pub seasons: Vec<SeasonRow>,
}

/// A season in the list.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SeasonRow {
    pub n: i64,
    pub started: i64,
    pub ended: Option<i64>,
    pub ended_by: Option<EndedBy>,
    /// Its final tournament's id.
    pub final_tournament: Option<i64>,
    pub final_error: Option<String>,
    pub url: String,
}

fn one(s: &AppState, n: i64) -> Result<SeasonView, ApiError> {
    let season = season::get(&s.ladder.db, n)?
        .ok_or_else(|| ApiError::not_found(format!("there is no season {n}")))?;
    view(s, &season)
}

fn listed(s: &AppState) -> Result<SeasonsList, ApiError> {
    let db = &s.ladder.db;
    let seasons = season::list(db)?;
    Ok(SeasonsList {
        current: seasons.iter().find(|x| x.ended.is_none()).map(|x| x.n),
        submissions_closed: season::closed(db)?,
        seasons: seasons
            .iter()
            .map(|x| SeasonRow {
                n: x.n,
                started: x.started,
                ended: x.ended,
                ended_by: x.ended_by,
                final_tournament: x.tournament,
                final_error: x.final_error.clone(),
                url: format!("/seasons/{}", x.n),
            })
            .collect(),
    })
}

/// As the pages read it.
fn value(x: impl Serialize) -> Value {
    serde_json::to_value(x).expect("json")
}

async fn api_list(State(s): State<AppState>) -> Result<Json<SeasonsList>, ApiError> {
    Ok(Json(blocking(move || listed(&s)).await?))
}

async fn api_one(
    State(s): State<AppState>,
    Path(n): Path<i64>,
) -> Result<Json<SeasonView>, ApiError> {
    Ok(Json(blocking(move || one(&s, n)).await?))
}

/// End the current season now: the season ended, as `GET /api/seasons/{n}` shows it.
fn end_now(s: &AppState, expect: Option<i64>) -> Result<Season, ApiError> {
    match season::end(&s.ladder, &s.tournaments, EndedBy::Organiser, expect) {
        Ok(x) => Ok(x),
        Err(EndError::AlreadyEnded(n)) => Err(ApiError::new(
            409,
            format!("season {n} was ended meanwhile: see /seasons/{n}"),
        )),
        Err(e @ EndError::NotCurrent { .. }) => Err(ApiError::new(409, e.to_string())),
        Err(EndError::Db(e)) => Err(e.into()),
    }
}

/// `POST /api/seasons/end`'s body, optional.
#[derive(Deserialize, Default, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeasonEndBody {
    /// The season the organiser means to end: refused (409, naming the current one) when
    /// another is current, so a request sent twice does not end the next season too.
    #[serde(default)]
    pub season: Option<i64>,
}

async fn api_end(
    State(s): State<AppState>,
    Organiser(_): Organiser,
    body: Option<JsonBody<SeasonEndBody>>,
) -> Result<Json<SeasonView>, ApiError> {
    let expect = body.and_then(|b| b.0.season);
    Ok(Json(
        blocking(move || {
            let ended = end_now(&s, expect)?;
            view(&s, &ended)
        })
        .await?,
    ))
}

async fn end_form(State(s): State<AppState>, v: Visitor) -> Response {
    match v.who() {
        None => return error_page(401, &v, "log in first: this is the organiser's"),
        Some(a) if !a.organiser => {
            return error_page(403, &v, "only the organiser may end a season")
        }
        Some(_) => {}
    }
    match blocking(move || end_now(&s, None)).await {
        Ok(x) => Redirect::to(&format!("/seasons/{}", x.n)).into_response(),
        Err(e) => page_error(&v, e),
    }
}

/// The organiser's section on `/organiser`: the season running, and the button that ends it.
pub fn organiser_section(v: &Visitor, current: &Season, deadline: Option<i64>) -> Markup {
    html! {
        h2 { "Season " (current.n) }
        p #season-state { "Running since " (time(current.started)) "; "
            @if let Some(d) = deadline { "its deadline ([season] ends) is " (time(d)) }
            @else { "no deadline ([season] ends in serve.toml)" }
            ". " a href="/seasons" { "Every season" } }
        p.note { "Ending it closes submissions, cancels the ladder's open jobs, keeps its \
                  leaderboard, queues its final tournament among the versions in the ladder \
                  and starts season " (current.n + 1) " with fresh ratings; submissions open \
                  again when the final tournament is over (docs/SERVICE.md, Seasons)." }
        form.inline #end-season method="post" action="/organiser/season/end" {
            (csrf_field(v))
            button type="submit" { "End season " (current.n) " now" }
        }
    }
}

async fn list_page(State(s): State<AppState>, v: Visitor) -> Response {
    let l = match blocking(move || listed(&s).map(value)).await {
        Ok(l) => l,
        Err(e) => return page_error(&v, e),
    };
    let body = html! {
        @if let Some(why) = l["submissions_closed"].as_str() { p.error #closed { (why) } }
        table #seasons {
            thead { tr { th.num { "season" } th { "started" } th { "ended" } th { "final tournament" } } }
            tbody { @for x in l["seasons"].as_array().into_iter().flatten() { tr {
                td.num { a href=(x["url"].as_str().unwrap_or("")) { (x["n"]) } }
                td { (time(x["started"].as_i64().unwrap_or(0))) }
                td { @if let Some(e) = x["ended"].as_i64() { (time(e)) " (" (x["ended_by"].as_str().unwrap_or("")) ")" }
                     @else { "running: " a href="/" { "the leaderboard" } } }
                td { @if let Some(t) = x["final_tournament"].as_i64() { a href=(format!("/tournaments/{t}")) { "tournament " (t) } }
                     @else if let Some(e) = x["final_error"].as_str() { "none: " (e) } }
            } } }
        }
    };
    layout("Seasons", &v, body).into_response()
}

async fn season_page(State(s): State<AppState>, v: Visitor, Path(n): Path<i64>) -> Response {
    let x = match blocking(move || one(&s, n).map(value)).await {
        Ok(x) => x,
        Err(e) => return page_error(&v, e),
    };
    let body = html! {
        p #season-dates { "Started " (time(x["started"].as_i64().unwrap_or(0)))
            @if let Some(e) = x["ended"].as_i64() { "; ended " (time(e)) " by the " (x["ended_by"].as_str().unwrap_or("")) "." }
            @else { "; running now: its ratings are " a href="/" { "the leaderboard" } "." }
            " " a href="/seasons" { "Every season" } " · " a href=(format!("/api/seasons/{n}")) { "JSON" } }
        @if x["ended"].is_i64() { (final_standings(&x)) (ladder_board(&x["leaderboard"])) }
    };
    layout(&format!("Season {n}"), &v, body).into_response()
}

/// The final tournament's standings (or its state while it plays).
fn final_standings(x: &Value) -> Markup {
    let t = &x["final_tournament"];
    html! {
        h2 { "Final standings" }
        @if let Some(e) = x["final_error"].as_str() { p.error #final-error { "No final tournament: " (e) } }
        @else if t.is_null() { p #final-state { "The final tournament is being made." } }
        @else {
            p #final-state { "Decided by " a href=(format!("/tournaments/{}", t["id"])) { "tournament " (t["id"]) }
                " (" (t["state"].as_str().unwrap_or("")) ", " (t["games_played"]) " games)"
                @if let Some(r) = t["report"].as_str() { " · " a href=(r) { "its report" } } }
            @if let Some(rows) = t["standings"]["standings"].as_array() {
                table.standings #final-standings {
                    thead { tr { th.num { "rank" } th { "bot" } th.num { "Elo" } th.num { "95% interval" } th.num { "games" } th.num { "losses" } } }
                    tbody { @for r in rows { tr data-bot=(r["bot"].as_str().unwrap_or("")) {
                        td.num { (r["rank_label"].as_str().unwrap_or("")) }
                        td { (r["bot"].as_str().unwrap_or("")) }
                        td.num { (fmt_elo(r["elo"].as_f64())) }
                        td.num { (fmt_ci([r["elo_ci95"][0].as_f64(), r["elo_ci95"][1].as_f64()])) }
                        td.num { (r["games"]) }
                        td.num { (r["losses"]) }
                    } } }
                }
            }
        }
    }
}

/// The season's ladder leaderboard as it stood at its end.
fn ladder_board(lb: &Value) -> Markup {
    html! {
        h2 { "The ladder at the end" }
        @if let Some(rows) = lb["rows"].as_array() {
            p { (lb["games"]) " games of this season among the versions on the board at its end." }
            table.standings #season-leaderboard {
                thead { tr { th.num { "rank" } th { "bot" } th { "author" } th.num { "Elo" } th.num { "95% interval" } th.num { "games" } } }
                tbody { @for r in rows { tr data-bot=(r["bot"].as_str().unwrap_or("")) {
                    td.num { (r["rank_label"].as_str().unwrap_or("")) }
                    td { a href=(format!("/bots/{}/versions/{}", r["bot"].as_str().unwrap_or(""), r["version"])) {
                        (r["bot"].as_str().unwrap_or("")) " v" (r["version"]) } }
                    td { (r["author"].as_str().unwrap_or("")) }
                    td.num { (fmt_elo(r["elo"].as_f64())) }
                    td.num { (fmt_ci([r["elo_ci95"][0].as_f64(), r["elo_ci95"][1].as_f64()])) }
                    td.num { (r["games"]) }
                } } }
            }
        } @else { p { "Not kept." } }
    }
}
