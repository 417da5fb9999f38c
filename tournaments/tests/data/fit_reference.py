#!/usr/bin/env python3
"""Independent reference figures for the standings (tournaments/tests/standings_reference.rs).

    pip install choix scipy
    python3 fit_reference.py extract RESULTS.jsonl OUT.csv   # a results.jsonl as a small CSV
    python3 fit_reference.py simulate                        # writes three_seats_sim.csv
    python3 fit_reference.py > fit_reference.json            # the figures, from the CSVs here
                                                             # (and the SPRT's, seeded here)

Inputs (this directory), one game per row: id, table, deal, seats (names joined by '|'), and the
outcome: the durak's seat, "draw", or "void" (nobody played: every seat forfeited).

- four_bots_duplicate.csv: a real `durak tournament` (duplicate, 2 seats, 300 deals, seed 5):
  builtin:greedy as "greedy", sample-bots heuristic_bot.py and heuristic_bot.js, builtin:random.
- three_seats_sim.csv: simulated here (seeded), 5 bots at 3-seat duplicate tables, with a luck
  of the deal per seat, draws and games nobody played.
- never_lost.csv: written by hand: a bot that was never the durak.

The model (tournaments/src/stats/fit.rs): P(i is the durak | table S) = exp(-t_i) / sum_S
exp(-t_j), a draw is a 1/k share of the loss for each of the k players, games nobody played are
left out, a Gaussian prior N(0, sd^2) on every t_i with sd = 500 Elo. choix.opt_top1 fits a Luce
choice of a "winner" with probability softmax(params): here the "winner" is the durak and
params = -t. choix has no weights, so every decisive game is given k times and a draw once per
player, which multiplies the log-likelihood by k; its penalty alpha * sum(params^2) is then
k / (2 sd^2).

Everything else is computed here from the definitions, with numpy and scipy: the covariances
(model: the inverse Hessian, which choix's own Top1Fcts.hessian gives; paired: the sandwich over
deals from per-game gradients), LOS (scipy.stats.norm), tie groups, pair figures (trinomial and
per-deal, the interval on the logit scale), Wilson intervals (scipy.stats.binomtest).

"sprt" (tournaments/src/stats/sprt.rs, checked in tests/standings_reference.rs): fixed
histograms of a challenger's scores, at 2 and 3 seats, paired (whole deals) and single games. For
each hypothesis the maximum-likelihood distribution over the histogram's values with the
hypothesis's mean score is found by scipy.optimize (SLSQP, a generic constrained optimiser, not
the closed form the Rust code solves), the LLR is the log-ratio of the two likelihoods, the
bounds are Wald's, and the Elo interval is the pair figures' (the score over the games, the
spread of deals blended with the games' as KAPPA deals, the interval on the logit scale).
"""
import csv
import itertools
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ELO = 400 / math.log(10)
PRIOR_SD_ELO = 500.0
KAPPA = 10.0  # deals of the model's spread added to each set of bots' paired spread
Z = None  # set in main: scipy's norm.ppf(0.975)

DATASETS = {
    "four_bots_duplicate": {"bots": ["greedy", "heuristic.py", "heuristic.js", "random"], "k": 2},
    "three_seats_sim": {"bots": ["ace", "bee", "cat", "dog", "eel"], "k": 3},
    "never_lost": {"bots": ["rock", "paper", "sand"], "k": 2},
}


def extract(src, dst):
    rows = [json.loads(l) for l in open(src) if l.strip()]
    rows.sort(key=lambda r: r["id"])
    with open(dst, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "table", "deal", "seats", "outcome"])
        for r in rows:
            seats = len(r["seats"])
            faulted = {x["seat"] for x in r["faults"]}
            if r["loser"] is not None:
                out = r["loser"]
            elif len(faulted) == seats:
                out = "void"
            else:
                out = "draw"
            w.writerow([r["id"], r["table"], r.get("deal", ""), "|".join(r["seats"]), out])


