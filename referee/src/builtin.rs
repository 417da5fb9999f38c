//! The built-in bots, `durak bot random` and `durak bot greedy`: real child processes speaking
//! protocol v1 on stdin/stdout, like any third-party bot.

use durak_protocol as proto;
use durak_rules::random::{greedy_move, random_move, SmallRng};
use durak_rules::Suit;
use serde_json::Value;
use std::io::{BufRead, Write};

/// Run built-in bot `name` on this process's stdin and stdout until `match_end` or EOF.
pub fn run_builtin(name: &str) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut rng = SmallRng::new(0);
    for line in stdin.lock().lines() {
        let line = line?;
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let reply = match msg["type"].as_str() {
            Some("hello") => Some(proto::bot_hello(
                &format!("builtin:{name}"),
                env!("CARGO_PKG_VERSION"),
            )),
            Some("game_start") => {
                // Deterministic per game and seat, so tournaments replay identically.
                let g = msg["game"].as_u64().unwrap_or(0);
                let s = msg["seat"].as_u64().unwrap_or(0);
                rng = SmallRng::new(g.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ s);
                None
            }
            Some("request") => {
                let id = msg["id"].as_u64().unwrap_or(0);
                let legal = proto::legal_from_request(&msg)
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
                let trump = proto::trump_from_request(&msg).unwrap_or(Suit::Spades);
                let mv = match name {
                    "greedy" => greedy_move(&legal, trump),
                    _ => random_move(&legal, &mut rng),
                };
                Some(proto::answer(id, &mv))
            }
            Some("match_end") => break,
            _ => None,
        };
        if let Some(r) = reply {
            serde_json::to_writer(&mut out, &r)?;
            out.write_all(b"\n")?;
            out.flush()?;
        }
    }
    Ok(())
}
