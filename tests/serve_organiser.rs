//! Issue 24: the organiser's pages (`/organiser/...`) and the author's own forms on `/me`
//! (revoke a token, withdraw a version). Over HTTP, each form: refused without its CSRF token
//! (403, saying to reload the page), refused to another account (403) and to no login (401),
//! and doing what it says when the organiser (or the author) sends it; then the same pages in
//! headless Chromium, as the organiser uses them, every page without a problem logged
//! (screenshots in `target/tmp/serve_organiser/`).

mod common;

use common::cdp::Page;
use common::server::{raw_request, sh_bot, wait_for, Browser, Server};
use serde_json::json;
use std::path::{Path, PathBuf};

/// A server without house bots (nothing plays), with a generous attempt limit (these tests
/// log in many times from 127.0.0.1).
fn quiet(tmp: &Path) -> Server {
    let config = tmp.join("serve.toml");
    std::fs::write(&config, "[limits]\nauth_burst = 100000\n").unwrap();
    Server::start(
        &tmp.join("data"),
        &["--house-bots", "none", "--config", config.to_str().unwrap()],
    )
}

/// A browser logged in with `token` through the login form.
fn logged_in(s: &Server, token: &str) -> Browser {
    let mut b = Browser::open(s);
    let (st, head, _) = b.login(token);
    assert_eq!(st, 303, "{head}");
    b
}

/// Every organiser form: (path, fields).
const FORMS: &[(&str, &str)] = &[
    ("/organiser/ladder/pause", ""),
    ("/organiser/ladder/resume", ""),
    ("/organiser/invites", ""),
    ("/organiser/invites/1/revoke", ""),
    ("/organiser/authors/2/suspend", "reason=spam"),
    ("/organiser/authors/2/reinstate", ""),
    (
        "/organiser/bots/x/versions/1/out",
        "reason=no&action=disqualify",
    ),
    ("/organiser/tournaments", "games=1"),
    ("/organiser/tournaments/1/cancel", ""),
    ("/organiser/workers", "label=rack"),
    ("/organiser/workers/1/revoke", ""),
];

const PAGES: &[&str] = &[
    "/organiser",
    "/organiser/invites",
    "/organiser/authors",
    "/organiser/bots",
    "/organiser/tournaments",
    "/organiser/workers",
];

/// Each organiser page and form: 401 without a login, 403 for an author (with the form's right
/// token), 403 for the organiser's login without the token or with another browser's; nothing
/// changed by any of them. The author's own forms on /me want their token too.
#[test]
fn organiser_pages_and_forms_are_the_organisers_and_want_their_csrf_token() {
    let tmp = tempfile::tempdir().unwrap();
    let s = quiet(tmp.path());
    let ada = s.author("ada");
    let org = s.organiser.clone().unwrap();
    let author = logged_in(&s, &ada);
    let organiser = logged_in(&s, &org);
    let anonymous = Browser::open(&s);
    for page in PAGES {
        assert_eq!(anonymous.get(page).0, 401, "{page} without a login");
        let (st, _, body) = author.get(page);
        assert_eq!(st, 403, "{page} for an author: {body}");
        assert!(body.contains("only the organiser"), "{body}");
        let (st, _, body) = organiser.get(page);
        assert_eq!(st, 200, "{page} for the organiser: {body}");
        assert!(body.contains("id=\"organiser-nav\""), "{page}: {body}");
    }
    let origin = format!("Origin: {}\r\nSec-Fetch-Site: same-origin\r\n", s.url);
    for (path, fields) in FORMS {
        let (st, _, body) = author.post("/me", path, fields);
        assert_eq!(st, 403, "{path} by an author: {body}");
        assert!(body.contains("only the organiser"), "{path}: {body}");
        let (st, _, body) = anonymous.post("/login", path, fields);
        assert_eq!(st, 401, "{path} without a login: {body}");
        let (st, _, body) = organiser.post_with(path, None, fields, &origin);
        assert_eq!(st, 403, "{path} without its token: {body}");
        assert!(body.contains("reload the page"), "{path}: {body}");
        let other = author.token("/me");
        let (st, _, body) = organiser.post_with(path, Some(&other), fields, &origin);
        assert_eq!(st, 403, "{path} with another browser's token: {body}");
        assert!(body.contains("reload the page"), "{path}: {body}");
    }
    assert_eq!(
        s.get("/api/status").json["paused"],
        false,
        "nothing paused the ladder"
    );
    assert!(
        organiser
            .get("/organiser/invites")
            .2
            .matches("data-invite=")
            .count()
            == 1,
        "no invite made but ada's"
    );
    let api_me = |t: &str| s.client(Some(t)).get("/api/me").unwrap().status;
    assert_eq!(api_me(&ada), 200, "nothing suspended ada");
    let w = s.org().get("/api/worker-tokens").unwrap();
    assert_eq!(w.json["worker_tokens"], json!([]), "no worker token issued");
    // The author's own forms.
    for path in ["/me/tokens/1/revoke", "/me/bots/x/versions/1/withdraw"] {
        let (st, _, body) = author.post_with(path, None, "", &origin);
        assert_eq!(st, 403, "{path} without its token: {body}");
        let (st, _, _) = anonymous.post("/login", path, "");
        assert_eq!(st, 401, "{path} without a login");
    }
    assert_eq!(api_me(&ada), 200, "ada's token still opens her account");
}

