//! Issue 25, "every game of mine" on the version page (`/bots/BOT/versions/N`,
//! `service/src/http/version_page.rs`): the head to head per opponent, the chart of Elo as
//! games accumulate, the time per decision from the replays, the games list filtered and paged
//! by links that work; and, for the version's author only, each game's lines and replay to
//! download and the `durak rerun` command, which runs as printed.

mod common;

use common::server::{wait_for, Browser, Server};
use common::{text, DURAK};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The text of `html` between `start` and the next `end` after it.
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let at = html
        .find(start)
        .unwrap_or_else(|| panic!("{start:?} in {html}"));
    let rest = &html[at + start.len()..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

/// The games the page says it lists: "Games A–B of N".
fn total_of(html: &str) -> u64 {
    let count = between(html, "id=\"games-count\">", "</p>");
    if count.starts_with("No game") {
        return 0;
    }
    let n = count.split(" of ").nth(1).expect("of N");
    n.split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// The rows of the page's games list.
fn rows(html: &str) -> Vec<&str> {
    if !html.contains("id=\"game-list\"") {
        return Vec::new();
    }
    let body = between(html, "id=\"game-list\"", "</tbody>");
    body.split("<tr>").skip(2).collect()
}

/// An `href` of the page, as a browser reads it (`&amp;` is `&`).
fn href_after(html: &str, marker: &str) -> String {
    let at = html
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} in {html}"));
    let before = &html[..at];
    let h = before.rfind("href=\"").unwrap();
    let rest = &html[h + 6..];
    rest[..rest.find('"').unwrap()].replace("&amp;", "&")
}

/// A folder with the Python random bot and its bot.toml: it wins some games against the house
/// bots and loses others, so its Elo above each is finite (the tests' sh bot loses them all).
fn python_random_bot(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-bots/python/random_bot.py");
    std::fs::copy(src, dir.join("random_bot.py")).unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!(
            "name = \"{name}\"\ncommand = \"python3 random_bot.py\"\nlanguage = \"python\"\n\
             author = \"Ada\"\n"
        ),
    )
    .unwrap();
    dir
}

