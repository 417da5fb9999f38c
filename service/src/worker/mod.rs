//! `durak worker --server URL --token T`: a remote worker of a `durak serve` ladder. Each of
//! its `--concurrency` slots loops: claim a job (`POST /api/worker/claim`) with the jobs among
//! the same versions that come after it (up to [`BATCH_GAMES`] games in the same answer:
//! `max_games`), fetch the bots it does not have (a version's built folder as tar.gz, checked
//! against its SHA-256, unpacked with the safe unpacker into the cache, kept by version id),
//! play the jobs' games with the referee one at a time in its own sandbox, in one match over
//! the same bot processes, claiming the next batch among the same versions as one runs out (up
//! to [`MATCH_GAMES`]), and post each game's result and replay as soon as
//! it ends (a poster thread, in batches, retried with backoff on network errors: results are
//! kept until the server acknowledges them) while a renewer thread keeps the lease. A job left
//! unfinished (the lease lost, a signal) is released. SIGINT or SIGTERM: the games
//! finished before it are posted, the one being played is given up, the job released, and the
//! worker exits (a second signal exits at once).
//!
//! The server verifies every replay before it records it (`ladder/verify.rs`): a worker cannot
//! make a game up, though it could run another program in a bot's seat (docs/SERVICE.md).

mod error;
mod net;
mod play;

pub use error::{FetchError, JobError, WorkerError};
pub(crate) use net::stopping;
use net::{nap, now_if_stopping, Net, Reply};
pub use play::{play_batches, play_games, Claimed, ClaimedBatch, Played, WorkerVersion};

use crate::client::{Answer, Client};
use crate::http::worker_api::SHA256_HEADER;
use durak_referee::Sandbox;
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// What `durak worker` was told.
#[derive(Clone, Debug)]
pub struct Options {
    pub server: String,
    pub token: String,
    pub sandbox: Sandbox,
    /// Jobs played at once (each one game at a time).
    pub concurrency: usize,
    /// Where fetched bots are kept, by version id.
    pub cache: PathBuf,
    /// Give up after the server has been unreachable this long.
    pub retry_for: Duration,
    /// Print a line per game.
    pub verbose: bool,
    /// The CAs trusted for an https:// server (the platform's and `--ca-cert`).
    pub trust: crate::tls::client::Trust,
}

/// The worker's shared state.
struct Ctx {
    o: Options,
    net: Net,
    /// One fetch at a time (two slots may need the same bot).
    fetching: Mutex<()>,
    fatal: Mutex<Option<String>>,
}

impl Ctx {
    fn fail(&self, e: String) {
        let mut f = self.fatal.lock().unwrap_or_else(|e| e.into_inner());
        if f.is_none() {
            *f = Some(e);
        }
        net::stop();
    }

    fn token_refused(&self, a: &Answer) {
        self.fail(format!(
            "the server refused the worker token given with --token ({}: {})\n  fix: ask the \
             organiser for a worker token (`durak worker-token new --server URL --token \
             ORGANISER_TOKEN`, or POST /api/worker-tokens) and pass it with --token (or \
             DURAK_WORKER_TOKEN)",
            a.status,
            a.error()
        ));
    }

    /// The folder of a submitted version: from the cache, or fetched, checked and unpacked. An
    /// error says whether the server should hear of it (`true`: this worker cannot use the
    /// version's archive; `false`: the server did not answer, or a signal came).
    fn folder(&self, v: &WorkerVersion) -> Result<PathBuf, (bool, String)> {
        self.fetch_folder(v).map_err(|e| {
            let unreachable = matches!(e, FetchError::GaveUp(_));
            (!unreachable && !stopping(), e.to_string())
        })
    }