/// The invites, authors, ladder and worker-token forms, each checked through the API after it.
#[test]
fn organiser_forms_do_what_they_say() {
    let tmp = tempfile::tempdir().unwrap();
    let s = quiet(tmp.path());
    let org = s.organiser.clone().unwrap();
    let b = logged_in(&s, &org);

    // An invite, shown once: it makes one account.
    let (st, _, body) = b.post("/organiser/invites", "/organiser/invites", "");
    assert_eq!(st, 200, "{body}");
    let invite = token_in(&body, "invite");
    let register = |name: &str, invite: &str| {
        s.client(None)
            .post_json("/api/accounts", &json!({"name": name, "invite": invite}))
            .unwrap()
    };
    let ada = register("ada", &invite);
    assert_eq!(ada.status, 201, "{}", ada.json);
    let ada_token = ada.json["token"].as_str().unwrap().to_string();
    // Another, revoked before use: it makes none.
    let (_, _, body) = b.post("/organiser/invites", "/organiser/invites", "");
    let unused = token_in(&body, "invite");
    let (st, head, body) = b.post("/organiser/invites", "/organiser/invites/2/revoke", "");
    assert_eq!(st, 303, "{head}{body}");
    let r = register("bob", &unused);
    assert_eq!(r.status, 400, "{}", r.json);
    assert!(
        r.json["error"].as_str().unwrap().contains("revoked"),
        "{}",
        r.json
    );
    let (st, _, body) = b.post("/organiser/invites", "/organiser/invites/1/revoke", "");
    assert_eq!(st, 409, "a used invite is not revoked: {body}");
    let (_, _, page) = b.get("/organiser/invites");
    assert!(
        page.contains("used by ada") && page.contains("revoked 20"),
        "{page}"
    );

    // Ada suspended with a reason: her token opens nothing and says why; reinstated, it does.
    let ada_id = s.client(Some(&ada_token)).get("/api/me").unwrap().json["account"]["id"]
        .as_i64()
        .unwrap();
    let suspend = format!("/organiser/authors/{ada_id}/suspend");
    let (st, _, body) = b.post("/organiser/authors", &suspend, "reason=");
    assert_eq!(st, 400, "a suspension needs a reason: {body}");
    let (st, _, _) = b.post("/organiser/authors", &suspend, "reason=copied+a+bot");
    assert_eq!(st, 303);
    let me = s.client(Some(&ada_token)).get("/api/me").unwrap();
    assert_eq!(me.status, 403, "{}", me.json);
    assert!(
        me.json["error"].as_str().unwrap().contains("copied a bot"),
        "{}",
        me.json
    );
    let (_, _, page) = b.get("/organiser/authors");
    assert!(page.contains("copied a bot"), "{page}");
    let reinstate = format!("/organiser/authors/{ada_id}/reinstate");
    assert_eq!(b.post("/organiser/authors", &reinstate, "").0, 303);
    assert_eq!(
        s.client(Some(&ada_token)).get("/api/me").unwrap().status,
        200
    );
    let (st, _, body) = b.post(
        "/organiser/authors",
        "/organiser/authors/1/suspend",
        "reason=x",
    );
    assert_eq!(st, 409, "the organiser's own account: {body}");

    // The ladder: paused and resumed; the settings in force are listed.
    assert_eq!(b.post("/organiser", "/organiser/ladder/pause", "").0, 303);
    assert_eq!(s.get("/api/status").json["paused"], true);
    let (_, _, page) = b.get("/organiser");
    assert!(
        page.contains("Paused") && page.contains("move_ms"),
        "{page}"
    );
    assert_eq!(b.post("/organiser", "/organiser/ladder/resume", "").0, 303);
    assert_eq!(s.get("/api/status").json["paused"], false);

    // A worker token: issued (shown once, it opens the worker routes), listed with its last
    // contact, revoked.
    let (st, _, body) = b.post("/organiser/workers", "/organiser/workers", "label=rack+1");
    assert_eq!(st, 200, "{body}");
    let worker = token_in(&body, "worker-token");
    let claim = s
        .client(Some(&worker))
        .post_json("/api/worker/claim", &json!({}))
        .unwrap();
    assert!(
        claim.status < 300,
        "the worker token opens the worker routes: {}",
        claim.json
    );
    let (_, _, page) = b.get("/organiser/workers");
    assert!(page.contains("rack 1"), "{page}");
    assert!(
        page.contains(" UTC</td><td>valid"),
        "its last contact as a date: {page}"
    );
    assert_eq!(
        b.post("/organiser/workers", "/organiser/workers/1/revoke", "")
            .0,
        303
    );
    let listed = s.org().get("/api/worker-tokens").unwrap().json;
    assert_eq!(listed["worker_tokens"][0]["revoked"], true, "{listed}");
    let (st, _, _) = b.post("/organiser/workers", "/organiser/workers/9/revoke", "");
    assert_eq!(st, 404);
    // `durak worker-token list` says the same with dates, not unix milliseconds.
    let out = std::process::Command::new(common::DURAK)
        .args(["worker-token", "list", "--server", &s.url, "--token", &org])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{listed}");
    let line = listed.lines().next().unwrap_or_default();
    assert!(
        line.starts_with("1\trevoked\track 1\tissued 20") && line.contains("UTC\tlast seen 20"),
        "{listed}"
    );

    // A tournament needs versions in the ladder: refused in words.
    let (st, _, body) = b.post(
        "/organiser/tournaments",
        "/organiser/tournaments",
        "games=1",
    );
    assert_eq!(st, 409, "{body}");
    assert!(body.contains("needs at least"), "{body}");
    let (st, _, body) = b.post(
        "/organiser/tournaments",
        "/organiser/tournaments",
        "games=lots",
    );
    assert_eq!(st, 400, "{body}");
}

