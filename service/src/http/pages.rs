//! Pages for people (maud templates, one layout), each the counterpart of an `/api/` route:
//! the leaderboard (live: it polls `/api/leaderboard`), a bot, a version (build output,
//! check-bot report, games, faults, time per decision), a game (the replay viewer), the
//! author's own page (submit, versions, tokens), registration and login, a tournament.

use super::api::{self, GameSummary};
use super::{blocking, ApiError, AppState, MaybeAuthor, COOKIE};
use crate::auth::Account;
use crate::store::Version;
use axum::extract::{Multipart, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde::Deserialize;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(leaderboard))
        .route("/bots/{bot}", get(bot))
        .route("/bots/{bot}/versions/{n}", get(version))
        .route("/games/{job}/{game}", get(game))
        .route("/me", get(me))
        .route("/me/tokens", post(new_token))
        .route("/register", get(register_form).post(register))
        .route("/login", get(login_form).post(login))
        .route("/logout", post(logout))
        .route("/submit", post(submit))
        .route("/tournaments/{id}", get(tournament))
        .route("/assets/{file}", get(asset))
        .layer(axum::extract::DefaultBodyLimit::disable())
}

const CSS: &str = "
body{font-family:system-ui,sans-serif;margin:0;color:#1d2433;background:#f6f7f9}
header{background:#1f3a5f;color:#fff;padding:.6rem 1.2rem;display:flex;gap:1.2rem;align-items:center}
header a{color:#fff;text-decoration:none}header .grow{flex:1}
main{max-width:70rem;margin:1rem auto;padding:0 1rem}
table{border-collapse:collapse;background:#fff;width:100%}
th,td{padding:.35rem .6rem;border-bottom:1px solid #e3e6ea;text-align:left}
th{background:#eef1f5}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
pre{background:#fff;border:1px solid #e3e6ea;padding:.6rem;overflow:auto;max-height:30rem}
.state{padding:.1rem .4rem;border-radius:.3rem;background:#e3e6ea}
.state.active{background:#cdebd3}.state.failed,.state.suspended,.state.disqualified{background:#f6d0cf}
.error{background:#f6d0cf;padding:.6rem;border-radius:.3rem;white-space:pre-wrap}
.token{font-family:monospace;background:#fff3c4;padding:.4rem;word-break:break-all}
form{background:#fff;padding:.8rem;border:1px solid #e3e6ea;margin:.6rem 0}
label{display:block;margin:.3rem 0}
";

fn layout(title: &str, who: Option<&Account>, body: Markup) -> Html<String> {
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · durak serve" }
                style { (PreEscaped(CSS)) }
            }
            body {
                header {
                    a href="/" { strong { "durak serve" } }
                    a href="/" { "Leaderboard" }
                    span.grow {}
                    @match who {
                        Some(a) => {
                            a href="/me" { (a.name) }
                            form method="post" action="/logout" style="display:inline;background:none;border:0;padding:0;margin:0" {
                                button type="submit" { "Log out" }
                            }
                        }
                        None => {
                            a href="/register" { "Register" }
                            a href="/login" { "Log in" }
                        }
                    }
                }
                main { h1 { (title) } (body) }
            }
        }
    };
    Html(page.into_string())
}

/// An error page with its status.
fn error_page(status: u16, who: Option<&Account>, message: &str) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = html! { p.error { (message) } p { a href="/" { "Back to the leaderboard" } } };
    (
        code,
        layout(code.canonical_reason().unwrap_or("Error"), who, body),
    )
        .into_response()
}

fn page_error(who: Option<&Account>, e: ApiError) -> Response {
    error_page(e.status.as_u16(), who, &e.message)
}

fn fmt_elo(e: Option<f64>) -> String {
    e.map_or_else(|| "-".into(), |e| format!("{e:+.0}"))
}

fn fmt_ci(ci: [Option<f64>; 2]) -> String {
    let end = |v: Option<f64>, inf: &str| v.map_or_else(|| inf.to_string(), |v| format!("{v:+.0}"));
    format!("{} … {}", end(ci[0], "-∞"), end(ci[1], "+∞"))
}

fn version_link(bot: &str, n: i64) -> String {
    format!("/bots/{bot}/versions/{n}")
}

/// The leaderboard's script: polls the JSON every 2 s and redraws the rows (text only).
const LEADERBOARD_JS: &str = r#"
(function(){
  const body = document.getElementById('rows');
  const info = document.getElementById('info');
  function cell(tr, text, cls){ const td=document.createElement('td'); td.textContent=text; if(cls) td.className=cls; tr.appendChild(td); return td; }
  function elo(e){ return e===null? '-' : (e>=0?'+':'')+Math.round(e); }
  function ci(c){ return (c[0]===null?'-∞':elo(c[0]))+' … '+(c[1]===null?'+∞':elo(c[1])); }
  async function tick(){
    try {
      const r = await fetch('/api/leaderboard', {cache:'no-store'});
      const lb = await r.json();
      const rows = [];
      for (const x of lb.rows){
        const tr = document.createElement('tr');
        tr.dataset.bot = x.bot;
        cell(tr, x.rank_label);
        const td = cell(tr, '');
        const a = document.createElement('a'); a.href='/bots/'+encodeURIComponent(x.bot)+'/versions/'+x.version; a.textContent=x.bot+' v'+x.version; td.appendChild(a);
        cell(tr, x.author);
        cell(tr, elo(x.elo), 'num'); cell(tr, ci(x.elo_ci95), 'num');
        cell(tr, String(x.games), 'num'); cell(tr, String(x.losses), 'num');
        cell(tr, (100*x.loss_rate).toFixed(1)+'%', 'num');
        rows.push(tr);
      }
      body.replaceChildren(...rows);
      info.textContent = lb.games+' games'+(lb.paused?' · the ladder is paused':'');
    } catch(e) {}
  }
  setInterval(tick, 2000);
})();
"#;

async fn leaderboard(State(s): State<AppState>, MaybeAuthor(who): MaybeAuthor) -> Html<String> {
    let lb = s.ladder.board.current();
    let paused = s.ladder.is_paused();
    let body = html! {
        p #info { (lb.games) " games" @if paused { " · the ladder is paused" } }
        p { "Ratings are Elo from one fit of all ladder games among the versions in the ladder, \
             with 95 % intervals paired by deal; a tie (=2) means the data does not order \
             those bots yet. The table updates by itself." }
        table #leaderboard {
            thead { tr {
                th { "#" } th { "bot" } th { "author" } th.num { "Elo" } th.num { "95%" }
                th.num { "games" } th.num { "losses" } th.num { "loss rate" }
            } }
            tbody #rows {
                @for r in &lb.rows {
                    tr data-bot=(r.bot) {
                        td { (r.rank_label) }
                        td { a href=(version_link(&r.bot, r.version)) { (r.bot) " v" (r.version) } }
                        td { (r.author) }
                        td.num { (fmt_elo(r.elo)) }
                        td.num { (fmt_ci(r.elo_ci95)) }
                        td.num { (r.games) }
                        td.num { (r.losses) }
                        td.num { (format!("{:.1}%", 100.0 * r.loss_rate)) }
                    }
                }
            }
        }
        p { "To take part: " a href="/register" { "register" } ", then submit your bot's folder \
             on your page or with " code { "durak submit --server URL --token TOKEN FOLDER" } "." }
        script { (PreEscaped(LEADERBOARD_JS)) }
    };
    layout("Leaderboard", who.as_ref(), body)
}

fn state_badge(v: &Version) -> Markup {
    html! { span class=(format!("state {}", v.state)) { (v.state) } }
}

async fn bot(
    State(s): State<AppState>,
    MaybeAuthor(who): MaybeAuthor,
    Path(name): Path<String>,
) -> Response {
    let n2 = name.clone();
    let view = match blocking(move || Ok(api::bot_view(&s, &n2)?)).await {
        Ok(Some(v)) => v,
        Ok(None) => return error_page(404, who.as_ref(), &format!("no bot named {name:?}")),
        Err(e) => return page_error(who.as_ref(), e),
    };
    let body = html! {
        p { "by " (view.author) @if view.house { " (a house bot: built in)" } }
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
    layout(&format!("Bot {}", view.bot), who.as_ref(), body).into_response()
}

/// A time as UTC text.
fn time(ms: i64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since the epoch (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn games_table(games: &[GameSummary]) -> Markup {
    html! {
        table {
            thead { tr { th { "game" } th { "seats" } th { "result" } th.num { "moves" } th { "faults" } } }
            tbody {
                @for g in games {
                    tr {
                        td { a href=(g.url) { "job " (g.job) " game " (g.game) } }
                        td { (g.seats.join(", ")) }
                        td { (g.result) }
                        td.num { (g.moves) }
                        td { @for f in &g.faults { (g.seats.get(f.seat).cloned().unwrap_or_default()) ": " (f.kind.name()) " (" (f.detail) ") " } }
                    }
                }
            }
        }
    }
}

async fn version(
    State(s): State<AppState>,
    MaybeAuthor(who): MaybeAuthor,
    Path((bot, n)): Path<(String, i64)>,
) -> Response {
    let b2 = bot.clone();
    let v = match blocking(move || Ok(api::version_view(&s, &b2, n)?)).await {
        Ok(Some(v)) => v,
        Ok(None) => {
            return error_page(
                404,
                who.as_ref(),
                &format!("bot {bot:?} has no version {n}"),
            )
        }
        Err(e) => return page_error(who.as_ref(), e),
    };
    let ver = &v.version;
    let waiting = matches!(ver.state.as_str(), "queued" | "building" | "checking");
    let body = html! {
        @if waiting { meta http-equiv="refresh" content="3"; }
        p { "by " (ver.author) " · " (state_badge(ver)) " · submitted " (time(ver.submitted))
            @if let Some(sha) = &ver.sha256 { " · sha256 " code { (sha[..12.min(sha.len())]) } } }
        @if let Some(r) = &ver.reason { p.error { (r) } }
        @if waiting { p { "Being built and checked: this page reloads until the report is in." } }
        @if let Some(st) = &v.standing {
            p { "On the leaderboard: " strong { (st.rank_label) } ", Elo " (fmt_elo(st.elo))
                " (" (fmt_ci(st.elo_ci95)) "), " (st.games) " games, " (st.losses) " losses." }
        }
        p { "Command: " code { (ver.command) } " · language: " (ver.language) }
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
        h2 { "Games (" (v.games) ")" }
        @if v.latest_games.is_empty() { p { "No game yet." } } @else { (games_table(&v.latest_games)) }
        @if !v.faults.is_empty() { h2 { "Faults" } (games_table(&v.faults)) }
        p { a href=(format!("/bots/{}", ver.bot)) { "All versions of " (ver.bot) } }
    };
    layout(&format!("{} v{}", ver.bot, ver.n), who.as_ref(), body).into_response()
}

async fn game(
    State(s): State<AppState>,
    MaybeAuthor(who): MaybeAuthor,
    Path((job, g)): Path<(i64, u32)>,
) -> Response {
    let page = blocking(move || {
        let row = crate::store::game(&s.ladder.db, job, g)?
            .ok_or_else(|| ApiError::not_found(format!("no game {g} in job {job}")))?;
        let path = s.ladder.paths.root.join(&row.replay);
        let replay = durak_replay::read_replay(&path).map_err(ApiError::internal)?;
        let sim = durak_replay::simulate(&replay);
        let mut crumbs = vec![("/".to_string(), "← leaderboard".to_string())];
        for v in &row.seats {
            if let Some(v) = crate::store::version(&s.ladder.db, *v)? {
                crumbs.push((version_link(&v.bot, v.n), v.label()));
            }
        }
        let ctx = durak_replay::html::GameContext {
            crumbs,
            place: Some(format!("ladder job {job}, game {g}")),
            root: "/assets/".to_string(),
        };
        Ok(durak_replay::html::game_page(&sim, &ctx))
    })
    .await;
    match page {
        Ok(p) => Html(p).into_response(),
        Err(e) => page_error(who.as_ref(), e),
    }
}

async fn me(State(s): State<AppState>, MaybeAuthor(who): MaybeAuthor) -> Response {
    let Some(a) = who else {
        return Redirect::to("/login").into_response();
    };
    let a2 = a.clone();
    let view = match blocking(move || Ok(api::me_view(&s, &a2)?)).await {
        Ok(v) => v,
        Err(e) => return page_error(Some(&a), e),
    };
    let body = html! {
        h2 { "Submit a bot" }
        form #submit method="post" action="/submit" enctype="multipart/form-data" {
            p { "The bot's folder as a " code { ".tar.gz" } " or " code { ".zip" }
                " archive, with its " code { "bot.toml" } " (name, command, language, author, \
                and optionally build). Each upload is a new version of the bot it names." }
            label { "Archive: " input type="file" name="archive" required; }
            button type="submit" { "Upload" }
        }
        h2 { "Your versions" }
        @if view.versions.is_empty() { p { "None yet." } } @else {
            table { thead { tr { th { "bot" } th { "version" } th { "state" } th { "note" } } }
                tbody { @for v in &view.versions { tr {
                    td { a href=(format!("/bots/{}", v.bot)) { (v.bot) } }
                    td { a href=(version_link(&v.bot, v.n)) { "v" (v.n) } }
                    td { (state_badge(v)) }
                    td { (v.reason.clone().unwrap_or_default()) }
                } } }
            }
        }
        h2 { "Tokens" }
        p { "Use one with " code { "durak submit --server URL --token TOKEN FOLDER" } "." }
        table { thead { tr { th { "id" } th { "label" } th { "created" } th { "state" } } }
            tbody { @for t in &view.tokens { tr {
                td { (t.id) } td { (t.label) } td { (time(t.created)) }
                td { @if t.revoked { "revoked" } @else { "valid" } }
            } } }
        }
        form method="post" action="/me/tokens" {
            label { "Label: " input type="text" name="label" value="cli"; }
            button type="submit" { "New token" }
        }
        @if a.organiser {
            h2 { "Organiser" }
            p { "The API does the rest: " code { "POST /api/invites" } ", "
                code { "POST /api/ladder/pause" } ", " code { "POST /api/ladder/resume" } ", "
                code { "POST /api/bots/BOT/versions/N/disqualify" } ", "
                code { "POST /api/bots/BOT/versions/N/remove" } ", "
                code { "POST /api/tournaments" } " (see " a href="/api/openapi.json" { "the OpenAPI document" } ")." }
        }
    };
    layout(&format!("{}'s page", a.name), Some(&a), body).into_response()
}

fn token_cookie(token: &str) -> String {
    format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000")
}

fn show_token(title: &str, a: &Account, token: &str) -> Response {
    let body = html! {
        p { "Your token (shown only this once: keep it to submit from the command line or to log in again):" }
        p.token #token { (token) }
        p { a href="/me" { "Go to your page" } }
    };
    (
        [(header::SET_COOKIE, token_cookie(token))],
        layout(title, Some(a), body),
    )
        .into_response()
}

async fn register_form(State(s): State<AppState>, MaybeAuthor(who): MaybeAuthor) -> Html<String> {
    let open = s.ladder.cfg.registration == crate::config::Registration::Open;
    let body = html! {
        form #register method="post" action="/register" {
            label { "Name: " input type="text" name="name" required pattern="[A-Za-z0-9._-]{1,32}"; }
            label { "Invite token" @if open { " (not needed here)" } ": " input type="text" name="invite"; }
            button type="submit" { "Create the account" }
        }
    };
    layout("Register", who.as_ref(), body)
}

#[derive(Deserialize)]
struct RegisterForm {
    name: String,
    #[serde(default)]
    invite: String,
}

async fn register(State(s): State<AppState>, Form(f): Form<RegisterForm>) -> Response {
    match blocking(move || api::register_account(&s, &f.name, Some(&f.invite))).await {
        Ok((a, token)) => show_token("Account created", &a, &token),
        Err(e) => page_error(None, e),
    }
}

async fn login_form(MaybeAuthor(who): MaybeAuthor) -> Html<String> {
    let body = html! {
        form #login method="post" action="/login" {
            label { "Token: " input type="password" name="token" required; }
            button type="submit" { "Log in" }
        }
    };
    layout("Log in", who.as_ref(), body)
}

#[derive(Deserialize)]
struct LoginForm {
    token: String,
}

async fn login(State(s): State<AppState>, Form(f): Form<LoginForm>) -> Response {
    let token = f.token.trim().to_string();
    let t2 = token.clone();
    match blocking(move || Ok(crate::auth::account_of(&s.ladder.db, &t2)?)).await {
        Ok(Some(_)) => (
            [(header::SET_COOKIE, token_cookie(&token))],
            Redirect::to("/me"),
        )
            .into_response(),
        Ok(None) => error_page(401, None, "this token opens no account here"),
        Err(e) => page_error(None, e),
    }
}

async fn logout() -> Response {
    (
        [(
            header::SET_COOKIE,
            format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
        )],
        Redirect::to("/"),
    )
        .into_response()
}

#[derive(Deserialize)]
struct TokenForm {
    #[serde(default)]
    label: String,
}

async fn new_token(
    State(s): State<AppState>,
    MaybeAuthor(who): MaybeAuthor,
    Form(f): Form<TokenForm>,
) -> Response {
    let Some(a) = who else {
        return error_page(401, None, "log in first");
    };
    let a2 = a.clone();
    match blocking(move || Ok(crate::auth::add_token(&s.ladder.db, a2.id, &f.label)?)).await {
        Ok((_, token)) => {
            let body = html! {
                p { "Your new token (shown only this once):" }
                p.token #token { (token) }
                p { a href="/me" { "Back to your page" } }
            };
            layout("New token", Some(&a), body).into_response()
        }
        Err(e) => page_error(Some(&a), e),
    }
}

async fn submit(
    State(s): State<AppState>,
    MaybeAuthor(who): MaybeAuthor,
    mut form: Multipart,
) -> Response {
    let Some(a) = who else {
        return error_page(
            401,
            None,
            "log in first (register, or log in with your token)",
        );
    };
    let field = loop {
        match form.next_field().await {
            Ok(Some(f)) if f.name() == Some("archive") => break f,
            Ok(Some(_)) => continue,
            Ok(None) => return error_page(400, Some(&a), "the form has no archive: choose a file"),
            Err(e) => return error_page(400, Some(&a), &format!("the upload broke off: {e}")),
        }
    };
    let stream = futures_util::stream::unfold(field, |mut f| async move {
        match f.chunk().await {
            Ok(Some(c)) => Some((Ok(c), f)),
            Ok(None) => None,
            Err(e) => Some((Err(e.to_string()), f)),
        }
    });
    let file = match api::receive(&s, Box::pin(stream)).await {
        Ok(f) => f,
        Err(e) => return page_error(Some(&a), e),
    };
    let a2 = a.clone();
    match blocking(move || api::accept_upload(&s, &a2, file)).await {
        Ok(v) => Redirect::to(&version_link(&v.bot, v.n)).into_response(),
        Err(e) => page_error(Some(&a), e),
    }
}

async fn tournament(
    State(s): State<AppState>,
    MaybeAuthor(who): MaybeAuthor,
    Path(id): Path<i64>,
) -> Response {
    let view = match blocking(move || Ok((s.tournaments.view(&s.ladder, id)?, s))).await {
        Ok((Some(v), _)) => v,
        Ok((None, _)) => return error_page(404, who.as_ref(), &format!("no tournament {id}")),
        Err(e) => return page_error(who.as_ref(), e),
    };
    let dir = view["dir"].as_str().unwrap_or("").to_string();
    let report = std::fs::read_to_string(std::path::Path::new(&dir).join("standings.txt")).ok();
    let running = view["state"] == "running";
    let body = html! {
        @if running { meta http-equiv="refresh" content="3"; }
        p { "State: " (view["state"].as_str().unwrap_or("")) " · " (view["games_played"]) " games played" }
        @if let Some(e) = view["error"].as_str() { p.error { (e) } }
        p { "Directory: " code { (dir) } " (a " code { "durak tournament" } " directory: "
            code { "durak standings DIR" } " prints it again)" }
        @if let Some(r) = report {
            pre #standings { (r) }
            p { "The full report (charts, a page per bot and per game) is in "
                code { (dir) "/html/index.html" } "." }
        }
    };
    layout(&format!("Tournament {id}"), who.as_ref(), body).into_response()
}

/// The replay viewer's files (`durak_replay::html::layout::ASSETS`), by their hashed names: a
/// name changes with the content, so they are cached for good.
async fn asset(Path(file): Path<String>) -> Response {
    let Some(a) = durak_replay::html::layout::ASSETS
        .iter()
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
