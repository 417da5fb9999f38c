//! Per-decision round trip of the referee with a built-in bot, against a bare pipe echo of the
//! same message size between two processes. Reports medians and their ratio (target: <= 2).
//!
//! Run: `cargo bench -p durak-referee --bench roundtrip`. Like `durak play`, the bench pins
//! itself (and so the bot and `cat` it starts) to the CPU it starts on; with
//! `DURAK_BENCH_AFFINITY=off` the kernel places them (what `--affinity off` does).
//!
//! - referee: build the request from engine types, mark the bot's stderr, serialize the request
//!   into the bot's outbox and write it (`BotProcess::send`, as the driver does), the bot (this very executable running the built-in random bot) parses it and
//!   answers, then read the line on the decision clock (`BotProcess::answer`), parse it,
//!   validate it against the answer schema, decode the move and check it with the rules engine
//!   (`judge_answer`) — everything `driver::ask` does per decision.
//! - echo: write the same number of bytes to `cat` and read the line back, with blocking std I/O.

use durak_protocol as proto;
use durak_referee::{BotCommand, BotProcess, StderrAt};
use durak_rules::{Game, Legal, Setup, Variant};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BATCHES: usize = 21;
const PER_BATCH: usize = 400;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// A position with a real choice to defend (a typical request).
fn position() -> (Game, Legal) {
    for seed in 0.. {
        let mut g = Game::new(Setup::new(Variant::Podkidnoy, 2), seed).unwrap();
        let mut legal = Legal::empty();
        let mut events = Vec::new();
        let mut rng = durak_rules::random::SmallRng::new(seed);
        for _ in 0..6 {
            if !g.legal_into(&mut legal) {
                break;
            }
            if legal.decision.kind == durak_rules::DecisionKind::Defend
                && legal.forced_move(Variant::Podkidnoy).is_none()
            {
                return (g, legal);
            }
            let mv = legal
                .forced_move(Variant::Podkidnoy)
                .unwrap_or_else(|| durak_rules::random::random_move(&legal, &mut rng));
            g.apply_into(legal.decision.seat, &mv, &mut events).unwrap();
        }
    }
    unreachable!()
}

/// The referee's side: a built-in bot process and the full per-decision path.
struct RefereeSide {
    bot: BotProcess,
    next_id: u64,
    size: usize,
}

impl RefereeSide {
    async fn start() -> RefereeSide {
        let exe = std::env::current_exe().unwrap();
        let cmd = BotCommand {
            spec: "builtin:random".into(),
            program: exe,
            args: vec!["__bot".into()],
            cwd: None,
            isolation: Default::default(),
        };
        let mut bot = BotProcess::spawn(&cmd, 1 << 20, 1 << 16).unwrap();
        let limits = proto::Limits::default();
        let t = Duration::from_secs(10);
        bot.send(&proto::hello(Variant::Podkidnoy, 2, 1, 1, &limits), t)
            .await
            .unwrap();
        bot.recv(t).await.unwrap();
        RefereeSide {
            bot,
            next_id: 0,
            size: 0,
        }
    }

    /// Microseconds per round trip over one batch.
    async fn batch(&mut self, game: &Game, legal: &Legal) -> f64 {
        let t = Duration::from_secs(10);
        let seat = legal.decision.seat;
        let start = Instant::now();
        for _ in 0..PER_BATCH {
            self.next_id += 1;
            let id = self.next_id;
            let obs = game.observation(seat);
            let req = proto::request(id, 0, legal, &obs, 1000, 10_000);
            self.bot.mark_stderr(StderrAt::Request(id)).await;
            let before = self.bot.bytes_written();
            self.bot.send(&req, t).await.unwrap();
            self.size = (self.bot.bytes_written() - before) as usize;
            let (answer, _) = self.bot.answer(t).await.unwrap();
            proto::judge_answer(&answer, id, game, seat).unwrap();
        }
        start.elapsed().as_secs_f64() * 1e6 / PER_BATCH as f64
    }
}

/// The baseline: `cat` echoing lines of the same size, blocking std I/O.
struct EchoSide {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: BufReader<std::process::ChildStdout>,
    msg: Vec<u8>,
}

impl EchoSide {
    fn start(size: usize) -> EchoSide {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("cat");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let mut msg = vec![b'x'; size - 1];
        msg.push(b'\n');
        EchoSide {
            child,
            input,
            output,
            msg,
        }
    }

    fn batch(&mut self) -> f64 {
        let mut line = String::new();
        let start = Instant::now();
        for _ in 0..PER_BATCH {
            self.input.write_all(&self.msg).unwrap();
            self.input.flush().unwrap();
            line.clear();
            self.output.read_line(&mut line).unwrap();
            assert_eq!(line.len(), self.msg.len());
        }
        start.elapsed().as_secs_f64() * 1e6 / PER_BATCH as f64
    }
}