fn tournament_state(s: &Server, id: i64) -> String {
    let t = s.get(&format!("/api/tournaments/{id}")).json;
    t["state"].as_str().unwrap_or_default().to_string()
}

/// Fixed tournaments cancelled from their page: a queued one at once, the running one at its
/// tables' next games; one that is over is refused (409), one that does not exist is 404.
#[test]
fn tournaments_are_cancelled_from_the_organisers_page() {
    let tmp = tempfile::tempdir().unwrap();
    // The house bots (two), the ladder paused: the tournaments have the machine.
    let s = Server::start(&tmp.path().join("data"), &["--deals", "1"]);
    let org = s.organiser.clone().unwrap();
    assert_eq!(
        s.org()
            .post_json("/api/ladder/pause", &json!({}))
            .unwrap()
            .status,
        200
    );
    let b = logged_in(&s, &org);
    let page = "/organiser/tournaments";
    // Two long ones: the first plays, the second waits for it.
    for _ in 0..2 {
        let (st, head, body) = b.post(page, page, "games=10000");
        assert_eq!(st, 303, "{head}{body}");
    }
    wait_for("the first tournament to run", 60, || {
        (tournament_state(&s, 1) == "running").then_some(())
    });
    assert_eq!(tournament_state(&s, 2), "queued");
    let (_, _, html) = b.get(page);
    for id in [1, 2] {
        assert!(
            html.contains(&format!("action=\"/organiser/tournaments/{id}/cancel\"")),
            "a Cancel button for {id}: {html}"
        );
    }
    // The queued one: cancelled at once, never played.
    let (st, head, _) = b.post(page, "/organiser/tournaments/2/cancel", "");
    assert_eq!(st, 303, "{head}");
    assert!(
        head.contains("location: /organiser/tournaments")
            || head.contains("Location: /organiser/tournaments"),
        "{head}"
    );
    assert_eq!(tournament_state(&s, 2), "cancelled");
    // The running one: its tables stop; the page says so meanwhile.
    let (st, head, _) = b.post(page, "/organiser/tournaments/1/cancel", "");
    assert_eq!(st, 303, "{head}");
    let (_, _, html) = b.get(page);
    assert!(
        html.contains("cancelling") || tournament_state(&s, 1) == "cancelled",
        "{html}"
    );
    assert!(!html.contains("/organiser/tournaments/2/cancel"), "{html}");
    wait_for("the running tournament to stop", 60, || {
        (tournament_state(&s, 1) == "cancelled").then_some(())
    });
    let (_, _, html) = b.get(page);
    assert!(!html.contains("/cancel\""), "no Cancel button left: {html}");
    // Over: refused in words; none such: 404.
    let (st, _, body) = b.post(page, "/organiser/tournaments/1/cancel", "");
    assert_eq!(st, 409, "{body}");
    assert!(body.contains("is over (cancelled)"), "{body}");
    assert_eq!(b.post(page, "/organiser/tournaments/9/cancel", "").0, 404);
    // The runner is free: a new one plays.
    assert_eq!(b.post(page, page, "games=1").0, 303);
    wait_for("the next tournament to end", 120, || {
        (tournament_state(&s, 3) == "done").then_some(())
    });
}

