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
  function rowsText(n) { return n === 1 ? "1 row" : n.toLocaleString("en") + " rows"; }

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
    const fixed = !!$("#live-data");  // the live page's bar filters its live sections only
    const room = fixed ? "" : ($("#f-room") || {}).value || "", stakes = fixed ? "" : ($("#f-stakes") || {}).value || "";
    const from = fixed ? "" : ($("#f-from") || {}).value || "", to = fixed ? "" : ($("#f-to") || {}).value || "";
    $$(".table-block:not(.live)").forEach(block => {
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
      $(".count", block).textContent = shown === all.length ? rowsText(all.length)
        : shown.toLocaleString("en") + " of " + rowsText(all.length);
    });
  }

  // The hand replayer: #hand=KEY opens one hand street by street.
  // The replayer's hands (reports/replay.py pack): gzipped in base64 in the report page,
  // inflated with the browser's DecompressionStream once the page is drawn (the summary,
  // charts and filters never wait for them); a single hand's page carries plain JSON.
  let packed = {s: [], h: []}, where = new Map();  // the packed hands, and each key's place in them
  let handState = "loading";  // "ready", or the one line shown where the hand data cannot be read
  let carried = null;  // the keys the page carries, known before their data is in (hand-index)
  function cardList(text) { const out = []; for (let i = 0; i < text.length; i += 2) out.push(text.slice(i, i + 2)); return out; }
  function handOf(key) {  // one hand as hand_details wrote it, unpacked when it is opened
    const at = where.get(key);
    if (at === undefined) return undefined;
    const S = packed.s, t = i => (i === null ? null : S[i]);
    const [, room, table, id, played_at, ruleset, stakes, currency, seats] = packed.h[at];
    return {key: key, room: t(room), table: t(table), room_hand_id: id, played_at: played_at, ruleset: t(ruleset), stakes: stakes, currency: t(currency),
      seats: seats.map(([seat, player, account, hero, fl, flCards, rows, names, streets, discards, status, fouled, roy, net, capped, points, money, entry, stays, vs, grades]) => {
        const versus = {};
        for (let k = 0; k < vs.length; k += 2) versus[String(vs[k])] = vs[k + 1];
        const played = streets.map((text, k) => {
          const p = text.split("|"), g = grades ? grades[k] : null;
          return {street: k + 1, top: cardList(p[0]), middle: cardList(p[1]), bottom: cardList(p[2]), discards: cardList(p[3]),
            grade: g ? {kind: t(g[0]), status: t(g[1]), played: t(g[2]), best: t(g[3]), loss: g[4], loss_se: g[5], candidates: candidatesOf(g[6] || [], t)} : null};
        });
        const r = rows === null ? null : rows.split("|");  // null: the streets' cards in street order
        const all = (part, k) => (r === null ? played.flatMap(s => s[part]) : cardList(r[k]));
        return {seat: seat, player: t(player), account: t(account), hero: !!hero, in_fantasy: !!fl, fantasy_cards: flCards,
          rows: {top: all("top", 0), middle: all("middle", 1), bottom: all("bottom", 2)},
          names: {top: t(names[0]), middle: t(names[1]), bottom: t(names[2])},
          streets: played,
          discards: discards === null ? played.flatMap(s => s.discards) : cardList(discards), status: t(status), fouled: fouled, royalties: {top: roy[0], middle: roy[1], bottom: roy[2], total: roy[3]},
          net: net, net_capped: capped, reported_points: points, reported_money: money, fantasy_entry: entry, fantasy_stays: stays, versus: versus};
      })};
  }
  function candidatesOf(flat, t) {  // [play, ev, se, flags, ...]: flags 1 the play made, 2 the best, 4 measured above the best within the noise
    const out = [];
    for (let k = 0; k < flat.length; k += 4) out.push({play: t(flat[k]), ev: flat[k + 1], se: flat[k + 2], chosen: !!(flat[k + 3] & 1), best: !!(flat[k + 3] & 2), above_best: !!(flat[k + 3] & 4)});
    return out;
  }
  function unpacked(data) {
    packed = data;
    where = new Map(data.h.map((h, i) => [h[0], i]));
  }
  async function inflate(base64) {
    const bin = atob(base64.trim()), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  }
  // The data a script element carries (reports/html.py gzip_script): plain JSON, or gzipped in
  // base64 and inflated with DecompressionStream; the replayer's hands and the filter bar's rows.
  const CANNOT_INFLATE = "DecompressionStream (Chrome 80, Firefox 113, Safari 16.4 or newer)";
  function readPacked(data) {
    if (data.type === "application/json") return Promise.resolve(JSON.parse(data.textContent));
    if (typeof DecompressionStream === "undefined") return Promise.reject(new Error("no DecompressionStream"));
    return inflate(data.textContent).then(text => JSON.parse(text));
  }
  function handsIn(state) {  // the data is in (or cannot be): say so, open a hand asked for meanwhile
    handState = state;
    document.body.dataset.replayer = state === "ready" ? "ready" : "unavailable";
    const standalone = $("#replayer[data-standalone]");
    if (standalone) showHand(standalone.dataset.standalone); else route();
  }
  function loadHands() {  // settles once the hands are in, or cannot be
    const data = $("#hand-data");
    if (!data) { handsIn("ready"); return Promise.resolve(); }
    if (data.type === "application/json") { unpacked(JSON.parse(data.textContent)); handsIn("ready"); return Promise.resolve(); }
    if (typeof DecompressionStream === "undefined") {
      handsIn("This browser cannot open the hands this page carries: the replayer needs " + CANNOT_INFLATE + "; ofc-stats hand KEY shows this one.");
      return Promise.resolve();
    }
    return readPacked(data).then(d => { unpacked(d); handsIn("ready"); })
      .catch(e => handsIn("The hands this page carries could not be read (" + e + "); ofc-stats hand KEY shows this one."));
  }
  window.ofcHands = () => Object.fromEntries(Array.from(where.keys(), k => [k, handOf(k)]));  // tests read them
  function isCarried(key) {  // before the data is in, from the page's index of it
    if (handState === "ready" && !carried) return where.has(key);
    if (!carried) {
      const index = JSON.parse(($("#hand-index") || {textContent: '{"at": [], "keys": []}'}).textContent);
      carried = new Set(index.keys);
      const keys = L ? L.hands.key : [];
      index.at.forEach(([a, b]) => { for (let i = a; i < b && i < keys.length; i++) carried.add(keys[i]); });
    }
    return carried.has(key);
  }
  const SUITS = {c: "♣", d: "♦", h: "♥", s: "♠"};
  function card(text, extra) {
    const suit = text.slice(-1), rank = text.slice(0, -1);
    const c = el("span", "c " + (SUITS[suit] ? "s-" + suit : "joker") + (extra ? " " + extra : ""));
    c.textContent = SUITS[suit] ? rank + SUITS[suit] : text;
    c.title = text;
    return c;
  }
  function signed(v) { return v === null || v === undefined ? "–" : (v > 0 ? "+" : "") + Number(v).toLocaleString("en", {maximumFractionDigits: 2}); }
  function points2(v) { return v === null || v === undefined ? "–" : Number(v).toFixed(2); }
  function gradeView(g) {  // a graded street as `ofc-stats hand` says it, and the candidates' values
    const box = el("div", "grade");
    box.appendChild(el("div", "facts", "played: " + (g.played ?? "–")));
    if (g.loss === null || g.loss === undefined) {
      box.appendChild(el("div", "facts", "not graded" + (g.status ? ": " + g.status : "")));
    } else if (g.loss <= 0) {  // a race within 2 SE keeps the play made: no loss, not a proof of the best
      box.appendChild(el("div", "facts", "no expected loss: the best play, or within 2 SE of it"));
    } else {
      box.appendChild(el("div", "facts loss", "expected loss " + points2(g.loss) + " ± " + points2(g.loss_se || 0) + "; best: " + (g.best ?? "–")));
    }
    if (g.candidates && g.candidates.length) {
      const table = el("table", "candidates"), head = el("tr");
      ["play", "expected points", "± SE", ""].forEach(h => head.appendChild(el("th", "", h)));
      table.appendChild(el("thead")).appendChild(head);
      const body = el("tbody");
      g.candidates.forEach(c => {
        const tr = el("tr", (c.chosen ? "chosen" : "") + (c.best ? " best" : ""));
        [c.play, points2(c.ev), points2(c.se), [c.chosen ? "played" : "", c.best ? "best" : "", c.above_best ? "above the best, within the noise" : ""].filter(Boolean).join(", ")].forEach(v => tr.appendChild(el("td", "", v)));
        body.appendChild(tr);
      });
      table.appendChild(body);
      box.appendChild(table);
    }
    return box;
  }
  function moneyOf(v, currency) {  // as `ofc-stats hand` writes it: sign, cents, currency
    const text = Math.abs(v) < 0.005 ? "0.00" : (v > 0 ? "+" : "") + Number(v).toLocaleString("en", {minimumFractionDigits: 2, maximumFractionDigits: 2});
    return currency ? text + " " + currency : text;
  }
  function seatView(seat, upto, currency) {
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
    const graded = known && upto < 99 ? seat.streets.find(s => s.street === upto) : null;
    if (graded && graded.grade) box.appendChild(gradeView(graded.grade));
    if (upto >= 99) {
      const r = seat.royalties;
      const facts = [
        seat.fouled ? "fouled" : "royalties " + (r.total ?? "–") + " (top " + (r.top ?? "–") + ", middle " + (r.middle ?? "–") + ", bottom " + (r.bottom ?? "–") + ")",
        "points " + signed(seat.net_capped) + " (engine)" + (seat.reported_points !== null ? ", " + signed(seat.reported_points) + " (room)" : ""),
      ];
      if (seat.reported_money !== null) facts.push("money " + moneyOf(seat.reported_money, currency));
      const vs = Object.entries(seat.versus).map(([o, p]) => "seat " + o + ": " + signed(p));
      if (vs.length) facts.push("against " + vs.join(", "));
      if (seat.fantasy_entry) facts.push("earns Fantasyland (" + seat.fantasy_entry + " cards)");
      if (seat.fantasy_stays) facts.push("stays in Fantasyland");
      facts.forEach(f => box.appendChild(el("div", "facts", f)));
    }
    return box;
  }
  function showHand(key) {
    const hand = handOf(key), view = $("#replayer");
    if (!view) return;
    const panel = $(".panel", view);
    if (!hand) {
      if (handState === "ready") return;
      panel.replaceChildren();  // a hand opened before its data is in: it follows, or one line says why not
      const head = el("header");
      head.appendChild(el("h2", "", "Hand " + key));
      const close = el("button", "close", "Close");
      close.addEventListener("click", () => { if (location.hash.startsWith("#hand=")) history.pushState("", "", location.pathname + location.search); view.hidden = true; });
      head.appendChild(close);
      panel.appendChild(head);
      panel.appendChild(el("p", handState === "loading" ? "caption" : "caption warning", handState === "loading" ? "Reading the hand data…" : handState.replace("KEY", key)));
      view.hidden = false;
      return;
    }
    panel.replaceChildren();
    const head = el("header");
    const title = el("div");
    title.appendChild(el("h2", "", "Hand " + (hand.room_hand_id || hand.key)));
    title.appendChild(el("p", "meta", [hand.room, hand.table ? "table " + hand.table : "", hand.played_at, hand.ruleset, hand.stakes !== null ? hand.stakes + " " + (hand.currency || "") + " a point" : ""].filter(Boolean).join(" · ")));
    head.appendChild(title);
    if (!view.hasAttribute("data-standalone")) {  // a page of this one hand: nothing to close to
      const close = el("button", "close", "Close");
      close.addEventListener("click", () => { if (location.hash.startsWith("#hand=")) history.pushState("", "", location.pathname + location.search); view.hidden = true; });
      head.appendChild(close);
    }
    panel.appendChild(head);
    const count = Math.max(0, ...hand.seats.map(s => s.streets.length));
    const bar = el("div", "streets"), seats = el("div", "seats");
    function draw(upto) {
      $$("button", bar).forEach(b => b.setAttribute("aria-pressed", String(Number(b.dataset.street) === upto)));
      seats.replaceChildren(...hand.seats.map(s => seatView(s, upto, hand.currency)));
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


  // ---- The live page: every filtered number is recomputed here from the rows the page carries.
  const Z95 = 1.959963984540054, TOL = 0.005, SHOWN = 50, WORST = 12, PERIODS = 60;
  let L = null;  // the carried data (reports/explore.py)
  // One Intl.NumberFormat per number of decimals: what Number.toLocaleString("en", those
  // options) builds at each call (a stakes label a hand, 200,000 of them: seconds).
  const FORMATS = new Map();
  const num = (v, d) => {
    if (v === null || v === undefined || !isFinite(v)) return "–";
    const k = d === undefined ? 2 : d;
    let f = FORMATS.get(k);
    if (!f) FORMATS.set(k, f = new Intl.NumberFormat("en", {minimumFractionDigits: k, maximumFractionDigits: k}));
    return f.format(Number(v));
  };
  const int = v => num(v, 0);
  const pct = v => v === null || !isFinite(v) ? "–" : (100 * v).toFixed(1) + "%";
  function stakesLabel(s, c) { return s === null ? "no stakes" : num(s, s % 1 ? 2 : 0) + (c ? " " + c : ""); }
  function iso(t) { return t === null ? "" : new Date(t * 1000).toISOString().slice(0, 19).replace("T", " "); }
  const DAYS = new Map();  // day number -> its text, made once a day rather than once a hand
  function day(t) {
    if (t === null) return "";
    const n = Math.floor(t / 86400);
    let d = DAYS.get(n);
    if (d === undefined) DAYS.set(n, d = new Date(n * 86400000).toISOString().slice(0, 10));
    return d;
  }
  function week(t) {  // the Monday starting the week, as a day
    if (t === null) return "";
    const d = new Date(t * 1000), back = (d.getUTCDay() + 6) % 7;
    return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - back)).toISOString().slice(0, 10);
  }
  // [n, mean, low, high] of the non-null values: the normal 95% interval, none (null) under
  // L.min_hands values (reports/stats.py MIN_HANDS: one hand's "interval" is the point)
  function moments(values) {
    let n = 0, s = 0, q = 0;
    values.forEach(v => { if (v !== null && v !== undefined) { n += 1; s += v; q += v * v; } });
    if (!n) return [0, null, null, null];
    const mean = s / n;
    if (n < Math.max(2, L.min_hands)) return [n, mean, null, null];
    const sd = Math.sqrt(Math.max(0, (q - n * mean * mean) / (n - 1))), half = Z95 * sd / Math.sqrt(n);
    return [n, mean, mean - half, mean + half];
  }
  // A rate per hour of play: none without hours, or over fewer than L.min_hands hands (a
  // hand or two make an hour's rate of their points times 30 or 60).
  const perHour = (total, hours, hands) => hours && hands >= L.min_hands ? total / hours : null;
  const tooFew = () => "from " + L.min_hands + " hands up (fewer say nothing)";
  const noInterval = () => "no 95% interval under " + L.min_hands + " hands: fewer say nothing";
  const whisker = (a, b) => a === null || b === null ? 0 : Math.max(0, a - b);
  function order(a, b) {  // arrays compared item by item: numbers as numbers, texts as texts
    for (let k = 0; k < a.length; k++) {
      if (a[k] === b[k]) continue;
      if (typeof a[k] === "number" && typeof b[k] === "number") return a[k] - b[k];
      return String(a[k]) < String(b[k]) ? -1 : 1;
    }
    return 0;
  }
  function sum(values) { let s = 0; values.forEach(v => { if (v !== null && v !== undefined) s += v; }); return s; }

  function state() {
    const v = id => ($("#" + id) || {}).value || "";
    return {room: v("f-room"), stakes: v("f-stakes"), from: v("f-from"), to: v("f-to"), seats: v("f-seats"), opponent: v("f-opponent")};
  }
  function active(f) { return Object.values(f).some(Boolean); }
  function kept(f) {  // indexes of the carried hands the filter bar keeps, oldest first
    const h = L.hands, out = [];
    const room = f.room === "" ? -1 : L.rooms.indexOf(f.room);
    const opp = f.opponent === "" ? -1 : L.opponents.indexOf(f.opponent);
    // "stakes|currency", split at the first bar only: a currency from the files may hold one
    const bar = f.stakes.indexOf("|");
    const [stakes, cur] = f.stakes === "" ? [null, null] : [f.stakes.slice(0, bar), f.stakes.slice(bar + 1)];
    for (let i = 0; i < h.key.length; i++) {
      if (room >= 0 && h.room[i] !== room) continue;
      if (f.room && room < 0) continue;
      if (stakes !== null && (h.stakes[i] !== Number(stakes) || L.currencies[h.cur[i]] !== cur)) continue;
      if (f.seats && String(h.seats[i]) !== f.seats) continue;
      if (f.opponent && (opp < 0 || !h.opp[i].includes(opp))) continue;
      const d = day(h.t[i]);
      if (f.from && (!d || d < f.from)) continue;
      if (f.to && (!d || d > f.to)) continue;
      out.push(i);
    }
    return out;
  }

  // A table built from columns and rows: sortable, with a row filter, every cell labelled for phones.
  function makeTable(id, title, caption, columns, rows, opts) {
    opts = opts || {};
    const wide = columns.length > 6 || (columns.length > 4 && columns.some(c => c.link));
    const block = el("div", "table-block card live" + (wide ? " wide" : ""));
    block.id = "table-" + id;
    block.appendChild(el("h3", "", title));
    if (caption) block.appendChild(el("p", "caption", caption));
    const tools = el("div", "table-tools");
    const filter = el("input", "filter");
    filter.type = "search"; filter.placeholder = "filter rows"; filter.setAttribute("aria-label", "filter " + title);
    tools.appendChild(filter); tools.appendChild(el("span", "count"));
    block.appendChild(tools);
    const scroll = el("div", "scroll"), table = el("table", "data" + (columns.length <= 3 ? " few" : "")), head = el("thead"), tr = el("tr");
    columns.forEach(c => {
      const th = el("th", c.num ? "num" : "text", c.label);
      th.dataset.type = c.num ? "num" : "text";
      th.addEventListener("click", () => sortBy(th));
      tr.appendChild(th);
    });
    head.appendChild(tr); table.appendChild(head);
    const body = el("tbody");
    rows.slice(0, opts.limit || 500).forEach(r => {
      const row = el("tr");
      columns.forEach((c, j) => {
        const v = r[j], td = el("td", c.num ? "" : "text");
        td.dataset.label = c.label;
        if (c.num) td.dataset.v = v === null || v === undefined ? "" : String(v);
        if (c.link && v) {
          if (isCarried(v)) { const a = el("a", "hand", v); a.href = "#hand=" + encodeURIComponent(v); td.appendChild(a); }
          else { const s = el("span", "hand-key", v); s.title = "not carried by this page: ofc-stats hand " + v; td.appendChild(s); }
        } else if (c.opponent && v) {
          const a = el("a", "opponent", v); a.href = "#opponent=" + encodeURIComponent(v); td.appendChild(a);
        } else td.textContent = c.fmt ? c.fmt(v, r) : (v === null || v === undefined ? "–" : String(v));
        row.appendChild(td);
      });
      body.appendChild(row);
    });
    table.appendChild(body); scroll.appendChild(table); block.appendChild(scroll);
    const count = () => {
      const text = filter.value.toLowerCase(); let shown = 0;
      Array.from(body.rows).forEach(r => { r.hidden = !!text && !r.textContent.toLowerCase().includes(text); if (!r.hidden) shown += 1; });
      $(".count", block).textContent = (shown === body.rows.length ? rowsText(body.rows.length) : shown.toLocaleString("en") + " of " + rowsText(body.rows.length))
        + (rows.length > body.rows.length ? " (of " + rows.length.toLocaleString("en") + ")" : "");
    };
    filter.addEventListener("input", count); count();
    return block;
  }
  // Names from hand histories shown by plotly as themselves: it reads markup and %{…} in labels.
  const esc = t => String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/%\{/g, "%&#123;");
  let drawn = [];  // charts drawn since the last fit(): a grid's later cards narrow earlier ones
  function fit() {
    if (window.Plotly) drawn.forEach(div => { if (div.isConnected) window.Plotly.Plots.resize(div).then(() => fitAxisTitles(div)); });
    drawn = [];
  }
  // plotly.js (4.8 MB, most of the time to open the page) runs once the rest of the page is
  // drawn: it is carried as text (#plotly-js), and the charts asked for before it ran wait
  // here, each in a box of its height.
  let waiting = [];
  function chart(div, data, layout) {
    if (window.Plotly) { newPlot(div, data, layout); return; }
    div.style.minHeight = (layout.height || 450) + "px";
    waiting.push([div, data, layout]);
  }
  function startPlotly() {
    const source = $("#plotly-js");
    if (source && !window.Plotly) {
      const run = document.createElement("script");
      run.textContent = source.textContent;
      document.head.appendChild(run);
      source.remove();
    }
    if (!window.Plotly) return;
    const todo = waiting, plotted = [];
    waiting = [];
    todo.forEach(([div, data, layout]) => {
      div.style.minHeight = "";
      if (!div.isConnected) return;  // redrawn by a filter meanwhile
      plotted.push(newPlot(div, data, layout));
      drawn.push(div);
    });
    fit();
    Promise.all(plotted).then(() => { document.body.dataset.charts = "1"; });  // axis titles fitted too
  }
  function newPlot(div, data, layout) { return window.Plotly.newPlot(div, data, layout, CHART_CONFIG).then(fitAxisTitles); }
  // plotly never wraps an axis title: on a phone a long one ran past the chart's box and was
  // cut off. One that does not fit is wrapped to the plot's width (plotly centres it there).
  function fitAxisTitles(div) {
    const full = div._fullLayout, svg = div.querySelector(".main-svg");
    if (!full || !svg || !div.isConnected) return div;
    const box = svg.getBoundingClientRect(), update = {};
    ["x", "y"].forEach(a => {
      const shown = div.querySelector(".g-" + a + "title text"), axis = full[a + "axis"];
      if (!shown || !axis || !axis.title || !axis.title.text) return;
      const r = shown.getBoundingClientRect();
      if (r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5) return;
      const lines = axis.title.text.split("<br>"), widest = Math.max(...lines.map(l => l.length));
      const each = (a === "x" ? r.width : r.height) / widest, room = a === "x" ? full._size.w : full._size.h;
      const wrapped = wrapTitle(lines.join(" "), Math.max(8, Math.floor(room / each) - 1)).join("<br>");
      if (wrapped !== axis.title.text) update[a + "axis.title.text"] = wrapped;
    });
    return Object.keys(update).length ? window.Plotly.relayout(div, update).then(() => div) : div;
  }
  function afterPaint(then) { requestAnimationFrame(() => setTimeout(then, 0)); }
  function wrapTitle(text, width) {  // plotly never wraps a title; a phone is narrow
    const lines = [];
    text.split(" ").forEach(w => { if (lines.length && lines[lines.length - 1].length + 1 + w.length <= width) lines[lines.length - 1] += " " + w; else lines.push(w); });
    return lines;
  }
  // On a phone the toolbar covered the chart's title (flat) or its right edge (upright): a
  // phone zooms by pinching, and `ofc-stats report --format png` writes each chart's picture.
  const PHONE = !!(window.matchMedia && window.matchMedia("(max-width: 600px)").matches);
  const CHART_CONFIG = {responsive: true, displaylogo: false, displayModeBar: PHONE ? false : "hover", modeBarButtonsToRemove: ["lasso2d", "select2d"]};
  function plot(box, id, data, layout) {
    const card = el("div", "card"), div = el("div", "chart");
    div.id = id; card.appendChild(div); box.appendChild(card);
    if (layout.title && layout.title.text) {  // titles are ours; the page escapes nothing here
      const lines = wrapTitle(layout.title.text, Math.max(24, Math.floor((div.clientWidth || 600) / 8.5)));
      layout.title.text = lines.join("<br>");
      layout.margin = Object.assign({l: 10, r: 10, t: 44, b: 40}, layout.margin || {});
      layout.margin.t += 20 * (lines.length - 1);
    }
    const base = {margin: {l: 10, r: 10, t: 44, b: 40}, font: {size: 13}, hovermode: "closest", paper_bgcolor: "rgba(0,0,0,0)", legend: {orientation: "h", y: -0.3}};
    chart(div, data, Object.assign(base, layout));
    drawn.push(div);
    return div;
  }
  const title = t => ({text: t, x: 0, xanchor: "left", font: {size: 15}});
  function thin(n, xOf, yOf) {  // at most 2,000 of n points a line, the last kept (x made for those only)
    const step = Math.max(1, Math.floor(n / 2000)), x = [], y = [];
    for (let i = 0; i < n; i += step) { x.push(xOf(i)); y.push(yOf(i)); }
    if (n && x[x.length - 1] !== xOf(n - 1)) { x.push(xOf(n - 1)); y.push(yOf(n - 1)); }
    return [x, y];
  }

  function dateAxis(times) {  // a date axis with the days nobody played left out
    const axis = {type: "date", automargin: true};
    if (!times.length) return axis;
    const played = new Set(times.map(day)), first = Date.parse(day(times[0])), last = Date.parse(day(times[times.length - 1]));
    const missing = [];
    for (let t = first; t <= last && missing.length <= 5000; t += 86400000) { const d = new Date(t).toISOString().slice(0, 10); if (!played.has(d)) missing.push(d); }
    if (missing.length && missing.length <= 5000) axis.rangebreaks = [{values: missing, dvalue: 86400000}];
    return axis;
  }

  // One definition with reports/sessions.py (SESSIONS_SQL): a session is consecutive hands of
  // one format at one room's table, no gap over the session gap, in time then hand-key order;
  // a table's hands without a time are one group (untimed: no start, no minutes), not a
  // session each; a session's minutes run from its first hand to its last plus a minute.
  function sessionsOf(idx) {
    const h = L.hands, gap = L.session_gap * 60;
    const time = i => h.t[i] === null ? Infinity : h.t[i];  // no time: last, as DuckDB sorts NULLs
    const text = (a, b) => a < b ? -1 : a > b ? 1 : 0;
    const order = idx.slice().sort((a, b) => h.fmt[a] - h.fmt[b] || h.room[a] - h.room[b] || h.table[a] - h.table[b]
      || time(a) - time(b) || text(h.key[a], h.key[b]));
    const out = [];
    let cur = null;
    order.forEach(i => {
      const last = cur && cur.last;
      if (!cur || h.fmt[i] !== h.fmt[last] || h.room[i] !== h.room[last] || h.table[i] !== h.table[last]
          || (h.t[i] === null ? h.t[last] !== null : h.t[last] === null || h.t[i] - h.t[last] > gap)) {
        cur = {first: i, last: i, hands: []}; out.push(cur);
      }
      cur.last = i; cur.hands.push(i);
    });
    out.forEach(s => { s.untimed = h.t[s.first] === null; s.minutes = s.untimed ? null : (h.t[s.last] - h.t[s.first]) / 60 + 1; });
    // by start (no time last), room, table: the order of the sessions table in Python
    return out.sort((a, b) => time(a.first) - time(b.first) || h.room[a.first] - h.room[b.first] || h.table[a.first] - h.table[b.first]);
  }
  // The results and the sessions table ask for the sessions of the same hands: made once (a
  // copy of the list each time; the sessions themselves are only read).
  let lastSessions = null;
  function sessionsOfScored(scored) {
    const last = lastSessions;
    if (!last || last[0].length !== scored.length || last[0].some((i, k) => i !== scored[k])) lastSessions = [scored, sessionsOf(scored)];
    return lastSessions[1].slice();
  }
  function moneyBy(idx) {  // currency -> [hands with money, net money]: paid money is a fact, scored or not
    const h = L.hands, out = {};
    idx.forEach(i => { if (h.money[i] !== null) { const c = L.currencies[h.cur[i]] || "no currency"; out[c] = out[c] || [0, 0]; out[c][0] += 1; out[c][1] += h.money[i]; } });
    return out;
  }
  function moneyText(m) { const e = Object.entries(m); return e.length ? e.map(([c, v]) => (v[1] > 0 ? "+" : "") + num(v[1]) + " " + c).join(", ") : "–"; }

  // Signed points as the summary writes them: +1.19, -0.30, 0.00 (reports/live_figures.py signed).
  function plusNum(v, d) {
    const t = num(v, d);
    if (t === "–") return t;
    return /[1-9]/.test(t) ? (v > 0 ? "+" + t : t) : t.replace("-", "");
  }
  // The fouls and Fantasyland sections' headline figures over the hands kept: the same
  // arithmetic, in the same order, as reports/live_figures.py, which draws them for every
  // hand (unfiltered, the two say the same text).
  function wilson(k, n) {  // reports/stats.py wilson, step for step
    const rate = k / n, z2 = Z95 * Z95, centre = (rate + z2 / (2 * n)) / (1 + z2 / n);
    let half = Z95 * Math.sqrt(rate * (1 - rate) / n + z2 / (4 * n * n));
    half /= 1 + z2 / n;
    return [rate, Math.min(Math.max(0, centre - half), rate), Math.max(Math.min(1, centre + half), rate)];
  }
  function figuresOf(idx) {
    const h = L.hands, f = {normal: 0, fouls: 0, entries: 0, fieldSeats: 0, fieldFouls: 0, flPoints: []};
    idx.forEach(i => {
      if (!h.scored[i]) return;
      f.fieldSeats += h.f_seats[i]; f.fieldFouls += h.f_fouls[i];
      if (h.fl[i]) { if (h.points[i] !== null) f.flPoints.push(h.points[i]); return; }
      f.normal += 1;
      if (h.foul[i]) f.fouls += 1;
      if (h.earns[i]) f.entries += 1;
    });
    return f;
  }
  function rateText(k, n) { const [rate, low, high] = wilson(k, n); return pct(rate) + " (" + int(k) + " of " + int(n) + "; 95% interval " + pct(low) + " to " + pct(high) + ")"; }
  function foulsText(f) {
    const mine = f.normal ? "Your foul rate over these normal hands: " + rateText(f.fouls, f.normal) + "." : "Your foul rate: no normal hand among these hands.";
    if (!f.fieldSeats) return mine + " The field's: no opponent's normal hand in these hands.";
    return mine + " The field's, over your opponents' normal hands in these hands: " + rateText(f.fieldFouls, f.fieldSeats) + ".";
  }
  function fantasyText(f) {
    const entry = f.normal ? "Your Fantasyland entry rate over these normal hands: " + rateText(f.entries, f.normal) + "." : "Your Fantasyland entry rate: no normal hand among these hands.";
    const n = f.flPoints.length;
    if (!n) return entry + " No Fantasyland hand among these hands.";
    const [, mean, low, high] = moments(f.flPoints);
    const interval = low === null ? noInterval() : "95% interval " + plusNum(low, 2) + " to " + plusNum(high, 2);
    return entry + " " + (n === 1 ? "1 Fantasyland hand" : int(n) + " Fantasyland hands") + ": " + plusNum(sum(f.flPoints), 0) + " points, " + plusNum(mean, 2) + " per hand (" + interval + ").";
  }
  // The royalties section's line (reports/live_figures.py royalty_figures): per row, each
  // [class, royalty] kind's boards, a row's points summed kind by kind in the kinds' order.
  const ROWS = ["top", "middle", "bottom"], ROW_CODES = ["rk_top", "rk_mid", "rk_bot"];
  function royaltyFiguresOf(idx) {
    const h = L.hands, kinds = L.royalty_kinds, scored = idx.filter(i => h.scored[i]);
    const boards = scored.filter(i => !h.foul[i]).length, rows = [], sources = [];
    ROW_CODES.forEach((name, row) => {
      const counts = new Array(kinds.length).fill(0);
      let n = 0, total = 0;
      scored.forEach(i => { const k = h[name][i]; if (k >= 0) { counts[k] += 1; n += 1; } });
      const byClass = new Map();
      kinds.forEach(([label, royalty], k) => {
        const count = counts[k];
        if (!count) return;
        total += count * royalty;
        if (!byClass.has(label)) byClass.set(label, [0, 0]);
        const paid = byClass.get(label);
        paid[0] += count * royalty; paid[1] += count;
      });
      rows.push([n, total]);
      byClass.forEach(([points, count], label) => sources.push([points, count, row, label]));
    });
    const rank = (a, b) => b[0] - a[0] || b[1] - a[1] || a[2] - b[2] || (a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0);
    const best = sources.sort(rank)[0];
    return {boards: boards, rows: rows, best: best ? [best[3], ROWS[best[2]], best[0], best[1]] : null};
  }
  const boardsText = n => n === 1 ? "1 board" : int(n) + " boards";
  function royaltiesText(r) {
    if (!r.boards) return "Your royalties: no live (unfouled) board among these hands.";
    let total = 0;
    r.rows.forEach(([, points]) => { total += points; });
    const each = r.rows.map(([n, points], k) => ROWS[k] + " " + (n ? num(points / n, 2) : "–")).join(", ");
    const line = "Your royalties over these hands' " + int(r.boards) + " live boards: " + num(total, 0) + " points, " + num(total / r.boards, 2) + " a board (" + each + ").";
    if (r.best === null || r.best[2] <= 0) return line + " None of them paid a royalty.";
    const [label, row, points, count] = r.best;
    return line + " The biggest source: " + label + " in the " + row + " row, " + num(points, 0) + " points from " + boardsText(count) + ".";
  }
  // The regret section's line (reports/live_figures.py regret_figures): the graded hands'
  // street-decision loss, and each named leak's loss summed hand by hand (its SE over hands).
  function regretFiguresOf(idx) {
    const h = L.hands, leaks = L.leaks, scored = idx.filter(i => h.scored[i]);
    const normal = scored.filter(i => !h.fl[i]).length;
    let graded = 0, total = 0, squares = 0;
    scored.forEach(i => { const v = h.sloss[i]; if (v !== null) { graded += 1; total += v; squares += v * v; } });
    const wanted = new Uint8Array(h.key.length);
    scored.forEach(i => { wanted[i] = 1; });
    const sums = new Map();  // leak -> [sum, squares, decisions, hand, this hand's]
    leaks.at.forEach((row, k) => {
      if (!wanted[row]) return;
      const leak = leaks.leak[k];
      if (!sums.has(leak)) sums.set(leak, [0, 0, 0, -1, 0]);
      const s = sums.get(leak);
      if (s[3] !== row) { s[0] += s[4]; s[1] += s[4] * s[4]; s[3] = row; s[4] = 0; }
      s[2] += 1; s[4] += leaks.loss[k];
    });
    let costliest = null;
    sums.forEach((s, leak) => {
      s[0] += s[4]; s[1] += s[4] * s[4];
      const here = [leaks.names[leak], s[0], s[1], s[2]];
      if (costliest === null || here[1] > costliest[1] || (here[1] === costliest[1] && (here[3] > costliest[3] || (here[3] === costliest[3] && here[0] < costliest[0])))) costliest = here;
    });
    return {normal: normal, graded: graded, total: total, squares: squares, leak: costliest};
  }
  function per100Text(total, squares, n) {  // reports/live_figures.py per_100_text
    const mean = total / n;
    if (n < 2) return num(100 * mean, 1) + " (no SE from one hand)";
    const sd = Math.sqrt(Math.max(0, (squares - n * mean * mean) / (n - 1)));
    return num(100 * mean, 1) + " ± " + num(100 * sd / Math.sqrt(n), 1);
  }
  function regretText(r) {
    if (!r.graded) return "Street decisions: no graded hand among these hands.";
    const over = "over these " + (r.graded === 1 ? "1 graded hand" : int(r.graded) + " graded hands") + " of " + (r.normal === 1 ? "1 normal hand" : int(r.normal) + " normal hands");
    if (r.total <= 0) return "Street decisions " + over + ": no decision lost expected points beyond 2 SE of the grader's noise (0 per 100 hands).";
    const line = "Street decisions " + over + ": " + per100Text(r.total, r.squares, r.graded) + " expected points lost per 100 hands against the best legal play.";
    if (r.leak === null) return line + " No named leak among them.";
    const [name, total, squares, decisions] = r.leak;
    return line + " The costliest named leak among them: " + name + ", " + per100Text(total, squares, r.graded) + " per 100 hands (" + (decisions === 1 ? "1 decision" : int(decisions) + " decisions") + ").";
  }
  function drawFigures(idx) {
    const f = figuresOf(idx), fouls = $("#live-fouls"), fantasy = $("#live-fantasy");
    if (fouls) fouls.textContent = foulsText(f);
    if (fantasy) fantasy.textContent = fantasyText(f);
    const royalties = $("#live-royalties"), regret = $("#live-regret");
    if (royalties) royalties.textContent = royaltiesText(royaltyFiguresOf(idx));
    if (regret) regret.textContent = regretText(regretFiguresOf(idx));
  }

  function drawResults(idx) {
    const h = L.hands, box = $("#live-results");
    box.replaceChildren();
    const scored = idx.filter(i => h.scored[i]);
    const [n, mean, low, high] = moments(scored.map(i => h.points[i]));
    const groups = sessionsOfScored(scored), sessions = groups.filter(s => !s.untimed), hours = sum(sessions.map(s => s.minutes)) / 60;
    const untimed = sum(groups.filter(s => s.untimed).map(s => s.hands.length));
    const net = sum(scored.map(i => h.points[i]));
    const fouls = scored.filter(i => h.foul[i]).length, normal = scored.filter(i => !h.fl[i]);
    const fl = scored.length - normal.length, entered = normal.filter(i => h.earns[i]).length;
    const graded = scored.filter(i => h.loss[i] !== null);
    const rows = [
      ["hands", n, 0], ["net points", net, 0, true], ["points per hand", mean, 2, true], ["95% interval, low", low, 2, true], ["95% interval, high", high, 2, true],
      ["sessions", sessions.length, 0], ...(untimed ? [["hands without a time (in no session)", untimed, 0]] : []),
      ["hours of play (table-hours)", hours, 1], ["points per hour of play", perHour(net, hours, n - untimed), 1, true],
      ["fouled boards", fouls, 0], ["foul rate of normal hands", normal.length ? normal.filter(i => h.foul[i]).length / normal.length : null, "%"], ["Fantasyland hands", fl, 0],
      ["Fantasyland reached from normal hands", normal.length ? entered / normal.length : null, "%"],
      ["royalties per hand", n ? sum(scored.map(i => h.roy[i])) / n : null, 2],
    ];
    if (graded.length) rows.push(["graded hands (street decisions or a Fantasyland set; the regret section counts street decisions only)", graded.length, 0], ["graded loss per hand (expected points)", sum(graded.map(i => h.loss[i])) / graded.length, 2]);
    Object.entries(moneyBy(idx)).sort().forEach(([c, [k, m]]) => {  // (as the report's summary counts it)
      rows.push(["money won (" + c + ")", m, 2, true], ["money per hand (" + c + ")", m / k, 2, true], ["money per hour of play (" + c + ")", perHour(m, hours, k), 2, true]);
    });
    const grid = el("div", "grid");
    box.appendChild(grid);  // in the page before plotly measures a chart
    grid.appendChild(makeTable("live-summary", "Summary", "every hand the filter bar keeps; an hour of play: a session's first to last hand plus a minute, summed over tables (hands without a time are in no session); the 95% interval and the rates per hour " + tooFew(),
      [{label: "measure"}, {label: "value", num: true, fmt: (v, r) => r[2] === "%" ? pct(v) : r[3] ? plusNum(v, r[2]) : num(v, r[2])}], rows));
    const hl = $("#live-headline");
    // The filter bar counts every hand kept; the results count the scored ones: say the rest.
    const unscored = idx.length - scored.length, unscoredMoney = idx.some(i => !h.scored[i] && h.money[i] !== null);
    const aside = unscored ? " (" + unscored.toLocaleString("en") + " more not scored: no points to count" + (unscoredMoney ? "; money won counts what the room paid on " + (unscored === 1 ? "it" : "them") : "") + ")" : "";
    // Every point figure signed, as the summary's other lines write them (reports/results.py).
    const hourly = perHour(net, hours, n - untimed), interval = low === null ? noInterval() : "95% interval " + plusNum(low, 2) + " to " + plusNum(high, 2);
    if (hl) hl.textContent = n ? "These " + n.toLocaleString("en") + " scored hands" + aside + ": " + plusNum(mean, 2) + " points per hand on average (" + interval + ")" + (hourly !== null ? ", " + plusNum(hourly, 1) + " points per hour of play." : ".") : "No hand matches the filter bar.";
    // Cumulative points over dates, and money per currency (never summed across currencies).
    const dated = scored.filter(i => h.t[i] !== null);
    // With the row points alone (royalties taken out, as the results' "without royalties")
    // and the Fantasyland hands marked on the points line, as the exported chart has them.
    let run = 0, rowsRun = 0; const cy = [], cr = [];
    dated.forEach(i => { run += h.points[i]; rowsRun += h.rows[i] || 0; cy.push(run); cr.push(rowsRun); });
    const [tx, ty] = thin(dated.length, k => iso(h.t[dated[k]]), k => cy[k]);
    const [, tr] = thin(dated.length, k => iso(h.t[dated[k]]), k => cr[k]);
    const times = dated.map(i => h.t[i]);
    const marked = dated.map((i, k) => h.fl[i] ? k : -1).filter(k => k >= 0).slice(-2000);
    plot(grid, "chart-live-cumulative", [
      {type: "scatter", mode: "lines", x: tx, y: ty, name: "points", line: {color: "#1f5fa8", width: 1.6}, hovertemplate: "%{x}<br>%{y:,.0f} points<extra></extra>"},
      {type: "scatter", mode: "lines", x: tx, y: tr, name: "without royalties", line: {color: "#8a8f98", width: 1.2, dash: "dot"}, hovertemplate: "%{x}<br>%{y:,.0f} points without royalties<extra></extra>"},
      {type: "scatter", mode: "markers", x: marked.map(k => iso(times[k])), y: marked.map(k => cy[k]), name: "Fantasyland hand", marker: {color: "#d68910", size: 6, symbol: "diamond"}, hovertemplate: "%{x}<br>Fantasyland hand, %{y:,.0f} points<extra></extra>"}],
      {title: title("Cumulative points over dates (days without play left out)"), xaxis: dateAxis(times), yaxis: {title: {text: "points"}, automargin: true}, height: 340, showlegend: true, legend: {orientation: "h", y: -0.2}});
    const byCur = {};
    dated.forEach(i => { if (h.money[i] !== null) { const c = L.currencies[h.cur[i]] || "no currency"; (byCur[c] = byCur[c] || []).push(i); } });
    // One currency at a time (a menu picks it, the one with most hands first): never summed.
    const money = Object.entries(byCur).sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1)).map(([c, list], k) => {
      let m = 0; const y = [];
      list.forEach(i => { m += h.money[i]; y.push(m); });
      const [a, b] = thin(list.length, k => iso(h.t[list[k]]), k => y[k]);
      return {type: "scatter", mode: "lines", x: a, y: b, name: esc(c), currency: c, visible: k === 0, line: {color: "#1f5fa8", width: 1.6}, hovertemplate: "%{x}<br>%{y:,.2f} " + esc(c) + "<extra></extra>"};
    });
    if (money.length) {
      const layout = {title: title("Cumulative money over dates, one currency at a time"), xaxis: dateAxis(dated.filter(i => h.money[i] !== null).map(i => h.t[i])),
        yaxis: {title: {text: money[0].name}, automargin: true}, height: 340, showlegend: false, margin: {l: 10, r: 10, t: 70, b: 40}};
      if (money.length > 1) layout.updatemenus = [{type: "dropdown", x: 1, xanchor: "right", y: 1.18, yanchor: "top", showactive: true,
        buttons: money.map((m, k) => ({label: m.name + " (" + byCur[m.currency].length + " hands)", method: "update", args: [{visible: money.map((_, j) => j === k)}, {"yaxis.title.text": m.name}]}))}];
      plot(grid, "chart-live-money", money, layout);
    }
    drawPeriods(scored);
  }

  function drawPeriods(scored) {
    const h = L.hands, box = $("#live-periods");
    box.replaceChildren();
    const by = ($("#period-by") || {}).value === "week" ? "week" : "day";
    const key = by === "week" ? week : day, groups = new Map();
    const untimed = [];  // hands the room gave no time: a row of their own, as the CSV's blank day
    scored.forEach(i => { if (h.t[i] === null) { untimed.push(i); return; } const k = key(h.t[i]); if (!groups.has(k)) groups.set(k, []); groups.get(k).push(i); });
    const periods = Array.from(groups.keys()).sort();
    const row = (p, list, timed) => {
      const [n, mean, low, high] = moments(list.map(i => h.points[i]));
      const hours = timed ? sum(sessionsOf(list).map(s => s.minutes)) / 60 : null, net = sum(list.map(i => h.points[i]));
      return [p, n, net, mean, low, high, hours, perHour(net, hours, n), moneyText(moneyBy(list))];
    };
    const rows = periods.map(p => row(p, groups.get(p), true));
    const grid = el("div", "grid");
    box.appendChild(grid);  // in the page before plotly measures a chart
    const shown = rows.slice(-PERIODS);
    const more = rows.length > shown.length ? " (the last " + shown.length + " of " + rows.length + ")" : "";
    plot(grid, "chart-live-period", [{type: "bar", x: shown.map(r => r[0]), y: shown.map(r => r[3]), marker: {color: shown.map(r => r[3] >= 0 ? "#1f5fa8" : "#c0392b")},
      error_y: {type: "data", symmetric: false, array: shown.map(r => whisker(r[5], r[3])), arrayminus: shown.map(r => whisker(r[3], r[4])), color: "#8a8f98", thickness: 1.2, width: 3},
      customdata: shown.map(r => [r[1], r[4] === null ? noInterval() : "95% interval " + num(r[4]) + " to " + num(r[5])]),
      hovertemplate: "%{x}: %{y:,.2f} points per hand over %{customdata[0]} hands<br>%{customdata[1]}<extra></extra>"}],
      {title: title("Points per hand by " + by + more), xaxis: {type: "category", automargin: true}, yaxis: {title: {text: "points per hand"}, automargin: true, zeroline: true}, height: 340, showlegend: false, bargap: 0.25});
    plot(grid, "chart-live-hourly", [{type: "bar", x: shown.map(r => r[0]), y: shown.map(r => r[7]), marker: {color: shown.map(r => (r[7] || 0) >= 0 ? "#1f5fa8" : "#c0392b")},
      customdata: shown.map(r => [r[6], r[1]]), hovertemplate: "%{x}: %{y:,.1f} points per hour over %{customdata[0]:.1f} hours, %{customdata[1]} hands<extra></extra>"}],
      {title: title("Points per hour of play by " + by + more + " (from " + L.min_hands + " hands up)"), xaxis: {type: "category", automargin: true}, yaxis: {title: {text: "points per hour"}, automargin: true}, height: 340, showlegend: false, bargap: 0.25});
    grid.appendChild(makeTable("live-period", "By " + by, "points per hand with its 95% interval; the interval and points per hour " + tooFew() + "; money per currency, never summed across currencies",
      [{label: by}, {label: "hands", num: true, fmt: int}, {label: "net points", num: true, fmt: v => num(v, 0)}, {label: "points per hand", num: true, fmt: v => num(v)},
       {label: "95% low", num: true, fmt: v => num(v)}, {label: "95% high", num: true, fmt: v => num(v)}, {label: "hours", num: true, fmt: v => num(v, 1)},
       {label: "points per hour", num: true, fmt: v => num(v, 1)}, {label: "money"}], rows.slice().reverse().concat(untimed.length ? [row("no time", untimed, false)] : [])));
  }

  function grouped(idx, keyOf) {  // key -> indexes
    const m = new Map();
    idx.forEach(i => { const k = keyOf(i); if (!m.has(k)) m.set(k, []); m.get(k).push(i); });
    return m;
  }
  function drawSessions(idx) {
    const h = L.hands, box = $("#live-sessions");
    box.replaceChildren();
    const scored = idx.filter(i => h.scored[i]), grid = el("div", "grid");
    box.appendChild(grid);
    const sessions = sessionsOfScored(scored).reverse();
    grid.appendChild(makeTable("live-session-list", "Sessions", "newest first; a session: consecutive hands at one table, no gap over " + L.session_gap + " minutes; a table's hands without a time are one row, 'no time' (not a session: when they were played cannot be told); points per hour " + tooFew(),
      [{label: "start"}, {label: "minutes", num: true, fmt: v => num(v, 0)}, {label: "room"}, {label: "table"}, {label: "stakes"}, {label: "hands", num: true, fmt: int},
       {label: "net points", num: true, fmt: v => num(v, 0)}, {label: "points per hour", num: true, fmt: v => num(v, 1)}, {label: "money"}],
      sessions.map(s => { const net = sum(s.hands.map(i => h.points[i])); return [s.untimed ? "no time" : iso(h.t[s.first]).slice(0, 16), s.minutes, L.rooms[h.room[s.first]], L.tables[h.table[s.first]],
        stakesLabel(h.stakes[s.first], L.currencies[h.cur[s.first]]), s.hands.length, net, perHour(net, s.minutes && s.minutes / 60, s.hands.length), moneyText(moneyBy(s.hands))]; })));
    const groupTable = (id, name, label, keyOf, sortKey) => {
      const rows = Array.from(grouped(scored, keyOf).entries()).map(([k, list]) => {
        const [n, mean, low, high] = moments(list.map(i => h.points[i])), m = moneyBy(list);
        const only = Object.values(m).length === 1 ? Object.values(m)[0] : null;
        return [k, n, sum(list.map(i => h.points[i])), mean, low, high, moneyText(m), only ? only[1] / only[0] : null, sortKey ? sortKey(list[0]) : [k]];
      }).sort((a, b) => order(a[8], b[8]));
      grid.appendChild(makeTable(id, name, "95% intervals " + tooFew() + "; money per currency, never summed across currencies",
        [{label: label}, {label: "hands", num: true, fmt: int}, {label: "net points", num: true, fmt: v => num(v, 0)}, {label: "points per hand", num: true, fmt: v => num(v)},
         {label: "95% low", num: true, fmt: v => num(v)}, {label: "95% high", num: true, fmt: v => num(v)}, {label: "money"}, {label: "money per hand", num: true, fmt: v => num(v)}], rows));
      return rows;
    };
    // stakes as numbers, then by currency: 2 before 10, "0.50 USD" apart from "0.50 AUD"
    groupTable("live-stakes", "By stakes", "stakes", i => stakesLabel(h.stakes[i], L.currencies[h.cur[i]]), i => [h.stakes[i] === null ? Infinity : h.stakes[i], L.currencies[h.cur[i]]]);
    groupTable("live-rooms", "By room", "room", i => L.rooms[h.room[i]]);
    groupTable("live-seats", "By table size", "players", i => h.seats[i] + "-handed");
  }

  function opponentsOf(i) { return L.hands.opp[i].map(o => L.opponents[o]).join(", "); }
  function drawOpponents(idx) {
    const h = L.hands, box = $("#live-opponents");
    box.replaceChildren();
    const scored = idx.filter(i => h.scored[i]), per = new Map();
    scored.forEach(i => h.opp[i].forEach((o, k) => { if (!per.has(o)) per.set(o, []); per.get(o).push(h.vs[i][k]); }));
    const rows = Array.from(per.entries()).map(([o, pts]) => { const [n, mean, low, high] = moments(pts); return [L.opponents[o], n, mean, low, high, sum(pts)]; })
      .sort((a, b) => a[5] - b[5] || (a[0] < b[0] ? -1 : 1));
    const grid = el("div", "grid"), worst = rows.slice(0, WORST).filter(r => r[5] < 0);
    box.appendChild(grid);
    if (worst.length) {
      const label = "Points per hand against the " + (worst.length === 1 ? "opponent" : worst.length + " opponents") + " you lost most to (of " + rows.length + ")";
      plot(grid, "chart-live-opponents", [{type: "bar", orientation: "h", y: worst.map(r => esc(r[0])), x: worst.map(r => r[2]), marker: {color: "#c0392b"},
        error_x: {type: "data", symmetric: false, array: worst.map(r => whisker(r[4], r[2])), arrayminus: worst.map(r => whisker(r[2], r[3])), color: "#1d2430", thickness: 1.2, width: 3},
        customdata: worst.map(r => [r[1], r[5]]), hovertemplate: "%{y}: %{x:,.2f} a hand over %{customdata[0]} hands, %{customdata[1]:,.0f} in all<extra></extra>"}],
        {title: title(label), yaxis: {type: "category", autorange: "reversed", automargin: true}, xaxis: {title: {text: "points per hand against them (before caps)"}, automargin: true}, height: Math.max(240, 28 * worst.length + 110), showlegend: false});
    }
    grid.appendChild(makeTable("live-by-opponent", "Against each opponent", "every opponent of these hands, the one you lost most to first; open one for its page; 95% intervals " + tooFew(),
      [{label: "opponent", opponent: true}, {label: "hands", num: true, fmt: int}, {label: "points per hand", num: true, fmt: v => num(v)}, {label: "95% low", num: true, fmt: v => num(v)},
       {label: "95% high", num: true, fmt: v => num(v)}, {label: "net points", num: true, fmt: v => num(v, 0)}], rows));
    drawOpponent(idx);
  }
  function drawOpponent(idx) {  // one opponent's page: results, hands, biggest pots
    const h = L.hands, box = $("#live-opponent"), pick = $("#opponent-pick");
    if (!box || !pick) return;
    box.replaceChildren();
    const o = L.opponents.indexOf(pick.value);
    if (o < 0) { box.appendChild(el("p", "caption", "Choose an opponent (or click one in the table above) for the hands you played together.")); return; }
    const rows = [];
    idx.forEach(i => { const k = h.opp[i].indexOf(o); if (k >= 0 && h.scored[i]) rows.push([i, h.vs[i][k]]); });
    const [n, mean, low, high] = moments(rows.map(r => r[1]));
    const grid = el("div", "grid");
    box.appendChild(grid);  // in the page before plotly measures a chart
    const list = rows.map(r => r[0]);
    const summary = [["hands together", int(n)], ["your points against them", num(sum(rows.map(r => r[1])), 0)], ["per hand", num(mean)], ["95% interval", low === null ? noInterval() : num(low) + " to " + num(high)],
      ["your points in these hands (all opponents)", num(sum(list.map(i => h.points[i])), 0)], ["your money in these hands", moneyText(moneyBy(list))],
      ["first met", rows.length ? iso(h.t[list[0]]).slice(0, 16) : "–"], ["last met", rows.length ? iso(h.t[list[list.length - 1]]).slice(0, 16) : "–"]];
    grid.appendChild(makeTable("live-opponent-summary", "Against " + pick.value, "", [{label: "measure"}, {label: "value"}], summary));
    const handColumns = [{label: "played at"}, {label: "room"}, {label: "stakes"}, {label: "points against them", num: true, fmt: v => num(v, 0)}, {label: "your points", num: true, fmt: v => num(v, 0)}, {label: "hand", link: true}];
    const row = ([i, p]) => [iso(h.t[i]).slice(0, 16), L.rooms[h.room[i]], stakesLabel(h.stakes[i], L.currencies[h.cur[i]]), p, h.points[i], h.key[i]];
    grid.appendChild(makeTable("live-opponent-pots", "Biggest pots against " + pick.value, "the 10 hands with the most points between you", handColumns,
      rows.slice().sort((a, b) => Math.abs(b[1]) - Math.abs(a[1])).slice(0, 10).map(row)));
    grid.appendChild(makeTable("live-opponent-hands", "Hands with " + pick.value, "newest first", handColumns, rows.slice().reverse().map(row), {limit: 200}));
  }

  let browserShown = SHOWN;
  function drawBrowser(idx) {
    const h = L.hands, box = $("#live-browser");
    if (!box) return;
    box.replaceChildren();
    const text = (($("#hb-search") || {}).value || "").toLowerCase();
    const only = k => ($("#hb-" + k) || {}).checked;
    let list = idx.filter(i => {
      if (only("foul") && !h.foul[i]) return false;
      if (only("fl") && !h.fl[i]) return false;
      if (only("graded") && h.loss[i] === null) return false;
      if (!text) return true;
      return (h.key[i] + " " + L.rooms[h.room[i]] + " " + L.tables[h.table[i]] + " " + opponentsOf(i) + " " + day(h.t[i])).toLowerCase().includes(text);
    });
    const by = ($("#hb-sort") || {}).value || "newest";
    const cmp = {
      newest: (a, b) => (h.t[b] || 0) - (h.t[a] || 0), oldest: (a, b) => (h.t[a] || 0) - (h.t[b] || 0),
      room: (a, b) => L.rooms[h.room[a]].localeCompare(L.rooms[h.room[b]]) || (h.t[b] || 0) - (h.t[a] || 0),
      opponent: (a, b) => opponentsOf(a).localeCompare(opponentsOf(b)) || (h.t[b] || 0) - (h.t[a] || 0),
      lowest: (a, b) => (h.points[a] ?? 1e9) - (h.points[b] ?? 1e9), highest: (a, b) => (h.points[b] ?? -1e9) - (h.points[a] ?? -1e9),
      foul: (a, b) => h.foul[b] - h.foul[a] || (h.t[b] || 0) - (h.t[a] || 0), fl: (a, b) => h.fl[b] - h.fl[a] || (h.t[b] || 0) - (h.t[a] || 0),
      loss: (a, b) => (h.loss[b] ?? -1) - (h.loss[a] ?? -1),
    }[by];
    list = list.slice().sort(cmp);
    const rows = list.slice(0, browserShown).map(i => [iso(h.t[i]).slice(0, 16), L.rooms[h.room[i]], stakesLabel(h.stakes[i], L.currencies[h.cur[i]]), opponentsOf(i),
      h.points[i], h.money[i] === null ? "–" : num(h.money[i]) + " " + (L.currencies[h.cur[i]] || ""), h.foul[i] ? "fouled" : "", h.fl[i] ? "Fantasyland" : "", h.loss[i], h.key[i]]);
    box.appendChild(makeTable("live-hands", "Hands", list.length.toLocaleString("en") + " hands match; " + Math.min(list.length, browserShown) + " shown. A hand the page carries opens in the replayer; the rest open with `ofc-stats hand KEY`.",
      [{label: "played at"}, {label: "room"}, {label: "stakes"}, {label: "opponents"}, {label: "points", num: true, fmt: v => num(v, 0)}, {label: "money"}, {label: "foul"},
       {label: "Fantasyland"}, {label: "graded loss", num: true, fmt: v => num(v)}, {label: "hand", link: true}], rows, {limit: browserShown}));
    if (list.length > browserShown) {
      const more = el("button", "more", "Show " + Math.min(SHOWN * 4, list.length - browserShown) + " more");
      more.type = "button";
      more.addEventListener("click", () => { browserShown += SHOWN * 4; drawBrowser(current); });
      box.appendChild(more);
    }
  }

  function drawLedger(idx) {
    const h = L.hands, box = $("#live-ledger");
    if (!box) return;
    box.replaceChildren();
    const paid = idx.filter(i => h.paid[i] !== null);
    if (!paid.length) { box.appendChild(el("p", "card", "No money is recorded for these hands, so there is no ledger to show.")); return; }
    const groups = grouped(paid, i => [L.accounts[h.acct[i]], L.rooms[h.room[i]], L.currencies[h.cur[i]]].join("\u0000"));
    const rows = [], behind = [];
    Array.from(groups.keys()).sort().forEach(k => {
      const list = groups.get(k), [who, room, cur] = k.split("\u0000");
      const scored = list.filter(i => h.rules[i] !== null), unscored = list.filter(i => h.rules[i] === null);
      let over = 0, under = 0, off = 0;
      scored.forEach(i => { const d = h.paid[i] - h.rules[i]; if (d > TOL) { over += d; off += 1; } else if (d < -TOL) { under -= d; off += 1; } if (Math.abs(d) > TOL) behind.push([i, d]); });
      const rules = sum(scored.map(i => h.rules[i])), money = sum(scored.map(i => h.paid[i]));
      rows.push([who, room, cur || "–", list.length, rules, money, over, under, money - rules, off, unscored.length, sum(unscored.map(i => h.paid[i]))]);
    });
    const grid = el("div", "grid");
    box.appendChild(grid);  // in the page before plotly measures a chart
    // how the rules price each room's money (rake, short stacks), as the section's caption said it
    const priced = Array.from(new Set(rows.map(r => (r[1] + " " + (r[2] === "–" ? "" : r[2])).trim())))
      .filter(k => L.money_rules && L.money_rules[k]).map(k => k + ": " + L.money_rules[k]);
    grid.appendChild(makeTable("live-ledger-table", "Ledger", "per account, room and currency over the hands the filter bar keeps; every money column is over the scored hands: net = paid − by the rules = overpaid − underpaid (negative: the room owes you); money paid on hands not scored is apart" + (priced.length ? "; " + priced.join("; ") : ""),
      [{label: "account"}, {label: "room"}, {label: "currency"}, {label: "hands", num: true, fmt: int}, {label: "money by the rules", num: true, fmt: v => num(v)}, {label: "money paid", num: true, fmt: v => num(v)},
       {label: "overpaid", num: true, fmt: v => num(v)}, {label: "underpaid", num: true, fmt: v => num(v)}, {label: "net", num: true, fmt: v => num(v)}, {label: "hands that differ", num: true, fmt: int},
       {label: "hands not scored", num: true, fmt: int}, {label: "paid, not scored", num: true, fmt: v => num(v)}], rows));
    behind.sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
    if (behind.length) grid.appendChild(makeTable("live-ledger-hands", "Hands behind it", "largest difference first; open a hand to replay it",
      [{label: "played at"}, {label: "room"}, {label: "currency"}, {label: "by the rules", num: true, fmt: v => num(v)}, {label: "paid", num: true, fmt: v => num(v)}, {label: "difference", num: true, fmt: v => num(v)}, {label: "hand", link: true}],
      behind.slice(0, 200).map(([i, d]) => [iso(h.t[i]).slice(0, 16), L.rooms[h.room[i]], L.currencies[h.cur[i]] || "–", h.rules[i], h.paid[i], d, h.key[i]])));
  }

  let current = [];
  function applyLive() {
    const f = state();
    current = kept(f);
    document.body.classList.toggle("filtered", active(f));
    const status = $("#f-status");
    if (status) status.textContent = current.length.toLocaleString("en") + " of " + L.hands.key.length.toLocaleString("en") + " hands";
    // Each part the bar does not change says so beside the hands it keeps (reports/html.py KEPT).
    const all = int(L.hands.key.length), keptNote = " Now filtered to " + int(current.length) + " of " + all + " hands: this still covers all " + all + ".";
    $$(".fixed .kept").forEach(s => { s.textContent = active(f) ? keptNote : ""; });
    browserShown = SHOWN;
    drawResults(current); drawSessions(current); drawOpponents(current); drawBrowser(current); drawLedger(current); drawFigures(current);
    fit();
  }
  // The filter bar's rows (reports/explore.py page_data) come packed (explore.pack), gzipped
  // in base64: inflated once the page is drawn (the server drew the summary and tables);
  // until then the bar says it is reading them if touched, and without DecompressionStream
  // it says in one line why it cannot filter.
  function unpackLive(data) {  // the columns page_data made, as its JSON carried them
    const h = data.hands, F = data.formats, R = data.rooms, T = data.tables;
    const whole = new Set(h.key_whole);
    h.key = h.key.map((rest, i) => whole.has(i) ? rest : F[h.fmt[i]] + ":" + R[h.room[i]] + ":" + T[h.table[i]] + ":" + rest);
    let t = 0;
    h.t = h.t.map(step => { if (step === null) return null; t += step; return t; });
    const at = [0];
    h.opp_n.forEach(n => at.push(at[at.length - 1] + n));
    h.opp_at = at;
    delete h.key_whole; delete h.opp_n; delete data.v;
    return data;
  }
  // Tests unpack it afresh (startLive reshapes the opponents) to compare with page_data's JSON.
  window.ofcReadLive = id => readPacked($("#" + (id || "live-data"))).then(unpackLive);
  let liveState = "";  // "loading" until the rows are in, then "ready", or the line that says why not
  function filtersSay(text) { const status = $("#f-status"); if (status) status.textContent = text; }
  function liveWaits() {  // a filter touched before its rows are in
    if (liveState === "loading") filtersSay("Reading the hands for the filters…");
  }
  function loadLive() {  // settles once the rows are in and drawn, or cannot be
    const carried = $("#live-data");
    if (!carried) return Promise.resolve();
    const cannot = text => {
      liveState = text;
      filtersSay(text);
      $$(".filters select, .filters input, .filters button").forEach(i => { i.disabled = true; });
      document.body.dataset.filters = "unavailable";
    };
    if (typeof DecompressionStream === "undefined") {
      cannot("This browser cannot filter this page: the filter bar needs " + CANNOT_INFLATE + "; the sections below cover every hand of the report.");
      return Promise.resolve();
    }
    return readPacked(carried).then(data => startLive(unpackLive(data)),
      e => cannot("The filter bar's data could not be read (" + e + "); the sections below cover every hand of the report."));
  }
  function startLive(data) {
    L = data;
    liveState = "ready";
    const h = L.hands;  // opponents come flat (reports/explore.py): one list a hand here
    h.opp = h.key.map((_, i) => h.opp.slice(h.opp_at[i], h.opp_at[i + 1]));
    h.vs = h.key.map((_, i) => h.vs.slice(h.opp_at[i], h.opp_at[i + 1]));
    $$(".static").forEach(s => s.remove());
    $$(".live-only").forEach(s => { s.hidden = false; });
    $$(".filters select, .filters input").forEach(i => i.addEventListener("input", applyLive));
    $$("#period-by").forEach(i => i.addEventListener("input", () => { drawPeriods(current.filter(i => L.hands.scored[i])); fit(); }));
    $$(".hb-tools input, .hb-tools select").forEach(i => i.addEventListener("input", () => { browserShown = SHOWN; drawBrowser(current); }));
    const pick = $("#opponent-pick");
    if (pick) pick.addEventListener("input", () => drawOpponent(current));
    applyLive();
    routeOpponent();
    document.body.dataset.filters = "ready";
  }
  function routeOpponent() {
    const h = location.hash;
    if (!h.startsWith("#opponent=")) return false;
    const pick = $("#opponent-pick"), name = decodeURIComponent(h.slice(10));
    if (pick && L) { pick.value = name; drawOpponent(current); const box = $("#opponents"); if (box) box.scrollIntoView(); }
    return true;  // (before the rows are in: startLive routes it)
  }

  document.addEventListener("DOMContentLoaded", () => {
    $$("th").forEach(th => th.addEventListener("click", () => sortBy(th)));
    const live = !!$("#live-data");
    if (live) { liveState = "loading"; document.body.dataset.filters = "loading"; }
    $$("input.filter").forEach(i => i.addEventListener("input", applyFilters));
    $$(".filters select, .filters input").forEach(i => i.addEventListener("input", live ? liveWaits : applyFilters));
    const reset = $("#f-reset");
    if (reset) reset.addEventListener("click", () => { $$(".filters select, .filters input").forEach(i => { i.value = ""; }); if (L) applyLive(); else if (live) liveWaits(); else applyFilters(); });
    if ($(".table-block")) applyFilters();
    const charts = JSON.parse(($("#chart-data") || {textContent: "{}"}).textContent);
    Object.entries(charts).forEach(([id, fig]) => {
      const div = document.getElementById(id);
      if (div) chart(div, fig.data, fig.layout);  // (none: a section the live page replaced)
    });
    window.addEventListener("hashchange", () => { if (!routeOpponent()) route(); });
    routeOpponent();
    // The replayer's data: at once on a single hand's page (plain JSON; handsIn shows the
    // hand), else after the page is drawn: a page opened at #hand=KEY says it is reading the
    // hand data, and shows the hand once it is in.
    // The filter bar's rows likewise, after the page is drawn; both are inflated at once, and
    // plotly.js runs once both are in.
    if (($("#hand-data") || {}).type === "application/json") loadHands();
    // (A fault drawing the live sections is thrown again, not swallowed, once plotly.js is asked for.)
    else {
      route();
      afterPaint(() => Promise.allSettled([loadLive(), loadHands()]).then(done => {
        afterPaint(startPlotly);
        done.forEach(d => { if (d.status === "rejected") setTimeout(() => { throw d.reason; }); });
      }));
    }
    document.body.dataset.ready = "1";  // drawn: the summary and tables (the server's); the filter bar's rows and charts follow
  });
})();
