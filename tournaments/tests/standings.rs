//! Every standings figure that can be worked out by hand, on small synthetic result lines; the
//! fit itself is checked against choix in `standings_reference.rs`.
//!
//! Three bots a, b, c at 2-player tables, six games (in id order), all of deal 0:
//!
//! | id | seats  | result                     |
//! |----|--------|----------------------------|
//! | 0  | a, b   | b is the durak             |
//! | 1  | b, a   | a is the durak             |
//! | 2  | a, c   | draw                       |
//! | 3  | c, a   | c times out: c is the durak; c disqualified after it |
//! | 4  | b, c   | c forfeits                 |
//! | 5  | c, b   | c forfeits                 |
//!
//! By hand: a plays 4, loses 1 (id 1), 1 draw; b plays 4, loses 1 (id 0); c plays 4, loses 3,
//! 1 draw, faults timeout 1 and forfeit 2, disqualified after game 3.
//! Wilson 95% (z = 1.959964, z² = 3.841459) for 1 of 4: centre (0.25 + 0.480182)/1.960365
//! = 0.372473, half 1.959964·√(0.046875 + 0.060023)/1.960365 = 0.326885 → [0.045587, 0.699358];
//! for 3 of 4: [0.300642, 0.954413] (the mirror image).
//!
//! Pairs (their own games; one deal each, so the paired figures are the unpaired ones):
//! - b against a: 1-1, score ½; spread 2/1·(¼ + ¼) = 1, sd ½: the interval is all of [0, 1];
//!   LOS ½.
//! - b against c: 2-0, score 1, no spread: Wilson's lower end for 2 of 2, 2/(2 + z²) = 0.342378,
//!   −113.4 Elo; LOS with the spread at ½ (2·(¼ + ¼) = 1, sd ½): Φ(1) = 0.841345.
//! - a against c: a win and a draw, score ¾; spread 2·(0.25² + 0.25²) = 0.25, sd 0.25:
//!   [0.260009, 1] → 400·log10(0.260009/0.739991) = −181.70 Elo; LOS: spread at ½
//!   2·(0.5² + 0) = 0.5, sd 0.353553: Φ(0.707107) = 0.760250.

use durak_protocol::{FaultKind, Limits};
use durak_rules::Variant;
use durak_tournaments::config::{Bot, Format, Tournament};
use durak_tournaments::results::{read_results_file, FaultLine, ResultLine};
use durak_tournaments::schedule::Schedule;
use durak_tournaments::standings::{BotStanding, PairStanding, Standings};

fn tournament(names: &[&str], table_size: usize) -> Tournament {
    Tournament {
        variant: Variant::Podkidnoy,
        format: Format::Duplicate,
        table_size,
        games: 1,
        seed: 1,
        challenger: None,
        concurrency: None,
        max_consecutive_faults: 3,
        sprt: None,
        bots: names
            .iter()
            .map(|n| Bot {
                name: n.to_string(),
                command: "builtin:random".into(),
                cwd: "/".into(),
                own_cwd: true,
                limits: Limits::default(),
            })
            .collect(),
    }
}

fn line(id: u64, seats: &[&str], loser: Option<usize>) -> ResultLine {
    ResultLine {
        id,
        table: id as u32,
        game: 0,
        deal: Some(0),
        seats: seats.iter().map(|s| s.to_string()).collect(),
        seed: 1,
        dealer: 0,
        loser,
        durak: loser.map(|s| seats[s].to_string()),
        draw: loser.is_none(),
        faults: vec![],
        moves: 10,
        replay: None,
        duration_ms: 1,
        disqualified: vec![],
        voided: Vec::new(),
        void: false,
        move_limit: None,
    }
}

fn fault(seat: usize, bot: &str, kind: FaultKind) -> FaultLine {
    FaultLine {
        seat,
        bot: bot.into(),
        kind,
        detail: "x".into(),
        rule: None,
    }
}

