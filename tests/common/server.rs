//! A `durak serve` of the tests: started as a child process on 127.0.0.1 with an ephemeral port
//! (`--listen 127.0.0.1:0`), its address read from its first line, its stderr kept; killed when
//! dropped. Every wait is bounded and says what it waited for when it gives up.

use durak_service::client::{Answer, Client};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Server {
    pub child: Child,
    pub url: String,
    /// The organiser's token, printed on the first start only.
    pub organiser: Option<String>,
    pub data: PathBuf,
    /// The test CA its clients trust besides the platform's (a server started with
    /// `--tls-cert`).
    pub ca: Option<PathBuf>,
    log: Arc<Mutex<String>>,
}

/// A path as the text of an argument (the tests' paths are UTF-8).
pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `f` until it gives `Some`, every 100 ms, for at most `secs` seconds; panics naming `what`.
pub fn wait_for<T>(what: &str, secs: u64, mut f: impl FnMut() -> Option<T>) -> T {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(t) = f() {
            return t;
        }
        assert!(
            Instant::now() < until,
            "gave up after {secs} s waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The sandbox the tests' ladders use: strict where it can be built, else default (the API does
/// not depend on it; the tests of builds in the sandbox require strict and skip without it).
pub fn sandbox() -> &'static str {
    if durak_referee::isolation::check_strict_sandbox().is_ok() {
        "strict"
    } else {
        "default"
    }
}

impl Server {
    /// A server whose ladder only workers play (`--no-local-play`), between the two house bots
    /// (`builtin:greedy`, `builtin:random`), 2 deals a job (4 games).
    pub fn start_for_workers(data: &Path) -> Server {
        Server::start(
            data,
            &[
                "--no-local-play",
                "--deals",
                "2",
                "--house-bots",
                "builtin:greedy,builtin:random",
            ],
        )
    }

    /// Start `durak serve` on `data` with a small, quick ladder (1 table, 1 check game per
    /// table, unless `extra` gives those flags) and `extra`, on an ephemeral port of 127.0.0.1
    /// unless `extra` gives `--listen`.
    pub fn start(data: &Path, extra: &[&str]) -> Server {
        let mut args: Vec<String> = vec!["serve".into()];
        for (flag, value) in [
            ("--listen", "127.0.0.1:0"),
            ("--concurrency", "1"),
            ("--check-games", "1"),
            ("--check-long-games", "0"),
            ("--sandbox", sandbox()),
        ] {
            if !extra.contains(&flag) {
                args.extend([flag.to_string(), value.to_string()]);
            }
        }
        args.push("--data-dir".into());
        args.push(data.display().to_string());
        args.extend(extra.iter().map(|s| s.to_string()));
        let mut child = Command::new(super::DURAK)
            .args(&args)
            .env("DURAK_EXE", super::DURAK)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("durak serve starts");
        let log = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().expect("stderr");
        {
            let log = log.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    let mut l = log.lock().unwrap();
                    l.push_str(&line);
                    l.push('\n');
                }
            });
        }
        let mut server = Server {
            child,
            url: String::new(),
            organiser: None,
            data: data.to_path_buf(),
            ca: None,
            log,
        };
        let url = wait_for("the server's address on its stderr", 60, || {
            if let Ok(Some(s)) = server.child.try_wait() {
                panic!("durak serve ended ({s}):\n{}", server.log());
            }
            let log = server.log();
            let rest = log.split("listening on ").nth(1)?;
            Some(rest.split('/').take(3).collect::<Vec<_>>().join("/"))
        });
        // The token line follows the address line at once (when there is one).
        std::thread::sleep(Duration::from_millis(200));
        server.organiser = server
            .log()
            .lines()
            .find(|l| l.starts_with("organiser token"))
            .and_then(|l| l.split_whitespace().find(|w| w.starts_with("dk_")))
            .map(str::to_string);
        server.url = url;
        server
    }

    /// What it wrote on stderr so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    pub fn client(&self, token: Option<&str>) -> Client {
        let trust = durak_service::tls::client::Trust {
            ca_cert: self.ca.clone(),
            origin: "--ca-cert",
        };
        Client::with_trust(&self.url, token, Duration::from_secs(600), trust).expect("the CA")
    }

    pub fn get(&self, path: &str) -> Answer {
        self.client(None).get(path).expect("GET")
    }

    /// The organiser's client (panics without the token).
    pub fn org(&self) -> Client {
        self.client(Some(self.organiser.as_deref().expect("organiser token")))
    }

    /// An invite, then an account with it: its token.
    pub fn author(&self, name: &str) -> String {
        let inv = self.org().post_json("/api/invites", &json!({})).unwrap();
        assert_eq!(inv.status, 201, "{}", inv.json);
        let a = self
            .client(None)
            .post_json(
                "/api/accounts",
                &json!({"name": name, "invite": inv.json["invite"]}),
            )
            .unwrap();
        assert_eq!(a.status, 201, "{}", a.json);
        a.json["token"].as_str().unwrap().to_string()
    }

    /// Upload the archive bytes with `token`.
    pub fn upload(&self, token: &str, bytes: &[u8]) -> Answer {
        self.client(Some(token))
            .post_bytes("/api/submit", "application/gzip", bytes)
            .expect("upload")
    }

    /// The version's JSON once its check is over.
    pub fn checked(&self, bot: &str, n: i64) -> Value {
        wait_for(&format!("the check of {bot} v{n}"), 180, || {
            let r = self.get(&format!("/api/bots/{bot}/versions/{n}"));
            let state = r.json["state"].as_str()?.to_string();
            (!matches!(state.as_str(), "queued" | "building" | "checking")).then_some(r.json)
        })
    }

    pub fn games(&self) -> u64 {
        self.get("/api/status").json["games"].as_u64().unwrap()
    }

    /// SIGKILL, and wait for it.
    /// `durak submit --server URL --token T PATH`, waiting up to 240 s for the check.
    pub fn submit_cli(&self, token: &str, path: &Path) -> std::process::Output {
        Command::new(super::DURAK)
            .args([
                "submit", "--server", &self.url, "--token", token, "--wait-s", "240",
            ])
            .arg(path)
            .output()
            .expect("durak submit runs")
    }

    /// Pause the ladder and wait until no game is being played (the games count stays put for
    /// 2 s); the count then.
    pub fn pause_and_settle(&self) -> u64 {
        let p = self
            .org()
            .post_json("/api/ladder/pause", &json!({}))
            .unwrap();
        assert_eq!(p.status, 200, "{}", p.json);
        let mut last = (self.games(), Instant::now());
        wait_for("the ladder to stop playing after the pause", 60, || {
            let g = self.games();
            if g != last.0 {
                last = (g, Instant::now());
            }
            (last.1.elapsed() > Duration::from_secs(2)).then_some(g)
        })
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM (a clean stop), and wait for it, at most 60 s.
    pub fn stop(&mut self) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        wait_for("the server to stop after SIGTERM", 60, || {
            self.child.try_wait().ok().flatten()
        });
    }
}