    fn fetch_folder(&self, v: &WorkerVersion) -> Result<PathBuf, FetchError> {
        let sha = v.sha256.as_deref().ok_or_else(|| FetchError::NoSha {
            id: v.id,
            label: v.label.clone(),
        })?;
        let dest = self
            .o
            .cache
            .join(format!("v{}-{}", v.id, &sha[..sha.len().min(16)]));
        let marker = dest.join(".durak-worker-complete");
        let _one = self.fetching.lock().unwrap_or_else(|e| e.into_inner());
        if let Ok(rel) = std::fs::read_to_string(&marker) {
            return Ok(dest.join(rel.trim()));
        }
        let url = v
            .bot_url
            .clone()
            .unwrap_or_else(|| format!("/api/worker/versions/{}/bot", v.id));
        let limit = v.size.unwrap_or(1 << 30) + 1;
        let reply = {
            let url = url.clone();
            self.net.retrying(
                &format!("fetching {}", v.label),
                now_if_stopping,
                move |c| {
                    let (status, bytes, _) = c.get_bytes(&url, SHA256_HEADER, limit)?;
                    let json = if status == 200 {
                        json!({})
                    } else {
                        serde_json::from_slice(&bytes).unwrap_or_else(|_| json!({"error": "?"}))
                    };
                    Ok((Answer { status, json }, bytes))
                },
            )
        };
        let bytes = match reply {
            Reply::GaveUp(e) => return Err(FetchError::GaveUp(e)),
            Reply::Answer(a, _) if a.status != 200 => {
                return Err(FetchError::Refused {
                    label: v.label.clone(),
                    url,
                    status: a.status,
                    error: a.error(),
                })
            }
            Reply::Answer(_, bytes) => bytes,
        };
        let got = crate::http::worker_api::sha256_hex(&bytes);
        if got != sha {
            return Err(FetchError::Sha {
                label: v.label.clone(),
                id: v.id,
                got,
                sha: sha.to_string(),
            });
        }
        let cache = &self.o.cache;
        std::fs::create_dir_all(cache).map_err(FetchError::cache(cache, "cannot create it: "))?;
        let archive = tempfile::NamedTempFile::new_in(cache)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &bytes).map(|()| f))
            .map_err(FetchError::cache(cache, ""))?;
        let tmp = tempfile::Builder::new()
            .prefix(".unpack-")
            .tempdir_in(cache)
            .map_err(FetchError::cache(cache, ""))?;
        let limits = crate::ladder::unplayable::WORKER_UNPACK;
        let u = crate::archive::unpack(archive.path(), tmp.path(), limits).map_err(|source| {
            FetchError::Unpack {
                label: v.label.clone(),
                source,
            }
        })?;
        let rel = u
            .folder
            .strip_prefix(tmp.path())
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let marker = tmp.path().join(".durak-worker-complete");
        std::fs::write(&marker, rel.display().to_string())
            .map_err(FetchError::cache(&marker, ""))?;
        let _ = std::fs::remove_dir_all(&dest);
        let kept = tmp.keep();
        std::fs::rename(&kept, &dest)
            .map_err(FetchError::cache(&dest, "cannot rename into place: "))?;
        eprintln!(
            "durak worker: fetched {} ({} bytes, SHA-256 checked) into {}",
            v.label,
            bytes.len(),
            dest.display()
        );
        Ok(dest.join(rel))
    }
}

/// One job being played: the games waiting to be posted, and how it goes.
#[derive(Default)]
struct Run {
    outbox: Mutex<Vec<Played>>,
    wake: Condvar,
    /// No more games will come.
    played_all: AtomicBool,
    /// The lease is not ours any more (or the job was cancelled).
    lost: AtomicBool,
    new: AtomicUsize,
    already: AtomicUsize,
    dropped: AtomicUsize,
}

impl Run {
    /// A game to post; `last`: no more will come (its poster ends once it is posted, its
    /// renewer at once, while the match plays the batch's next job).
    fn push(&self, g: Played, last: bool) {
        let mut o = self.outbox.lock().unwrap_or_else(|e| e.into_inner());
        o.push(g);
        if last {
            self.played_all.store(true, Ordering::SeqCst);
        }
        // Under the lock: a thread between its check and its wait would miss the wake-up.
        self.wake.notify_all();
    }

    /// No more games will come.
    fn all_played(&self) {
        let _o = self.outbox.lock().unwrap_or_else(|e| e.into_inner());
        self.played_all.store(true, Ordering::SeqCst);
        self.wake.notify_all();
    }
}

