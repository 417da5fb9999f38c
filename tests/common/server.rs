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
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bot.sh"), SH_BOT.replace("PRELUDE", prelude)).unwrap();
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
