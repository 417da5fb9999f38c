//! Issue 24, running a judge for weeks: the organiser's token made again on the server's
//! machine, a first start that fails leaving nothing behind, fixed tournaments that survive
//! restarts (one at a time, the others queued, any cancelled), backups taken while the ladder
//! plays that serve every game they hold, restarts that apply new settings, and JSON logs.
//! (Seasons: `serve_seasons.rs`.)

mod common;

use common::server::{path, wait_for, Server};
use durak_service::db::Db;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

fn durak(args: &[&str]) -> std::process::Output {
    Command::new(common::DURAK)
        .args(args)
        .env("DURAK_EXE", common::DURAK)
        .output()
        .unwrap()
}

#[test]
fn a_first_start_on_a_busy_port_leaves_nothing_and_a_lost_organiser_token_is_made_again() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap().to_string();
    let out = durak(&[
        "serve",
        "--listen",
        &addr,
        "--sandbox",
        "default",
        "--data-dir",
        path(&data),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let e = common::text(&out.stderr);
    assert!(
        e.contains(&format!("cannot listen on {addr}")) && e.contains("fix:"),
        "{e}"
    );
    assert!(!data.exists(), "the failed first start made nothing");
    drop(busy);

    // The next start is a first start: it prints the organiser's token.
    let mut s = Server::start(&data, &["--house-bots", "none"]);
    let first = s
        .organiser
        .clone()
        .expect("the organiser's token on the first start");
    assert_eq!(s.org().get("/api/me").unwrap().status, 200);

    // Lost: `durak organiser-token` (while the server runs) makes a new one and revokes it.
    let out = durak(&["organiser-token", "--data-dir", path(&data)]);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let second = common::text(&out.stdout).trim().to_string();
    assert!(second.starts_with("dk_") && second != first, "{second}");
    let me = s.client(Some(&second)).get("/api/me").unwrap();
    assert_eq!(me.status, 200, "{}", me.json);
    assert_eq!(me.json["account"]["organiser"], true, "{}", me.json);
    let old = s.client(Some(&first)).get("/api/me").unwrap();
    assert_eq!(old.status, 401, "the old token is revoked: {}", old.json);
    s.stop();
    let s = Server::start(&data, &["--house-bots", "none"]);
    assert_eq!(s.organiser, None, "printed on the first start only");
    assert_eq!(s.client(Some(&second)).get("/api/me").unwrap().status, 200);

    // Not a data directory: refused with the fix, and nothing is made.
    let nowhere = tmp.path().join("nowhere");
    let out = durak(&["organiser-token", "--data-dir", path(&nowhere)]);
    assert_eq!(out.status.code(), Some(2));
    let e = common::text(&out.stderr);
    assert!(
        e.contains("no service.db here") && e.contains("fix:"),
        "{e}"
    );
    assert!(!nowhere.exists());
}

fn tournament(s: &Server, id: i64) -> Value {
    s.get(&format!("/api/tournaments/{id}")).json
}

fn states(s: &Server) -> Vec<(i64, String)> {
    s.get("/api/tournaments").json["tournaments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_i64().unwrap(),
                t["state"].as_str().unwrap().into(),
            )
        })
        .collect()
}

/// The database's view of who is running: never two.
fn running(data: &Path) -> usize {
    let db = Db::open(&data.join("service.db")).unwrap();
    db.read(|c| {
        c.query_row(
            "SELECT COUNT(*) FROM tournaments WHERE state = 'running'",
            [],
            |r| r.get::<_, i64>(0),
        )
    })
    .unwrap() as usize
}

