//! What an author does through the API: their account and page, tokens, invites, uploads.

use super::*;

pub(super) async fn me(
    State(s): State<AppState>,
    Author(a): Author,
) -> Result<Json<views::MeView>, ApiError> {
    blocking(move || {
        views::me_view(&s.ladder, &a)
            .map(Json)
            .map_err(ApiError::internal)
    })
    .await
}

#[derive(Deserialize, utoipa::ToSchema)]
pub struct RegisterBody {
    pub name: String,
    #[serde(default)]
    pub invite: Option<String>,
}

/// Create an account: with an invite, or without when registration is open.
pub fn register_account(
    s: &AppState,
    name: &str,
    invite: Option<&str>,
) -> Result<(auth::Account, String), ApiError> {
    let invite = invite.map(str::trim).filter(|i| !i.is_empty());
    if invite.is_none() && s.ladder.cfg.registration == crate::config::Registration::Invite {
        return Err(ApiError::new(
            403,
            "this server creates accounts only with an invite token from the organiser: give \
             it as \"invite\"",
        ));
    }
    auth::create_account(&s.ladder.db, name.trim(), false, invite)
        .map_err(|e| ApiError::new(e.status(), e.to_string()))
}

/// A new account, with its token (shown once).
#[derive(Serialize, utoipa::ToSchema)]
pub struct NewAccount {
    pub account: auth::Account,
    pub token: String,
    pub note: &'static str,
}

/// A new token (an account's or a worker's), shown once.
#[derive(Serialize, utoipa::ToSchema)]
pub struct NewToken {
    pub id: i64,
    pub token: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'static str>,
}

/// A new invite token (one account).
#[derive(Serialize, utoipa::ToSchema)]
pub struct Invite {
    pub invite: String,
}

/// An upload kept: its version, its pages, and a note for its author.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Submitted {
    pub version: Version,
    pub url: String,
    pub api: String,
    pub note: &'static str,
    /// What was wrong with `bot.toml`'s `author`, when something was.
    pub author_note: Option<String>,
}

pub(super) async fn register(
    State(s): State<AppState>,
    JsonBody(b): JsonBody<RegisterBody>,
) -> Result<(StatusCode, Json<NewAccount>), ApiError> {
    let (account, token) =
        blocking(move || register_account(&s, &b.name, b.invite.as_deref())).await?;
    Ok((
        StatusCode::CREATED,
        Json(NewAccount {
            account,
            token,
            note: "keep the token: it is shown only once",
        }),
    ))
}

#[derive(Deserialize, Default, utoipa::ToSchema)]
pub struct TokenBody {
    #[serde(default)]
    pub label: String,
}

pub(super) async fn new_token(
    State(s): State<AppState>,
    Author(a): Author,
    body: Option<JsonBody<TokenBody>>,
) -> Result<(StatusCode, Json<NewToken>), ApiError> {
    let label = body.map(|b| b.0.label).unwrap_or_default();
    let (id, token) =
        blocking(move || auth::add_token(&s.ladder.db, a.id, &label).map_err(ApiError::internal))
            .await?;
    let note = None;
    Ok((StatusCode::CREATED, Json(NewToken { id, token, note })))
}

/// A token revoked (an account's or a worker's): its id.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Revoked {
    pub revoked: i64,
}

pub(super) async fn revoke_token(
    State(s): State<AppState>,
    Author(a): Author,
    Path(id): Path<i64>,
) -> Result<Json<Revoked>, ApiError> {
    let ok =
        blocking(move || auth::revoke_token(&s.ladder.db, a.id, id).map_err(ApiError::internal))
            .await?;
    if !ok {
        return Err(ApiError::not_found(format!("you have no token {id}")));
    }
    Ok(Json(Revoked { revoked: id }))
}

pub(super) async fn invite(
    State(s): State<AppState>,
    Organiser(_): Organiser,
) -> Result<(StatusCode, Json<Invite>), ApiError> {
    let invite =
        blocking(move || auth::new_invite(&s.ladder.db).map_err(ApiError::internal)).await?;
    Ok((StatusCode::CREATED, Json(Invite { invite })))
}

/// Receive an archive into a file of the uploads folder, at most `max` bytes, hashed as it
/// comes in (made durable by `submit::accept`, once it is known to be kept).
pub async fn receive<E: std::fmt::Display>(
    s: &AppState,
    mut stream: impl futures_util::Stream<Item = Result<bytes::Bytes, E>> + Unpin,
) -> Result<crate::submit::Received, ApiError> {
    let max = s.ladder.cfg.upload.max_archive;
    let dir = s.ladder.paths.uploads();
    let mut f = tempfile::Builder::new()
        .prefix(".upload-")
        .tempfile_in(&dir)
        .map_err(ApiError::internal)?;
    let mut got = crate::submit::Receiving::default();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ApiError::new(400, format!("the upload broke off: {e}")))?;
        if got.size() + chunk.len() as u64 > max {
            return Err(too_large(max));
        }
        f.write_all(&chunk).map_err(ApiError::internal)?;
        got.add(&chunk);
    }
    if got.size() == 0 {
        return Err(ApiError::new(
            400,
            "the upload is empty: send the bot's folder as a tar.gz or zip archive",
        ));
    }
    f.flush().map_err(ApiError::internal)?;
    Ok(got.done(f))
}

pub fn too_large(max: u64) -> ApiError {
    ApiError::new(
        413,
        format!(
            "the archive is larger than {} bytes, the limit of this server: leave out build \
             outputs, dependencies and data the bot does not need",
            max
        ),
    )
}

/// Accept a received upload (blocking: unpack, check, keep).
pub fn accept_upload(
    s: &AppState,
    a: &auth::Account,
    upload: crate::submit::Received,
) -> Result<(Version, Option<String>), ApiError> {
    let l = &s.ladder;
    // Between seasons (`season.rs`): closed until the final tournament is over.
    if let Some(why) = crate::season::closed(&l.db)? {
        return Err(ApiError::new(409, why));
    }
    let r = crate::submit::accept(&l.db, &l.paths, &l.cfg, a, &upload);
    // On success the file was renamed away; otherwise it goes.
    let _ = upload.file.keep().map(|(_, p)| {
        if r.is_err() {
            let _ = std::fs::remove_file(p);
        }
    });
    let v = r.map_err(|e| ApiError::new(e.status, e.message).retry_after(e.retry_after))?;
    l.notify();
    Ok(v)
}

pub(super) async fn submit(
    State(s): State<AppState>,
    Author(a): Author,
    headers: axum::http::HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<Submitted>), ApiError> {
    let max = s.ladder.cfg.upload.max_archive;
    if let Some(len) = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
    {
        if len > max {
            return Err(too_large(max));
        }
    }
    let file = receive(&s, body.into_data_stream()).await?;
    let s2 = s.clone();
    let (v, author_note) = blocking(move || accept_upload(&s2, &a, file)).await?;
    Ok((
        StatusCode::CREATED,
        Json(Submitted {
            url: format!("/bots/{}/versions/{}", v.bot, v.n),
            api: format!("/api/bots/{}/versions/{}", v.bot, v.n),
            version: v,
            note: "kept; it is built and checked next, and its page shows the report",
            author_note,
        }),
    ))
}
