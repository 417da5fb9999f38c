//! Issue 22, the holes a hostile audit found in the worker protocol, in builds and in the data
//! directory:
//!
//! - A worker posts only under a lease the server handed to its token for that job, and an
//!   error tells it nothing of a job it does not hold (no seed, no seats); it fetches only the
//!   bots of jobs it was handed.
//! - A version whose packed folder a worker cannot unpack does not make the ladder loop: the
//!   worker reports it, the version is suspended, and the other versions' games go on.
//! - `durak worker` gives up within `--retry-s` of an outage, and SIGTERM ends it promptly
//!   while the server is down.
//! - The data directory is the server's: the database and its folders are not readable by
//!   other users.

mod common;

use common::server::{sh_bot, wait_for, Server};
use durak_service::worker::{play_games, Claimed, Played};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A `durak worker` child process, its stderr kept; killed when dropped.
struct Worker {
    child: Child,
    log: Arc<Mutex<String>>,
    /// Its stderr was read to the end.
    read_all: Arc<std::sync::atomic::AtomicBool>,
}

impl Worker {
    fn start(url: &str, token: &str, cache: &Path, extra: &[&str]) -> Worker {
        let mut child = Command::new(common::DURAK)
            .args(["worker", "--server", url, "--token", token, "--sandbox"])
            .arg(common::server::sandbox())
            .arg("--cache")
            .arg(cache)
            .args(extra)
            .env("DURAK_EXE", common::DURAK)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("durak worker starts");
        let log = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().expect("stderr");
        let l = log.clone();
        let read_all = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done = read_all.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut l = l.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
            done.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        Worker {
            child,
            log,
            read_all,
        }
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    fn term(&self) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
    }

