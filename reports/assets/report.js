(function () {
  "use strict";
  const $ = (s, e) => (e || document).querySelector(s);
  const $$ = (s, e) => Array.from((e || document).querySelectorAll(s));
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function rows(n) { return n === 1 ? "1 row" : n.toLocaleString("en") + " rows"; }

  // Tables: click a header to sort; the box above a table and the page filter narrow rows.
  function sortBy(th) {
    const table = th.closest("table"), body = table.tBodies[0];
    const index = Array.from(th.parentNode.children).indexOf(th);
    const dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    $$("th", th.parentNode).forEach(h => h.removeAttribute("aria-sort"));
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    const numeric = th.dataset.type === "num";
    const value = r => { const c = r.cells[index]; return c.dataset.v !== undefined ? c.dataset.v : c.textContent; };
    const sorted = Array.from(body.rows).sort((a, b) => {
      let x = value(a), y = value(b);
      if (numeric) {
        x = x === "" ? NaN : Number(x); y = y === "" ? NaN : Number(y);
        if (isNaN(x)) return isNaN(y) ? 0 : 1;
        if (isNaN(y)) return -1;
        return (x - y) * dir;
      }
      return x.localeCompare(y) * dir;
    });
    sorted.forEach(r => body.appendChild(r));
  }
  function applyFilters() {
    const room = ($("#f-room") || {}).value || "", stakes = ($("#f-stakes") || {}).value || "";
    const from = ($("#f-from") || {}).value || "", to = ($("#f-to") || {}).value || "";
    $$(".table-block").forEach(block => {
      const text = ($("input.filter", block).value || "").toLowerCase();
      const all = Array.from($("table", block).tBodies[0].rows);
      let shown = 0;
      all.forEach(r => {
        const d = r.dataset;
        let ok = !(room && d.room !== undefined && d.room !== room);
        ok = ok && !(stakes && d.stakes !== undefined && d.stakes !== stakes);
        ok = ok && !(from && d.day && d.day < from) && !(to && d.day && d.day > to);
        ok = ok && !(text && !r.textContent.toLowerCase().includes(text));
        r.hidden = !ok;
        if (ok) shown += 1;
      });
      $(".count", block).textContent = shown === all.length ? rows(all.length)
        : shown.toLocaleString("en") + " of " + rows(all.length);
    });
  }

  // The hand replayer: #hand=KEY opens one hand street by street.
  let hands = {};  // read when the page has loaded: the data follows this script
  const SUITS = {c: "♣", d: "♦", h: "♥", s: "♠"};
  function card(text, extra) {
    const suit = text.slice(-1), rank = text.slice(0, -1);
    const c = el("span", "c " + (SUITS[suit] ? "s-" + suit : "joker") + (extra ? " " + extra : ""));
    c.textContent = SUITS[suit] ? rank + SUITS[suit] : text;
    c.title = text;
    return c;
  }
  function signed(v) { return v === null || v === undefined ? "–" : (v > 0 ? "+" : "") + Number(v).toLocaleString("en", {maximumFractionDigits: 2}); }
  function seatView(seat, upto) {
    const box = el("div", "seat" + (seat.hero ? " hero" : ""));
    box.appendChild(el("h3", "", "Seat " + seat.seat + ": " + (seat.player || "?") + (seat.hero ? " (hero)" : "") + (seat.in_fantasy ? " · Fantasyland" : "")));
    const known = seat.streets.length > 0;
    const sizes = {top: 3, middle: 5, bottom: 5};
    ["top", "middle", "bottom"].forEach(row => {
      const line = el("div", "row");
      line.appendChild(el("span", "name", row));
      let cards = [];
      if (known) {
        seat.streets.forEach(s => { if (s.street <= upto) s[row].forEach(c => cards.push([c, s.street === upto])); });
      } else {
        cards = seat.rows[row].map(c => [c, false]);
      }
      cards.forEach(([c, isNew]) => line.appendChild(card(c, isNew && upto < 99 ? "new" : "")));
      for (let i = cards.length; i < sizes[row]; i++) line.appendChild(el("span", "c empty", ""));
      if (upto >= 99 && seat.names[row]) line.appendChild(el("span", "name", seat.names[row]));
      box.appendChild(line);
    });
    const gone = known ? seat.streets.filter(s => s.street <= upto).flatMap(s => s.discards) : seat.discards;
    if (gone.length) {
      const line = el("div", "row");
      line.appendChild(el("span", "name", "discards"));
      gone.forEach(c => line.appendChild(card(c, "gone")));
      box.appendChild(line);
    }
    if (!known) box.appendChild(el("p", "caption", "street-by-street placements unknown: final board"));
    if (upto >= 99) {
      const r = seat.royalties;
      const facts = [
        seat.fouled ? "fouled" : "royalties " + (r.total ?? "–") + " (top " + (r.top ?? "–") + ", middle " + (r.middle ?? "–") + ", bottom " + (r.bottom ?? "–") + ")",
        "points " + signed(seat.net_capped) + " (engine)" + (seat.reported_points !== null ? ", " + signed(seat.reported_points) + " (room)" : ""),
      ];
      if (seat.reported_money !== null) facts.push("money " + signed(seat.reported_money));
      const vs = Object.entries(seat.versus).map(([o, p]) => "seat " + o + ": " + signed(p));
      if (vs.length) facts.push("against " + vs.join(", "));
      if (seat.fantasy_entry) facts.push("earns Fantasyland (" + seat.fantasy_entry + " cards)");
      if (seat.fantasy_stays) facts.push("stays in Fantasyland");
      facts.forEach(f => box.appendChild(el("div", "facts", f)));
    }
    return box;
  }
  function showHand(key) {
    const hand = hands[key], view = $("#replayer");
    if (!hand || !view) return;
    const panel = $(".panel", view);
    panel.replaceChildren();
    const head = el("header");
    const title = el("div");
    title.appendChild(el("h2", "", "Hand " + (hand.room_hand_id || hand.key)));
    title.appendChild(el("p", "meta", [hand.room, hand.table ? "table " + hand.table : "", hand.played_at, hand.ruleset, hand.stakes !== null ? hand.stakes + " " + (hand.currency || "") + " a point" : ""].filter(Boolean).join(" · ")));
    head.appendChild(title);
    const close = el("button", "close", "Close");
    close.addEventListener("click", () => { if (location.hash.startsWith("#hand=")) history.pushState("", "", location.pathname + location.search); view.hidden = true; });
    head.appendChild(close);
    panel.appendChild(head);
    const count = Math.max(0, ...hand.seats.map(s => s.streets.length));
    const bar = el("div", "streets"), seats = el("div", "seats");
    function draw(upto) {
      $$("button", bar).forEach(b => b.setAttribute("aria-pressed", String(Number(b.dataset.street) === upto)));
      seats.replaceChildren(...hand.seats.map(s => seatView(s, upto)));
    }
    for (let s = 1; s <= count; s++) {
      const b = el("button", "", "Street " + s);
      b.dataset.street = String(s);
      b.addEventListener("click", () => draw(s));
      bar.appendChild(b);
    }
    const fin = el("button", "", "Final boards");
    fin.dataset.street = "99";
    fin.addEventListener("click", () => draw(99));
    bar.appendChild(fin);
    panel.appendChild(bar);
    panel.appendChild(seats);
    draw(99);
    view.hidden = false;
  }
  function route() {
    const h = location.hash;
    if (h.startsWith("#hand=")) showHand(decodeURIComponent(h.slice(6)));
    else if ($("#replayer") && !$("#replayer").hasAttribute("data-standalone")) $("#replayer").hidden = true;
  }

  document.addEventListener("DOMContentLoaded", () => {
    hands = JSON.parse(($("#hand-data") || {textContent: "{}"}).textContent);
    $$("th").forEach(th => th.addEventListener("click", () => sortBy(th)));
    $$("input.filter, .filters select, .filters input").forEach(i => i.addEventListener("input", applyFilters));
    const reset = $("#f-reset");
    if (reset) reset.addEventListener("click", () => { $$(".filters select, .filters input").forEach(i => { i.value = ""; }); applyFilters(); });
    if ($(".table-block")) applyFilters();
    const charts = JSON.parse(($("#chart-data") || {textContent: "{}"}).textContent);
    if (window.Plotly) {
      Object.entries(charts).forEach(([id, fig]) => {
        window.Plotly.newPlot(id, fig.data, fig.layout, {responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d"]});
      });
    }
    window.addEventListener("hashchange", route);
    const standalone = $("#replayer[data-standalone]");
    if (standalone) showHand(standalone.dataset.standalone); else route();
  });
})();