#[test]
fn fixed_tournaments_survive_a_clean_stop_and_a_kill_one_at_a_time_and_are_cancelled() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // The house bots alone (two), the ladder paused: the tournaments have the machine.
    let mut s = Server::start(&data, &["--deals", "1"]);
    let token = s.organiser.clone().unwrap();
    let org = s.org();
    assert_eq!(
        org.post_json("/api/ladder/pause", &json!({}))
            .unwrap()
            .status,
        200
    );
    // 2 bots at one table: 2 games a deal. 200 games: the tables play some 40 a second here,
    // enough for two restarts of more than 10 games each before the end, while the report's
    // endgame analysis (tens of ms a game in a debug build) stays short.
    let deals = 100;
    let start = |s: &Server| {
        let a = s
            .client(Some(&token))
            .post_json("/api/tournaments", &json!({"games": deals}))
            .unwrap();
        assert_eq!(a.status, 201, "{}", a.json);
        (a.json["id"].as_i64().unwrap(), a.json["state"].clone())
    };
    let (t1, st1) = start(&s);
    let (t2, st2) = start(&s);
    let (t3, st3) = start(&s);
    assert_eq!(
        (st1, st2.clone(), st3),
        (json!("running"), json!("queued"), json!("queued"))
    );
    assert_eq!(tournament(&s, t2)["state"], "queued");
    // A queued one is cancelled at once; a second cancel is refused, naming its state.
    let c = org
        .post_json(&format!("/api/tournaments/{t3}/cancel"), &json!({}))
        .unwrap();
    assert_eq!(c.status, 200, "{}", c.json);
    assert_eq!(tournament(&s, t3)["state"], "cancelled");
    let again = org
        .post_json(&format!("/api/tournaments/{t3}/cancel"), &json!({}))
        .unwrap();
    assert_eq!(again.status, 409, "{}", again.json);
    assert!(
        again.error().contains("is over (cancelled)"),
        "{}",
        again.json
    );
    assert_eq!(
        org.post_json("/api/tournaments/999/cancel", &json!({}))
            .unwrap()
            .status,
        404
    );
    // Anyone else may not cancel.
    assert_eq!(
        s.client(None)
            .post_json(&format!("/api/tournaments/{t2}/cancel"), &json!({}))
            .unwrap()
            .status,
        401
    );

    // Stopped (SIGTERM, then SIGKILL) while the first plays: it is resumed each time, never
    // beside another.
    let mut played = 0;
    for round in 0..2 {
        played = wait_for(
            &format!("tournament {t1} to play more (round {round})"),
            120,
            || {
                let n = tournament(&s, t1)["games_played"].as_u64()?;
                (n > played + 10).then_some(n)
            },
        );
        assert_eq!(tournament(&s, t1)["state"], "running");
        if round == 0 {
            s.stop();
        } else {
            s.kill();
        }
        assert_eq!(running(&data), 1, "it stays running, to be resumed");
        s = Server::start(&data, &["--deals", "1"]);
        assert!(
            tournament(&s, t1)["games_played"].as_u64().unwrap() >= played,
            "no game of it is lost"
        );
        assert_eq!(tournament(&s, t2)["state"], "queued", "{:?}", states(&s));
    }
    let done = wait_for(&format!("tournament {t1} to end"), 300, || {
        assert!(running(&data) <= 1, "one at a time: {:?}", states(&s));
        let v = tournament(&s, t1);
        (v["state"] != "running" && v["state"] != "queued").then_some(v)
    });
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["games_played"], 2 * deals, "every game once: {done}");
    assert!(done["report"].is_string(), "its report is written: {done}");
    // The queued one takes its turn; cancelled while it plays, it stops with its games kept.
    wait_for(&format!("tournament {t2} to play"), 120, || {
        (tournament(&s, t2)["games_played"].as_u64()? > 0).then_some(())
    });
    let c = s
        .client(Some(&token))
        .post_json(&format!("/api/tournaments/{t2}/cancel"), &json!({}))
        .unwrap();
    assert_eq!(c.status, 200, "{}", c.json);
    let over = wait_for(&format!("tournament {t2} to stop"), 60, || {
        let v = tournament(&s, t2);
        (v["state"] != "running" && v["state"] != "queued").then_some(v)
    });
    assert_eq!(over["state"], "cancelled", "{over}");
    let kept = over["games_played"].as_u64().unwrap();
    assert!(kept > 0 && kept < 2 * deals, "{over}");
    // A finished one cannot be cancelled; and a restart resumes nothing.
    let c = s
        .client(Some(&token))
        .post_json(&format!("/api/tournaments/{t1}/cancel"), &json!({}))
        .unwrap();
    assert_eq!(c.status, 409, "{}", c.json);
    s.stop();
    let s = Server::start(&data, &["--deals", "1"]);
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert_eq!(
        states(&s),
        vec![
            (t3, "cancelled".to_string()),
            (t2, "cancelled".to_string()),
            (t1, "done".to_string())
        ]
    );
    assert_eq!(tournament(&s, t2)["games_played"].as_u64().unwrap(), kept);
}

