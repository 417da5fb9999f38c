//! Issue 23, void games on the judge service (docs/SERVICE.md, "Void games"): a ladder game
//! given up after 3 voided attempts counts for nobody, and the leaderboard (page and
//! `/api/leaderboard`) shows each version's void games and voided attempts beside its games; a
//! game's page and JSON say that it was voided or is void, and why. Starving a bot past ten
//! times its limit three times over cannot be done on demand, so the house bots play a few
//! jobs, the server stops, two recorded games are marked in the database as a worker's or a
//! table's would be (one void, one played again after a voided attempt), and the server starts
//! again on the same data (paused: nothing else changes) and builds its leaderboard from it.

mod common;

use common::server::{wait_for, Server};
use durak_service::db::Db;
use serde_json::{json, Value};

const VOID_WHY: [&str; 3] = [
    "seat 0 starved: waited 2100 ms for a CPU",
    "seat 1 starved: waited 2300 ms for a CPU",
    "seat 0 starved: waited 2050 ms for a CPU",
];
const VOIDED_WHY: &str = "seat 1 starved: waited 1900 ms for a CPU";

/// A page's HTML.
fn html(s: &Server, path: &str) -> String {
    let (status, body, _) = s
        .client(None)
        .get_bytes(path, "content-type", 1 << 24)
        .unwrap();
    assert_eq!(status, 200, "{path}");
    String::from_utf8(body).unwrap()
}

