//! Issue 25, "Play my bot": a person takes a seat against a bot of the ladder in the browser
//! (`service/src/play/`, `service/src/http/play_pages.rs`). The test plays a whole game from
//! the person's seat against the house bot `house-greedy`, always the first button, through the pages'
//! forms (CSRF tokens and all), and checks what the page shows and refuses, who may play, the
//! one-game cap, and the replay.

mod common;

use common::cdp::Page;
use common::server::{wait_for, Browser, Server};
use common::{text, DURAK};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::process::Command;
use std::time::Duration;

/// The cards a page shows, by their codes (`10♦ (TD)` gives `TD`).
fn cards_on(html: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let b = html.as_bytes();
    for i in 0..b.len().saturating_sub(3) {
        if b[i] == b'(' && b[i + 3] == b')' {
            let code = &html[i + 1..i + 3];
            if code.parse::<durak_rules::Card>().is_ok() {
                out.insert(code.to_string());
            }
        }
    }
    out
}

/// The part of a page between `id="ID"` and the next closing `</td>`.
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let Some(at) = html.find(&format!("id=\"{id}\"")) else {
        return "";
    };
    let rest = &html[at..];
    &rest[..rest.find("</td>").unwrap_or(rest.len())]
}

#[test]
fn a_person_plays_a_whole_game_against_a_house_bot_in_the_browser() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(
        &tmp.path().join("data"),
        &["--house-bots", "builtin:greedy"],
    );
    let ada = s.author("ada");
    let eve = s.author("eve");
    let mut b = Browser::open(&s);
    b.login(&ada);
    let mut other = Browser::open(&s);
    other.login(&eve);

    // The form on the bot's page starts the game.
    let (st, _, page) = b.get("/bots/house-greedy");
    assert_eq!(st, 200);
    assert!(page.contains("id=\"play\""), "{page}");
    let (st, head, _) = b.post("/bots/house-greedy", "/play", "bot=house-greedy");
    assert_eq!(st, 303, "{head}\n{}", s.log());
    let at = head
        .lines()
        .find_map(|l| l.strip_prefix("location: "))
        .unwrap_or_else(|| panic!("{head}"))
        .trim()
        .to_string();
    assert!(at.starts_with("/play/"), "{at}");

    // One game in progress per author; a bot not in the ladder is refused by name.
    let api = s.client(Some(&ada));
    let r = api
        .post_json("/api/play", &json!({"bot": "house-greedy"}))
        .unwrap();
    assert_eq!(r.status, 409, "{}", r.json);
    assert!(
        r.json["error"].as_str().unwrap().contains(&at),
        "{}",
        r.json
    );
    let r = s
        .client(Some(&eve))
        .post_json("/api/play", &json!({"bot": "nobody"}))
        .unwrap();
    assert_eq!(r.status, 404, "{}", r.json);
    assert!(r.json["error"].as_str().unwrap().contains("\"nobody\""));

    // Another author can neither see the game nor play in it.
    assert_eq!(other.get(&at).0, 403);
    let token = other.token("/bots/house-greedy");
    let origin = format!("Origin: {}\r\nSec-Fetch-Site: same-origin\r\n", s.url);
    let (st, _, _) = other.post_with(&format!("{at}/move"), Some(&token), "choice=1", &origin);
    assert_eq!(st, 403);
    // Nor can a cross-site form (no CSRF token).
    let (st, _, _) = b.post_with(&format!("{at}/move"), None, "choice=1", "");
    assert_eq!(st, 403);

    let mut first_page: Option<String> = None;
    let mut refused = false;
    let mut moves = 0;
    let end = wait_for("the game's end", 300, || {
        let (st, _, page) = b.get(&at);
        assert_eq!(st, 200, "{page}");
        if page.contains("id=\"result\"") {
            return Some(page);
        }
        if !page.contains("id=\"choices\"") {
            std::thread::sleep(Duration::from_millis(100));
            return None;
        }
        if first_page.is_none() {
            first_page = Some(page.clone());
        }
        if !refused {
            // A move the rules refuse: named with its rule, and the decision stays open.
            let word = if page.contains("Your move: defend") {
                "pass"
            } else {
                "take"
            };
            let (st, _, _) = b.post(&at, &format!("{at}/move"), &format!("move={word}"));
            assert_eq!(st, 303);
            let (_, _, page) = b.get(&at);
            let r = page
                .split("id=\"refusal\"")
                .nth(1)
                .unwrap_or_else(|| panic!("a refusal on the page: {page}"));
            let r = &r[..r.find("</p>").unwrap()];
            assert!(r.contains("✗ "), "{r}");
            let rule = r.split("✗ ").nth(1).unwrap();
            let id: String = rule.chars().take_while(|c| *c != ':').collect();
            assert!(
                id.len() >= 3 && id.as_bytes()[1] == b'-' && id[2..].parse::<u32>().is_ok(),
                "a rule id (like K-8): {r}"
            );
            assert!(
                page.contains("id=\"choices\""),
                "still the person's decision"
            );
            refused = true;
        }
        let (st, head, _) = b.post(&at, &format!("{at}/move"), "choice=1");
        assert_eq!(st, 303, "{head}");
        moves += 1;
        None
    });
    assert!(refused && moves > 0);
    let result = end.split("id=\"result\"").nth(1).unwrap();
    let result = &result[..result.find("</p>").unwrap()];
    assert!(
        ["You lost", "You won", "A draw"]
            .iter()
            .any(|w| result.contains(w)),
        "{result}"
    );
    assert!(!result.contains("Fault"), "a clean game: {result}");
    assert!(end.contains("id=\"verified\""), "{end}");
    assert!(end.contains("The replay verifies"), "{end}");

    // The game in the replay viewer (its player only).
    let (st, _, viewer) = b.get(&format!("{at}/view"));
    assert_eq!(st, 200, "{viewer}");
    assert!(viewer.contains("house-greedy v1, unrated"), "{viewer}");
    assert_eq!(other.get(&format!("{at}/view")).0, 403);

    // The replay: downloadable by its player only, and `durak replay --verify` agrees.
    assert_eq!(other.get(&format!("{at}/replay")).0, 403);
    let (st, _, replay) = b.get(&format!("{at}/replay"));
    assert_eq!(st, 200);
    let file = tmp.path().join("game.jsonl");
    std::fs::write(&file, &replay).unwrap();
    let out = Command::new(DURAK)
        .args(["replay", "--verify"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );

    // Hidden information: the first page showed none of the bot's dealt cards but those on
    // the table (its first attack) and a trump shown under K-2.
    let first = first_page.expect("a decision of the person");
    let lines: Vec<Value> = replay
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let event = |kind: &str, to: Option<u64>| {
        lines
            .iter()
            .find(|l| l["type"] == "event" && l["event"]["kind"] == kind && l["to"].as_u64() == to)
            .map(|l| l["event"].clone())
    };
    let bot_hand = event("dealt_hand", Some(1)).expect("the bot's dealt hand");
    let mine = event("dealt_hand", Some(0)).expect("the person's dealt hand");
    let shown = event("first_attacker", None).map(|e| e["shown_trump"].clone());
    let table = cards_on(section(&first, "table"));
    let on_page = cards_on(&first);
    for c in bot_hand["cards"].as_array().unwrap() {
        let c = c.as_str().unwrap();
        let public = table.contains(c) || shown.as_ref().and_then(|s| s.as_str()) == Some(c);
        assert!(
            public || !on_page.contains(c),
            "the page shows the bot's card {c}: {first}"
        );
    }
    // And the person's own hand is there.
    let hand = cards_on(section(&first, "hand"));
    assert!(!hand.is_empty());
    for c in &hand {
        assert!(
            mine["cards"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x == c.as_str()),
            "{c} in the hand shown is not the person's: {first}"
        );
    }

    // The game is over: a new one may start.
    let r = api
        .post_json("/api/play", &json!({"bot": "house-greedy"}))
        .unwrap();
    assert_eq!(r.status, 201, "{}", r.json);
}

