"use strict";
// Renders the precomputed steps embedded as JSON: no game logic here.
(function () {
  const D = JSON.parse(document.getElementById("replay-data").textContent);
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const $ = (id) => document.getElementById(id);
  const total = D.steps.length;
  let step = 0; // 0-based
  let view = 0; // 0: full view; s + 1: seat s

  // A seat's view is stored as a delta from the full view (html.rs: delta / merge).
  function isObj(x) { return x !== null && typeof x === "object" && !Array.isArray(x); }
  function merge(base, d) {
    if (Array.isArray(base) && Array.isArray(d) && base.length === d.length && base.concat(d).every(isObj)) {
      return base.map((b, i) => merge(b, d[i]));
    }
    if (isObj(base) && isObj(d)) {
      const o = Object.assign({}, base);
      for (const k of Object.keys(d)) o[k] = k in base ? merge(base[k], d[k]) : d[k];
      return o;
    }
    return d;
  }
  function stepView(i) {
    return view === 0 ? D.steps[i] : merge(D.steps[i], D.seat_views[view - 1][i]);
  }

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }
  function cardHtml(code, opts) {
    opts = opts || {};
    const rank = code[0] === "T" ? "10" : code[0];
    const suit = code[1];
    const cls = ["card"];
    if (suit === "D" || suit === "H") cls.push("red");
    if (opts.trump && suit === opts.trump) cls.push("trump");
    if (opts.small) cls.push("small");
    if (opts.known) cls.push("known");
    if (opts.extra) cls.push(opts.extra);
    return '<span class="' + cls.join(" ") + '" data-card="' + esc(code) + '" title="' + rank + SUITS[suit] +
      '"><span class="rank">' + rank + "<small>" + SUITS[suit] + '</small></span><span class="suit">' + SUITS[suit] + "</span></span>";
  }
  function backHtml(small) {
    return '<span class="card back' + (small ? " small" : "") + '"></span>';
  }
  function badge(text, cls) {
    return '<span class="badge ' + cls + '">' + esc(text) + "</span>";
  }
  function row(label, html) {
    return '<div class="row"><span class="label">' + esc(label) + "</span><span>" + html + "</span></div>";
  }

  function renderSeats(v) {
    const out = [];
    for (const s of v.seats) {
      const cls = ["seat"];
      if (s.to_act) cls.push("to-act");
      if (!s.active) cls.push("out");
      if (s.faulted) cls.push("faulted");
      if (v.viewer === s.seat) cls.push("viewer");
      let head = '<span class="name">seat ' + s.seat + " · " + esc(s.name) + "</span>";
      if (s.role) head += badge(s.role, s.role);
      if (s.to_act) head += badge("to act", "act");
      if (!s.active) head += badge("out", "out");
      if (s.faulted) head += badge("fault", "fault");
      if (s.loser) head += badge("durak", "durak");
      let cards = "";
      if (s.hand) {
        const known = new Set(s.known);
        cards = s.hand.map((c) => cardHtml(c, { trump: v.trump_suit, known: v.viewer === null && known.has(c) })).join("");
      } else {
        const hidden = s.count - s.known.length;
        cards = s.known.map((c) => cardHtml(c, { trump: v.trump_suit, known: true })).join("");
        for (let i = 0; i < hidden; i++) cards += backHtml(false);
      }
      if (s.count === 0) cards = '<span class="empty">no cards</span>';
      out.push('<div class="' + cls.join(" ") + '" data-seat="' + s.seat + '"><div class="head">' + head +
        '<span class="count">' + s.count + (s.count === 1 ? " card" : " cards") + "</span></div>" +
        '<div class="hand">' + cards + "</div></div>");
    }
    $("seats").innerHTML = out.join("");
  }

  function renderFelt(v) {
    const red = v.trump_suit === "D" || v.trump_suit === "H";
    let pile = "<h3>Stock</h3><div class=\"pile\">";
    if (v.trump_card_in_stock) pile += '<span class="trump-under">' + cardHtml(v.trump_card, { trump: v.trump_suit }) + "</span>";
    if (v.stock > 1 || (v.stock === 1 && !v.trump_card_in_stock)) pile += '<span class="stock-top">' + backHtml(false) + "</span>";
    pile += '<span class="stock-count" id="stock-count">' + v.stock + "</span></div>";
    pile += '<div class="trump-info">trump <span class="trump-suit' + (red ? " red" : "") + '">' + SUITS[v.trump_suit] +
      "</span> " + (v.trump_card_in_stock ? "under the stock" : "card " + (v.trump_card[0] === "T" ? "10" : v.trump_card[0]) + SUITS[v.trump_card[1]] +
      " no longer under the stock") + "</div>";
    if (v.stock_cards && v.stock_cards.length) {
      pile += '<div class="stock-order-label">stock order, next card first</div><div class="stock-order">' +
        v.stock_cards.map((c) => cardHtml(c, { small: true, trump: v.trump_suit })).join("") + "</div>";
    }
    $("stockpile").innerHTML = pile;

    let table = "<h3>Table</h3><div class=\"pairs\">";
    if (!v.table.length) table += '<span class="empty">the table is empty</span>';
    for (const p of v.table) {
      table += '<div class="pair">' + cardHtml(p.attack, { trump: v.trump_suit, extra: "attack" + (p.defence ? "" : " unbeaten") }) +
        (p.defence ? cardHtml(p.defence, { trump: v.trump_suit, extra: "defence" }) : "") + "</div>";
    }
    table += "</div>";
    const info = ["seat " + v.attacker + " attacks seat " + v.defender];
    if (v.limit !== null) info.push("limit " + v.limit);
    if (v.taking) info.push("the defender takes");
    table += '<div class="table-info">' + esc(info.join(" · ")) + "</div>";
    $("table").innerHTML = table;

    let discard = "<h3>Discard · " + v.discard.length + "</h3>";
    discard += v.discard.length
      ? '<div class="discard-cards">' + v.discard.map((c) => cardHtml(c, { small: true, trump: v.trump_suit })).join("") + "</div>"
      : '<span class="empty">empty</span>';
    $("discard").innerHTML = discard;
  }

  function renderDecision(v) {
    let html = "";
    if (v.legal) html += row("legal", esc(v.legal));
    if (v.answer) html += row(v.decision && v.decision.forced ? "forced" : "answer", '<span class="answer">' + esc(v.answer) + "</span>");
    if (v.timing) html += row("time", esc(v.timing));
    if (v.refused) {
      const line = v.refused.line !== null ? '<code class="raw">' + esc(v.refused.line) + "</code>" : "<em>(the line is private to the bot)</em>";
      html += row("refused", line + "<br>" + esc(v.refused.reason));
    }
    for (const f of v.faults) html += '<div class="fault-box">⚠ FAULT — ' + esc(f.text) + "</div>";
    if (v.result) html += '<div class="result-box">' + esc(v.result) + "</div>";
    if (v.note) html += '<div class="note-box">The replay differs from the re-simulation here: ' + esc(v.note) + "</div>";
    for (const e of v.stderr) html += row("stderr " + e.seat + (e.when ? " (" + e.when + ")" : ""), '<pre class="stderr">' + esc(e.text) + "</pre>");
    if (!html) html = '<span class="empty">nothing to decide</span>';
    const d = $("decision");
    d.innerHTML = html;
    d.className = v.faults.length ? "has-fault" : "";
  }

  function renderEvents(v) {
    if (!v.events.length) {
      $("events").innerHTML = '<h3>Since the previous step</h3><span class="empty">nothing</span>';
      return;
    }
    $("events").innerHTML = "<h3>Since the previous step</h3><ul>" + v.events.map((e) =>
      "<li" + (e.private_to !== null ? ' class="private"' : "") + ">" + esc(e.text) +
      (e.private_to !== null ? '<span class="private-tag">only seat ' + e.private_to + " sees this</span>" : "") + "</li>").join("") + "</ul>";
  }

  function render() {
    const v = stepView(step);
    $("title-bar").innerHTML = esc(v.title) + '<span class="line">step ' + v.step + " · replay line " + v.line + "</span>" +
      v.faults.map((f) => '<span class="fault-flag">⚠ ' + esc(f.short) + "</span>").join("");
    renderSeats(v);
    renderFelt(v);
    renderDecision(v);
    renderEvents(v);
    const faultMark = v.faults.length ? ' <span class="fault-mark">⚠ fault</span>' : "";
    $("status").innerHTML = "Step " + (step + 1) + " / " + total + faultMark;
    $("slider").value = String(step + 1);
    $("view").value = String(view);
    $("first").disabled = $("prev").disabled = step === 0;
    $("last").disabled = $("next").disabled = step === total - 1;
    document.body.dataset.step = String(step + 1);
    document.body.dataset.view = view === 0 ? "full" : String(view - 1);
    const hash = "#step=" + (step + 1) + (view === 0 ? "" : "&seat=" + (view - 1));
    if (location.hash !== hash) {
      try { history.replaceState(null, "", hash); } catch (e) { /* some viewers forbid it; harmless */ }
    }
  }

  function go(n) {
    step = Math.max(0, Math.min(total - 1, n));
    render();
  }

  function readHash() {
    const p = new URLSearchParams(location.hash.replace(/^#/, ""));
    const s = parseInt(p.get("step"), 10);
    if (!isNaN(s)) step = Math.max(0, Math.min(total - 1, s - 1));
    const seat = p.get("seat");
    const n = parseInt(seat, 10);
    view = seat === null || seat === "full" || isNaN(n) || n < 0 || n >= D.players ? 0 : n + 1;
    return p.get("press");
  }

  function onKey(e) {
    const t = e.target;
    if (t && (t.id === "slider" || t.tagName === "SELECT")) return; // their own keys
    switch (e.key) {
      case "ArrowRight": go(step + 1); break;
      case "ArrowLeft": go(step - 1); break;
      case "Home": go(0); break;
      case "End": go(total - 1); break;
      case "PageDown": go(step + 10); break;
      case "PageUp": go(step - 10); break;
      default: return;
    }
    if (e.preventDefault) e.preventDefault();
  }

  // Header, controls.
  const meta = [D.variant, D.players + " players", "game " + D.game, "deck seed " + D.seed, "series seed " + D.series_seed,
    "dealer seat " + D.dealer].join(" · ");
  $("meta").textContent = meta + " — " + D.result;
  const verdict = $("verdict");
  verdict.textContent = D.verified ? "✓ verified against the rules engine" : "✗ " + D.verdict;
  verdict.className = D.verified ? "ok" : "bad";
  const select = $("view");
  select.innerHTML = '<option value="0">full view (every hand)</option>' +
    D.seats.map((s) => '<option value="' + (s.seat + 1) + '">seat ' + s.seat + " · " + esc(s.name) + "</option>").join("");
  $("slider").max = String(total);
  $("first").onclick = () => go(0);
  $("prev").onclick = () => go(step - 1);
  $("next").onclick = () => go(step + 1);
  $("last").onclick = () => go(total - 1);
  $("slider").addEventListener("input", (e) => go(parseInt(e.target.value, 10) - 1));
  select.addEventListener("change", (e) => { view = parseInt(e.target.value, 10); render(); });
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", () => { readHash(); render(); });

  const press = readHash();
  render();
  if (press) {
    for (const key of press.split(",")) document.dispatchEvent(new KeyboardEvent("keydown", { key: key }));
  }
})();
