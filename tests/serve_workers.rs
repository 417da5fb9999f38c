//! Issue 16, workers for the service: `durak worker` processes claim the ladder's jobs, play
//! them and post the games, which the server verifies before it records them.
//!
//! - The API: worker tokens and account tokens open nothing of each other; a forged game (a
//!   replay that verifies but is another deal, or the other rotation's seating; a replay with
//!   a move changed; a result that is not the replay's) is refused with what differs and
//!   records nothing; a game posted twice is recorded once; renew and release.
//! - The whole path: a server with no local play and a short lease, two workers, one of them
//!   killed mid-job and the server killed once and started again on the same port; the workers
//!   go on, the killed worker's job is handed out again and finished, and every finished job
//!   has each of its games recorded once, with a replay that verifies.

mod common;

use common::server::{sh_bot, wait_for, Server};
use durak_service::db::Db;
use durak_service::http::worker_api::encode_replay;
use durak_service::ladder::jobs;
use durak_service::worker::{play_games, Claimed, Played};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A `durak worker` child process, its stderr kept; killed when dropped.
struct Worker {
    child: Child,
    log: Arc<Mutex<String>>,
}

impl Worker {
    fn start(url: &str, token: &str, cache: &Path) -> Worker {
        let mut child = Command::new(common::DURAK)
            .args(["worker", "--server", url, "--token", token, "--sandbox"])
            .arg(common::server::sandbox())
            .arg("--cache")
            .arg(cache)
            .args(["--retry-s", "120"])
            .env("DURAK_EXE", common::DURAK)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("durak worker starts");
        let log = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().expect("stderr");
        let l = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut l = l.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        });
        Worker { child, log }
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
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

/// Post games of a job: (status, answer).
fn post(s: &Server, token: &str, c: &Claimed, games: &[Value]) -> (u16, Value) {
    let a = s
        .client(Some(token))
        .post_json(
            &format!("/api/worker/jobs/{}/results", c.job.id),
            &json!({"lease": c.lease, "games": games}),
        )
        .unwrap();
    (a.status, a.json)
}

/// As `durak worker` posts it: the replay compressed, in base64.
fn posted(game: u32, p: &Played) -> Value {
    json!({"game": game, "result": p.result, "replay_zst": p.replay_zst})
}

/// As an older worker posts it: the replay's lines as they are.
fn posted_plain(game: u32, p: &Played, text: &str) -> Value {
    json!({"game": game, "result": p.result, "replay": text})
}