fn lines() -> Vec<ResultLine> {
    let mut l3 = line(3, &["c", "a"], Some(0));
    l3.faults = vec![fault(0, "c", FaultKind::Timeout)];
    l3.disqualified = vec!["c".into()];
    let mut l4 = line(4, &["b", "c"], Some(1));
    l4.faults = vec![fault(1, "c", FaultKind::Forfeit)];
    let mut l5 = line(5, &["c", "b"], Some(0));
    l5.faults = vec![fault(0, "c", FaultKind::Forfeit)];
    vec![
        line(0, &["a", "b"], Some(1)),
        line(1, &["b", "a"], Some(1)),
        line(2, &["a", "c"], None),
        l3,
        l4,
        l5,
    ]
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

fn get<'a>(s: &'a Standings, bot: &str) -> &'a BotStanding {
    s.get(bot).unwrap()
}

fn pair<'a>(s: &'a Standings, a: &str, b: &str) -> &'a PairStanding {
    s.pairs
        .iter()
        .find(|p| p.bot == a && p.opponent == b)
        .unwrap_or_else(|| panic!("no pair {a} {b}: {:?}", s.pairs))
}

/// `x` against `y` at 2 seats: `wins` by `x`, then `losses`, then `draws`, seats alternating,
/// two games (both rotations) per deal.
fn match_lines(
    x: &str,
    y: &str,
    wins: u32,
    losses: u32,
    draws: u32,
    first_id: u64,
) -> Vec<ResultLine> {
    let mut out = Vec::new();
    let results = std::iter::repeat_n(Some(y), wins as usize)
        .chain(std::iter::repeat_n(Some(x), losses as usize))
        .chain(std::iter::repeat_n(None, draws as usize));
    for (id, (i, loser)) in (first_id..).zip(results.enumerate()) {
        let seats = if i % 2 == 0 { [x, y] } else { [y, x] };
        let seat = loser.map(|l| seats.iter().position(|s| *s == l).unwrap());
        let mut l = line(id, &seats, seat);
        l.deal = Some(i as u32 / 2);
        out.push(l);
    }
    out
}