/// The token a page shows once, in the element `#id`.
fn token_in(html: &str, id: &str) -> String {
    let at = html
        .find(&format!("id=\"{id}\">"))
        .unwrap_or_else(|| panic!("#{id} on the page: {html}"));
    let rest = &html[at + id.len() + 6..];
    let t = rest[..rest.find('<').unwrap()].to_string();
    assert!(t.starts_with("dk_"), "{t}");
    t
}

fn sh_archive(root: &Path, name: &str) -> Vec<u8> {
    let dir = sh_bot(root, name, "", None);
    durak_service::archive::pack(&dir).unwrap()
}

/// Versions out of play: the organiser disqualifies one with a reason (its page says it, the
/// leaderboard drops it); its author withdraws another and revokes a token from /me; another
/// author can withdraw none of them.
#[test]
fn versions_are_taken_out_by_the_organiser_and_withdrawn_by_their_author() {
    let tmp = tempfile::tempdir().unwrap();
    let s = quiet(tmp.path());
    let org = s.organiser.clone().unwrap();
    let ada = s.author("ada");
    let bob = s.author("bob");
    for name in ["alpha", "beta"] {
        let up = s.upload(&ada, &sh_archive(tmp.path(), name));
        assert_eq!(up.status, 201, "{}", up.json);
        // Its bot.toml says author = "Test": the answer says the account's name is shown.
        let note = up.json["author_note"].as_str().unwrap_or_default();
        assert!(
            note.contains("\"Test\"") && note.contains("\"ada\""),
            "{}",
            up.json
        );
    }
    for name in ["alpha", "beta"] {
        let v = s.checked(name, 1);
        assert_eq!(v["state"], "active", "{v}");
    }
    let b = logged_in(&s, &org);
    let out = "/organiser/bots/alpha/versions/1/out";
    let (st, _, body) = b.post("/organiser/bots", out, "reason=&action=disqualify");
    assert_eq!(st, 400, "a reason is needed: {body}");
    let (st, _, body) = b.post("/organiser/bots", out, "reason=x&action=delete");
    assert_eq!(st, 400, "{body}");
    let (st, _, _) = b.post(
        "/organiser/bots",
        out,
        "reason=shared+code&action=disqualify",
    );
    assert_eq!(st, 303);
    let v = s.get("/api/bots/alpha/versions/1").json;
    assert_eq!(v["state"], "disqualified", "{v}");
    assert_eq!(v["reason"], "shared code", "{v}");
    let (st, _, body) = b.post("/organiser/bots", out, "reason=again&action=remove");
    assert_eq!(st, 409, "out already: {body}");
    wait_for("alpha off the leaderboard", 30, || {
        let lb = s.get("/api/leaderboard").json;
        (!lb.to_string().contains("\"alpha\"")).then_some(())
    });

    // Bob cannot withdraw ada's bot; ada can.
    let bob_b = logged_in(&s, &bob);
    let withdraw = "/me/bots/beta/versions/1/withdraw";
    let (st, _, body) = bob_b.post("/me", withdraw, "");
    assert_eq!(st, 404, "{body}");
    assert_eq!(s.get("/api/bots/beta/versions/1").json["state"], "active");
    let ada_b = logged_in(&s, &ada);
    let (_, _, me) = ada_b.get("/me");
    assert!(me.contains(withdraw), "a withdraw button for beta: {me}");
    assert!(
        !me.contains("/me/bots/alpha/versions/1/withdraw"),
        "none for alpha: {me}"
    );
    assert_eq!(ada_b.post("/me", withdraw, "").0, 303);
    let v = s.get("/api/bots/beta/versions/1").json;
    assert_eq!(v["state"], "removed", "{v}");
    assert_eq!(v["reason"], "withdrawn by its author", "{v}");
    let (st, _, _) = ada_b.post("/me", withdraw, "");
    assert_eq!(st, 409, "withdrawn already");

    // Ada revokes her first token on /me: it opens nothing; her login session stays.
    let first = s.client(Some(&ada)).get("/api/me").unwrap().json["tokens"][0]["id"]
        .as_i64()
        .unwrap();
    let (st, _, _) = bob_b.post("/me", &format!("/me/tokens/{first}/revoke"), "");
    assert_eq!(st, 404, "not bob's token");
    assert_eq!(s.client(Some(&ada)).get("/api/me").unwrap().status, 200);
    let (st, _, _) = ada_b.post("/me", &format!("/me/tokens/{first}/revoke"), "");
    assert_eq!(st, 303);
    let r = s.client(Some(&ada)).get("/api/me").unwrap();
    assert_eq!(r.status, 401, "{}", r.json);
    assert!(
        r.json["error"].as_str().unwrap().contains("revoked"),
        "{}",
        r.json
    );
    assert_eq!(ada_b.get("/me").0, 200, "the login session stays");
}

