//! The pages' forms: register, log in and out, a new token, a token revoked, a version
//! withdrawn by its author, an upload. Each carries its CSRF
//! token as its first field (`csrf.rs` checks it, and the `Origin`, before these handlers run;
//! the upload's here, as its first multipart field).

use super::csrf::{self, Expected};
use super::pages::{csrf_field, error_page, layout, page_error, version_link};
use super::{api, blocking, ApiError, AppState, Visitor, COOKIE};
use crate::auth::Account;
use crate::domain::VersionState;
use axum::extract::{Multipart, Path, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Extension, Form, Router};
use maud::html;
use serde::Deserialize;

/// `limit`: the rate limit of login, registration and token attempts (`limits.rs`).
pub fn routes(limit: super::limits::AttemptLimit) -> Router<AppState> {
    Router::new()
        .route("/me/tokens", post(new_token).layer(limit.clone()))
        .route(
            "/register",
            get(register_form).post(register).layer(limit.clone()),
        )
        .route("/login", get(login_form).post(login).layer(limit))
        .route("/logout", post(logout))
        .route("/me/tokens/{id}/revoke", post(revoke_token))
        .route("/me/bots/{bot}/versions/{n}/withdraw", post(withdraw))
        // The archive: its own limit, counted as it streams in (`api::receive`).
        .route(
            "/submit",
            post(submit).layer(axum::extract::DefaultBodyLimit::disable()),
        )
}

/// The login cookie: a session token of its own (never the account's API token), for as long
/// as the session lasts.
fn session_cookie(session: &str) -> String {
    format!(
        "{COOKIE}={session}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}",
        crate::auth::SESSION_DAYS * 86_400
    )
}

fn show_token(title: &str, v: &Visitor, token: &str, session: &str) -> Response {
    let body = html! {
        p { "Your token (shown only this once: keep it to submit from the command line or to log in again):" }
        p.token #token { (token) }
        p { a href="/me" { "Go to your page" } }
    };
    (
        [(header::SET_COOKIE, session_cookie(session))],
        layout(title, v, body),
    )
        .into_response()
}

async fn register_form(State(s): State<AppState>, v: Visitor) -> Html<String> {
    let open = s.ladder.cfg.registration == crate::config::Registration::Open;
    let body = html! {
        form.box #register method="post" action="/register" {
            (csrf_field(&v))
            label { "Name: " input type="text" name="name" required pattern="[A-Za-z0-9._\\-]{1,32}"; }
            label { "Invite token" @if open { " (not needed here)" } ": " input type="text" name="invite"; }
            button type="submit" { "Create the account" }
        }
    };
    layout("Register", &v, body)
}

#[derive(Deserialize)]
struct RegisterForm {
    name: String,
    #[serde(default)]
    invite: String,
}

async fn register(State(s): State<AppState>, v: Visitor, Form(f): Form<RegisterForm>) -> Response {
    let registered = blocking(move || {
        let (a, token) = api::register_account(&s, &f.name, Some(&f.invite))?;
        let session = crate::auth::new_session(&s.ladder.db, a.id)?;
        Ok((a, token, session))
    });
    match registered.await {
        Ok((a, token, session)) => {
            let now = v.logged_in(a, session.clone());
            show_token("Account created", &now, &token, &session)
        }
        Err(e) => page_error(&v, e),
    }
}

async fn login_form(v: Visitor) -> Html<String> {
    let body = html! {
        form.box #login method="post" action="/login" {
            (csrf_field(&v))
            label { "Token: " input type="password" name="token" required; }
            button type="submit" { "Log in" }
        }
    };
    layout("Log in", &v, body)
}

#[derive(Deserialize)]
struct LoginForm {
    token: String,
}

async fn login(State(s): State<AppState>, v: Visitor, Form(f): Form<LoginForm>) -> Response {
    let token = f.token.trim().to_string();
    let session = blocking(move || {
        // An API token (not a session's: a cookie's value is not a login).
        if token.starts_with("ds_") {
            return Ok(None);
        }
        match crate::auth::account_of(&s.ladder.db, &token)? {
            Some(a) => Ok(Some(crate::auth::new_session(&s.ladder.db, a.id)?)),
            None => Ok(None),
        }
    });
    match session.await {
        Ok(Some(session)) => (
            [(header::SET_COOKIE, session_cookie(&session))],
            Redirect::to("/me"),
        )
            .into_response(),
        Ok(None) => error_page(401, &v, "this token opens no account here"),
        Err(e) => page_error(&v, e),
    }
}

