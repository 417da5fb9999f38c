//! Challenges (issue 25): an author plays their bot (its version in the ladder) against any bot
//! in the ladder for N deals, heads-up on paired deals (every deal at both seat rotations), as
//! one job of kind `challenge` at a priority below a new version's first games and its
//! comparison and above the ladder's own jobs (`jobs::priority`). Unrated: the leaderboard
//! counts ladder jobs only. Capped (`[challenges] max_deals` a challenge) and within a daily
//! quota per author (`per_day`, counted per UTC day). Its figures are those of the comparison
//! (`compare::heads_up`): score, the Elo above the opponent with its 95 % interval paired by
//! deal, and the likelihood of superiority.

use super::compare;
use super::jobs::{self, priority};
use super::Ladder;
use crate::db::{now_ms, DbError};
use crate::domain::{JobState, VersionState};
use crate::store::{self, GameRow, Version};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

/// The jobs' kind.
pub const KIND: &str = "challenge";

/// `[challenges]`, as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChallengeSection {
    pub max_deals: Option<u32>,
    pub per_day: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeConfig {
    /// Deals a challenge may ask for (each played at both rotations).
    pub max_deals: u32,
    /// Challenges an author may make per UTC day.
    pub per_day: u32,
}

impl Default for ChallengeConfig {
    fn default() -> ChallengeConfig {
        ChallengeConfig {
            max_deals: 50,
            per_day: 10,
        }
    }
}

pub fn resolve(s: &ChallengeSection) -> Result<ChallengeConfig, crate::config::ConfigError> {
    let d = ChallengeConfig::default();
    let max_deals = s.max_deals.unwrap_or(d.max_deals);
    if max_deals == 0 || max_deals > 1000 {
        let m = format!(
            "[challenges] max_deals = {max_deals}: a challenge plays 1 to 1000 deals\n  fix: set \
             max_deals = {}",
            d.max_deals
        );
        return Err(crate::config::ConfigError::key("[challenges] max_deals", m));
    }
    Ok(ChallengeConfig {
        max_deals,
        per_day: s.per_day.unwrap_or(d.per_day),
    })
}

/// A refusal: the HTTP status and what to do.
#[derive(Debug, PartialEq)]
pub struct Refused {
    pub status: u16,
    pub message: String,
    pub retry_after: Option<u64>,
}

fn refused(status: u16, message: String) -> Refused {
    Refused {
        status,
        message,
        retry_after: None,
    }
}

fn in_ladder(ladder: &Ladder, bot: &str) -> Result<Option<Version>, DbError> {
    Ok(store::versions_of_bot(&ladder.db, bot)?
        .into_iter()
        .find(|v| v.state == VersionState::Active))
}

