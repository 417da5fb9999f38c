//! Issue 14, durability: `durak serve` killed with SIGKILL while its ladder plays (and just
//! after it acknowledged an upload), then started again on the same data directory, loses no
//! recorded game, records none twice, plays again every game that was in flight, and keeps the
//! upload (which it then checks). The database is read directly after each kill. An upload is
//! unpacked once (issue 24), and a build cut short by a kill starts again from its upload.

mod common;

use common::server::{raw_request, sh_bot, stray_replays, wait_for, Server};
use durak_service::db::Db;
use durak_service::ladder::jobs;
use std::collections::BTreeMap;
use std::path::Path;

/// Every recorded game: (job, game) -> (recorded, replay path).
type Games = BTreeMap<(i64, u32), (i64, String)>;

fn games(db: &Db) -> Games {
    db.read(|c| {
        let mut s = c.prepare("SELECT job, game, recorded, replay FROM games")?;
        let rows = s.query_map([], |r| Ok(((r.get(0)?, r.get(1)?), (r.get(2)?, r.get(3)?))))?;
        rows.collect()
    })
    .unwrap()
}

/// The database after a kill: every game's replay complete, no job with more games
/// than it has, and the jobs held at the kill.
fn inspect(data: &Path) -> (Games, Vec<jobs::Job>) {
    let db = Db::open(&data.join("service.db")).unwrap();
    let g = games(&db);
    for ((job, game), (_, replay)) in &g {
        let text = durak_service::store::replays::lines(&db, data, *job, *game, replay)
            .unwrap_or_else(|e| panic!("job {job} game {game}: its replay: {e}"));
        let r = durak_replay::parse_replay(&text, replay)
            .unwrap_or_else(|e| panic!("job {job} game {game}: its replay: {e}"));
        let last = String::from_utf8(text).unwrap();
        assert!(
            last.lines()
                .last()
                .is_some_and(|l| l.contains("\"type\":\"result\"")),
            "job {job} game {game}: the replay is complete ({} lines)",
            r.lines.len()
        );
    }
    let mut per_job: BTreeMap<i64, usize> = BTreeMap::new();
    for (job, _) in g.keys() {
        *per_job.entry(*job).or_default() += 1;
    }
    for (job, n) in &per_job {
        let j = jobs::get(&db, *job).unwrap().unwrap();
        assert!(
            *n <= j.games(),
            "job {job}: {n} games recorded of {}",
            j.games()
        );
        for (_, game) in g.keys().filter(|(j2, _)| j2 == job) {
            assert!((*game as usize) < j.games(), "job {job} game {game}");
        }
    }
    let held = jobs::open_jobs(&db)
        .unwrap()
        .into_iter()
        .filter(|j| j.state == durak_service::domain::JobState::Claimed)
        .collect();
    (g, held)
}