    /// Its exit status, waiting at most `secs`; its log read to the end (at most 5 s more: the
    /// last lines could still be in the pipe when it exits).
    fn exit_within(&mut self, secs: u64) -> Option<std::process::ExitStatus> {
        let until = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < until {
            if let Some(s) = self.child.try_wait().unwrap() {
                let read = Instant::now() + Duration::from_secs(5);
                while !self.read_all.load(std::sync::atomic::Ordering::SeqCst)
                    && Instant::now() < read
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn worker_token(s: &Server, label: &str) -> (i64, String) {
    let a = s
        .org()
        .post_json("/api/worker-tokens", &json!({"label": label}))
        .unwrap();
    assert_eq!(a.status, 201, "{}", a.json);
    (
        a.json["id"].as_i64().unwrap(),
        a.json["token"].as_str().unwrap().to_string(),
    )
}

fn post(s: &Server, token: &str, job: i64, lease: &str, games: &[Value]) -> (u16, Value) {
    let a = s
        .client(Some(token))
        .post_json(
            &format!("/api/worker/jobs/{job}/results"),
            &json!({"lease": lease, "games": games}),
        )
        .unwrap();
    (a.status, a.json)
}

fn posted(game: u32, p: &Played) -> Value {
    json!({"game": game, "result": p.result, "replay_zst": p.replay_zst})
}

/// Claim with `token` until a job comes.
fn claim(s: &Server, token: &str) -> Claimed {
    let a = wait_for("a job to claim", 60, || {
        let a = s
            .client(Some(token))
            .post_json("/api/worker/claim", &json!({}))
            .unwrap();
        assert_eq!(a.status, 200, "{}", a.json);
        (!a.json["job"].is_null()).then_some(a)
    });
    serde_json::from_value(a.json).unwrap()
}

/// Play `c`'s games `games` here, with the worker's own code (`folders`: the submitted bots').
fn play(
    c: &Claimed,
    games: &[u32],
    folders: &HashMap<i64, std::path::PathBuf>,
) -> BTreeMap<u32, Played> {
    let mut c = c.clone();
    c.games = games.to_vec();
    std::env::set_var("DURAK_EXE", common::DURAK);
    let mut played = BTreeMap::new();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(play_games(
            std::slice::from_ref(&c),
            folders,
            durak_referee::Sandbox::Default,
            Vec::new(),
            |_, g| {
                played.insert(g.game, g);
                true
            },
        ))
        .unwrap();
    played
}

#[test]
fn a_worker_posts_only_under_a_lease_it_was_handed_and_learns_nothing_of_other_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(
        &tmp.path().join("data"),
        &["--no-local-play", "--deals", "2"],
    );
    let author = s.author("ada");
    let mine = sh_bot(tmp.path(), "mine", "", None);
    let a = s.upload(&author, &durak_service::archive::pack(&mine).unwrap());
    assert_eq!(a.status, 201, "{}", a.json);
    let v = s.checked("mine", 1);
    assert_eq!(v["state"], "active", "{v}");
    let mine_id = v["id"].as_i64().expect("the version's id");
    let (ida, ta) = worker_token(&s, "a");
    let (idb, tb) = worker_token(&s, "b");

    // A claims a job, fetches its bots, and plays two of its games here.
    let c = claim(&s, &ta);
    for v in c.versions.iter().filter(|v| !v.house) {
        let a = s
            .client(Some(&ta))
            .get(&format!("/api/worker/versions/{}/bot", v.id))
            .unwrap();
        assert_eq!(a.status, 200, "a's own job's bot: {}", a.json);
    }
    let played = play(&c, &[0, 1], &HashMap::from([(mine_id, mine.clone())]));
    let seeds: Vec<String> = c.job.deals.iter().map(|d| d.seed.to_string()).collect();
    let says_nothing = |e: &Value| {
        let text = e.to_string();
        for seed in &seeds {
            assert!(!text.contains(seed.as_str()), "the seed disclosed: {text}");
        }
        assert!(!text.contains(&c.lease), "a's lease disclosed: {text}");
        assert!(!text.contains("seat"), "the seating disclosed: {text}");
        assert!(
            e["error"].as_str().unwrap().contains("was not handed"),
            "{text}"
        );
    };

    // B never claimed this job: its honest-looking game under a lease it made up is refused,
    // and so is a forged one, without the job's seed.
    let made_up = format!("worker:{idb}:never-claimed");
    let (st, e) = post(&s, &tb, c.job.id, &made_up, &[posted(0, &played[&0])]);
    assert_eq!(st, 403, "{e}");
    says_nothing(&e);
    let (st, e) = post(&s, &tb, c.job.id, &made_up, &[posted(0, &played[&1])]);
    assert_eq!(st, 403, "{e}");
    says_nothing(&e);
    // A's own prefix is not enough either: the exact lease.
    let (st, e) = post(
        &s,
        &ta,
        c.job.id,
        &format!("worker:{ida}:never-claimed"),
        &[posted(0, &played[&0])],
    );
    assert_eq!(st, 403, "{e}");
    says_nothing(&e);
    // A's lease names this job only; a job that does not exist gets the same words.
    for job in [c.job.id + 1, 999_999] {
        let (st, e) = post(&s, &ta, job, &c.lease, &[posted(0, &played[&0])]);
        assert_eq!(st, 403, "job {job}: {e}");
        assert!(
            e["error"].as_str().unwrap().contains("was not handed"),
            "{e}"
        );
    }
    assert_eq!(s.games(), 0, "nothing recorded");
    // B fetches no bot of a job it was not handed (the same words as for no version).
    for id in [mine_id, 999_999] {
        let a = s
            .client(Some(&tb))
            .get(&format!("/api/worker/versions/{id}/bot"))
            .unwrap();
        assert_eq!(a.status, 404, "version {id}: {}", a.json);
        assert!(a.error().contains("plays in no job"), "{}", a.error());
    }

    // The lease A was handed: recorded, and still after the lease is given up.
    let (st, r) = post(&s, &ta, c.job.id, &c.lease, &[posted(0, &played[&0])]);
    assert_eq!((st, r["new"].as_u64()), (200, Some(1)), "{r}");
    let a = s
        .client(Some(&ta))
        .post_json(
            &format!("/api/worker/jobs/{}/release", c.job.id),
            &json!({"lease": c.lease}),
        )
        .unwrap();
    assert_eq!(a.json["released"], true, "{}", a.json);
    let (st, r) = post(&s, &ta, c.job.id, &c.lease, &[posted(1, &played[&1])]);
    assert_eq!((st, r["new"].as_u64()), (200, Some(1)), "{r}");
}

/// Release `job` held under `lease` with `token`, saying it could not be prepared.
fn release_failed(s: &Server, token: &str, c: &Claimed, version: Option<i64>) -> (u16, Value) {
    let a = s
        .client(Some(token))
        .post_json(
            &format!("/api/worker/jobs/{}/release", c.job.id),
            &json!({"lease": c.lease, "failed": {"version": version, "reason": "disk full"}}),
        )
        .unwrap();
    (a.status, a.json)
}

fn job_state(data: &Path, job: i64) -> durak_service::domain::JobState {
    let db = durak_service::db::Db::open(&data.join("service.db")).unwrap();
    durak_service::ladder::jobs::get(&db, job)
        .unwrap()
        .unwrap()
        .state
}

#[test]
fn a_job_workers_cannot_prepare_is_cancelled_not_handed_out_for_ever() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let s = Server::start(&data, &["--no-local-play", "--deals", "1"]);
    let (_, ta) = worker_token(&s, "a");
    let (_, tb) = worker_token(&s, "b");
    let (_, tc) = worker_token(&s, "c");
    let c = claim(&s, &ta);
    // Only a lease handed to the token may report.
    let (st, e) = release_failed(&s, &tb, &c, None);
    assert_eq!(st, 403, "{e}");
    // The first failure: queued again for anyone.
    let (st, r) = release_failed(&s, &ta, &c, None);
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["released"], true, "{r}");
    assert!(r["cancelled"].is_null(), "{r}");
    assert_eq!(
        job_state(&data, c.job.id),
        durak_service::domain::JobState::Queued
    );
    // The same job failing on a second worker token: cancelled.
    let again = wait_for("b to claim the same job", 60, || {
        let x = claim(&s, &tb);
        if x.job.id == c.job.id {
            return Some(x);
        }
        let a = s
            .client(Some(&tb))
            .post_json(
                &format!("/api/worker/jobs/{}/release", x.job.id),
                &json!({"lease": x.lease}),
            )
            .unwrap();
        assert_eq!(a.status, 200, "{}", a.json);
        None
    });
    let (st, r) = release_failed(&s, &tb, &again, None);
    assert_eq!(st, 200, "{r}");
    assert!(
        r["cancelled"]
            .as_str()
            .unwrap_or("")
            .contains("2 worker token(s)"),
        "{r}"
    );
    assert_eq!(
        job_state(&data, c.job.id),
        durak_service::domain::JobState::Cancelled
    );
    // Never handed out again; other jobs are.
    for _ in 0..5 {
        let x = claim(&s, &tc);
        assert_ne!(x.job.id, c.job.id, "the cancelled job handed out again");
    }
}

#[test]
fn a_build_that_leaves_a_link_out_of_its_folder_is_refused_with_the_link_named() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &["--no-local-play"]);
    let author = s.author("ada");
    for (name, build, says) in [
        (
            "up",
            "ln -s ../../service.db db",
            "db -> ../../service.db leads out of the bot's folder",
        ),
        (
            "abs",
            "ln -s /etc/passwd pw",
            "pw -> /etc/passwd leads out of the bot's folder",
        ),
        ("fifo", "mkfifo pipe", "pipe is a fifo"),
    ] {
        let bot = sh_bot(tmp.path(), name, "", Some(build));
        let a = s.upload(&author, &durak_service::archive::pack(&bot).unwrap());
        assert_eq!(a.status, 201, "{}", a.json);
        let v = s.checked(name, 1);
        assert_eq!(v["state"], "failed", "{name}: {v}");
        let reason = v["reason"].as_str().unwrap_or("");
        assert!(
            reason.contains(says) && reason.contains("fix:"),
            "{name}: {v}"
        );
    }
}