def simulate():
    rng = np.random.default_rng(20261201)
    bots = DATASETS["three_seats_sim"]["bots"]
    theta = np.array([0.9, 0.35, 0.0, 0.0, -0.7])
    k, deals = 3, 20
    rows = []
    table = 0
    gid = 0
    luck = rng.normal(0.0, 0.8, size=(deals, k))
    for combo in itertools.combinations(range(len(bots)), k):
        for r in range(k):
            seats = [combo[(s + r) % k] for s in range(k)]
            for d in range(deals):
                u = rng.random()
                if u < 0.03:
                    out = "draw"
                elif u < 0.034:
                    out = "void"
                else:
                    w = np.exp(-theta[seats] - luck[d])
                    out = int(rng.choice(k, p=w / w.sum()))
                rows.append([gid, table, d, "|".join(bots[b] for b in seats), out])
                gid += 1
            table += 1
    with open(os.path.join(HERE, "three_seats_sim.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "table", "deal", "seats", "outcome"])
        w.writerows(rows)


def load(name):
    bots = DATASETS[name]["bots"]
    index = {b: i for i, b in enumerate(bots)}
    games = []
    with open(os.path.join(HERE, name + ".csv")) as f:
        for r in csv.DictReader(f):
            seats = [index[s] for s in r["seats"].split("|")]
            o = r["outcome"]
            games.append(
                {
                    "id": int(r["id"]),
                    "deal": int(r["deal"]) if r["deal"] != "" else None,
                    "seats": seats,
                    "outcome": o if o in ("draw", "void") else int(o),
                }
            )
    return bots, games


def shares(g):
    """Each seat's share of the loss, or None for a game nobody played."""
    k = len(g["seats"])
    if g["outcome"] == "void":
        return None
    if g["outcome"] == "draw":
        return [1.0 / k] * k
    return [1.0 if s == g["outcome"] else 0.0 for s in range(k)]


def fit(bots, games, k):
    import choix
    from choix.opt import Top1Fcts

    n = len(bots)
    sd = PRIOR_SD_ELO / ELO
    data = []
    for g in games:
        sh = shares(g)
        if sh is None:
            continue
        for s, x in enumerate(sh):
            copies = round(x * k)
            others = tuple(b for t, b in enumerate(g["seats"]) if t != s)
            data.extend([(g["seats"][s], others)] * copies)
    alpha = k / (2 * sd * sd)
    w = choix.opt_top1(n, data, alpha=alpha, method="Newton-CG", tol=1e-13, max_iter=1000)
    theta = -np.asarray(w)
    # Negative log-posterior's Hessian (in t; the sign of params cancels twice), unscaled.
    hess = Top1Fcts(data, alpha).hessian(np.asarray(w)) / k
    return theta, hess


def covariances(games, theta, hess):
    """Model: the centred inverse Hessian. Paired: per set of bots S with G deals, the
    sandwich's meat M_S = sum over deals of g g^T * G/(G-1) (g: the deal's gradient of the
    log-likelihood, from the definition), blended with the model's information F_S as
    (KAPPA F_S + G M_S) / (KAPPA + G) (F_S alone below two deals)."""
    n = len(theta)
    inv = np.linalg.inv(hess)
    c = np.eye(n) - np.ones((n, n)) / n
    model = c @ inv @ c
    per_set = {}
    for g in games:
        s = tuple(sorted(g["seats"]))
        deals, info = per_set.setdefault(s, ({}, np.zeros((n, n))))
        grad = deals.setdefault(g["deal"], np.zeros(n))
        sh = shares(g)
        if sh is None:
            continue
        e = np.exp(-theta[g["seats"]])
        q = e / e.sum()
        for x, b in enumerate(g["seats"]):
            grad[b] += q[x] - sh[x]
            for y, b2 in enumerate(g["seats"]):
                info[b, b2] += (q[x] if x == y else 0.0) - q[x] * q[y]
    meat = np.zeros((n, n))
    for deals, info in per_set.values():
        count = len(deals)
        if count >= 2:
            m = sum(np.outer(v, v) for v in deals.values()) * count / (count - 1)
            meat += (KAPPA * info + count * m) / (KAPPA + count)
        else:
            meat += info
    paired = inv @ meat @ inv
    return model, paired


def los(theta, cov, a, b):
    from scipy.stats import norm

    d = theta[a] - theta[b]
    sd = math.sqrt(max(cov[a, a] + cov[b, b] - 2 * cov[a, b], 0.0))
    return float(norm.cdf(d / sd))


def tie_groups(order, theta, cov):
    groups, start = [], 0
    for cut in range(1, len(order)):
        if all(
            los(theta, cov, order[i], order[j]) >= 0.975
            for i in range(cut)
            for j in range(cut, len(order))
        ):
            groups.append((start, cut))
            start = cut
    groups.append((start, len(order)))
    return groups


def elo(p):
    if p <= 0:
        return None
    if p >= 1:
        return None
    return ELO * math.log(p / (1 - p))


def pair_figures(games, i, j, paired):
    """i against j from their own games: units are single games (unpaired) or deals at one
    set of bots (paired); the paired spread is blended with the unpaired one as KAPPA deals."""
    from scipy.stats import norm

    def units_of(by_deal):
        units = {}
        for g in games:
            if i not in g["seats"] or j not in g["seats"]:
                continue
            key = (tuple(sorted(g["seats"])), g["deal"]) if by_deal else g["id"]
            h, c = units.get(key, (0.0, 0.0))
            pi, pj = g["seats"].index(i), g["seats"].index(j)
            o = g["outcome"]
            if o == "draw":
                h, c = h + 1, c + 1
            elif o == pj:
                h, c = h + 2, c + 1
            elif o == pi:
                c = c + 1
            units[key] = (h, c)
        if not by_deal:
            units = {k: v for k, v in units.items() if v[1] > 0}
        return np.array([v[0] for v in units.values()]), np.array([v[1] for v in units.values()])

    together = sum(1 for g in games if i in g["seats"] and j in g["seats"])
    both = [g for g in games if i in g["seats"] and j in g["seats"] and g["outcome"] != "void"]
    a = sum(1 for g in both if g["outcome"] not in ("draw",) and g["seats"][g["outcome"]] == j)
    b = sum(1 for g in both if g["outcome"] not in ("draw",) and g["seats"][g["outcome"]] == i)
    d = sum(1 for g in both if g["outcome"] == "draw")
    hs, ns = units_of(False)
    p = hs.sum() / (2 * ns.sum())

    def spread(hs, ns, x):
        u = len(hs)
        return u / (u - 1) * ((hs / 2 - x * ns) ** 2).sum() if u > 1 else None

    def blended(x):
        s_games = spread(hs, ns, x)
        if not paired:
            return s_games
        s_deals = spread(dh, dn, x)
        if s_deals is None:
            return s_games
        return (KAPPA * s_games + len(dh) * s_deals) / (KAPPA + len(dh))

    if paired:
        dh, dn = units_of(True)
    sd = math.sqrt(blended(p)) / ns.sum()
    sd_even = math.sqrt(blended(0.5)) / ns.sum()
    if p in (0.0, 1.0):
        from scipy.stats import binomtest

        # A clean sweep (no draws here): Wilson's interval.
        ci = binomtest(int(hs.sum() / 2), int(ns.sum())).proportion_ci(0.95, method="wilson")
        elo_ci = [elo(ci.low) if ci.low > 0 else None, elo(ci.high) if ci.high < 1 else None]
    else:
        # On the logit scale (delta method): logit(p) +- Z sd / (p (1 - p)), in Elo.
        from scipy.special import logit

        half = Z * sd / (p * (1 - p))
        elo_ci = [ELO * (logit(p) - half), ELO * (logit(p) + half)]
    return {
        "games": together,
        "ahead": a,
        "behind": b,
        "draws": d,
        "score": p,
        "elo": elo(p),
        "sd": sd,
        "elo_ci95": [None if e is None else float(e) for e in elo_ci],
        # The spread at an even score; none at all (every unit even): ½.
        "los": float(norm.cdf((p - 0.5) / sd_even)) if sd_even > 0 else 0.5,
    }


def reference(name):
    from scipy.stats import binomtest

    bots, games = load(name)
    k = DATASETS[name]["k"]
    theta, hess = fit(bots, games, k)
    model, paired = covariances(games, theta, hess)
    order = sorted(range(len(bots)), key=lambda b: (-theta[b], bots[b]))
    groups = tie_groups(order, theta, paired)
    rank = {}
    for s, e in groups:
        for p in range(s, e):
            rank[order[p]] = ("=" if e - s > 1 else "") + str(s + 1)
    standings = []
    for b in order:
        played = [g for g in games if b in g["seats"]]
        lost = sum(1 for g in played if g["outcome"] not in ("draw", "void")
                   and g["seats"][g["outcome"]] == b)
        ci = binomtest(lost, len(played)).proportion_ci(0.95, method="wilson")
        standings.append(
            {
                "bot": bots[b],
                "rank_label": rank[b],
                "elo": theta[b] * ELO,
                "elo_half_width_paired": Z * math.sqrt(paired[b, b]) * ELO,
                "elo_half_width_model": Z * math.sqrt(model[b, b]) * ELO,
                "games": len(played),
                "losses": lost,
                "loss_rate_ci95": [ci.low, ci.high],
            }
        )
    los_paired = [[None if a == b else los(theta, paired, a, b) for b in order] for a in order]
    pairs = []
    for x, a in enumerate(order):
        for b in order[x + 1:]:
            pairs.append(
                {
                    "bot": bots[a],
                    "opponent": bots[b],
                    "unpaired": pair_figures(games, a, b, False),
                    "paired": pair_figures(games, a, b, True),
                }
            )
    return {
        "bots": bots,
        "table_size": k,
        "standings": standings,
        "los_paired": los_paired,
        "pairs": pairs,
    }


def expected_score(elo_, k):
    return 1 - 1 / (1 + (k - 1) * 10 ** (elo_ / 400))


def constrained_fit(values, counts, mean):
    """max sum n_i log q_i subject to sum q = 1, sum q a = mean (a never seen value counts as
    1e-3 of an observation, fishtest's regularisation)."""
    from scipy.optimize import minimize

    a = np.asarray(values, dtype=float)
    n = np.maximum(np.asarray(counts, dtype=float), 1e-3)
    cons = [
        {"type": "eq", "fun": lambda q: q.sum() - 1},
        {"type": "eq", "fun": lambda q: q @ a - mean},
    ]
    r = minimize(
        lambda q: -(n * np.log(np.maximum(q, 1e-300))).sum() / n.sum(),
        n / n.sum(),
        constraints=cons,
        bounds=[(1e-12, 1)] * len(a),
        method="SLSQP",
        options={"ftol": 1e-16, "maxiter": 2000},
    )
    assert r.success, r.message
    return n, r.x


def gsprt_llr(values, counts, s0, s1):
    n, q0 = constrained_fit(values, counts, s0)
    _, q1 = constrained_fit(values, counts, s1)
    return float((n * np.log(q1 / q0)).sum())


def sprt_interval(k, game_values, game_counts, deal_values=None, deal_counts=None):
    """The challenger's Elo above the field and its interval, from the units' definition:
    a game is a unit of 2*score half points of 1 comparison, a deal of 2*k*mean of k."""

    def units(values, counts, each):
        h = np.repeat(2.0 * each * np.asarray(values), counts)
        return h, np.full(len(h), float(each))

    hs, ns = units(game_values, game_counts, 1)
    p = hs.sum() / (2 * ns.sum())

    def spread(h, n, x):
        u = len(h)
        return u / (u - 1) * ((h / 2 - x * n) ** 2).sum() if u > 1 else None

    s = spread(hs, ns, p)
    if deal_values is not None:
        dh, dn = units(deal_values, deal_counts, k)
        sd_ = spread(dh, dn, p)
        if sd_ is not None:
            s = (KAPPA * s + len(dh) * sd_) / (KAPPA + len(dh))
    sd = math.sqrt(s) / ns.sum()
    shift = 400 * math.log10(k - 1)
    lg = math.log(p / (1 - p))
    half = Z * sd / (p * (1 - p))
    return {
        "elo": ELO * lg - shift,
        "elo_ci95": [ELO * (lg - half) - shift, ELO * (lg + half) - shift],
    }


def sprt_reference():
    rng = np.random.default_rng(20261203)
    cases = []
    for k, elo0, elo1, alpha, beta, deals, strength in [
        (2, 0.0, 20.0, 0.05, 0.05, 150, 0.3),
        (2, -10.0, 5.0, 0.1, 0.02, 400, 0.15),
        (3, 0.0, 10.0, 0.05, 0.05, 120, 0.1),
    ]:
        # Deals: for each rotation the challenger scores 1 (another is the durak), 1 - 1/k (a
        # draw) or 0, with a luck of the deal shared by its rotations.
        game_counts = [0, 0, 0]
        deal_units = []
        for _ in range(deals):
            luck = rng.normal(0.0, 0.8)
            total = 0
            for r in range(k):
                u = rng.random()
                x = strength + (luck if r % 2 == 0 else -luck)
                if u < 0.05:
                    game_counts[1] += 1
                    total += k - 1
                elif rng.random() < (1 - 1 / k) / ((1 - 1 / k) + math.exp(-x) / k):
                    game_counts[2] += 1
                    total += k
                else:
                    game_counts[0] += 1
            deal_units.append(total)
        values = sorted({k * a + (k - 1) * b for a in range(k + 1) for b in range(k + 1 - a)})
        deal_counts = [deal_units.count(v) for v in values]
        deal_values = [v / (k * k) for v in values]
        game_values = [0.0, 1 - 1 / k, 1.0]
        s0, s1 = expected_score(elo0, k), expected_score(elo1, k)
        cases.append(
            {
                "table_size": k,
                "elo0": elo0,
                "elo1": elo1,
                "alpha": alpha,
                "beta": beta,
                "deal_values": deal_values,
                "deal_counts": deal_counts,
                "game_values": game_values,
                "game_counts": game_counts,
                "s0": s0,
                "s1": s1,
                "llr_paired": gsprt_llr(deal_values, deal_counts, s0, s1),
                "llr_unpaired": gsprt_llr(game_values, game_counts, s0, s1),
                "bounds": [math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)],
                "paired": sprt_interval(k, game_values, game_counts, deal_values, deal_counts),
                "unpaired": sprt_interval(k, game_values, game_counts),
            }
        )
    return cases


def main():
    global Z
    from scipy.stats import norm

    Z = float(norm.ppf(0.975))
    if len(sys.argv) > 1 and sys.argv[1] == "extract":
        extract(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "simulate":
        simulate()
        return
    out = {name: reference(name) for name in DATASETS}
    out["sprt"] = sprt_reference()
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
