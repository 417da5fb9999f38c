//! Issue 25, the author's loop on `durak serve`: "is my new version better?" — a version that
//! passes its check plays the bot's previous version on paired deals under an SPRT, and the
//! verdict is on its JSON (`previous`), its page and in `durak submit`'s output; with
//! `[compare] require_not_worse` a worse version does not replace the old one.
//!
//! The bots are the tests' sh bot; the "weak" one exits at once when its hello announces a
//! match of 13 games — the comparison's matches here (`deals_per_job = 13`), never the check's
//! nor the ladder's — so it loses every game of the comparison and none elsewhere. The SPRT is
//! set wide (H1 at 200 Elo) so that it decides in a few deals.

mod common;

use common::server::{sh_bot, wait_for, Server};
use common::{text, DURAK};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn submit_cli(s: &Server, token: &str, path: &Path) -> std::process::Output {
    Command::new(DURAK)
        .args([
            "submit", "--server", &s.url, "--token", token, "--wait-s", "240",
        ])
        .arg(path)
        .output()
        .expect("durak submit runs")
}

/// The sh bot, or (`weak`) the one that leaves the comparison's matches at once.
fn bot(root: &Path, weak: bool) -> PathBuf {
    let dir = sh_bot(root, "alpha", "", None);
    if weak {
        let script = std::fs::read_to_string(dir.join("bot.sh")).unwrap();
        let script = script.replacen(
            "read -r line\n",
            "read -r line\ncase \"$line\" in *'\"games\":13,'*) exit 0;; esac\n",
            1,
        );
        std::fs::write(dir.join("bot.sh"), script).unwrap();
    }
    dir
}

fn server(tmp: &Path, require: bool) -> Server {
    let config = tmp.join("serve.toml");
    std::fs::write(
        &config,
        format!(
            "[compare]\nelo0 = 0\nelo1 = 200\ndeals_per_job = 13\nmax_games = 260\n\
             require_not_worse = {require}\n"
        ),
    )
    .unwrap();
    Server::start(
        &tmp.join("data"),
        &["--house-bots", "none", "--config", config.to_str().unwrap()],
    )
}

fn version(s: &Server, n: i64) -> Value {
    s.get(&format!("/api/bots/alpha/versions/{n}")).json
}

#[test]
fn a_worse_version_does_not_replace_the_old_one_when_the_organiser_requires_it() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path(), true);
    let token = s.author("ada");
    let out = submit_cli(&s, &token, &bot(&tmp.path().join("v1"), false));
    assert!(out.status.success(), "{}\n{}", text(&out.stderr), s.log());
    assert!(
        version(&s, 1)["previous"].is_null(),
        "a first version has nothing to be compared with"
    );

    let out = submit_cli(&s, &token, &bot(&tmp.path().join("v2"), true));
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{e}\n{}", s.log());
    assert!(e.contains("now plays its previous version"), "{e}");
    assert!(e.contains("comparison against version 1: worse"), "{e}");
    assert!(
        e.contains("FAILED: alpha version 2: worse than version 1"),
        "{e}"
    );

    let v2 = version(&s, 2);
    assert_eq!(v2["state"], "failed", "{v2}");
    let p = &v2["previous"];
    assert_eq!(p["version"], 1, "{p}");
    assert_eq!(
        (&p["state"], &p["verdict"]),
        (&"done".into(), &"worse".into())
    );
    let (games, deals) = (p["games"].as_u64().unwrap(), p["deals"].as_u64().unwrap());
    assert!(
        deals >= 1 && games >= 2 * deals,
        "paired: whole deals counted: {p}"
    );
    assert!(
        p["llr"].as_f64().unwrap() <= p["llr_bounds"][0].as_f64().unwrap(),
        "the test accepted H0: {p}"
    );
    assert_eq!(p["score"], 0.0, "{p}");
    assert_eq!(version(&s, 1)["state"], "active", "the old version stays");

    let page = s.get("/bots/alpha/versions/2").json["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        page.contains("Against") && page.contains(">worse<"),
        "{page}"
    );
    // Unrated: the comparison's games are on no leaderboard.
    let lb = s.get("/api/leaderboard").json;
    assert_eq!(lb["games"], 0, "{lb}");
}

#[test]
fn a_better_version_is_told_so_after_it_entered_the_ladder() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path(), false);
    let token = s.author("ada");
    let out = submit_cli(&s, &token, &bot(&tmp.path().join("v1"), true));
    assert!(out.status.success(), "{}\n{}", text(&out.stderr), s.log());

    let out = submit_cli(&s, &token, &bot(&tmp.path().join("v2"), false));
    let e = text(&out.stderr);
    assert!(out.status.success(), "{e}\n{}", s.log());
    assert!(
        e.contains("PASSED: alpha version 2 is in the ladder"),
        "{e}"
    );
    assert!(e.contains("comparison against version 1: "), "{e}");
    assert_eq!(version(&s, 1)["state"], "retired");

    let p = wait_for("the comparison's verdict", 180, || {
        let v = version(&s, 2);
        (v["previous"]["state"] == "done").then(|| v["previous"].clone())
    });
    assert_eq!(p["verdict"], "better", "{p}\n{}", s.log());
    assert_eq!(p["score"], 1.0, "{p}");
    assert!(
        p["llr"].as_f64().unwrap() >= p["llr_bounds"][1].as_f64().unwrap(),
        "{p}"
    );
    assert!(p["elo_ci95"][0].as_f64().is_none_or(|low| low > 0.0), "{p}");
    // Once decided, nothing more is played for it.
    let db = durak_service::db::Db::open(&s.data.join("service.db")).unwrap();
    let open: i64 = db
        .read(|c| {
            c.query_row(
                "SELECT COUNT(*) FROM jobs WHERE kind = 'compare' AND state IN ('queued', \
                 'claimed')",
                [],
                |r| r.get(0),
            )
        })
        .unwrap();
    assert_eq!(open, 0);
    assert_eq!(version(&s, 2)["state"], "active");
}
