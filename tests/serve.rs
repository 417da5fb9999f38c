//! Issue 14: `durak serve` against a real server on loopback (`common/server.rs`): accounts and
//! tokens, a submission by `durak submit --server` with its build and check, the ladder
//! playing it, its pages and their JSON, the organiser's controls, suspension of a bot that
//! keeps faulting, and the OpenAPI document. The bots are `sh` scripts (no interpreter needed).
//! The ladder runs in the strict sandbox where bubblewrap works, else in the default one (these
//! tests are about the service; `serve_hostile.rs` tests the sandboxed builds).

mod common;

use common::openapi;
use common::server::{sh_bot, stray_replays, wait_for, Server};
use common::text;
use serde_json::{json, Value};
use std::process::Command;

fn rows(s: &Server) -> Vec<Value> {
    s.get("/api/leaderboard").json["rows"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn an_author_submits_a_bot_it_is_built_checked_and_plays_on_the_ladder() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &[]);
    let org = s
        .organiser
        .clone()
        .expect("the first start prints the organiser's token");
    assert!(
        s.log().contains("listening on http://127.0.0.1:"),
        "{}",
        s.log()
    );
    let st = s.get("/api/status").json;
    assert_eq!(st["registration"], "invite");
    assert_eq!(st["active_versions"], 2, "the two house bots: {st}");

    // Accounts: only with an invite here; an invite makes one account.
    let open = s
        .client(None)
        .post_json("/api/accounts", &json!({"name": "eve"}))
        .unwrap();
    assert_eq!(open.status, 403, "{}", open.json);
    assert!(open.error().contains("invite"), "{}", open.error());
    let token = s.author("ada");
    let other = s.author("bob");
    let me = s.client(Some(&token)).get("/api/me").unwrap();
    assert_eq!(me.json["account"]["name"], "ada");
    let not_org = s
        .client(Some(&token))
        .post_json("/api/invites", &json!({}))
        .unwrap();
    assert_eq!(not_org.status, 403, "an author issues no invites");
    let anon = s
        .client(None)
        .post_bytes("/api/submit", "application/gzip", b"x")
        .unwrap();
    assert_eq!(anon.status, 401, "{}", anon.json);

    // A bot with a build, submitted from the command line.
    let bot = sh_bot(
        tmp.path(),
        "alpha",
        "",
        Some("echo compiling; cp bot.sh built.sh"),
    );
    let out = s.submit_cli(&token, &bot);
    let (o, e) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{o}\n{e}\n{}", s.log());
    assert!(
        e.contains("PASSED: alpha version 1 is in the ladder"),
        "{e}"
    );
    assert!(
        o.contains("compiling"),
        "the build's output is printed: {o}"
    );
    let v = s.checked("alpha", 1);
    assert_eq!(v["state"], "active", "{v}");
    assert_eq!(v["build"]["ok"], true);
    assert_eq!(v["build"]["output"], "compiling\n");
    assert!(v["report_text"].as_str().unwrap().contains("PASSED"), "{v}");
    // The report shows its author paths relative to the bot, not where the server keeps it.
    let report_text = v["report_text"].as_str().unwrap();
    assert!(
        report_text.contains("working directory: ./ (the bot's folder)"),
        "{report_text}"
    );
    let data = s.data.display().to_string();
    assert!(!v.to_string().contains(&data), "{data} in {v}");
    assert!(v["timing"].as_array().is_some_and(|t| !t.is_empty()), "{v}");
    let folder = s.data.join("bots").join(format!("v{}", v["id"]));
    assert!(
        folder.join("built.sh").is_file(),
        "the build ran in the version's folder"
    );

    // It plays: games recorded, a row on the leaderboard.
    let played = wait_for("alpha's first games", 120, || {
        let v = s.get("/api/bots/alpha/versions/1").json;
        (v["games"].as_u64()? >= 4).then_some(v)
    });
    let (entered, first) = (
        played["entered"].as_i64().unwrap(),
        played["first_game"].as_i64().unwrap(),
    );
    assert!(first >= entered, "{played}");
    eprintln!(
        "alpha v1: first game recorded {} ms after it passed its check",
        first - entered
    );
    let row = wait_for("alpha on the leaderboard with games", 60, || {
        rows(&s)
            .into_iter()
            .find(|r| r["bot"] == "alpha" && r["games"].as_u64() > Some(0))
    });
    assert_eq!(row["author"], "ada");
    assert!(
        row["rank_label"].is_string() && row["elo_ci95"].is_array(),
        "{row}"
    );

    // A game: JSON, replay, page.
    let g = &played["latest_games"][0];
    let (job, game) = (g["job"].as_i64().unwrap(), g["game"].as_u64().unwrap());
    let gv = s.get(&format!("/api/games/{job}/{game}")).json;
    assert!(
        gv["labels"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l == "alpha v1"),
        "{gv}"
    );
    let replay = s.get(&format!("/api/games/{job}/{game}/replay"));
    assert_eq!(replay.status, 200);
    let first_line = replay.json["text"]
        .as_str()
        .unwrap_or("")
        .lines()
        .next()
        .unwrap_or("");
    assert!(first_line.contains("\"type\":\"header\""), "{first_line}");
    let page = s.get(&format!("/games/{job}/{game}"));
    assert_eq!(page.status, 200);
    let html = page.json["text"].as_str().unwrap();
    assert!(
        html.contains("id=\"replay-data\""),
        "the replay viewer: {html}"
    );
    assert!(html.contains("✓ verified"), "the page verifies the replay");
    // Replays are stored compressed (issue 16: a few KB a game, not tens), and read back.
    let db = durak_service::db::Db::open(&s.data.join("service.db")).unwrap();
    let stored: Vec<(i64, u32)> = db
        .read(|c| {
            let mut st = c.prepare("SELECT job, game FROM games")?;
            let r = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            r.collect()
        })
        .unwrap();
    assert!(!stored.is_empty());
    let mut bytes = 0;
    for &(j, g) in &stored {
        // In the database, not a file per game (issue 23).
        let (name, raw) = common::server::stored_replay(&s.data, j, g);
        assert_eq!(name, format!("db:replays/j{j}/g{g:04}.jsonl.zst"));
        assert!(
            raw.starts_with(&durak_referee::replay::ZSTD_MAGIC),
            "{name}"
        );
        bytes += raw.len();
        let lines = durak_referee::replay::decode_replay_bytes(raw).unwrap();
        let r = durak_replay::parse_replay(&lines, &name).unwrap();
        assert!(durak_replay::simulate(&r).verified(), "{name} verifies");
    }
    assert!(
        common::server::stray_replays(&s.data).is_empty(),
        "no replay file is written"
    );
    let per_game = bytes / stored.len();
    eprintln!(
        "{} replays, {per_game} bytes a game on average",
        stored.len()
    );
    assert!(per_game < 5 * 1024, "{per_game} bytes a game");
    let (_, raw) = common::server::stored_replay(&s.data, job, game as u32);
    assert_eq!(
        replay.json["text"].as_str().unwrap().as_bytes(),
        durak_referee::replay::decode_replay_bytes(raw).unwrap(),
        "/api/games/J/G/replay serves the lines, decompressed"
    );
    // Its files (the viewer's script and styles) are served.
    let assets: Vec<&str> = html
        .split("\"/assets/")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert!(assets.len() >= 3, "{assets:?}");
    for a in assets {
        assert_eq!(s.get(&format!("/assets/{a}")).status, 200, "{a}");
    }
    for p in [
        "/",
        "/bots/alpha",
        "/bots/alpha/versions/1",
        "/login",
        "/register",
    ] {
        let a = s.get(p);
        assert_eq!(a.status, 200, "{p}: {}", a.json);
    }
    let vp = s.get("/bots/alpha/versions/1").json["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        vp.contains("compiling") && vp.contains("check-bot report"),
        "{vp}"
    );
    assert!(s.get("/bots/nobody").status == 404);

    // Only its author changes a bot.
    let theirs = sh_bot(&tmp.path().join("b"), "alpha", "", None);
    let out = s.submit_cli(&other, &theirs);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("belongs to another author"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        s.get("/api/bots/alpha").json["versions"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // A new version retires the old one once it passes.
    let out = s.submit_cli(&token, &bot);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let old = s.get("/api/bots/alpha/versions/1").json;
    assert_eq!(old["state"], "retired", "{old}");
    assert!(old["reason"]
        .as_str()
        .unwrap()
        .contains("replaced by version 2"));
    wait_for("the leaderboard without v1", 30, || {
        let r = rows(&s);
        (r.iter().any(|r| r["bot"] == "alpha" && r["version"] == 2)
            && !r.iter().any(|r| r["bot"] == "alpha" && r["version"] == 1))
        .then_some(())
    });

    // A failing bot: its page says why, it does not enter the ladder.
    let bad = sh_bot(tmp.path(), "broken", "echo not json; exit 3", None);
    let out = s.submit_cli(&token, &bad);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let v = s.checked("broken", 1);
    assert_eq!(v["state"], "failed");
    assert!(
        v["reason"].as_str().unwrap().starts_with("check-bot:"),
        "{v}"
    );
    assert!(!rows(&s).iter().any(|r| r["bot"] == "broken"));
    let mine = s.client(Some(&token)).get("/api/me").unwrap().json;
    assert_eq!(mine["versions"].as_array().unwrap().len(), 3, "{mine}");
    let _ = org;
}

#[test]
fn a_bot_whose_build_fails_is_refused_with_its_output() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &["--house-bots", "none"]);
    let token = s.author("ada");
    let bot = sh_bot(
        tmp.path(),
        "nobuild",
        "",
        Some("echo 'error: no compiler'; exit 7"),
    );
    let out = s.submit_cli(&token, &bot);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("error: no compiler"),
        "{}",
        text(&out.stdout)
    );
    let v = s.checked("nobuild", 1);
    assert_eq!(v["state"], "failed");
    assert_eq!(v["reason"], "the build failed: exited with code 7", "{v}");
    assert!(v["report"].is_null(), "no check after a failed build");
}

