//! The service's configuration: a TOML file (`durak serve --config FILE`), command-line flags
//! over it, defaults under both. Every refusal names the file (or the flag), the key and the fix.
//!
//! ```toml
//! listen = "127.0.0.1:8080"
//! data_dir = "durak-data"
//! registration = "invite"      # "open": anyone may create an account; "invite": with an invite
//! trusted_proxies = []         # proxies whose X-Forwarded-For gives the client's address
//!
//! [ladder]
//! variant = "podkidnoy"
//! table_size = 2
//! deals = 2                    # deals per job, each played at every seat rotation
//! concurrency = 2              # tables playing at once
//! max_consecutive_faults = 3   # a version faulting in this many games in a row is suspended
//! house_bots = ["builtin:greedy", "builtin:random"]
//! local_play = true            # false: only remote workers (`durak worker`) play
//! lease_s = 60                 # a claimed job is handed out again this long after its last renewal
//! move_ms = 1000
//! bank_ms = 10000
//! startup_ms = 10000
//!
//! [sandbox]
//! mode = "strict"
//! limits = { memory = "1G", processes = "128" }
//!
//! [build]
//! timeout_s = 120
//! disk = "256M"                # what a build may leave in its folder, all files together
//! limits = { memory = "2G", processes = "256" }
//!
//! [upload]
//! max_archive = "16M"
//! max_unpacked = "64M"
//! max_files = 5000
//!
//! [check]
//! games = 2                    # check-bot's full games per table
//! long = 100                   # check-bot's long match: games in one process (0: none)
//! concurrency = 2              # builds and checks at once (default: the cores), fair by author
//!
//! [quota]                      # per author (`quota.rs`)
//! submissions_per_day = 20     # uploads per UTC day
//! storage = "200M"             # all their versions' files together
//! failed_keep_days = 7         # a failed version's files are removed after this (its page stays)
//!
//! [limits]                     # per client address: login, registration, token attempts
//! auth_burst = 10
//! auth_every_s = 6
//!
//! [compare]                    # a new version against its previous one (`ladder/compare/`)
//! enabled = true
//! elo0 = 0                     # the SPRT: H0 elo0 against H1 elo1 Elo above the previous one
//! elo1 = 20
//! alpha = 0.05
//! beta = 0.05
//! max_games = 2000             # then it stops undecided
//! deals_per_job = 10
//! require_not_worse = false    # true: a new version enters only if it is not worse
//!
//! [challenges]                 # an author's bot against another, unrated (`ladder/challenges.rs`)
//! max_deals = 50               # deals a challenge may ask for (each at both rotations)
//! per_day = 10                 # challenges per author per UTC day
//!
//! [play]                       # Play my bot: a person against a ladder bot (`play/`)
//! move_s = 600                 # the person's time per decision, then their timeout
//! max_games = 8                # games with people in progress at once
//! variants = ["prostoy"]       # variants a person may choose besides the ladder's
//!
//! [metrics]                    # GET /metrics: with the organiser's token, or here without one
//! listen = "127.0.0.1:9100"
//!
//! [season]                     # the organiser ends a season (`season.rs`)
//! ends = "2026-12-20T18:00:00Z"  # the current season's deadline (UTC); or POST /api/seasons/end
//! final_games = 20             # deals per table of the season's final tournament
//!
//! [tls]                        # HTTPS (without: plain HTTP, for loopback or behind a proxy)
//! cert = "/etc/letsencrypt/live/judge.example.org/fullchain.pem"
//! key = "/etc/letsencrypt/live/judge.example.org/privkey.pem"
//! ```

use durak_protocol::Limits;
use durak_referee::{ResourceLimits, Sandbox};
use durak_rules::Variant;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

pub use crate::config_error::ConfigError;

/// Who may create an account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Registration {
    /// Anyone who can reach the server.
    Open,
    /// Only with an invite token the organiser issued.
    Invite,
}