#[test]
fn sigkill_mid_ladder_loses_no_game_and_counts_none_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let flags = ["--concurrency", "2", "--deals", "4"];
    let mut s = Server::start(&data, &flags);
    let token = s.author("ada");
    // A second server on the same data directory is refused.
    let second = std::process::Command::new(common::DURAK)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--sandbox",
            "default",
            "--data-dir",
        ])
        .arg(&data)
        .output()
        .unwrap();
    assert!(!second.status.success());
    let e = common::text(&second.stderr);
    assert!(
        e.contains("another `durak serve` is running on this data directory"),
        "{e}"
    );
    let mut before = BTreeMap::new();
    let mut in_flight = Vec::new();
    for round in 0..3 {
        let want = before.len() as u64 + 24;
        wait_for(&format!("{want} games (round {round})"), 120, || {
            (s.games() >= want).then_some(())
        });
        if round == 1 {
            // An upload acknowledged just before the kill is kept.
            let bot = sh_bot(tmp.path(), "late", "", Some("echo ok"));
            let bytes = durak_service::archive::pack(&bot).unwrap();
            let a = s.upload(&token, &bytes);
            assert_eq!(a.status, 201, "{}", a.json);
        }
        s.kill();
        let (after_kill, held) = inspect(&data);
        for (k, v) in &before {
            assert_eq!(
                after_kill.get(k),
                Some(v),
                "game {k:?} kept as it was recorded"
            );
        }
        eprintln!(
            "round {round}: {} games recorded at the kill, {} job(s) in flight",
            after_kill.len(),
            held.len()
        );
        in_flight.extend(held);
        before = after_kill;
        // A kill while the recorder wrote a replay leaves its temporary: the next start sweeps
        // it (every start, not only a data directory's first).
        let planted = data.join("replays/j1/.replay-planted.tmp");
        std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
        std::fs::write(&planted, b"torn").unwrap();
        s = Server::start(&data, &flags);
        assert!(
            !planted.exists(),
            "a start removes a killed write's temporary"
        );
        assert_eq!(
            s.organiser, None,
            "the organiser's token is printed on the first start only"
        );
    }
    // The upload was checked after the restart and plays.
    let late = s.checked("late", 1);
    assert_eq!(late["state"], "active", "{late}");
    assert_eq!(late["build"]["output"], "ok\n");
    // Every job in flight at a kill is played to its end.
    wait_for("the jobs in flight at the kills to finish", 180, || {
        let db = Db::open(&data.join("service.db")).ok()?;
        in_flight
            .iter()
            .all(|j| {
                jobs::get(&db, j.id)
                    .ok()
                    .flatten()
                    .is_some_and(|j| matches!(j.state.as_str(), "done" | "cancelled"))
            })
            .then_some(())
    });
    s.stop();
    // The games given up by the clean stop left no replay file behind.
    assert_eq!(stray_replays(&data), Vec::<std::path::PathBuf>::new());
    let (end, held) = inspect(&data);
    assert!(
        held.is_empty(),
        "a clean stop releases nothing mid-game: {held:?}"
    );
    for (k, v) in &before {
        assert_eq!(end.get(k), Some(v), "game {k:?} kept as it was recorded");
    }
    let db = Db::open(&data.join("service.db")).unwrap();
    for j in &in_flight {
        let j = jobs::get(&db, j.id).unwrap().unwrap();
        if j.state == durak_service::domain::JobState::Done {
            let n = end.keys().filter(|(job, _)| *job == j.id).count();
            assert_eq!(n, j.games(), "job {}: every game, once", j.id);
        }
    }
    // The leaderboard counts each game once.
    let s = Server::start(&data, &flags);
    let lb = s.get("/api/leaderboard").json;
    let seats: u64 = lb["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["games"].as_u64().unwrap())
        .sum();
    assert_eq!(seats, 2 * lb["games"].as_u64().unwrap(), "{lb}");
    // (The ladder goes on meanwhile: compare with what is recorded after the answer.)
    let recorded_now = games(&Db::open(&data.join("service.db")).unwrap()).len();
    assert!(
        recorded_now >= end.len() && lb["games"].as_u64().unwrap() as usize <= recorded_now,
        "{lb}: {recorded_now} games recorded"
    );
}

/// The ladder's identity is kept on its first start: a restart with another table size (or
/// variant, or deals per job) is refused with exit 2, naming the stored and the given value and
/// the fix, and the data directory is left as it was (it starts again as it was started).
#[test]
fn a_restart_with_another_table_size_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut s = Server::start(&data, &["--deals", "1"]);
    wait_for("a game", 120, || (s.games() >= 1).then_some(()));
    s.stop();
    for (flags, stored, given) in [
        (
            &["--deals", "1", "--table-size", "3"][..],
            "table_size = 2",
            "gives 3",
        ),
        (
            &["--variant", "prostoy", "--deals", "1"][..],
            "variant = podkidnoy",
            "gives prostoy",
        ),
        (&[][..], "deals = 1", "gives 2"),
    ] {
        let mut child = std::process::Command::new(common::DURAK)
            .args(["serve", "--listen", "127.0.0.1:0", "--sandbox", "default"])
            .args(flags)
            .arg("--data-dir")
            .arg(&data)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Bounded: a server that starts after all is killed (and the test fails).
        let mut status = None;
        for _ in 0..300 {
            status = child.try_wait().unwrap();
            if status.is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        if status.is_none() {
            let _ = child.kill();
            status = Some(child.wait().unwrap());
        }
        let mut e = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut e).unwrap();
        assert_eq!(status.unwrap().code(), Some(2), "{flags:?}: {e}");
        assert!(
            e.contains(stored) && e.contains(given) && e.contains("new data directory"),
            "{flags:?}: {e}"
        );
        assert!(!e.contains("listening on"), "{e}");
    }
    let s = Server::start(&data, &["--deals", "1"]);
    assert!(s.games() >= 1, "{}", s.log());
}

