//! The views: the data the JSON API, the pages, the pages' cache and the live leaderboard show
//! (status, leaderboard, bots, versions, games, an author's own), built from the database and
//! the ladder in one place. No HTTP here: `http/api/` serves them as JSON, `http/pages.rs` and
//! `http/version_page.rs` draw them, `http/cache.rs` keeps the version views, `http/live.rs`
//! streams the leaderboard. Their types derive `utoipa::ToSchema`: the OpenAPI document's
//! schemas are these (`http/openapi.rs`).

pub mod version;

use crate::auth;
use crate::db::DbError;
use crate::domain::{JobState, VersionState};
use crate::ladder::board::Leaderboard;
use crate::ladder::Ladder;
use crate::private;
use crate::store::{self, GameRow, Version};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Serialize, utoipa::ToSchema)]
pub struct Status {
    pub service: &'static str,
    pub version: &'static str,
    pub variant: String,
    pub table_size: usize,
    pub deals_per_job: u32,
    pub sandbox: String,
    /// `open` or `invite`.
    #[schema(value_type = String)]
    pub registration: crate::config::Registration,
    pub paused: bool,
    pub games: u64,
    pub games_this_run: u64,
    pub active_versions: usize,
    pub queued_versions: usize,
    pub open_jobs: usize,
    /// The largest archive an upload may be, in bytes.
    pub max_archive: u64,
    /// The server's own tables play (else only workers do).
    pub local_play: bool,
    /// Jobs held by remote workers now.
    pub worker_jobs: usize,
    /// The recorder's group commits so far (this run), and the games in them.
    pub commits: u64,
    pub committed_games: u64,
}

pub fn status_of(ladder: &Ladder) -> Result<Status, DbError> {
    let l = ladder;
    let versions = store::versions(&l.db, &[])?;
    let open = crate::ladder::jobs::open_jobs(&l.db)?;
    Ok(Status {
        service: "durak serve",
        version: env!("CARGO_PKG_VERSION"),
        variant: l.cfg.ladder.variant.name().to_string(),
        table_size: l.cfg.ladder.table_size,
        deals_per_job: l.cfg.ladder.deals,
        sandbox: l.cfg.sandbox.name().to_string(),
        registration: l.cfg.registration,
        paused: l.is_paused(),
        games: store::game_count(&l.db)?,
        games_this_run: l.recorded.load(std::sync::atomic::Ordering::Relaxed),
        active_versions: versions
            .iter()
            .filter(|v| v.state == VersionState::Active)
            .count(),
        queued_versions: versions.iter().filter(|v| v.state.in_check()).count(),
        open_jobs: open.len(),
        max_archive: l.cfg.upload.max_archive,
        local_play: l.cfg.ladder.local_play,
        worker_jobs: open
            .iter()
            .filter(|j| {
                j.state == JobState::Claimed
                    && j.owner.as_deref().is_some_and(|o| o.starts_with("worker:"))
            })
            .count(),
        commits: l
            .recorder
            .stats
            .commits
            .load(std::sync::atomic::Ordering::Relaxed),
        committed_games: l
            .recorder
            .stats
            .games
            .load(std::sync::atomic::Ordering::Relaxed),
    })
}

/// `GET /api/leaderboard`: the leaderboard, whether the ladder is paused and the time limits
/// in force.
#[derive(Serialize, utoipa::ToSchema)]
pub struct LeaderboardOut {
    #[serde(flatten)]
    pub board: Leaderboard,
    pub paused: bool,
    pub limits: LimitsInForce,
}

/// The time limits in force, and since when (a restart that changed them applies them in
/// full: docs/SERVICE.md, "Restarts").
#[derive(Serialize, utoipa::ToSchema)]
pub struct LimitsInForce {
    pub move_ms: u64,
    pub bank_ms: u64,
    pub startup_ms: u64,
    pub max_line_bytes: usize,
    /// When these limits came into force (unix ms).
    pub since: i64,
}

