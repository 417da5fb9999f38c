//! The built-in bots, `durak bot random` and `durak bot greedy`: real child processes speaking
//! protocol v1 on stdin/stdout, like any third-party bot.

use durak_protocol as proto;
use durak_protocol::bot::{read_for_bot, ForBot};
use durak_rules::random::{greedy_move, random_move, SmallRng};
use std::io::{BufRead, Write};

/// Run built-in bot `name` on this process's stdin and stdout until `match_end` or EOF.
pub fn run_builtin(name: &str) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    let mut rng = SmallRng::new(0);
    let mut line = String::new();
    let mut reply = Vec::with_capacity(256);
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let Ok(msg) = read_for_bot(line.trim_end()) else {
            continue;
        };
        reply.clear();
        match msg {
            ForBot::Hello => serde_json::to_writer(
                &mut reply,
                &proto::bot_hello(&format!("builtin:{name}"), env!("CARGO_PKG_VERSION")),
            )?,
            ForBot::GameStart { game, seat } => {
                // Deterministic per game and seat, so tournaments replay identically.
                rng = SmallRng::new(game.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seat as u64);
            }
            ForBot::Request { id, legal, trump } => {
                let mv = match name {
                    "greedy" => greedy_move(&legal, trump),
                    _ => random_move(&legal, &mut rng),
                };
                serde_json::to_writer(&mut reply, &proto::answer(id, &mv))?;
            }
            ForBot::MatchEnd => return Ok(()),
            ForBot::Other => {}
        }
        if !reply.is_empty() {
            reply.push(b'\n');
            out.write_all(&reply)?;
            out.flush()?;
        }
    }
}
