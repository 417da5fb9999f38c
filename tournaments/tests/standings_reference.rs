//! The standings' figures against an independent computation: `tests/data/fit_reference.py`
//! fits the same games with `choix` (PyPI) and computes every other figure with numpy and scipy
//! from the definitions; its output, `tests/data/fit_reference.json`, is pinned here. The games:
//! a real duplicate tournament of four bots (two of them the same algorithm in Python and
//! JavaScript), a simulated one at 3-seat tables with draws and games nobody played, and a
//! small one with a bot that never lost.

use durak_protocol::{FaultKind, Limits};
use durak_rules::Variant;
use durak_tournaments::config::{Bot, Format, Tournament};
use durak_tournaments::results::{FaultLine, ResultLine};
use durak_tournaments::standings::Standings;
use serde_json::Value;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn reference() -> Value {
    let text = std::fs::read_to_string(data("fit_reference.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The tournament and the result lines of a reference CSV.
pub fn load(name: &str, bots: &[String], k: usize) -> (Tournament, Vec<ResultLine>) {
    let text = std::fs::read_to_string(data(&format!("{name}.csv"))).unwrap();
    let mut lines = Vec::new();
    let mut deals = 0;
    for row in text.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let seats: Vec<String> = f[3].split('|').map(String::from).collect();
        let deal: u32 = f[2].parse().unwrap();
        deals = deals.max(deal + 1);
        let (loser, faults) = match f[4] {
            "draw" => (None, vec![]),
            "void" => (
                None,
                (0..seats.len())
                    .map(|s| FaultLine {
                        seat: s,
                        bot: seats[s].clone(),
                        kind: FaultKind::Forfeit,
                        detail: "disqualified".into(),
                        rule: None,
                    })
                    .collect(),
            ),
            s => (Some(s.parse::<usize>().unwrap()), vec![]),
        };
        lines.push(ResultLine {
            id: f[0].parse().unwrap(),
            table: f[1].parse().unwrap(),
            game: deal,
            deal: Some(deal),
            durak: loser.map(|s| seats[s].clone()),
            draw: loser.is_none(),
            seats,
            seed: 1,
            dealer: 0,
            loser,
            faults,
            moves: 30,
            replay: None,
            duration_ms: 1,
            disqualified: vec![],
            voided: Vec::new(),
            void: false,
            move_limit: None,
        });
    }
    let t = Tournament {
        variant: Variant::Podkidnoy,
        format: Format::Duplicate,
        table_size: k,
        games: deals,
        seed: 5,
        challenger: None,
        concurrency: None,
        max_consecutive_faults: 0,
        sprt: None,
        bots: bots
            .iter()
            .map(|n| Bot {
                name: n.clone(),
                command: "builtin:random".into(),
                cwd: "/".into(),
                own_cwd: true,
                limits: Limits::default(),
            })
            .collect(),
    };
    (t, lines)
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

/// Check one data set's standings against its reference.
fn check(name: &str) -> Standings {
    let r = &reference()[name];
    let bots: Vec<String> = r["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap().to_string())
        .collect();
    let k = r["table_size"].as_u64().unwrap() as usize;
    let (t, lines) = load(name, &bots, k);
    let s = Standings::compute(&t, &lines);
    assert_eq!(s.method.interval, "paired");
    assert_eq!(s.games_played, lines.len());

    let expected = r["standings"].as_array().unwrap();
    assert_eq!(s.standings.len(), expected.len());
    for (pos, e) in expected.iter().enumerate() {
        let bot = e["bot"].as_str().unwrap();
        let got = s.get(bot).unwrap();
        let ctx = format!("{name}/{bot}");
        assert_eq!(got.rank_label, e["rank_label"].as_str().unwrap(), "{ctx}");
        // Bots of equal rating may come in either order; the position's rating is the same.
        let elo = num(&e["elo"]).unwrap();
        assert!(close(s.standings[pos].elo.unwrap(), elo, 1e-6), "{ctx}");
        assert!(
            close(got.elo.unwrap(), elo, 1e-6),
            "{ctx}: {:?} vs {elo}",
            got.elo
        );
        assert_eq!(got.games, e["games"].as_u64().unwrap(), "{ctx}");
        assert_eq!(got.losses, e["losses"].as_u64().unwrap(), "{ctx}");
        let paired = num(&e["elo_half_width_paired"]).unwrap();
        let model = num(&e["elo_half_width_model"]).unwrap();
        let [lo, hi] = got.elo_ci95;
        if let (Some(lo), Some(hi)) = (lo, hi) {
            assert!(
                close((hi - lo) / 2.0, paired, 1e-5),
                "{ctx}: {lo} {hi} {paired}"
            );
        }
        let [ulo, uhi] = got.elo_ci95_unpaired.unwrap();
        if let (Some(lo), Some(hi)) = (ulo, uhi) {
            assert!(
                close((hi - lo) / 2.0, model, 1e-5),
                "{ctx}: {lo} {hi} {model}"
            );
        }
        for (i, x) in got.loss_rate_ci95.iter().enumerate() {
            let want = num(&e["loss_rate_ci95"][i]).unwrap();
            assert!(close(*x, want, 1e-9), "{ctx}: {x} vs {want}");
        }
    }

    // LOS, by bot name (the reference's rows and columns are in its rank order).
    let names: Vec<&str> = expected
        .iter()
        .map(|e| e["bot"].as_str().unwrap())
        .collect();
    let pos = |b: &str| s.standings.iter().position(|x| x.bot == b).unwrap();
    for (i, a) in names.iter().enumerate() {
        for (j, b) in names.iter().enumerate() {
            let want = &r["los_paired"][i][j];
            let got = s.los[pos(a)][pos(b)];
            match num(want) {
                None => assert_eq!(got, None),
                Some(w) => {
                    let g = got.unwrap();
                    assert!((g - w).abs() < 1e-6, "{name} LOS {a} over {b}: {g} vs {w}");
                }
            }
        }
    }

    // Pairs: the same pairs (by name), the same figures.
    for e in r["pairs"].as_array().unwrap() {
        let (a, b) = (e["bot"].as_str().unwrap(), e["opponent"].as_str().unwrap());
        let p = s
            .pairs
            .iter()
            .find(|p| (p.bot == a && p.opponent == b) || (p.bot == b && p.opponent == a))
            .unwrap_or_else(|| panic!("{name}: no pair {a} {b}"));
        let flipped = p.bot != a;
        let ctx = format!("{name}: {a} vs {b}");
        let u = &e["unpaired"];
        let (ahead, behind) = if flipped {
            (p.behind, p.ahead)
        } else {
            (p.ahead, p.behind)
        };
        assert_eq!(p.games, u["games"].as_u64().unwrap(), "{ctx}");
        assert_eq!(ahead, u["ahead"].as_u64().unwrap(), "{ctx}");
        assert_eq!(behind, u["behind"].as_u64().unwrap(), "{ctx}");
        assert_eq!(p.draws, u["draws"].as_u64().unwrap(), "{ctx}");
        let score = p.score.unwrap();
        let score = if flipped { 1.0 - score } else { score };
        assert!(close(score, num(&u["score"]).unwrap(), 1e-12), "{ctx}");
        for (kind, got) in [("unpaired", &p.unpaired), ("paired", &p.paired)] {
            let want = &e[kind];
            let got = got.as_ref().unwrap();
            let sd = num(&want["sd"]).unwrap();
            assert!(
                close(got.score_sd, sd, 1e-9),
                "{ctx} {kind}: {} vs {sd}",
                got.score_sd
            );
            let los = num(&want["los"]).unwrap();
            let los_got = if flipped { 1.0 - got.los } else { got.los };
            assert!((los_got - los).abs() < 1e-9, "{ctx} {kind} LOS");
            for end in 0..2 {
                // Flipped, the interval is the mirror image.
                let (g, w) = if flipped {
                    (
                        got.elo_ci95[1 - end].map(|x| -x),
                        num(&want["elo_ci95"][end]),
                    )
                } else {
                    (got.elo_ci95[end], num(&want["elo_ci95"][end]))
                };
                match (g, w) {
                    (Some(g), Some(w)) => assert!(close(g, w, 1e-7), "{ctx} {kind}: {g} {w}"),
                    (g, w) => assert_eq!(g.is_none(), w.is_none(), "{ctx} {kind} end {end}"),
                }
            }
        }
    }
    s
}

#[test]
fn a_real_duplicate_tournament_matches_choix_and_scipy() {
    let s = check("four_bots_duplicate");
    // The two heuristic bots (one algorithm in two languages) played the same games: the same
    // rating, tied.
    let (py, js) = (
        s.get("heuristic.py").unwrap(),
        s.get("heuristic.js").unwrap(),
    );
    assert!((py.elo.unwrap() - js.elo.unwrap()).abs() < 1e-9);
    assert_eq!(
        (py.rank_label.as_str(), js.rank_label.as_str()),
        ("=2", "=2")
    );
    // Pairing narrows the interval of greedy against a heuristic bot (deals: whole, luck out).
    let p = s
        .pairs
        .iter()
        .find(|p| p.bot == "greedy" && p.opponent == "heuristic.py")
        .unwrap();
    let ratio = p.paired_width_ratio.unwrap();
    assert!(ratio < 0.9, "{ratio}");
    let d = p.deals.unwrap();
    assert_eq!(d.complete(), 300);
    assert_eq!(d.incomplete, 0);
}

#[test]
fn a_simulated_three_seat_tournament_matches_choix_and_scipy() {
    let s = check("three_seats_sim");
    assert_eq!(s.table_size, 3);
    assert!(s.pairs.iter().all(|p| p.deals.is_none()));
}

#[test]
fn a_bot_that_never_lost_matches_choix_and_has_no_upper_bound() {
    let s = check("never_lost");
    let rock = s.get("rock").unwrap();
    assert_eq!(rock.losses, 0);
    assert_eq!(rock.rank_label, "1");
    assert!(
        rock.elo_ci95[0].is_some() && rock.elo_ci95[1].is_none(),
        "{rock:?}"
    );
    // The others beat each other but never rock: relative to the mean they have no lower
    // bound (rock's rating could be any higher), and an upper one.
    for b in ["paper", "sand"] {
        let x = s.get(b).unwrap();
        assert!(x.elo_ci95[0].is_none() && x.elo_ci95[1].is_some(), "{x:?}");
    }
    let csv = s.to_csv();
    let row = csv.lines().find(|l| l.contains(",rock,")).unwrap();
    assert!(row.contains(",inf,"), "{row}");
}

/// The same games in another order give the same standings, to the bit (the builder's sums are
/// integers, the fit runs over combinations in sorted order).
#[test]
fn the_order_of_the_results_does_not_matter() {
    let r = reference();
    let bots: Vec<String> = r["three_seats_sim"]["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap().to_string())
        .collect();
    let (t, mut lines) = load("three_seats_sim", &bots, 3);
    let a = Standings::compute(&t, &lines);
    lines.reverse();
    let b = Standings::compute(&t, &lines);
    // Interleave: every other line from the front, then the rest.
    let (even, odd): (Vec<_>, Vec<_>) = lines
        .iter()
        .cloned()
        .enumerate()
        .partition(|(i, _)| i % 2 == 0);
    let mixed: Vec<ResultLine> = odd.into_iter().chain(even).map(|(_, l)| l).collect();
    let c = Standings::compute(&t, &mixed);
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(a.to_json(), c.to_json());
}

/// The SPRT's figures on fixed histograms (2 and 3 seats, paired deals and single games)
/// against scipy: the GSPRT's LLR (each hypothesis's constrained maximum-likelihood
/// distribution found by SLSQP, not the closed form used here), Wald's bounds, and the Elo
/// interval (the pair figures' definition).
#[test]
fn the_sprt_matches_scipy() {
    use durak_tournaments::stats::sprt::{elo_interval, expected_score, SprtParams};
    use durak_tournaments::stats::{z_two_sided, PRIOR_DEALS};
    let r = reference();
    let cases = r["sprt"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    let floats = |v: &Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let counts = |v: &Value| -> Vec<u64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect()
    };
    for c in cases {
        let k = c["table_size"].as_u64().unwrap() as usize;
        let f = |key: &str| c[key].as_f64().unwrap();
        let p = SprtParams::new(f("elo0"), f("elo1"), f("alpha"), f("beta")).unwrap();
        let ctx = format!("k {k}, H0 {} H1 {}", p.elo0, p.elo1);
        assert!(close(expected_score(p.elo0, k), f("s0"), 1e-12), "{ctx}");
        assert!(close(expected_score(p.elo1, k), f("s1"), 1e-12), "{ctx}");
        let (dv, dc) = (floats(&c["deal_values"]), counts(&c["deal_counts"]));
        let (gv, gc) = (floats(&c["game_values"]), counts(&c["game_counts"]));
        let paired = p.llr(&dv, &dc, k);
        let unpaired = p.llr(&gv, &gc, k);
        // SLSQP converges to about 1e-9 of the likelihood.
        assert!(close(paired, f("llr_paired"), 1e-6), "{ctx}: {paired}");
        assert!(
            close(unpaired, f("llr_unpaired"), 1e-6),
            "{ctx}: {unpaired}"
        );
        let (lo, hi) = p.bounds();
        let b = floats(&c["bounds"]);
        assert!(close(lo, b[0], 1e-12) && close(hi, b[1], 1e-12), "{ctx}");
        for (kind, deals) in [
            ("paired", Some((dv.as_slice(), dc.as_slice()))),
            ("unpaired", None),
        ] {
            let (elo, [l, h]) =
                elo_interval((&gv, &gc), deals, k, PRIOR_DEALS, z_two_sided()).unwrap();
            let want = &c[kind];
            let wci = floats(&want["elo_ci95"]);
            assert!(
                close(elo.unwrap(), num(&want["elo"]).unwrap(), 1e-9),
                "{ctx} {kind}"
            );
            assert!(
                close(l.unwrap(), wci[0], 1e-9) && close(h.unwrap(), wci[1], 1e-9),
                "{ctx} {kind}: [{l:?}, {h:?}] {wci:?}"
            );
        }
    }
}