impl Drop for EchoSide {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The same transport as the referee (BotProcess, tokio) talking to `cat`.
async fn tokio_echo_round_trips(size: usize) -> Vec<f64> {
    let cmd = BotCommand::parse("cat").unwrap();
    let mut bot = BotProcess::spawn(&cmd, 1 << 20, 1 << 16).unwrap();
    let t = Duration::from_secs(10);
    let mut msg = vec![b'x'; size - 1];
    msg.push(b'\n');
    let mut batches = Vec::new();
    for b in 0..=BATCHES {
        let start = Instant::now();
        for _ in 0..PER_BATCH {
            bot.send_raw(&msg, t).await.unwrap();
            let (line, _) = bot.recv(t).await.unwrap();
            assert_eq!(line.len(), size - 1);
        }
        if b > 0 {
            batches.push(start.elapsed().as_secs_f64() * 1e6 / PER_BATCH as f64);
        }
    }
    bot.kill().await;
    batches
}

/// The referee's own CPU work per decision, without any I/O; `part` 0: all, 1: observation and
/// request serialization only, 2: answer parsing, validation, decoding and the rules check only.
fn referee_cpu_part(game: &Game, legal: &Legal, part: u8) -> Vec<f64> {
    let seat = legal.decision.seat;
    let mut rng = durak_rules::random::SmallRng::new(1);
    let mv = durak_rules::random::random_move(legal, &mut rng);
    let answer = serde_json::to_vec(&proto::answer(7, &mv)).unwrap();
    let mut batches = Vec::new();
    for b in 0..=BATCHES {
        let start = Instant::now();
        for _ in 0..PER_BATCH {
            if part != 2 {
                let obs = game.observation(seat);
                let req = proto::request(7, 0, legal, &obs, 1000, 10_000);
                let line = serde_json::to_vec(&req).unwrap();
                std::hint::black_box(&line);
            }
            if part != 1 {
                // What the driver does with an answer (`driver::ask`): judged in one call.
                std::hint::black_box(proto::judge_answer(&answer, 7, game, seat).unwrap());
            }
        }
        if b > 0 {
            batches.push(start.elapsed().as_secs_f64() * 1e6 / PER_BATCH as f64);
        }
    }
    batches
}

/// The built-in bot's own CPU work per request (decode, choose, encode), without I/O.
fn bot_cpu(game: &Game, legal: &Legal) -> Vec<f64> {
    let seat = legal.decision.seat;
    let obs = game.observation(seat);
    let req = serde_json::to_string(&proto::request(7, 0, legal, &obs, 1000, 10_000)).unwrap();
    let mut rng = durak_rules::random::SmallRng::new(1);
    let mut batches = Vec::new();
    for b in 0..=BATCHES {
        let start = Instant::now();
        for _ in 0..PER_BATCH {
            if let Ok(proto::bot::ForBot::Request { id, legal, .. }) =
                proto::bot::read_for_bot(&req)
            {
                let mv = durak_rules::random::random_move(&legal, &mut rng);
                std::hint::black_box(serde_json::to_vec(&proto::answer(id, &mv)).unwrap());
            }
        }
        if b > 0 {
            batches.push(start.elapsed().as_secs_f64() * 1e6 / PER_BATCH as f64);
        }
    }
    batches
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("__bot") {
        durak_referee::builtin::run_builtin("random").unwrap();
        return;
    }
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` and `cargo test --benches` probe with this
    }
    let pinned = match std::env::var("DURAK_BENCH_AFFINITY").as_deref() {
        Ok("off") => None,
        _ => durak_referee::affinity::pin_to_current_cpu(),
    };
    match pinned {
        Some(cpu) => {
            println!("referee, bot and cat pinned to CPU {cpu} (DURAK_BENCH_AFFINITY=off: not)")
        }
        None => println!("no CPU pinning: the kernel places the referee, the bot and cat"),
    }
    let (game, legal) = position();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Both processes stay up; batches alternate, so both sides see the same machine state
    // (the kernel's placement of the two processes changes the echo time by 3x between runs).
    let (referee, echo, ratios, size) = rt.block_on(async {
        let mut r = RefereeSide::start().await;
        r.batch(&game, &legal).await; // warm-up
        let mut e = EchoSide::start(r.size);
        e.batch();
        let (mut referee, mut echo, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..BATCHES {
            let a = r.batch(&game, &legal).await;
            let b = e.batch();
            referee.push(a);
            echo.push(b);
            ratios.push(a / b);
        }
        r.bot.kill().await;
        (referee, echo, ratios, r.size)
    });
    let tokio_echo = rt.block_on(tokio_echo_round_trips(size));
    let cpu = referee_cpu_part(&game, &legal, 0);
    let cpu_request = referee_cpu_part(&game, &legal, 1);
    let cpu_answer = referee_cpu_part(&game, &legal, 2);
    let bot = bot_cpu(&game, &legal);
    let (r, e) = (median(referee), median(echo));
    println!("message size: {size} bytes (a real podkidnoy defend request)");
    println!("referee round trip (request -> built-in bot -> checked answer): median {r:.1} µs");
    println!("bare pipe echo round trip (cat, blocking std I/O):               median {e:.1} µs");
    println!(
        "ratio referee / echo: median over {BATCHES} alternating batches {:.2} (target <= 2)",
        median(ratios)
    );
    println!("where the referee's round trip goes (each measured alone):");
    let parts = [
        ("referee CPU per decision, no I/O", cpu),
        ("  request: observation + serialization", cpu_request),
        (
            "  answer: parse + schema + decode + rules check",
            cpu_answer,
        ),
        ("built-in bot CPU per request, no I/O", bot),
        ("tokio transport alone (BotProcess <-> cat)", tokio_echo),
    ];
    for (what, v) in parts {
        println!("  {what:<48} median {:.1} µs", median(v));
    }
}
