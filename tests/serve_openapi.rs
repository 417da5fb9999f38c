//! Issue 24: the answers of the routes that were answered with JSON built by hand (tokens
//! revoked, the ladder paused, fixed tournaments, challenges, Play my bot, the workers' leases,
//! worker tokens), from a real server on loopback, validate against the schemas the OpenAPI
//! document derives from their types, and name no field those schemas do not.
//! `tests/serve.rs` checks the read-only answers the same way.

mod common;

use common::openapi::check;
use common::server::{sh_bot, wait_for, Server};
use serde_json::{json, Value};

#[test]
fn the_organisers_and_authors_answers_are_those_the_document_describes() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &[]);
    let doc = s.get("/api/openapi.json").json;
    let org = s.org();
    let token = s.author("ada");
    let ada = s.client(Some(&token));

    // An author's token, revoked.
    let t = ada
        .post_json("/api/tokens", &json!({"label": "spare"}))
        .unwrap();
    assert_eq!(t.status, 201, "{}", t.json);
    let id = t.json["id"].as_i64().unwrap();
    let a = ada.delete(&format!("/api/tokens/{id}")).unwrap();
    assert_eq!(
        check(&doc, "delete", "/api/tokens/{id}", &a, 200)["revoked"],
        id
    );

    // The ladder paused and resumed.
    let a = org.post_json("/api/ladder/pause", &json!({})).unwrap();
    assert_eq!(
        check(&doc, "post", "/api/ladder/pause", &a, 200)["paused"],
        true
    );
    let a = org.post_json("/api/ladder/resume", &json!({})).unwrap();
    assert_eq!(
        check(&doc, "post", "/api/ladder/resume", &a, 200)["paused"],
        false
    );

    tournaments(&s, &doc);
    worker_tokens(&s, &doc);

    // A challenge, made and played.
    let bot = sh_bot(tmp.path(), "alpha", "", None);
    let up = s.upload(&token, &durak_service::archive::pack(&bot).unwrap());
    assert_eq!(up.status, 201, "{}", up.json);
    assert_eq!(s.checked("alpha", 1)["state"], "active", "{}", s.log());
    let body = json!({"bot": "alpha", "opponent": "house-greedy", "deals": 1});
    let a = ada.post_json("/api/challenges", &body).unwrap();
    let id = check(&doc, "post", "/api/challenges", &a, 201)["id"].clone();
    let path = format!("/api/challenges/{id}");
    let queued = s.get(&path);
    check(&doc, "get", "/api/challenges/{id}", &queued, 200);
    let done = wait_for("the challenge's games", 180, || {
        let a = s.get(&path);
        (a.json["state"] == "done").then_some(a)
    });
    let c = check(&doc, "get", "/api/challenges/{id}", &done, 200);
    assert_eq!(c["game_list"].as_array().map(Vec::len), Some(2), "{c}");

    play(&doc, &ada);
}

/// Fixed tournaments: one played to its end, one running and one queued behind it, both
/// cancelled; each answer, and the list.
fn tournaments(s: &Server, doc: &Value) {
    let org = s.org();
    let start = |games: u32| {
        let a = org
            .post_json("/api/tournaments", &json!({"games": games}))
            .unwrap();
        check(doc, "post", "/api/tournaments", &a, 201)
    };
    let view = |id: &Value| {
        let a = s.get(&format!("/api/tournaments/{id}"));
        check(doc, "get", "/api/tournaments/{id}", &a, 200)
    };
    let short = start(1);
    let done = wait_for("the short tournament's end", 120, || {
        let t = view(&short["id"]);
        (t["state"] == "done").then_some(t)
    });
    assert!(done["standings"].is_object(), "{done}");
    let running = start(10_000);
    let queued = start(10_000);
    assert_eq!(queued["state"], "queued", "{queued}");
    for t in [&queued, &running] {
        let a = org
            .post_json(&format!("/api/tournaments/{}/cancel", t["id"]), &json!({}))
            .unwrap();
        let c = check(doc, "post", "/api/tournaments/{id}/cancel", &a, 200);
        assert_eq!(c["cancelled"], true, "{c}");
        view(&t["id"]);
    }
    let list = check(
        doc,
        "get",
        "/api/tournaments",
        &s.get("/api/tournaments"),
        200,
    );
    assert_eq!(
        list["tournaments"].as_array().map(Vec::len),
        Some(3),
        "{list}"
    );
}

