//! Cross-site requests (issue 22). A browser sends the login cookie with any request to this
//! server, also one made by another site's page — or by a page on another port of the same host,
//! which `SameSite` does not tell apart. So:
//!
//! - the JSON API (`/api/...`) takes tokens only (`Authorization: Bearer`), never the cookie
//!   (`super::token_of`); a request to it that carries only the cookie is refused where an
//!   account is needed (403, saying so);
//! - every page form that changes something (`POST`: register, log in, log out, new token,
//!   upload) is checked by [`guard`]: an `Origin` header, when the browser sends one, must be
//!   this server's own (the request's `Host`), a `Sec-Fetch-Site` must say `same-origin`, and
//!   the form must carry the CSRF token of the page it came from: a hash of the browser's own
//!   random cookie (`durak_csrf`, set by the first page it opens) and of its login session, so
//!   that a page elsewhere, which reads neither, cannot make one. Refusals are 403 pages saying
//!   what was wrong and to reload the page.
//!
//! The upload form is `multipart/form-data` and too large to read here: its first field is the
//! token, checked by its handler ([`check_multipart_field`]).

use super::{ApiError, MAX_BODY};
use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

/// The browser's random cookie, from which the forms' tokens are made.
pub const COOKIE: &str = "durak_csrf";
/// The forms' field that holds the token.
pub const FIELD: &str = "csrf";
/// The only page that takes `multipart/form-data` (the upload form).
const MULTIPART_PATHS: &[&str] = &["/submit"];

/// A cookie's value from the request's `Cookie` headers.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .flat_map(|v| v.to_str().unwrap_or("").split(';'))
        .find_map(|kv| {
            let (k, v) = kv.trim().split_once('=')?;
            (k == name).then(|| v.to_string())
        })
}

/// The token a form of this browser carries: its random cookie and its login session hashed
/// together.
pub fn form_token(browser: &str, session: Option<&str>) -> String {
    let d = Sha256::digest(format!("durak csrf\0{browser}\0{}", session.unwrap_or("")));
    d.iter().map(|x| format!("{x:02x}")).collect()
}

/// What a page needs to make its forms (put in the request's extensions by [`guard`]).
#[derive(Clone, Debug)]
pub struct Browser {
    /// The browser's random cookie.
    pub id: String,
}

impl Browser {
    /// The forms' token for the login session `session` (the request's, or a new one).
    pub fn token(&self, session: Option<&str>) -> String {
        form_token(&self.id, session)
    }
}

/// The token a multipart form's first field must hold (put in the extensions by [`guard`]).
#[derive(Clone, Debug)]
pub struct Expected(pub String);

fn refuse(why: &str) -> Response {
    ApiError::new(
        403,
        format!("{why}: this server takes forms only from its own pages; reload the page and send it again"),
    )
    .into_response()
}

fn equal(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// A request or form refused as not from this server's own pages (403, with what to do:
/// reload the page and send it again).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum CsrfError {
    #[error("the request came from another site (Sec-Fetch-Site: {0})")]
    OtherSite(String),
    #[error("the request came from a page of {origin}, not of this server ({host})")]
    OtherOrigin { origin: String, host: String },
    #[error("the form was not checked: send it from this server's page")]
    Unchecked,
    #[error("the form's first field is not its CSRF token")]
    NotFirst,
    #[error("the form's CSRF token is not this browser's")]
    OtherToken,
}

/// Whether the request comes from a page of this server, by what the browser says of it:
/// `Origin` (its scheme, host and port) against `Host`, and `Sec-Fetch-Site`.
pub fn same_origin(headers: &HeaderMap) -> Result<(), CsrfError> {
    let text = |h: &str| headers.get(h).and_then(|v| v.to_str().ok());
    if let Some(site) = text("sec-fetch-site") {
        if !matches!(site, "same-origin" | "none") {
            return Err(CsrfError::OtherSite(site.to_string()));
        }
    }
    if let Some(origin) = text("origin") {
        let host = text("host").unwrap_or("");
        let authority = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
            .unwrap_or("");
        if host.is_empty() || !authority.eq_ignore_ascii_case(host) {
            return Err(CsrfError::OtherOrigin {
                origin: origin.to_string(),
                host: host.to_string(),
            });
        }
    }
    Ok(())
}

/// The CSRF token of an `application/x-www-form-urlencoded` body.
fn field_of(body: &[u8]) -> Option<String> {
    form_urlencoded::parse(body)
        .find(|(k, _)| k == FIELD)
        .map(|(_, v)| v.into_owned())
}

