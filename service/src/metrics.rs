//! `GET /metrics`: how the judge is doing, in Prometheus's text format (issue 24).
//!
//! The series are recorded through the `metrics` facade where things happen (the recorder's
//! commits, a job claimed after its lease ended, a build, a check, an HTTP answer) and rendered
//! by `metrics-exporter-prometheus`; the gauges that are the database's state (jobs by state,
//! versions by state, the check queue) are read from it at each scrape, so they never drift.
//! docs/SERVICE.md ("Metrics") says what each series means.
//!
//! The recorder is the process's (`metrics` has one global recorder): one server per process,
//! as `durak serve` is. Labels are bounded: fault kinds, job and version states, an HTTP
//! route's template (never the raw path), its method and status.

use crate::db::Db;
use crate::domain::{JobState, VersionState};
use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use metrics::{counter, gauge, histogram, Unit};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use serde::Deserialize;
use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Instant;

/// Games in the database: set from it at the start, then one more per game recorded.
pub const GAMES_RECORDED: &str = "durak_games_recorded_total";
/// The recorder's group commits (one transaction each, `ladder/recorder.rs`).
pub const RECORDER_COMMITS: &str = "durak_recorder_commits_total";
/// Jobs claimed again because their holder's lease ended unrenewed.
pub const LEASES_EXPIRED: &str = "durak_leases_expired_total";
/// Uploads unpacked into a version's folder (`submit::stage`): once per upload, and again only
/// for a check cut short by a kill (issue 24: the checker used to unpack every one again).
pub const UPLOADS_UNPACKED: &str = "durak_uploads_unpacked_total";
/// Faults in recorded games, by `kind` (`timeout`, `crash`, ...).
pub const FAULTS: &str = "durak_faults_total";
/// A version's build, by `outcome` (`ok`, `failed`).
pub const BUILD_DURATION: &str = "durak_build_duration_seconds";
/// A version's check-bot run, by `outcome` (`passed`, `failed`).
pub const CHECK_DURATION: &str = "durak_check_duration_seconds";
/// Jobs by `state` (`queued`, `claimed`, `done`, `cancelled`).
pub const JOBS: &str = "durak_jobs";
/// Versions by `state` (`queued`, `checking`, `active`, ...).
pub const VERSIONS: &str = "durak_versions";
/// Versions waiting for their build and check.
pub const CHECK_QUEUE: &str = "durak_check_queue_length";
/// HTTP answers by `route` (the matched route's template), `method` and `status`: the time
/// until the answer's head (a live stream's time is not its length).
pub const HTTP_DURATION: &str = "durak_http_request_duration_seconds";

/// The route label of a request that matched no route (a 404): one label for every such path.
pub const UNMATCHED: &str = "unmatched";

/// Seconds: builds and checks take seconds to minutes.
const SLOW_BUCKETS: [f64; 12] = [
    0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0,
];
/// Seconds: HTTP answers take microseconds to seconds.
const HTTP_BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// `[metrics]` in serve.toml.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsSection {
    /// A second address that serves `GET /metrics` to anyone who reaches it (no token): for a
    /// Prometheus on the same machine or network.
    pub listen: Option<String>,
}

/// `[metrics] listen`, checked.
pub fn resolve(s: &MetricsSection) -> Result<Option<SocketAddr>, crate::config::ConfigError> {
    let Some(text) = &s.listen else {
        return Ok(None);
    };
    text.parse().map(Some).map_err(|e| {
        let m = format!(
            "[metrics] listen = {text:?}: {e}\n  fix: give an address and a port, such as \
             \"127.0.0.1:9100\" (or leave it out: /metrics is served with the organiser's token \
             on the main address)"
        );
        crate::config::ConfigError::key("[metrics] listen", m)
    })
}

/// The process's recorder, installed on first use.
fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(BUILD_DURATION.into()), &SLOW_BUCKETS)
            .and_then(|b| {
                b.set_buckets_for_metric(Matcher::Full(CHECK_DURATION.into()), &SLOW_BUCKETS)
            })
            .and_then(|b| {
                b.set_buckets_for_metric(Matcher::Full(HTTP_DURATION.into()), &HTTP_BUCKETS)
            })
            .expect("the buckets are not empty")
            .build_recorder();
        let h = recorder.handle();
        // Another recorder installed already (none in `durak serve`): the series go there and
        // this one renders only the gauges it is given.
        let _ = metrics::set_global_recorder(recorder);
        describe();
        h
    })
}