/// The organiser's worker tokens: listed, revoked.
fn worker_tokens(s: &Server, doc: &Value) {
    let org = s.org();
    let a = org
        .post_json("/api/worker-tokens", &json!({"label": "w"}))
        .unwrap();
    assert_eq!(a.status, 201, "{}", a.json);
    let id = a.json["id"].as_i64().unwrap();
    let list = org.get("/api/worker-tokens").unwrap();
    let list = check(doc, "get", "/api/worker-tokens", &list, 200);
    assert_eq!(list["worker_tokens"][0]["label"], "w", "{list}");
    let a = org.delete(&format!("/api/worker-tokens/{id}")).unwrap();
    assert_eq!(
        check(doc, "delete", "/api/worker-tokens/{id}", &a, 200)["revoked"],
        id
    );
}

/// Play my bot: a game started, its state, a move.
fn play(doc: &Value, ada: &durak_service::client::Client) {
    let a = ada
        .post_json("/api/play", &json!({"bot": "house-greedy"}))
        .unwrap();
    let id = check(doc, "post", "/api/play", &a, 201)["id"].clone();
    let path = format!("/api/play/{id}");
    let mine = wait_for("the person's first decision", 60, || {
        let a = ada.get(&path).unwrap();
        check(doc, "get", "/api/play/{id}", &a, 200);
        (a.json["state"] == "your_move").then_some(a.json)
    });
    assert!(mine["observation"].is_object(), "{mine}");
    let a = ada
        .post_json(&format!("{path}/move"), &json!({"choice": 1}))
        .unwrap();
    let after = check(doc, "post", "/api/play/{id}/move", &a, 200);
    assert!(!after["log"].as_array().unwrap().is_empty(), "{after}");
}

#[test]
fn the_workers_lease_answers_are_those_the_document_describes() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(
        &tmp.path().join("data"),
        &["--no-local-play", "--deals", "1"],
    );
    let doc = s.get("/api/openapi.json").json;
    let a = s
        .org()
        .post_json("/api/worker-tokens", &json!({"label": "w"}))
        .unwrap();
    assert_eq!(a.status, 201, "{}", a.json);
    let w = s.client(a.json["token"].as_str());
    let claim = || {
        let a = wait_for("a job to claim", 60, || {
            let a = w.post_json("/api/worker/claim", &json!({})).unwrap();
            (!a.json["job"].is_null()).then_some(a)
        });
        check(&doc, "post", "/api/worker/claim", &a, 200)
    };
    let c = claim();
    let job = &c["job"]["id"];
    let lease = json!({"lease": c["lease"]});
    let a = w
        .post_json(&format!("/api/worker/jobs/{job}/renew"), &lease)
        .unwrap();
    let renewed = check(&doc, "post", "/api/worker/jobs/{job}/renew", &a, 200);
    assert_eq!(renewed["job"], *job, "{renewed}");
    let a = w
        .post_json(&format!("/api/worker/jobs/{job}/release"), &lease)
        .unwrap();
    let released = check(&doc, "post", "/api/worker/jobs/{job}/release", &a, 200);
    assert_eq!(released, json!({"job": job, "released": true}));
    // Released again, saying it could not be prepared.
    let c = claim();
    let job = &c["job"]["id"];
    let failed = json!({"lease": c["lease"], "failed": {"version": null, "reason": "disk full"}});
    let a = w
        .post_json(&format!("/api/worker/jobs/{job}/release"), &failed)
        .unwrap();
    let released = check(&doc, "post", "/api/worker/jobs/{job}/release", &a, 200);
    assert_eq!(released["released"], true, "{released}");
    // The ladder paused: no job to claim.
    let a = s.org().post_json("/api/ladder/pause", &json!({})).unwrap();
    assert_eq!(a.status, 200, "{}", a.json);
    let a = w.post_json("/api/worker/claim", &json!({})).unwrap();
    let none = check(&doc, "post", "/api/worker/claim", &a, 200);
    assert_eq!(none, json!({"job": null, "retry_ms": 1000}));
}