/// `[play] move_s`: a person who does not decide loses the game on time (as a bot would), and
/// an author's finished games beyond `play::KEEP_FINISHED` are forgotten when they start one.
#[test]
fn a_person_who_does_not_move_loses_on_time_and_old_games_are_forgotten() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("serve.toml");
    std::fs::write(&config, "[play]\nmove_s = 1\nmax_games = 1\n").unwrap();
    let s = Server::start(
        &tmp.path().join("data"),
        &[
            "--house-bots",
            "builtin:greedy",
            "--config",
            config.to_str().unwrap(),
        ],
    );
    let ada = s.author("ada");
    let mut b = Browser::open(&s);
    b.login(&ada);
    let api = s.client(Some(&ada));
    let keep = durak_service::play::KEEP_FINISHED;
    let mut ids = Vec::new();
    for _ in 0..=keep {
        let r = api
            .post_json("/api/play", &json!({"bot": "house-greedy"}))
            .unwrap();
        assert_eq!(r.status, 201, "{}\n{}", r.json, s.log());
        let at = r.json["url"].as_str().unwrap().to_string();
        let end = wait_for("the person's timeout", 60, || {
            let (st, _, page) = b.get(&at);
            assert_eq!(st, 200, "{page}");
            page.contains("id=\"result\"").then_some(page)
        });
        assert!(end.contains("each decision has 1 seconds"), "{end}");
        assert!(end.contains("You lost"), "{end}");
        assert!(end.contains("Fault of you: timeout"), "{end}");
        assert!(end.contains("The replay verifies"), "{end}");
        ids.push(at);
    }
    // Starting one more forgets the oldest finished game.
    let bob = s.client(Some(&s.author("bob")));
    let r = api
        .post_json("/api/play", &json!({"bot": "house-greedy"}))
        .unwrap();
    assert_eq!(r.status, 201, "{}", r.json);
    // `max_games = 1`: while it is played (its first decision alone takes the person's second),
    // nobody else may start one.
    let r = bob
        .post_json("/api/play", &json!({"bot": "house-greedy"}))
        .unwrap();
    assert_eq!(r.status, 503, "{}", r.json);
    let e = r.json["error"].as_str().unwrap();
    assert!(e.contains("[play] max_games"), "{e}");
    assert_eq!(b.get(&ids[0]).0, 404);
    let replays = std::fs::read_dir(tmp.path().join("data/play"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension() == Some("jsonl".as_ref()))
        .count();
    assert_eq!(replays, keep, "the forgotten game's replay is removed");
    for at in &ids[1..] {
        assert_eq!(b.get(at).0, 200, "{at}");
    }
}

