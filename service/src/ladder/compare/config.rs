//! `[compare]` in serve.toml: the test's settings, checked (every refusal names the key and
//! the fix).

use durak_tournaments::stats::sprt::SprtParams;
use serde::Deserialize;

/// `[compare]`, as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareSection {
    pub enabled: Option<bool>,
    pub elo0: Option<f64>,
    pub elo1: Option<f64>,
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    pub max_games: Option<u32>,
    pub deals_per_job: Option<u32>,
    pub require_not_worse: Option<bool>,
}

/// The comparison's settings, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareConfig {
    pub enabled: bool,
    pub params: SprtParams,
    /// The test stops undecided after this many games.
    pub max_games: u32,
    /// Deals per job (each played at both rotations).
    pub deals_per_job: u32,
    /// A new version enters the ladder only once the verdict is not `worse`.
    pub require_not_worse: bool,
}

impl Default for CompareConfig {
    fn default() -> CompareConfig {
        CompareConfig {
            enabled: true,
            params: SprtParams::new(0.0, 20.0, 0.05, 0.05).expect("valid"),
            max_games: 2000,
            deals_per_job: 10,
            require_not_worse: false,
        }
    }
}

/// Resolve `[compare]` (every refusal names the key and the fix).
pub fn resolve(s: &CompareSection) -> Result<CompareConfig, crate::config::ConfigError> {
    use crate::config::ConfigError;
    let d = CompareConfig::default();
    let p = d.params;
    let params = SprtParams::new(
        s.elo0.unwrap_or(p.elo0),
        s.elo1.unwrap_or(p.elo1),
        s.alpha.unwrap_or(p.alpha),
        s.beta.unwrap_or(p.beta),
    )
    .map_err(|e| ConfigError::key("[compare]", format!("[compare] {e}")))?;
    let max_games = s.max_games.unwrap_or(d.max_games);
    if max_games < 2 {
        let m = format!(
            "[compare] max_games = {max_games}: the test needs at least one deal (2 games)\n  \
             fix: set max_games = {} (or enabled = false to compare no versions)",
            d.max_games
        );
        return Err(ConfigError::key("[compare] max_games", m));
    }
    let deals_per_job = s.deals_per_job.unwrap_or(d.deals_per_job);
    if deals_per_job == 0 || deals_per_job > 1000 {
        let m = format!(
            "[compare] deals_per_job = {deals_per_job}: a job plays 1 to 1000 deals\n  fix: set \
             deals_per_job = {}",
            d.deals_per_job
        );
        return Err(ConfigError::key("[compare] deals_per_job", m));
    }
    Ok(CompareConfig {
        enabled: s.enabled.unwrap_or(d.enabled),
        params,
        max_games,
        deals_per_job,
        require_not_worse: s.require_not_worse.unwrap_or(d.require_not_worse),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_settings_name_the_key_and_the_fix() {
        let d = resolve(&CompareSection::default()).unwrap();
        assert_eq!(d, CompareConfig::default());
        assert!(d.enabled && !d.require_not_worse);
        let e = resolve(&CompareSection {
            elo0: Some(10.0),
            elo1: Some(5.0),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("[compare]") && e.contains("fix:"), "{e}");
        let e = resolve(&CompareSection {
            max_games: Some(1),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("max_games = 1") && e.contains("fix:"), "{e}");
        let e = resolve(&CompareSection {
            deals_per_job: Some(0),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("deals_per_job = 0") && e.contains("fix:"), "{e}");
    }
}
