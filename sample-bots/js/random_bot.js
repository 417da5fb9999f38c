#!/usr/bin/env node
// Durak random bot: plays a uniformly random legal move (protocol v1, docs/PROTOCOL.md).
// Node.js standard library only. Reads one JSON object per line on stdin, answers on stdout.
// Run: durak play --variant podkidnoy "node sample-bots/js/random_bot.js" builtin:greedy
"use strict";
const readline = require("readline");

const RANKS = "6789TJQKA";
const LIMIT = 20000; // huge option sets (very big hands) are cut to this many options

// A seeded generator (mulberry32), seeded by each deal: the same tournament seed, the same games.
let state = 0;
function seed(text) {
  state = 2166136261; // FNV-1a of the text
  for (let i = 0; i < text.length; i++) state = Math.imul(state ^ text.charCodeAt(i), 16777619);
}
function random() {
  let t = (state = (state + 0x6d2b79f5) | 0);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function shuffled(items) {
  const a = items.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

// All k-card combinations of `items`, passed one by one to `emit` (which returns false to stop).
function combinations(items, k, emit, start = 0, chosen = []) {
  if (chosen.length === k) return emit(chosen.slice());
  for (let i = start; i < items.length; i++) {
    chosen.push(items[i]);
    const more = combinations(items, k, emit, i + 1, chosen);
    chosen.pop();
    if (more === false) return false;
  }
  return true;
}

// P-5: number of separate pairs, sum over ranks of floor(count / 2).
function pairCount(cards) {
  let n = 0;
  for (const r of RANKS) n += Math.floor(cards.filter((c) => c[0] === r).length / 2);
  return n;
}

// Collects options until LIMIT is reached; `add` returns false once full.
function collector() {
  const options = [];
  const add = (o) => { if (options.length < LIMIT) options.push(o); return options.length < LIMIT; };
  return { options, add };
}

function attackOptions(legal) {
  const { options, add } = collector();
  const hands = [[shuffled(legal.hand), false]];
  if (legal.exchange) {
    // P-4: the six of trumps out, the trump card in
    const swapped = legal.hand.filter((c) => c !== legal.exchange.six);
    hands.push([shuffled(swapped.concat([legal.exchange.trump_card])), true]);
  }
  for (const [hand, exchange] of hands) {
    if (legal.same_rank) {
      // podkidnoy K-4: one rank, at most max(sizes) cards
      for (const r of RANKS) {
        const same = hand.filter((c) => c[0] === r);
        for (let k = 1; k <= Math.min(same.length, Math.max(...legal.sizes)); k++) {
          combinations(same, k, (g) => add([g, exchange]));
        }
      }
    } else {
      // prostoy P-5: 1 card, a pair + 1, or two pairs + 1
      for (const k of legal.sizes) {
        const legalGroup = (g) => k === 1 || pairCount(g) >= (k - 1) / 2;
        combinations(hand, k, (g) => (legalGroup(g) ? add([g, exchange]) : true));
      }
    }
  }
  return options;
}

// Ways to beat attack cards with distinct beaters; partial: cards may stay unbeaten (P-8).
function matchings(toBeat, used, partial, prefix, emit) {
  if (toBeat.length === 0) return emit(prefix.slice());
  const [first, ...rest] = toBeat;
  if (partial && matchings(rest, used, partial, prefix, emit) === false) return false;
  for (const b of shuffled(first.beaters)) {
    if (used.has(b)) continue;
    used.add(b);
    prefix.push([first.attack, b]);
    const more = matchings(rest, used, partial, prefix, emit);
    prefix.pop();
    used.delete(b);
    if (more === false) return false;
  }
  return true;
}

const pick = (options) => options[Math.floor(random() * options.length)];

function answer(req) {
  const legal = req.legal;
  const reply = { type: "answer", id: req.id };
  if (req.decision === "attack") {
    const [cards, exchange] = pick(attackOptions(legal));
    return Object.assign(reply, { action: "attack", cards, exchange });
  }
  if (req.decision === "defend") {
    const { options, add } = collector();
    if (legal.can_take) add(null); // null stands for "take"
    const partial = !legal.must_cover_all;
    matchings(legal.to_beat, new Set(), partial, [], (p) => add([p, false]));
    if (legal.exchange) {
      matchings(legal.to_beat_after_exchange, new Set(), partial, [], (p) => add([p, true]));
    }
    const choice = pick(options);
    if (choice === null) return Object.assign(reply, { action: "take" });
    return Object.assign(reply, { action: "defend", pairs: choice[0], exchange: choice[1] });
  }
  // add: any 1..room cards of addable, or pass
  const { options, add } = collector();
  add(null);
  const addable = shuffled(legal.addable);
  for (let k = 1; k <= Math.min(legal.room, addable.length); k++) combinations(addable, k, add);
  const choice = pick(options);
  if (choice === null) return Object.assign(reply, { action: "pass" });
  return Object.assign(reply, { action: "add", cards: choice });
}

// process.stdout.write on a pipe is synchronous on Linux: each line is sent at once.
function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.type === "hello") send({ type: "hello", protocol: 1, name: "random-js", version: "1.0" });
  else if (msg.type === "event" && msg.event.kind === "dealt_hand") seed(line);
  else if (msg.type === "request") send(answer(msg));
  else if (msg.type === "match_end") process.exit(0); // the match is over: exit at once
  // game_start, other events, error, game_end: nothing to do
});