/// The configuration file, as written (every key optional).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub listen: Option<String>,
    pub data_dir: Option<PathBuf>,
    pub registration: Option<Registration>,
    #[serde(default)]
    pub ladder: LadderSection,
    #[serde(default)]
    pub sandbox: SandboxSection,
    #[serde(default)]
    pub build: BuildSection,
    #[serde(default)]
    pub upload: UploadSection,
    #[serde(default)]
    pub check: CheckSection,
    #[serde(default)]
    pub tls: TlsSection,
    #[serde(default)]
    pub trusted_proxies: Vec<String>,
    #[serde(default)]
    pub quota: crate::quota::QuotaSection,
    #[serde(default)]
    pub limits: crate::quota::LimitsSection,
    #[serde(default)]
    pub compare: crate::ladder::compare::CompareSection,
    #[serde(default)]
    pub challenges: crate::ladder::challenges::ChallengeSection,
    #[serde(default)]
    pub play: crate::play::PlaySection,
    #[serde(default)]
    pub metrics: crate::metrics::MetricsSection,
    #[serde(default)]
    pub season: crate::season::SeasonSection,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LadderSection {
    pub variant: Option<String>,
    pub table_size: Option<usize>,
    pub deals: Option<u32>,
    pub concurrency: Option<usize>,
    pub max_consecutive_faults: Option<u32>,
    pub house_bots: Option<Vec<String>>,
    pub seed: Option<u64>,
    pub move_ms: Option<u64>,
    pub bank_ms: Option<u64>,
    pub startup_ms: Option<u64>,
    pub max_line_bytes: Option<usize>,
    pub local_play: Option<bool>,
    pub lease_s: Option<u64>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxSection {
    pub mode: Option<String>,
    #[serde(default)]
    pub limits: BTreeMap<String, toml::Value>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildSection {
    pub timeout_s: Option<u64>,
    pub disk: Option<toml::Value>,
    #[serde(default)]
    pub limits: BTreeMap<String, toml::Value>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UploadSection {
    pub max_archive: Option<toml::Value>,
    pub max_unpacked: Option<toml::Value>,
    pub max_files: Option<u64>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSection {
    pub games: Option<u32>,
    pub long: Option<u32>,
    pub concurrency: Option<usize>,
}

/// `[tls]`: the certificate chain and key files (PEM); both or neither.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsSection {
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
}

/// Command-line values: they win over the file.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub listen: Option<String>,
    pub data_dir: Option<PathBuf>,
    pub registration: Option<Registration>,
    pub variant: Option<String>,
    pub table_size: Option<usize>,
    pub deals: Option<u32>,
    pub concurrency: Option<usize>,
    pub sandbox: Option<String>,
    /// `KEY=VALUE` resource limits of bots (as `durak play --limit`).
    pub limits: Vec<String>,
    pub move_ms: Option<u64>,
    pub house_bots: Option<Vec<String>>,
    pub seed: Option<u64>,
    pub check_games: Option<u32>,
    pub check_long: Option<u32>,
    pub build_timeout_s: Option<u64>,
    /// `--no-local-play`: `Some(false)`.
    pub local_play: Option<bool>,
    pub lease_s: Option<u64>,
    /// `--tls-cert FILE`, `--tls-key FILE`.
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
}

/// The service's settings, resolved and checked.
#[derive(Clone, Debug)]
pub struct Config {
    pub listen: SocketAddr,
    pub data_dir: PathBuf,
    pub registration: Registration,
    pub ladder: LadderConfig,
    pub sandbox: Sandbox,
    /// Resource limits of every bot in the ladder and in its check.
    pub resources: ResourceLimits,
    pub build: BuildConfig,
    pub upload: UploadConfig,
    /// check-bot's full games per table.
    pub check_games: u32,
    /// check-bot's long match: games in one process (0: none).
    pub check_long: u32,
    /// HTTPS with these files; plain HTTP without.
    pub tls: Option<crate::tls::server::TlsFiles>,
    /// Builds and checks run at once (each of another author).
    pub check_concurrency: usize,
    /// Per author: `[quota]`.
    pub quota: crate::quota::QuotaConfig,
    /// Per client address: `[limits]` and `trusted_proxies`.
    pub rate: crate::quota::RateConfig,
    /// `[compare]`: a new version against its previous one (`ladder/compare/`).
    pub compare: crate::ladder::compare::CompareConfig,
    /// `[challenges]`: an author's bot against another (`ladder/challenges.rs`).
    pub challenges: crate::ladder::challenges::ChallengeConfig,
    /// `[play] move_s`, in milliseconds: a person's time per decision (`play/`).
    pub play_move_ms: u64,
    /// `[play] max_games`: games with people in progress at once.
    pub play_max_games: usize,
    /// `[play] variants`: the variants a person may play (the ladder's first).
    pub play_variants: Vec<durak_rules::Variant>,
    /// `[metrics] listen`: a second address serving `GET /metrics` without a token.
    pub metrics_listen: Option<SocketAddr>,
    /// `[season]`: the deadline and the final tournament's deals (`season.rs`).
    pub season: crate::season::SeasonConfig,
}

#[derive(Clone, Debug)]
pub struct LadderConfig {
    pub variant: Variant,
    pub table_size: usize,
    pub deals: u32,
    pub concurrency: usize,
    pub max_consecutive_faults: u32,
    pub house_bots: Vec<String>,
    /// Seed of every job's deals (with the job id).
    pub seed: Option<u64>,
    pub limits: Limits,
    /// The server's own tables play (`concurrency` of them); without, only workers do.
    pub local_play: bool,
    /// How long a claimed job is held without a renewal, in milliseconds.
    pub lease_ms: i64,
}

#[derive(Clone, Debug)]
pub struct BuildConfig {
    pub timeout_s: u64,
    /// What the build may leave in its folder, all files together, in bytes.
    pub disk: u64,
    pub limits: ResourceLimits,
}

#[derive(Clone, Debug)]
pub struct UploadConfig {
    /// The largest archive accepted, in bytes (the request body limit).
    pub max_archive: u64,
    /// The most its files may hold once unpacked, together.
    pub max_unpacked: u64,
    /// The most entries (files, folders, links) an archive may have.
    pub max_files: u64,
}

pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
pub const DEFAULT_DATA_DIR: &str = "durak-data";
const MIB: u64 = 1024 * 1024;

/// A size from TOML: a number of bytes or a string with `K`, `M`, `G` (`"16M"`).
pub(crate) fn size(v: &toml::Value, what: &str) -> Result<u64, ConfigError> {
    let refused = |m: String| ConfigError::key(what, m);
    match v {
        toml::Value::Integer(n) if *n >= 0 => Ok(*n as u64),
        toml::Value::String(s) => {
            let mut r = ResourceLimits::default();
            r.set_value("file_size", s)
                .map_err(|e| refused(format!("{what} = {s:?}: {e}")))?;
            r.file_size
                .ok_or_else(|| refused(format!("{what} = {s:?}: give a size, not unlimited")))
        }
        other => Err(refused(format!(
            "{what} = {other}: give a size such as \"16M\" or a number of bytes"
        ))),
    }
}

fn limits_from(
    base: ResourceLimits,
    table: &BTreeMap<String, toml::Value>,
    section: &str,
) -> Result<ResourceLimits, ConfigError> {
    let mut r = base;
    for (k, v) in table {
        let key = format!("[{section}] limits.{k}");
        let text = match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(n) => n.to_string(),
            other => {
                let m = format!("{key} = {other}: give a number or a string such as \"1G\"");
                return Err(ConfigError::key(key, m));
            }
        };
        r.set_value(k, &text)
            .map_err(|e| ConfigError::key(&key, format!("{key}: {e}")))?;
    }
    Ok(r)
}

impl ConfigFile {
    pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| ConfigError::NotToml {
            path: path.to_path_buf(),
            detail: e.to_string().trim_end().replace('\n', "\n  "),
        })
    }
}