#[test]
fn every_count_matches_the_hand_computed_case() {
    let t = tournament(&["a", "b", "c"], 2);
    let s = Standings::compute(&t, &lines());
    assert_eq!(s.games_played, 6);
    assert_eq!(s.games_scheduled, 6); // 3 pairs × 2 rotations × 1 deal
    assert_eq!(s.method.interval, "paired");

    let (a, b, c) = (get(&s, "a"), get(&s, "b"), get(&s, "c"));
    assert_eq!((a.games, a.losses, a.draws), (4, 1, 1));
    assert_eq!((b.games, b.losses, b.draws), (4, 1, 0));
    assert_eq!((c.games, c.losses, c.draws), (4, 3, 1));
    assert!(a.faults.is_empty() && b.faults.is_empty());
    assert_eq!(c.fault_count(FaultKind::Timeout), 1);
    assert_eq!(c.fault_count(FaultKind::Forfeit), 2);
    assert_eq!(c.faults.len(), 2);
    assert_eq!(
        (
            a.disqualified_after_game,
            b.disqualified_after_game,
            c.disqualified_after_game
        ),
        (None, None, Some(3))
    );
    assert!(close(a.loss_rate, 0.25) && close(b.loss_rate, 0.25) && close(c.loss_rate, 0.75));
    for x in [a, b] {
        assert!(
            close(x.loss_rate_ci95[0], 0.045587),
            "{:?}",
            x.loss_rate_ci95
        );
        assert!(
            close(x.loss_rate_ci95[1], 0.699358),
            "{:?}",
            x.loss_rate_ci95
        );
    }
    assert!(close(c.loss_rate_ci95[0], 0.300642));
    assert!(close(c.loss_rate_ci95[1], 0.954413));

    // The fit (checked against choix elsewhere): b above a above c, ratings relative to their
    // mean; six games order nothing at 95 %, so all three share rank 1.
    let order: Vec<&str> = s.standings.iter().map(|x| x.bot.as_str()).collect();
    assert_eq!(order, ["b", "a", "c"]);
    let sum: f64 = s.standings.iter().map(|x| x.elo.unwrap()).sum();
    assert!(sum.abs() < 1e-9, "{sum}");
    for x in &s.standings {
        assert_eq!((x.rank, x.rank_label.as_str(), x.tied), (1, "=1", true));
        let [lo, hi] = x.elo_ci95;
        assert!(lo.unwrap() < x.elo.unwrap() && x.elo.unwrap() < hi.unwrap());
    }
    for i in 0..3 {
        assert_eq!(s.los[i][i], None);
        for j in 0..3 {
            if i != j {
                let (l, m) = (s.los[i][j].unwrap(), s.los[j][i].unwrap());
                assert!((l + m - 1.0).abs() < 1e-9);
                assert!(l < 0.975, "nothing is separable: {l}");
                assert_eq!(l > 0.5, i < j);
            }
        }
    }

    // Head to head (the row's wins-losses-draws against the column).
    let rec = |x: &str, y: &str| {
        let r = s
            .head_to_head
            .iter()
            .find(|r| r.bot == x && r.opponent == y)
            .unwrap();
        (r.games, r.ahead, r.behind, r.draws)
    };
    assert_eq!(rec("a", "b"), (2, 1, 1, 0));
    assert_eq!(rec("b", "a"), (2, 1, 1, 0));
    assert_eq!(rec("a", "c"), (2, 1, 0, 1));
    assert_eq!(rec("c", "a"), (2, 0, 1, 1));
    assert_eq!(rec("b", "c"), (2, 2, 0, 0));
    assert_eq!(rec("c", "b"), (2, 0, 2, 0));
    assert_eq!(s.head_to_head.len(), 6);

    // Pairs, in rank order, by hand (module docs).
    assert_eq!(s.pairs.len(), 3);
    let ba = pair(&s, "b", "a");
    assert_eq!((ba.score, ba.elo), (Some(0.5), Some(0.0)));
    let u = ba.unpaired.as_ref().unwrap();
    assert!(close(u.score_sd, 0.5) && close(u.los, 0.5));
    // On the logit scale: 0 ± z·0.5/¼ (both scored: both ends finite, ±681 Elo).
    let half = 400.0 * 1.959963984540054 * 0.5 / 0.25 / std::f64::consts::LN_10;
    assert!(close(u.elo_ci95[0].unwrap(), -half) && close(u.elo_ci95[1].unwrap(), half));
    assert_eq!(ba.paired.as_ref().unwrap(), u);
    assert_eq!(ba.deals.unwrap().split, 1);
    let bc = pair(&s, "b", "c");
    assert_eq!((bc.score, bc.elo), (Some(1.0), None));
    let u = bc.unpaired.as_ref().unwrap();
    let wilson_low = 2.0 / (2.0 + 1.959963984540054f64.powi(2));
    let elo_low = 400.0 * (wilson_low / (1.0 - wilson_low)).log10();
    assert!(close(u.elo_ci95[0].unwrap(), elo_low) && u.elo_ci95[1].is_none());
    assert!((elo_low + 113.4).abs() < 0.05, "{elo_low}");
    assert!(close(u.los, 0.841345), "{}", u.los);
    assert_eq!(bc.deals.unwrap().won_both, 1);
    let ac = pair(&s, "a", "c");
    assert_eq!((ac.ahead, ac.behind, ac.draws), (1, 0, 1));
    let u = ac.unpaired.as_ref().unwrap();
    assert!(close(ac.score.unwrap(), 0.75) && close(u.score_sd, 0.25));
    // Logit scale: ln 3 ± z·0.25/(0.75·0.25), in Elo (on the score, 0.75 − z·0.25 gave −181.7
    // and the upper end crossed 1).
    let low = 3f64.ln() - 1.959963984540054 * 0.25 / (0.75 * 0.25);
    assert!(close(
        u.elo_ci95[0].unwrap(),
        400.0 * low / std::f64::consts::LN_10
    ));
    assert!((u.elo_ci95[0].unwrap() + 263.13).abs() < 0.01);
    assert!((u.elo_ci95[1].unwrap() - 644.82).abs() < 0.01);
    assert!(close(u.los, 0.760250), "{}", u.los);
    assert_eq!(ac.deals.unwrap().won_drew, 1);

    // The machine formats carry the same figures.
    let csv = s.to_csv();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 4);
    assert!(rows[0].starts_with("rank,tied,bot,elo,elo_ci95_low,elo_ci95_high,games,losses,"));
    assert!(
        rows[3].starts_with("1,true,c,")
            && rows[3].ends_with(",4,3,1,0.750000,0.300642,0.954413,3,1,0,0,0,0,0,0,0,0,2,3"),
        "{}",
        rows[3]
    );
    // The loss rate's interval is Wilson's over single games, and says so in CSV and JSON.
    assert!(rows[0].contains(",loss_rate,loss_ci95_low_unpaired,loss_ci95_high_unpaired,"));
    let json: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
    assert_eq!(json["method"]["loss_rate_interval"], "unpaired");
    assert_eq!(json["standings"][2]["bot"], "c");
    assert_eq!(json["standings"][2]["rank_label"], "=1");
    assert_eq!(json["standings"][2]["faults"]["forfeit"], 2);
    assert_eq!(json["standings"][0]["losses"], 1);
    assert_eq!(json["pairs"][1]["deals"]["won_both"], 1);
    let text = s.to_text();
    assert!(text.contains("c (disqualified after game 3)"), "{text}");
    assert!(text.contains("25.0%") && text.contains("=1"), "{text}");
    assert!(text.contains("forfeit 2, timeout 1"), "{text}");
    assert!(
        text.contains("[-113.4, +∞]") && text.contains("[-263.1, +644.8]"),
        "{text}"
    );
}

