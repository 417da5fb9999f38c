//! Starting a comparison, and keeping the running ones going: the scheduler's [`tick`] opens a
//! job for each that has none, and once its test stops cancels what is left, writes the
//! verdict down and decides a version waiting for it (`[compare] require_not_worse`).

use super::{games_left, may_play, status, stopped_at, CompareError, Comparison, Verdict, KIND};
use crate::db::{Db, DbError};
use crate::domain::{comparisons, ComparisonState, VersionState};
use crate::ladder::jobs::{self, priority};
use crate::ladder::Ladder;
use crate::store;
use rusqlite::{params, OptionalExtension};

/// Start comparing `version` with `previous`.
pub fn begin(db: &Db, version: i64, previous: i64) -> Result<(), crate::db::DbError> {
    crate::domain::comparisons::begin(db, version, previous)
}

/// The version a new version of the same bot would be compared with: the bot's version in the
/// ladder (none for a house bot, or when the bot has none active).
pub fn previous_of(db: &Db, version: i64) -> Result<Option<i64>, crate::db::DbError> {
    db.read(|c| {
        c.query_row(
            "SELECT p.id FROM versions v JOIN versions p ON p.bot = v.bot AND p.id != v.id JOIN \
             bots b ON b.id = v.bot WHERE v.id = ?1 AND p.state = ?2 AND b.house = 0 ORDER BY \
             p.n DESC LIMIT 1",
            params![version, VersionState::Active],
            |r| r.get(0),
        )
        .optional()
    })
}

/// Keep the running comparisons going (called by the scheduler): stop those whose test
/// decided, reached `max_games` or lost a version, and open a job for each other one that has
/// none. Returns how many jobs it opened.
pub fn tick(ladder: &Ladder) -> Result<usize, CompareError> {
    let cfg = &ladder.cfg.compare;
    let running = comparisons::running(&ladder.db)?;
    if running.is_empty() {
        return Ok(0);
    }
    let open = jobs::open_jobs(&ladder.db)?;
    let mut made = 0;
    for (version, previous) in running {
        let (Some(v), Some(p)) = (
            store::version(&ladder.db, version)?,
            store::version(&ladder.db, previous)?,
        ) else {
            continue;
        };
        let both = status(&ladder.db, cfg, version, previous)?;
        let st = &both.0;
        let mine: Vec<&jobs::Job> = open
            .iter()
            .filter(|j| j.kind == KIND && j.seats == [version, previous])
            .collect();
        let left = [&v, &p]
            .into_iter()
            .find(|x| !may_play(KIND, x.state))
            .map(|x| format!("{} left ({})", x.label(), x.state));
        let remaining = games_left(cfg.max_games, st.games, both.1.games);
        let capped = remaining == 0;
        if st.decision.is_none() && !capped && left.is_none() {
            if mine.is_empty() {
                let remaining = remaining.div_ceil(2);
                let deals = (cfg.deals_per_job as u64).min(remaining.max(1)) as u32;
                jobs::create_kind(
                    &ladder.db,
                    ladder.seed,
                    &[version, previous],
                    deals,
                    priority::COMPARE,
                    KIND,
                )?;
                made += 1;
            }
            continue;
        }
        let mut c = Comparison::of(cfg, &p, ComparisonState::Done, &both);
        c.note = match (left, capped && st.decision.is_none()) {
            (Some(why), _) => Some(why),
            (None, true) => Some(stopped_at(cfg.max_games, both.1.games)),
            _ => None,
        };
        for j in mine {
            if jobs::cancel(&ladder.db, j.id)? {
                ladder.job_cancelled(j.id);
            }
        }
        finish(ladder, &v, &c)?;
    }
    if made > 0 {
        ladder.notify();
    }
    Ok(made)
}

/// The test stopped: write it down, and decide a version waiting for it.
fn finish(ladder: &Ladder, v: &store::Version, c: &Comparison) -> Result<(), DbError> {
    let json = serde_json::to_string(c).expect("json");
    comparisons::finish(&ladder.db, v.id, c.verdict.name(), &json)?;
    tracing::info!("{} {}", v.label(), c.summary);
    // The version's page and JSON are cached until games are recorded or the board changes:
    // a comparison stopped between games (its job cancelled) records none, so say it here.
    ladder.board.touch();
    if v.state != VersionState::Comparing {
        return Ok(());
    }
    if c.verdict == Verdict::Worse {
        let reason = format!(
            "worse than version {} on paired deals ([compare] require_not_worse): {}",
            c.version, c.summary
        );
        crate::domain::versions::fail_comparison(&ladder.db, v.id, &reason)?;
        return ladder.versions_changed();
    }
    crate::checker::enter_ladder(ladder, v.id, None)?;
    Ok(())
}