#[test]
fn the_version_page_shows_every_game_of_mine_and_its_author_alone_gets_the_lines() {
    if common::require_interpreter("python3", "python3").is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &[]);
    let ada = s.author("ada");
    let bob = s.author("bob");
    let dir = python_random_bot(&tmp.path().join("v1"), "alpha");
    let out = Command::new(DURAK)
        .args([
            "submit", "--server", &s.url, "--token", &ada, "--wait-s", "240",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", text(&out.stderr), s.log());

    // Some games against the house bots (random and greedy), then the ladder paused and settled so counts hold.
    wait_for("24 games of alpha v1", 240, || {
        let v = s.get("/api/bots/alpha/versions/1").json;
        (v["games"].as_u64() >= Some(24)).then_some(())
    });
    let p = s.org().post_json("/api/ladder/pause", &json!({})).unwrap();
    assert_eq!(p.status, 200, "{}", p.json);
    let mut last = u64::MAX;
    wait_for("the ladder to settle", 60, || {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let n = s.games();
        let still = n == last;
        last = n;
        still.then_some(())
    });
    let api = s.get("/api/bots/alpha/versions/1/games?per_page=200").json;
    let total = api["total"].as_u64().unwrap();

    let mut author = Browser::open(&s);
    author.login(&ada);
    let (st, head, page) = author.get("/bots/alpha/versions/1");
    assert_eq!(st, 200, "{head}");
    assert!(
        head.to_ascii_lowercase().contains("cache-control: private"),
        "{head}"
    );

    // What the JSON has: the head to head (deals, score, the paired Elo), its chart, the time
    // per decision from the replays.
    assert!(page.contains("id=\"head-to-head\""), "{page}");
    for h in api["head_to_head"].as_array().unwrap() {
        let opp = h["opponent"].as_str().unwrap();
        assert!(
            page.contains(&format!(">{opp}</")),
            "{opp} in the head to head: {page}"
        );
        assert!(
            h["deals"].as_u64().unwrap() * 2 <= h["games"].as_u64().unwrap(),
            "{h}"
        );
    }
    assert!(
        page.contains("Elo above each opponent as games accumulate") && page.contains("<svg"),
        "the chart: {page}"
    );
    let with_history = api["head_to_head"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| !h["history"].as_array().unwrap().is_empty())
        .count();
    assert_eq!(
        page.matches("class=\"series\"").count(),
        with_history,
        "one line per opponent with a finite Elo"
    );
    assert!(page.contains("id=\"timing\""), "{page}");
    let view = s.get("/api/bots/alpha/versions/1").json;
    let timing = view["ladder_timing"].as_array().unwrap();
    assert!(!timing.is_empty(), "{view}");
    assert_eq!(view["ladder_timing_games"].as_u64(), Some(total.min(100)));
    let answers: u64 = timing.iter().map(|t| t["answers"].as_u64().unwrap()).sum();
    assert!(answers > 0, "{timing:?}");
    for t in timing {
        let (m, p95, max) = (
            t["median_ms"].as_f64().unwrap(),
            t["p95_ms"].as_f64().unwrap(),
            t["max_ms"].as_f64().unwrap(),
        );
        assert!(0.0 <= m && m <= p95 && p95 <= max, "{t}");
    }

    // The games list: everything, newest first, 25 a page; the filters' links.
    assert_eq!(total_of(&page), total, "{page}");
    assert_eq!(rows(&page).len() as u64, total.min(25));
    let greedy = href_after(&page, ">its games</a>");
    assert!(greedy.contains("?opponent="), "{greedy}");
    let (st, _, filtered) = author.get(&greedy);
    assert_eq!(st, 200);
    let opponent = between(&greedy, "opponent=", "#");
    let n = total_of(&filtered);
    assert!(n > 0 && n <= total, "{filtered}");
    assert!(
        rows(&filtered)
            .iter()
            .all(|r| r.contains(&format!("{opponent} v"))),
        "every row against {opponent}: {filtered}"
    );
    let by_result: u64 = ["won", "lost", "draw"]
        .iter()
        .map(|r| {
            let (st, _, p) = author.get(&format!(
                "/bots/alpha/versions/1?opponent={opponent}&result={r}"
            ));
            assert_eq!(st, 200);
            total_of(&p)
        })
        .sum();
    assert_eq!(by_result, n, "each game has one result");
    // The form's "any" sends empty values: the whole list.
    let (_, _, any) = author.get("/bots/alpha/versions/1?opponent=&result=");
    assert_eq!(total_of(&any), total);
    let (_, _, faulted) = author.get("/bots/alpha/versions/1?fault=1");
    assert_eq!(total_of(&faulted), 0, "the random bot never faults");

    // Paging: 4 a page; the next link leads to games 5 to 8, and back.
    let (_, _, p0) = author.get("/bots/alpha/versions/1?per_page=4");
    assert!(p0.contains("id=\"pages\""), "{p0}");
    let next = href_after(&p0, "older →");
    assert!(
        next.contains("page=1") && next.contains("per_page=4"),
        "{next}"
    );
    let (st, _, p1) = author.get(&next);
    assert_eq!(st, 200);
    assert!(p1.contains("Games 5–8 of"), "{p1}");
    let api1 = s
        .get("/api/bots/alpha/versions/1/games?per_page=4&page=1")
        .json;
    let first = &api1["games"][0];
    assert!(
        rows(&p1)[0].contains(&format!("/games/{}/{}\"", first["job"], first["game"])),
        "page 1 is the API's page 1: {}",
        rows(&p1)[0]
    );
    let back = href_after(&p1, "← newer");
    assert!(
        back.contains("per_page=4") && !back.contains("?page=") && !back.contains("&page="),
        "page 0 is the default: {back}"
    );
    let (_, _, p0b) = author.get(&back);
    assert!(p0b.contains("Games 1–4 of"), "{p0b}");

    // Refused queries say the fix.
    for bad in ["?page=x", "?result=maybe", "?per_page=0"] {
        let (st, _, body) = author.get(&format!("/bots/alpha/versions/1{bad}"));
        assert_eq!(st, 400, "{bad}: {body}");
        assert!(body.contains("fix:"), "{bad}: {body}");
    }

    // The author's own lines: the download links and the command, which runs as printed.
    let row = rows(&page)[0];
    let lines = href_after(row, ">lines read</a>");
    let replay = href_after(row, ">replay</a>");
    let (st, head, got) = author.get(&lines);
    assert_eq!(st, 200, "{head}{got}");
    assert!(head.contains("attachment"), "{head}");
    assert!(
        got.lines()
            .any(|l| l.starts_with("stdin") && l.contains("\"type\":\"request\"")),
        "{got}"
    );
    let (st, head, jsonl) = author.get(&replay);
    assert_eq!(st, 200, "{head}");
    let command = between(row, "<code class=\"rerun-cmd\">", "</code>").replace("&#39;", "'");
    let command = command.replace("&quot;", "\"").replace("&amp;", "&");
    assert!(
        command.starts_with("durak rerun g") && command.ends_with("'python3 random_bot.py'"),
        "{command}"
    );
    let file = between(&command, "durak rerun ", " ");
    assert!(head.contains(&format!("filename=\"{file}\"")), "{head}");
    std::fs::write(dir.join(file), &jsonl).unwrap();
    let path = format!(
        "{}:{}",
        Path::new(DURAK).parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = Command::new("sh")
        .args(["-c", &command])
        .current_dir(&dir)
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{command}: {}{}",
        text(&run.stdout),
        text(&run.stderr)
    );

    // Another author, and nobody logged in: the page without the lines; the links refused.
    let mut other = Browser::open(&s);
    other.login(&bob);
    let nobody = Browser::open(&s);
    for b in [&other, &nobody] {
        let (st, _, theirs) = b.get("/bots/alpha/versions/1");
        assert_eq!(st, 200);
        assert!(
            theirs.contains("id=\"head-to-head\""),
            "the rest is for everyone"
        );
        assert!(
            !theirs.contains("lines read") && !theirs.contains("durak rerun g"),
            "{theirs}"
        );
        let (st, _, body) = b.get(&lines);
        assert_eq!(st, 403, "{body}");
        assert!(body.contains("fix:"), "{body}");
        // The replay is everyone's, without the author's stderr.
        let (st, _, _) = b.get(&replay);
        assert_eq!(st, 200);
    }
}