#[test]
fn standings_do_not_depend_on_the_order_games_finished_in() {
    let t = tournament(&["a", "b", "c"], 2);
    let mut l = lines();
    let s1 = Standings::compute(&t, &l);
    l.reverse();
    l.swap(0, 3);
    assert_eq!(Standings::compute(&t, &l), s1);
    // One line at a time through the builder: the same.
    let mut b = Standings::builder(&t);
    for x in l.iter().rev() {
        b.add(x);
    }
    assert_eq!(b.finish(), s1);
}

/// The builder's aggregates do not grow with the games: after every set of bots has met, more
/// games (here 6 times as many) leave its footprint as it was.
#[test]
fn the_builder_holds_no_more_after_more_games() {
    let mut t = tournament(&["a", "b", "c"], 2);
    t.games = 60;
    let mut all = Vec::new();
    for (x, y) in [("a", "b"), ("a", "c"), ("b", "c")] {
        all.extend(match_lines(x, y, 50, 50, 20, all.len() as u64));
    }
    // Interleave the three pairs so that each has met early.
    all.sort_by_key(|l| (l.id % 120, l.id));
    let mut b = Standings::builder(&t);
    for l in &all[..60] {
        b.add(l);
    }
    let early = b.footprint();
    for l in &all[60..] {
        b.add(l);
    }
    assert_eq!(b.footprint(), early);
    assert!(early < 4096, "{early}");
    let s = b.finish();
    assert_eq!(s.games_played, 360);
    // Three equal records: equal ratings, one tie group.
    for x in &s.standings {
        assert!(x.elo.unwrap().abs() < 1e-6 && x.rank_label == "=1", "{x:?}");
    }
}

/// At a table of three: who finished ahead of whom, and a draw for everyone.
#[test]
fn three_player_games_count_ahead_and_behind() {
    let t = tournament(&["x", "y", "z"], 3);
    let s = Standings::compute(
        &t,
        &[
            line(0, &["x", "y", "z"], Some(1)),
            line(1, &["y", "z", "x"], None),
        ],
    );
    let rec = |a: &str, b: &str| {
        let r = s
            .head_to_head
            .iter()
            .find(|r| r.bot == a && r.opponent == b)
            .unwrap();
        (r.games, r.ahead, r.behind, r.draws)
    };
    assert_eq!(rec("x", "y"), (2, 1, 0, 1));
    assert_eq!(rec("y", "x"), (2, 0, 1, 1));
    assert_eq!(rec("x", "z"), (2, 0, 0, 1));
    assert_eq!(s.head_to_head.len(), 6);
    // y was the durak once and shared a draw: rated below x and z, who are equal.
    let (x, y, z) = (get(&s, "x"), get(&s, "y"), get(&s, "z"));
    assert!((x.elo.unwrap() - z.elo.unwrap()).abs() < 1e-9);
    assert!(y.elo.unwrap() < x.elo.unwrap());
    assert_eq!((y.losses, x.losses, z.losses), (1, 0, 0));
    // x against y: one comparison won, one draw.
    let p = s
        .pairs
        .iter()
        .find(|p| (p.bot == "x" || p.bot == "z") && p.opponent == "y")
        .unwrap();
    assert_eq!((p.ahead, p.behind, p.draws, p.score), (1, 0, 1, Some(0.75)));
    assert!(p.deals.is_none());
    let text = s.to_text();
    assert!(
        text.contains("ahead-behind/games") && text.contains("1-0/2"),
        "{text}"
    );
}