/// The series `durak_uploads_unpacked_total` of the server's `/metrics`.
fn unpacked(s: &Server) -> String {
    let auth = format!(
        "Authorization: Bearer {}\r\n",
        s.organiser.as_deref().unwrap()
    );
    let (status, _, body) = raw_request(&s.url, "GET", "/metrics", &auth, "");
    assert_eq!(status, 200, "{body}");
    let line = body
        .lines()
        .find(|l| l.starts_with("durak_uploads_unpacked_total "));
    line.unwrap_or("durak_uploads_unpacked_total missing")
        .to_string()
}

/// Issue 24: an upload is unpacked once, when it is accepted, and its check builds and checks
/// that folder: its archive is not read again (damaged here after the upload, the check passes
/// all the same). A check cut short by a kill starts again from a folder unpacked anew from the
/// archive, so the half-done work of its build is gone.
#[test]
fn an_upload_is_unpacked_once_and_a_build_cut_short_starts_again_from_its_upload() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let flags = ["--deals", "1"];
    let mut s = Server::start(&data, &flags);
    let org = s.organiser.clone();
    let token = s.author("ada");
    let upload = |s: &Server, name: &str, build: Option<&str>| {
        let bytes = durak_service::archive::pack(&sh_bot(tmp.path(), name, "", build)).unwrap();
        let a = s.upload(&token, &bytes);
        assert_eq!(a.status, 201, "{}", a.json);
        a.json["version"]["id"].as_i64().unwrap()
    };
    // A build that refuses to start over what it began, then waits for the test's word (60 s at
    // most: one left behind by the kill ends by itself).
    let build = "test ! -e half && touch half && for i in $(seq 600); do [ -e go ] && exit 0; \
                 sleep 0.1; done; exit 1";
    let slow = upload(&s, "slow", Some(build));
    let half = data.join(format!("bots/v{slow}/half"));
    wait_for("slow's build to start", 120, || half.exists().then_some(()));
    // The author's next upload waits for slow's check (one of an author's at a time); its
    // archive is damaged meanwhile.
    let once = upload(&s, "once", None);
    std::fs::write(data.join(format!("uploads/v{once}.archive")), "damaged").unwrap();
    assert_eq!(unpacked(&s), "durak_uploads_unpacked_total 2");
    s.kill();
    s = Server::start(&data, &flags);
    s.organiser = org;
    // slow's folder was made again from its upload before the server answered (its half is
    // gone: the build would refuse to start over it), and its build starts over.
    wait_for("slow's build to start over", 120, || {
        let v = s.get("/api/bots/slow/versions/1").json;
        assert_ne!(v["state"], "failed", "{v}");
        half.exists().then_some(())
    });
    std::fs::write(data.join(format!("bots/v{slow}/go")), "").unwrap();
    let v = s.checked("slow", 1);
    assert_eq!(v["state"], "active", "{v}");
    // once is checked in its folder as unpacked at its upload: its archive is not read.
    let v = s.checked("once", 1);
    assert_eq!(v["state"], "active", "{v}");
    assert_eq!(
        unpacked(&s),
        "durak_uploads_unpacked_total 1",
        "this run unpacked slow's upload again, and nothing else"
    );
}