/// A backup taken while the ladder plays is a data directory that serves every game it holds,
/// each replay verifying, and the original goes on.
#[test]
fn a_backup_taken_while_the_ladder_plays_serves_every_game_it_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let flags = ["--concurrency", "2", "--deals", "2"];
    let mut s = Server::start(&data, &flags);
    let token = s.author("ada");
    let bot = common::server::sh_bot(tmp.path(), "shy", "", None);
    let bytes = durak_service::archive::pack(&bot).unwrap();
    assert_eq!(s.upload(&token, &bytes).status, 201);
    assert_eq!(s.checked("shy", 1)["state"], "active");
    wait_for("30 games", 120, || (s.games() >= 30).then_some(()));
    let out_dir = tmp.path().join("backup");
    let out = durak(&["backup", "--data-dir", path(&data), "--out", path(&out_dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let said = common::text(&out.stderr);
    assert!(
        said.contains("games,") && said.contains("files linked"),
        "{said}"
    );
    // The original plays on.
    let at_backup = Db::open(&out_dir.join("service.db"))
        .unwrap()
        .read(|c| c.query_row("SELECT COUNT(*) FROM games", [], |r| r.get::<_, i64>(0)))
        .unwrap() as u64;
    assert!(at_backup >= 30, "{at_backup}");
    wait_for("more games after the backup", 120, || {
        (s.games() > at_backup + 4).then_some(())
    });
    // A second backup into the same folder is refused: nothing is written over.
    let again = durak(&["backup", "--data-dir", path(&data), "--out", path(&out_dir)]);
    assert_eq!(again.status.code(), Some(2));
    assert!(common::text(&again.stderr).contains("not an empty folder"));

    // The backup serves (the server's own tables off: what it holds stays as it is).
    let mut b = Server::start(&out_dir, &[&flags[..], &["--no-local-play"]].concat());
    assert_eq!(b.games(), at_backup, "{}", b.log());
    let org = b.client(Some(s.organiser.as_deref().unwrap()));
    assert_eq!(
        org.get("/api/me").unwrap().status,
        200,
        "the accounts came along"
    );
    let games: Vec<(i64, i64)> = Db::open(&out_dir.join("service.db"))
        .unwrap()
        .read(|c| {
            let mut st = c.prepare("SELECT job, game FROM games")?;
            let r = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            r.collect()
        })
        .unwrap();
    assert_eq!(games.len() as u64, at_backup);
    for (job, game) in &games {
        let (status, bytes, _) = org
            .get_bytes(
                &format!("/api/games/{job}/{game}/replay"),
                "content-type",
                64 << 20,
            )
            .unwrap();
        assert_eq!(status, 200, "job {job} game {game}");
        let r = durak_replay::parse_replay(&bytes, &format!("j{job} g{game}")).unwrap();
        let sim = durak_replay::simulate(&r);
        assert!(
            sim.verified(),
            "job {job} game {game}: {:?}",
            sim.divergence
        );
    }
    // The author's version came along with its folder, and is in the backup's ladder.
    let v = b.get("/api/bots/shy/versions/1").json;
    assert_eq!(v["state"], "active", "{v}");
    let folder: String = Db::open(&out_dir.join("service.db"))
        .unwrap()
        .read(|c| {
            c.query_row(
                "SELECT folder FROM versions WHERE archive IS NOT NULL",
                [],
                |r| r.get(0),
            )
        })
        .unwrap();
    assert!(
        Path::new(&folder).starts_with(std::fs::canonicalize(&out_dir).unwrap())
            && Path::new(&folder).join("bot.sh").is_file(),
        "{folder}"
    );
    b.stop();
    s.stop();
}

fn ladder_bots(s: &Server) -> Vec<String> {
    s.get("/api/leaderboard").json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["bot"].as_str().unwrap().to_string())
        .collect()
}

/// Restarts apply a changed house bot list and time limits in full: a house bot dropped leaves
/// the ladder (back when listed again), and the leaderboard says since when the limits hold.
#[test]
fn a_restart_applies_house_bots_and_time_limits_in_full_and_says_since_when() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let both = [
        "--deals",
        "1",
        "--house-bots",
        "builtin:greedy,builtin:random",
    ];
    let mut s = Server::start(&data, &[&both[..], &["--seed", "7"]].concat());
    wait_for("a game", 120, || (s.games() >= 1).then_some(()));
    let lb = s.get("/api/leaderboard").json;
    let since = lb["limits"]["since"].as_i64().unwrap();
    assert_eq!(lb["limits"]["move_ms"], 1000, "{lb}");
    s.stop();
    // Another seed is refused, naming both.
    let out = durak(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--sandbox",
        "default",
        "--seed",
        "8",
        "--deals",
        "1",
        "--data-dir",
        path(&data),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let e = common::text(&out.stderr);
    assert!(
        e.contains("seed = 7") && e.contains("gives 8") && e.contains("fix:"),
        "{e}"
    );
    // The same settings: nothing changes, not even since when.
    let mut s = Server::start(&data, &both);
    assert_eq!(s.get("/api/leaderboard").json["limits"]["since"], since);
    s.stop();
    let one = [
        "--deals",
        "1",
        "--house-bots",
        "builtin:greedy",
        "--move-time-ms",
        "2000",
    ];
    let mut s = Server::start(&data, &one);
    let lb = s.get("/api/leaderboard").json;
    assert_eq!(lb["limits"]["move_ms"], 2000, "{lb}");
    assert!(lb["limits"]["since"].as_i64().unwrap() > since, "{lb}");
    assert!(
        !ladder_bots(&s).contains(&"house-random".to_string()),
        "{lb}"
    );
    let v = s.get("/api/bots/house-random/versions/1").json;
    assert_eq!(v["state"], "removed", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("house_bots"), "{v}");
    s.stop();
    let s = Server::start(&data, &both);
    assert_eq!(
        s.get("/api/bots/house-random/versions/1").json["state"],
        "active",
        "listed again, it is back"
    );
    wait_for("house-random back on the leaderboard", 60, || {
        ladder_bots(&s)
            .contains(&"house-random".to_string())
            .then_some(())
    });
}

/// `--log-format json`: a JSON object a line, each request's answer with its status, time and
/// span (method, path).
#[test]
fn requests_are_logged_as_json_lines_with_their_span() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("err");
    let mut child = Command::new(common::DURAK)
        .args(["--log-format", "json", "serve", "--listen", "127.0.0.1:0"])
        .args(["--sandbox", "default", "--house-bots", "none", "--data-dir"])
        .arg(tmp.path().join("data"))
        .env("DURAK_LOG", "info")
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let url = wait_for("the address", 60, || {
        let t = std::fs::read_to_string(&log).ok()?;
        let rest = t.split("listening on ").nth(1)?;
        Some(rest.split('/').take(3).collect::<Vec<_>>().join("/"))
    });
    let c = durak_service::client::Client::new(&url, None);
    assert_eq!(c.get("/api/status").unwrap().status, 200);
    assert_eq!(c.get("/api/bots/nobody").unwrap().status, 404);
    let lines: Vec<Value> = wait_for("the answers' log lines", 30, || {
        let t = std::fs::read_to_string(&log).ok()?;
        let v: Vec<Value> = t
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["fields"]["status"].is_number())
            .collect();
        (v.len() >= 2).then_some(v)
    });
    let _ = child.kill();
    let _ = child.wait();
    let of = |uri: &str| {
        lines
            .iter()
            .find(|v| v["span"]["uri"] == uri)
            .unwrap_or_else(|| panic!("{uri}: {lines:?}"))
            .clone()
    };
    let ok = of("/api/status");
    assert_eq!(ok["fields"]["status"], 200, "{ok}");
    assert_eq!(ok["span"]["method"], "GET", "{ok}");
    assert!(
        ok["fields"]["latency"].is_string() && ok["timestamp"].is_string(),
        "{ok}"
    );
    assert_eq!(of("/api/bots/nobody")["fields"]["status"], 404);
}
