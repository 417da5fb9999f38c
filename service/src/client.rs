//! `durak submit --server URL --token T PATH`: pack the bot's folder as tar.gz, upload it, and
//! wait for its check (unless told not to), printing the report.

use crate::domain::VersionState;
use crate::tls::client::{explain, Trust};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Why a request, or `durak submit --server`, failed: each with what to do.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The private CA named by `--ca-cert` or `DURAK_CA_CERT` cannot be trusted.
    #[error(transparent)]
    Ca(#[from] crate::tls::client::CaError),
    /// The request failed: no answer (`message`: why, a certificate problem with its fix, from
    /// [`explain`]).
    #[error("{message}")]
    Request { message: String },
    /// The answer could not be read to its end.
    #[error("{url}: reading the answer: {source}")]
    Read { url: String, source: ureq::Error },
    /// The folder to submit has no `bot.toml`.
    #[error(
        "{}: no {manifest} in it\n  fix: give the bot's folder, the one holding its {manifest}",
        folder.display(),
        manifest = durak_checkbot::manifest::FILE
    )]
    NoManifest { folder: PathBuf },
    /// The folder cannot be packed.
    #[error(transparent)]
    Pack(#[from] crate::archive::ArchiveError),
    /// `GET /api/status` did not answer as a durak server does.
    #[error(
        "{server}: this does not look like a durak serve server (GET /api/status: {status} \
         {error})"
    )]
    NotAServer {
        server: String,
        status: u16,
        error: String,
    },
}

/// A small HTTP(S) client over ureq that reads error bodies too. HTTPS goes through rustls,
/// trusting the platform's CAs and the private CA of its [`Trust`] (`crate::tls::client`).
pub struct Client {
    base: String,
    token: Option<String>,
    agent: ureq::Agent,
    trust: Trust,
}

/// An answer: the status and the body as JSON (or `{"text": ...}`).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub json: Value,
}

impl Answer {
    pub fn error(&self) -> String {
        self.json["error"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| self.json.to_string())
    }
}

impl Client {
    /// A client trusting the platform's CAs only (requests give up after 10 minutes).
    pub fn new(base: &str, token: Option<&str>) -> Client {
        Client::with_timeout(base, token, Duration::from_secs(600))
    }

    /// A client trusting the platform's CAs only, whose every request gives up after `timeout`
    /// (connecting within 10 s).
    pub fn with_timeout(base: &str, token: Option<&str>, timeout: Duration) -> Client {
        Client::with_trust(base, token, timeout, Trust::default())
            .expect("the platform's roots alone always make a TLS configuration")
    }

    /// A client trusting `trust` (the platform's CAs and a private one); an unreadable CA file
    /// is an error naming it.
    pub fn with_trust(
        base: &str,
        token: Option<&str>,
        timeout: Duration,
        trust: Trust,
    ) -> Result<Client, ClientError> {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .timeout_connect(Some(timeout.min(Duration::from_secs(10))))
            .tls_config(trust.tls_config()?)
            .build()
            .new_agent();
        Ok(Client {
            base: base.trim_end_matches('/').to_string(),
            token: token.map(str::to_string),
            agent,
            trust,
        })
    }

    fn answer(
        &self,
        r: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
        what: &str,
    ) -> Result<Answer, ClientError> {
        let mut r = r.map_err(|e| self.failed(&e, what))?;
        let status = r.status().as_u16();
        let text = r
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_string()
            .map_err(|source| ClientError::Read {
                url: what.to_string(),
                source,
            })?;
        let json =
            serde_json::from_str(&text).unwrap_or_else(|_| serde_json::json!({"text": text}));
        Ok(Answer { status, json })
    }

    /// A request to `url` that failed, in words.
    fn failed(&self, e: &ureq::Error, url: &str) -> ClientError {
        ClientError::Request {
            message: explain(e, url, &self.trust),
        }
    }