/// The most games a slot claims at a time: the jobs among the same versions it claims in a
/// row, played over the same bot processes (each with its own lease, renewed and posted apart).
/// The ladder's run (`ladder::RUN_GAMES`): a slot takes a whole run, and two slots play two
/// runs, each in a match of its own (with half a run each, both played the same run and
/// started their bots again when it ran out). A new version's first job waits for the batch
/// being played: under a second of house bots' games, a few seconds of Python bots'.
pub const BATCH_GAMES: usize = crate::ladder::RUN_GAMES;

/// What a claim gave.
enum Claim {
    /// A job, and the jobs among its versions that came with it (`max_games`).
    Job(Box<Claimed>, Vec<Claimed>),
    /// None open (or the server said why not): try again after this long.
    Wait(Duration),
    /// The worker stops (told why already).
    Stop,
}

/// Claim a job, one among `prefer` (version ids) first, and the jobs among its versions that
/// come next, up to `max_games` games in all.
fn claim(ctx: &Ctx, name: &str, prefer: &[i64], max_games: usize) -> Claim {
    let body = json!({"name": name, "versions": prefer, "max_games": max_games});
    let reply = ctx
        .net
        .retrying("claiming a job", now_if_stopping, move |c| {
            c.post_json("/api/worker/claim", &body)
                .map(|a| (a, Vec::new()))
        });
    let a = match reply {
        Reply::Answer(a, _) => a,
        Reply::GaveUp(e) => {
            if !stopping() {
                ctx.fail(format!(
                    "{e}\n  fix: check that `durak serve` runs there and that --server is its \
                     address"
                ));
            }
            return Claim::Stop;
        }
    };
    if a.status == 401 || a.status == 403 {
        ctx.token_refused(&a);
        return Claim::Stop;
    }
    if a.status != 200 {
        eprintln!(
            "durak worker: claiming a job: {} {}; trying again in 2 s",
            a.status,
            a.error()
        );
        return Claim::Wait(Duration::from_secs(2));
    }
    if a.json["job"].is_null() {
        let ms = a.json["retry_ms"]
            .as_u64()
            .unwrap_or(1000)
            .clamp(100, 10_000);
        return Claim::Wait(Duration::from_millis(ms));
    }
    match serde_json::from_value::<ClaimedBatch>(a.json) {
        Ok(c) => Claim::Job(Box::new(c.first), c.more),
        Err(e) => {
            ctx.fail(format!(
                "the server's job is not one this worker understands ({e}): use the same durak \
                 version as the server"
            ));
            Claim::Stop
        }
    }
}

fn slot_loop(ctx: Arc<Ctx>, slot: usize) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            ctx.fail(format!("cannot start the async runtime: {e}"));
            return;
        }
    };
    let name = format!("{}#{slot}", hostname());
    // A job claimed that the last match could not take: the next match's first.
    let mut next: Option<Box<Claimed>> = None;
    // The last match's jobs, their last posts being finished while the next match plays.
    let mut finishing: Vec<std::thread::JoinHandle<()>> = Vec::new();
    while !stopping() {
        let (first, more) = match next.take() {
            Some(c) => (c, Vec::new()),
            None => match claim(&ctx, &name, &[], BATCH_GAMES) {
                Claim::Job(c, more) => (c, more),
                Claim::Wait(d) => {
                    nap(d);
                    continue;
                }
                Claim::Stop => break,
            },
        };
        say_claimed(&first);
        let Some(folders) = prepare(&ctx, &first) else {
            for m in more {
                release(
                    &ctx,
                    m.job.id,
                    &m.lease,
                    "its bots could not be prepared",
                    None,
                );
            }
            continue;
        };
        // The jobs among the same versions that came with it; the match claims the next
        // batches itself (`play_jobs`).
        let mut batch = Batch::new(*first);
        for c in more {
            batch.take_or_release(&ctx, c);
        }
        let done = play_jobs(&ctx, &rt, batch.jobs, &folders, &name, &mut next);
        for f in std::mem::replace(&mut finishing, done) {
            let _ = f.join();
        }
    }
    for f in finishing {
        let _ = f.join();
    }
    if let Some(c) = next {
        release(&ctx, c.job.id, &c.lease, "stopped by a signal", None);
    }
}

/// The jobs a slot plays in one match, and their games.
struct Batch {
    jobs: Vec<Claimed>,
    games: usize,
}

