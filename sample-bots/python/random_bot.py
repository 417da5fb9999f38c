#!/usr/bin/env python3
"""Durak random bot: plays a uniformly random legal move (protocol v1, docs/PROTOCOL.md).

Standard library only. Reads one JSON object per line on stdin, writes answers on stdout.
Run: durak play --variant podkidnoy "python3 sample-bots/python/random_bot.py" builtin:greedy
"""
import itertools
import json
import random
import sys

RANKS = "6789TJQKA"
LIMIT = 20000


def swap_hand(hand, exchange):
    """The hand after the trump-six exchange (P-4): six out, trump card in."""
    return [c for c in hand if c != exchange["six"]] + [exchange["trump_card"]]


def pair_count(cards):
    """Number of separate pairs (P-5): sum over ranks of floor(count / 2)."""
    return sum(len([c for c in cards if c[0] == r]) // 2 for r in RANKS)


def attacks(legal):
    """Every legal attack answer as (cards, exchange)."""
    sizes = set(legal["sizes"])
    hands = [(legal["hand"], False)]
    if legal["exchange"]:
        hands.append((swap_hand(legal["hand"], legal["exchange"]), True))
    for hand, exchange in hands:
        if legal["same_rank"]:  # podkidnoy K-4: one rank, at most max(sizes) cards
            for rank in RANKS:
                same = [c for c in hand if c[0] == rank]
                for k in range(1, min(len(same), max(sizes)) + 1):
                    for g in itertools.combinations(same, k):
                        yield list(g), exchange
        else:  # prostoy P-5: 1 card, a pair + 1, or two pairs + 1
            for k in sorted(sizes):
                for g in itertools.combinations(hand, k):
                    if k == 1 or pair_count(g) >= (k - 1) // 2:
                        yield list(g), exchange


def pick(options):
    """A uniformly random option. Huge option sets (rare: very big hands) are cut to
    the first LIMIT, which the shuffles in shuffled() keep reasonably random."""
    return random.choice(list(itertools.islice(options, LIMIT)))


def shuffled(items):
    items = list(items)
    random.shuffle(items)
    return items


def matchings(to_beat, used, partial):
    """Every way to beat attack cards with distinct beaters: lists of [attack, defence].

    With partial=True an attack card may also be left unbeaten (prostoy P-8);
    otherwise every attack card must be beaten (podkidnoy K-7)."""
    if not to_beat:
        yield []
        return
    first, rest = to_beat[0], to_beat[1:]
    if partial:
        yield from matchings(rest, used, partial)
    for beater in first["beaters"]:
        if beater not in used:
            for more in matchings(rest, used | {beater}, partial):
                yield [[first["attack"], beater]] + more


def mixed(to_beat):
    return [dict(t, beaters=shuffled(t["beaters"])) for t in to_beat]


def answer(request):
    legal, decision = request["legal"], request["decision"]
    legal = {k: shuffled(v) if k in ("hand", "addable") else v for k, v in legal.items()}
    reply = {"type": "answer", "id": request["id"]}
    if decision == "attack":
        cards, exchange = pick(attacks(legal))
        reply.update(action="attack", cards=cards, exchange=exchange)
    elif decision == "defend":
        partial = not legal["must_cover_all"]
        options = ((p, False) for p in matchings(mixed(legal["to_beat"]), set(), partial))
        if legal["exchange"]:  # the same choices made after the exchange (P-4)
            after = mixed(legal["to_beat_after_exchange"])
            swapped = ((p, True) for p in matchings(after, set(), partial))
            options = itertools.chain(options, swapped)
        if legal["can_take"]:
            options = itertools.chain([None], options)  # None stands for "take"
        choice = pick(options)
        if choice is None:
            reply.update(action="take")
        else:
            reply.update(action="defend", pairs=choice[0], exchange=choice[1])
    else:  # add: any 1..room cards of addable, or pass
        addable, room = legal["addable"], legal["room"]
        sizes = range(1, min(room, len(addable)) + 1)
        options = itertools.chain([None], *(itertools.combinations(addable, k) for k in sizes))
        choice = pick(options)
        if choice is None:
            reply.update(action="pass")
        else:
            reply.update(action="add", cards=list(choice))
    return reply


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "hello", "protocol": 1, "name": "random-py", "version": "1.0"})
        elif kind == "event" and message["event"]["kind"] == "dealt_hand":
            random.seed(line)  # seeded by the deal: the same tournament seed, the same games
        elif kind == "request":
            send(answer(message))
        elif kind == "match_end":
            break
        # game_start, other events, error, game_end: nothing to do


if __name__ == "__main__":
    main()