/// Log out: the session ends (its cookie opens nothing any more, wherever it was copied), and
/// the cookie is cleared.
async fn logout(State(s): State<AppState>, v: Visitor) -> Response {
    if let Some(t) = v.session.clone().filter(|t| t.starts_with("ds_")) {
        if let Err(e) = blocking(move || Ok(crate::auth::end_session(&s.ladder.db, &t)?)).await {
            return page_error(&v, e);
        }
    }
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

async fn new_token(State(s): State<AppState>, v: Visitor, Form(f): Form<TokenForm>) -> Response {
    let Some(a) = v.account.clone() else {
        return error_page(401, &v, "log in first");
    };
    match blocking(move || Ok(crate::auth::add_token(&s.ladder.db, a.id, &f.label)?)).await {
        Ok((_, token)) => {
            let body = html! {
                p { "Your new token (shown only this once):" }
                p.token #token { (token) }
                p { a href="/me" { "Back to your page" } }
            };
            layout("New token", &v, body).into_response()
        }
        Err(e) => page_error(&v, e),
    }
}

/// Revoke one of the author's own tokens: it opens nothing any more (the login session of
/// this page stays: it is not a token of the list).
async fn revoke_token(State(s): State<AppState>, v: Visitor, Path(id): Path<i64>) -> Response {
    let Some(a) = v.account.clone() else {
        return error_page(401, &v, "log in first");
    };
    let done = blocking(move || {
        if crate::auth::revoke_token(&s.ladder.db, a.id, id)? {
            Ok(())
        } else {
            Err(ApiError::not_found(format!("you have no token {id}")))
        }
    });
    match done.await {
        Ok(()) => Redirect::to("/me").into_response(),
        Err(e) => page_error(&v, e),
    }
}

/// The author takes a version of theirs out of the ladder (`removed`, "withdrawn by its
/// author"): its open jobs are cancelled, the leaderboard computed again without it.
async fn withdraw(
    State(s): State<AppState>,
    v: Visitor,
    Path((bot, n)): Path<(String, i64)>,
) -> Response {
    let Some(a) = v.account.clone() else {
        return error_page(401, &v, "log in first");
    };
    let done = blocking(move || {
        let ver = crate::store::versions_of_bot(&s.ladder.db, &bot)?
            .into_iter()
            .find(|x| x.n == n && x.account == a.id && !x.house)
            .ok_or_else(|| ApiError::not_found(format!("you have no version {n} of {bot:?}")))?;
        if ver.state != VersionState::Active {
            return Err(ApiError::new(
                409,
                format!(
                    "{bot} v{n} is {}, not in the ladder: only a version in the ladder is \
                     withdrawn",
                    ver.state
                ),
            ));
        }
        api::set_out(
            &s,
            &bot,
            n,
            VersionState::Removed,
            "withdrawn by its author",
        )
    });
    match done.await {
        Ok(_) => Redirect::to("/me").into_response(),
        Err(e) => page_error(&v, e),
    }
}

async fn submit(
    State(s): State<AppState>,
    v: Visitor,
    expected: Option<Extension<Expected>>,
    mut form: Multipart,
) -> Response {
    let Some(a): Option<Account> = v.account.clone() else {
        return error_page(
            401,
            &v,
            "log in first (register, or log in with your token)",
        );
    };
    // Its first field: the CSRF token (`csrf.rs`).
    let first = match form.next_field().await {
        Ok(Some(mut f)) => {
            let name = f.name().map(str::to_string);
            // A token is 64 characters: read no more than a little over that.
            let mut value = Vec::new();
            while let Ok(Some(c)) = f.chunk().await {
                value.extend_from_slice(&c);
                if value.len() > 128 {
                    break;
                }
            }
            (name, String::from_utf8_lossy(&value).into_owned())
        }
        Ok(None) => (None, String::new()),
        Err(e) => return error_page(400, &v, &format!("the upload broke off: {e}")),
    };
    if let Err(why) = csrf::check_multipart_field(
        expected.as_ref().map(|e| &e.0),
        first.0.as_deref(),
        &first.1,
    ) {
        return page_error(
            &v,
            ApiError::new(
                403,
                format!("{why}: this server takes forms only from its own pages; reload the page and send it again"),
            ),
        );
    }
    let field = loop {
        match form.next_field().await {
            Ok(Some(f)) if f.name() == Some("archive") => break f,
            Ok(Some(_)) => continue,
            Ok(None) => return error_page(400, &v, "the form has no archive: choose a file"),
            Err(e) => return error_page(400, &v, &format!("the upload broke off: {e}")),
        }
    };
    let stream = futures_util::stream::unfold(field, |mut f| async move {
        match f.chunk().await {
            Ok(Some(c)) => Some((Ok(c), f)),
            Ok(None) => None,
            Err(e) => Some((Err(e), f)),
        }
    });
    let file = match api::receive(&s, Box::pin(stream)).await {
        Ok(f) => f,
        Err(e) => return page_error(&v, e),
    };
    match blocking(move || api::accept_upload(&s, &a, file)).await {
        Ok((ver, _)) => Redirect::to(&version_link(&ver.bot, ver.n)).into_response(),
        Err(e) => page_error(&v, e),
    }
}