#[test]
fn the_organiser_pauses_resumes_disqualifies_and_runs_a_tournament() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &["--registration", "open"]);
    let org = s.org();
    // Open registration: no invite needed.
    let a = s
        .client(None)
        .post_json("/api/accounts", &json!({"name": "cy"}))
        .unwrap();
    assert_eq!(a.status, 201, "{}", a.json);
    let token = a.json["token"].as_str().unwrap().to_string();
    let author = s.client(Some(&token));
    assert_eq!(
        author
            .post_json("/api/ladder/pause", &json!({}))
            .unwrap()
            .status,
        403
    );

    wait_for("the house bots' first games", 60, || {
        (s.games() >= 4).then_some(())
    });
    let p = org.post_json("/api/ladder/pause", &json!({})).unwrap();
    assert_eq!(p.status, 200, "{}", p.json);
    // The table finishes its job, then nothing more is played.
    let settled = wait_for("the ladder to settle after the pause", 60, || {
        let st = s.get("/api/status").json;
        let n = st["games"].as_u64()?;
        std::thread::sleep(std::time::Duration::from_millis(1500));
        (s.games() == n).then_some(n)
    });
    assert_eq!(s.get("/api/status").json["paused"], true);
    assert!(s.get("/api/leaderboard").json["paused"] == true);
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert_eq!(s.games(), settled, "no game while paused");
    org.post_json("/api/ladder/resume", &json!({})).unwrap();
    wait_for("games after the resume", 60, || {
        (s.games() > settled).then_some(())
    });

    // Disqualify a house bot: out of the leaderboard, its jobs cancelled.
    let d = org
        .post_json(
            "/api/bots/house-random/versions/1/disqualify",
            &json!({"reason": "testing"}),
        )
        .unwrap();
    assert_eq!(d.status, 200, "{}", d.json);
    assert_eq!(d.json["state"], "disqualified");
    assert_eq!(d.json["reason"], "testing");
    assert!(!rows(&s).iter().any(|r| r["bot"] == "house-random"));
    let v = s.get("/api/bots/house-random/versions/1").json;
    assert_eq!(v["state"], "disqualified");
    let nf = org
        .post_json("/api/bots/nobody/versions/1/remove", &json!({}))
        .unwrap();
    assert_eq!(nf.status, 404);

    // A tournament needs two bots: one of the author's joins.
    let bot = sh_bot(tmp.path(), "tbot", "", None);
    assert_eq!(s.submit_cli(&token, &bot).status.code(), Some(0));
    let t = org
        .post_json("/api/tournaments", &json!({"games": 2}))
        .unwrap();
    assert_eq!(t.status, 201, "{}", t.json);
    let id = t.json["id"].as_i64().unwrap();
    let again = org
        .post_json("/api/tournaments", &json!({"games": 2}))
        .unwrap();
    assert!(again.status == 409 || again.status == 201, "{}", again.json);
    let done = wait_for("the tournament to end", 120, || {
        let v = s.get(&format!("/api/tournaments/{id}")).json;
        // (queued, then running: one at a time)
        matches!(v["state"].as_str(), Some("done" | "failed" | "cancelled")).then_some(v)
    });
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["games_played"], 4, "2 deals at both seatings: {done}");
    let names: Vec<String> = done["standings"]["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["bot"].as_str().unwrap().to_string())
        .collect();
    assert!(
        names.contains(&"tbot-v1".to_string()) && names.contains(&"house-greedy".into()),
        "{names:?}"
    );
    assert_eq!(s.get(&format!("/tournaments/{id}")).status, 200);

    // Remove the author's bot.
    let r = org
        .post_json("/api/bots/tbot/versions/1/remove", &json!({}))
        .unwrap();
    assert_eq!(r.json["state"], "removed");
    assert!(!rows(&s).iter().any(|r| r["bot"] == "tbot"));
}