/// What the bot writes on stderr.
const SECRET: &str = "bobs-secret-reasoning-4711";

/// Play the game at `at` to its end, always the first button: the last page.
fn play_to_end(b: &Browser, at: &str) -> String {
    wait_for("the game's end", 300, || {
        let (st, _, page) = b.get(at);
        assert_eq!(st, 200, "{page}");
        if page.contains("id=\"result\"") {
            return Some(page);
        }
        if page.contains("id=\"choices\"") {
            let (st, head, _) = b.post(at, &format!("{at}/move"), "choice=1");
            assert_eq!(st, 303, "{head}");
        } else {
            std::thread::sleep(Duration::from_millis(100));
        }
        None
    })
}

/// Private logs (`service/src/private.rs`) hold here too: a person playing another author's bot never
/// reads its stderr, in the replay, its viewer or the page; its author playing it does.
#[test]
fn a_bots_stderr_is_its_authors_in_play_my_bot_too() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &["--house-bots", "none"]);
    let ada = s.author("ada");
    let bob = s.author("bob");
    let dir = common::server::sh_bot(tmp.path(), "chatty", "", None);
    let script = common::server::SH_BOT.replace("PRELUDE", "").replace(
        "while read -r line; do",
        &format!("while read -r line; do\n  echo '{SECRET}' >&2"),
    );
    std::fs::write(dir.join("bot.sh"), script).unwrap();
    let up = s.upload(&bob, &durak_service::archive::pack(&dir).unwrap());
    assert_eq!(up.status, 201, "{}", up.json);
    assert_eq!(s.checked("chatty", 1)["state"], "active");

    for (who, token, sees) in [("ada", &ada, false), ("bob", &bob, true)] {
        let mut b = Browser::open(&s);
        b.login(token);
        let (st, head, _) = b.post("/bots/chatty", "/play", "bot=chatty");
        assert_eq!(st, 303, "{head}");
        let at = head
            .lines()
            .find_map(|l| l.strip_prefix("location: "))
            .unwrap()
            .trim()
            .to_string();
        let end = play_to_end(&b, &at);
        assert!(end.contains("The replay verifies"), "{who}: {end}");
        let (_, _, replay) = b.get(&format!("{at}/replay"));
        let (_, _, viewer) = b.get(&format!("{at}/view"));
        assert!(replay.contains("\"type\":\"result\"") || replay.contains("game_over"));
        for (what, text) in [("replay", &replay), ("viewer", &viewer), ("page", &end)] {
            assert_eq!(
                text.contains(SECRET),
                sees && what != "page",
                "{who}'s {what}: {text}"
            );
        }
    }
}