    pub fn get(&self, path: &str) -> Result<Answer, ClientError> {
        let url = format!("{}{path}", self.base);
        let mut req = self.agent.get(&url);
        if let Some(t) = &self.token {
            req = req.header("Authorization", &format!("Bearer {t}"));
        }
        self.answer(req.call(), &url)
    }

    pub fn post_bytes(
        &self,
        path: &str,
        content_type: &str,
        body: &[u8],
    ) -> Result<Answer, ClientError> {
        let url = format!("{}{path}", self.base);
        let mut req = self.agent.post(&url).header("Content-Type", content_type);
        if let Some(t) = &self.token {
            req = req.header("Authorization", &format!("Bearer {t}"));
        }
        self.answer(req.send(body), &url)
    }

    pub fn post_json(&self, path: &str, body: &Value) -> Result<Answer, ClientError> {
        self.post_bytes(path, "application/json", body.to_string().as_bytes())
    }

    pub fn delete(&self, path: &str) -> Result<Answer, ClientError> {
        let url = format!("{}{path}", self.base);
        let mut req = self.agent.delete(&url);
        if let Some(t) = &self.token {
            req = req.header("Authorization", &format!("Bearer {t}"));
        }
        self.answer(req.call(), &url)
    }

    /// GET a body as it arrives (the live leaderboard's server-sent events): the status and a
    /// reader of the body, which ends with the client's timeout at the latest.
    pub fn get_stream(
        &self,
        path: &str,
    ) -> Result<(u16, std::io::BufReader<ureq::BodyReader<'static>>), ClientError> {
        let url = format!("{}{path}", self.base);
        let mut req = self.agent.get(&url);
        if let Some(t) = &self.token {
            req = req.header("Authorization", &format!("Bearer {t}"));
        }
        let r = req.call().map_err(|e| self.failed(&e, &url))?;
        let status = r.status().as_u16();
        Ok((status, std::io::BufReader::new(r.into_body().into_reader())))
    }

    /// GET raw bytes (at most `limit`): the status, the body and the value of `header`.
    pub fn get_bytes(
        &self,
        path: &str,
        header: &str,
        limit: u64,
    ) -> Result<(u16, Vec<u8>, Option<String>), ClientError> {
        let url = format!("{}{path}", self.base);
        let mut req = self.agent.get(&url);
        if let Some(t) = &self.token {
            req = req.header("Authorization", &format!("Bearer {t}"));
        }
        let mut r = req.call().map_err(|e| self.failed(&e, &url))?;
        let status = r.status().as_u16();
        let value = r
            .headers()
            .get(header)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = r
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|source| ClientError::Read { url, source })?;
        Ok((status, body, value))
    }
}

/// What `durak submit --server` did: the exit status to use.
#[derive(Debug)]
pub enum Outcome {
    /// In the ladder.
    Passed,
    /// Refused, or failed its build or check.
    Failed,
    /// Uploaded; not waited for.
    Queued,
}

/// A version's state in the server's answer (`None`: none, or one this client does not know).
fn state_of(json: &Value) -> Option<VersionState> {
    json["state"].as_str().and_then(|s| s.parse().ok())
}

/// A state as said to the author.
fn name(state: Option<VersionState>) -> &'static str {
    state.map_or("in an unknown state", VersionState::as_str)
}

/// Upload `folder` and (with `wait`) follow its check. Prints what happens on stderr and the
/// report on stdout.
pub fn submit(
    server: &str,
    token: &str,
    folder: &Path,
    wait: Option<Duration>,
    trust: Trust,
) -> Result<Outcome, ClientError> {
    let Some((c, bot, n)) = upload(server, token, folder, trust)? else {
        return Ok(Outcome::Failed);
    };
    let Some(limit) = wait else {
        return Ok(Outcome::Queued);
    };
    eprintln!("waiting for its build and check...");
    let f = Follow {
        path: format!("/api/bots/{bot}/versions/{n}"),
        c,
        server,
        bot,
        n,
        until: Instant::now() + limit,
        limit,
    };
    let Some(mut v) = f.until_checked()? else {
        return Ok(Outcome::Queued);
    };
    print_report(&v.json);
    if !f.until_compared(&mut v)? {
        return Ok(Outcome::Queued);
    }
    Ok(f.verdict(&v))
}

