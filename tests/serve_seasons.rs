//! Issue 24, seasons: one ended by `durak season end` on the server's machine, by the
//! organiser's API, by its deadline and by the organiser's button: submissions closed until its
//! final tournament is over, its standings kept, the next season starting fresh. (The rest of
//! running a judge for weeks: `serve_ops.rs`.)

mod common;

use common::server::{path, wait_for, Server};
use serde_json::{json, Value};

fn durak(args: &[&str]) -> std::process::Output {
    common::durak(args, std::path::Path::new("."))
}

fn season(s: &Server, n: i64) -> Value {
    let a = s.get(&format!("/api/seasons/{n}"));
    assert_eq!(a.status, 200, "{}", a.json);
    a.json
}

/// The final tournament of season `n` once it is over.
fn final_over(s: &Server, n: i64) -> Value {
    wait_for(
        &format!("season {n}'s final tournament to end"),
        120,
        || {
            let f = season(s, n)["final_tournament"].clone();
            (f["state"] == "done").then_some(f)
        },
    )
}

/// `durak season end` on the server's machine: refused while the server runs (naming the
/// button and the API), it ends the season of the stopped server as the API does (its
/// leaderboard kept, the final tournament queued and played at the next start); given again
/// with `--season 1` it is refused, naming the current season.
#[test]
fn durak_season_end_ends_the_season_of_a_stopped_server_once() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let conf = tmp.path().join("serve.toml");
    std::fs::write(
        &conf,
        format!(
            "data_dir = {:?}\n[ladder]\ndeals = 1\n[sandbox]\nmode = {:?}\n[season]\n\
             final_games = 1\n",
            path(&data),
            common::server::sandbox()
        ),
    )
    .unwrap();
    let mut s = Server::start(&data, &["--config", path(&conf)]);
    wait_for("season 1's first ladder games", 60, || {
        (s.get("/api/leaderboard").json["games"].as_u64()? >= 2).then_some(())
    });
    let running = durak(&["season", "end", "--config", path(&conf)]);
    assert_eq!(running.status.code(), Some(2));
    let e = common::text(&running.stderr);
    assert!(
        e.contains("the server is running")
            && e.contains("durak season end --server URL")
            && e.contains("/api/seasons/end"),
        "{e}"
    );
    s.pause_and_settle();
    let before = s.get("/api/leaderboard").json;
    s.stop();

    let out = durak(&["season", "end", "--config", path(&conf), "--season", "1"]);
    says_ended(&out, 1);
    // Again: season 1 is over, and season 2 is not ended by mistake.
    let again = durak(&["season", "end", "--config", path(&conf), "--season", "1"]);
    assert_eq!(again.status.code(), Some(2));
    let e = common::text(&again.stderr);
    assert!(
        e.contains("season 1 ended") && e.contains("the current season is 2") && e.contains("fix:"),
        "{e}"
    );

    let s = Server::start(&data, &["--config", path(&conf)]);
    let one = season(&s, 1);
    assert_eq!(one["ended_by"], "organiser", "{one}");
    assert_eq!(one["leaderboard"]["games"], before["games"], "{one}");
    assert_eq!(one["leaderboard"]["rows"], before["rows"], "{one}");
    assert_eq!(s.get("/api/seasons").json["current"], 2);
    // The next start plays the final tournament.
    let f = final_over(&s, 1);
    assert!(f["standings"].is_object(), "{f}");
}