/// The replay with the cards of its first chosen attack changed: it no longer verifies.
fn tampered(replay: &str) -> String {
    let mut done = false;
    replay
        .lines()
        .map(|l| {
            if !done
                && l.contains("\"type\":\"move\"")
                && l.contains("\"forced\":false")
                && l.contains("\"cards\":[\"")
            {
                done = true;
                let at = l.find("\"cards\":[\"").unwrap() + "\"cards\":[\"".len();
                let card = &l[at..at + 2];
                let other = if card == "AS" { "KS" } else { "AS" };
                format!("{}{other}{}\n", &l[..at], &l[at + 2..])
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

#[test]
fn the_worker_api_refuses_forged_games_records_a_game_once_and_keeps_tokens_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(
        &tmp.path().join("data"),
        &["--no-local-play", "--deals", "2"],
    );
    let (wid, w) = worker_token(&s, "test");
    let author = s.author("ada");
    // Tokens: each kind opens its own routes only.
    let a = s
        .client(Some(&author))
        .post_json("/api/worker/claim", &json!({}))
        .unwrap();
    assert_eq!(a.status, 403, "{}", a.json);
    assert!(a.error().contains("not a worker token"), "{}", a.error());
    let a = s
        .client(None)
        .post_json("/api/worker/claim", &json!({}))
        .unwrap();
    assert_eq!(a.status, 401, "{}", a.json);
    let a = s
        .client(Some(&s.organiser.clone().unwrap()))
        .post_json("/api/worker/claim", &json!({}))
        .unwrap();
    assert_eq!(a.status, 403, "the organiser's token is not a worker token");
    let wc = s.client(Some(&w));
    let bot = sh_bot(tmp.path(), "mine", "", None);
    let bytes = durak_service::archive::pack(&bot).unwrap();
    let a = wc
        .post_bytes("/api/submit", "application/gzip", &bytes)
        .unwrap();
    assert_eq!(a.status, 401, "a worker token uploads no bot: {}", a.json);
    for path in ["/api/invites", "/api/ladder/pause", "/api/worker-tokens"] {
        let a = wc.post_json(path, &json!({})).unwrap();
        assert_eq!(a.status, 401, "{path}: {}", a.json);
    }
    let a = s.client(Some(&author)).get("/api/worker-tokens").unwrap();
    assert_eq!(a.status, 403, "an author lists no worker token");
    let list = s.org().get("/api/worker-tokens").unwrap();
    assert_eq!(list.json["worker_tokens"][0]["label"], "test");
    assert!(
        !list.json.to_string().contains(&w[3..]),
        "the token itself is not shown"
    );

    // A job, and three of its games played here with the worker's own code.
    let a = wait_for("a job to claim", 60, || {
        let a = wc.post_json("/api/worker/claim", &json!({})).unwrap();
        assert_eq!(a.status, 200, "{}", a.json);
        (!a.json["job"].is_null()).then_some(a)
    });
    let mut c: Claimed = serde_json::from_value(a.json.clone()).unwrap();
    assert_eq!(c.games, vec![0, 1, 2, 3], "{}", a.json);
    assert_eq!(c.job.deals.len(), 2);
    assert!(a.json["job"]["deals"][0]["seed"].is_string(), "{}", a.json);
    c.games = vec![0, 1, 2];
    std::env::set_var("DURAK_EXE", common::DURAK);
    let mut played: BTreeMap<u32, Played> = BTreeMap::new();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(play_games(
            std::slice::from_ref(&c),
            &HashMap::new(),
            durak_referee::Sandbox::Default,
            Vec::new(),
            |_, g| {
                played.insert(g.game, g);
                true
            },
        ))
        .unwrap();
    assert_eq!(played.keys().copied().collect::<Vec<_>>(), vec![0, 1, 2]);
    let games_before = s.games();

    // Forged: another deal's replay (it verifies, but with another seed).
    let (st, e) = post(&s, &w, &c, &[posted(0, &played[&1])]);
    assert_eq!(st, 409, "{e}");
    let msg = e["error"].as_str().unwrap();
    assert!(
        msg.contains("not this job's game") && msg.contains("seed:"),
        "{msg}"
    );
    // Forged: the first rotation's replay as the second's. At the first rotation's seating
    // the second rotation's game has the dealer moved by one seat (`Job::planned_at`).
    let (st, e) = post(&s, &w, &c, &[posted(2, &played[&0])]);
    assert_eq!(st, 409, "{e}");
    let msg = e["error"].as_str().unwrap();
    let dealer = c.job.deals[0].dealer;
    assert!(
        msg.contains(&format!(
            "dealer: {} in the job, {dealer} in the replay",
            (dealer + 1) % 2
        )),
        "{msg}"
    );
    // The worker played every rotation at one seating, in one match: each bot started once.
    for g in [0, 1, 2] {
        let first = played[&g]
            .text()
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string();
        let header: Value = serde_json::from_str(&first).unwrap();
        assert_eq!(header["seats"][0]["name"], c.job.seats[0].to_string());
        for seat in 0..2 {
            assert_eq!(
                header["seats"][seat]["hello"],
                g == 0,
                "game {g}: a process started for it at seat {seat} only in the first game"
            );
        }
    }
    // Forged: a move changed (compressed, and plain).
    let honest = played[&0].text().unwrap();
    let forged = tampered(&honest);
    assert_ne!(forged, honest);
    let mut bad = played[&0].clone();
    bad.replay_zst = encode_replay(forged.as_bytes()).unwrap();
    for body in [posted(0, &bad), posted_plain(0, &bad, &forged)] {
        let (st, e) = post(&s, &w, &c, &[body]);
        assert_eq!(st, 422, "{e}");
        assert!(
            e["error"].as_str().unwrap().contains("does not verify"),
            "{e}"
        );
    }
    // Refused: a zstd bomb (a frame unpacking to more than a replay may), base64 that is not,
    // and a game with no replay or two.
    let bomb = encode_replay(&vec![b' '; 80 << 20]).unwrap();
    assert!(bomb.len() < 1 << 20, "{}", bomb.len());
    let both = json!({"game": 0, "replay_zst": played[&0].replay_zst, "replay": honest});
    for (body, says) in [
        (
            json!({"game": 0, "replay_zst": bomb}),
            "unpacks to more than",
        ),
        (
            json!({"game": 0, "replay_zst": "not base64!"}),
            "not base64",
        ),
        (json!({"game": 0}), "give the replay once"),
        (both, "give the replay once"),
    ] {
        let (st, e) = post(&s, &w, &c, &[body]);
        assert_eq!(st, 422, "{e}");
        assert!(e["error"].as_str().unwrap().contains(says), "{says}: {e}");
    }
    // Forged: a result that is not the replay's.
    let mut bad = played[&0].clone();
    bad.result.loser = match bad.result.loser {
        Some(0) => Some(1),
        _ => Some(0),
    };
    bad.result.draw = false;
    let (st, e) = post(&s, &w, &c, &[posted(0, &bad)]);
    assert_eq!(st, 422, "{e}");
    assert!(
        e["error"].as_str().unwrap().contains("the result posted"),
        "{e}"
    );
    // A batch with one forged game records nothing of it.
    let (st, e) = post(
        &s,
        &w,
        &c,
        &[posted(1, &played[&1]), posted(2, &played[&0])],
    );
    assert_eq!(st, 409, "{e}");
    assert!(e["error"]
        .as_str()
        .unwrap()
        .contains("nothing of this post"));
    assert_eq!(
        s.get(&format!("/api/games/{}/1", c.job.id)).status,
        404,
        "not recorded"
    );
    assert_eq!(s.games(), games_before, "no forged game recorded");

    // Honest, twice: recorded once.
    let (st, r) = post(&s, &w, &c, &[posted(0, &played[&0])]);
    assert_eq!(st, 200, "{r}");
    assert_eq!(
        (r["new"].as_u64(), r["already"].as_u64()),
        (Some(1), Some(0))
    );
    let (st, r) = post(&s, &w, &c, &[posted(0, &played[&0])]);
    assert_eq!(st, 200, "{r}");
    assert_eq!(
        (r["new"].as_u64(), r["already"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(r["games"][0]["recorded"], false, "{r}");
    assert_eq!(s.games(), games_before + 1, "counted once");
    let g = s.get(&format!("/api/games/{}/0", c.job.id));
    assert_eq!(g.status, 200);
    assert_eq!(g.json["seats"], json!(c.job.seating(0)));
    let replay = s
        .client(None)
        .get(&format!("/api/games/{}/0/replay", c.job.id))
        .unwrap();
    assert_eq!(replay.status, 200);

    // The lease: renewed, released (then not renewable), and games still welcome after.
    let lease = json!({"lease": c.lease});
    let job = c.job.id;
    let a = wc
        .post_json(&format!("/api/worker/jobs/{job}/renew"), &lease)
        .unwrap();
    assert_eq!(a.status, 200, "{}", a.json);
    let a = wc
        .post_json(&format!("/api/worker/jobs/{job}/release"), &lease)
        .unwrap();
    assert_eq!(a.json["released"], true, "{}", a.json);
    let a = wc
        .post_json(&format!("/api/worker/jobs/{job}/renew"), &lease)
        .unwrap();
    assert_eq!(a.status, 409, "{}", a.json);
    assert!(a.error().contains("stop playing it"), "{}", a.error());
    // (Game 1 as an older worker posts it, plain: the server stores it compressed too.)
    let text1 = played[&1].text().unwrap();
    let (st, r) = post(
        &s,
        &w,
        &c,
        &[posted_plain(1, &played[&1], &text1), posted(2, &played[&2])],
    );
    assert_eq!((st, r["new"].as_u64()), (200, Some(2)), "{r}");
    for g in 0..3 {
        let (rel, raw) = common::server::stored_replay(&s.data, c.job.id, g);
        assert!(raw.starts_with(&durak_referee::replay::ZSTD_MAGIC), "{rel}");
        let lines = durak_referee::replay::decode_replay_bytes(raw).unwrap();
        assert_eq!(lines, played[&g].text().unwrap().into_bytes(), "{rel}");
    }
    // Another token's lease is refused.
    let (_, w2) = worker_token(&s, "other");
    let (st, e) = post(&s, &w2, &c, &[posted(1, &played[&1])]);
    assert_eq!(st, 403, "{e}");

    // The worker's own errors: a refused token names the flag; a bad URL; nobody there.
    let run = |args: &[&str]| {
        let out = Command::new(common::DURAK)
            .arg("worker")
            .args(args)
            .args(["--sandbox", "default", "--cache"])
            .arg(tmp.path().join("cache-errors"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", common::text(&out.stderr));
        common::text(&out.stderr)
    };
    let e = run(&["--server", &s.url, "--token", &author]);
    assert!(
        e.contains("refused the worker token given with --token") && e.contains("403"),
        "{e}"
    );
    let e = run(&["--server", "judge:8080", "--token", &w]);
    assert!(e.contains("--server") && e.contains("fix:"), "{e}");
    let e = run(&[
        "--server",
        "http://127.0.0.1:9",
        "--token",
        &w,
        "--retry-s",
        "1",
    ]);
    assert!(e.contains("did not answer") && e.contains("fix:"), "{e}");

    // Revoked: the token opens nothing.
    let a = s
        .org()
        .delete(&format!("/api/worker-tokens/{wid}"))
        .unwrap();
    assert_eq!(a.status, 200, "{}", a.json);
    let a = wc.post_json("/api/worker/claim", &json!({})).unwrap();
    assert_eq!(a.status, 401, "{}", a.json);
}

/// The job of a line `durak worker: job N: claimed, ...`.
fn claimed_job(line: &str) -> Option<i64> {
    line.strip_prefix("durak worker: job ")?
        .split(':')
        .next()?
        .parse()
        .ok()
}

#[test]
fn workers_survive_a_killed_worker_and_a_restarted_server_and_every_game_counts_once() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let flags = ["--no-local-play", "--lease-s", "3", "--deals", "2"];
    let mut s = Server::start(&data, &flags);
    assert!(s.log().contains("only workers play"), "{}", s.log());
    let port = s.url.rsplit(':').next().unwrap().to_string();
    // A submitted bot, slow to start (each rotation starts it again): its jobs take a second
    // or so, long enough to kill a worker in the middle of one.
    let author = s.author("ada");
    let slow = sh_bot(tmp.path(), "slow", "sleep 0.4", None);
    let a = s.upload(&author, &durak_service::archive::pack(&slow).unwrap());
    assert_eq!(a.status, 201, "{}", a.json);
    assert_eq!(s.checked("slow", 1)["state"], "active");
    let (_, ta) = worker_token(&s, "a");
    let (_, tb) = worker_token(&s, "b");
    let (cache_a, cache_b) = (tmp.path().join("cache-a"), tmp.path().join("cache-b"));
    let mut a = Worker::start(&s.url, &ta, &cache_a);
    let b = Worker::start(&s.url, &tb, &cache_b);

    // Worker a is killed in the middle of a job with the slow bot.
    let killed_job = wait_for("worker a to claim a job with slow v1", 120, || {
        a.log()
            .lines()
            .filter(|l| l.contains(": claimed,") && l.contains("slow v1"))
            .find_map(claimed_job)
    });
    std::thread::sleep(Duration::from_millis(300));
    a.kill();
    let log = a.log();
    let end = format!("durak worker: job {killed_job}: ");
    assert!(
        !log.lines()
            .any(|l| l.starts_with(&end) && l.contains("game(s) played")),
        "job {killed_job} was still being played when worker a was killed:\n{log}"
    );
    assert!(
        log.contains("fetched slow v1") && log.contains("SHA-256 checked"),
        "{log}"
    );

    // The server is killed too, and started again on the same port: the workers retry.
    let before = s.games();
    wait_for("a few more games", 60, || {
        (s.games() >= before + 4).then_some(())
    });
    s.kill();
    let b_before_restart = b.log().len();
    std::thread::sleep(Duration::from_millis(500));
    let listen = format!("127.0.0.1:{port}");
    let mut restart_flags = flags.to_vec();
    restart_flags.extend(["--listen", listen.as_str()]);
    let organiser = s.organiser.clone();
    s = Server::start(&data, &restart_flags);
    assert_eq!(s.organiser, None, "printed on the first start only");
    s.organiser = organiser;
    // A new worker a, with a's cache (the slow bot is there already).
    let a2 = Worker::start(&s.url, &ta, &cache_a);

    // The ladder goes on; the killed worker's job is handed out again and finished.
    let want = s.games() + 60;
    wait_for(&format!("{want} games"), 240, || {
        (s.games() >= want).then_some(())
    });
    wait_for(&format!("job {killed_job} to be done"), 120, || {
        let db = Db::open(&data.join("service.db")).ok()?;
        let j = jobs::get(&db, killed_job).ok()??;
        (j.state == durak_service::domain::JobState::Done).then_some(())
    });
    // Paused: the workers end their jobs and find no other.
    let p = s.org().post_json("/api/ladder/pause", &json!({})).unwrap();
    assert_eq!(p.status, 200);
    wait_for("every lease to end or its job to be done", 60, || {
        let db = Db::open(&data.join("service.db")).ok()?;
        let now = durak_service::db::now_ms();
        jobs::open_jobs(&db)
            .ok()?
            .iter()
            .all(|j| {
                j.state != durak_service::domain::JobState::Claimed
                    || j.lease_until.unwrap_or(0) < now
            })
            .then_some(())
    });
    let mut logs = Vec::new();
    for w in [a2, b] {
        let mut w = w;
        assert!(
            w.child.try_wait().unwrap().is_none(),
            "the worker is still running:\n{}",
            w.log()
        );
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(w.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let st = wait_for("the worker to stop after SIGTERM", 60, || {
            w.child.try_wait().ok().flatten()
        });
        assert!(st.success(), "{st}:\n{}", w.log());
        assert!(w.log().contains("durak worker: stopped"), "{}", w.log());
        logs.push(w.log());
    }
    assert!(
        logs[1][b_before_restart..].contains(": claimed,"),
        "worker b went on after the server's restart:\n{}\nserver:\n{}",
        logs[1],
        s.log()
    );
    assert!(
        logs[0]
            .lines()
            .any(|l| l.contains(": claimed,") && l.contains("slow v1"))
            && !logs[0].contains("fetched"),
        "the new worker a found the slow bot in a's cache:\n{}",
        logs[0]
    );
    for l in &logs {
        assert!(
            !l.contains("the server refused"),
            "an honest worker's games refused:\n{l}"
        );
    }
    s.stop();

    // Every finished job has each of its games once, with a replay that verifies.
    let db = Db::open(&data.join("service.db")).unwrap();
    let rows: Vec<(i64, u32, String, String)> = db
        .read(|c| {
            let mut st = c.prepare("SELECT job, game, replay, played_by FROM games")?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            rows.collect()
        })
        .unwrap();
    let mut per_job: BTreeMap<i64, Vec<u32>> = BTreeMap::new();
    for (job, game, replay, by) in &rows {
        per_job.entry(*job).or_default().push(*game);
        assert!(by.starts_with("worker:"), "job {job} game {game}: {by}");
        let text = durak_service::store::replays::lines(&db, &data, *job, *game, replay)
            .unwrap_or_else(|e| panic!("job {job} game {game}: {e}"));
        let r = durak_replay::parse_replay(&text, replay)
            .unwrap_or_else(|e| panic!("job {job} game {game}: {e}"));
        let sim = durak_replay::simulate(&r);
        assert!(
            sim.verified(),
            "job {job} game {game}: {:?}",
            sim.divergence
        );
    }
    let done: Vec<jobs::Job> = db
        .read(|c| {
            let mut st = c.prepare("SELECT id FROM jobs WHERE state = 'done'")?;
            let ids = st.query_map([], |r| r.get::<_, i64>(0))?;
            ids.collect::<Result<Vec<i64>, _>>()
        })
        .unwrap()
        .into_iter()
        .map(|id| jobs::get(&db, id).unwrap().unwrap())
        .collect();
    assert!(done.len() >= 10, "{} jobs done", done.len());
    for j in &done {
        let mut g = per_job.get(&j.id).cloned().unwrap_or_default();
        g.sort_unstable();
        assert_eq!(
            g,
            (0..j.games() as u32).collect::<Vec<_>>(),
            "job {}: every game once",
            j.id
        );
    }
    let k = jobs::get(&db, killed_job).unwrap().unwrap();
    assert_eq!(k.state, durak_service::domain::JobState::Done);
    assert!(
        k.attempts >= 2,
        "job {killed_job} was handed out again: {k:?}"
    );
    let by_token: std::collections::BTreeSet<&str> =
        rows.iter().map(|(_, _, _, by)| by.as_str()).collect();
    assert!(by_token.len() >= 2, "both workers played: {by_token:?}");
    eprintln!(
        "{} games in {} finished jobs; job {killed_job} finished after {} claims",
        rows.len(),
        done.len(),
        k.attempts
    );
}

#[test]
fn a_worker_plays_the_jobs_among_the_same_versions_in_one_match_over_the_same_bots() {
    // Issue 23: a worker claims the jobs among the same versions open after its first (up to
    // BATCH_GAMES games), plays them over the same processes, as a table plays a run, and
    // claims the next batch among them as one ends, in the same match (up to MATCH_GAMES): a
    // process per job started two bots every four games, and one per batch, two every 100.
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let s = Server::start_for_workers(&data);
    let (_, token) = worker_token(&s, "a");
    let mut w = Worker::start(&s.url, &token, &tmp.path().join("cache"));
    wait_for("320 games", 240, || (s.games() >= 320).then_some(()));
    w.kill();
    let (started, games, jobs) = common::server::processes_started(&data, 0);
    assert!(jobs >= 80, "{jobs} jobs");
    // Two processes for the match, and two more if the ladder ran out of jobs for a moment
    // (the match ends then); a match per batch started at least eight.
    assert!(
        started <= 4,
        "{started} processes started for {games} games of {jobs} jobs"
    );
    let log = w.log();
    assert!(
        log.lines().filter(|l| l.contains(": claimed,")).count() >= jobs,
        "{log}"
    );
}

#[test]
fn a_claim_with_max_games_hands_out_more_jobs_among_the_same_versions_each_under_its_own_lease() {
    // Issue 23: one round trip for a worker's batch, not one per job.
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start_for_workers(&tmp.path().join("data"));
    let (_, token) = worker_token(&s, "a");
    let wc = s.client(Some(&token));
    let claim = |body: Value| {
        wait_for("a job to claim", 60, || {
            let a = wc.post_json("/api/worker/claim", &body).unwrap();
            assert_eq!(a.status, 200, "{}", a.json);
            (!a.json["job"].is_null()).then_some(a.json)
        })
    };
    let one = claim(json!({}));
    assert_eq!(one["more"], json!([]), "no max_games: one job");
    let a = claim(json!({"max_games": 12}));
    let first: Claimed = serde_json::from_value(a.clone()).unwrap();
    let more: Vec<Claimed> = serde_json::from_value(a["more"].clone()).unwrap();
    assert!(!more.is_empty(), "{a}");
    let games = first.games.len() + more.iter().map(|c| c.games.len()).sum::<usize>();
    assert!(games <= 12, "{games} games");
    let mut leases = std::collections::BTreeSet::from([first.lease.clone()]);
    for c in &more {
        assert!(
            c.job.rotation_seated(&first.job.seating(0)).is_some(),
            "job {:?} is among job {:?}'s versions",
            c.job.seats,
            first.job.seats
        );
        assert!(leases.insert(c.lease.clone()), "a lease of its own");
        let r = wc
            .post_json(
                &format!("/api/worker/jobs/{}/renew", c.job.id),
                &json!({"lease": c.lease}),
            )
            .unwrap();
        assert_eq!(r.status, 200, "{}", r.json);
    }
    // The lease of one job is not another's.
    let r = wc
        .post_json(
            &format!("/api/worker/jobs/{}/renew", more[0].job.id),
            &json!({"lease": first.lease}),
        )
        .unwrap();
    assert_eq!(r.status, 409, "{}", r.json);
}
