//! A sample Durak bot in Rust (protocol v1, see docs/PROTOCOL.md): reads JSON lines on stdin,
//! answers every request with a random legal move built from the request's `legal` object.
//! Only serde_json is used; the random numbers come from a tiny xorshift generator, seeded by
//! each deal, so the same match seed gives the same games.
//!
//! Build and play:  cargo build --release -p durak-sample-bot
//!                  durak play target/release/durak-sample-bot builtin:greedy

use serde_json::{json, Value};
use std::io::{BufRead, Write};

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

fn strings(v: &Value) -> Vec<String> {
    let list = v.as_array().cloned().unwrap_or_default();
    list.iter()
        .filter_map(|c| c.as_str().map(String::from))
        .collect()
}

fn rank(card: &str) -> char {
    card.chars().next().unwrap_or('?')
}

/// Prostoy attack: 1 card, a pair + 1 (3 cards), or two pairs + 1 (5 cards), choosing among the
/// sizes in `legal.sizes` (P-5, P-6). Always an odd number of cards: 2 * pairs + 1.
fn prostoy_attack(mut hand: Vec<String>, sizes: &[u64], rng: &mut Rng) -> Vec<String> {
    let pairs_wanted = [2, 1]
        .into_iter()
        .find(|&p| sizes.contains(&(2 * p as u64 + 1)) && rng.below(2) == 0)
        .unwrap_or(0);
    let mut cards = Vec::new();
    for _ in 0..pairs_wanted {
        let pair = (0..hand.len()).find_map(|i| {
            (i + 1..hand.len())
                .find(|&j| rank(&hand[i]) == rank(&hand[j]))
                .map(|j| (i, j))
        });
        if let Some((i, j)) = pair.filter(|_| hand.len() > 2) {
            cards.push(hand.remove(j)); // j > i: remove the later one first
            cards.push(hand.remove(i));
        }
    }
    cards.push(hand.remove(rng.below(hand.len())));
    cards
}

/// Cover every card of `to_beat` with distinct beaters, if possible (small backtracking search).
fn cover(to_beat: &[(String, Vec<String>)], used: &mut Vec<String>) -> Option<Vec<Value>> {
    let Some(((attack, beaters), rest)) = to_beat.split_first() else {
        return Some(Vec::new());
    };
    for b in beaters {
        if !used.contains(b) {
            used.push(b.clone());
            if let Some(mut pairs) = cover(rest, used) {
                pairs.push(json!([attack, b]));
                return Some(pairs);
            }
            used.pop();
        }
    }
    None
}

fn decide(req: &Value, rng: &mut Rng) -> Value {
    let legal = &req["legal"];
    let obs = &req["observation"];
    match req["decision"].as_str().unwrap_or("") {
        "attack" => {
            let hand = strings(&obs["hand"]);
            let sizes: Vec<u64> = legal["sizes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_u64)
                .collect();
            let cards = if legal["same_rank"].as_bool() == Some(true) {
                let r = rank(&hand[rng.below(hand.len())]);
                let max = *sizes.iter().max().unwrap_or(&1) as usize;
                hand.into_iter()
                    .filter(|c| rank(c) == r)
                    .take(1 + rng.below(max))
                    .collect()
            } else {
                prostoy_attack(hand, &sizes, rng)
            };
            json!({"action": "attack", "cards": cards})
        }
        "defend" => {
            let to_beat: Vec<(String, Vec<String>)> = legal["to_beat"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| {
                    (
                        t["attack"].as_str().unwrap_or("").to_string(),
                        strings(&t["beaters"]),
                    )
                })
                .collect();
            if legal["must_cover_all"].as_bool() == Some(true) {
                match cover(&to_beat, &mut Vec::new()) {
                    Some(pairs) if rng.below(4) != 0 => json!({"action": "defend", "pairs": pairs}),
                    _ => json!({"action": "take"}),
                }
            } else {
                // Prostoy: beat any subset, each with a different card (P-8).
                let mut used: Vec<String> = Vec::new();
                let mut pairs = Vec::new();
                for (attack, beaters) in to_beat {
                    if let Some(b) = beaters.into_iter().find(|b| !used.contains(b)) {
                        used.push(b.clone());
                        pairs.push(json!([attack, b]));
                    }
                }
                json!({"action": "defend", "pairs": pairs})
            }
        }
        _ => {
            let addable = strings(&legal["addable"]);
            let room = legal["room"].as_u64().unwrap_or(0) as usize;
            if addable.is_empty() || room == 0 || rng.below(2) == 0 {
                json!({"action": "pass"})
            } else {
                json!({"action": "add", "cards": [addable[rng.below(addable.len())]]})
            }
        }
    }
}

fn main() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let reply = match msg["type"].as_str() {
            Some("hello") => {
                json!({"type": "hello", "protocol": 1, "name": "rust-sample", "version": "1.0"})
            }
            Some("request") => {
                let mut answer = decide(&msg, &mut rng);
                answer["type"] = json!("answer");
                answer["id"] = msg["id"].clone();
                answer
            }
            Some("match_end") => break,
            Some("event") if msg["event"]["kind"] == "dealt_hand" => {
                // Seeded by the deal (FNV-1a of the line): the same match seed, the same games.
                let h = line.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
                });
                rng = Rng(h | 1);
                continue;
            }
            _ => continue,
        };
        writeln!(out, "{reply}")
            .and_then(|_| out.flush())
            .expect("stdout");
    }
}