/// Bot processes started for the games of jobs `from_job` and later (a seat's `hello` in a
/// game's replay header: that game started its process), with those games and jobs counted:
/// `(started, games, jobs)`.
pub fn processes_started(data: &Path, from_job: i64) -> (usize, usize, usize) {
    let db = durak_service::db::Db::open(&data.join("service.db")).unwrap();
    let games: Vec<(i64, u32, String)> = db
        .read(|c| {
            let mut q = c.prepare("SELECT job, game, replay FROM games WHERE job >= ?1")?;
            let r = q.query_map([from_job], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            r.collect()
        })
        .unwrap();
    let mut started = 0;
    for (job, game, name) in &games {
        let text = durak_service::store::replays::lines(&db, data, *job, *game, name).unwrap();
        let text = String::from_utf8(text).unwrap();
        let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        let seats = header["seats"].as_array().map_or(0, |s| s.len());
        started += (0..seats)
            .filter(|&seat| header["seats"][seat]["hello"] == true)
            .count();
    }
    let jobs: std::collections::HashSet<i64> = games.iter().map(|g| g.0).collect();
    (started, games.len(), jobs.len())
}

/// A recorded game's replay as the server keeps it (in its database: `store/replays.rs`):
/// its `games.replay` name and its bytes, compressed as they are stored.
pub fn stored_replay(data: &Path, job: i64, game: u32) -> (String, Vec<u8>) {
    let db = durak_service::db::Db::open(&data.join("service.db")).unwrap();
    let name: String = db
        .read(|c| {
            c.query_row(
                "SELECT replay FROM games WHERE job = ?1 AND game = ?2",
                [job, game as i64],
                |r| r.get(0),
            )
        })
        .unwrap_or_else(|e| panic!("job {job} game {game}: {e}"));
    let bytes = durak_service::store::replays::stored(&db, data, job, game, &name)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    (name, bytes)
}

/// Files under `DATA/replays/` that are no recorded game's replay (leftovers).
pub fn stray_replays(data: &Path) -> Vec<PathBuf> {
    let db = durak_service::db::Db::open(&data.join("service.db")).unwrap();
    let rows: std::collections::HashSet<PathBuf> = db
        .read(|c| {
            let mut s = c.prepare("SELECT replay FROM games")?;
            let r = s.query_map([], |r| r.get::<_, String>(0))?;
            r.map(|p| p.map(|p| data.join(p))).collect()
        })
        .unwrap();
    let mut out = Vec::new();
    let Ok(jobs) = std::fs::read_dir(data.join("replays")) else {
        return out;
    };
    for j in jobs {
        for f in std::fs::read_dir(j.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            if !rows.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The sh bot of the tests (no interpreter needed): plays the first legal card, takes or
/// passes. `PRELUDE` runs before the hello.
pub const SH_BOT: &str = r#"PRELUDE
read -r line
echo '{"type":"hello","protocol":1,"name":"sh-bot","version":"1"}'
while read -r line; do
#PER_LINE
  case "$line" in
    *'"type":"request"'*)
      id=$(printf '%s' "$line" | sed -n 's/.*"type":"request","id":\([0-9]*\).*/\1/p')
      case "$line" in
        *'"decision":"attack"'*)
          card=$(printf '%s' "$line" | sed -n 's/.*"legal":{"hand":\["\([^"]*\)".*/\1/p')
          echo "{\"type\":\"answer\",\"id\":$id,\"action\":\"attack\",\"cards\":[\"$card\"]}";;
        *'"decision":"defend"'*'"must_cover_all":true'*)
          echo "{\"type\":\"answer\",\"id\":$id,\"action\":\"take\"}";;
        *'"decision":"defend"'*)
          echo "{\"type\":\"answer\",\"id\":$id,\"action\":\"defend\",\"pairs\":[]}";;
        *)
          echo "{\"type\":\"answer\",\"id\":$id,\"action\":\"pass\"}";;
      esac;;
    *'"type":"match_end"'*) exit 0;;
  esac