/// Make a challenge of `account`'s bot `bot` against `opponent` for `deals` deals: its id.
pub fn create(
    ladder: &Ladder,
    account: i64,
    bot: &str,
    opponent: &str,
    deals: u32,
) -> Result<Result<i64, Refused>, DbError> {
    let cfg = &ladder.cfg.challenges;
    if deals == 0 || deals > cfg.max_deals {
        return Ok(Err(refused(
            400,
            format!(
                "deals = {deals}: a challenge on this server plays 1 to {} deals ([challenges] \
                 max_deals)\n  fix: ask for {} deals or fewer",
                cfg.max_deals, cfg.max_deals
            ),
        )));
    }
    let Some(mine) = in_ladder(ladder, bot)? else {
        return Ok(Err(refused(
            404,
            format!(
                "bot = {bot:?}: no such bot in the ladder\n  fix: name one of your bots with a \
                 version in the ladder"
            ),
        )));
    };
    if mine.account != account {
        return Ok(Err(refused(
            403,
            format!("bot = {bot:?} belongs to another author\n  fix: challenge with your own bot"),
        )));
    }
    let Some(theirs) = in_ladder(ladder, opponent)? else {
        return Ok(Err(refused(
            404,
            format!(
                "opponent = {opponent:?}: no such bot in the ladder\n  fix: name a bot on the \
                 leaderboard"
            ),
        )));
    };
    if theirs.bot_id == mine.bot_id {
        return Ok(Err(refused(
            400,
            format!(
                "opponent = {opponent:?} is the bot itself\n  fix: name another bot (a new \
                 version plays the previous one by itself)"
            ),
        )));
    }
    let now = now_ms();
    let day_start = now - now.rem_euclid(86_400_000);
    let today: i64 = ladder.db.read(|c| {
        c.query_row(
            "SELECT COUNT(*) FROM challenges WHERE account = ?1 AND created >= ?2",
            params![account, day_start],
            |r| r.get(0),
        )
    })?;
    if today >= cfg.per_day as i64 {
        let wait = (crate::quota::ms_to_utc_midnight(now) as u64).div_ceil(1000);
        return Ok(Err(Refused {
            status: 429,
            message: format!(
                "you have made {today} challenges today, the most this server takes from one \
                 author in a day ([challenges] per_day = {}); the count starts again at 00:00 \
                 UTC, in {}\n  fix: challenge again after 00:00 UTC",
                cfg.per_day,
                crate::quota::duration_words(wait)
            ),
            retry_after: Some(wait),
        }));
    }
    let job = jobs::create_kind(
        &ladder.db,
        ladder.seed,
        &[mine.id, theirs.id],
        deals,
        priority::CHALLENGE,
        KIND,
    )?;
    let id = ladder.db.write(|c| {
        c.execute(
            "INSERT INTO challenges(account, version, opponent, deals, job, created) VALUES \
             (?1, ?2, ?3, ?4, ?5, ?6)",
            params![account, mine.id, theirs.id, deals, job.id, now],
        )?;
        Ok(c.last_insert_rowid())
    })?;
    ladder.notify();
    Ok(Ok(id))
}

/// A challenge as `GET /api/challenges/ID` shows it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct ChallengeView {
    pub id: i64,
    /// The challenger (`bot v3`) and the opponent, each a version.
    pub bot: String,
    pub version: i64,
    pub version_id: i64,
    pub opponent: String,
    pub opponent_version: i64,
    pub deals: u32,
    /// `queued`, `playing`, `done` or `cancelled` (a version left the ladder meanwhile).
    pub state: String,
    /// Games played and counted (the void ones are not).
    pub games: u64,
    pub planned_games: u64,
    /// Void games (given up after 3 voided attempts: a bot starved by the machine), counted
    /// for nobody: not a win, draw or loss, not in the score, the Elo or the LOS.
    pub void_games: u64,
    /// Deals left out of the paired figures because a game of theirs is void.
    pub void_deals: u64,
    /// Games the challenger won, drew and lost (was the durak).
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The challenger's mean score per game (a draw ½).
    pub score: f64,
    /// Its Elo above the opponent and the 95 % interval, paired by deal; `null` ends unbounded.
    pub elo: Option<f64>,
    pub elo_ci95: [Option<f64>; 2],
    /// The likelihood that the challenger is the stronger (`null` without games).
    pub los: Option<f64>,
    pub created: i64,
    pub url: String,
}

/// The likelihood of superiority from an Elo and its 95 % interval (a normal estimate).
pub fn los(elo: Option<f64>, ci: [Option<f64>; 2], score: f64, games: u64) -> Option<f64> {
    if games == 0 {
        return None;
    }
    match (elo, ci) {
        (Some(e), [Some(lo), Some(hi)]) if hi > lo => {
            let se = (hi - lo) / (2.0 * durak_tournaments::stats::z_two_sided());
            Some(durak_tournaments::stats::normal_cdf(e / se))
        }
        (Some(e), _) => Some(if e > 0.0 {
            1.0
        } else if e < 0.0 {
            0.0
        } else {
            0.5
        }),
        (None, _) => Some(if score >= 1.0 { 1.0 } else { 0.0 }),
    }
}

/// The games `version` won, drew and lost among `games` (a void game is none of them).
pub fn tally(games: &[GameRow], version: i64) -> (u64, u64, u64) {
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for g in games.iter().filter(|g| !g.void) {
        let seat = g.seats.iter().position(|&s| s == version);
        match (g.loser, seat) {
            (None, _) => draws += 1,
            (Some(l), Some(s)) if l == s => losses += 1,
            _ => wins += 1,
        }
    }
    (wins, draws, losses)
}