/// A game nobody played (both seats forfeited: a draw) counts as a game and a draw, and says
/// nothing of skill: no rating comes of it, and added to other games it changes none.
#[test]
fn a_game_nobody_played_says_nothing() {
    let t = tournament(&["a", "b"], 2);
    let mut void = line(9, &["a", "b"], None);
    void.faults = vec![
        fault(0, "a", FaultKind::Forfeit),
        fault(1, "b", FaultKind::StartFailed),
    ];
    let s = Standings::compute(&t, std::slice::from_ref(&void));
    for name in ["a", "b"] {
        let b = get(&s, name);
        assert_eq!((b.games, b.draws, b.losses), (1, 1, 0));
        assert_eq!((b.elo, b.elo_ci95), (None, [None, None]));
        // No rating: no rank either (not "=1").
        assert_eq!((b.rank_label.as_str(), b.tied), ("-", false));
    }
    assert_eq!(s.los[0][1], None);
    assert!(!s.to_text().contains("LOS: the likelihood"));
    let played = match_lines("a", "b", 3, 1, 0, 0);
    let mut with = played.clone();
    with.push(void);
    let (s1, s2) = (
        Standings::compute(&t, &played),
        Standings::compute(&t, &with),
    );
    assert_eq!(get(&s1, "a").elo, get(&s2, "a").elo);
    assert_eq!(get(&s2, "a").games, 5);
}

/// A draw (the referee's move limit here) is half a loss for each: 4 wins and 4 draws rate
/// exactly like 6 wins and 2 losses.
#[test]
fn a_draw_is_half_a_loss_each() {
    let t = tournament(&["a", "b"], 2);
    let mut drawn = match_lines("a", "b", 4, 0, 4, 0);
    for l in drawn.iter_mut().filter(|l| l.draw) {
        l.move_limit = Some(2000);
    }
    let decided = match_lines("a", "b", 6, 2, 0, 0);
    let (s1, s2) = (
        Standings::compute(&t, &drawn),
        Standings::compute(&t, &decided),
    );
    let (e1, e2) = (get(&s1, "a").elo.unwrap(), get(&s2, "a").elo.unwrap());
    assert!((e1 - e2).abs() < 1e-9 && e1 > 0.0, "{e1} {e2}");
    assert_eq!(get(&s1, "a").draws, 4);
    // Draws between equals: equal ratings.
    let even = Standings::compute(&t, &match_lines("a", "b", 3, 3, 4, 0));
    assert!(get(&even, "a").elo.unwrap().abs() < 1e-9);
}

/// a ≫ b ≈ c: ranks 1, =2, =2 in every format.
#[test]
fn tied_ranks_show_in_every_format() {
    let mut t = tournament(&["a", "b", "c"], 2);
    t.games = 200;
    let mut l = match_lines("a", "b", 160, 40, 0, 0);
    l.extend(match_lines("a", "c", 160, 40, 0, 1000));
    l.extend(match_lines("b", "c", 100, 100, 0, 2000));
    let s = Standings::compute(&t, &l);
    let labels: Vec<(&str, &str)> = s
        .standings
        .iter()
        .map(|x| (x.bot.as_str(), x.rank_label.as_str()))
        .collect();
    assert_eq!(labels, [("a", "1"), ("b", "=2"), ("c", "=2")]);
    assert!(s.los[0][1].unwrap() > 0.975 && s.los[1][2].unwrap() < 0.975);
    let json: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
    assert_eq!(json["standings"][1]["rank"], 2);
    assert_eq!(json["standings"][2]["rank"], 2);
    assert_eq!(json["standings"][2]["rank_label"], "=2");
    assert_eq!(json["standings"][2]["tied"], true);
    assert_eq!(json["standings"][0]["tied"], false);
    let csv = s.to_csv();
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows[1].starts_with("1,false,a,"), "{csv}");
    assert!(
        rows[2].starts_with("2,true,b,") && rows[3].starts_with("2,true,c,"),
        "{csv}"
    );
    let text = s.to_text();
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("=2   b")),
        "{text}"
    );
}