/// The layer over the pages: gives a browser its random cookie, and checks every form that
/// changes something (module documentation). The API's routes pass untouched.
pub async fn guard(req: Request, next: Next) -> Response {
    if req.uri().path().starts_with("/api/") {
        return next.run(req).await;
    }
    let headers = req.headers();
    let known = cookie(headers, COOKIE)
        .filter(|c| c.len() == 64 && c.bytes().all(|b| b.is_ascii_hexdigit()));
    let browser = Browser {
        id: known
            .clone()
            .unwrap_or_else(|| crate::auth::new_token()[3..].to_string()),
    };
    let session = cookie(headers, super::COOKIE);
    let expected = browser.token(session.as_deref());
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let mut req = req;
    if changes {
        if let Err(why) = same_origin(req.headers()) {
            return refuse(&why.to_string());
        }
        if known.is_none() {
            return refuse(
                "the form came without this server's cookie (the browser's CSRF cookie)",
            );
        }
        let ty = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if ty.starts_with("multipart/form-data") && MULTIPART_PATHS.contains(&req.uri().path()) {
            req.extensions_mut().insert(Expected(expected.clone()));
        } else if ty.starts_with("application/x-www-form-urlencoded") {
            let (parts, body) = req.into_parts();
            let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
                Ok(b) => b,
                Err(_) => {
                    return ApiError::new(
                        413,
                        format!("the form is larger than {MAX_BODY} bytes, the limit of a form"),
                    )
                    .into_response()
                }
            };
            match field_of(&bytes) {
                Some(t) if equal(&t, &expected) => {}
                Some(_) => return refuse("the form's CSRF token is not this browser's"),
                None => return refuse("the form has no CSRF token"),
            }
            req = Request::from_parts(parts, Body::from(bytes));
        } else {
            return refuse(&format!(
                "a form is sent as application/x-www-form-urlencoded (or multipart/form-data to \
                 upload), with its CSRF token, not as {:?}",
                ty
            ));
        }
    }
    req.extensions_mut().insert(browser.clone());
    let mut r = next.run(req).await;
    if known.is_none() {
        let c = format!(
            "{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000",
            browser.id
        );
        if let Ok(v) = c.parse() {
            r.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    r
}

/// The first field of the upload form: its CSRF token, checked against what [`guard`] expects.
pub fn check_multipart_field(
    expected: Option<&Expected>,
    name: Option<&str>,
    value: &str,
) -> Result<(), CsrfError> {
    let Some(Expected(e)) = expected else {
        return Err(CsrfError::Unchecked);
    };
    if name != Some(FIELD) {
        return Err(CsrfError::NotFirst);
    }
    if !equal(value, e) {
        return Err(CsrfError::OtherToken);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn only_this_servers_own_origin_passes() {
        let ok = headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080"),
        ]);
        assert!(same_origin(&ok).is_ok());
        let tls = headers(&[
            ("host", "judge.example"),
            ("origin", "https://judge.example"),
        ]);
        assert!(same_origin(&tls).is_ok());
        assert!(
            same_origin(&headers(&[("host", "a")])).is_ok(),
            "no Origin: the token decides"
        );
        for bad in [
            headers(&[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:9090"),
            ]),
            headers(&[("host", "judge.example"), ("origin", "null")]),
            headers(&[
                ("host", "judge.example"),
                ("origin", "https://evil.example"),
            ]),
            headers(&[("host", "judge.example"), ("sec-fetch-site", "same-site")]),
            headers(&[("host", "judge.example"), ("sec-fetch-site", "cross-site")]),
            headers(&[("origin", "http://judge.example")]),
        ] {
            assert!(same_origin(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn tokens_belong_to_a_browser_and_a_session() {
        let a = form_token("b1", None);
        assert_eq!(a, form_token("b1", None));
        assert_ne!(a, form_token("b2", None));
        assert_ne!(a, form_token("b1", Some("ds_x")));
        assert_eq!(
            field_of(format!("token=x&csrf={a}").as_bytes()),
            Some(a.clone())
        );
        let e = Expected(a.clone());
        assert!(check_multipart_field(Some(&e), Some("csrf"), &a).is_ok());
        assert_eq!(
            check_multipart_field(Some(&e), Some("archive"), &a),
            Err(CsrfError::NotFirst)
        );
        assert_eq!(
            check_multipart_field(Some(&e), Some("csrf"), "x"),
            Err(CsrfError::OtherToken)
        );
        let e = check_multipart_field(None, Some("csrf"), &a).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the form was not checked: send it from this server's page"
        );
    }
}
