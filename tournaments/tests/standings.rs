//! Every standings figure against a hand-computed case: a small synthetic `results.jsonl`.
//!
//! Three bots a, b, c at 2-player tables, six games (in id order):
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
//! for 3 of 4:
//! [0.300642, 0.954413] (the mirror image).
//! Weng-Lin (μ 25, σ 25/3, β 25/6), two players, one game: c = √(σ₁²+σ₂²+2β²),
//! p₁ = e^{μ₁/c}/(e^{μ₁/c}+e^{μ₂/c}), μ₁' = μ₁ + σ₁²/c·(s − p₁) with s = 1 (the other lost),
//! 0 (lost), ½ (draw), σ₁'² = σ₁²·(1 − (σ₁/c)·(σ₁²/c²)·p₁(1 − p₁)). After game 0:
//! c = 13.176157, p = ½, a: 25 + 69.4444/13.176157·½ = 27.635231, σ = 8.065506; b: 22.364769.

use durak_protocol::{FaultKind, Limits};
use durak_rules::Variant;
use durak_tournaments::config::{Bot, Format, Tournament};
use durak_tournaments::results::{read_results_file, FaultLine, ResultLine};
use durak_tournaments::standings::{BotStanding, Standings};

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
        bots: names
            .iter()
            .map(|n| Bot {
                name: n.to_string(),
                command: "builtin:random".into(),
                cwd: "/".into(),
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

/// Weng-Lin for one two-player game, written out from the formulas (module docs).
fn weng_lin_1v1(me: (f64, f64), other: (f64, f64), s: f64) -> (f64, f64) {
    let beta: f64 = 25.0 / 6.0;
    let ((m1, s1), (m2, s2)) = (me, other);
    let c = (s1 * s1 + s2 * s2 + 2.0 * beta * beta).sqrt();
    let p = (m1 / c).exp() / ((m1 / c).exp() + (m2 / c).exp());
    let mu = m1 + s1 * s1 / c * (s - p);
    let eta = (s1 / c) * (s1 * s1 / (c * c)) * p * (1.0 - p);
    (mu, (s1 * s1 * (1.0 - eta)).sqrt())
}

fn get<'a>(s: &'a Standings, bot: &str) -> &'a BotStanding {
    s.standings.iter().find(|b| b.bot == bot).unwrap()
}

#[test]
fn every_figure_matches_the_hand_computed_case() {
    let t = tournament(&["a", "b", "c"], 2);
    let s = Standings::compute(&t, &lines());
    assert_eq!(s.games_played, 6);
    assert_eq!(s.games_scheduled, 6); // 3 pairs × 2 rotations × 1 deal

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
    assert!(
        close(c.loss_rate_ci95[0], 0.300642),
        "{:?}",
        c.loss_rate_ci95
    );
    assert!(
        close(c.loss_rate_ci95[1], 0.954413),
        "{:?}",
        c.loss_rate_ci95
    );

    // Ratings: the first game by hand, then the same formulas game by game.
    let d = (25.0, 25.0 / 3.0);
    let a0 = weng_lin_1v1(d, d, 1.0);
    let b0 = weng_lin_1v1(d, d, 0.0);
    assert!(close(a0.0, 27.635231) && close(a0.1, 8.065506), "{a0:?}");
    assert!(close(b0.0, 22.364769) && close(b0.1, 8.065506), "{b0:?}");
    let (a1, b1) = (weng_lin_1v1(a0, b0, 0.0), weng_lin_1v1(b0, a0, 1.0));
    let (a2, c2) = (weng_lin_1v1(a1, d, 0.5), weng_lin_1v1(d, a1, 0.5));
    let (c3, a3) = (weng_lin_1v1(c2, a2, 0.0), weng_lin_1v1(a2, c2, 1.0));
    let (b4, c4) = (weng_lin_1v1(b1, c3, 1.0), weng_lin_1v1(c3, b1, 0.0));
    let (c5, b5) = (weng_lin_1v1(c4, b4, 0.0), weng_lin_1v1(b4, c4, 1.0));
    for (x, (mu, sigma)) in [(a, a3), (b, b5), (c, c5)] {
        assert!(close(x.rating, mu), "{}: {} vs {mu}", x.bot, x.rating);
        assert!(close(x.rating_uncertainty, sigma), "{}", x.bot);
    }
    // The same figures, written out (from the formulas above, computed separately).
    assert!(close(a.rating, 26.960063) && close(a.rating_uncertainty, 7.384409));
    assert!(close(b.rating, 29.226361) && close(b.rating_uncertainty, 7.372052));
    assert!(close(c.rating, 18.570692) && close(c.rating_uncertainty, 7.335116));

    // Ranks: by loss rate; a and b tie at 25%, b's rating is higher.
    let order: Vec<(usize, &str)> = s
        .standings
        .iter()
        .map(|x| (x.rank, x.bot.as_str()))
        .collect();
    assert_eq!(order, [(1, "b"), (2, "a"), (3, "c")]);

    // Head to head (row's wins-losses-draws against the column).
    let h = s.head_to_head.as_ref().unwrap();
    let rec = |x: &str, y: &str| {
        let r = h.iter().find(|r| r.bot == x && r.opponent == y).unwrap();
        (r.games, r.wins, r.losses, r.draws)
    };
    assert_eq!(rec("a", "b"), (2, 1, 1, 0));
    assert_eq!(rec("b", "a"), (2, 1, 1, 0));
    assert_eq!(rec("a", "c"), (2, 1, 0, 1));
    assert_eq!(rec("c", "a"), (2, 0, 1, 1));
    assert_eq!(rec("b", "c"), (2, 2, 0, 0));
    assert_eq!(rec("c", "b"), (2, 0, 2, 0));
    assert_eq!(h.len(), 6);

    // The machine formats carry the same figures.
    let csv = s.to_csv();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 4);
    assert!(rows[0].starts_with("rank,bot,games,losses,draws,loss_rate,"));
    assert_eq!(
        rows[3],
        "3,c,4,3,1,0.750000,0.300642,0.954413,18.570692,7.335116,3,1,0,0,0,0,0,0,0,0,2,3"
    );
    let json: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
    assert_eq!(json["standings"][2]["bot"], "c");
    assert_eq!(json["standings"][2]["faults"]["forfeit"], 2);
    assert_eq!(json["standings"][0]["losses"], 1);
    let text = s.to_text();
    assert!(text.contains("c (disqualified after game 3)"), "{text}");
    assert!(
        text.contains("25.0%") && text.contains("4.6–69.9%"),
        "{text}"
    );
    assert!(text.contains("29.23 ± 7.37"), "{text}");
    assert!(text.contains("forfeit 2, timeout 1"), "{text}");
}

