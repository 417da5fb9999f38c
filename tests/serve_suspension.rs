//! Issue 24: a version in its build or check when the organiser suspends its author (or takes
//! the version itself out) does not enter the ladder when its check passes afterwards: it
//! becomes `suspended` with the account's reason (or stays `disqualified`), and plays no game.

mod common;

use common::server::{sh_bot, wait_for, Browser, Server};
use serde_json::{json, Value};
use std::path::Path;

/// A bot whose build takes a few seconds (time for the organiser to act meanwhile).
fn slow_build(root: &Path, name: &str) -> Vec<u8> {
    let dir = sh_bot(root, name, "", Some("sleep 4"));
    durak_service::archive::pack(&dir).unwrap()
}

fn version(s: &Server, bot: &str) -> Value {
    s.get(&format!("/api/bots/{bot}/versions/1")).json
}

/// The version's JSON once it is building.
fn building(s: &Server, bot: &str) {
    wait_for(&format!("{bot}'s build to start"), 60, || {
        (version(s, bot)["state"] == "building").then_some(())
    });
}

/// The version's JSON once its check is over (it wrote when).
fn check_over(s: &Server, bot: &str) -> Value {
    wait_for(&format!("{bot}'s check to end"), 180, || {
        let v = version(s, bot);
        (!v["checked"].is_null()).then_some(v)
    })
}

fn on_leaderboard(s: &Server, bot: &str) -> bool {
    let rows = s.get("/api/leaderboard").json["rows"].clone();
    rows.as_array().unwrap().iter().any(|r| r["bot"] == bot)
}

#[test]
fn a_version_checked_after_its_author_was_suspended_stays_out_of_the_ladder() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("serve.toml");
    std::fs::write(&config, "[limits]\nauth_burst = 100000\n").unwrap();
    // The default sandbox: the build's `sleep` needs nothing else.
    let s = Server::start(
        &tmp.path().join("data"),
        &["--sandbox", "default", "--config", config.to_str().unwrap()],
    );
    let org = s.organiser.clone().unwrap();
    let ada = s.author("ada");
    let ada_id = s.client(Some(&ada)).get("/api/me").unwrap().json["account"]["id"]
        .as_i64()
        .unwrap();

    // Suspended from the organiser's page while ada's version builds.
    let up = s.upload(&ada, &slow_build(tmp.path(), "slow"));
    assert_eq!(up.status, 201, "{}", up.json);
    building(&s, "slow");
    let mut b = Browser::open(&s);
    b.login(&org);
    let (st, head, body) = b.post(
        "/organiser/authors",
        &format!("/organiser/authors/{ada_id}/suspend"),
        "reason=copied+a+bot",
    );
    assert_eq!(st, 303, "{head}{body}");
    let v = check_over(&s, "slow");
    assert_eq!(v["state"], "suspended", "{} {}", v["state"], v["reason"]);
    let reason = v["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("suspended by the organiser") && reason.contains("copied a bot"),
        "{} {}",
        v["state"],
        v["reason"]
    );
    assert!(!on_leaderboard(&s, "slow"));
    // Still out a while later, no game played.
    std::thread::sleep(std::time::Duration::from_secs(2));
    let v = version(&s, "slow");
    assert_eq!(v["state"], "suspended", "{} {}", v["state"], v["reason"]);
    assert_eq!(v["games"], 0, "{} {}", v["state"], v["reason"]);

    // A version disqualified while it builds stays disqualified when its check passes.
    let bob = s.author("bob");
    let up = s.upload(&bob, &slow_build(tmp.path(), "slower"));
    assert_eq!(up.status, 201, "{}", up.json);
    building(&s, "slower");
    let r = s
        .org()
        .post_json(
            "/api/bots/slower/versions/1/disqualify",
            &json!({"reason": "not allowed"}),
        )
        .unwrap();
    assert_eq!(r.status, 200, "{}", r.json);
    let v = check_over(&s, "slower");
    assert_eq!(v["state"], "disqualified", "{} {}", v["state"], v["reason"]);
    assert_eq!(v["reason"], "not allowed", "{} {}", v["state"], v["reason"]);
    assert!(!on_leaderboard(&s, "slower"));
}