#[test]
fn a_bot_that_keeps_faulting_is_suspended() {
    let tmp = tempfile::tempdir().unwrap();
    let flag = tmp.path().join("misbehave");
    let data = tmp.path().join("data");
    // A stray file an older server left (a game never recorded) is removed on the first start.
    let stray = data.join("replays/j999/r0-g0000.jsonl");
    std::fs::create_dir_all(stray.parent().unwrap()).unwrap();
    std::fs::write(&stray, "{}\n").unwrap();
    let mut s = Server::start(
        &data,
        // The default sandbox: the bot sees the flag file the test creates.
        &["--sandbox", "default", "--house-bots", "builtin:greedy"],
    );
    assert!(!stray.exists(), "swept on the first start");
    let token = s.author("ada");
    // Plays well until the flag exists, then answers nonsense to every request.
    let bot = common::server::flaky_bot(tmp.path(), "flaky", &flag);
    assert_eq!(s.submit_cli(&token, &bot).status.code(), Some(0));
    wait_for("flaky's first games", 60, || {
        (s.get("/api/bots/flaky/versions/1").json["games"].as_u64()? > 0).then_some(())
    });
    std::fs::write(&flag, "").unwrap();
    let v = wait_for("flaky to be suspended", 120, || {
        let v = s.get("/api/bots/flaky/versions/1").json;
        (v["state"] == "suspended").then_some(v)
    });
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("faulted in 3 games in a row"), "{reason}");
    assert!(
        !v["faults"].as_array().unwrap().is_empty(),
        "its faulted games are listed: {v}"
    );
    wait_for("flaky off the leaderboard", 30, || {
        (!rows(&s).iter().any(|r| r["bot"] == "flaky")).then_some(())
    });
    // Its jobs were cancelled mid-play: their unrecorded games left no replay file.
    s.stop();
    assert_eq!(stray_replays(&data), Vec::<std::path::PathBuf>::new());
}