#[test]
fn standings_do_not_depend_on_the_order_games_finished_in() {
    let t = tournament(&["a", "b", "c"], 2);
    let mut l = lines();
    let s1 = Standings::compute(&t, &l);
    l.reverse();
    l.swap(0, 3);
    assert_eq!(Standings::compute(&t, &l), s1);
}

#[test]
fn three_player_game_the_durak_last_the_others_tied() {
    // One game, all at the default rating: each pair has c = 13.176157 and p = ½. The two who
    // did not lose: ½ against each other (no change), 1 against the durak: μ = 25 + 69.4444/
    // 13.176157·½ = 27.635231. The durak: 0 against both: μ = 25 − 2·2.635231 = 19.729537.
    // σ for everyone: η per pair = (σ/c)(σ²/c²)·¼ = 0.0632456, two pairs:
    // σ = 8.333333·√(1 − 0.1264911) = 7.788475.
    let t = tournament(&["x", "y", "z"], 3);
    let s = Standings::compute(&t, &[line(0, &["x", "y", "z"], Some(1))]);
    assert!(s.head_to_head.is_none());
    let (x, y, z) = (get(&s, "x"), get(&s, "y"), get(&s, "z"));
    assert!(close(x.rating, 27.635231) && close(z.rating, 27.635231));
    assert!(close(y.rating, 19.729537));
    for b in [x, y, z] {
        assert!(
            close(b.rating_uncertainty, 7.788475),
            "{}",
            b.rating_uncertainty
        );
    }
    assert_eq!((y.losses, x.losses, z.losses), (1, 0, 0));
}

/// A game nobody played (both seats forfeited: a draw) counts as a game and a draw, and moves
/// no rating: it says nothing of skill.
#[test]
fn a_game_nobody_played_moves_no_rating() {
    let t = tournament(&["a", "b"], 2);
    let mut void = line(0, &["a", "b"], None);
    void.faults = vec![
        fault(0, "a", FaultKind::Forfeit),
        fault(1, "b", FaultKind::StartFailed),
    ];
    let s = Standings::compute(&t, &[void]);
    for name in ["a", "b"] {
        let b = get(&s, name);
        assert_eq!((b.games, b.draws, b.losses), (1, 1, 0));
        assert!(close(b.rating, 25.0) && close(b.rating_uncertainty, 25.0 / 3.0));
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