/// The leaderboard's JSON (`board` given: the one to show; else the current one), with whether
/// the ladder is paused.
pub fn leaderboard_json(ladder: &Ladder, board: Option<Arc<Leaderboard>>) -> Value {
    let lb: Arc<Leaderboard> = board.unwrap_or_else(|| ladder.board.current());
    let l = &ladder.cfg.ladder.limits;
    let out = LeaderboardOut {
        board: (*lb).clone(),
        paused: ladder.is_paused(),
        limits: LimitsInForce {
            move_ms: l.move_ms,
            bank_ms: l.bank_ms,
            startup_ms: l.startup_ms,
            max_line_bytes: l.max_line_bytes,
            since: ladder.limits_since,
        },
    };
    serde_json::to_value(out).expect("json")
}

/// A bot and its versions.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BotView {
    pub bot: String,
    pub author: String,
    pub house: bool,
    pub versions: Vec<VersionSummary>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct VersionSummary {
    #[serde(flatten)]
    pub version: Version,
    pub games: u64,
    /// Its row on the leaderboard, when it is in the ladder.
    pub standing: Option<crate::ladder::board::Row>,
}

pub fn bot_view(ladder: &Ladder, name: &str) -> Result<Option<BotView>, DbError> {
    let vs = store::versions_of_bot(&ladder.db, name)?;
    let Some(first) = vs.first() else {
        return Ok(None);
    };
    let lb = ladder.board.current();
    let mut versions = Vec::new();
    for v in &vs {
        let (_, games) = store::games_of_version(&ladder.db, v.id, 0)?;
        versions.push(VersionSummary {
            standing: lb.rows.iter().find(|r| r.version_id == v.id).cloned(),
            version: v.clone(),
            games,
        });
    }
    Ok(Some(BotView {
        bot: first.bot.clone(),
        author: first.author.clone(),
        house: first.house,
        versions,
    }))
}

/// A version: its reports, its latest games and faults (what the pages' cache keeps: its
/// standing on the leaderboard is added when it is served, [`VersionOut`]).
#[derive(Serialize, utoipa::ToSchema)]
pub struct VersionView {
    #[serde(flatten)]
    pub version: Version,
    /// The build's output (absent without a `build` command).
    #[schema(value_type = Option<Object>)]
    pub build: Option<Value>,
    /// check-bot's report (JSON).
    #[schema(value_type = Option<Object>)]
    pub report: Option<Value>,
    /// check-bot's report as text.
    pub report_text: Option<String>,
    pub games: u64,
    pub latest_games: Vec<GameSummary>,
    /// Its latest faulted games.
    pub faults: Vec<GameSummary>,
    /// Per kind of decision, from check-bot (median, p95, max ms).
    #[schema(value_type = Vec<Object>)]
    pub timing: Value,
    /// Its comparison with the bot's previous version (`ladder/compare/`), if it has one.
    pub previous: Option<crate::ladder::compare::Comparison>,
    /// Per kind of decision, from the replays of its newest games (`ladder_timing_games` of
    /// them, at most `version::TIMING_GAMES`): median, p95, max ms.
    pub ladder_timing: Vec<version::DecisionTime>,
    pub ladder_timing_games: u64,
    /// Its endgame accuracy over its games analysed so far (issue 26, `crate::analysis`).
    pub endgame: crate::analysis::VersionAccuracy,
    /// Its head to head per opponent over all its games (served with its games list,
    /// `version::games_page`, not in this JSON).
    #[serde(skip)]
    #[schema(ignore)]
    pub head_to_head: Vec<version::HeadToHead>,
}

/// A version as served: its view and its row on the leaderboard now.
#[derive(Serialize, utoipa::ToSchema)]
pub struct VersionOut<'a> {
    #[serde(flatten)]
    #[schema(value_type = VersionView)]
    pub view: &'a VersionView,
    pub standing: Option<crate::ladder::board::Row>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct GameSummary {
    pub job: i64,
    pub game: u32,
    pub seat: usize,
    /// Labels (`bot vN`) by seat.
    pub seats: Vec<String>,
    pub result: String,
    /// The protocol's faults (`schemas/replay.json`), a bot's stderr left out.
    #[schema(value_type = Vec<Object>)]
    pub faults: Vec<durak_protocol::Fault>,
    pub moves: u32,
    pub recorded: i64,
    pub url: String,
}