/// Pack and upload `folder`: the client, and the bot and version number the server kept; `None`
/// when it was refused (said on stderr).
fn upload(
    server: &str,
    token: &str,
    folder: &Path,
    trust: Trust,
) -> Result<Option<(Client, String, i64)>, ClientError> {
    let folder = if folder.file_name() == Some(durak_checkbot::manifest::FILE.as_ref()) {
        folder.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        folder.to_path_buf()
    };
    if !folder.join(durak_checkbot::manifest::FILE).is_file() {
        return Err(ClientError::NoManifest { folder });
    }
    let bytes = crate::archive::pack(&folder)?;
    eprintln!(
        "uploading {} ({} bytes packed) to {server}...",
        folder.display(),
        bytes.len()
    );
    if let Some(w) = crate::tls::client::clear_warning(server) {
        eprintln!("{w}");
    }
    let c = Client::with_trust(server, Some(token), Duration::from_secs(600), trust)?;
    // The server refuses an archive over its limit as soon as it sees the length, before the
    // body is sent: say so here, with the limit.
    let status = c.get("/api/status")?;
    if status.status != 200 {
        return Err(ClientError::NotAServer {
            server: server.to_string(),
            status: status.status,
            error: status.error(),
        });
    }
    if let Some(max) = status.json["max_archive"].as_u64() {
        if bytes.len() as u64 > max {
            eprintln!(
                "REFUSED: {} packs to {} bytes, more than the {max} bytes this server accepts: \
                 leave out build outputs, dependencies and data the bot does not need",
                folder.display(),
                bytes.len()
            );
            return Ok(None);
        }
    }
    let a = c.post_bytes("/api/submit", "application/gzip", &bytes)?;
    if a.status != 201 {
        eprintln!("REFUSED ({}): {}", a.status, a.error());
        if let Some(secs) = a.json["retry_after_s"].as_u64() {
            eprintln!(
                "  the server takes another upload from you in {} (it answered 429: a limit \
                 of this server, set by its organiser)",
                crate::quota::duration_words(secs)
            );
        }
        return Ok(None);
    }
    let v = &a.json["version"];
    let (bot, n) = (
        v["bot"].as_str().unwrap_or(""),
        v["n"].as_i64().unwrap_or(0),
    );
    eprintln!(
        "kept: {bot} version {n} ({}{})",
        server.trim_end_matches('/'),
        a.json["url"].as_str().unwrap_or("")
    );
    if let Some(note) = a.json["author_note"].as_str() {
        eprintln!("note: {note}");
    }
    Ok(Some((c, bot.to_string(), n)))
}

/// A kept version followed through its check and comparison, until `until`.
struct Follow<'a> {
    c: Client,
    server: &'a str,
    bot: String,
    n: i64,
    /// The version's JSON.
    path: String,
    until: Instant,
    limit: Duration,
}

/// The version's JSON and state, as last read.
struct Seen {
    json: serde_json::Value,
    state: Option<VersionState>,
}