#[test]
fn a_version_whose_archive_workers_cannot_use_is_suspended_and_the_ladder_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let s = Server::start(&data, &["--no-local-play", "--deals", "1"]);
    let author = s.author("ada");
    let bad = sh_bot(tmp.path(), "bad", "", None);
    let a = s.upload(&author, &durak_service::archive::pack(&bad).unwrap());
    assert_eq!(a.status, 201, "{}", a.json);
    let v = s.checked("bad", 1);
    assert_eq!(v["state"], "active", "{v}");
    // What a build could leave before builds were checked (and what a data directory from then
    // may hold): a link out of the version's folder, which every worker's unpacker refuses.
    let db = durak_service::db::Db::open(&data.join("service.db")).unwrap();
    let folder: String = db
        .read(|c| {
            c.query_row(
                "SELECT folder FROM versions WHERE id = ?1",
                [v["id"].as_i64().unwrap()],
                |r| r.get(0),
            )
        })
        .unwrap();
    std::os::unix::fs::symlink("../../service.db", Path::new(&folder).join("db")).unwrap();
    let before = s.games();
    let (_, t) = worker_token(&s, "w");
    let w = Worker::start(&s.url, &t, &tmp.path().join("cache"), &["--retry-s", "60"]);
    wait_for("the packed folders", 60, || {
        data.join("packed").exists().then_some(())
    });
    assert_eq!(
        mode(&data.join("packed")),
        0o700,
        "packed/ is the server's alone"
    );
    let suspended = wait_for("bad v1 to be suspended", 120, || {
        let v = s.get("/api/bots/bad/versions/1").json;
        (v["state"] == "suspended").then_some(v)
    });
    let reason = suspended["reason"].as_str().unwrap();
    assert!(
        reason.contains("workers cannot use") && reason.contains("points out of the folder"),
        "{suspended}"
    );
    // The house bots' games are played meanwhile.
    wait_for("games of the other versions", 120, || {
        (s.games() >= before + 4).then_some(())
    });
    let log = w.log();
    assert!(log.contains("could not be prepared"), "{log}");
    let tries = log
        .lines()
        .filter(|l| l.contains("could not be prepared"))
        .count();
    assert!(tries <= 3, "{tries} tries:\n{log}");
}

