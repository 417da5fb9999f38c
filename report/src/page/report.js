"use strict";
// The tournament report: sortable tables, and the games list, which sorts and filters any number
// of games while loading only what a page shows. Its data are scripts (they load from a folder
// on disk as from a server): data/meta.js, data/rows-NNNNN.js (the games with ids
// NNNNN*chunk to NNNNN*chunk+chunk-1), data/list-NAME.js (ids with their moves and durations:
// all, bot-K, faults, fault-KIND, draws, unverified), written by report/src/scan.rs.
(function () {
  // ---- sortable tables ----
  function cellKey(td, numeric) {
    const k = td.getAttribute("data-key");
    const text = k !== null ? k : td.textContent.trim();
    if (!numeric) return text.toLowerCase();
    const n = parseFloat(text.replace(/[^0-9eE.+\-−]/g, "").replace("−", "-"));
    return isNaN(n) ? -Infinity : n;
  }
  function sortable(table) {
    const heads = table.querySelectorAll("thead th");
    heads.forEach((th, col) => {
      th.addEventListener("click", () => {
        const numeric = th.getAttribute("data-sort") === "num";
        const asc = !th.classList.contains("sorted-asc");
        heads.forEach((h) => h.classList.remove("sorted-asc", "sorted-desc"));
        th.classList.add(asc ? "sorted-asc" : "sorted-desc");
        const body = table.tBodies[0];
        const rows = Array.from(body.rows);
        rows.sort((a, b) => {
          const x = cellKey(a.cells[col], numeric), y = cellKey(b.cells[col], numeric);
          return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
        });
        rows.forEach((r) => body.appendChild(r));
      });
    });
  }
  document.querySelectorAll("table.sortable").forEach(sortable);

  // ---- the games list ----
  const lists = document.querySelectorAll(".games-list");
  if (!lists.length) return;
  const root = lists[0].getAttribute("data-root") || "";
  const store = { meta: null, rows: {}, lists: {} };
  const waiting = {};
  window.durakGames = {
    meta: (m) => { store.meta = m; },
    rows: (k, rows) => { const m = {}; for (const r of rows) m[r.id] = r; store.rows[k] = m; },
    list: (name, l) => {
      const ids = [];
      let id = 0;
      l.ids.forEach((d, i) => { id = i === 0 ? d : id + d; ids.push(id); });
      store.lists[name] = { ids: ids, moves: l.moves, ms: l.ms, out: l.out || null };
    },
  };
  function load(src) {
    if (!waiting[src]) {
      waiting[src] = new Promise((resolve, reject) => {
        const s = document.createElement("script");
        s.src = root + src;
        s.onload = resolve;
        s.onerror = () => reject(new Error("cannot load " + src));
        document.head.appendChild(s);
      });
    }
    return waiting[src];
  }
  function list(name) { return load("data/list-" + name + ".js").then(() => store.lists[name]); }
  function chunkOf(id) { return Math.floor(id / store.meta.chunk); }
  function rowsFor(ids) {
    const need = Array.from(new Set(ids.map(chunkOf)));
    return Promise.all(need.map((k) => load("data/rows-" + String(k).padStart(5, "0") + ".js")))
      .then(() => ids.map((id) => (store.rows[chunkOf(id)] || {})[id]));
  }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }
  function gameHref(id) { return root + "g/" + String(Math.floor(id / store.meta.per_folder)).padStart(3, "0") + "/" + id + ".html"; }

  const PAGE = 50;
  function setup(el) {
    const M = store.meta;
    const fixedBot = el.hasAttribute("data-bot") ? parseInt(el.getAttribute("data-bot"), 10) : null;
    const kinds = Object.keys(M.lists).filter((k) => k.indexOf("fault-") === 0).map((k) => k.substr(6));
    const st = { bot: fixedBot, result: "any", fault: "any", sort: "id", page: 0 };
    const option = (v, text) => '<option value="' + esc(v) + '">' + esc(text) + "</option>";
    el.innerHTML = '<div class="controls">' +
      (fixedBot === null ? '<label>bot <select data-k="bot">' + option("", "any") + M.bots.map((b, i) => option(i, b)).join("") + "</select></label>" : "") +
      '<label>result <select data-k="result">' + option("any", "any") + option("lost", "the bot was the durak") +
      option("won", "the bot was not the durak") + option("draw", "a draw") + "</select></label>" +
      '<label>faults <select data-k="fault">' + option("any", "any") + option("faults", "with a fault") + option("clean", "without a fault") +
      kinds.map((k) => option("fault-" + k, k + " (" + M.lists["fault-" + k] + ")")).join("") +
      (M.lists.unverified ? option("unverified", "replay not verified (" + M.lists.unverified + ")") : "") + "</select></label>" +
      '<label>sort <select data-k="sort">' + option("id", "game id ↑") + option("-id", "game id ↓") + option("-moves", "most moves") +
      option("moves", "fewest moves") + option("-ms", "longest") + option("ms", "shortest") + "</select></label>" +
      '<span class="pager"><button data-p="-1">◀</button> <span class="count"></span> <button data-p="1">▶</button></span></div>' +
      '<div class="scroll"><table><thead><tr><th class="num">id</th><th>table · game</th><th>seats (the durak in bold)</th><th>result</th>' +
      '<th>faults</th><th class="num">moves</th><th class="num">ms</th><th>verified</th></tr></thead><tbody></tbody></table></div>';
    el.querySelectorAll("select").forEach((s) => s.addEventListener("change", () => {
      const k = s.getAttribute("data-k");
      st[k] = k === "bot" ? (s.value === "" ? null : parseInt(s.value, 10)) : s.value;
      st.page = 0;
      show();
    }));
    el.querySelectorAll("button[data-p]").forEach((b) => b.addEventListener("click", () => {
      st.page += parseInt(b.getAttribute("data-p"), 10);
      show();
    }));
    let generation = 0;

    // The matching games as [id, moves, ms], in the chosen order; null: every game, by id,
    // without a list (ids 0..max_id with none missing).
    function matching() {
      const plain = st.bot === null && st.result === "any" && st.fault === "any" && (st.sort === "id" || st.sort === "-id");
      if (plain && M.max_id !== null && M.max_id + 1 === M.count) return Promise.resolve(null);
      const names = [st.bot !== null ? "bot-" + st.bot : "all"];
      if (st.fault === "faults" || st.fault === "clean") names.push("faults");
      else if (st.fault !== "any") names.push(st.fault);
      if (st.result === "draw" && st.bot === null) names.push("draws");
      return Promise.all(names.map((n) => (M.lists[n] ? list(n) : Promise.resolve({ ids: [], moves: [], ms: [], out: null })))).then((ls) => {
        const base = ls[0];
        let keep = null;
        if (ls.length > 1) {
          keep = new Set(ls[1].ids);
          if (ls.length > 2) { const third = new Set(ls[2].ids); keep = new Set(Array.from(keep).filter((x) => third.has(x))); }
        }
        const out = [];
        for (let i = 0; i < base.ids.length; i++) {
          const id = base.ids[i];
          if (keep) {
            const has = keep.has(id);
            if (st.fault === "clean" ? has : !has) continue;
          }
          if (st.bot !== null && st.result !== "any") {
            const o = base.out[i];
            if ((st.result === "lost" && o !== 0) || (st.result === "won" && o !== 1) || (st.result === "draw" && o !== 2)) continue;
          }
          out.push([id, base.moves[i], base.ms[i]]);
        }
        const k = { id: 0, moves: 1, ms: 2 }[st.sort.replace("-", "")];
        const sign = st.sort[0] === "-" ? -1 : 1;
        out.sort((a, b) => (a[k] - b[k]) * sign || a[0] - b[0]);
        return out;
      });
    }

    function rowHtml(r) {
      if (!r) return "";
      const seats = r.seats.map((b, s) => {
        const name = b === null ? "?" : M.bots[b];
        const link = b === null ? esc(name) : '<a href="' + esc(root + M.bot_pages[b]) + '">' + esc(name) + "</a>";
        return "<span>" + (r.loser === s ? "<b>" + s + ": " + link + "</b>" : s + ": " + link) + "</span>";
      }).join(" ");
      const result = r.draw ? "draw" : r.loser !== null ? "durak: seat " + r.loser : "—";
      const faults = r.faults.map((f) => "seat " + f[0] + " " + esc(f[1])).join(", ");
      const v = r.v === 1 ? "✓" : r.v === 0 ? "✗" : "no replay";
      const id = r.v === -1 ? String(r.id) : '<a href="' + esc(gameHref(r.id)) + '">' + r.id + "</a>";
      return '<tr class="' + (r.faults.length ? "fault" : "") + '" data-id="' + r.id + '"><td class="num">' + id + "</td><td>" + r.table + " · " + r.game +
        (r.deal !== null ? " · deal " + r.deal : "") + '</td><td class="seats">' + seats + "</td><td>" + result + '</td><td class="fault">' + faults +
        '</td><td class="num">' + r.moves + '</td><td class="num">' + r.ms + "</td><td>" + v + "</td></tr>";
    }

    function show() {
      const gen = ++generation;
      matching().then((m) => {
        const total = m === null ? M.count : m.length;
        const pages = Math.max(1, Math.ceil(total / PAGE));
        st.page = Math.max(0, Math.min(pages - 1, st.page));
        let ids;
        if (m === null) {
          ids = [];
          for (let i = st.page * PAGE; i < Math.min(total, (st.page + 1) * PAGE); i++) ids.push(st.sort === "-id" ? M.max_id - i : i);
        } else {
          ids = m.slice(st.page * PAGE, (st.page + 1) * PAGE).map((x) => x[0]);
        }
        return rowsFor(ids).then((rows) => {
          if (gen !== generation) return;
          el.querySelector("tbody").innerHTML = rows.map(rowHtml).join("") ||
            '<tr><td colspan="8" class="empty">no game matches</td></tr>';
          el.querySelector(".count").textContent = total + " game" + (total === 1 ? "" : "s") + " · page " + (st.page + 1) + " of " + pages;
          el.querySelector('button[data-p="-1"]').disabled = st.page === 0;
          el.querySelector('button[data-p="1"]').disabled = st.page >= pages - 1;
          el.setAttribute("data-total", String(total));
          el.setAttribute("data-page", String(st.page + 1));
        });
      }).catch((e) => {
        el.querySelector("tbody").innerHTML = '<tr><td colspan="8" class="bad">' + esc(e.message) + "</td></tr>";
      });
    }
    // Presets from the address: games.html#fault=fault-timeout&sort=-moves&result=lost&bot=2
    const p = new URLSearchParams(location.hash.replace(/^#/, ""));
    for (const k of ["result", "fault", "sort"]) if (p.get(k)) st[k] = p.get(k);
    if (fixedBot === null && p.get("bot") !== null) st.bot = parseInt(p.get("bot"), 10);
    if (p.get("page")) st.page = parseInt(p.get("page"), 10) - 1;
    el.querySelectorAll("select").forEach((s) => {
      const k = s.getAttribute("data-k");
      s.value = k === "bot" ? (st.bot === null ? "" : String(st.bot)) : st[k];
    });
    show();
  }
  load("data/meta.js").then(() => lists.forEach(setup)).catch((e) => {
    lists.forEach((el) => { el.innerHTML = '<p class="bad">' + esc(e.message) + "</p>"; });
  });
})();