fn describe() {
    use metrics::{describe_counter, describe_gauge, describe_histogram};
    describe_counter!(GAMES_RECORDED, "Games recorded (in the database).");
    describe_counter!(RECORDER_COMMITS, "The recorder's group commits.");
    describe_counter!(
        LEASES_EXPIRED,
        "Jobs claimed again after their holder's lease ended unrenewed."
    );
    describe_counter!(
        UPLOADS_UNPACKED,
        "Uploads unpacked into a version's folder (once each; again for a check cut short)."
    );
    describe_counter!(FAULTS, "Faults in recorded games, by kind.");
    describe_histogram!(BUILD_DURATION, Unit::Seconds, "Builds of versions.");
    describe_histogram!(CHECK_DURATION, Unit::Seconds, "check-bot runs on versions.");
    describe_gauge!(JOBS, "Jobs by state.");
    describe_gauge!(VERSIONS, "Versions by state.");
    describe_gauge!(CHECK_QUEUE, "Versions waiting for their build and check.");
    describe_histogram!(
        HTTP_DURATION,
        Unit::Seconds,
        "HTTP answers by route template, method and status (time to the answer's head)."
    );
}

/// At the start: the recorder installed, and the games and faults counters set to the games
/// and faults the database holds (a counter that restarts at 0 would tell a scrape nothing
/// about the games before).
pub fn start(db: &Db) -> Result<(), crate::db::DbError> {
    handle();
    let games: i64 = db.read(|c| c.query_row("SELECT COUNT(*) FROM games", [], |r| r.get(0)))?;
    counter!(GAMES_RECORDED).absolute(games.max(0) as u64);
    for (kind, n) in faults_in(db)? {
        counter!(FAULTS, "kind" => kind.name()).absolute(n);
    }
    // Each series is there from the first scrape, at 0.
    counter!(RECORDER_COMMITS).increment(0);
    counter!(LEASES_EXPIRED).increment(0);
    counter!(UPLOADS_UNPACKED).increment(0);
    Ok(())
}

/// The faults the games table holds, by kind (each game's `faults` is a JSON list of the
/// referee's `Fault`s; a kind this build does not know is left out).
fn faults_in(db: &Db) -> Result<Vec<(durak_protocol::FaultKind, u64)>, crate::db::DbError> {
    let rows: Vec<(String, i64)> = db.read(|c| {
        let mut s = c.prepare(
            "SELECT json_extract(f.value, '$.kind'), COUNT(*) FROM games g, \
             json_each(g.faults) f GROUP BY 1",
        )?;
        let rows = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect()
    })?;
    Ok(rows
        .into_iter()
        .filter_map(|(kind, n)| {
            let kind = serde_json::from_value(serde_json::Value::String(kind)).ok()?;
            Some((kind, n.max(0) as u64))
        })
        .collect())
}

/// The text of `GET /metrics`: the gauges read from the database now, then every series.
pub fn render(db: &Db) -> Result<String, crate::db::DbError> {
    let h = handle();
    let (jobs, versions) = db.read(|c| {
        let count = |sql: &str| -> rusqlite::Result<Vec<(String, i64)>> {
            let mut s = c.prepare_cached(sql)?;
            let rows = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect()
        };
        Ok((
            count("SELECT state, COUNT(*) FROM jobs GROUP BY state")?,
            count("SELECT state, COUNT(*) FROM versions GROUP BY state")?,
        ))
    })?;
    // Every state always shown (a state with no job or version reads 0, not its last value).
    let job_states: Vec<&'static str> = JobState::ALL.iter().map(|s| s.as_str()).collect();
    let version_states: Vec<&'static str> = VersionState::ALL.iter().map(|s| s.as_str()).collect();
    set_by_state(JOBS, &job_states, &jobs);
    set_by_state(VERSIONS, &version_states, &versions);
    let queued = versions
        .iter()
        .find(|(s, _)| s == VersionState::Queued.as_str())
        .map_or(0, |x| x.1);
    gauge!(CHECK_QUEUE).set(queued as f64);
    h.run_upkeep();
    Ok(h.render())
}

/// The gauge `name` by `state`: each of `known` (0 when absent), and any other state found.
fn set_by_state(name: &'static str, known: &[&'static str], counts: &[(String, i64)]) {
    for &state in known {
        let n = counts.iter().find(|(s, _)| s == state).map_or(0, |x| x.1);
        gauge!(name, "state" => state).set(n as f64);
    }
    for (state, n) in counts {
        if !known.contains(&state.as_str()) {
            gauge!(name, "state" => state.clone()).set(*n as f64);
        }
    }
}

