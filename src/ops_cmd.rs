//! The organiser's commands on the server's machine, over a data directory (issue 24):
//! `durak organiser-token` (a new organiser token, the old ones revoked), `durak backup`
//! (a copy of the data directory, taken while the server runs) and `durak season end` (the
//! current season ended: over the server's API with `--server`, or in its data directory with
//! the server stopped).

use crate::error::bad_input;
use crate::CmdResult;
use clap::{Args, Subcommand};
use durak_service::config;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct OrganiserTokenArgs {
    /// The server's data directory (as `durak serve --data-dir`)
    #[arg(long, value_name = "DIR", default_value = durak_service::config::DEFAULT_DATA_DIR)]
    data_dir: PathBuf,
}

/// Print a new organiser token on stdout; every earlier one (and the organiser's login
/// sessions) is revoked. Works while the server runs.
pub fn organiser_token(args: OrganiserTokenArgs) -> CmdResult {
    let db_path = args.data_dir.join("service.db");
    if !db_path.is_file() {
        return Err(bad_input!(
            "{}: no service.db here: not a data directory of `durak serve`\n  fix: give the \
             folder the server was started with (--data-dir DIR); a first start that failed \
             left none, and the next start prints the organiser's token",
            args.data_dir.display()
        ));
    }
    let db = durak_service::db::Db::open(&db_path)?;
    let token = durak_service::auth::reset_organiser(&db)?;
    println!("{token}");
    eprintln!(
        "a new organiser token (shown only now, keep it): the earlier ones and the organiser's \
         logins are revoked"
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct BackupArgs {
    /// The server's data directory (as `durak serve --data-dir`); the server may be running
    #[arg(long, value_name = "DIR", default_value = durak_service::config::DEFAULT_DATA_DIR)]
    data_dir: PathBuf,
    /// The backup: a new (or empty) folder, a data directory `durak serve --data-dir` serves
    #[arg(long, value_name = "NEW")]
    out: PathBuf,
}

/// Back a data directory up while its server runs (`durak_service::backup`).
pub fn backup(args: BackupArgs) -> CmdResult {
    let t0 = std::time::Instant::now();
    let s = durak_service::backup::backup(&args.data_dir, &args.out)?;
    eprintln!(
        "backed up {} into {}: {} games, {} files linked, {} copied, {:.1} MB, in {:.1} s",
        args.data_dir.display(),
        args.out.display(),
        s.games,
        s.linked,
        s.copied,
        s.bytes as f64 / 1e6,
        t0.elapsed().as_secs_f64()
    );
    if !s.missing.is_empty() {
        eprintln!(
            "warning: {} file(s) the database names were not in {} (nor are they in the \
             backup): {}",
            s.missing.len(),
            args.data_dir.display(),
            s.missing
                .iter()
                .take(10)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Subcommand)]
pub enum SeasonCommand {
    /// End the current season: its open ladder jobs cancelled, its leaderboard kept, its final
    /// tournament queued, the next season started with fresh ratings. With --server, a running
    /// server ends it (`POST /api/seasons/end`, the organiser's token); without, the stopped
    /// server's data directory is changed and its next start plays the final tournament.
    End(SeasonEndArgs),
}

#[derive(Args)]
pub struct SeasonEndArgs {
    /// The server's configuration, as it is started with (its `data_dir`, `[ladder]` and
    /// `[season] final_games` are used; the final tournament gets its limits and sandbox)
    #[arg(long, short, value_name = "FILE", conflicts_with = "server")]
    config: Option<PathBuf>,
    /// The server's data directory [default: the configuration's, else durak-data]
    #[arg(long, value_name = "DIR", conflicts_with = "server")]
    data_dir: Option<PathBuf>,
    /// A running server's address: it ends its season itself
    #[arg(long, value_name = "URL")]
    server: Option<String>,
    /// With --server: the organiser's token (or DURAK_TOKEN in the environment)
    #[arg(long, value_name = "TOKEN", requires = "server")]
    token: Option<String>,
    /// With --server: also trust this CA's certificate (PEM) for the server's HTTPS
    #[arg(long, value_name = "FILE", requires = "server")]
    ca_cert: Option<PathBuf>,
    /// The season to end: refused, naming the current one, if that is not the current season
    /// (so the command given twice does not end the next season too)
    #[arg(long, value_name = "N")]
    season: Option<i64>,
}

pub fn season(command: SeasonCommand) -> CmdResult {
    let SeasonCommand::End(args) = command;
    if let Some(server) = &args.server {
        return season_end_online(server, &args);
    }
    let file = match &args.config {
        Some(p) => Some((p.clone(), config::ConfigFile::load(p)?)),
        None => None,
    };
    let overrides = config::Overrides {
        data_dir: args.data_dir,
        ..Default::default()
    };
    let cfg = config::resolve(file.as_ref().map(|(p, f)| (p.as_path(), f)), &overrides)?;
    let ended = durak_service::season::end_offline(std::sync::Arc::new(cfg), args.season)?;
    let s = &ended.season;
    println!("season {} ended; season {} started", s.n, ended.next);
    match (s.tournament, &s.final_error) {
        (Some(t), _) => eprintln!(
            "its final tournament {t} is queued: the server plays it at its next start, and \
             submissions are closed until it is over (/seasons/{})",
            s.n
        ),
        (None, Some(e)) => eprintln!("no final tournament: {e}"),
        (None, None) => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// `durak season end --server URL`: the running server ends its season (`POST
/// /api/seasons/end`, with `--season N` in its body), and the command says what it did.
fn season_end_online(server: &str, args: &SeasonEndArgs) -> CmdResult {
    use durak_service::client::Client;
    let token = match &args.token {
        Some(t) => t.clone(),
        None => std::env::var("DURAK_TOKEN").map_err(|_| {
            bad_input!(
                "durak season end --server needs --token TOKEN (or DURAK_TOKEN): the \
                 organiser's token"
            )
        })?,
    };
    if let Some(w) = durak_service::tls::client::clear_warning(server) {
        eprintln!("{w}");
    }
    let c = Client::with_trust(
        server,
        Some(&token),
        std::time::Duration::from_secs(60),
        durak_service::tls::client::Trust::from_flag(args.ca_cert.clone()),
    )?;
    let body = match args.season {
        Some(n) => serde_json::json!({ "season": n }),
        None => serde_json::json!({}),
    };
    let a = c.post_json("/api/seasons/end", &body)?;
    if !(200..300).contains(&a.status) {
        return Err(bad_input!("{server}: {} {}", a.status, a.error()));
    }
    let n = a.json["n"].as_i64().unwrap_or_default();
    println!("season {n} ended; season {} started", n + 1);
    match (
        &a.json["final_tournament"]["id"],
        a.json["final_error"].as_str(),
    ) {
        (serde_json::Value::Number(t), _) => eprintln!(
            "its final tournament {t} is {}: submissions are closed until it is over \
             ({server}/seasons/{n})",
            a.json["final_tournament"]["state"]
                .as_str()
                .unwrap_or("queued")
        ),
        (_, Some(e)) => eprintln!("no final tournament: {e}"),
        _ => {}
    }
    Ok(ExitCode::SUCCESS)
}