/// The pages in headless Chromium, as a person plays: register, the form on the bot's page, the
/// first button at every decision until the end, then the replay viewer; no problem logged on
/// any page (exception, console error, CSP violation, failed load). Screenshots in
/// `target/tmp/serve_play/` (the game, its end, the viewer).
#[test]
fn a_person_plays_in_headless_chromium() {
    let browser = require_chromium!();
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(
        &tmp.path().join("data"),
        &["--registration", "open", "--house-bots", "builtin:greedy"],
    );
    let shots = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve_play");
    let url = s.url.clone();
    let mut p = Page::open(browser, 1200, 900);
    let clean = |p: &mut Page, page: &str| {
        let problems = p.take_problems();
        assert!(problems.is_empty(), "{page}: {problems:#?}");
    };
    p.goto(&format!("{url}/register"));
    p.eval(
        "document.querySelector('#register input[name=name]').value = 'grace'; \
         document.querySelector('#register button[type=submit]').click(); true",
    )
    .unwrap();
    p.wait(
        "the token",
        30,
        "document.querySelector('#token')?.textContent || null",
    );
    p.goto(&format!("{url}/bots/house-greedy"));
    clean(&mut p, "/bots/house-greedy");
    p.eval("document.querySelector('#play button[type=submit]').click(); true")
        .unwrap();
    p.wait(
        "the game's page",
        30,
        "location.pathname.startsWith('/play/') || null",
    );
    let mut shot = false;
    let mut clicks = 0;
    loop {
        let state = p.wait(
            "a decision or the end",
            60,
            "document.querySelector('#result') ? 'end' : \
             (document.querySelector('#choices button') ? 'choose' : null)",
        );
        clean(&mut p, "/play/ID");
        if state == "end" {
            break;
        }
        if !shot {
            // The replay viewer's layout, drawn by its script: the person's hand face up at
            // the bottom, the bot's seat hidden (backs and its known cards only), the felt.
            let drawn = p.eval(
                "[document.querySelectorAll('#stage .seat.viewer .hand .card:not(.back)').length, \
                  document.querySelectorAll('#stage .seat:not(.viewer) .hand.hidden').length, \
                  document.querySelectorAll('#felt .stock, #felt .discard').length]",
            );
            let drawn = drawn.unwrap();
            assert!(drawn[0].as_u64() > Some(0), "the person's hand: {drawn}");
            assert_eq!(drawn[1], 1, "the bot's hand hidden: {drawn}");
            assert_eq!(drawn[2], 2, "the stock and the discard: {drawn}");
            p.screenshot(&shots.join("1-decision.png"));
            shot = true;
        }
        assert!(clicks < 500, "a game of 500 decisions");
        p.eval("document.querySelector('#choices button').click(); true")
            .unwrap();
        clicks += 1;
        // The answer's page (a redirect) replaces this one.
        std::thread::sleep(Duration::from_millis(150));
    }
    p.screenshot(&shots.join("2-end.png"));
    let text = p.eval("document.body.innerText").unwrap();
    assert!(
        text.as_str().unwrap().contains("The replay verifies"),
        "{text}"
    );
    p.eval("document.querySelector('#view').click(); true")
        .unwrap();
    p.wait(
        "the replay viewer",
        30,
        "location.pathname.endsWith('/view') || null",
    );
    std::thread::sleep(Duration::from_millis(300));
    p.screenshot(&shots.join("3-viewer.png"));
    clean(&mut p, "/play/ID/view");
}

