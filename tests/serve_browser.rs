//! Issue 14: the judge service's pages in headless Chromium, as a person uses them: register an
//! account on /register, upload a Python sample bot through the form on /me, watch it appear on
//! the leaderboard (live: the page does not reload), open its version page, then one of its
//! games in the replay viewer and step through it; then a fixed tournament's report from the
//! tournaments' list, and the leaderboard polling in a browser without `EventSource`. Every
//! page is loaded without a single problem logged (no exception, no console error, no CSP
//! violation, no failed load), and a screenshot of each is written to
//! `target/tmp/serve_browser/` (look at them after a change of the pages' look).
//!
//! Chromium is driven over the DevTools protocol (`common/cdp.rs`). Skipped with a note when
//! Chromium or python3 is missing, unless `DURAK_REQUIRE_SYSTEM_TESTS=1` or `CI` is set.

mod common;

use common::cdp::Page;
use common::server::Server;
use std::path::{Path, PathBuf};

fn shots() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve_browser")
}

/// A folder with the Python random bot and its bot.toml, packed as the form takes it.
fn python_bot(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-bots/python/random_bot.py");
    std::fs::copy(src, dir.join("random_bot.py")).unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!(
            "name = \"{name}\"\ncommand = \"python3 random_bot.py\"\nlanguage = \"python\"\n\
             author = \"Grace\"\n"
        ),
    )
    .unwrap();
    let archive = root.join(format!("{name}.tar.gz"));
    std::fs::write(&archive, durak_service::archive::pack(&dir).unwrap()).unwrap();
    archive
}

fn check_clean(p: &mut Page, page: &str) {
    let problems = p.take_problems();
    assert!(problems.is_empty(), "{page}: {problems:#?}");
}