/// A season ended by the organiser's API: submissions close (409 naming the season) until its
/// final tournament is over, its leaderboard is kept, its final standings are on /seasons/1,
/// and season 2's leaderboard starts with fresh ratings.
#[test]
fn a_season_ended_by_the_api_closes_submissions_keeps_its_standings_and_starts_fresh() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let conf = tmp.path().join("serve.toml");
    std::fs::write(&conf, "[season]\nfinal_games = 1\n").unwrap();
    // The house bots alone (two): the ladder plays them, the final tournament seats them.
    let s = Server::start(&data, &["--deals", "1", "--config", path(&conf)]);
    let token = s.author("ada");
    wait_for("season 1's first ladder games", 60, || {
        (s.get("/api/leaderboard").json["games"].as_u64()? >= 4).then_some(())
    });
    s.pause_and_settle();
    let before = s.get("/api/leaderboard").json;
    assert_eq!(before["season"], 1, "{before}");
    // A long tournament first: the final one queues behind it, so submissions stay closed.
    let org = s.org();
    let long = org
        .post_json("/api/tournaments", &json!({"games": 5000}))
        .unwrap();
    assert_eq!(long.status, 201, "{}", long.json);
    let refused = s
        .client(Some(&token))
        .post_json("/api/seasons/end", &json!({}))
        .unwrap();
    assert_eq!(refused.status, 403, "an author: {}", refused.json);
    let ended = org.post_json("/api/seasons/end", &json!({})).unwrap();
    assert_eq!(ended.status, 200, "{}", ended.json);
    let e = &ended.json;
    assert_eq!(
        (e["n"].as_i64(), e["ended_by"].as_str()),
        (Some(1), Some("organiser"))
    );
    assert_eq!(e["final_tournament"]["state"], "queued", "{e}");
    // Its leaderboard as it stood, kept.
    assert_eq!(e["leaderboard"]["games"], before["games"], "{e}");
    assert_eq!(e["leaderboard"]["rows"], before["rows"], "{e}");

    // Submissions are closed, the refusal naming the season.
    let bot = common::server::sh_bot(tmp.path(), "late", "", None);
    let out = s.submit_cli(&token, &bot);
    assert_ne!(out.status.code(), Some(0));
    let err = common::text(&out.stderr);
    assert!(
        err.contains("season 1 ended") && err.contains("closed"),
        "{err}"
    );
    let list = s.get("/api/seasons").json;
    assert_eq!(list["current"], 2, "{list}");
    assert!(list["submissions_closed"].is_string(), "{list}");

    // Season 2: fresh ratings (no game yet, nobody rated) while the ladder is paused; its
    // games count once it plays.
    let fresh = s.get("/api/leaderboard").json;
    assert_eq!(
        (fresh["season"].as_i64(), fresh["games"].as_u64()),
        (Some(2), Some(0))
    );
    assert!(
        fresh["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["elo"].is_null() && r["games"] == 0),
        "{fresh}"
    );
    assert_eq!(
        org.post_json("/api/ladder/resume", &json!({}))
            .unwrap()
            .status,
        200
    );
    wait_for("season 2's own ladder games", 60, || {
        let lb = s.get("/api/leaderboard").json;
        (lb["season"] == 2 && lb["games"].as_u64()? > 0).then_some(())
    });
    // Season 1's games stay readable.
    let r = &before["rows"][0];
    let v = s.get(&format!(
        "/api/bots/{}/versions/{}",
        r["bot"].as_str().unwrap(),
        r["version"]
    ));
    assert_eq!(v.status, 200, "{}", v.json);
    assert!(v.json["games"].as_u64().unwrap() > 0, "{}", v.json);

    // The long tournament cancelled, the final one plays; then submissions open again.
    let id = long.json["id"].as_i64().unwrap();
    let c = org
        .post_json(&format!("/api/tournaments/{id}/cancel"), &json!({}))
        .unwrap();
    assert_eq!(c.status, 200, "{}", c.json);
    let f = final_over(&s, 1);
    assert_eq!(f["games_played"], 2, "1 deal at 2 rotations: {f}");
    let standings = f["standings"]["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 2, "{f}");
    assert!(s.get("/api/seasons").json["submissions_closed"].is_null());
    let (st, _, page) = common::server::raw_request(&s.url, "GET", "/seasons/1", "", "");
    assert_eq!(st, 200, "{page}");
    assert!(page.contains("id=\"final-standings\""), "{page}");
    for r in standings {
        let bot = r["bot"].as_str().unwrap();
        assert!(
            page.contains(&format!("data-bot=\"{bot}\"")),
            "{bot}: {page}"
        );
    }
    assert!(page.contains("id=\"season-leaderboard\""), "{page}");
    assert!(page.contains("/tournaments/"), "{page}");
}

/// `[season] ends` a second ahead ends season 1 by itself; then the organiser's button (a
/// form with its CSRF token, refused without it) ends season 2.
#[test]
fn a_season_ends_at_its_deadline_and_by_the_organisers_button() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let conf = tmp.path().join("serve.toml");
    let ends = durak_service::season::rfc3339(durak_service::db::now_ms() + 1000);
    std::fs::write(
        &conf,
        format!("[season]\nends = \"{ends}\"\nfinal_games = 1\n"),
    )
    .unwrap();
    let s = Server::start(&data, &["--deals", "1", "--config", path(&conf)]);
    let one = wait_for("the deadline to end season 1", 60, || {
        let x = season(&s, 1);
        x["ended"].is_i64().then_some(x)
    });
    assert_eq!(one["ended_by"], "deadline", "{one}");
    // The deadline's end runs beside this test: the season is marked ended a moment before
    // its open jobs are cancelled and the leaderboard is the next season's.
    wait_for("the leaderboard of season 2", 10, || {
        (s.get("/api/leaderboard").json["season"] == 2).then_some(())
    });
    final_over(&s, 1);

    // The button on /organiser.
    let org = s.organiser.clone().unwrap();
    let mut b = common::server::Browser::open(&s);
    b.login(&org);
    let (st, _, page) = b.get("/organiser");
    assert_eq!(st, 200);
    assert!(page.contains("End season 2 now"), "{page}");
    let origin = format!("Origin: {}\r\nSec-Fetch-Site: same-origin\r\n", s.url);
    let (st, _, _) = b.post_with("/organiser/season/end", None, "", &origin);
    assert_eq!(st, 403, "without its CSRF token");
    assert!(season(&s, 2)["ended"].is_null());
    let (st, head, _) = b.post("/organiser", "/organiser/season/end", "");
    assert_eq!(st, 303, "{head}");
    assert!(head.contains("/seasons/2"), "{head}");
    let two = season(&s, 2);
    assert_eq!(two["ended_by"], "organiser", "{two}");
    assert_eq!(s.get("/api/leaderboard").json["season"], 3);
    // A deadline ends one season: season 3 goes on.
    assert!(season(&s, 3)["ended"].is_null());

    // `durak season end --server`: a season that is not the current one is refused, naming
    // the current one (the command given twice ends one season); the current one is ended by
    // the running server.
    let end = |n: &str| {
        durak(&[
            "season", "end", "--server", &s.url, "--token", &org, "--season", n,
        ])
    };
    let twice = end("2");
    assert_eq!(twice.status.code(), Some(2));
    let e = common::text(&twice.stderr);
    assert!(
        e.contains("409") && e.contains("season 2 ended") && e.contains("the current season is 3"),
        "{e}"
    );
    assert!(season(&s, 3)["ended"].is_null());
    let out = end("3");
    says_ended(&out, 3);
    assert_eq!(season(&s, 3)["ended_by"], "organiser");
    assert_eq!(s.get("/api/leaderboard").json["season"], 4);
}

/// `durak season end` ended season `n`: exit 0, "season N ended; season N+1 started", and a
/// line on its final tournament.
fn says_ended(out: &std::process::Output, n: u32) {
    let (stdout, stderr) = (common::text(&out.stdout), common::text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let line = format!("season {n} ended; season {} started", n + 1);
    assert!(stdout.contains(&line), "{stdout}");
    assert!(stderr.contains("final tournament"), "{stderr}");
}
