"use strict";
// The game viewer: one copy per folder, for every game page in it.
//
// A page holds its game as compact data (replay/src/html/data.rs documents the encoding). decode()
// turns it back into the view of every step, field for field the StepView that the text and the
// terminal viewers show (replay/src/view.rs; tests/viewer_data.rs compares the two): the first
// step's state, then each step's events moving cards between hands, table, stock and discard
// (bookkeeping only: the rules engine already decided everything). render() draws a view.
(function () {
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const SUIT_ORDER = "CDHS";
  const RANK_ORDER = "6789TJQKA";
  const KINDS = { a: "attack", d: "defend", "+": "add" };
  const DATA_VERSION = 4;

  // ---- cards ----
  function split2(s) {
    const out = [];
    for (let i = 0; i + 1 < s.length; i += 2) out.push(s.substr(i, 2));
    return out;
  }
  function index(c) { return SUIT_ORDER.indexOf(c[1]) * 9 + RANK_ORDER.indexOf(c[0]); }
  // The order of a card set (suit, then rank): the order the engine lists cards in.
  function setOrder(cards) { return cards.slice().sort((a, b) => index(a) - index(b)); }
  // A hand for display: by suit, trumps last, then by rank (view.rs: sorted_hand).
  function handOrder(cards, trump) {
    const key = (c) => (c[1] === trump ? 100 : 0) + index(c);
    return cards.slice().sort((a, b) => key(a) - key(b));
  }
  function rankText(c) { return c[0] === "T" ? "10" : c[0]; }
  function pretty(c) { return rankText(c) + SUITS[c[1]]; }
  function prettyList(cards) { return cards.length ? cards.map(pretty).join(" ") : "none"; }
  function without(cards, gone) { return cards.filter((c) => gone.indexOf(c) < 0); }

  // ---- words (view.rs: event_text, move_text, legal_text) ----
  function parseEvent(code) {
    let to = null;
    if (code[0] === "@") { to = +code[1]; code = code.substr(2); }
    const k = code[0];
    const e = { k: k, to: to, seat: +code[1] };
    switch (k) {
      case "D": e.dealer = +code[1]; e.handSize = +code[2]; e.trump = code.substr(3, 2); e.stock = parseInt(code.substr(5), 10); break;
      case "F": e.shown = code.length > 2 ? code.substr(2, 2) : null; break;
      case "T": e.attacker = +code[1]; e.defender = +code[2]; e.limit = code.length > 3 ? parseInt(code.substr(3), 10) : null; break;
      case "X": e.six = code.substr(2, 2); e.trumpCard = code.substr(4, 2); break;
      case "B": e.pairs = split2(code.substr(2)).reduce((acc, c, i) => { if (i % 2) acc[acc.length - 1].push(c); else acc.push([c]); return acc; }, []); break;
      case "W": e.count = +code[2]; e.trumpCard = code.length > 3 ? code.substr(3, 2) : null; break;
      case "C": e.cards = split2(code.substr(1)); break;
      case "G": e.loser = code[1] === "-" ? null : +code[1]; break;
      default: e.cards = split2(code.substr(2));
    }
    return e;
  }
  function pairsText(pairs) { return pairs.map((p) => pretty(p[0]) + " with " + pretty(p[1])).join(", "); }
  function eventText(e, variant) {
    const s = "seat " + e.seat;
    switch (e.k) {
      case "D": return "seat " + e.dealer + " deals " + e.handSize + " cards each; the trump card is " + pretty(e.trump) + "; " + e.stock + " cards in the stock";
      case "H": return s + " is dealt " + prettyList(e.cards);
      case "F": return e.shown ? s + " attacks first, showing the lowest trump " + pretty(e.shown) + " (K-2)" : s + " attacks first";
      case "T": return variant === "podkidnoy" && e.limit !== null
        ? "new round: seat " + e.attacker + " attacks seat " + e.defender + " (at most " + e.limit + " attack cards)"
        : "new turn: seat " + e.attacker + " attacks seat " + e.defender;
      case "X": return s + " exchanges " + pretty(e.six) + " for the trump card " + pretty(e.trumpCard) + " (P-4)";
      case "A": return s + " attacks with " + prettyList(e.cards);
      case "B": return e.pairs.length ? s + " beats " + pairsText(e.pairs) : s + " beats nothing";
      case "K": return s + " takes";
      case "+": return s + " adds " + prettyList(e.cards);
      case "P": return s + " passes";
      case "U": return s + " picks up " + prettyList(e.cards);
      case "C": return prettyList(e.cards) + " go to the discard";
      case "W": {
        const cards = e.count === 1 ? "card" : "cards";
        return e.trumpCard ? s + " draws " + e.count + " " + cards + ", the last one the trump card " + pretty(e.trumpCard)
          : s + " draws " + e.count + " " + cards;
      }
      case "w": return s + " draws " + prettyList(e.cards);
      case "O": return s + " is out: no cards left and the stock is empty (C-8)";
      case "G": return e.loser !== null ? "game over: seat " + e.loser + " is the durak" : "game over: a draw";
    }
    return "?";
  }
  function parseLegal(code) {
    const p = code.split("|");
    switch (p[0]) {
      case "a": return { kind: "attack", sizes: p[1].split("").map(Number), sameRank: p[2] === "r", exchange: p[3] ? [p[3].substr(0, 2), p[3].substr(2, 2)] : null };
      case "d": return {
        kind: "defend", exchange: p[1] ? [p[1].substr(0, 2), p[1].substr(2, 2)] : null,
        toBeat: p[2] ? p[2].split(",").map((t) => ({ attack: t.substr(0, 2), beaters: split2(t.substr(2)) })) : [],
      };
      default: return { kind: "add", room: +p[1], addable: split2(p[2]) };
    }
  }
  function orList(v) {
    if (!v.length) return "no";
    if (v.length === 1) return String(v[0]);
    return v.slice(0, -1).join(", ") + " or " + v[v.length - 1];
  }
  function legalText(l, variant, hand, afterTake) {
    const exchange = l.exchange ? "; may first exchange " + pretty(l.exchange[0]) + " for the trump card " + pretty(l.exchange[1]) + " (P-4)" : "";
    if (l.kind === "attack") {
      const cards = l.sizes.length === 1 && l.sizes[0] === 1 ? "card" : "cards";
      return "attack with " + orList(l.sizes) + " " + cards + (l.sameRank ? " of one rank" : "") + " from " + prettyList(setOrder(hand)) + exchange;
    }
    if (l.kind === "defend") {
      const each = l.toBeat.map((t) => pretty(t.attack) + " by " + (t.beaters.length ? prettyList(t.beaters) : "nothing")).join("; ");
      return variant === "podkidnoy" ? "cover every card (" + each + ") or take" + exchange
        : "beat any of the attack cards (" + each + "), or none" + exchange;
    }
    const after = afterTake ? " (the defender takes)" : "";
    const n = Math.min(l.room, l.addable.length);
    if (n === 0) return "pass" + after;
    if (n === 1 && l.addable.length === 1) return "add " + prettyList(l.addable) + ", or pass" + after;
    if (n === 1) return "add one of " + prettyList(l.addable) + ", or pass" + after;
    return "add up to " + n + " of " + prettyList(l.addable) + ", or pass" + after;
  }
  // The legal choices as the protocol writes cards (for bot authors).
  function legalCodes(l, hand) {
    if (l.kind === "attack") return "hand " + setOrder(hand).join(" ") + " · sizes " + l.sizes.join(",") + (l.exchange ? " · exchange " + l.exchange.join("→") : "");
    if (l.kind === "defend") return l.toBeat.map((t) => t.attack + ": " + (t.beaters.length ? t.beaters.join(" ") : "—")).join(" · ") + (l.exchange ? " · exchange " + l.exchange.join("→") : "");
    return "addable " + (l.addable.join(" ") || "—") + " · room " + l.room;
  }
  function parseMove(code) {
    const m = { action: { a: "attack", d: "defend", "+": "add", t: "take", p: "pass" }[code[0]], exchange: code[1] === "x" };
    const cards = split2(code.substr(m.exchange ? 2 : 1));
    if (m.action === "defend") m.pairs = cards.reduce((acc, c, i) => { if (i % 2) acc[acc.length - 1].push(c); else acc.push([c]); return acc; }, []);
    else m.cards = cards;
    return m;
  }
  function moveText(m, legal) {
    let ex = "";
    if (m.exchange) ex = legal && legal.exchange ? "exchange " + pretty(legal.exchange[0]) + " for " + pretty(legal.exchange[1]) + ", then " : "exchange the trump six, then ";
    switch (m.action) {
      case "attack": return ex + "attack with " + prettyList(m.cards);
      case "defend": return m.pairs.length ? ex + "beat " + pairsText(m.pairs) : ex + "beat nothing";
      case "take": return "take";
      case "add": return "add " + prettyList(m.cards);
      default: return "pass";
    }
  }
  // The answer as a bot sends it (docs/PROTOCOL.md).
  function moveJson(m, id) {
    const o = { type: "answer", id: id, action: m.action };
    if (m.cards && (m.action === "attack" || m.action === "add")) o.cards = m.cards;
    if (m.pairs) o.pairs = m.pairs;
    if (m.exchange) o.exchange = true;
    return JSON.stringify(o);
  }

  // ---- decoding: the compact data to every step's state ----
  // A step's string (data.rs: StepData), or [string, rest], as an object; lines and requests
  // made absolute. Once:
  // decode() may be called again on the same data (a view per seat).
  function unpack(D) {
    if (D.unpacked) return D;
    D.unpacked = true;
    let line = 0, id = 0, limits = null, prev = null;
    D.steps = D.steps.map((x) => {
      const rest = Array.isArray(x) ? x[1] : {};
      const a = (Array.isArray(x) ? x[0] : x).split(";");
      line += +a[0];
      // The events; those the previous step's answer made first are put back from it.
      const raw = a[1] || "";
      let e = raw[0] === "!" ? raw.substr(1) : raw;
      e = e ? e.split(" ") : [];
      if (raw[0] !== "!" && prev && prev.m && prev.d) e = moveEvents(+prev.d[0], prev.m, prev.g).concat(e);
      const s = { l: line, e: e, d: a[2] || null, g: a[3] || null, m: a[4] || null, t: a[6] ? fmtMs(+a[6]) : undefined,
        rf: rest.rf, f: rest.f, n: rest.n, c: rest.c };
      const q = a[5];
      if (q === "+") { id += 1; s.q = [id].concat(limits || []); }
      else if (q) { s.q = q.split(",").map(Number); id = s.q[0]; limits = s.q.length > 1 ? s.q.slice(1) : null; }
      // A stderr text: [seat, text], after this step's request, or [seat, text, where].
      s.se = (rest.se || []).map((x) => ({ seat: x[0], when: stderrWhen(x.length > 2 ? x[2] : s.q[0]), text: x[1] }));
      prev = s;
      return s;
    });
    return D;
  }
  // The events a move makes first (data.rs: move_events): the exchange, then its own event.
  function moveEvents(seat, m, legal) {
    const out = [];
    const x = m[1] === "x";
    if (x) { const l = parseLegal(legal); out.push("X" + seat + l.exchange[0] + l.exchange[1]); }
    const cards = m.substr(x ? 2 : 1);
    out.push({ a: "A", d: "B", "+": "+", t: "K", p: "P" }[m[0]] + seat + (m[0] === "t" || m[0] === "p" ? "" : cards));
    return out;
  }
  // A time in ms as view.rs's fmt_ms writes it (the data holds the rounded figure).
  function fmtMs(ms) { return ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(3); }
  function stderrWhen(at) {
    if (at === "s") return "before its first request";
    if (at === "e") return "after the game";
    if (at === "") return "";
    return "after request " + at;
  }
  // Events as the engine logged them: a Y is a public drew and the drawer's own drew_cards.
  function expand(codes) {
    const out = [];
    for (const c of codes) {
      if (c[0] !== "Y") { out.push(parseEvent(c)); continue; }
      const hat = c.indexOf("^");
      const cards = split2(c.substring(2, hat < 0 ? c.length : hat));
      const seat = +c[1];
      out.push({ k: "W", to: null, seat: seat, count: cards.length, trumpCard: hat < 0 ? null : c.substr(hat + 1, 2) });
      out.push({ k: "w", to: seat, seat: seat, cards: cards });
    }
    return out;
  }
  function decode(D) {
    if (D.v !== DATA_VERSION) throw new Error("this page's data is of version " + D.v + ", the viewer reads version " + DATA_VERSION + ": write the page again with this durak");
    unpack(D);
    const n = D.players;
    const I = D.init;
    let st = {
      hands: I.hands.map(split2), stock: split2(I.stock), trumpCard: I.trump_card, trumpInStock: I.trump_in_stock,
      discard: split2(I.discard), table: I.table.map((p) => ({ attack: p.substr(0, 2), defence: p.length > 2 ? p.substr(2, 2) : null })),
      attacker: I.attacker, defender: I.defender, limit: I.limit, taking: I.taking, active: I.active.slice(),
      known: I.known.map(split2),
    };
    const trump = I.trump_suit;
    const states = [];
    D.steps.forEach((step, i) => {
      const events = expand(step.e);
      if (i > 0) {
        st = {
          hands: st.hands.map((h) => h.slice()), stock: st.stock.slice(), trumpCard: st.trumpCard, trumpInStock: st.trumpInStock,
          discard: st.discard.slice(), table: st.table.map((p) => ({ attack: p.attack, defence: p.defence })),
          attacker: st.attacker, defender: st.defender, limit: st.limit, taking: st.taking, active: st.active.slice(), known: st.known.slice(),
        };
        for (const e of events) apply(st, e, trump);
      }
      states.push({ st: st, events: events });
    });
    return states;
  }
  // One event on the state. The publicly known cards (I-1, rules/src/game.rs) follow it too: a
  // card played leaves them, cards picked up and the trump card (drawn or exchanged) join them.
  function apply(st, e, trump) {
    const h = st.hands;
    const k = st.known;
    switch (e.k) {
      case "H": h[e.seat] = handOrder(e.cards, trump); break;
      case "T": st.attacker = e.attacker; st.defender = e.defender; st.limit = e.limit; st.taking = false; break;
      case "X":
        h[e.seat] = handOrder(without(h[e.seat], [e.six]).concat([e.trumpCard]), trump);
        k[e.seat] = handOrder(without(k[e.seat], [e.six, e.trumpCard]).concat([e.trumpCard]), trump);
        st.trumpCard = e.six;
        if (st.stock.length) st.stock[st.stock.length - 1] = e.six;
        break;
      case "A": case "+":
        h[e.seat] = without(h[e.seat], e.cards);
        k[e.seat] = without(k[e.seat], e.cards);
        for (const c of e.cards) st.table.push({ attack: c, defence: null });
        break;
      case "B":
        for (const p of e.pairs) {
          const t = st.table.find((x) => x.attack === p[0]);
          if (t) t.defence = p[1];
          h[e.seat] = without(h[e.seat], [p[1]]);
          k[e.seat] = without(k[e.seat], [p[1]]);
        }
        break;
      case "K": st.taking = true; break;
      case "U":
        h[e.seat] = handOrder(h[e.seat].concat(e.cards), trump);
        k[e.seat] = handOrder(without(k[e.seat], e.cards).concat(e.cards), trump);
        st.table = []; st.taking = false;
        break;
      case "C": st.discard = setOrder(st.discard.concat(e.cards)); st.table = []; st.taking = false; break;
      case "W":
        st.stock = st.stock.slice(e.count);
        if (e.trumpCard) { st.trumpInStock = false; k[e.seat] = handOrder(without(k[e.seat], [e.trumpCard]).concat([e.trumpCard]), trump); }
        break;
      case "w": h[e.seat] = handOrder(h[e.seat].concat(e.cards), trump); break;
      case "O": st.active[e.seat] = false; break;
    }
  }

  // The view of step i for `viewer` (null: every hand; else a seat), as view.rs's StepView.
  function stepView(D, states, i, viewer) {
    const step = D.steps[i];
    const st = states[i].st;
    const last = i === D.steps.length - 1;
    const sees = (s) => viewer === null || viewer === s;
    const seatName = (s) => D.seat_names[s];
    let decision = null;
    if (step.d) {
      decision = { seat: +step.d[0], kind: KINDS[step.d[1]], after_take: step.d.indexOf("t", 2) > 0, forced: step.d.indexOf("f", 2) > 0 };
    }
    const legal = step.g ? parseLegal(step.g) : null;
    const move = step.m ? parseMove(step.m) : null;
    let title;
    if (decision) title = seatName(decision.seat) + " to " + decision.kind + (decision.after_take ? " after the take" : "");
    else if (last && !D.started) title = "the game did not start";
    else title = "the end of the game";
    let answer = null;
    if (move) answer = moveText(move, legal) + (decision && decision.forced ? " (forced: the only legal answer, played by the referee, R-1)" : "");
    let timing = null;
    if (step.q) {
      const limits = step.q.length > 1 ? " (limit " + step.q[1] + " ms, bank " + step.q[2] + " ms)" : "";
      timing = step.t !== undefined ? "answered in " + step.t + " ms" + (step.c || "") + " to request " + step.q[0] + limits : "no answer to request " + step.q[0] + limits;
    }
    const faults = step.f || [];
    const faulted = faults.map((f) => f.seat);
    const seats = [];
    for (let s = 0; s < D.players; s++) {
      const active = st.active[s];
      let role = null;
      if (active && !last) role = s === st.attacker ? "attacker" : s === st.defender ? "defender" : null;
      seats.push({
        seat: s, name: D.names[s], hand: sees(s) ? st.hands[s].slice() : null, count: st.hands[s].length,
        known: st.known[s].slice(), active: active, role: role, to_act: !!decision && decision.seat === s,
        faulted: faulted.indexOf(s) >= 0, loser: last && D.loser === s,
      });
    }
    return {
      step: i + 1, steps: D.steps.length, line: step.l, viewer: viewer, title: title, decision: decision,
      legal: legal && decision && !decision.forced && sees(decision.seat) ? legalText(legal, D.variant, st.hands[decision.seat], decision.after_take) : null,
      legal_codes: legal && decision && !decision.forced && sees(decision.seat) ? legalCodes(legal, st.hands[decision.seat]) : null,
      answer: answer,
      answer_line: move && decision && !decision.forced && step.q ? moveJson(move, step.q[0]) : null,
      timing: timing,
      refused: step.rf ? { line: decision && sees(decision.seat) ? step.rf.line : null, reason: step.rf.reason } : null,
      faults: faults,
      events: states[i].events.filter((e) => e.to === null || sees(e.to)).map((e) => ({ text: eventText(e, D.variant), private_to: e.to })),
      table: st.table.map((p) => ({ attack: p.attack, defence: p.defence })),
      seats: seats, stock: st.stock.length, stock_cards: viewer === null ? st.stock.slice() : null,
      trump_card: st.trumpCard, trump_suit: D.init.trump_suit, trump_card_in_stock: st.trumpInStock,
      discard: st.discard.slice(), attacker: st.attacker, defender: st.defender, limit: st.limit, taking: st.taking,
      result: last ? D.result : null, note: step.n === undefined ? null : step.n,
      stderr: (step.se || []).filter((x) => sees(x.seat)),
      // For the page only (not in StepView).
      extra: { round: states[i].events.some((e) => e.k === "T") },
    };
  }

  // ---- the endgame's values (issue 26; data.rs: endgame_codes) ----
  const VALUES = { w: "win", d: "draw", l: "loss", "?": null };
  const VALUE_RANK = { win: 1, draw: 0, loss: -1 };
  // Per step: null outside the solved part, else the seat deciding, its value before and after
  // the move (null: not solved within the budget), whether the move was a blunder (the value
  // fell) and, for a blunder, a few of the best choices in words.
  function endgame(D) {
    unpack(D);
    const out = D.steps.map(() => null);
    for (const code of D.eg || []) {
      const parts = code.split("|");
      const m = /^(\d+)([wdl?])([wdl?])$/.exec(parts[0]);
      if (!m || +m[1] >= D.steps.length) continue;
      const i = +m[1];
      const step = D.steps[i];
      const value = VALUES[m[2]], after = VALUES[m[3]];
      const legal = step.g ? parseLegal(step.g) : null;
      out[i] = {
        seat: step.d ? +step.d[0] : null, value: value, value_after: after,
        blunder: value !== null && after !== null && VALUE_RANK[after] < VALUE_RANK[value],
        best: parts.slice(1).map((c) => moveText(parseMove(c), legal)),
      };
    }
    return out;
  }

  // For node (tests/viewer_data.rs): the decoder alone.
  if (typeof module === "object" && module.exports) {
    module.exports = {
      views: function (D, viewer) {
        const states = decode(D);
        return D.steps.map((_, i) => { const v = stepView(D, states, i, viewer); delete v.extra; return v; });
      },
      endgame: endgame,
    };
  }
  if (typeof document === "undefined") return;

  // ---- the page ----
  const $ = (id) => document.getElementById(id);
  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }
  function cardHtml(code, trump, extra) {
    const cls = ["card"];
    if (code[1] === "D" || code[1] === "H") cls.push("red");
    if (code[1] === trump) cls.push("trump");
    if (extra) cls.push(extra);
    return '<span class="' + cls.join(" ") + '" data-card="' + esc(code) + '" title="' + pretty(code) + " (" + code + ')"><b>' +
      rankText(code) + "</b><i>" + SUITS[code[1]] + "</i></span>";
  }
  function backs(count) {
    let s = "";
    for (let i = 0; i < count; i++) s += '<span class="card back"></span>';
    return s;
  }
  function badge(text, cls) { return '<span class="badge ' + cls + '">' + esc(text) + "</span>"; }
  function row(label, html) { return '<div class="row"><span class="label">' + esc(label) + "</span><div>" + html + "</div></div>"; }

  // Seats around the table, clockwise from the bottom (the seat whose view it is, or seat 0):
  // the next seat (the one a player attacks) sits to its left.
  const SLOTS = { 2: ["b", "t"], 3: ["b", "tl", "tr"], 4: ["b", "l", "t", "r"], 5: ["b", "l", "tl", "tr", "r"], 6: ["b", "l", "tl", "t", "tr", "r"] };

  let D, states, total, step = 0, view = 0, timer = null, speed = 1000, values = [];
  const faultSteps = [];
  const roundSteps = [];
  const blunderSteps = [];

  function seatHtml(v, s) {
    const cls = ["seat", "slot-" + s.slot];
    if (s.to_act) cls.push("to-act");
    if (!s.active) cls.push("out");
    if (s.faulted) cls.push("faulted");
    if (s.loser) cls.push("loser");
    if (v.viewer === s.seat) cls.push("viewer");
    let head = '<span class="name">seat ' + s.seat + " · " + esc(s.name) + "</span>";
    if (s.role) head += badge(s.role, s.role);
    if (s.to_act) head += badge("to act", "act");
    if (!s.active && !s.loser) head += badge("out", "out");
    if (s.faulted) head += badge("fault", "fault");
    if (s.loser) head += badge("durak", "durak");
    let cards;
    if (s.count === 0) cards = '<span class="empty">no cards</span>';
    else if (s.hand) cards = s.hand.map((c) => cardHtml(c, v.trump_suit, s.known.indexOf(c) >= 0 ? "known" : "")).join("");
    else cards = s.known.map((c) => cardHtml(c, v.trump_suit, "known")).join("") + backs(s.count - s.known.length);
    return '<div class="' + cls.join(" ") + '" data-seat="' + s.seat + '"><div class="head">' + head +
      '<span class="count">' + s.count + (s.count === 1 ? " card" : " cards") + "</span></div>" +
      '<div class="hand' + (s.hand ? "" : " hidden") + '">' + cards + "</div></div>";
  }

  function feltHtml(v) {
    const last = v.result !== null;
    let stock = '<div class="pile stock" title="the stock: ' + v.stock + ' cards">';
    if (v.trump_card_in_stock) stock += '<span class="under">' + cardHtml(v.trump_card, v.trump_suit) + "</span>";
    if (v.stock > 1 || (v.stock === 1 && !v.trump_card_in_stock)) stock += '<span class="top">' + backs(1) + "</span>";
    stock += v.stock ? '<span class="pile-count">' + v.stock + "</span></div>" : '<span class="empty">no stock</span></div>';
    const trumpRed = v.trump_suit === "D" || v.trump_suit === "H";
    stock += '<div class="caption">stock · trump <span class="suit' + (trumpRed ? " red" : "") + '">' + SUITS[v.trump_suit] + "</span>" +
      (v.trump_card_in_stock ? "" : " (" + pretty(v.trump_card) + " drawn)") + "</div>";
    let table = '<div class="pairs">';
    if (!v.table.length) table += '<span class="empty">' + (last ? "" : "the table is empty") + "</span>";
    for (const p of v.table) {
      table += '<div class="pair">' + cardHtml(p.attack, v.trump_suit, p.defence ? "attack" : "attack unbeaten") +
        (p.defence ? cardHtml(p.defence, v.trump_suit, "defence") : "") + "</div>";
    }
    table += "</div>";
    if (!last) {
      const info = ["seat " + v.attacker + " attacks seat " + v.defender];
      if (v.limit !== null) info.push("at most " + v.limit + " attack cards");
      if (v.taking) info.push("the defender takes");
      table += '<div class="caption">' + esc(info.join(" · ")) + "</div>";
    }
    let discard = '<div class="pile discard">' + (v.discard.length ? backs(Math.min(3, Math.ceil(v.discard.length / 6))) : "") +
      '<span class="pile-count">' + v.discard.length + "</span></div>";
    discard += '<details class="caption"><summary>discard · ' + v.discard.length + " cards</summary>" +
      (v.discard.length ? '<div class="cards-small">' + v.discard.map((c) => cardHtml(c, v.trump_suit)).join("") + "</div>" : "") + "</details>";
    let order = "";
    if (v.stock_cards && v.stock_cards.length) {
      order = '<details class="stock-order"><summary>stock order (next card first; only the full view knows it)</summary><div class="cards-small">' +
        v.stock_cards.map((c) => cardHtml(c, v.trump_suit)).join("") + "</div></details>";
    }
    const legend = '<div class="legend"><span>' + cardHtml("6" + v.trump_suit, v.trump_suit) + " trump</span><span>" +
      cardHtml("AS", "", "known") + " publicly known in that hand (picked up, shown, the trump card)</span><span>" +
      cardHtml("7H", "", "unbeaten") + " not beaten yet</span><span>" + backs(1) + " hidden</span></div>";
    return '<div class="felt-row"><div class="felt-stock">' + stock + '</div><div class="felt-table">' + table +
      '</div><div class="felt-discard">' + discard + "</div></div>" + order + legend;
  }

  // The value of the step's decision for the seat deciding, with perfect play from there.
  function valueHtml(e) {
    const word = (x) => x === null ? "not solved" : x;
    let html = '<span class="value ' + (e.value || "unsolved") + '">' + esc(word(e.value)) + "</span> → " +
      '<span class="value ' + (e.value_after || "unsolved") + '">' + esc(word(e.value_after)) + "</span>" +
      " for seat " + e.seat + " · " + esc(D.names[e.seat]);
    if (e.blunder) html += badge("blunder", "blunder");
    if (e.best.length) html += '<div class="best">best: ' + e.best.map(esc).join(" | ") + "</div>";
    return row("value", html + '<div class="value-note">the endgame\'s exact value before and after the move (stock empty, every card known)</div>');
  }

  function decisionHtml(v) {
    let html = "";
    if (v.legal) html += row("legal", esc(v.legal) + (v.legal_codes ? '<code class="codes">' + esc(v.legal_codes) + "</code>" : ""));
    if (v.answer) html += row(v.decision && v.decision.forced ? "forced" : "answer", '<span class="answer">' + esc(v.answer) + "</span>" +
      (v.answer_line ? '<code class="codes">' + esc(v.answer_line) + "</code>" : ""));
    if (v.timing) html += row("time", esc(v.timing));
    if (values[step]) html += valueHtml(values[step]);
    if (v.refused) {
      const line = v.refused.line !== null ? '<code class="raw">' + esc(v.refused.line) + "</code>" : "<em>(the line is private to the bot)</em>";
      html += row("refused", line + "<div>" + esc(v.refused.reason) + "</div>");
    }
    for (const f of v.faults) html += '<div class="box fault-box">⚠ FAULT — ' + esc(f.text) + "</div>";
    if (v.result) html += '<div class="box result-box">' + esc(v.result) + "</div>";
    if (v.note) html += '<div class="box note-box">The replay differs from the re-simulation here: ' + esc(v.note) + "</div>";
    for (const e of v.stderr) {
      html += row("stderr", '<div class="when">seat ' + e.seat + " · " + esc(D.names[e.seat]) + (e.when ? " · " + esc(e.when) : "") +
        '</div><pre class="stderr">' + esc(e.text) + "</pre>");
    }
    return html || '<span class="empty">nothing to decide</span>';
  }

  function eventsHtml(v) {
    if (!v.events.length) return '<h2>Since the previous step</h2><span class="empty">nothing</span>';
    return "<h2>Since the previous step</h2><ul>" + v.events.map((e) =>
      "<li" + (e.private_to !== null ? ' class="private"' : "") + ">" + esc(e.text) +
      (e.private_to !== null ? ' <span class="private-tag">only seat ' + e.private_to + " sees this</span>" : "") + "</li>").join("") + "</ul>";
  }

  function render() {
    const viewer = view === 0 ? null : view - 1;
    const v = stepView(D, states, step, viewer);
    const bottom = viewer === null ? 0 : viewer;
    const slots = SLOTS[D.players] || SLOTS[6];
    const seats = v.seats.map((s) => Object.assign({ slot: slots[(s.seat - bottom + D.players) % D.players] }, s));
    // Narrow screens stack the seats: the others clockwise, the table, the bottom seat.
    const order = seats.slice(bottom + 1).concat(seats.slice(0, bottom)).filter((s) => s.seat !== bottom);
    const others = order.map((s) => seatHtml(v, s)).join("");
    $("stage").className = "n" + D.players;
    $("stage").innerHTML = others + '<section id="felt">' + feltHtml(v) + "</section>" + seatHtml(v, seats[bottom]);
    $("title-bar").innerHTML = '<span class="title">' + esc(v.title) + '</span><span class="line">step ' + v.step +
      " · replay line " + v.line + "</span>" + v.faults.map((f) => '<span class="fault-flag">⚠ ' + esc(f.short) + "</span>").join("") +
      (values[step] && values[step].blunder ? '<span class="blunder-flag">✗ blunder</span>' : "");
    const d = $("decision");
    d.innerHTML = decisionHtml(v);
    d.className = "panel" + (v.faults.length ? " has-fault" : "");
    $("events").innerHTML = eventsHtml(v);
    $("status").innerHTML = "Step " + (step + 1) + " / " + total + (v.faults.length ? ' <span class="fault-mark">⚠</span>' : "");
    $("slider").value = String(step + 1);
    $("view").value = String(view);
    $("first").disabled = $("prev").disabled = step === 0;
    $("last").disabled = $("next").disabled = step === total - 1;
    $("next-fault").disabled = !faultSteps.some((f) => f > step);
    $("next-round").disabled = !roundSteps.some((r) => r > step);
    if (blunderSteps.length) {
      $("next-blunder").disabled = !blunderSteps.some((b) => b > step);
      $("prev-blunder").disabled = !blunderSteps.some((b) => b < step);
    }
    $("play").textContent = timer ? "❚❚" : "▶";
    $("play").title = timer ? "pause (p)" : "play the game (p)";
    document.body.dataset.step = String(step + 1);
    document.body.dataset.view = viewer === null ? "full" : String(viewer);
    document.body.dataset.playing = timer ? "yes" : "no";
    document.body.dataset.value = values[step] ? values[step].value || "unsolved" : "";
    const hash = "#step=" + (step + 1) + (viewer === null ? "" : "&seat=" + viewer);
    if (location.hash !== hash) {
      try { history.replaceState(null, "", hash); } catch (e) { /* some viewers forbid it; harmless */ }
    }
  }

  function go(i) { step = Math.max(0, Math.min(total - 1, i)); render(); }
  function stop() { if (timer) { clearInterval(timer); timer = null; } }
  function play() {
    if (timer) { stop(); render(); return; }
    if (step >= total - 1) step = 0;
    timer = setInterval(() => {
      if (step >= total - 1) { stop(); render(); return; }
      go(step + 1);
      if (step >= total - 1) { stop(); render(); }
    }, speed);
    render();
  }
  function jump(list, forward) {
    const target = forward ? list.find((x) => x > step) : list.slice().reverse().find((x) => x < step);
    if (target !== undefined) go(target);
  }

  function readHash() {
    const p = new URLSearchParams(location.hash.replace(/^#/, ""));
    const s = parseInt(p.get("step"), 10);
    if (!isNaN(s)) step = Math.max(0, Math.min(total - 1, s - 1));
    const seat = p.get("seat");
    const n = parseInt(seat, 10);
    view = seat === null || seat === "full" || isNaN(n) || n < 0 || n >= D.players ? 0 : n + 1;
    const sp = parseInt(p.get("speed"), 10);
    if (!isNaN(sp) && sp >= 50) speed = sp;
    return p.get("press");
  }

  function onKey(e) {
    const t = e.target;
    if (t && (t.id === "slider" || t.tagName === "SELECT")) return; // their own keys
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    switch (e.key) {
      case "ArrowRight": stop(); go(step + 1); break;
      case "ArrowLeft": stop(); go(step - 1); break;
      case "Home": stop(); go(0); break;
      case "End": stop(); go(total - 1); break;
      case "PageDown": stop(); go(step + 10); break;
      case "PageUp": stop(); go(step - 10); break;
      case "p": case "P": play(); break;
      case "f": stop(); jump(faultSteps, true); break;
      case "F": stop(); jump(faultSteps, false); break;
      case "r": stop(); jump(roundSteps, true); break;
      case "R": stop(); jump(roundSteps, false); break;
      case "b": stop(); jump(blunderSteps, true); break;
      case "B": stop(); jump(blunderSteps, false); break;
      case "v": view = (view + 1) % (D.players + 1); render(); break;
      default: return;
    }
    if (e.preventDefault) e.preventDefault();
  }

  // ---- Play my bot (the judge service's /play/ID): one seat's view, live ----
  // The page's #play-data holds the seat's last observation (the request's: its own hand, the
  // counts, the publicly known cards, I-1/I-2) and the events in words; drawn with the same
  // seats and felt as a replay's step, the person's seat at the bottom.
  function playView(P) {
    const o = P.observation;
    const n = o.players;
    const over = P.state === "over";
    const seats = [];
    for (let s = 0; s < n; s++) {
      seats.push({
        seat: s, name: P.names[s], hand: s === o.seat ? handOrder(o.hand, o.trump_suit) : null, count: o.hand_counts[s],
        known: (o.known[s] || []).slice(), active: o.active[s], role: over ? null : s === o.attacker ? "attacker" : s === o.defender ? "defender" : null,
        to_act: !over && (P.state === "your_move" ? s === o.seat : s !== o.seat), faulted: false, loser: false,
      });
    }
    return {
      viewer: o.seat, seats: seats, table: o.table.map((p) => ({ attack: p.attack, defence: p.defence || null })),
      stock: o.stock, stock_cards: null, trump_card: o.trump_card, trump_suit: o.trump_suit,
      trump_card_in_stock: o.trump_card_in_stock, discard: setOrder(o.discard), attacker: o.attacker,
      defender: o.defender, limit: o.limit, taking: o.taking, result: null,
    };
  }
  function startPlay(main, P) {
    if (!P.observation) {
      main.innerHTML = '<p class="empty">The game is starting…</p>';
      return;
    }
    const v = playView(P);
    const bottom = v.viewer;
    const slots = SLOTS[v.seats.length] || SLOTS[6];
    const seats = v.seats.map((s) => Object.assign({ slot: slots[(s.seat - bottom + v.seats.length) % v.seats.length] }, s));
    const others = seats.filter((s) => s.seat !== bottom).map((s) => seatHtml(v, s)).join("");
    const title = P.state === "over" ? "the end of the game" : P.state === "your_move" ? "you to " + P.decision : "the bot is deciding";
    const recent = P.log.slice(-8);
    main.innerHTML = '<section id="title-bar"><span class="title">' + esc(title) + '</span><span class="line">' +
      esc(P.variant) + " · you are seat " + bottom + "</span></section>" +
      '<div id="stage" class="n' + v.seats.length + '">' + others + '<section id="felt">' + feltHtml(v) + "</section>" +
      seatHtml(v, seats[bottom]) + "</div>" +
      '<div class="panels"><section id="events" class="panel"><h2>Lately</h2>' +
      (recent.length ? "<ul>" + recent.map((e) => "<li>" + esc(e) + "</li>").join("") + "</ul>" : '<span class="empty">nothing</span>') +
      "</section></div>";
    document.body.dataset.view = String(bottom);
  }

  function start() {
    const main = $("viewer");
    const play = $("play-data");
    if (play) {
      try { startPlay(main, JSON.parse(play.textContent)); } catch (err) {
        main.innerHTML = '<p class="box fault-box">This page cannot be shown: ' + esc(err.message) + "</p>";
      }
      return;
    }
    try {
      D = JSON.parse($("replay-data").textContent);
      states = decode(D);
    } catch (err) {
      main.innerHTML = '<p class="box fault-box">This page cannot be shown: ' + esc(err.message) + "</p>";
      return;
    }
    total = D.steps.length;
    D.steps.forEach((s, i) => {
      if (s.f && s.f.length) faultSteps.push(i);
      if (i > 0 && states[i].events.some((e) => e.k === "T")) roundSteps.push(i);
    });
    values = endgame(D);
    values.forEach((e, i) => { if (e && e.blunder) blunderSteps.push(i); });
    const blunders = blunderSteps.length
      ? '<div class="buttons"><button id="prev-blunder" class="wide blunder" title="the previous blunder (B)">◀ blunder</button>' +
        '<button id="next-blunder" class="wide blunder" title="the next blunder: a move that lowered its seat\'s endgame value (b)">blunder ▶</button></div>'
      : "";
    main.innerHTML =
      '<nav id="controls" aria-label="steps">' +
      '<div class="buttons"><button id="first" title="first step (Home)">|◀</button><button id="prev" title="previous step (←)">◀</button>' +
      '<button id="play" class="play"></button>' +
      '<button id="next" title="next step (→)">▶</button><button id="last" title="last step (End)">▶|</button></div>' +
      '<input id="slider" type="range" min="1" max="' + total + '" value="1" aria-label="step">' +
      '<span id="status"></span>' +
      '<div class="buttons"><button id="next-round" class="wide" title="the next round (r; R: back)">next round</button>' +
      '<button id="next-fault" class="wide fault" title="the next fault (f; F: back)">⚠ next fault</button></div>' + blunders +
      '<label>speed <select id="speed"><option value="2000">slow</option><option value="1000">normal</option><option value="400">fast</option><option value="150">very fast</option></select></label>' +
      '<label>view <select id="view"></select></label></nav>' +
      '<section id="title-bar"></section><div id="stage"></div>' +
      '<div class="panels"><section id="decision" class="panel"></section><section id="events" class="panel"></section></div>' +
      '<p class="keys">← → step · Home End first / last · PageUp PageDown 10 steps · p play / pause · f F next / previous fault · ' +
      "r R next / previous round · " + (blunderSteps.length ? "b B next / previous blunder · " : "") +
      "v next view · the address keeps the step (#step=N&amp;seat=S)</p>";
    $("view").innerHTML = '<option value="0">full view (every hand)</option>' +
      D.names.map((name, s) => '<option value="' + (s + 1) + '">seat ' + s + " · " + esc(name) + "</option>").join("");
    $("first").onclick = () => { stop(); go(0); };
    $("prev").onclick = () => { stop(); go(step - 1); };
    $("next").onclick = () => { stop(); go(step + 1); };
    $("last").onclick = () => { stop(); go(total - 1); };
    $("play").onclick = play;
    $("next-fault").onclick = () => { stop(); jump(faultSteps, true); };
    $("next-round").onclick = () => { stop(); jump(roundSteps, true); };
    if (blunderSteps.length) {
      $("next-blunder").onclick = () => { stop(); jump(blunderSteps, true); };
      $("prev-blunder").onclick = () => { stop(); jump(blunderSteps, false); };
    }
    $("slider").addEventListener("input", (e) => { stop(); go(parseInt(e.target.value, 10) - 1); });
    $("view").addEventListener("change", (e) => { view = parseInt(e.target.value, 10); render(); });
    const press = readHash();
    $("speed").value = String(speed);
    if ($("speed").value !== String(speed)) {
      $("speed").insertAdjacentHTML("beforeend", '<option value="' + speed + '">' + speed + " ms</option>");
      $("speed").value = String(speed);
    }
    $("speed").addEventListener("change", (e) => {
      speed = parseInt(e.target.value, 10);
      if (timer) { stop(); play(); }
    });
    document.addEventListener("keydown", onKey);
    window.addEventListener("hashchange", () => { readHash(); render(); });
    render();
    if (press) {
      for (const key of press.split(",")) document.dispatchEvent(new KeyboardEvent("keydown", { key: key }));
    }
  }
  start();
})();
