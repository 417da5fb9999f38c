//! `durak worker --server URL --token T` (a remote worker of a `durak serve` ladder,
//! `service/src/worker/`) and `durak worker-token` (the organiser issues, lists and revokes
//! worker tokens).

use crate::error::bad_input;
use crate::CmdResult;
use clap::{Args, Subcommand};
use durak_service::client::Client;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub struct WorkerArgs {
    /// The server's address, e.g. https://judge.example.org
    #[arg(long, value_name = "URL")]
    server: String,
    /// A worker token the organiser issued (or DURAK_WORKER_TOKEN in the environment)
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// Jobs played at once, each one game at a time
    #[arg(long, default_value_t = 1, value_name = "N")]
    concurrency: usize,
    /// Isolation of submitted bots: `strict` (bubblewrap: no network, read-only system, only
    /// its own folder visible) or `default` (docs/SECURITY.md)
    #[arg(long, default_value = "strict", value_name = "default|strict")]
    sandbox: durak_referee::Sandbox,
    /// Where fetched bots are kept, by version id [default: $XDG_CACHE_HOME/durak-worker, or
    /// ~/.cache/durak-worker]
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Give up when the server has not answered for this long, in seconds
    #[arg(long, default_value_t = 300, value_name = "S")]
    retry_s: u64,
    /// A line for every game played
    #[arg(long, short)]
    verbose: bool,
    /// Also trust this CA's certificate (PEM) for the server's HTTPS, besides this machine's
    /// CAs (or DURAK_CA_CERT in the environment)
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<PathBuf>,
}

fn cache_dir() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(x).join("durak-worker");
    }
    match std::env::var_os("HOME").filter(|x| !x.is_empty()) {
        Some(h) => PathBuf::from(h).join(".cache").join("durak-worker"),
        None => PathBuf::from("durak-worker-cache"),
    }
}

pub fn worker(args: WorkerArgs) -> CmdResult {
    let token = match args.token {
        Some(t) => t,
        None => std::env::var("DURAK_WORKER_TOKEN").map_err(|_| {
            "durak worker needs --token TOKEN (or DURAK_WORKER_TOKEN in the environment): a \
             worker token from the organiser (durak worker-token new)"
                .to_string()
        })?,
    };
    durak_service::worker::run(durak_service::worker::Options {
        server: args.server,
        token,
        sandbox: args.sandbox,
        concurrency: args.concurrency,
        cache: args.cache.unwrap_or_else(cache_dir),
        retry_for: Duration::from_secs(args.retry_s.max(1)),
        verbose: args.verbose,
        trust: durak_service::tls::client::Trust::from_flag(args.ca_cert),
    })?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct WorkerTokenArgs {
    #[command(subcommand)]
    what: TokenCommand,
    /// The server's address
    #[arg(long, value_name = "URL", global = true)]
    server: Option<String>,
    /// The organiser's token (or DURAK_TOKEN in the environment)
    #[arg(long, value_name = "TOKEN", global = true)]
    token: Option<String>,
    /// Also trust this CA's certificate (PEM) for the server's HTTPS (or DURAK_CA_CERT)
    #[arg(long, value_name = "FILE", global = true)]
    ca_cert: Option<PathBuf>,
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Issue a worker token (printed once: give it to the worker's `--token`)
    New {
        /// A label to recognise it by (the machine, the rack)
        #[arg(long, default_value = "")]
        label: String,
    },
    /// List the worker tokens (never the tokens themselves)
    List,
    /// Revoke a worker token by id
    Revoke { id: i64 },
}

pub fn worker_token(args: WorkerTokenArgs) -> CmdResult {
    let server = args
        .server
        .ok_or("durak worker-token needs --server URL: the server's address")?;
    let token = match args.token {
        Some(t) => t,
        None => std::env::var("DURAK_TOKEN").map_err(|_| {
            "durak worker-token needs --token TOKEN (or DURAK_TOKEN): the organiser's token"
                .to_string()
        })?,
    };
    if let Some(w) = durak_service::tls::client::clear_warning(&server) {
        eprintln!("{w}");
    }
    let c = Client::with_trust(
        &server,
        Some(&token),
        Duration::from_secs(30),
        durak_service::tls::client::Trust::from_flag(args.ca_cert),
    )?;
    let a = match &args.what {
        TokenCommand::New { label } => c.post_json("/api/worker-tokens", &json!({"label": label})),
        TokenCommand::List => c.get("/api/worker-tokens"),
        TokenCommand::Revoke { id } => c.delete(&format!("/api/worker-tokens/{id}")),
    }?;
    if !(200..300).contains(&a.status) {
        return Err(bad_input!("{server}: {} {}", a.status, a.error()));
    }
    match &args.what {
        TokenCommand::New { .. } => {
            println!("{}", a.json["token"].as_str().unwrap_or(""));
            eprintln!(
                "worker token {} (shown only now): durak worker --server {server} --token TOKEN",
                a.json["id"]
            );
        }
        TokenCommand::List => {
            for t in a.json["worker_tokens"].as_array().into_iter().flatten() {
                let date = durak_service::http::pages::time;
                println!(
                    "{}\t{}\t{}\tissued {}\t{}",
                    t["id"],
                    if t["revoked"] == true {
                        "revoked"
                    } else {
                        "active"
                    },
                    t["label"].as_str().unwrap_or(""),
                    date(t["created"].as_i64().unwrap_or(0)),
                    match t["last_seen"].as_i64() {
                        Some(ms) => format!("last seen {}", date(ms)),
                        None => "never used".into(),
                    }
                );
            }
        }
        TokenCommand::Revoke { id } => println!("revoked worker token {id}"),
    }
    Ok(ExitCode::SUCCESS)
}