/// The leaderboard says what its games count, and the pages link to the protocol and the guide
/// for bot authors, which the server serves.
#[test]
fn pages_say_what_games_count_and_link_to_the_protocol() {
    let tmp = tempfile::tempdir().unwrap();
    let s = quiet(tmp.path());
    let (st, _, page) = raw_request(&s.url, "GET", "/", "", "");
    assert_eq!(st, 200);
    assert!(
        page.contains("games among the versions on the board"),
        "{page}"
    );
    assert!(
        page.contains("/api/status"),
        "where every game is counted: {page}"
    );
    for doc in [
        "/docs/PROTOCOL.md",
        "/docs/WRITING_A_BOT.md",
        "/docs/STARTER_KITS.md",
    ] {
        assert!(page.contains(&format!("href=\"{doc}\"")), "{doc}: {page}");
        let (st, head, text) = raw_request(&s.url, "GET", doc, "", "");
        assert_eq!(st, 200, "{doc}: {head}");
        assert!(head.contains("text/markdown"), "{head}");
        assert!(text.starts_with("# "), "{doc}: {text}");
    }
    let ada = s.author("ada");
    let (_, _, me) = logged_in(&s, &ada).get("/me");
    assert!(me.contains("href=\"/docs/WRITING_A_BOT.md\""), "{me}");
    for bad in ["/docs/SECURITY.md", "/docs/..%2FCargo.toml"] {
        assert_eq!(raw_request(&s.url, "GET", bad, "", "").0, 404, "{bad}");
    }
}