/// The gauntlet's pairs are the challenger against each opponent, from their own games.
#[test]
fn gauntlet_pairs_are_the_challengers() {
    let mut t = tournament(&["x", "new", "y", "z"], 3);
    t.format = Format::Gauntlet;
    t.challenger = Some("new".into());
    t.games = 2;
    let mut l = Vec::new();
    let mut id = 0;
    for table in [["new", "x", "y"], ["new", "x", "z"], ["new", "y", "z"]] {
        for r in 0..3 {
            let seats: Vec<&str> = (0..3).map(|s| table[(s + r) % 3]).collect();
            for deal in 0..2u32 {
                // x loses every game it plays; otherwise the last seat loses.
                let loser = seats.iter().position(|s| *s == "x").unwrap_or(2);
                let mut g = line(id, &seats, Some(loser));
                g.deal = Some(deal);
                l.push(g);
                id += 1;
            }
        }
    }
    let s = Standings::compute(&t, &l);
    assert_eq!(s.challenger.as_deref(), Some("new"));
    assert_eq!(s.games_scheduled, 3 * 3 * 2);
    let pairs: Vec<(&str, &str)> = s
        .pairs
        .iter()
        .map(|p| (p.bot.as_str(), p.opponent.as_str()))
        .collect();
    assert_eq!(pairs.len(), 3);
    assert!(pairs.iter().all(|(b, _)| *b == "new"), "{pairs:?}");
    let px = pair(&s, "new", "x");
    assert_eq!((px.games, px.ahead, px.behind), (12, 12, 0));
    assert!(px.paired.is_some());
    assert!(s.to_text().contains("The challenger against each opponent"));
}

/// A deal whose rotations are not all in (a partial run) counts as incomplete.
#[test]
fn an_incomplete_deal_is_counted_as_such() {
    let mut t = tournament(&["a", "b"], 2);
    t.games = 3;
    let mut l = match_lines("a", "b", 3, 2, 0, 0);
    l.remove(1); // deal 0's second rotation
    let s = Standings::compute(&t, &l);
    let d = pair(&s, &s.pairs[0].bot, &s.pairs[0].opponent)
        .deals
        .unwrap();
    assert_eq!((d.complete(), d.incomplete), (1, 2));
    assert!(s.to_text().contains("(+2 incomplete)"));
}

#[test]
fn disqualification_takes_the_first_game_whatever_the_order() {
    let t = tournament(&["a", "b"], 2);
    let mut l = match_lines("a", "b", 2, 2, 0, 0);
    l[3].disqualified = vec!["b".into()];
    l[1].disqualified = vec!["b".into()];
    l.reverse();
    assert_eq!(
        get(&Standings::compute(&t, &l), "b").disqualified_after_game,
        Some(1)
    );
}