done
"#;

/// A bot folder `root/NAME` with bot.sh (with `prelude`) and its bot.toml (`build` when given).
pub fn sh_bot(root: &Path, name: &str, prelude: &str, build: Option<&str>) -> PathBuf {
    sh_bot_per_line(root, name, prelude, "", build)
}

/// [`sh_bot`] with `per_line`, shell run for each line the bot reads after its hello (`$line`).
pub fn sh_bot_per_line(
    root: &Path,
    name: &str,
    prelude: &str,
    per_line: &str,
    build: Option<&str>,
) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let script = SH_BOT
        .replace("PRELUDE", prelude)
        .replace("#PER_LINE", per_line);
    std::fs::write(dir.join("bot.sh"), script).unwrap();
    let mut m = format!(
        "name = \"{name}\"\ncommand = \"sh bot.sh\"\nlanguage = \"sh\"\nauthor = \"Test\"\n"
    );
    if let Some(b) = build {
        m.push_str(&format!("build = {}\n", toml_string(b)));
    }
    std::fs::write(dir.join("bot.toml"), m).unwrap();
    dir
}

fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A raw HTTP/1.0 request to `url` (nothing normalised on the way): (status, head, body).
pub fn raw_request(
    url: &str,
    method: &str,
    path: &str,
    headers: &str,
    body: &str,
) -> (u16, String, String) {
    use std::io::{Read, Write};
    let addr = url.trim_start_matches("http://");
    let mut c = std::net::TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        c,
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut all = Vec::new();
    c.read_to_end(&mut all).unwrap();
    let all = String::from_utf8_lossy(&all).to_string();
    let (head, body) = all.split_once("\r\n\r\n").unwrap_or((&all, ""));
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_string(), body.to_string())
}

