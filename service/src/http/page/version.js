"use strict";
// A version's page keeps up with the ladder once the version plays (issue 24): every 10 s while
// the page is shown, and when it is shown again, it reads the version's JSON (data-api); when its games or its state have
// changed since the page was made, the newest page of its games (no filter) reloads itself, and
// any other page says how many games came in, with a link to see them.
(function () {
  const live = document.getElementById("live");
  if (!live) return;
  const api = live.dataset.api;
  const games = Number(live.dataset.games);
  const state = live.dataset.state;
  const reload = live.dataset.reload === "1";
  function check() {
    if (document.hidden) return;
    fetch(api, { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (v) {
        if (!v) return;
        if (v.games === games && v.state === state) return;
        if (reload) { window.location.reload(); return; }
        const n = v.games - games;
        live.textContent = (n > 0 ? n + " new game" + (n === 1 ? "" : "s") : "This version changed") +
          " since this page was made: ";
        const a = document.createElement("a");
        a.href = window.location.pathname + "#games";
        a.textContent = "see the newest";
        live.appendChild(a);
        live.hidden = false;
      })
      .catch(function () {});
  }
  setInterval(check, 10000);
  document.addEventListener("visibilitychange", check);
})();