/// Resolve the file (if any) and the flags into a checked configuration.
pub fn resolve(file: Option<(&Path, &ConfigFile)>, o: &Overrides) -> Result<Config, ConfigError> {
    let empty = ConfigFile::default();
    let (origin, f) = match file {
        Some((p, f)) => (p.display().to_string(), f),
        None => ("the defaults".to_string(), &empty),
    };
    let in_file = |e: ConfigError| e.in_file(&origin);
    let listen = listen_of(o, f)?;
    let data_dir = o
        .data_dir
        .clone()
        .or_else(|| f.data_dir.clone())
        .unwrap_or_else(|| DEFAULT_DATA_DIR.into());
    let registration = o
        .registration
        .or(f.registration)
        .unwrap_or(Registration::Invite);
    let ladder = ladder_of(o, &f.ladder, &origin)?;
    let (sandbox, resources) = sandbox_of(o, &f.sandbox, &origin)?;
    let build = build_of(o, &f.build).map_err(in_file)?;
    let upload = upload_of(&f.upload).map_err(in_file)?;
    let tls = tls_files(o, &f.tls).map_err(in_file)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let check_concurrency = f.check.concurrency.unwrap_or(cores);
    if check_concurrency == 0 {
        let m = "[check] concurrency = 0: no version would ever be checked\n  fix: set 1 or more \
                 (the default is the number of cores)";
        return Err(in_file(ConfigError::key("[check] concurrency", m)));
    }
    let quota = crate::quota::resolve_quota(&f.quota, size).map_err(in_file)?;
    let rate = crate::quota::resolve_rate(&f.limits, &f.trusted_proxies).map_err(in_file)?;
    let compare = crate::ladder::compare::resolve(&f.compare).map_err(in_file)?;
    let challenges = crate::ladder::challenges::resolve(&f.challenges).map_err(in_file)?;
    let metrics_listen = crate::metrics::resolve(&f.metrics).map_err(in_file)?;
    let (play_move_ms, play_max_games, play_variants) =
        crate::play::resolve(&f.play, ladder.variant).map_err(in_file)?;
    let season = crate::season::resolve(&f.season).map_err(in_file)?;
    Ok(Config {
        listen,
        data_dir,
        registration,
        ladder,
        sandbox,
        resources,
        build,
        upload,
        check_games: o.check_games.or(f.check.games).unwrap_or(2),
        check_long: o
            .check_long
            .or(f.check.long)
            .unwrap_or(durak_checkbot::DEFAULT_LONG),
        tls,
        check_concurrency,
        quota,
        rate,
        compare,
        challenges,
        play_move_ms,
        play_max_games,
        play_variants,
        metrics_listen,
        season,
    })
}