/// A game recorded, with its faults' kinds.
pub fn game_recorded(faults: &[durak_protocol::Fault]) {
    counter!(GAMES_RECORDED).increment(1);
    for f in faults {
        counter!(FAULTS, "kind" => f.kind.name()).increment(1);
    }
}

/// One of the recorder's commits.
pub fn recorder_commit() {
    counter!(RECORDER_COMMITS).increment(1);
}

/// An upload unpacked into a version's folder.
pub fn unpacked() {
    counter!(UPLOADS_UNPACKED).increment(1);
}

/// A job claimed after its lease ended.
pub fn lease_expired() {
    counter!(LEASES_EXPIRED).increment(1);
}

/// A build that took `secs`.
pub fn build_done(secs: f64, ok: bool) {
    let outcome = if ok { "ok" } else { "failed" };
    histogram!(BUILD_DURATION, "outcome" => outcome).record(secs);
}

/// A check that took `secs`.
pub fn check_done(secs: f64, passed: bool) {
    let outcome = if passed { "passed" } else { "failed" };
    histogram!(CHECK_DURATION, "outcome" => outcome).record(secs);
}

/// The method as a label: the standard ones by name, any other `OTHER` (a client may send any
/// token as a method; labels stay bounded).
fn method_label(m: &axum::http::Method) -> &'static str {
    const KNOWN: [&str; 7] = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];
    KNOWN
        .into_iter()
        .find(|k| *k == m.as_str())
        .unwrap_or("OTHER")
}

/// The middleware over every route: each answer's time by route template, method and status.
pub async fn track(req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| UNMATCHED.to_string(), |p| p.as_str().to_string());
    let method = method_label(req.method());
    let start = Instant::now();
    let answer = next.run(req).await;
    let status = answer.status().as_u16().to_string();
    histogram!(HTTP_DURATION, "route" => route, "method" => method, "status" => status)
        .record(start.elapsed().as_secs_f64());
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listen_address_is_checked_with_the_fix() {
        assert_eq!(resolve(&MetricsSection::default()).unwrap(), None);
        let ok = MetricsSection {
            listen: Some("127.0.0.1:9100".into()),
        };
        assert_eq!(resolve(&ok).unwrap().unwrap().port(), 9100);
        let bad = MetricsSection {
            listen: Some("9100".into()),
        };
        let e = resolve(&bad).unwrap_err().to_string();
        assert!(e.contains("[metrics] listen") && e.contains("fix:"), "{e}");
    }

    #[test]
    fn an_unknown_method_is_one_label() {
        let m = axum::http::Method::from_bytes(b"BREW").unwrap();
        assert_eq!(method_label(&m), "OTHER");
        assert_eq!(method_label(&axum::http::Method::POST), "POST");
    }

    #[test]
    fn the_gauges_read_the_database_and_a_state_gone_reads_zero() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        start(&db).unwrap();
        let j = crate::ladder::jobs::create(&db, 1, &[1, 2], 2, 0).unwrap();
        let text = render(&db).unwrap();
        assert!(text.contains("durak_jobs{state=\"queued\"} 1"), "{text}");
        assert!(text.contains("durak_jobs{state=\"cancelled\"} 0"), "{text}");
        crate::ladder::jobs::cancel(&db, j.id).unwrap();
        let text = render(&db).unwrap();
        assert!(text.contains("durak_jobs{state=\"queued\"} 0"), "{text}");
        assert!(text.contains("durak_jobs{state=\"cancelled\"} 1"), "{text}");
        assert!(text.contains("durak_check_queue_length 0"), "{text}");
    }

    fn series(text: &str, name: &str) -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or(0.0)
    }

    #[test]
    fn a_job_claimed_after_its_lease_ended_is_counted() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        start(&db).unwrap();
        let before = series(&render(&db).unwrap(), LEASES_EXPIRED);
        let j = crate::ladder::jobs::create(&db, 1, &[1, 2], 2, 0).unwrap();
        // A lease that has ended already: the next claim takes the job over.
        let first = crate::ladder::jobs::claim(&db, "worker:1:a", -1000).unwrap();
        assert_eq!(first.map(|x| x.id), Some(j.id));
        let fresh = series(&render(&db).unwrap(), LEASES_EXPIRED);
        let again = crate::ladder::jobs::claim(&db, "worker:2:b", 60_000).unwrap();
        assert_eq!(again.map(|x| x.id), Some(j.id));
        let after = series(&render(&db).unwrap(), LEASES_EXPIRED);
        // (Other tests of this process may count theirs meanwhile: at least one more.)
        assert!(
            fresh >= before && after >= fresh + 1.0,
            "{before} {fresh} {after}"
        );
    }
}