/// A stand-in for a server: it answers `GET /api/status` as `durak serve` does, and every
/// other request as `mode` says ("hang": never; "503": a server error). It stops after 120 s.
fn fake_server(mode: &'static str) -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    l.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let end = Instant::now() + Duration::from_secs(120);
        let mut held = Vec::new();
        while Instant::now() < end {
            let Ok((mut c, _)) = l.accept() else {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            };
            c.set_nonblocking(false).unwrap();
            c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut head = Vec::new();
            let mut b = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") {
                match std::io::Read::read(&mut c, &mut b) {
                    Ok(1) => head.push(b[0]),
                    _ => break,
                }
            }
            let head = String::from_utf8_lossy(&head).to_string();
            let answer = |status: &str, body: &str| {
                format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: \
                     {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                )
            };
            if head.starts_with("GET /api/status ") {
                let body = r#"{"service":"durak serve","variant":"podkidnoy","table_size":2}"#;
                let _ = std::io::Write::write_all(&mut c, answer("200 OK", body).as_bytes());
            } else if mode == "503" {
                let body = r#"{"error":"down for a moment"}"#;
                let a = answer("503 Service Unavailable", body);
                let _ = std::io::Write::write_all(&mut c, a.as_bytes());
            } else {
                held.push(c);
            }
        }
    });
    url
}

#[test]
fn a_worker_gives_up_within_retry_s_and_stops_at_once_on_sigterm_while_the_server_is_down() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let bounded = |w: &mut Worker, secs: u64, what: &str| {
        w.exit_within(secs)
            .unwrap_or_else(|| panic!("{what}: still running after {secs} s:\n{}", w.log()))
    };
    // A server that takes requests and never answers them: given up after --retry-s.
    let hung = fake_server("hang");
    let started = Instant::now();
    let mut w = Worker::start(&hung, "dk_x", &cache, &["--retry-s", "3"]);
    let st = bounded(&mut w, 40, "a worker with --retry-s 3 and a hung server");
    assert_eq!(st.code(), Some(2), "{}", w.log());
    assert!(
        w.log().contains("did not answer") && w.log().contains("fix:"),
        "{}",
        w.log()
    );
    eprintln!("gave up after {:?}", started.elapsed());
    // Nobody at the port at all.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let mut w = Worker::start(&closed, "dk_x", &cache, &["--retry-s", "3"]);
    let st = bounded(&mut w, 40, "a worker with --retry-s 3 and a closed port");
    assert_eq!(st.code(), Some(2), "{}", w.log());
    assert!(w.log().contains("did not answer"), "{}", w.log());
    // SIGTERM while a request hangs, and while the server answers 503: stopped at once.
    for url in [hung, fake_server("503")] {
        let mut w = Worker::start(&url, "dk_x", &cache, &["--retry-s", "300"]);
        wait_for("the worker to start serving", 30, || {
            w.log().contains("durak worker: serving").then_some(())
        });
        std::thread::sleep(Duration::from_millis(1500));
        w.term();
        let st = bounded(&mut w, 10, "a worker after SIGTERM");
        assert!(st.success(), "{st}:\n{}", w.log());
        assert!(w.log().contains("durak worker: stopped"), "{}", w.log());
    }
}