/// A bot with no game yet (intermediate standings): no rating, last, its rank `-` rather than
/// a number (it used to be `3`), empty rank and Elo fields in CSV; two such bots are not `=3`.
#[test]
fn a_bot_without_games_has_no_rating() {
    let t = tournament(&["a", "b", "c", "d"], 2);
    let s = Standings::compute(&t, &match_lines("a", "b", 3, 1, 0, 0));
    for (bot, place) in [("c", 2), ("d", 3)] {
        let c = get(&s, bot);
        assert_eq!((c.games, c.elo, c.tied), (0, None, false));
        assert_eq!((c.rank, c.rank_label.as_str()), (place + 1, "-"));
        assert_eq!(s.standings[place].bot, bot);
        assert!(s.los[place].iter().all(Option::is_none));
    }
    let csv = s.to_csv();
    assert!(
        csv.lines().any(|r| r.starts_with(",false,c,,,,0,0,0,")),
        "{csv}"
    );
    let json: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
    assert_eq!(json["standings"][3]["rank_label"], "-");
    let text = s.to_text();
    let row = text.lines().find(|l| l.contains(" c ")).unwrap();
    assert!(row.trim_start().starts_with("- "), "{text}");
    assert!(!text.contains("=3"), "{text}");
}

/// A bot's name is data: written by the `csv` crate, `a,"b"` reads back as itself.
#[test]
fn csv_round_trips_a_name_with_a_comma_and_quotes() {
    let t = tournament(&["a,\"b\"", "plain"], 2);
    let s = Standings::compute(&t, &match_lines("a,\"b\"", "plain", 3, 1, 0, 0));
    let csv_text = s.to_csv();
    let mut r = csv::Reader::from_reader(csv_text.as_bytes());
    let headers = r.headers().unwrap().clone();
    let bot = headers.iter().position(|h| h == "bot").unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows.iter().map(|r| r.len()).max(), Some(headers.len()));
    let names: Vec<&str> = rows.iter().map(|r| &r[bot]).collect();
    assert!(
        names.contains(&"a,\"b\"") && names.contains(&"plain"),
        "{csv_text}"
    );
    for r in &rows {
        let st = get(&s, &r[bot]);
        assert_eq!(
            r[headers.iter().position(|h| h == "games").unwrap()],
            st.games.to_string()
        );
    }
}

#[test]
fn the_count_of_scheduled_games_is_the_schedules() {
    for format in Format::ALL {
        for (n, k) in [(2, 2), (3, 2), (4, 3), (5, 4), (6, 6)] {
            let mut t = tournament(&["a", "b", "c", "d", "e", "f"][..n], k);
            t.format = format;
            t.games = 3;
            if format == Format::Gauntlet {
                t.challenger = Some("b".into());
            }
            assert_eq!(
                durak_tournaments::standings::scheduled_games(&t),
                Schedule::build(&t).total_games(),
                "{format:?} {n} {k}"
            );
        }
    }
}

#[test]
fn standings_read_back_from_a_results_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.jsonl");
    let text: String = lines()
        .iter()
        .map(|l| serde_json::to_string(l).unwrap() + "\n")
        .collect();
    std::fs::write(&path, text).unwrap();
    let read = read_results_file(&path).unwrap();
    let t = tournament(&["a", "b", "c"], 2);
    assert_eq!(
        Standings::compute(&t, &read.lines),
        Standings::compute(&t, &lines())
    );
}

#[test]
fn a_void_game_counts_for_nobody_and_the_standings_say_so() {
    let t = tournament(&["a", "b", "c"], 2);
    let plain = Standings::compute(&t, &lines());
    // A seventh game, given up as void after 3 starved attempts, and one of the six played
    // again once before it counted.
    let mut void = line(6, &["a", "b"], None);
    (void.draw, void.void) = (false, true);
    void.voided = vec!["starved 1".into(), "starved 2".into(), "starved 3".into()];
    let mut all = lines();
    all[0].voided = vec!["starved 0".into()];
    all.push(void);
    let s = Standings::compute(&t, &all);
    assert_eq!((s.games_played, s.games_void, s.attempts_voided), (7, 1, 4));
    assert_eq!(s.voided.len(), 4);
    assert_eq!(s.voided[0], "game 0: starved 0");
    // Nobody's games, losses, draws or rating moved.
    assert_eq!(s.standings, plain.standings);
    assert_eq!(s.head_to_head, plain.head_to_head);
    let text = s.to_text();
    assert!(
        text.contains("Voided: 4 attempts played again") && text.contains("1 game void"),
        "{text}"
    );
    // Without voids the standings say nothing of them.
    assert_eq!((plain.games_void, plain.attempts_voided), (0, 0));
    assert!(!plain.to_text().contains("Voided"));
}