/// The card codes a text shows: in JSON strings (`"TD"`) and in words (`10♦ (TD)`).
fn shows_card(text: &str, code: &str) -> bool {
    text.contains(&format!("\"{code}\"")) || text.contains(&format!("({code})"))
}

/// Everything the person can read of a game in progress at one moment: its page, its state's
/// JSON, and the replay viewer's page and the replay (refused while it goes on).
fn everything(b: &Browser, api: &durak_service::client::Client, at: &str) -> (Value, String) {
    // The viewer and the replay first: if the state read after says the game still goes on,
    // it went on when they were asked.
    let later: Vec<(String, u16, String)> = ["view", "replay"]
        .iter()
        .map(|path| {
            let (st, _, body) = b.get(&format!("{at}/{path}"));
            (path.to_string(), st, body)
        })
        .collect();
    let state = api.get(&format!("/api{at}")).unwrap();
    assert_eq!(state.status, 200, "{}", state.json);
    let (st, _, page) = b.get(at);
    assert_eq!(st, 200, "{page}");
    let mut all = format!("{}\n{page}", state.json);
    if state.json["state"] != "over" {
        for (path, st, body) in later {
            assert_eq!(st, 404, "no {path} while the game goes on: {body}");
            all.push_str(&body);
        }
    }
    (state.json, all)
}