#[test]
fn the_openapi_document_describes_every_route() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &[]);
    let doc = s.get("/api/openapi.json").json;
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.len() >= 15);
    // Every described GET without a parameter answers (not 404/405); the event stream never
    // ends, and is read in tests/serve_pages.rs.
    for (p, ops) in paths {
        let stream = ops["get"]["responses"]["200"]["content"]
            .get("text/event-stream")
            .is_some();
        if ops.get("get").is_some() && !p.contains('{') && !stream {
            let a = s.get(p);
            assert!(a.status == 200 || a.status == 401, "{p}: {}", a.status);
        }
    }
    // Real answers validate against the schemas the document gives them (derived from the
    // types: issue 24), and name no field the schema does not.
    let version = "/api/bots/house-greedy/versions/1";
    wait_for("house-greedy's first games", 60, || {
        (s.get(version).json["games"].as_u64()? > 0).then_some(())
    });
    for (path, template) in [
        ("/api/status", "/api/status"),
        ("/api/leaderboard", "/api/leaderboard"),
        ("/api/bots/house-greedy", "/api/bots/{bot}"),
        (version, "/api/bots/{bot}/versions/{n}"),
        (
            "/api/bots/house-greedy/versions/1/games",
            "/api/bots/{bot}/versions/{n}/games",
        ),
        ("/api/seasons", "/api/seasons"),
        ("/api/seasons/1", "/api/seasons/{n}"),
    ] {
        let answer = s.get(path);
        assert_eq!(answer.status, 200, "{path}");
        let schema = &doc["paths"][template]["get"]["responses"]["200"]["content"]
            ["application/json"]["schema"];
        assert_ne!(
            schema["$ref"], "#/components/schemas/Object",
            "{template} has its own schema"
        );
        let errors = openapi::schema_errors(&doc, schema, &answer.json);
        assert!(errors.is_empty(), "{path}: {errors:?}\n{}", answer.json);
        let described = openapi::properties(&doc, schema);
        for key in answer.json.as_object().unwrap().keys() {
            assert!(
                described.contains(key),
                "{path}: {key} is not in its schema"
            );
        }
    }
    // A game's answer too.
    let g = &s.get(version).json["latest_games"][0];
    let game = s.get(&format!("/api/games/{}/{}", g["job"], g["game"]));
    let schema = &doc["paths"]["/api/games/{job}/{game}"]["get"]["responses"]["200"]["content"]
        ["application/json"]["schema"];
    let errors = openapi::schema_errors(&doc, schema, &game.json);
    assert!(errors.is_empty(), "{errors:?}\n{}", game.json);
}

