// folio browse: progressive enhancement only. Every page works without this script: the search
// box is a form that loads /search. With it, results appear under the box as you type (from
// /search?partial=1, the same search), and the page reloads when the served catalog changes (one request that waits for a reload).
"use strict";
(function () {
  const form = document.querySelector("form.search");
  const input = form && form.querySelector("input[name=q]");
  const box = document.getElementById("suggest");
  let timer = 0;
  let asked = "";
  async function show(q) {
    asked = q;
    if (!q.trim()) { box.hidden = true; box.textContent = ""; return; }
    const response = await fetch("/search?partial=1&q=" + encodeURIComponent(q), { headers: { Accept: "text/html" } });
    if (!response.ok || asked !== q) return;
    const parsed = new DOMParser().parseFromString(await response.text(), "text/html");
    const results = parsed.getElementById("results");
    box.replaceChildren(...(results ? results.childNodes : []));
    box.hidden = false;
  }
  if (input && box && !document.querySelector("form.filters")) {
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => show(input.value).catch(() => {}), 120);
    });
    input.addEventListener("keydown", (e) => { if (e.key === "Escape") { box.hidden = true; } });
    document.addEventListener("click", (e) => { if (!box.contains(e.target) && e.target !== input) box.hidden = true; });
  }
  // Asks the server for the catalog's version once it differs from this page's: the answer
  // waits for a reload, so this is one open request, not polling.
  const body = document.body;
  if (body.dataset.live === "1") {
    const version = body.dataset.version;
    const watch = async () => {
      try {
        const response = await fetch("/_/version?after=" + encodeURIComponent(version), { cache: "no-store" });
        if (response.ok && (await response.text()) !== version) { location.reload(); return; }
        // Answered at once because the server holds as many waiting requests as it will.
        const later = Number(response.headers.get("Retry-After"));
        if (later > 0) { setTimeout(watch, later * 1000); return; }
        watch();
      } catch (_) {
        setTimeout(watch, 2000); // the server is restarting: ask again later
      }
    };
    watch();
  }
})();