/// The labels of the seats of `games`, read in one query.
pub fn seat_labels<'a>(
    ladder: &Ladder,
    games: impl IntoIterator<Item = &'a GameRow>,
) -> Result<HashMap<i64, String>, crate::db::DbError> {
    let ids: Vec<i64> = games
        .into_iter()
        .flat_map(|g| g.seats.iter().copied())
        .collect();
    store::labels(&ladder.db, &ids)
}

pub fn labels(names: &HashMap<i64, String>, ids: &[i64]) -> Vec<String> {
    ids.iter()
        .map(|id| {
            names
                .get(id)
                .cloned()
                .unwrap_or_else(|| format!("version {id}"))
        })
        .collect()
}

pub fn summary(names: &HashMap<i64, String>, g: &GameRow, seat: usize) -> GameSummary {
    let seats = labels(names, &g.seats);
    let result = match g.loser {
        _ if g.void => "void (counted for nobody)".to_string(),
        Some(l) if l == seat => "lost (durak)".to_string(),
        Some(l) => format!(
            "{} was the durak",
            seats.get(l).cloned().unwrap_or_default()
        ),
        None => "draw".to_string(),
    };
    GameSummary {
        job: g.job,
        game: g.game,
        seat,
        seats,
        result,
        faults: g
            .faults
            .iter()
            .map(|f| durak_protocol::Fault {
                detail: private::public_detail(&f.detail),
                ..f.clone()
            })
            .collect(),
        moves: g.moves,
        recorded: g.recorded,
        url: format!("/games/{}/{}", g.job, g.game),
    }
}