/// docs/SERVICE.md's organiser commands work as written: `curl -d '{...}'` sends the JSON as
/// `application/x-www-form-urlencoded` (and `-H 'Content-Type:'` sends no type at all); the
/// API takes a JSON body whatever its type says.
#[test]
fn the_documented_organiser_commands_work_as_written() {
    let Some(curl) = common::system::require("curl", "curl") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &[]);
    let token = s.author("ada");
    for name in ["alpha", "beta"] {
        let bot = sh_bot(tmp.path(), name, "", None);
        let a = s.upload(&token, &durak_service::archive::pack(&bot).unwrap());
        assert_eq!(a.status, 201, "{}", a.json);
        assert_eq!(s.checked(name, 1)["state"], "active");
    }
    let doc = include_str!("../docs/SERVICE.md");
    let block = doc
        .split("## The organiser")
        .nth(1)
        .and_then(|r| r.split("```sh\n").nth(1))
        .and_then(|r| r.split("```").next())
        .unwrap();
    let mut lines: Vec<String> = block
        .lines()
        .filter(|l| l.starts_with("curl "))
        .map(|l| {
            let bot = if l.contains("/remove") {
                "beta"
            } else {
                "alpha"
            };
            // (the tournament the line before starts is the first)
            l.replace("/BOT/versions/N/", &format!("/{bot}/versions/1/"))
                .replace("/api/tournaments/ID/", "/api/tournaments/1/")
        })
        .collect();
    assert!(lines.len() >= 7, "{block}");
    assert!(
        lines.iter().any(|l| l.contains("-d '{\"reason\"")),
        "{block}"
    );
    // And with no Content-Type at all.
    lines.push(
        r#"curl -X POST -H "$AUTH" -H 'Content-Type:' -d '{"label":"none"}' $URL/api/worker-tokens"#
            .into(),
    );
    let org = s.organiser.clone().unwrap();
    for line in &lines {
        // The line as documented, curl told to print only the status.
        let cmd = line.replacen("curl ", "curl -sS -o /dev/null -w '%{http_code}' ", 1);
        let out = Command::new("sh")
            .args(["-c", &cmd])
            .env("AUTH", format!("Authorization: Bearer {org}"))
            .env("URL", &s.url)
            .env("PATH", curl.parent().unwrap())
            .output()
            .unwrap();
        let status = text(&out.stdout);
        assert!(
            status.starts_with('2'),
            "{line}: HTTP {status} {}",
            text(&out.stderr)
        );
    }
    let v = s.get("/api/bots/alpha/versions/1").json;
    assert_eq!(v["state"], "disqualified", "{v}");
    assert_eq!(v["reason"], "copied bot", "the body was read: {v}");
    let beta = s.get("/api/bots/beta/versions/1").json;
    assert_eq!(beta["state"], "removed", "{beta}");
    let tokens = s.org().get("/api/worker-tokens").unwrap().json;
    let labels: Vec<&str> = tokens["worker_tokens"]
        .as_array()
        .unwrap_or_else(|| panic!("{tokens}"))
        .iter()
        .filter_map(|t| t["label"].as_str())
        .collect();
    assert_eq!(labels, ["rack-1", "none"], "{tokens}");
    // Not JSON, or JSON of another shape: refused, saying so.
    let a = s
        .org()
        .post_bytes("/api/worker-tokens", "text/plain", b"label=x")
        .unwrap();
    assert_eq!(a.status, 400, "{}", a.json);
    assert!(
        a.error().contains("not the JSON this route takes"),
        "{}",
        a.json
    );
    let a = s
        .org()
        .post_bytes("/api/worker-tokens", "application/json", b"{\"label\":3}")
        .unwrap();
    assert_eq!(a.status, 422, "{}", a.json);
}