impl Batch {
    fn new(first: Claimed) -> Batch {
        Batch {
            games: first.games.len(),
            jobs: vec![first],
        }
    }

    /// Whether `c` can join: the same match, and room for its games.
    fn fits(&self, c: &Claimed) -> bool {
        same_match(&self.jobs[0], c) && self.games + c.games.len() <= BATCH_GAMES
    }

    /// `c` joins when it fits, else it is let go at once (a server sends none such).
    fn take_or_release(&mut self, ctx: &Ctx, c: Claimed) {
        if self.fits(&c) {
            self.games += c.games.len();
            say_claimed(&c);
            self.jobs.push(c);
        } else {
            release(ctx, c.job.id, &c.lease, "not for this batch", None);
        }
    }
}

/// Whether job `c` can be played in the match of `first`'s batch: a rotation of its seats, and
/// the same rules, limits and commands (a server restarted with other limits hands out jobs
/// under them, which the games of the first's match would not be).
fn same_match(first: &Claimed, c: &Claimed) -> bool {
    c.job.rotation_seated(&first.job.seating(0)).is_some()
        && c.variant == first.variant
        && c.table_size == first.table_size
        && c.max_moves == first.max_moves
        && c.limits == first.limits
        && c.resources == first.resources
        && commands(c) == commands(first)
}

/// A claim's versions' commands, by version id.
fn commands(c: &Claimed) -> Vec<(i64, &str)> {
    let mut v: Vec<(i64, &str)> = c
        .versions
        .iter()
        .map(|v| (v.id, v.command.as_str()))
        .collect();
    v.sort_unstable();
    v
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "worker".into())
}

/// A job of a batch being played: its games to post, its lease kept.
struct Playing {
    run: Arc<Run>,
    stopped_at: Arc<Mutex<Option<Instant>>>,
    renewer: std::thread::JoinHandle<()>,
    poster: std::thread::JoinHandle<()>,
    played: AtomicUsize,
}

fn start_playing(ctx: &Arc<Ctx>, c: &Claimed) -> Playing {
    let id = c.job.id;
    let run = Arc::new(Run::default());
    let stopped_at = Arc::new(Mutex::new(None::<Instant>));
    let renewer = spawn_renewer(ctx, &run, id, &c.lease, c.lease_ms, c.games.len());
    let poster = {
        let (ctx, run, lease, stopped_at) = (
            ctx.clone(),
            run.clone(),
            c.lease.clone(),
            stopped_at.clone(),
        );
        std::thread::spawn(move || post_loop(&ctx, &run, id, &lease, &stopped_at))
    };
    Playing {
        run,
        stopped_at,
        renewer,
        poster,
        played: AtomicUsize::new(0),
    }
}

fn say_claimed(c: &Claimed) {
    let labels: Vec<&str> = c.versions.iter().map(|v| v.label.as_str()).collect();
    eprintln!(
        "durak worker: job {}: claimed, {} game(s) to play ({}), lease {} s",
        c.job.id,
        c.games.len(),
        labels.join(", "),
        c.lease_ms / 1000
    );
}

/// The folders of a job's submitted versions, fetched when not cached; `None` when one could
/// not be (the job is released, saying why, and the slot waits a moment).
fn prepare(ctx: &Ctx, c: &Claimed) -> Option<HashMap<i64, PathBuf>> {
    let mut folders = HashMap::new();
    for v in c.versions.iter().filter(|v| !v.house) {
        match ctx.folder(v) {
            Ok(f) => {
                folders.insert(v.id, f);
            }
            Err((tell, e)) => {
                eprintln!("durak worker: job {}: {e}", c.job.id);
                let failed = tell.then(|| json!({"version": v.id, "reason": e}));
                release(
                    ctx,
                    c.job.id,
                    &c.lease,
                    "its bots could not be prepared",
                    failed,
                );
                nap(Duration::from_secs(5));
                return None;
            }
        }
    }
    Some(folders)
}

/// The most games a slot plays over the same bot processes: its batches follow one another in
/// one match while they are among the same versions (as the server's tables play a match of
/// `ladder::MATCH_GAMES`), then the processes are started again.
pub const MATCH_GAMES: u32 = 1000;