#[test]
fn register_upload_leaderboard_version_and_game_in_the_browser() {
    let browser = require_chromium!();
    if common::require_interpreter("python3", "python3").is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let archive = python_bot(tmp.path(), "snake");
    let s = Server::start(
        &tmp.path().join("data"),
        &[
            "--registration",
            "open",
            "--deals",
            "1",
            "--move-time-ms",
            "2000",
        ],
    );
    let url = s.url.clone();
    let mut p = Page::open(browser, 1200, 900);

    // Register through the form: the token is shown once, and the cookie logs us in.
    p.goto(&format!("{url}/register"));
    p.screenshot(&shots().join("1-register.png"));
    check_clean(&mut p, "/register");
    p.eval(
        "document.querySelector('#register input[name=name]').value = 'grace'; \
         document.querySelector('#register button[type=submit]').click(); true",
    )
    .unwrap();
    let token = p.wait(
        "the token after registering",
        30,
        "document.querySelector('#token')?.textContent || null",
    );
    assert!(token.as_str().unwrap().starts_with("dk_"), "{token}");
    p.screenshot(&shots().join("2-token.png"));
    check_clean(&mut p, "the token page");

    // Upload the bot through the form on the author's page.
    p.goto(&format!("{url}/me"));
    assert!(
        p.eval("document.body.innerText")
            .unwrap()
            .as_str()
            .unwrap()
            .contains("grace"),
        "logged in by the cookie"
    );
    p.screenshot(&shots().join("3-me.png"));
    check_clean(&mut p, "/me");
    p.set_file("#submit input[type=file]", &archive);
    p.eval("document.querySelector('#submit button[type=submit]').click(); true")
        .unwrap();
    p.wait(
        "the version page after the upload",
        60,
        "location.pathname === '/bots/snake/versions/1' || null",
    );
    p.screenshot(&shots().join("4-version-checking.png"));

    // The leaderboard, opened at once: the bot comes onto it by itself once it passes.
    p.goto(&format!("{url}/"));
    let live = p.wait(
        "the leaderboard's live events",
        30,
        "document.body.dataset.live || null",
    );
    assert_eq!(live, "sse", "the leaderboard listens to server-sent events");
    p.eval("window.notReloaded = true").unwrap();
    p.wait(
        "snake on the leaderboard",
        240,
        "document.querySelector('#rows tr[data-bot=snake] a') ? true : null",
    );
    assert_eq!(
        p.eval("window.notReloaded === true").unwrap(),
        true,
        "the row came without a reload"
    );
    // Its games are counted there as they come in.
    p.wait(
        "snake's games on the leaderboard",
        120,
        "Number(document.querySelector('#rows tr[data-bot=snake] td:nth-child(6)')?.textContent) > 0 || null",
    );
    p.screenshot(&shots().join("5-leaderboard.png"));
    check_clean(&mut p, "the leaderboard");

    // Its version page, from the leaderboard's link.
    p.eval("document.querySelector('#rows tr[data-bot=snake] a').click(); true")
        .unwrap();
    p.wait(
        "the version page",
        30,
        "location.pathname === '/bots/snake/versions/1' && document.readyState === 'complete' || null",
    );
    let text = p.eval("document.body.innerText").unwrap();
    let text = text.as_str().unwrap();
    assert!(
        text.contains("check-bot report") && text.contains("active"),
        "{text}"
    );
    assert!(
        p.eval("document.querySelectorAll('table.games a[href^=\"/games/\"]').length")
            .unwrap()
            .as_u64()
            > Some(0),
        "its games are listed: {text}"
    );
    // Issue 25: the head to head, and for its author (logged in here) the command that
    // re-runs a decision of each game (tests/serve_version_page.rs tests them in depth).
    assert!(
        text.contains("Head to head") && text.contains("durak rerun g"),
        "{text}"
    );
    p.screenshot(&shots().join("6-version.png"));
    check_clean(&mut p, "the version page");

    // One of its games, in the replay viewer: a board, and a step forward moves on.
    p.eval("document.querySelector('table.games a[href^=\"/games/\"]').click(); true")
        .unwrap();
    p.wait(
        "the replay viewer",
        30,
        "location.pathname.startsWith('/games/') && document.body.dataset.step === '1' \
         && document.querySelector('#stage #felt') ? true : null",
    );
    p.screenshot(&shots().join("7-game.png"));
    p.eval("document.getElementById('next').click(); true")
        .unwrap();
    p.wait(
        "the viewer's second step",
        10,
        "document.body.dataset.step === '2' || null",
    );
    let crumbs = p
        .eval("Array.from(document.querySelectorAll('nav.crumbs a')).map(a => a.textContent).join('|')")
        .unwrap();
    assert!(
        crumbs.as_str().unwrap().contains("snake v1"),
        "the game links to its versions: {crumbs}"
    );
    p.screenshot(&shots().join("8-game-step-2.png"));
    check_clean(&mut p, "the game page");

    // The other pages share the layout: the tournaments list, a bot's page, the log-in page.
    for path in ["/tournaments", "/login", "/bots/snake"] {
        p.goto(&format!("{url}{path}"));
        assert_eq!(
            p.eval("document.querySelector('nav.crumbs a')?.getAttribute('href')")
                .unwrap(),
            "/",
            "{path}: the navigation"
        );
        check_clean(&mut p, path);
    }
    p.screenshot(&shots().join("9-bot.png"));

    // A fixed tournament's full report, from the tournaments' list, and one of its games.
    let t = s
        .org()
        .post_json("/api/tournaments", &serde_json::json!({"games": 1}))
        .unwrap();
    assert_eq!(t.status, 201, "{}", t.json);
    let id = t.json["id"].as_i64().unwrap();
    common::server::wait_for("the tournament to end", 180, || {
        let v = s.get(&format!("/api/tournaments/{id}")).json;
        // A tournament waits "queued" before it runs.
        (v["state"] != "running" && v["state"] != "queued").then_some(())
    });
    p.goto(&format!("{url}/tournaments"));
    p.screenshot(&shots().join("10-tournaments.png"));
    check_clean(&mut p, "/tournaments");
    p.eval("document.querySelector('#tournaments a[href$=\"/report/index.html\"]').click(); true")
        .unwrap();
    p.wait(
        "the tournament's report",
        30,
        "location.pathname.endsWith('/report/index.html') && document.querySelector('table.standings') ? true : null",
    );
    let bots = p
        .eval("document.querySelectorAll('table.standings tbody tr').length")
        .unwrap();
    assert_eq!(bots, 3, "the three bots of the ladder");
    p.screenshot(&shots().join("11-report.png"));
    check_clean(&mut p, "the tournament's report");
    p.eval("document.querySelector('a[href=\"games.html\"]').click(); true")
        .unwrap();
    p.wait(
        "the report's games list",
        30,
        "document.querySelector('.games-list tbody a[href*=\"g/\"]') ? true : null",
    );
    p.eval("document.querySelector('.games-list tbody a[href*=\"g/\"]').click(); true")
        .unwrap();
    p.wait(
        "a game of the tournament in the viewer",
        30,
        "document.body.dataset.step === '1' && document.querySelector('#stage #felt') ? true : null",
    );
    p.screenshot(&shots().join("12-report-game.png"));
    check_clean(&mut p, "a game of the tournament's report");

    // Without server-sent events (a browser without EventSource), the leaderboard polls.
    p.call(
        "Page.addScriptToEvaluateOnNewDocument",
        serde_json::json!({"source": "window.EventSource = undefined;"}),
    );
    p.goto(&format!("{url}/"));
    let live = p.wait(
        "the leaderboard's polling",
        30,
        "document.body.dataset.games ? document.body.dataset.live : null",
    );
    assert_eq!(live, "poll");
    assert!(
        p.eval("document.querySelectorAll('#rows tr[data-bot=snake]').length")
            .unwrap()
            == 1,
        "the polled rows are drawn"
    );
    check_clean(&mut p, "the polling leaderboard");
    eprintln!("screenshots in {}", shots().display());
}