/// Issue 23: a table plays every rotation of a job, and the jobs after it among the same
/// versions, over the same bot processes (each in one seat, the dealer moved round the table),
/// and the games are the jobs' games: every replay verifies, and each rotation's game gives
/// every version the hand it gets at that rotation's own seating.
#[test]
fn a_table_keeps_its_bots_across_rotations_and_jobs_and_its_replays_verify() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut s = Server::start(
        &data,
        &[
            "--sandbox",
            "default",
            "--house-bots",
            "builtin:greedy,builtin:random",
        ],
    );
    wait_for("40 games", 120, || (s.games() >= 40).then_some(()));
    s.stop();
    let db = durak_service::db::Db::open(&data.join("service.db")).unwrap();
    let games: Vec<(i64, u32, i64, String, String, i64)> = db
        .read(|c| {
            let mut q = c.prepare(
                "SELECT g.job, g.game, g.dealer, g.seats, j.deals, g.rotation FROM games g \
                 JOIN jobs j ON j.id = g.job ORDER BY g.job, g.game",
            )?;
            let r = q.query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })?;
            r.collect()
        })
        .unwrap();
    let replays: Vec<String> = db
        .read(|c| {
            let mut q = c.prepare("SELECT replay FROM games ORDER BY job, game")?;
            let r = q.query_map([], |r| r.get(0))?;
            r.collect()
        })
        .unwrap();
    assert!(games.len() >= 40, "{}", games.len());
    let jobs: std::collections::HashSet<i64> = games.iter().map(|g| g.0).collect();
    let mut started = 0;
    for ((job, game, dealer, seats, deals, rotation), path) in games.iter().zip(&replays) {
        let bytes = durak_service::store::replays::lines(&db, &data, *job, *game, path).unwrap();
        let parsed = durak_replay::parse_replay(&bytes, path).unwrap();
        let sim = durak_replay::simulate(&parsed);
        assert!(sim.divergence.is_none(), "{path}: {:?}", sim.divergence);
        let h = &parsed.header;
        assert_eq!(h.dealer as i64, *dealer, "{path}");
        // Two seats: seated as the job's rotation `at`, its dealer moved by rotation - at.
        let seats: Vec<i64> = serde_json::from_str(seats).unwrap();
        let deals: Value = serde_json::from_str(deals).unwrap();
        let deal = *game as usize % deals.as_array().unwrap().len();
        let own = deals[deal]["dealer"].as_i64().unwrap();
        let job_seats: Vec<i64> = db
            .read(|c| {
                c.query_row("SELECT seats FROM jobs WHERE id = ?1", [job], |r| {
                    r.get::<_, String>(0)
                })
            })
            .map(|t| serde_json::from_str(&t).unwrap())
            .unwrap();
        let at = if seats == job_seats { 0 } else { 1 };
        assert_eq!(*dealer, (own + rotation + 2 - at) % 2, "{path}");
        let first = String::from_utf8(bytes).unwrap();
        let header: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
        started += (0..2)
            .filter(|&seat| header["seats"][seat]["hello"] == true)
            .count();
    }
    // One process a seat a match (`MATCH_GAMES` at most), where each rotation's match used to
    // start both again.
    assert!(
        started <= 2 * (games.len() / durak_service::ladder::executor::MATCH_GAMES + 2),
        "{started} processes started for {} games of {} jobs",
        games.len(),
        jobs.len()
    );
}