/// The value a response's `Set-Cookie` gives the cookie `name`.
pub fn set_cookie(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        if !k.eq_ignore_ascii_case("set-cookie") {
            return None;
        }
        let v = v.trim().strip_prefix(name)?.strip_prefix('=')?;
        Some(v.split(';').next().unwrap_or("").to_string())
    })
}

/// The CSRF token of the first form of a page (its hidden `csrf` field).
pub fn form_token(html: &str) -> String {
    let at = html
        .find("name=\"csrf\" value=\"")
        .unwrap_or_else(|| panic!("a form with its CSRF token: {html}"));
    let rest = &html[at + "name=\"csrf\" value=\"".len()..];
    rest[..rest.find('"').unwrap()].to_string()
}

/// A browser of the tests, as the pages see one: its CSRF cookie (from the first page it
/// opened) and its login cookie once it has logged in.
pub struct Browser {
    pub url: String,
    pub csrf: String,
    pub session: Option<String>,
}

impl Browser {
    /// A browser that opened `/login` (and got its CSRF cookie).
    pub fn open(s: &Server) -> Browser {
        let (st, head, _) = raw_request(&s.url, "GET", "/login", "", "");
        assert_eq!(st, 200, "{head}");
        Browser {
            url: s.url.clone(),
            csrf: set_cookie(&head, "durak_csrf").expect("the CSRF cookie"),
            session: None,
        }
    }

    /// Its `Cookie` header line.
    pub fn cookies(&self) -> String {
        match &self.session {
            Some(t) => format!("Cookie: durak_csrf={}; durak_token={t}\r\n", self.csrf),
            None => format!("Cookie: durak_csrf={}\r\n", self.csrf),
        }
    }

    pub fn get(&self, path: &str) -> (u16, String, String) {
        raw_request(&self.url, "GET", path, &self.cookies(), "")
    }

    /// The CSRF token of the form on the page `path`.
    pub fn token(&self, path: &str) -> String {
        let (st, head, body) = self.get(path);
        assert_eq!(st, 200, "{path}: {head}");
        form_token(&body)
    }

    /// Post a form (`fields` url-encoded, without the token) with `token` and `extra` headers.
    pub fn post_with(
        &self,
        path: &str,
        token: Option<&str>,
        fields: &str,
        extra: &str,
    ) -> (u16, String, String) {
        let mut body = token.map(|t| format!("csrf={t}")).unwrap_or_default();
        if !fields.is_empty() {
            if !body.is_empty() {
                body.push('&');
            }
            body.push_str(fields);
        }
        let headers = format!(
            "{}Content-Type: application/x-www-form-urlencoded\r\n{extra}",
            self.cookies()
        );
        raw_request(&self.url, "POST", path, &headers, &body)
    }

    /// Post the form of the page `page` to `path`, as a browser does (its token, its origin).
    pub fn post(&self, page: &str, path: &str, fields: &str) -> (u16, String, String) {
        let token = self.token(page);
        let origin = format!("Origin: {}\r\nSec-Fetch-Site: same-origin\r\n", self.url);
        self.post_with(path, Some(&token), fields, &origin)
    }

    /// Log in with `token` through the form: the session's cookie is kept.
    pub fn login(&mut self, token: &str) -> (u16, String, String) {
        let r = self.post("/login", "/login", &format!("token={token}"));
        if let Some(c) = set_cookie(&r.1, "durak_token") {
            self.session = Some(c);
        }
        r
    }
}

/// A bot that plays well until `flag` exists, then answers nonsense to every line (a
/// `malformed` fault a request), from the next line on: the same process (a table keeps its
/// bots for up to `MATCH_GAMES` games).
pub fn flaky_bot(root: &Path, name: &str, flag: &Path) -> PathBuf {
    let per_line = format!(
        "  if [ -e '{}' ]; then echo nonsense; continue; fi",
        flag.display()
    );
    sh_bot_per_line(root, name, "", &per_line, None)
}