fn shots() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve_organiser")
}

fn check_clean(p: &mut Page, page: &str) {
    let problems = p.take_problems();
    assert!(problems.is_empty(), "{page}: {problems:#?}");
}

/// Click `selector` and wait until `expr` holds on the page that follows.
fn click(p: &mut Page, selector: &str, what: &str, expr: &str) {
    p.eval(&format!(
        "document.querySelector({}).click(); true",
        serde_json::to_string(selector).unwrap()
    ))
    .unwrap_or_else(|e| panic!("{selector}: {e}"));
    p.wait(
        what,
        60,
        &format!("document.readyState === 'complete' && ({expr}) || null"),
    );
}

/// The organiser in the browser: logs in, goes from /me to the organiser's pages, pauses and
/// resumes the ladder, makes and revokes an invite, suspends and reinstates an author, issues
/// and revokes a worker token, starts a tournament and disqualifies a house bot's version; an
/// author revokes a token on /me. Every page loads without a problem logged.
#[test]
fn the_organiser_runs_the_judge_from_the_browser() {
    let browser = require_chromium!();
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &["--deals", "1"]);
    let url = s.url.clone();
    let org = s.organiser.clone().unwrap();
    let ada = s.author("ada");
    let mut p = Page::open(browser, 1200, 900);

    p.goto(&format!("{url}/login"));
    p.eval(&format!(
        "document.querySelector('#login input[name=token]').value = '{org}'; true"
    ))
    .unwrap();
    click(
        &mut p,
        "#login button[type=submit]",
        "/me",
        "location.pathname === '/me'",
    );
    check_clean(&mut p, "/me");
    click(
        &mut p,
        "#organiser-pages",
        "the ladder's page",
        "location.pathname === '/organiser'",
    );
    p.screenshot(&shots().join("1-ladder.png"));
    check_clean(&mut p, "/organiser");
    click(
        &mut p,
        "form[action='/organiser/ladder/pause'] button",
        "paused",
        "document.querySelector('#ladder-state').textContent.startsWith('Paused')",
    );
    assert_eq!(s.get("/api/status").json["paused"], true);
    click(
        &mut p,
        "form[action='/organiser/ladder/resume'] button",
        "playing",
        "document.querySelector('#ladder-state').textContent.startsWith('Playing')",
    );
    check_clean(&mut p, "/organiser after resume");

    // Invites.
    p.goto(&format!("{url}/organiser/invites"));
    click(
        &mut p,
        "#new-invite button",
        "the invite",
        "document.querySelector('#invite')",
    );
    let invite = p
        .eval("document.querySelector('#invite').textContent")
        .unwrap();
    assert!(invite.as_str().unwrap().starts_with("dk_"), "{invite}");
    check_clean(&mut p, "the new invite");
    p.goto(&format!("{url}/organiser/invites"));
    click(
        &mut p,
        "#invites form[action$='/revoke'] button",
        "the invite revoked",
        "document.querySelector('#invites').textContent.includes('revoked')",
    );
    p.screenshot(&shots().join("2-invites.png"));
    check_clean(&mut p, "/organiser/invites");

    // Authors.
    p.goto(&format!("{url}/organiser/authors"));
    p.eval("document.querySelector('tr[data-author=ada] input[name=reason]').value = 'spam'; true")
        .unwrap();
    click(
        &mut p,
        "tr[data-author=ada] form.suspend button",
        "ada suspended",
        "document.querySelector('tr[data-author=ada]').textContent.includes('suspended')",
    );
    assert_eq!(s.client(Some(&ada)).get("/api/me").unwrap().status, 403);
    p.screenshot(&shots().join("3-authors.png"));
    click(
        &mut p,
        "tr[data-author=ada] form[action$='/reinstate'] button",
        "ada reinstated",
        "!document.querySelector('tr[data-author=ada]').textContent.includes('suspended')",
    );
    assert_eq!(s.client(Some(&ada)).get("/api/me").unwrap().status, 200);
    check_clean(&mut p, "/organiser/authors");

    // Worker tokens.
    p.goto(&format!("{url}/organiser/workers"));
    click(
        &mut p,
        "#new-worker button",
        "the worker token",
        "document.querySelector('#worker-token')",
    );
    check_clean(&mut p, "the new worker token");
    p.goto(&format!("{url}/organiser/workers"));
    assert!(
        p.eval("document.querySelector('#workers').textContent")
            .unwrap()
            .as_str()
            .unwrap()
            .contains("never"),
        "no contact yet"
    );
    click(
        &mut p,
        "#workers form[action$='/revoke'] button",
        "the worker token revoked",
        "document.querySelector('#workers').textContent.includes('revoked')",
    );
    p.screenshot(&shots().join("4-workers.png"));
    check_clean(&mut p, "/organiser/workers");

    // A long tournament of the house bots, then cancelled.
    p.goto(&format!("{url}/organiser/tournaments"));
    p.eval("document.querySelector('#start-tournament input[name=games]').value = '10000'; true")
        .unwrap();
    click(
        &mut p,
        "#start-tournament button",
        "the tournament's page",
        "location.pathname.startsWith('/tournaments/')",
    );
    check_clean(&mut p, "the tournament's page");
    p.goto(&format!("{url}/organiser/tournaments"));
    assert!(
        p.eval("document.querySelectorAll('#tournaments-admin tbody tr').length")
            .unwrap()
            == 1,
        "listed"
    );
    click(
        &mut p,
        "#tournaments-admin form[action$='/cancel'] button",
        "the tournament cancelled",
        "location.pathname === '/organiser/tournaments' && \
         !document.querySelector(\"#tournaments-admin form[action$='/cancel']\")",
    );
    p.screenshot(&shots().join("5-tournaments.png"));
    check_clean(&mut p, "/organiser/tournaments");
    wait_for("the tournament to stop", 60, || {
        let t = s.get("/api/tournaments/1").json;
        (t["state"] == "cancelled").then_some(())
    });

    // The season ended by its button: season 1's page, then its final standings.
    p.goto(&format!("{url}/organiser"));
    click(
        &mut p,
        "#end-season button",
        "/seasons/1",
        "location.pathname === '/seasons/1'",
    );
    check_clean(&mut p, "/seasons/1");
    wait_for("season 1's final tournament", 120, || {
        let f = s.get("/api/seasons/1").json["final_tournament"].clone();
        (f["state"] == "done").then_some(())
    });
    p.goto(&format!("{url}/seasons/1"));
    let rows = p.eval("document.querySelectorAll('#final-standings tbody tr').length");
    assert_eq!(rows.unwrap(), 2, "the house bots' final standings");
    p.screenshot(&shots().join("5b-season.png"));

    // A house bot's version disqualified with a reason.
    p.goto(&format!("{url}/organiser/bots"));
    let row = "tr[data-version='house-random v1']";
    p.eval(&format!(
        "document.querySelector(\"{row} input[name=reason]\").value = 'test'; true"
    ))
    .unwrap();
    click(
        &mut p,
        &format!("{row} button[value=disqualify]"),
        "random disqualified",
        &format!("document.querySelector(\"{row}\").textContent.includes('disqualified')"),
    );
    p.screenshot(&shots().join("6-bots.png"));
    check_clean(&mut p, "/organiser/bots");
    assert_eq!(
        s.get("/api/bots/house-random/versions/1").json["state"],
        "disqualified"
    );

    // An author revokes a token on /me.
    let (st, _, _) = raw_request(&url, "GET", "/", "", "");
    assert_eq!(st, 200);
    let mut a = Page::open(browser, 1200, 900);
    a.goto(&format!("{url}/login"));
    a.eval(&format!(
        "document.querySelector('#login input[name=token]').value = '{ada}'; true"
    ))
    .unwrap();
    click(
        &mut a,
        "#login button[type=submit]",
        "/me",
        "location.pathname === '/me'",
    );
    click(
        &mut a,
        "#my-tokens form[action$='/revoke'] button",
        "the token revoked",
        "document.querySelector('#my-tokens').textContent.includes('revoked')",
    );
    a.screenshot(&shots().join("7-me.png"));
    check_clean(&mut a, "/me");
    assert_eq!(s.client(Some(&ada)).get("/api/me").unwrap().status, 401);
}