/// With more versions than seats, each matchmaking pick is a run of jobs among the same
/// versions (`RUN_GAMES`), and a table claims its own versions' jobs first: a table's bots are
/// started once a run, not once a job (issue 23: a ladder of five versions started two bots
/// every 4 games).
#[test]
fn with_more_versions_than_seats_a_table_plays_runs_of_jobs_over_the_same_bots() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut s = Server::start(
        &data,
        &[
            "--sandbox",
            "default",
            "--house-bots",
            "builtin:greedy,builtin:random",
        ],
    );
    let token = s.author("ada");
    let bot = sh_bot(tmp.path(), "third", "", None);
    assert_eq!(s.submit_cli(&token, &bot).status.code(), Some(0));
    let id = wait_for("the third version's games", 120, || {
        let v = s.get("/api/bots/third/versions/1").json;
        (v["games"].as_u64()? > 0).then(|| v["id"].as_i64())?
    });
    let from = s.games();
    wait_for("120 games more", 180, || {
        (s.games() >= from + 120).then_some(())
    });
    s.stop();
    let db = durak_service::db::Db::open(&data.join("service.db")).unwrap();
    // The ladder's jobs from the third version's first: runs of RUN_GAMES / 4 jobs a pick.
    let ladder_jobs: Vec<(i64, String)> = db
        .read(|c| {
            let mut q = c.prepare(
                "SELECT id, seats FROM jobs WHERE kind = 'ladder' AND id >= (SELECT MIN(job) \
                 FROM game_seats WHERE version = ?1) ORDER BY id",
            )?;
            let r = q.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?;
            r.collect()
        })
        .unwrap();
    let first_job = ladder_jobs[0].0;
    let seats: Vec<String> = ladder_jobs.into_iter().map(|j| j.1).collect();
    let run = durak_service::ladder::RUN_GAMES / 4;
    assert!(seats.len() >= run, "{} jobs", seats.len());
    for chunk in seats.chunks(run).filter(|c| c.len() == run) {
        assert!(
            chunk.iter().all(|s| s == &chunk[0]),
            "a run is one set of versions: {chunk:?}"
        );
    }
    // Processes started (a seat's hello in a game's replay) against the games played.
    let (started, games, jobs) = common::server::processes_started(&data, first_job);
    assert!(
        started * 4 <= jobs * 2,
        "{started} processes started for {games} games of {jobs} jobs"
    );
}