/// Challenge `id` and its games (`None`: no such challenge).
pub fn view(
    ladder: &Ladder,
    id: i64,
) -> Result<Option<(ChallengeView, Vec<GameRow>)>, compare::CompareError> {
    let row: Option<(i64, i64, u32, i64, i64)> = ladder.db.read(|c| {
        c.query_row(
            "SELECT version, opponent, deals, job, created FROM challenges WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()
    })?;
    let Some((version, opponent, deals, job, created)) = row else {
        return Ok(None);
    };
    let (Some(v), Some(o)) = (
        store::version(&ladder.db, version)?,
        store::version(&ladder.db, opponent)?,
    ) else {
        return Ok(None);
    };
    let games: Vec<GameRow> = ladder.db.read(|c| {
        let mut s = c.prepare(&format!(
            "SELECT {} FROM games g WHERE g.job = ?1 ORDER BY g.game",
            store::GAME_COLUMNS
        ))?;
        let rows = s.query_map([job], store::row_to_game)?;
        rows.collect()
    })?;
    let st = compare::heads_up(ladder.cfg.compare.params, version, opponent, &games)?;
    // A challenge reads as its job does, but that a claimed one is "playing".
    let job_state = jobs::get(&ladder.db, job)?.map_or(JobState::Cancelled, |j| j.state);
    let state = match job_state {
        JobState::Claimed => "playing",
        s => s.as_str(),
    }
    .to_string();
    let (wins, draws, losses) = tally(&games, version);
    let voids = compare::Voids::of(&games);
    let view = ChallengeView {
        id,
        bot: v.bot.clone(),
        version: v.n,
        version_id: v.id,
        opponent: o.bot.clone(),
        opponent_version: o.n,
        deals,
        state,
        games: games.len() as u64 - voids.games,
        planned_games: 2 * deals as u64,
        void_games: voids.games,
        void_deals: voids.deals,
        wins,
        draws,
        losses,
        score: st.score,
        elo: st.elo,
        elo_ci95: st.elo_ci95,
        los: los(st.elo, st.elo_ci95, st.score, st.games),
        created,
        url: format!("/challenges/{id}"),
    };
    Ok(Some((view, games)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_los_follows_the_estimate_and_its_interval() {
        assert_eq!(los(None, [None, None], 0.0, 0), None, "no games");
        let even = los(Some(0.0), [Some(-50.0), Some(50.0)], 0.5, 20).unwrap();
        assert!((even - 0.5).abs() < 1e-9);
        let ahead = los(Some(50.0), [Some(1.0), Some(99.0)], 0.6, 200).unwrap();
        assert!(ahead > 0.975 && ahead < 0.99, "{ahead}");
        assert_eq!(los(None, [None, None], 1.0, 4), Some(1.0), "won everything");
        assert_eq!(
            los(None, [None, None], 0.0, 4),
            Some(0.0),
            "lost everything"
        );
    }

    #[test]
    fn a_void_game_is_no_win_draw_or_loss_and_not_in_the_figures() {
        let games = compare::tests::four_deals_one_void();
        assert_eq!(tally(&games, 1), (7, 0, 0), "the void game is no draw");
        assert_eq!(tally(&games, 2), (0, 0, 7));
        let params = compare::CompareConfig::default().params;
        let st = compare::heads_up(params, 1, 2, &games);
        let st = st.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((st.games, st.deals, st.score), (7, 3, 1.0));
        assert_eq!(los(st.elo, st.elo_ci95, st.score, st.games), Some(1.0));
    }

    #[test]
    fn the_cap_is_checked() {
        assert_eq!(
            resolve(&ChallengeSection::default()).unwrap(),
            ChallengeConfig::default()
        );
        let e = resolve(&ChallengeSection {
            max_deals: Some(0),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("max_deals = 0") && e.contains("fix:"), "{e}");
    }
}
