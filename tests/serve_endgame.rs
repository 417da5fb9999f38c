//! Issue 26 on the judge service: a version's page gives its endgame accuracy over its games,
//! the sums of what `durak analyze` (with the service's budget) says of its seat in each, each
//! game analysed once and kept (`game_analysis`), and a game's page holds its endgame's values
//! for the viewer. Against a real server on loopback whose ladder plays the house bots.

mod common;

use common::server::{wait_for, Server};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const DURAK: &str = env!("CARGO_BIN_EXE_durak");

/// `durak analyze --json` of a replay with the service's budget.
fn analyze(replay: &Path) -> Value {
    let o = Command::new(DURAK)
        .args(["analyze", "--json", "--budget"])
        .arg(durak_service::analysis::BUDGET.to_string())
        .arg(replay)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn the_version_page_gives_the_endgame_accuracy_of_its_games() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let s = Server::start(&data, &[]);
    let path = "/api/bots/house-random/versions/1";
    wait_for("house-random's first games", 120, || {
        (s.get(path).json["games"].as_u64()? >= 4).then_some(())
    });
    // The analysis runs on its own thread at the scheduler's idle priority (policy 5,
    // SCHED_IDLE): it never takes a CPU from a bot's clock or from the server's answers.
    let task = Path::new("/proc")
        .join(s.child.id().to_string())
        .join("task");
    let analyser = std::fs::read_dir(&task)
        .unwrap()
        .map(|t| t.unwrap().path())
        .find(|t| {
            std::fs::read_to_string(t.join("comm")).is_ok_and(|c| c.trim() == "ladder-analysis")
        })
        .expect("the ladder-analysis thread");
    let policy = |path: &Path| {
        let sched = std::fs::read_to_string(path.join("sched")).unwrap();
        let p = sched.lines().find_map(|l| {
            l.strip_prefix("policy")?
                .split(':')
                .nth(1)?
                .trim()
                .parse::<u32>()
                .ok()
        });
        (p, sched)
    };
    let (p, sched) = policy(&analyser);
    assert_eq!(p, Some(5), "{sched}");
    // It solves in a process of its own (sharing the server's memory slowed the tables),
    // started with its first game, also at idle priority.
    let worker = wait_for("the `durak analysis-worker` process", 120, || {
        std::fs::read_dir(&task)
            .ok()?
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("children")).ok())
            .flat_map(|c| c.split_whitespace().map(String::from).collect::<Vec<_>>())
            .map(|pid| Path::new("/proc").join(pid))
            .find(|p| {
                std::fs::read(p.join("cmdline"))
                    .is_ok_and(|c| c.split(|b| *b == 0).any(|a| a == b"analysis-worker"))
            })
    });
    let (p, sched) = policy(&worker);
    assert_eq!(p, Some(5), "{sched}");
    s.pause_and_settle();
    // The background analyser catches up with the paused ladder and the view shows it.
    let v = wait_for("every game of house-random analysed", 180, || {
        let v = s.get(path).json;
        (v["endgame"]["games_analysed"] == v["games"]).then_some(v)
    });
    let games = v["games"].as_u64().unwrap();
    let e = &v["endgame"];
    let analysed = e["games_analysed"].as_u64().unwrap();
    // The games analysed, from the table the service keeps, and what `durak analyze` says of
    // the version's seat in each.
    let db = durak_service::db::Db::open(&data.join("service.db")).unwrap();
    let id = v["id"].as_i64().unwrap();
    let rows: Vec<(i64, i64, i64)> = db
        .read(|c| {
            let mut q = c.prepare(
                "SELECT s.job, s.game, s.seat FROM game_seats s JOIN game_analysis a ON \
                 a.job = s.job AND a.game = s.game WHERE s.version = ?1",
            )?;
            let rows = q.query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect()
        })
        .unwrap();
    assert_eq!(rows.len() as u64, analysed, "{rows:?}");
    let mut want = (0, 0, 0);
    let mut with_values = None;
    for &(job, game, seat) in &rows {
        // `durak analyze` of the replay as a file.
        let replay = data.join(format!("analysed-j{job}-g{game}.jsonl.zst"));
        std::fs::write(
            &replay,
            common::server::stored_replay(&data, job, game as u32).1,
        )
        .unwrap();
        let a = analyze(&replay);
        let seat = &a["summary"]["seats"][seat as usize];
        let (d, b) = (
            seat["decisions_valued"].as_u64().unwrap(),
            seat["blunders"].as_u64().unwrap(),
        );
        want.0 += d;
        want.1 += b;
        want.2 += u64::from(d > 0);
        if a["endgame_from"].is_u64() {
            with_values.get_or_insert((job, game));
        }
    }
    assert_eq!(
        (
            e["decisions"].as_u64().unwrap(),
            e["blunders"].as_u64().unwrap(),
            e["games_valued"].as_u64().unwrap()
        ),
        want,
        "{e}"
    );
    if want.0 > 0 {
        let share = (want.0 - want.1) as f64 / want.0 as f64;
        assert!(
            (e["accuracy"].as_f64().unwrap() - share).abs() < 1e-9,
            "{e}"
        );
    } else {
        assert!(e["accuracy"].is_null(), "{e}");
    }
    // The page says it.
    let html = s.get("/bots/house-random/versions/1").json["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(html.contains("Endgame accuracy"), "{html}");
    assert!(
        html.contains(&format!("over {analysed} of its {games} game")),
        "{html}"
    );

    // A game's page holds its values; the analysis is kept, not computed again.
    let (job, game) = with_values.expect("an endgame among the games analysed");
    let page = s.get(&format!("/games/{job}/{game}")).json["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(page.contains("\"eg\":[\""), "no values on the game's page");
    let count = || -> i64 {
        db.read(|c| c.query_row("SELECT COUNT(*) FROM game_analysis", [], |r| r.get(0)))
            .unwrap()
    };
    let rows = count();
    assert!(rows as u64 >= analysed, "{rows} rows");
    let again = s.get(&format!("/games/{job}/{game}")).json["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(page, again);
    assert_eq!(count(), rows, "the game was not analysed twice");
}