/// `--listen` over `listen` over the default.
fn listen_of(o: &Overrides, f: &ConfigFile) -> Result<SocketAddr, ConfigError> {
    let listen_text = o
        .listen
        .clone()
        .or_else(|| f.listen.clone())
        .unwrap_or_else(|| DEFAULT_LISTEN.into());
    listen_text.parse().map_err(|e| {
        ConfigError::key(
            "listen",
            format!(
                "listen = {listen_text:?}: {e}\n  fix: give an address and a port, such as \
             \"127.0.0.1:8080\" (or --listen)"
            ),
        )
    })
}

/// `[ladder]` with its flags over it, checked (`origin`: the file, for the errors that name it).
fn ladder_of(o: &Overrides, l: &LadderSection, origin: &str) -> Result<LadderConfig, ConfigError> {
    let in_file = |e: ConfigError| e.in_file(origin);
    let key = ConfigError::key;
    let variant_text = o
        .variant
        .clone()
        .or_else(|| l.variant.clone())
        .unwrap_or_else(|| "podkidnoy".into());
    let variant: Variant = variant_text.parse().map_err(|e| {
        let m = format!(
            "[ladder] variant = {variant_text:?}: {e}\n  fix: \"podkidnoy\" or \"prostoy\""
        );
        key("[ladder] variant", m)
    })?;
    let table_size = o.table_size.or(l.table_size).unwrap_or(2);
    variant.check_players(table_size).map_err(|e| {
        let m = format!(
            "[ladder] table_size = {table_size}: {e}\n  fix: choose from {} to {} for {}",
            variant.players().start(),
            variant.players().end(),
            variant.name()
        );
        key("[ladder] table_size", m)
    })?;
    let deals = o.deals.or(l.deals).unwrap_or(2);
    if deals == 0 || deals > 1000 {
        let m =
            format!("[ladder] deals = {deals}: a job plays 1 to 1000 deals\n  fix: set deals = 2");
        return Err(in_file(key("[ladder] deals", m)));
    }
    let concurrency = o.concurrency.or(l.concurrency).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if concurrency == 0 {
        let m = "[ladder] concurrency = 0: at least one table must play\n  fix: set 1 or more";
        return Err(in_file(key("[ladder] concurrency", m.into())));
    }
    let lease_s = o.lease_s.or(l.lease_s).unwrap_or(60);
    if lease_s == 0 || lease_s > 86_400 {
        let m = format!(
            "[ladder] lease_s = {lease_s}: a lease lasts 1 s to a day\n  fix: set lease_s = 60 \
             (or --lease-s)"
        );
        return Err(in_file(key("[ladder] lease_s", m)));
    }
    let base = Limits::default();
    let limits = Limits {
        move_ms: o.move_ms.or(l.move_ms).unwrap_or(base.move_ms),
        bank_ms: l.bank_ms.unwrap_or(base.bank_ms),
        startup_ms: l.startup_ms.unwrap_or(base.startup_ms),
        max_line_bytes: l.max_line_bytes.unwrap_or(base.max_line_bytes),
    };
    Ok(LadderConfig {
        variant,
        table_size,
        deals,
        concurrency,
        max_consecutive_faults: l.max_consecutive_faults.unwrap_or(3),
        house_bots: house_bots_of(o, l).map_err(in_file)?,
        seed: o.seed.or(l.seed),
        limits,
        local_play: o.local_play.or(l.local_play).unwrap_or(true),
        lease_ms: lease_s as i64 * 1000,
    })
}