impl Follow<'_> {
    fn read(&self) -> Result<Seen, ClientError> {
        let r = self.c.get(&self.path)?;
        let state = state_of(&r.json);
        Ok(Seen {
            json: r.json,
            state,
        })
    }

    /// Poll until the build and check are over; `None` when the wait ran out first (said).
    fn until_checked(&self) -> Result<Option<Seen>, ClientError> {
        let mut v = self.read()?;
        while v.state.is_some_and(VersionState::in_check) {
            if Instant::now() >= self.until {
                eprintln!(
                    "still {} after {} s: see its page",
                    name(v.state),
                    self.limit.as_secs()
                );
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(500));
            v = self.read()?;
        }
        Ok(Some(v))
    }

    /// The server requires a new version not to be worse than the previous one: it plays it
    /// first ("Is my new version better?", the version's `previous`). A short comparison may
    /// be over before the next poll: a version failed with a comparison was failed by it.
    /// Follows it, saying each new line; false when the wait ran out first (said).
    fn until_compared(&self, v: &mut Seen) -> Result<bool, ClientError> {
        let (bot, n) = (&self.bot, self.n);
        let failed_by_comparison =
            v.state == Some(VersionState::Failed) && v.json["previous"].is_object();
        if v.state != Some(VersionState::Comparing) && !failed_by_comparison {
            return Ok(true);
        }
        eprintln!(
            "its check PASSED; {bot} version {n} now plays its previous version: it enters the \
             ladder unless it is worse"
        );
        let mut said = String::new();
        while v.state == Some(VersionState::Comparing) {
            let line = v.json["previous"]["summary"].as_str().unwrap_or("");
            if line != said {
                eprintln!("comparison {line}");
                said = line.to_string();
            }
            if Instant::now() >= self.until {
                eprintln!(
                    "still comparing after {} s: see its page ({}{})",
                    self.limit.as_secs(),
                    self.server.trim_end_matches('/'),
                    self.path
                );
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(500));
            *v = self.read()?;
        }
        Ok(true)
    }

    /// The end: passed (in the ladder, with the comparison so far), or why not.
    fn verdict(&self, v: &Seen) -> Outcome {
        let (server, bot, n, state, r) = (self.server, &self.bot, self.n, v.state, v);
        let comparison = r.json["previous"]["summary"].as_str().map(str::to_string);
        if state == Some(VersionState::Active) {
            eprintln!("PASSED: {bot} version {n} is in the ladder");
            if let Some(line) = comparison {
                let so_far =
                    r.json["previous"]["state"] == crate::domain::ComparisonState::Running.as_str();
                eprintln!(
                    "comparison {line}{}",
                    if so_far {
                        format!(
                            "; it goes on, see {}/bots/{bot}/versions/{n}",
                            server.trim_end_matches('/')
                        )
                    } else {
                        String::new()
                    }
                );
            }
            return Outcome::Passed;
        }
        if let Some(line) = comparison {
            eprintln!("comparison {line}");
        }
        eprintln!(
            "{}: {bot} version {n}: {}",
            name(state).to_uppercase(),
            r.json["reason"].as_str().unwrap_or("")
        );
        Outcome::Failed
    }
}

/// The build's output and the check-bot report, on stdout.
fn print_report(json: &serde_json::Value) {
    if let Some(b) = json.get("build").filter(|b| !b.is_null()) {
        println!(
            "build: {} — {}\n{}",
            b["command"].as_str().unwrap_or(""),
            if b["ok"].as_bool() == Some(true) {
                "done"
            } else {
                "FAILED"
            },
            b["output"].as_str().unwrap_or("")
        );
    }
    if let Some(t) = json["report_text"].as_str() {
        println!("{t}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_without_bot_toml_is_named_with_the_fix_before_any_request() {
        let d = tempfile::tempdir().unwrap();
        // No server listens there: the folder is refused before it is asked.
        let e = submit(
            "http://127.0.0.1:9",
            "dk_x",
            d.path(),
            None,
            Trust::default(),
        )
        .unwrap_err();
        assert!(
            matches!(&e, ClientError::NoManifest { folder } if folder == d.path()),
            "{e:?}"
        );
        let m = e.to_string();
        assert!(m.contains("no bot.toml in it") && m.contains("fix:"), "{m}");
        // A server that does not answer: the request's error names the address.
        let e = Client::new("http://127.0.0.1:9", None)
            .get("/api/status")
            .unwrap_err();
        assert!(matches!(e, ClientError::Request { .. }), "{e:?}");
        assert!(
            e.to_string().starts_with("http://127.0.0.1:9/api/status: "),
            "{e}"
        );
    }
}