/// The jobs of a slot's match: each job's claim and threads, by its index in the match, until
/// it is handed to a thread that finishes it.
struct MatchJobs {
    jobs: Vec<Option<(Claimed, Playing)>>,
    finishing: Vec<std::thread::JoinHandle<()>>,
}

impl MatchJobs {
    fn add(&mut self, ctx: &Arc<Ctx>, batch: &[Claimed]) {
        for c in batch {
            self.jobs.push(Some((c.clone(), start_playing(ctx, c))));
        }
    }

    /// The jobs whose every game is played (`all`: every job left, the match over) handed to a
    /// thread that waits for their last posts ([`finish_playing`]).
    fn finish(&mut self, ctx: &Arc<Ctx>, all: bool) {
        let done: Vec<(Claimed, Playing)> = self
            .jobs
            .iter_mut()
            .filter(|j| {
                all || j
                    .as_ref()
                    .is_some_and(|(c, p)| p.played.load(Ordering::SeqCst) >= c.games.len())
            })
            .filter_map(Option::take)
            .collect();
        if done.is_empty() {
            return;
        }
        let ctx = ctx.clone();
        self.finishing.push(std::thread::spawn(move || {
            for (c, p) in done {
                finish_playing(&ctx, &c, p);
            }
        }));
    }
}

/// Play a batch of jobs among the same versions in one match (`play_batches`), each posted and
/// renewed under its own lease, and the batches among the same versions that the slot claims
/// as each ends (up to [`MATCH_GAMES`]), over the same processes. A claimed job the match
/// cannot take becomes `next`. Every game is played or given up when this returns; the jobs'
/// last posts may still be under way, in the threads returned ([`finish_playing`]: it also
/// releases a job not played to its end).
fn play_jobs(
    ctx: &Arc<Ctx>,
    rt: &tokio::runtime::Runtime,
    batch: Vec<Claimed>,
    folders: &HashMap<i64, PathBuf>,
    name: &str,
    next: &mut Option<Box<Claimed>>,
) -> Vec<std::thread::JoinHandle<()>> {
    let Some(first) = batch.first().cloned() else {
        return Vec::new();
    };
    let seating = first.job.seating(0);
    let state = std::cell::RefCell::new(MatchJobs {
        jobs: Vec::new(),
        finishing: Vec::new(),
    });
    let mut initial = Some(batch);
    let more = |left: u32| -> Option<Vec<Claimed>> {
        let mut st = state.borrow_mut();
        if let Some(b) = initial.take() {
            st.add(ctx, &b);
            return Some(b);
        }
        st.finish(ctx, false);
        // A job among other versions waits (claimed already): the match ends for it.
        if stopping() || next.is_some() {
            return None;
        }
        let room = BATCH_GAMES.min(left as usize);
        match claim(ctx, name, &seating, room) {
            Claim::Job(c, more) if same_match(&first, &c) && c.games.len() <= room => {
                say_claimed(&c);
                let mut b = Batch::new(*c);
                for m in more {
                    b.take_or_release(ctx, m);
                }
                st.add(ctx, &b.jobs);
                Some(b.jobs)
            }
            Claim::Job(c, more) => {
                for m in more {
                    release(ctx, m.job.id, &m.lease, "not for this batch", None);
                }
                *next = Some(c);
                None
            }
            Claim::Wait(_) | Claim::Stop => None,
        }
    };
    let hidden = vec![ctx.o.cache.clone()];
    let verbose = ctx.o.verbose;
    let result = rt.block_on(play_batches(
        Some(&first),
        folders,
        ctx.o.sandbox,
        hidden,
        MATCH_GAMES,
        more,
        |j, g| {
            let st = state.borrow();
            let Some((c, p)) = st.jobs.get(j).and_then(Option::as_ref) else {
                return false;
            };
            if verbose {
                eprintln!(
                    "durak worker: job {}: game {} played ({} moves)",
                    c.job.id, g.game, g.result.moves
                );
            }
            let played = p.played.fetch_add(1, Ordering::SeqCst) + 1;
            p.run.push(g, played == c.games.len());
            !p.run.lost.load(Ordering::SeqCst) && !stopping()
        },
    ));
    if let Err(e) = &result {
        eprintln!("durak worker: job {}: {e}", first.job.id);
    }
    let mut st = state.into_inner();
    // Every job's threads told at once (they end, or post what is left, while the next match
    // plays).
    for (_, p) in st.jobs.iter().flatten() {
        if stopping() {
            *p.stopped_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        }
        p.run.all_played();
    }
    st.finish(ctx, true);
    st.finishing
}