fn row_of(lb: &Value, version_id: i64) -> Value {
    lb["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["version_id"] == version_id)
        .unwrap_or_else(|| panic!("version {version_id} on the leaderboard: {lb}"))
        .clone()
}

#[test]
fn the_leaderboard_and_the_game_pages_show_void_games_and_voided_attempts() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut s = Server::start(&data, &[]);
    let org = s.org();
    wait_for("the house bots' first ladder jobs", 120, || {
        (s.get("/api/leaderboard").json["games"].as_u64()? >= 4).then_some(())
    });
    assert_eq!(
        org.post_json("/api/ladder/pause", &json!({}))
            .unwrap()
            .status,
        200
    );
    wait_for("the ladder to settle after the pause", 60, || {
        let n = s.games();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        (s.games() == n).then_some(())
    });
    let before = s.get("/api/leaderboard").json;
    assert_eq!(
        (
            before["games_void"].as_u64(),
            before["attempts_voided"].as_u64()
        ),
        (Some(0), Some(0))
    );
    for r in before["rows"].as_array().unwrap() {
        assert_eq!(
            (r["void_games"].as_u64(), r["attempts_voided"].as_u64()),
            (Some(0), Some(0)),
            "{r}"
        );
    }
    // Each version's head to head, before.
    let games_of = |s: &Server, lb: &Value, v: i64, query: &str| {
        let r = row_of(lb, v);
        let path = format!(
            "/api/bots/{}/versions/{}/games{query}",
            r["bot"].as_str().unwrap(),
            r["version"]
        );
        let a = s.get(&path);
        assert_eq!(a.status, 200, "{path}: {}", a.json);
        a.json
    };
    let h2h_before: Vec<Value> = before["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            games_of(&s, &before, r["version_id"].as_i64().unwrap(), "")["head_to_head"].clone()
        })
        .collect();
    s.stop();

    // Two games of finished ladder jobs: the first given up as void, the second played again
    // after one voided attempt (its result stands).
    let db = Db::open(&data.join("service.db")).unwrap();
    type Picked = (i64, u32, String, Option<usize>);
    let picked: Vec<Picked> = db
        .read(|c| {
            let mut q = c.prepare(
                "SELECT g.job, g.game, g.seats, g.loser FROM games g JOIN jobs j ON j.id = \
                 g.job WHERE j.kind = 'ladder' AND j.state = 'done' ORDER BY g.job, g.game \
                 LIMIT 2",
            )?;
            let rows = q.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            rows.collect()
        })
        .unwrap();
    assert_eq!(picked.len(), 2, "two games of done ladder jobs");
    let seats: Vec<i64> = serde_json::from_str(&picked[0].2).unwrap();
    // The durak of the game made void (none: it was a draw).
    let durak = picked[0].3.map(|s| seats[s]);
    let (void_job, void_game) = (picked[0].0, picked[0].1);
    let (again_job, again_game) = (picked[1].0, picked[1].1);
    db.write(|c| {
        c.execute(
            "UPDATE games SET void = 1, loser = NULL, draw = 0, voided = ?1 WHERE job = ?2 AND \
             game = ?3",
            (
                serde_json::to_string(&VOID_WHY).unwrap(),
                void_job,
                void_game,
            ),
        )?;
        c.execute(
            "UPDATE games SET voided = ?1 WHERE job = ?2 AND game = ?3",
            (
                serde_json::to_string(&[VOIDED_WHY]).unwrap(),
                again_job,
                again_game,
            ),
        )
        .map(|_| ())
    })
    .unwrap();
    drop(db);

    let s = Server::start(&data, &[]);
    let lb = s.get("/api/leaderboard").json;
    assert_eq!(lb["paused"], true, "{lb}");
    assert_eq!(
        lb["games"], before["games"],
        "the void game is still a game recorded: {lb}"
    );
    assert_eq!(
        (lb["games_void"].as_u64(), lb["attempts_voided"].as_u64()),
        (Some(1), Some(4)),
        "{lb}"
    );
    for v in &seats {
        let (r, was) = (row_of(&lb, *v), row_of(&before, *v));
        assert_eq!(r["void_games"], 1, "{r}");
        assert_eq!(r["attempts_voided"], 4, "{r}");
        assert_eq!(
            r["games"].as_u64().unwrap(),
            was["games"].as_u64().unwrap() - 1,
            "counted for nobody: {r}"
        );
        let n = |x: &Value, k: &str| x[k].as_u64().unwrap();
        let lost = (durak == Some(*v)) as u64;
        let drew = durak.is_none() as u64;
        assert_eq!(n(&r, "losses"), n(&was, "losses") - lost, "{r} {was}");
        assert_eq!(
            n(&r, "draws"),
            n(&was, "draws") - drew,
            "no draw: {r} {was}"
        );
    }
    // A version's games: the void one found by result=void, left out of the head to head.
    for (i, r) in before["rows"].as_array().unwrap().iter().enumerate() {
        let v = r["version_id"].as_i64().unwrap();
        let h2h = games_of(&s, &lb, v, "")["head_to_head"].clone();
        let (was, now) = (&h2h_before[i][0], &h2h[0]);
        assert_eq!(was["opponent"], now["opponent"]);
        if seats.contains(&v) {
            assert_eq!(now["void_games"], 1, "{now}");
            assert_eq!(
                now["games"].as_u64(),
                was["games"].as_u64().map(|g| g - 1),
                "{now}"
            );
            assert_eq!(
                now["draws"],
                was["draws"].as_u64().unwrap() - durak.is_none() as u64
            );
            let void = games_of(&s, &lb, v, "?result=void");
            assert_eq!(void["total"], 1, "{void}");
            assert_eq!(
                void["games"][0]["result"], "void (counted for nobody)",
                "{void}"
            );
            assert_eq!(
                (
                    void["games"][0]["job"].as_i64(),
                    void["games"][0]["game"].as_u64()
                ),
                (Some(void_job), Some(void_game as u64))
            );
        }
    }
    let bad = s.get(&format!(
        "/api/bots/{}/versions/{}/games?result=voided",
        row_of(&lb, seats[0])["bot"].as_str().unwrap(),
        row_of(&lb, seats[0])["version"]
    ));
    assert_eq!(bad.status, 400, "{}", bad.json);
    assert!(bad.error().contains("result=void"), "{}", bad.error());

    // The version page's standing line: won, drawn, lost and its void games beside them.
    for v in &seats {
        let r = row_of(&lb, *v);
        let path = format!(
            "/bots/{}/versions/{}",
            r["bot"].as_str().unwrap(),
            r["version"]
        );
        let page = html(&s, &path);
        let n = |k: &str| r[k].as_u64().unwrap();
        let line = format!(
            "{} games: {} won, {} drawn, {} lost; 1 void (counted for nobody, after 4 voided \
             attempts)",
            n("games"),
            n("games") - n("losses") - n("draws"),
            n("draws"),
            n("losses")
        );
        assert!(page.contains(&line), "{path}: {line:?} in {page}");
    }

    let page = html(&s, "/");
    assert!(page.contains("void (voided)"), "the column's head");
    assert!(page.contains("<td class=\"num\">1 (4)</td>"), "{page}");
    assert!(page.contains("(1 void: counted for nobody)"), "{page}");

    // The game's JSON and page: void, and why.
    let g = s.get(&format!("/api/games/{void_job}/{void_game}")).json;
    assert_eq!(g["void"], true, "{g}");
    assert_eq!(g["voided"], json!(VOID_WHY), "{g}");
    assert!(g["loser"].is_null(), "{g}");
    let page = html(&s, &format!("/games/{void_job}/{void_game}"));
    assert!(
        page.contains("This game is void: given up after 3 voided attempts")
            && page.contains(VOID_WHY[1]),
        "{page}"
    );
    let g = s.get(&format!("/api/games/{again_job}/{again_game}")).json;
    assert!(g.get("void").is_none_or(|v| v == false), "{g}");
    assert_eq!(g["voided"], json!([VOIDED_WHY]), "{g}");
    let page = html(&s, &format!("/games/{again_job}/{again_game}"));
    assert!(
        page.contains("Played again after 1 voided attempt (")
            && page.contains(VOIDED_WHY)
            && !page.contains("This game is void"),
        "{page}"
    );
}
