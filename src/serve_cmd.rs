//! `durak serve` (the judge service, `service/`) and `durak submit --server` (an upload to it).

use crate::error::bad_input;
use crate::CmdResult;
use clap::Args;
use durak_service::config::{self, ConfigFile, Overrides, Registration};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub struct ServeArgs {
    /// The configuration file (TOML; docs/SERVICE.md lists the keys); flags win over it
    #[arg(long, short, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Address to listen on [default: 127.0.0.1:8080]
    #[arg(long, value_name = "ADDR:PORT")]
    listen: Option<String>,
    /// The data directory: database, uploads, bots, replays [default: durak-data]
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Who may create an account: `open` (anyone) or `invite` (with an organiser's invite)
    /// [default: invite]
    #[arg(long, value_name = "open|invite")]
    registration: Option<String>,
    /// prostoy or podkidnoy [default: podkidnoy]
    #[arg(long)]
    variant: Option<String>,
    /// Players per table [default: 2]
    #[arg(long)]
    table_size: Option<usize>,
    /// Deals per job, each played at every seat rotation [default: 2]
    #[arg(long)]
    deals: Option<u32>,
    /// Tables playing at once [default: the number of cores]
    #[arg(long)]
    concurrency: Option<usize>,
    /// Isolation of bots: `strict` (bubblewrap) or `default` [default: strict]
    #[arg(long, value_name = "default|strict")]
    sandbox: Option<String>,
    /// A resource limit of every bot, KEY=VALUE as in `durak play --limit` (repeatable)
    #[arg(long = "limit", value_name = "KEY=VALUE")]
    limits: Vec<String>,
    /// Time limit per decision, in milliseconds [default: 1000]
    #[arg(long)]
    move_time_ms: Option<u64>,
    /// The ladder's house bots (built-in), comma-separated; "none" for none
    /// [default: builtin:greedy,builtin:random]
    #[arg(long, value_name = "LIST")]
    house_bots: Option<String>,
    /// Seed of the ladder's deals (on the first start) [default: drawn]
    #[arg(long)]
    seed: Option<u64>,
    /// check-bot's full games per table [default: 2]
    #[arg(long)]
    check_games: Option<u32>,
    /// check-bot's long match: games in one process, 0 for none [default: 100]
    #[arg(long)]
    check_long_games: Option<u32>,
    /// Time limit of a bot's build, in seconds [default: 120]
    #[arg(long)]
    build_timeout_s: Option<u64>,
    /// The server's own tables play no game: only remote workers (`durak worker`) do
    /// (`[ladder] local_play = false`)
    #[arg(long)]
    no_local_play: bool,
    /// How long a claimed job is held without a renewal before it is handed out again, in
    /// seconds [default: 60]
    #[arg(long, value_name = "S")]
    lease_s: Option<u64>,
    /// Serve HTTPS with this certificate chain (PEM, e.g. certbot's fullchain.pem; `[tls] cert`),
    /// read again when it changes; needs --tls-key
    #[arg(long, value_name = "FILE")]
    tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM, e.g. certbot's privkey.pem; `[tls] key`)
    #[arg(long, value_name = "FILE")]
    tls_key: Option<PathBuf>,
}

pub fn serve(args: ServeArgs) -> CmdResult {
    // The endgame analysis solves in a process of its own: this executable, `analysis-worker`.
    let exe = std::env::var_os("DURAK_EXE").map(std::path::PathBuf::from);
    if let Some(exe) = exe.or_else(|| std::env::current_exe().ok()) {
        durak_service::analysis::worker::use_program(exe);
    }
    let file = match &args.config {
        Some(p) => Some((p.clone(), ConfigFile::load(p)?)),
        None => None,
    };
    let registration = match args.registration.as_deref() {
        None => None,
        Some("open") => Some(Registration::Open),
        Some("invite") => Some(Registration::Invite),
        Some(other) => {
            return Err(bad_input!(
                "--registration {other:?}: choose \"open\" or \"invite\""
            ))
        }
    };
    let house_bots = args.house_bots.as_ref().map(|h| {
        if h == "none" {
            Vec::new()
        } else {
            h.split(',').map(|s| s.trim().to_string()).collect()
        }
    });
    let o = Overrides {
        listen: args.listen,
        data_dir: args.data_dir,
        registration,
        variant: args.variant,
        table_size: args.table_size,
        deals: args.deals,
        concurrency: args.concurrency,
        sandbox: args.sandbox,
        limits: args.limits,
        move_ms: args.move_time_ms,
        house_bots,
        seed: args.seed,
        check_games: args.check_games,
        check_long: args.check_long_games,
        build_timeout_s: args.build_timeout_s,
        local_play: args.no_local_play.then_some(false),
        lease_s: args.lease_s,
        tls_cert: args.tls_cert,
        tls_key: args.tls_key,
    };
    let cfg = config::resolve(file.as_ref().map(|(p, f)| (p.as_path(), f)), &o)?;
    durak_service::serve(cfg)?;
    Ok(ExitCode::SUCCESS)
}

/// `durak submit --server URL --token T PATH`.
pub fn submit_remote(
    server: &str,
    token: Option<&str>,
    path: &Path,
    wait_s: u64,
    ca_cert: Option<PathBuf>,
) -> CmdResult {
    let token = match token {
        Some(t) => t.to_string(),
        None => std::env::var("DURAK_TOKEN").map_err(|_| {
            "--server needs --token TOKEN (or DURAK_TOKEN in the environment): your token from \
             the server's page"
                .to_string()
        })?,
    };
    let wait = (wait_s > 0).then(|| Duration::from_secs(wait_s));
    Ok(
        match durak_service::client::submit(
            server,
            &token,
            path,
            wait,
            durak_service::tls::client::Trust::from_flag(ca_cert),
        )? {
            durak_service::client::Outcome::Passed | durak_service::client::Outcome::Queued => {
                ExitCode::SUCCESS
            }
            durak_service::client::Outcome::Failed => ExitCode::from(1),
        },
    )
}