/// Wait for a job's games to be posted, say how it went, release it when not played to its end.
fn finish_playing(ctx: &Ctx, c: &Claimed, p: Playing) {
    let (id, to_play) = (c.job.id, c.games.len());
    let run = &p.run;
    // `played_all` is set already (`play_jobs`): the poster ends once the outbox is empty.
    let _ = p.poster.join();
    let _ = p.renewer.join();
    let n = p.played.load(Ordering::SeqCst);
    let (new, already, dropped) = (
        run.new.load(Ordering::SeqCst),
        run.already.load(Ordering::SeqCst),
        run.dropped.load(Ordering::SeqCst),
    );
    eprintln!(
        "durak worker: job {id}: {n} of {to_play} game(s) played, {new} recorded, {already} \
         recorded before{}",
        if dropped > 0 {
            format!(", {dropped} not recorded")
        } else {
            String::new()
        }
    );
    if n < to_play && !run.lost.load(Ordering::SeqCst) {
        release(
            ctx,
            id,
            &c.lease,
            if stopping() {
                "stopped by a signal"
            } else {
                "not played to its end"
            },
            None,
        );
    }
}

/// Release job `id` (`lease`), with why it could not be played when that is the case
/// (`failed`): the server counts such failures and cancels a job no worker can play. A stopping
/// worker waits at most 2 s for the answer.
fn release(ctx: &Ctx, id: i64, lease: &str, why: &str, failed: Option<serde_json::Value>) {
    let mut body = json!({"lease": lease});
    if let Some(f) = failed {
        body["failed"] = f;
    }
    let path = format!("/api/worker/jobs/{id}/release");
    let give_up = Instant::now() + Duration::from_secs(2);
    let until = move || stopping().then_some(give_up);
    let r = ctx.net.call(
        &until,
        Arc::new(move |cl: &Client| cl.post_json(&path, &body).map(|a| (a, Vec::new()))),
    );
    match r.map(|(a, _)| a) {
        Ok(a) if a.status == 200 => {
            eprintln!("durak worker: job {id}: released ({why})")
        }
        Ok(a) => eprintln!(
            "durak worker: job {id}: release: {} {}",
            a.status,
            a.error()
        ),
        Err(e) => eprintln!("durak worker: job {id}: release: {e}"),
    }
}

/// The renewer: renews job `id`'s lease every third of it until every game is played, and marks
/// the run lost when the server refuses (the token, or the job gone).
fn spawn_renewer(
    ctx: &Arc<Ctx>,
    run: &Arc<Run>,
    id: i64,
    lease: &str,
    lease_ms: i64,
    to_play: usize,
) -> std::thread::JoinHandle<()> {
    let (ctx, run, lease) = (ctx.clone(), run.clone(), lease.to_string());
    let every = Duration::from_millis((lease_ms as u64 / 3).max(100));
    std::thread::spawn(move || {
        let mut next = Instant::now() + every;
        loop {
            // Woken at once when the last game is played (`Run::wake`).
            {
                let o = run.outbox.lock().unwrap_or_else(|e| e.into_inner());
                let left = next.saturating_duration_since(Instant::now());
                let _ = run
                    .wake
                    .wait_timeout_while(o, left, |_| !run.played_all.load(Ordering::SeqCst))
                    .unwrap_or_else(|e| e.into_inner());
            }
            if run.played_all.load(Ordering::SeqCst) {
                return;
            }
            if Instant::now() < next {
                continue;
            }
            next = Instant::now() + every;
            let (path, body) = (
                format!("/api/worker/jobs/{id}/renew"),
                json!({"lease": lease}),
            );
            match ctx
                .net
                .call(
                    &now_if_stopping,
                    Arc::new(move |cl: &Client| {
                        cl.post_json(&path, &body).map(|a| (a, Vec::new()))
                    }),
                )
                .map(|(a, _)| a)
            {
                Ok(a) if a.status == 200 => {}
                Ok(a) if a.status == 401 || a.status == 403 => {
                    ctx.token_refused(&a);
                    run.lost.store(true, Ordering::SeqCst);
                    return;
                }
                Ok(a) if a.status == 409 || a.status == 404 => {
                    // Quietly when every game is in: the job is done, nothing is lost.
                    let answered =
                        run.new.load(Ordering::SeqCst) + run.already.load(Ordering::SeqCst);
                    if answered < to_play {
                        eprintln!("durak worker: job {id}: {}", a.error());
                    }
                    run.lost.store(true, Ordering::SeqCst);
                    return;
                }
                // Unreachable or a server error: the next renewal may get through.
                _ => {}
            }
        }
    })
}

