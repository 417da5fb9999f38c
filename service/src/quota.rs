//! What one author may use, and what one client address may try: the `[quota]` and `[limits]`
//! tables and `trusted_proxies` of the configuration, the checks an upload meets before it is
//! kept (submissions per UTC day, storage), and the sweep that removes failed versions' files
//! after `failed_keep_days` (their pages and rows stay). The rate limits themselves are applied
//! by the HTTP server (`http::limits`); one build or check of an author at a time is the
//! checker's queue (`checker.rs`).

use crate::build::folder_size;
use crate::config::ConfigError;
use crate::db::Db;
use crate::domain::versions;
use crate::store::Paths;
use rusqlite::params;
use std::time::Duration;

/// `[quota]`, as written.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuotaSection {
    pub submissions_per_day: Option<u32>,
    pub storage: Option<toml::Value>,
    pub failed_keep_days: Option<u32>,
}

/// `[limits]`, as written.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSection {
    pub auth_burst: Option<u32>,
    pub auth_every_s: Option<u64>,
}

/// Per author.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuotaConfig {
    /// Uploads kept per UTC day (00:00 to 24:00 UTC).
    pub submissions_per_day: u32,
    /// All the files of an author's versions together (archives, folders, builds), in bytes.
    pub storage: u64,
    /// A failed version's files are removed this many days after its check.
    pub failed_keep_days: u32,
}

/// Per client address: login, registration and token attempts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateConfig {
    /// Attempts allowed at once.
    pub burst: u32,
    /// Then one more every this long.
    pub every: Duration,
    /// Proxies whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<ipnet::IpNet>,
}

const MIB: u64 = 1024 * 1024;
pub const DAY_MS: i64 = 86_400_000;

impl Default for QuotaConfig {
    fn default() -> Self {
        QuotaConfig {
            submissions_per_day: 20,
            storage: 200 * MIB,
            failed_keep_days: 7,
        }
    }
}

/// Resolve `[quota]`.
pub fn resolve_quota(
    q: &QuotaSection,
    size: impl Fn(&toml::Value, &str) -> Result<u64, ConfigError>,
) -> Result<QuotaConfig, ConfigError> {
    let d = QuotaConfig::default();
    let submissions_per_day = q.submissions_per_day.unwrap_or(d.submissions_per_day);
    if submissions_per_day == 0 {
        return Err(ConfigError::key(
            "[quota] submissions_per_day",
            "[quota] submissions_per_day = 0: no author could submit anything\n  fix: set 1 or \
             more (the default is 20)",
        ));
    }
    let storage = match &q.storage {
        Some(v) => size(v, "[quota] storage")?,
        None => d.storage,
    };
    if storage == 0 {
        return Err(ConfigError::key(
            "[quota] storage",
            "[quota] storage = 0: no version could be kept\n  fix: give a size such as \"200M\" \
             (the default)",
        ));
    }
    Ok(QuotaConfig {
        submissions_per_day,
        storage,
        failed_keep_days: q.failed_keep_days.unwrap_or(d.failed_keep_days),
    })
}

/// Resolve `[limits]` and `trusted_proxies`.
pub fn resolve_rate(l: &LimitsSection, proxies: &[String]) -> Result<RateConfig, ConfigError> {
    let burst = l.auth_burst.unwrap_or(10);
    if burst == 0 {
        return Err(ConfigError::key(
            "[limits] auth_burst",
            "[limits] auth_burst = 0: nobody could ever log in\n  fix: set 1 or more (the \
             default is 10)",
        ));
    }
    let every_s = l.auth_every_s.unwrap_or(6);
    if every_s == 0 || every_s > 86_400 {
        return Err(ConfigError::key(
            "[limits] auth_every_s",
            format!(
                "[limits] auth_every_s = {every_s}: give 1 s to a day\n  fix: set auth_every_s = \
                 6 (the default)"
            ),
        ));
    }
    let mut trusted_proxies = Vec::new();
    for p in proxies {
        trusted_proxies.push(parse_net(p).ok_or_else(|| {
            ConfigError::key(
                "trusted_proxies",
                format!(
                    "trusted_proxies: {p:?} is not an address or a network\n  fix: give \
                     addresses such as \"127.0.0.1\" or networks such as \"10.0.0.0/8\", \
                     \"::1/128\""
                ),
            )
        })?);
    }
    Ok(RateConfig {
        burst,
        every: Duration::from_secs(every_s),
        trusted_proxies,
    })
}

/// `10.0.0.0/8` or `10.1.2.3` (a network of one).
fn parse_net(s: &str) -> Option<ipnet::IpNet> {
    let s = s.trim();
    s.parse::<ipnet::IpNet>()
        .ok()
        .or_else(|| s.parse::<std::net::IpAddr>().ok().map(ipnet::IpNet::from))
}

/// Why an upload may not be kept: the status (429 for the daily count, 413 for storage), the
/// words, and for 429 the seconds until it may be tried again.
#[derive(Debug, PartialEq, Eq)]
pub struct OverQuota {
    pub status: u16,
    pub message: String,
    pub retry_after: Option<u64>,
}

/// Milliseconds from `now` to the next 00:00 UTC.
pub fn ms_to_utc_midnight(now: i64) -> i64 {
    DAY_MS - now.rem_euclid(DAY_MS)
}

/// `3 h 12 min`, `45 s`.
pub fn duration_words(secs: u64) -> String {
    let (h, m, s) = (secs / 3600, secs % 3600 / 60, secs % 60);
    match (h, m) {
        (0, 0) => format!("{s} s"),
        (0, m) => format!("{m} min {s} s"),
        (h, m) => format!("{h} h {m} min"),
    }
}