/// The permission bits of `p` (not following a link).
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn the_data_directory_is_the_servers_alone_and_bots_still_run() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // An older server's data directory, readable by all.
    std::fs::create_dir_all(data.join("replays")).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let s = Server::start(&data, &[]);
    let author = s.author("ada");
    let bot = sh_bot(tmp.path(), "mine", "", Some("echo built > built.txt"));
    let a = s.upload(&author, &durak_service::archive::pack(&bot).unwrap());
    assert_eq!(a.status, 201, "{}", a.json);
    let v = s.checked("mine", 1);
    assert_eq!(v["state"], "active", "the bot still builds and runs: {v}");
    let id = v["id"].as_i64().unwrap();
    wait_for("games of the submitted bot", 120, || {
        let v = s.get("/api/bots/mine/versions/1").json;
        (v.to_string().contains("\"games\"") && s.games() >= 2).then_some(())
    });
    // Strict mode as root runs bots under uids of their own: they pass through (x), no more.
    // SAFETY: geteuid has no preconditions and cannot fail.
    let strict_root = common::server::sandbox() == "strict" && unsafe { libc::geteuid() } == 0;
    let pass = if strict_root { 0o711 } else { 0o700 };
    assert_eq!(mode(&data), pass, "the data directory");
    assert_eq!(mode(&data.join("bots")), pass, "bots/");
    for d in ["uploads", "replays", "tournaments"] {
        assert_eq!(mode(&data.join(d)), 0o700, "{d}/");
    }
    for f in ["service.db", "service.db-wal", "service.db-shm", "lock"] {
        let p = data.join(f);
        if p.exists() {
            assert_eq!(mode(&p), 0o600, "{f}");
        }
    }
    // The files inside (uploads, replays) are behind those folders.
    if !strict_root {
        // The bots run as the server's user: their folders need nobody else either.
        let folder = data.join(format!("bots/v{id}"));
        assert_eq!(mode(&folder) & 0o077, 0, "{}", folder.display());
    }
}

#[test]
fn a_worker_whose_games_cannot_be_posted_stops_within_15_s_of_sigterm() {
    // A job finished in the middle of a match posts from a thread of its own. With the server
    // gone, its retries once counted "15 s after a signal" from each retry's own now, and
    // kept the worker (and a benchmark waiting for it) running for --retry-s.
    let tmp = tempfile::tempdir().unwrap();
    let mut s = Server::start_for_workers(&tmp.path().join("data"));
    let (_, token) = worker_token(&s, "w");
    let mut w = Worker::start(
        &s.url,
        &token,
        &tmp.path().join("cache"),
        &["--retry-s", "300"],
    );
    wait_for("the worker's first games", 120, || {
        (s.games() >= 50).then_some(())
    });
    s.kill();
    // Games played since are kept for the server, which does not answer.
    wait_for("a post that fails", 60, || {
        w.log().contains("Connection refused").then_some(())
    });
    std::thread::sleep(Duration::from_secs(1));
    let t = Instant::now();
    w.term();
    let st = w
        .exit_within(40)
        .unwrap_or_else(|| panic!("still running 40 s after SIGTERM:\n{}", w.log()));
    assert!(st.success(), "{st}:\n{}", w.log());
    assert!(
        t.elapsed() < Duration::from_secs(25),
        "stopped after {:?} (posting goes on for at most 15 s after the signal)",
        t.elapsed()
    );
}
