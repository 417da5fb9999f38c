//! # durak-service
//!
//! `durak serve`: a judge service that authors submit bots to, with a ladder that never stops.
//! docs/SERVICE.md describes it for organisers and authors; this is the map of the code.
//!
//! - [`config`]: the TOML configuration and the flags over it.
//! - [`db`]: SQLite (WAL, migrations); [`store`]: the data directory and the shared queries.
//! - [`auth`]: accounts, tokens (random, stored hashed), invites.
//! - [`admin`]: what the organiser's pages keep of people: invites listed and revoked,
//!   accounts suspended and reinstated.
//! - [`archive`]: uploads unpacked safely (or refused); [`submit`]: accepting an upload
//!   durably; [`build`]: a bot's build in the sandbox; [`checker`]: build, then check-bot, then
//!   into the ladder.
//! - [`ladder`]: jobs (claimed under a lease, by the server's tables and remote workers),
//!   matchmaking, the executor, recording games in group commits, verifying workers' games,
//!   the leaderboard.
//! - [`tournament`]: fixed tournaments with the tournament engine.
//! - [`views`]: the data the pages and the JSON API show, built in one place; [`http`]: the
//!   pages, the JSON API and its OpenAPI document.
//! - [`client`]: `durak submit --server`; [`worker`]: `durak worker --server`, a remote
//!   worker that claims the ladder's jobs, plays them in its own sandbox and posts the games.
//! - [`metrics`]: `GET /metrics`, the series in Prometheus's text format.
//! - [`backup`]: `durak backup`, a copy of the data directory taken while the server runs.
//! - [`tls`]: HTTPS (rustls) for the clients and for `durak serve --tls-cert`.

pub mod admin;
pub mod analysis;
pub mod archive;
pub mod auth;
pub mod backup;
pub mod build;
pub mod build_check;
pub mod check_queue;
pub mod checker;
pub mod client;
pub mod config;
pub mod config_error;
pub mod dates;
pub mod db;
pub mod domain;
pub mod http;
pub mod ladder;
pub mod metrics;
pub mod play;
pub mod private;
pub mod quota;
pub mod season;
pub mod store;
pub mod submit;
pub mod tls;
pub mod tournament;
pub mod views;
pub mod worker;

use config::Config;
use std::net::SocketAddr;
use std::sync::Arc;