/// `[ladder] house_bots`: built-in bots only.
fn house_bots_of(o: &Overrides, l: &LadderSection) -> Result<Vec<String>, ConfigError> {
    let key = ConfigError::key;
    let house_bots = o
        .house_bots
        .clone()
        .or_else(|| l.house_bots.clone())
        .unwrap_or_else(|| vec!["builtin:greedy".into(), "builtin:random".into()]);
    for h in &house_bots {
        if !h.starts_with("builtin:") {
            let m = format!(
                "[ladder] house_bots: {h:?}: house bots are built-in bots\n  fix: use \
                 \"builtin:greedy\" or \"builtin:random\" (authors submit the others)"
            );
            return Err(key("[ladder] house_bots", m));
        }
        durak_referee::BotCommand::parse(h)
            .map_err(|e| key("[ladder] house_bots", format!("[ladder] {e}")))?;
    }
    Ok(house_bots)
}

/// `[sandbox]` with `--sandbox` and `--limit` over it: the mode and the bots' resource limits.
fn sandbox_of(
    o: &Overrides,
    sb: &SandboxSection,
    origin: &str,
) -> Result<(Sandbox, ResourceLimits), ConfigError> {
    let key = ConfigError::key;
    let mode = o
        .sandbox
        .clone()
        .or_else(|| sb.mode.clone())
        .unwrap_or_else(|| "strict".into());
    let sandbox: Sandbox = mode.parse().map_err(|e| {
        key(
            "[sandbox] mode",
            format!("[sandbox] mode: {e} (or --sandbox)"),
        )
    })?;
    let mut resources = limits_from(ResourceLimits::default(), &sb.limits, "sandbox")
        .map_err(|e| e.in_file(origin))?;
    for a in &o.limits {
        resources
            .set(a)
            .map_err(|e| key("--limit", format!("--limit {e}")))?;
    }
    Ok((sandbox, resources))
}

/// `[build]`, with `--build-timeout-s` over its timeout.
fn build_of(o: &Overrides, b: &BuildSection) -> Result<BuildConfig, ConfigError> {
    let build_defaults = ResourceLimits {
        cpu_secs_per_game: Some(600),
        file_size: Some(128 * MIB),
        ..ResourceLimits::default()
    };
    Ok(BuildConfig {
        timeout_s: o.build_timeout_s.or(b.timeout_s).unwrap_or(120),
        disk: match &b.disk {
            Some(v) => size(v, "[build] disk")?,
            None => 256 * MIB,
        },
        limits: limits_from(build_defaults, &b.limits, "build")?,
    })
}

/// `[upload]`: the sizes and the number of files an archive may have.
fn upload_of(u: &UploadSection) -> Result<UploadConfig, ConfigError> {
    Ok(UploadConfig {
        max_archive: match &u.max_archive {
            Some(v) => size(v, "[upload] max_archive")?,
            None => 16 * MIB,
        },
        max_unpacked: match &u.max_unpacked {
            Some(v) => size(v, "[upload] max_unpacked")?,
            None => 64 * MIB,
        },
        max_files: u.max_files.unwrap_or(5000),
    })
}

/// `--tls-cert`/`--tls-key` over `[tls] cert`/`key`: both or neither (the files are read when
/// the server starts, `tls::server::load`).
fn tls_files(
    o: &Overrides,
    t: &TlsSection,
) -> Result<Option<crate::tls::server::TlsFiles>, ConfigError> {
    let cert = o.tls_cert.clone().or_else(|| t.cert.clone());
    let key = o.tls_key.clone().or_else(|| t.key.clone());
    match (cert, key) {
        (None, None) => Ok(None),
        (Some(cert), Some(key)) => Ok(Some(crate::tls::server::TlsFiles { cert, key })),
        (Some(cert), None) => Err(ConfigError::key(
            "[tls] key",
            format!(
                "[tls] cert = {:?} without a key\n  fix: set [tls] key (or --tls-key) to the \
                 certificate's private key file (certbot's privkey.pem)",
                cert.display().to_string()
            ),
        )),
        (None, Some(key)) => Err(ConfigError::key(
            "[tls] cert",
            format!(
                "[tls] key = {:?} without a certificate\n  fix: set [tls] cert (or --tls-cert) \
                 to the certificate chain file (certbot's fullchain.pem)",
                key.display().to_string()
            ),
        )),
    }
}

#[cfg(test)]
mod tests;
