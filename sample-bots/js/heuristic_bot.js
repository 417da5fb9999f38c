#!/usr/bin/env node
// Durak heuristic bot (protocol v1, docs/PROTOCOL.md). Node.js standard library only.
// Plays cheap cards first: attacks with the lowest non-trumps (low pairs in prostoy), beats with
// the cheapest beater, takes in podkidnoy when covering would cost high trumps, adds low
// non-trumps, and always uses the trump-six exchange when it is open (P-4).
// Run: durak play --variant podkidnoy "node sample-bots/js/heuristic_bot.js" builtin:greedy
"use strict";
const readline = require("readline");

const RANKS = "6789TJQKA";
const rank = (card) => RANKS.indexOf(card[0]);
// How much a card is worth keeping: its rank, plus 10 for a trump.
const value = (card, trump) => rank(card) + (card[1] === trump ? 10 : 0);
const byValue = (trump) => (a, b) => value(a, trump) - value(b, trump);

// The cheapest way to beat every card of toBeat with distinct beaters, or null.
// Greedy can fail (K-7 needs a matching), so this is a small backtracking search.
function cheapestCover(toBeat, trump) {
  let best = null;
  const pairs = [];
  const used = new Set();
  (function search(i, cost) {
    if (best !== null && cost >= best.cost) return;
    if (i === toBeat.length) {
      best = { cost, pairs: pairs.map((p) => p.slice()) };
      return;
    }
    for (const b of toBeat[i].beaters.slice().sort(byValue(trump))) {
      if (used.has(b)) continue;
      used.add(b);
      pairs.push([toBeat[i].attack, b]);
      search(i + 1, cost + value(b, trump));
      pairs.pop();
      used.delete(b);
    }
  })(0, 0);
  return best && best.pairs;
}

function attack(legal, trump) {
  const exchange = legal.exchange !== null;
  let hand = legal.hand;
  if (exchange) {
    // P-4: the six of trumps out, the (higher) trump card in
    hand = hand.filter((c) => c !== legal.exchange.six).concat([legal.exchange.trump_card]);
  }
  hand = hand.slice().sort(byValue(trump));
  const plain = hand.filter((c) => c[1] !== trump);
  const pool = plain.length > 0 ? plain : hand;
  if (legal.same_rank) {
    // podkidnoy K-4: all cards of the lowest rank, up to the limit
    const cards = pool.filter((c) => c[0] === pool[0][0]).slice(0, Math.max(...legal.sizes));
    return { action: "attack", cards, exchange };
  }
  // prostoy P-5: two low pairs + 1, or a low pair + 1, else the lowest card
  const pairs = [];
  for (const r of RANKS) {
    const same = plain.filter((c) => c[0] === r);
    for (let i = 0; i + 1 < same.length; i += 2) pairs.push([same[i], same[i + 1]]);
  }
  const lowPairs = pairs.filter((p) => rank(p[0]) <= RANKS.indexOf("J"));
  for (const [size, need] of [[5, 2], [3, 1]]) {
    if (legal.sizes.includes(size) && lowPairs.length >= need) {
      const cards = lowPairs.slice(0, need).flat();
      cards.push(hand.find((c) => !cards.includes(c)));
      return { action: "attack", cards, exchange };
    }
  }
  return { action: "attack", cards: [pool[0]], exchange };
}

function defend(legal, obs, trump) {
  const exchange = legal.exchange !== null;
  const toBeat = exchange ? legal.to_beat_after_exchange : legal.to_beat;
  if (legal.must_cover_all) {
    // podkidnoy K-7: cover everything, or take
    const cover = legal.can_cover ? cheapestCover(toBeat, trump) : null;
    if (cover !== null) {
      const trumps = cover.map((p) => p[1]).filter((d) => d[1] === trump);
      const costly = trumps.some((d) => rank(d) >= RANKS.indexOf("Q"));
      const tooDear = obs.stock > 0 && (costly || trumps.length > 1);
      if (!tooDear) return { action: "defend", pairs: cover };
    }
    return { action: "take" };
  }
  // prostoy P-8: beat what is cheap to beat, most constrained attack card first
  const pairs = [];
  const used = new Set();
  for (const item of toBeat.slice().sort((a, b) => a.beaters.length - b.beaters.length)) {
    const b = item.beaters.filter((c) => !used.has(c)).sort(byValue(trump))[0];
    if (b === undefined) continue;
    if (b[1] === trump && rank(b) >= RANKS.indexOf("K") && obs.stock > 0) continue; // keep it
    pairs.push([item.attack, b]);
    used.add(b);
  }
  return { action: "defend", pairs, exchange };
}

function add(legal, trump) {
  const limit = RANKS.indexOf(legal.after_take ? "A" : "T"); // dump more on a defender who takes
  const cards = legal.addable
    .filter((c) => c[1] !== trump && rank(c) <= limit)
    .sort(byValue(trump))
    .slice(0, legal.room);
  return cards.length > 0 ? { action: "add", cards } : { action: "pass" };
}

function answer(req) {
  const trump = req.observation.trump_suit;
  let move;
  if (req.decision === "attack") move = attack(req.legal, trump);
  else if (req.decision === "defend") move = defend(req.legal, req.observation, trump);
  else move = add(req.legal, trump);
  return Object.assign({ type: "answer", id: req.id }, move);
}

// process.stdout.write on a pipe is synchronous on Linux: each line is sent at once.
function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.type === "hello") {
    send({ type: "hello", protocol: 1, name: "heuristic-js", version: "1.0" });
  }
  else if (msg.type === "request") send(answer(msg));
  else if (msg.type === "match_end") process.exit(0); // the match is over: exit at once
});
