//! Requests and moves in plain words, for the report.

use durak_rules::{CardSet, DecisionKind, Legal, Move, Observation, Variant};

fn list(cards: CardSet) -> String {
    if cards.is_empty() {
        "none".into()
    } else {
        cards.to_string()
    }
}

fn sizes(l: &Legal) -> String {
    l.attack_size_list()
        .iter()
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A request in words: the table, the hand, the choices.
pub fn request(o: &Observation, l: &Legal) -> String {
    let mut s = format!(
        "{}, {} players, you are seat {}. Trumps: {} (trump card {}, {}). Your hand: {}.",
        o.variant.name(),
        o.players,
        o.seat,
        o.trump_suit.name(),
        o.trump_card,
        if o.trump_card_in_stock {
            format!("under a stock of {}", o.stock)
        } else {
            "stock empty".to_string()
        },
        list(o.hand)
    );
    if !o.table.is_empty() {
        let t: Vec<String> = o
            .table
            .iter()
            .map(|(a, d)| match d {
                Some(d) => format!("{a} beaten by {d}"),
                None => format!("{a} unbeaten"),
            })
            .collect();
        s += &format!(" Table: {}.", t.join(", "));
    }
    let exchange = l
        .exchange
        .map(|x| {
            format!(
                " The exchange is open: you may swap {} for {} (\"exchange\": true).",
                x.six, x.trump_card
            )
        })
        .unwrap_or_default();
    match l.decision.kind {
        DecisionKind::Attack => {
            s += &format!(
                " You attack seat {} (who holds {} cards). legal.sizes: {}.{exchange}",
                o.defender,
                o.hand_counts[o.defender],
                sizes(l)
            );
        }
        DecisionKind::Defend => {
            let beat: Vec<String> = l
                .to_beat
                .iter()
                .map(|t| format!("{} (beaters: {})", t.attack, list(t.beaters)))
                .collect();
            s += &format!(
                " Seat {} attacks you. To beat: {}.{exchange}",
                o.attacker,
                beat.join(", ")
            );
            s += if o.variant == Variant::Podkidnoy {
                " Cover every card, or take."
            } else {
                " Beat any of them (or none); you pick up the rest."
            };
        }
        DecisionKind::Add => {
            s += &format!(
                " The defender (seat {}) {}. You may add from legal.addable [{}], at most \
                 legal.room = {}, or pass.",
                o.defender,
                if l.decision.after_take {
                    "takes"
                } else {
                    "has beaten everything"
                },
                list(l.addable),
                l.room
            );
        }
    }
    s
}

/// A legal move in words.
pub fn move_text(m: &Move, l: &Legal) -> String {
    let swap = |exchange: bool| match (exchange, l.exchange) {
        (true, Some(x)) => format!(", after swapping {} for {}", x.six, x.trump_card),
        _ => String::new(),
    };
    match m {
        Move::Attack { cards, exchange } => {
            format!(
                "attack with {} ({} card{}){}",
                cards,
                cards.len(),
                if cards.len() == 1 { "" } else { "s" },
                swap(*exchange)
            )
        }
        Move::Defend { pairs, exchange } => {
            let beaten: Vec<String> = pairs.iter().map(|(a, d)| format!("{a} with {d}")).collect();
            let left: CardSet = l
                .to_beat
                .iter()
                .map(|t| t.attack)
                .filter(|a| !pairs.attack_cards().contains(*a))
                .collect();
            let mut s = if beaten.is_empty() {
                "beat nothing".to_string()
            } else {
                format!("beat {}", beaten.join(", "))
            };
            if !left.is_empty() {
                s += &format!(" (picking up {left})");
            }
            s + &swap(*exchange)
        }
        Move::Take => "take".into(),
        Move::Add { cards } => format!("add {cards}"),
        Move::Pass => "pass".into(),
    }
}