/// A playing version's page keeps up (issue 24, `page/version.js`): once games came in, a
/// filtered page says so with a link, and the newest page reloads itself. The check that runs
/// every 10 s is run at once by showing the page again (`visibilitychange`).
#[test]
fn a_playing_version_page_keeps_up_with_its_games() {
    let browser = require_chromium!();
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &[]);
    let api = "/api/bots/house-greedy/versions/1";
    let games = |s: &Server| s.get(api).json["games"].as_u64().unwrap_or(0);
    common::server::wait_for("house-greedy's first games", 60, || {
        (games(&s) > 0).then_some(())
    });
    let mut p = Page::open(browser, 1000, 800);
    let seen_after_load = |p: &mut Page| -> u64 {
        let at_load = p.eval("Number(document.getElementById('live').dataset.games)");
        let at_load = at_load.unwrap().as_u64().unwrap();
        common::server::wait_for("more games", 60, || (games(&s) > at_load).then_some(()));
        at_load
    };
    p.goto(&format!(
        "{}/bots/house-greedy/versions/1?result=lost",
        s.url
    ));
    seen_after_load(&mut p);
    p.eval("document.dispatchEvent(new Event('visibilitychange'))")
        .unwrap();
    let said = p.wait(
        "the filtered page to say games came in",
        20,
        "(e => !e.hidden && e.textContent)(document.getElementById('live'))",
    );
    assert!(said.as_str().unwrap().contains("new game"), "{said}");

    p.goto(&format!("{}/bots/house-greedy/versions/1", s.url));
    seen_after_load(&mut p);
    p.eval("window.before = 1; document.dispatchEvent(new Event('visibilitychange'))")
        .unwrap();
    p.wait(
        "the newest page to reload itself",
        20,
        "window.before === undefined && document.readyState === 'complete'",
    );
    check_clean(&mut p, "the version page");
}