/// A version's view from the database (the pages' cache calls it: `http/cache.rs`).
/// A version's view that could not be made: the database, its comparison's test or its endgame
/// analysis. Always the server's fault: 500 (`From<ViewError> for ApiError`).
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error(transparent)]
    Compare(#[from] crate::ladder::compare::CompareError),
    #[error(transparent)]
    Analysis(#[from] crate::analysis::AnalysisError),
}

pub fn version_view(ladder: &Ladder, bot: &str, n: i64) -> Result<Option<VersionView>, ViewError> {
    let Some(v) = store::versions_of_bot(&ladder.db, bot)?
        .into_iter()
        .find(|v| v.n == n)
    else {
        return Ok(None);
    };
    let (build, report) = store::reports(&ladder.db, v.id)?;
    let report: Option<Value> = report.and_then(|r| serde_json::from_str(&r).ok());
    let report_text = report
        .as_ref()
        .and_then(|r| r["text"].as_str().map(str::to_string));
    let (latest, games) = store::games_of_version(&ladder.db, v.id, 30)?;
    let faulted = store::faults_of_version(&ladder.db, v.id, 20)?;
    let names = seat_labels(ladder, latest.iter().chain(faulted.iter().map(|(g, _)| g)))?;
    let seat_of = |g: &GameRow| g.seats.iter().position(|&x| x == v.id).unwrap_or(0);
    let latest_games = latest
        .iter()
        .map(|g| summary(&names, g, seat_of(g)))
        .collect();
    let faults = faulted
        .iter()
        .map(|(g, seat)| summary(&names, g, *seat))
        .collect();
    let timing = report
        .as_ref()
        .and_then(|r| r.get("timing").cloned())
        .unwrap_or(json!([]));
    let previous = crate::ladder::compare::view(&ladder.db, &ladder.cfg.compare, v.id)?;
    let (newest, _) = store::games_of_version(&ladder.db, v.id, version::TIMING_GAMES)?;
    let newest: Vec<(&GameRow, usize)> = newest.iter().map(|g| (g, seat_of(g))).collect();
    let endgame = crate::analysis::of_version(&ladder.db, v.id)?;
    Ok(Some(VersionView {
        head_to_head: version::head_to_head(ladder, v.id)?,
        ladder_timing: version::timing(ladder, &newest),
        ladder_timing_games: newest.len() as u64,
        previous,
        endgame,
        version: v,
        build: build.and_then(|b| serde_json::from_str(&b).ok()),
        report,
        report_text,
        games,
        latest_games,
        faults,
        timing,
    }))
}

/// A version's row on the leaderboard now.
pub fn standing_of(ladder: &Ladder, version: i64) -> Option<crate::ladder::board::Row> {
    ladder
        .board
        .current()
        .rows
        .iter()
        .find(|r| r.version_id == version)
        .cloned()
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct GameView {
    #[serde(flatten)]
    pub game: GameRow,
    pub labels: Vec<String>,
    pub replay_url: String,
    /// The seats whose stderr the reader may not see (left out of the replay served to them).
    pub stderr_hidden: Vec<usize>,
    /// Said when some are: whose log it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_note: Option<&'static str>,
}

/// A game as `who` may read it: the faults' details without a bot's stderr, and which seats'
/// logs are left out for them (`super::private`).
pub fn game_view(
    ladder: &Ladder,
    job: i64,
    game: u32,
    who: Option<&auth::Account>,
) -> Result<Option<GameView>, DbError> {
    let Some(g) = store::game(&ladder.db, job, game)? else {
        return Ok(None);
    };
    let names = seat_labels(ladder, [&g])?;
    let hidden = private::hidden(&private::visible_seats(&ladder.db, &g, who)?);
    Ok(Some(GameView {
        labels: labels(&names, &g.seats),
        replay_url: format!("/api/games/{job}/{game}/replay"),
        stderr_note: (!hidden.is_empty()).then_some(private::NOTE),
        stderr_hidden: hidden,
        game: private::public_row(g),
    }))
}

/// The author's own page: account, bots' versions, tokens.
#[derive(Serialize, utoipa::ToSchema)]
pub struct MeView {
    pub account: auth::Account,
    pub versions: Vec<Version>,
    pub tokens: Vec<TokenInfo>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct TokenInfo {
    pub id: i64,
    pub label: String,
    pub created: i64,
    pub revoked: bool,
}

pub fn me_view(ladder: &Ladder, a: &auth::Account) -> Result<MeView, DbError> {
    let tokens = ladder.db.read(|c| {
        let mut st = c.prepare(
            "SELECT id, label, created, revoked FROM tokens WHERE account = ?1 ORDER BY id",
        )?;
        let rows = st.query_map([a.id], |r| {
            Ok(TokenInfo {
                id: r.get(0)?,
                label: r.get(1)?,
                created: r.get(2)?,
                revoked: r.get::<_, i64>(3)? != 0,
            })
        })?;
        rows.collect()
    })?;
    Ok(MeView {
        account: a.clone(),
        versions: store::versions_of_account(&ladder.db, a.id)?,
        tokens,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::ApiError;

    #[test]
    fn a_view_the_database_cannot_make_answers_500_with_its_message() {
        let e = ViewError::from(DbError(rusqlite::Error::QueryReturnedNoRows));
        assert!(e.to_string().starts_with("database: "), "{e}");
        let answer = ApiError::from(e);
        assert_eq!(answer.status.as_u16(), 500);
        assert!(
            answer.message.starts_with("database: "),
            "{}",
            answer.message
        );
        let e = crate::ladder::compare::CompareError::from(DbError(
            rusqlite::Error::QueryReturnedNoRows,
        ));
        assert_eq!(ApiError::from(e).status.as_u16(), 500);
    }

    #[test]
    fn a_replay_that_is_not_one_names_its_file() {
        let e = durak_replay::parse_replay(b"not json\n", "games/1/1.jsonl").unwrap_err();
        let e = version::SimulateError::Parse {
            path: "games/1/1.jsonl".into(),
            source: e,
        };
        assert!(e.to_string().starts_with("games/1/1.jsonl: "), "{e}");
    }
}