/// Issue 25's remaining parts of "Play my bot": the person chooses seat 1 (the bot attacks
/// first) and a variant `[play] variants` allows besides the ladder's; the server is killed in
/// the middle of the game and started again, and the game goes on from where it was (the same
/// decision open, the same hand); at every decision no page or JSON answer shows a card the
/// bot holds hidden (its hand minus the publicly known cards, I-1), checked against the
/// complete replay afterwards, which verifies and shows in the replay viewer.
#[test]
fn a_game_goes_on_after_a_restart_and_never_shows_the_bots_hidden_cards() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("serve.toml");
    std::fs::write(&config, "[play]\nvariants = [\"prostoy\"]\n").unwrap();
    let data = tmp.path().join("data");
    let flags = [
        "--house-bots",
        "builtin:greedy",
        "--config",
        config.to_str().unwrap(),
    ];
    let mut s = Server::start(&data, &flags);
    let organiser = s.organiser.clone().expect("the organiser's token");
    let ada = s.author("ada");
    let mut api = s.client(Some(&ada));
    for (body, what) in [
        (json!({"bot": "house-greedy", "seat": "2"}), "seat = \"2\""),
        (
            json!({"bot": "house-greedy", "variant": "poker"}),
            "variant = \"poker\"",
        ),
    ] {
        let r = api.post_json("/api/play", &body).unwrap();
        assert_eq!(r.status, 400, "{}", r.json);
        let e = r.json["error"].as_str().unwrap();
        assert!(e.contains(what) && e.contains("fix:"), "{e}");
    }
    let r = api
        .post_json(
            "/api/play",
            &json!({"bot": "house-greedy", "seat": "1", "variant": "prostoy"}),
        )
        .unwrap();
    assert_eq!(r.status, 201, "{}", r.json);
    let at = r.json["url"].as_str().unwrap().to_string();
    let mut b = Browser::open(&s);
    b.login(&ada);

    // Snapshots at each of the person's decisions: (decisions answered before it, all text).
    let mut snaps: Vec<(usize, String)> = Vec::new();
    let mut answered = 0;
    let mut before_restart: Option<Value> = None;
    let end = loop {
        let state = wait_for("the person's decision or the end", 120, || {
            let (state, all) = everything(&b, &api, &at);
            match state["state"].as_str() {
                Some("your_move") | Some("over") => Some((state, all)),
                _ => {
                    std::thread::sleep(Duration::from_millis(50));
                    None
                }
            }
        });
        let (state, all) = state;
        if state["state"] == "over" {
            break state;
        }
        assert_eq!(state["seat"], 1);
        assert_eq!(state["variant"], "prostoy");
        if answered == 0 {
            assert_eq!(state["observation"]["attacker"], 0, "seat 0 attacks first");
        }
        snaps.push((answered, all));
        if let Some(before) = before_restart.take() {
            assert_eq!(
                state["observation"], before["observation"],
                "after the restart, the same decision with the same hand"
            );
            assert!(
                state["log"].as_array().unwrap().len() >= before["log"].as_array().unwrap().len()
            );
        } else if answered == 3 {
            // The server dies in the middle of the game, and starts again.
            before_restart = Some(state);
            s.kill();
            s = Server::start(&data, &flags);
            api = s.client(Some(&ada));
            b = Browser::open(&s);
            b.login(&ada);
            continue;
        }
        let r = api
            .post_json(&format!("/api{at}/move"), &json!({"choice": 1}))
            .unwrap();
        assert_eq!(r.status, 200, "{}", r.json);
        answered += 1;
        assert!(answered < 300, "a game of 300 decisions");
    };
    assert!(answered > 3, "the game went on after the restart");
    assert!(before_restart.is_none());
    let result = end["result"].as_str().unwrap();
    assert!(
        !result.contains("Void") && !result.contains("Fault"),
        "{result}"
    );
    assert_eq!(end["verified"], true, "{end}");

    // The replay is complete: the whole game from its deal, verified again here.
    let (st, _, replay) = b.get(&format!("{at}/replay"));
    assert_eq!(st, 200);
    let parsed = durak_replay::parse_replay(replay.as_bytes(), "play.jsonl").unwrap();
    let sim = durak_replay::simulate(&parsed);
    assert!(sim.verified(), "{}", durak_replay::text::verdict(&sim));
    assert!(
        sim.end().logged && (sim.end().loser.is_some() || sim.end().draw),
        "the replay reaches the game's end"
    );
    let (st, _, viewer) = b.get(&format!("{at}/view"));
    assert_eq!(st, 200, "{viewer}");
    assert!(viewer.contains("prostoy"), "{viewer}");

    // At each snapshot, the bot's hidden cards then (from the full view of the replay's step
    // of that decision) are in no page or JSON the person could read.
    let views = durak_replay::view::all_views(&sim, None);
    let person_steps: Vec<usize> = sim
        .steps
        .iter()
        .enumerate()
        .filter(|(_, st)| {
            st.decision.is_some_and(|d| d.seat == 1) && st.request.is_some() && !st.forced
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        person_steps.len(),
        answered,
        "one step per decision answered"
    );
    let mut checked = 0;
    for (k, text) in &snaps {
        let bot = &views[person_steps[*k]].seats[0];
        let hand = bot.hand.as_ref().expect("the full view sees every hand");
        for c in hand.iter().filter(|c| !bot.known.contains(c)) {
            assert!(
                !shows_card(text, c),
                "decision {k}: the bot's hidden card {c} is shown:\n{text}"
            );
            checked += 1;
        }
    }
    assert!(checked > 20, "hidden cards checked: {checked}");
    // The page still shows the person's own hand, so the check can see cards at all.
    let (k, text) = &snaps[0];
    let mine = views[person_steps[*k]].seats[1].hand.clone().unwrap();
    assert!(mine.iter().all(|c| shows_card(text, c)), "{text}");

    // A game that cannot go on after a restart (its bot left the ladder meanwhile) ends void,
    // saying why; the finished game is still there, with its replay in the viewer.
    let r = api
        .post_json("/api/play", &json!({"bot": "house-greedy"}))
        .unwrap();
    assert_eq!(r.status, 201, "{}", r.json);
    let second = r.json["url"].as_str().unwrap().to_string();
    let r = s
        .client(Some(&organiser))
        .post_json("/api/bots/house-greedy/versions/1/disqualify", &json!({}))
        .unwrap();
    assert_eq!(r.status, 200, "{}", r.json);
    s.kill();
    let s = Server::start(&data, &flags);
    let api = s.client(Some(&ada));
    let mut b = Browser::open(&s);
    b.login(&ada);
    let void = api.get(&format!("/api{second}")).unwrap().json;
    assert_eq!(void["state"], "over", "{void}");
    let why = void["result"].as_str().unwrap();
    assert!(
        why.contains("Void: the server restarted") && why.contains("no longer in the ladder"),
        "{why}"
    );
    let (st, _, page) = b.get(&at);
    assert_eq!(st, 200);
    assert!(
        page.contains(result) && page.contains("The replay verifies"),
        "{page}"
    );
    assert_eq!(b.get(&format!("{at}/view")).0, 200);
}