/// Post the games of `run` as they come, in batches, until every one is answered.
fn post_loop(ctx: &Ctx, run: &Run, id: i64, lease: &str, stopped_at: &Mutex<Option<Instant>>) {
    loop {
        let batch: Vec<Played> = {
            let mut o = run.outbox.lock().unwrap_or_else(|e| e.into_inner());
            while o.is_empty() && !run.played_all.load(Ordering::SeqCst) {
                o = run
                    .wake
                    .wait_timeout(o, Duration::from_millis(200))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            if o.is_empty() {
                return;
            }
            let n = o.len().min(64);
            o[..n].to_vec()
        };
        let n = batch.len();
        let body = json!({"lease": lease, "games": batch});
        let path = format!("/api/worker/jobs/{id}/results");
        // After a signal, posting goes on for at most 15 s (from the signal: a deadline from
        // each retry's own now kept a job finished earlier posting for --retry-s).
        let until = || {
            stopped_at
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .or_else(net::stopped_at)
                .map(|t| t + Duration::from_secs(15))
        };
        let take = |dropped: bool| {
            run.outbox
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .drain(..n);
            if dropped {
                run.dropped.fetch_add(n, Ordering::SeqCst);
            }
        };
        let post = {
            let path = path.clone();
            move |c: &Client| c.post_json(&path, &body).map(|a| (a, Vec::new()))
        };
        match ctx
            .net
            .retrying(&format!("posting job {id}'s games"), until, post)
        {
            Reply::Answer(a, _) if a.status == 200 => {
                run.new.fetch_add(
                    a.json["new"].as_u64().unwrap_or(0) as usize,
                    Ordering::SeqCst,
                );
                run.already.fetch_add(
                    a.json["already"].as_u64().unwrap_or(0) as usize,
                    Ordering::SeqCst,
                );
                take(false);
            }
            Reply::Answer(a, _) if a.status == 401 || a.status == 403 => {
                ctx.token_refused(&a);
                run.lost.store(true, Ordering::SeqCst);
                take(true);
                return;
            }
            Reply::Answer(a, _) => {
                // Refused (409, 422: not recorded, and posting them again would not help).
                eprintln!(
                    "durak worker: job {id}: the server refused {n} game(s): {} {}",
                    a.status,
                    a.error()
                );
                run.lost.store(true, Ordering::SeqCst);
                take(true);
            }
            Reply::GaveUp(e) => {
                eprintln!("durak worker: job {id}: {e}: {n} game(s) not posted");
                run.lost.store(true, Ordering::SeqCst);
                take(true);
            }
        }
    }
}

/// Run the worker until a signal (or a fatal error, returned).
pub fn run(o: Options) -> Result<(), WorkerError> {
    let server = o.server.trim_end_matches('/').to_string();
    let uri: ureq::http::Uri =
        server
            .parse()
            .map_err(|e: ureq::http::uri::InvalidUri| WorkerError::NotAUrl {
                server: server.clone(),
                detail: e.to_string(),
            })?;
    match uri.scheme_str() {
        Some("http" | "https") => {}
        Some(other) => {
            return Err(WorkerError::Scheme {
                server,
                scheme: other.to_string(),
            })
        }
        None => return Err(WorkerError::NoScheme { server }),
    }
    if let Some(w) = crate::tls::client::clear_warning(&server) {
        eprintln!("durak worker: {w}");
    }
    if uri.host().is_none() {
        return Err(WorkerError::NoHost { server });
    }
    if o.concurrency == 0 {
        return Err(WorkerError::NoSlots);
    }
    if o.sandbox == Sandbox::Strict {
        durak_referee::isolation::check_strict_sandbox()
            .map_err(|e| WorkerError::Sandbox(e.to_string()))?;
    }
    durak_referee::isolation::harden_referee();
    std::fs::create_dir_all(&o.cache).map_err(|source| WorkerError::Cache {
        path: o.cache.clone(),
        source,
    })?;
    let o = Options {
        server: server.clone(),
        ..o
    };
    let ctx = Arc::new(Ctx {
        net: Net::new(
            Client::with_trust(
                &server,
                Some(&o.token),
                Duration::from_secs(120),
                o.trust.clone(),
            )?,
            server.clone(),
            o.retry_for,
        ),
        o,
        fetching: Mutex::new(()),
        fatal: Mutex::new(None),
    });
    net::on_signals();
    let status = match ctx
        .net
        .retrying("reaching the server", now_if_stopping, |c| {
            c.get("/api/status").map(|a| (a, Vec::new()))
        }) {
        Reply::Answer(a, _) => a,
        Reply::GaveUp(_) if net::stopping() => {
            eprintln!("durak worker: stopped");
            return Ok(());
        }
        Reply::GaveUp(e) => return Err(WorkerError::Unreachable(e)),
    };
    if status.status != 200 || status.json["service"] != "durak serve" {
        return Err(crate::client::ClientError::NotAServer {
            server,
            status: status.status,
            error: status.error(),
        }
        .into());
    }
    eprintln!(
        "durak worker: serving {server} ({} at tables of {}), {} slot(s), sandbox {}, bots \
         cached in {}",
        status.json["variant"].as_str().unwrap_or("?"),
        status.json["table_size"],
        ctx.o.concurrency,
        ctx.o.sandbox,
        ctx.o.cache.display()
    );
    let slots: Vec<_> = (0..ctx.o.concurrency)
        .map(|slot| {
            let ctx = ctx.clone();
            std::thread::Builder::new()
                .name(format!("worker-{slot}"))
                .spawn(move || slot_loop(ctx, slot))
                .expect("thread")
        })
        .collect();
    for s in slots {
        let _ = s.join();
    }
    if let Some(e) = ctx.fatal.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(WorkerError::Fatal(e));
    }
    eprintln!("durak worker: stopped");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::JobState;
    use crate::ladder::jobs::Job;

    fn claimed(id: i64, seats: &[i64]) -> Claimed {
        Claimed {
            job: Job {
                id,
                seats: seats.to_vec(),
                deals: Vec::new(),
                priority: 0,
                state: JobState::Claimed,
                owner: None,
                lease_until: None,
                attempts: 0,
                kind: "ladder".into(),
            },
            lease: format!("lease-{id}"),
            lease_ms: 60_000,
            games: vec![0, 1],
            variant: "podkidnoy".into(),
            table_size: seats.len(),
            limits: durak_protocol::Limits::default(),
            resources: durak_referee::ResourceLimits::default(),
            max_moves: 1000,
            versions: seats
                .iter()
                .map(|&v| crate::http::worker_api::WorkerVersion {
                    id: v,
                    label: format!("v{v}"),
                    house: true,
                    command: format!("builtin:{v}"),
                    sha256: None,
                    size: None,
                    bot_url: None,
                })
                .collect(),
        }
    }

    #[test]
    fn a_batch_takes_only_jobs_its_match_can_play() {
        let first = claimed(1, &[3, 4]);
        assert!(same_match(&first, &claimed(2, &[3, 4])));
        assert!(same_match(&first, &claimed(3, &[4, 3])), "another rotation");
        assert!(!same_match(&first, &claimed(4, &[3, 5])), "other versions");
        let mut c = claimed(5, &[3, 4]);
        c.limits.move_ms += 1;
        assert!(
            !same_match(&first, &c),
            "a server restarted with other limits"
        );
        let mut c = claimed(6, &[3, 4]);
        c.variant = "prostoy".into();
        assert!(!same_match(&first, &c), "another variant");
        let mut c = claimed(7, &[3, 4]);
        c.versions[0].command = "python3 other.py".into();
        assert!(!same_match(&first, &c), "another command");
    }
}