/// Why `durak serve` did not start (or stopped): each names what failed and, where there is
/// one, the fix. The errors of the modules it starts are carried as they are.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Strict mode's sandbox cannot run here (`0`: the referee's words, with its fix).
    #[error("{0}\n  (or run with --sandbox default, which does not protect against hostile bots)")]
    Sandbox(String),
    #[error(transparent)]
    Tls(#[from] tls::server::TlsError),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error(
        "cannot listen on {addr}: {source}\n  fix: choose another address with --listen \
         127.0.0.1:PORT (or listen = ... in the configuration)"
    )]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error(
        "cannot listen on {addr} for /metrics: {source}\n  fix: choose another address in \
         [metrics] listen (or leave it out)"
    )]
    MetricsListen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// The HTTPS listener cannot start on the address bound.
    #[error("cannot listen on {addr}: {source}")]
    TlsListen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// The listening socket or the HTTP server failed.
    #[error("{0}")]
    Io(std::io::Error),
    #[error(transparent)]
    DataDir(#[from] store::DataDirError),
    #[error(transparent)]
    Open(#[from] db::OpenError),
    #[error(transparent)]
    Db(#[from] db::DbError),
    #[error(transparent)]
    Organiser(#[from] auth::RegisterError),
    #[error(transparent)]
    Ladder(#[from] ladder::LadderError),
    /// The season's deadline cannot be watched (`0`: why).
    #[error("{0}")]
    Season(String),
}

/// Whether bots run under uids of their own (strict mode as root), which must reach their
/// folders.
pub fn bots_other_uid(cfg: &Config) -> bool {
    cfg.sandbox == durak_referee::Sandbox::Strict && durak_referee::isolation::running_as_root()
}

/// Start the service and serve until SIGINT or SIGTERM. Prints the address (and, on the first
/// start, the organiser's token) on stderr.
pub fn serve(cfg: Config) -> Result<(), ServeError> {
    if cfg.sandbox == durak_referee::Sandbox::Strict {
        durak_referee::isolation::check_strict_sandbox()
            .map_err(|e| ServeError::Sandbox(e.to_string()))?;
    }
    // What can fail for a reason outside the data directory (the certificate, the address) is
    // tried before it is touched: a first start that fails leaves no database behind, and the
    // organiser's token is made by the start that prints it (issue 24).
    // HTTPS when [tls] (or --tls-cert/--tls-key) names a certificate: loaded now, so that a bad
    // file stops the start with its name.
    let acceptor = cfg.tls.as_ref().map(tls::server::acceptor).transpose()?;
    let scheme = if acceptor.is_some() { "https" } else { "http" };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    let listener = rt
        .block_on(tokio::net::TcpListener::bind(cfg.listen))
        .map_err(|source| ServeError::Listen {
            addr: cfg.listen,
            source,
        })?;
    let addr = listener.local_addr().map_err(ServeError::Io)?;
    // `[metrics] listen`: its own address, bound now as the main one is.
    let metrics_listener = cfg
        .metrics_listen
        .map(|a| {
            rt.block_on(tokio::net::TcpListener::bind(a))
                .map_err(|source| ServeError::MetricsListen { addr: a, source })
        })
        .transpose()?;
    let paths = store::Paths::new(&cfg.data_dir);
    let new_dir = !paths.root.exists();
    let fresh = !paths.db().exists();
    let cfg = Arc::new(cfg);
    let opened = open_data(&cfg, &paths).and_then(|(lock, db, token)| {
        let ladder = ladder::Ladder::new(db.clone(), cfg.clone(), paths.clone())?;
        for v in checker::ensure_house_bots(&ladder)? {
            ladder.version_left(v)?;
        }
        ladder.versions_changed()?;
        Ok((lock, db, token, ladder))
    });
    if opened.is_err() && fresh {
        // A first start that failed after making the database leaves none (the next start is
        // a first start again, and prints the organiser's token), nor the directory it made.
        for f in ["service.db", "service.db-wal", "service.db-shm"] {
            let _ = std::fs::remove_file(paths.root.join(f));
        }
        if new_dir {
            let _ = std::fs::remove_dir_all(&paths.root);
        }
    }
    let (_lock, db, first_token, ladder) = opened?;
    metrics::start(&db)?;
    let mut threads = ladder.start();
    threads.extend(checker::start(ladder.clone()));
    // Fixed tournaments: one left running by the last run is resumed, the queued ones follow.
    let tournaments = tournament::Tournaments::new(ladder.clone());
    threads.push(tournaments.start_runner());
    // `[season] ends`: the current season ends at its deadline.
    season::watch_deadline(&rt, ladder.clone(), tournaments.clone())
        .map_err(|e| ServeError::Season(e.to_string()))?;
    let state = http::AppState::new(ladder.clone(), tournaments.clone());
    // Games people were playing when the server stopped go on (or end void, saying why).
    state.plays.resume()?;
    let live = state.live.clone();
    let metrics_app = http::metrics_router(state.clone());
    let app = http::router(state);
    eprintln!(
        "durak serve: listening on {scheme}://{addr}/ (data in {}; the ladder plays {} at tables of {}, \
         sandbox {}{}{})",
        cfg.data_dir.display(),
        cfg.ladder.variant.name(),
        cfg.ladder.table_size,
        cfg.sandbox,
        if cfg.ladder.local_play {
            ""
        } else {
            "; no local play: only workers play"
        },
        if ladder.is_paused() { "; paused" } else { "" }
    );
    if let Some(l) = &metrics_listener {
        let a = l.local_addr().map_err(ServeError::Io)?;
        eprintln!("durak serve: metrics on http://{a}/metrics (no token)");
    }
    if let Some(t) = first_token {
        eprintln!(
            "organiser token (shown only now, keep it): {t}\n  invite authors: curl -X POST -H \
             'Authorization: Bearer {t}' {scheme}://{addr}/api/invites"
        );
    }
    let result = rt.block_on(async move {
        let (stopping, stop_seen) = tokio::sync::watch::channel(false);
        if let Some(l) = metrics_listener {
            let mut seen = stop_seen.clone();
            let stop = async move {
                let _ = seen.wait_for(|s| *s).await;
            };
            tokio::spawn(async move {
                if let Err(e) = axum::serve(l, metrics_app)
                    .with_graceful_shutdown(stop)
                    .await
                {
                    tracing::warn!("the metrics address: {e}");
                }
            });
        }
        let stop = async move {
            shutdown_signal().await;
            // The live leaderboard's streams end, or the stop would wait for them.
            live.close();
            let _ = stopping.send(true);
        };
        match acceptor {
            Some(acceptor) => {
                let listener = tls::server::TlsListener::new(listener, acceptor)
                    .map_err(|source| ServeError::TlsListen { addr, source })?;
                serve_on(listener, app, stop, stop_seen).await
            }
            None => serve_on(listener, app, stop, stop_seen).await,
        }
    });
    eprintln!("durak serve: stopping (the games being played are given up and played again on the next start; nothing recorded is lost)");
    ladder.stop();
    tournaments.stop();
    for t in threads.drain(..) {
        let _ = t.join();
    }
    // The jobs this run held go back to the queue now (their games in flight were not
    // recorded), for whoever takes them first.
    ladder::jobs::release_owner_prefix(&db, &format!("local:{}:", ladder.run_id))?;
    result
}

/// The data directory held (its lock), its database open and up to date, and the organiser's
/// token when this start made the organiser's account.
fn open_data(
    cfg: &Config,
    paths: &store::Paths,
) -> Result<(std::fs::File, Arc<db::Db>, Option<String>), ServeError> {
    paths.create()?;
    let lock = paths.lock()?;
    durak_referee::isolation::harden_referee();
    store::private_db(&paths.db())?;
    let db = Arc::new(db::Db::open(&paths.db())?);
    paths.make_private(bots_other_uid(cfg))?;
    let first_token = auth::ensure_organiser(&db)?;
    Ok((lock, db, first_token))
}

/// Serve `app` on `listener` until `stop` ends, then give the answers being sent a few seconds;
/// a client that stopped reading does not hold the stop up for longer.
async fn serve_on<L>(
    listener: L,
    app: axum::Router,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
    mut stop_seen: tokio::sync::watch::Receiver<bool>,
) -> Result<(), ServeError>
where
    L: axum::serve::Listener<Addr = std::net::SocketAddr>,
    http::limits::Peer:
        for<'a> axum::extract::connect_info::Connected<axum::serve::IncomingStream<'a, L>>,
{
    // With the peer's address: the rate limits count per client (`http::limits`).
    let app = app.into_make_service_with_connect_info::<http::limits::Peer>();
    let server = axum::serve(listener, app).with_graceful_shutdown(stop);
    let grace = async move {
        let _ = stop_seen.wait_for(|s| *s).await;
        tokio::time::sleep(STOP_GRACE).await;
    };
    tokio::select! {
        r = server => r.map_err(ServeError::Io),
        _ = grace => Ok(()),
    }
}

/// How long a clean stop waits for the answers being sent.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_taken_stops_the_start_with_the_fix_and_touches_no_data() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let d = tempfile::tempdir().unwrap();
        let o = config::Overrides {
            listen: Some(taken.local_addr().unwrap().to_string()),
            sandbox: Some("default".into()),
            data_dir: Some(d.path().join("data")),
            ..Default::default()
        };
        let e = serve(config::resolve(None, &o).unwrap()).unwrap_err();
        assert!(matches!(e, ServeError::Listen { .. }), "{e:?}");
        assert!(e.to_string().contains("fix: choose another address"), "{e}");
        assert!(!d.path().join("data").exists());
    }
}