/// The day's count: the author's uploads since 00:00 UTC (in the transaction `c` that keeps
/// the next one, so two uploads at once cannot both pass).
pub fn check_daily(
    c: &rusqlite::Connection,
    q: &QuotaConfig,
    account: i64,
    now: i64,
) -> rusqlite::Result<Result<(), OverQuota>> {
    let day_start = now - now.rem_euclid(DAY_MS);
    let n: i64 = c.query_row(
        "SELECT COUNT(*) FROM versions v JOIN bots b ON b.id = v.bot WHERE b.account = ?1 AND \
         v.submitted >= ?2",
        params![account, day_start],
        |r| r.get(0),
    )?;
    if n < q.submissions_per_day as i64 {
        return Ok(Ok(()));
    }
    let wait = (ms_to_utc_midnight(now) as u64).div_ceil(1000);
    Ok(Err(OverQuota {
        status: 429,
        message: format!(
            "you have submitted {n} versions today, the most this server takes from one author \
             in a day ([quota] submissions_per_day = {}); the count starts again at 00:00 UTC, \
             in {}\n  fix: test your bot locally (durak check-bot) before submitting, and \
             submit again after 00:00 UTC",
            q.submissions_per_day,
            duration_words(wait)
        ),
        retry_after: Some(wait),
    }))
}

/// What the files of an author's versions hold now (the archives and folders still kept), in
/// bytes.
pub fn storage_used(
    c: &rusqlite::Connection,
    paths: &Paths,
    account: i64,
) -> rusqlite::Result<u64> {
    let mut s = c.prepare(
        "SELECT v.id FROM versions v JOIN bots b ON b.id = v.bot WHERE b.account = ?1 AND \
         v.files_removed IS NULL",
    )?;
    let ids: Vec<i64> = s
        .query_map([account], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(ids
        .into_iter()
        .map(|id| {
            let archive = std::fs::metadata(paths.upload(id)).map_or(0, |m| m.len());
            archive + folder_size(&paths.unpacked(id)).0
        })
        .sum())
}

/// Whether `adding` more bytes keeps the author within `[quota] storage`.
pub fn check_storage(
    c: &rusqlite::Connection,
    paths: &Paths,
    q: &QuotaConfig,
    account: i64,
    adding: u64,
) -> rusqlite::Result<Result<(), OverQuota>> {
    let used = storage_used(c, paths, account)?;
    if used + adding <= q.storage {
        return Ok(Ok(()));
    }
    let mb = |b: u64| format!("{:.1} MiB", b as f64 / MIB as f64);
    Ok(Err(OverQuota {
        status: 413,
        message: format!(
            "this upload ({} with its unpacked files) would take your versions' files to {}, \
             more than the {} this server keeps for one author ([quota] storage); you use {} \
             now\n  fix: make the upload smaller (leave out build outputs, dependencies and \
             data the bot does not need); failed versions' files are removed {} days after \
             their check; or ask the organiser to remove versions you no longer need or to \
             raise [quota] storage",
            mb(adding),
            mb(used + adding),
            mb(q.storage),
            mb(used),
            q.failed_keep_days
        ),
        retry_after: None,
    }))
}

/// How often the sweep runs (and once at the start).
pub const SWEEP_EVERY: Duration = Duration::from_secs(3600);

/// Remove the files (archive, unpacked and built folder) of the versions that failed more than
/// `failed_keep_days` ago; their rows and pages stay, marked `files_removed`. Returns how many.
pub fn sweep_failed(
    db: &Db,
    paths: &Paths,
    q: &QuotaConfig,
    now: i64,
) -> Result<usize, crate::db::DbError> {
    let before = now - q.failed_keep_days as i64 * DAY_MS;
    let ids = versions::failed_with_files(db, before)?;
    for &id in &ids {
        let _ = std::fs::remove_file(paths.upload(id));
        let _ = std::fs::remove_dir_all(paths.unpacked(id));
        versions::files_removed(db, id)?;
    }
    Ok(ids.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_day_ends_at_utc_midnight() {
        assert_eq!(ms_to_utc_midnight(0), DAY_MS);
        assert_eq!(ms_to_utc_midnight(DAY_MS - 1000), 1000);
        assert_eq!(
            ms_to_utc_midnight(3 * DAY_MS + 3_600_000),
            DAY_MS - 3_600_000
        );
        assert_eq!(duration_words(45), "45 s");
        assert_eq!(duration_words(3 * 3600 + 12 * 60 + 5), "3 h 12 min");
    }

    #[test]
    fn bad_values_name_the_key_and_the_fix() {
        let size = |_: &toml::Value, _: &str| Ok(0);
        let e = resolve_quota(
            &QuotaSection {
                submissions_per_day: Some(0),
                ..Default::default()
            },
            size,
        )
        .unwrap_err();
        assert_eq!(e.key_name(), Some("[quota] submissions_per_day"));
        let e = e.to_string();
        assert!(
            e.contains("submissions_per_day = 0") && e.contains("fix:"),
            "{e}"
        );
        let e = resolve_rate(&LimitsSection::default(), &["10.0.0.0/99".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("trusted_proxies") && e.contains("fix:"), "{e}");
        let e = resolve_rate(
            &LimitsSection {
                auth_every_s: Some(0),
                ..Default::default()
            },
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("auth_every_s = 0") && e.contains("fix:"), "{e}");
        let r = resolve_rate(
            &LimitsSection::default(),
            &["127.0.0.1".into(), "10.0.0.0/8".into()],
        )
        .unwrap();
        assert_eq!(r.trusted_proxies.len(), 2);
        assert_eq!((r.burst, r.every), (10, Duration::from_secs(6)));
    }
}
