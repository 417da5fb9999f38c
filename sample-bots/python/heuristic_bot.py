#!/usr/bin/env python3
"""Durak heuristic bot (protocol v1, docs/PROTOCOL.md). Standard library only.

Plays cheap cards first: attacks with the lowest non-trumps (low pairs in prostoy), beats with
the cheapest beater, takes in podkidnoy when covering would cost high trumps, adds low
non-trumps, and always uses the trump-six exchange when it is open (P-4).
Run: durak play --variant podkidnoy "python3 sample-bots/python/heuristic_bot.py" builtin:greedy
"""
import itertools
import json
import sys

RANKS = "6789TJQKA"


def value(card, trump):
    """How much a card is worth keeping: its rank, plus 10 for a trump."""
    return RANKS.index(card[0]) + (10 if card[1] == trump else 0)


def cheapest_cover(to_beat, trump):
    """The cheapest way to beat every card of to_beat with distinct beaters, or None.

    Greedy can fail (K-7 needs a matching), so this is a small backtracking search."""
    best = None

    def search(i, used, pairs, cost):
        nonlocal best
        if best is not None and cost >= best[0]:
            return
        if i == len(to_beat):
            best = (cost, list(pairs))
            return
        for beater in sorted(to_beat[i]["beaters"], key=lambda c: value(c, trump)):
            if beater not in used:
                pairs.append([to_beat[i]["attack"], beater])
                search(i + 1, used | {beater}, pairs, cost + value(beater, trump))
                pairs.pop()

    search(0, frozenset(), [], 0)
    return None if best is None else best[1]


def attack(legal, trump):
    hand, exchange = legal["hand"], legal["exchange"] is not None
    if exchange:  # P-4: the six of trumps out, the (higher) trump card in
        swap = legal["exchange"]
        hand = [c for c in hand if c != swap["six"]] + [swap["trump_card"]]
    hand = sorted(hand, key=lambda c: value(c, trump))
    plain = [c for c in hand if c[1] != trump]
    if legal["same_rank"]:  # podkidnoy K-4: all cards of the lowest rank, up to the limit
        lowest = (plain or hand)[0]
        cards = [c for c in (plain or hand) if c[0] == lowest[0]][: max(legal["sizes"])]
        return {"action": "attack", "cards": cards, "exchange": exchange}
    # prostoy P-5: two low pairs + 1, or a low pair + 1, else the lowest card
    pairs = []
    for rank in RANKS:
        same = [c for c in plain if c[0] == rank]
        pairs += [same[i:i + 2] for i in range(0, len(same) - 1, 2)]
    low_pairs = [p for p in pairs if RANKS.index(p[0][0]) <= RANKS.index("J")]
    for size, need in ((5, 2), (3, 1)):
        if size in legal["sizes"] and len(low_pairs) >= need:
            cards = [c for p in low_pairs[:need] for c in p]
            cards.append([c for c in hand if c not in cards][0])
            return {"action": "attack", "cards": cards, "exchange": exchange}
    return {"action": "attack", "cards": [(plain or hand)[0]], "exchange": exchange}


def defend(legal, obs, trump):
    exchange = legal["exchange"] is not None
    to_beat = legal["to_beat_after_exchange"] if exchange else legal["to_beat"]
    stock = obs["stock"]
    if legal["must_cover_all"]:  # podkidnoy K-7: cover everything or take
        cover = cheapest_cover(to_beat, trump) if legal["can_cover"] else None
        if cover is not None:
            trumps = [d for _, d in cover if d[1] == trump]
            costly = any(RANKS.index(d[0]) >= RANKS.index("Q") for d in trumps)
            if not (stock > 0 and (costly or len(trumps) > 1)):
                return {"action": "defend", "pairs": cover}
        return {"action": "take"}
    # prostoy P-8: beat what is cheap to beat, most constrained attack card first
    pairs, used = [], set()
    for item in sorted(to_beat, key=lambda t: len(t["beaters"])):
        free = [b for b in item["beaters"] if b not in used]
        if free:
            b = min(free, key=lambda c: value(c, trump))
            if b[1] == trump and RANKS.index(b[0]) >= RANKS.index("K") and stock > 0:
                continue  # keep the high trump while the stock still has cards
            pairs.append([item["attack"], b])
            used.add(b)
    return {"action": "defend", "pairs": pairs, "exchange": exchange}


def add(legal, trump):
    limit = "A" if legal["after_take"] else "T"  # dump more freely on a defender who takes
    highest = RANKS.index(limit)
    cards = [c for c in legal["addable"] if c[1] != trump and RANKS.index(c[0]) <= highest]
    cards = sorted(cards, key=lambda c: value(c, trump))[: legal["room"]]
    return {"action": "add", "cards": cards} if cards else {"action": "pass"}


def answer(request):
    legal, obs = request["legal"], request["observation"]
    trump = obs["trump_suit"]
    if request["decision"] == "attack":
        move = attack(legal, trump)
    elif request["decision"] == "defend":
        move = defend(legal, obs, trump)
    else:
        move = add(legal, trump)
    return dict({"type": "answer", "id": request["id"]}, **move)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if message.get("type") == "hello":
            send({"type": "hello", "protocol": 1, "name": "heuristic-py", "version": "1.0"})
        elif message.get("type") == "request":
            send(answer(message))
        elif message.get("type") == "match_end":
            break


if __name__ == "__main__":
    main()
