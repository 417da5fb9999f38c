"use strict";
// The leaderboard, live: server-sent events from /api/leaderboard/events redraw its rows (the
// first event at once, then one whenever it changes). When they fail (an old browser, a proxy
// that buffers), it polls /api/leaderboard every 2 s instead. <body data-live> says which.
(function () {
  const rows = document.getElementById("rows");
  const info = document.getElementById("info");
  if (!rows) return;
  function cell(tr, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }
  function elo(e) { return e === null ? "-" : (e >= 0 ? "+" : "") + Math.round(e); }
  function ci(c) { return (c[0] === null ? "-∞" : elo(c[0])) + " … " + (c[1] === null ? "+∞" : elo(c[1])); }
  function draw(lb) {
    const out = [];
    for (const x of lb.rows) {
      const tr = document.createElement("tr");
      tr.dataset.bot = x.bot;
      if (x.tied) tr.className = "tied";
      cell(tr, x.rank_label, "num");
      const a = document.createElement("a");
      a.href = "/bots/" + encodeURIComponent(x.bot) + "/versions/" + x.version;
      a.textContent = x.bot + " v" + x.version;
      cell(tr, "").appendChild(a);
      cell(tr, x.author);
      cell(tr, elo(x.elo), "num");
      cell(tr, ci(x.elo_ci95), "num");
      cell(tr, String(x.games), "num");
      cell(tr, String(x.losses), "num");
      cell(tr, (100 * x.loss_rate).toFixed(1) + "%", "num");
      cell(tr, x.void_games || x.attempts_voided ? x.void_games + " (" + x.attempts_voided + ")" : "-", "num");
      out.push(tr);
    }
    rows.replaceChildren(...out);
    info.textContent = lb.games + " games among the versions on the board" +
      (lb.games_void ? " (" + lb.games_void + " void: counted for nobody)" : "") +
      (lb.paused ? " · the ladder is paused" : "");
    document.body.dataset.games = String(lb.games);
  }
  let timer = null;
  function poll() {
    if (timer !== null) return;
    document.body.dataset.live = "poll";
    const tick = async function () {
      try {
        const r = await fetch("/api/leaderboard", { cache: "no-store" });
        if (r.ok) draw(await r.json());
      } catch (e) { /* the next tick tries again */ }
    };
    tick();
    timer = setInterval(tick, 2000);
  }
  if (!window.EventSource) { poll(); return; }
  const es = new EventSource("/api/leaderboard/events");
  let errors = 0;
  es.addEventListener("leaderboard", function (e) {
    errors = 0;
    document.body.dataset.live = "sse";
    try { draw(JSON.parse(e.data)); } catch (x) { /* a bad event: the next one redraws */ }
  });
  es.onerror = function () {
    // The browser reconnects by itself; when it gives up, or keeps failing, poll instead.
    errors += 1;
    if (es.readyState === EventSource.CLOSED || errors >= 3) { es.close(); poll(); }
  };
})();
