// The board shared by the play page, the replay viewer and the lobby: draws a prompt-format
// state (the view's labels: player1's city on top, player2's below) from the catalogue that
// duel/viewer/catalogue.py writes (names, effects as icons and words, the words of steps and
// scores: duel/words.py, the one writer of texts). Text from outside (names, agents' replies)
// only ever goes in as text nodes. Icons are our own SVG symbols, drawn once into the page.
"use strict";
const Board = (() => {
  let CAT = null, W = null;
  const ROWS = {
    1: [[0, 1], [2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12, 13], [14, 15, 16, 17, 18, 19]],
    2: [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14], [15, 16, 17], [18, 19]],
    3: [[0, 1], [2, 3, 4], [5, 6, 7, 8], [9, null, 10], [11, 12, 13, 14], [15, 16, 17], [18, 19]],
  };
  const BACK_AGE = {AGE_ONE_BACK: ["age1", "I"], AGE_TWO_BACK: ["age2", "II"],
                    AGE_THREE_BACK: ["age3", "III"], GUILD_BACK: ["guild", "G"]};
  const COLOURS = ["brown", "grey", "yellow", "red", "blue", "green", "purple"];
  const SVGNS = "http://www.w3.org/2000/svg";

  // ------------------------------------------------------------------ icons
  // Each icon: a 24x24 drawing, as [tag, attributes] pairs.
  const P = (d, fill, extra = {}) => ["path", { d, fill, ...extra }];
  const S = (d, stroke, width = 2) => ["path", { d, fill: "none", stroke, "stroke-width": width, "stroke-linecap": "round", "stroke-linejoin": "round" }];
  const ICONS = {
    wood: [["rect", { x: 2, y: 7, width: 19, height: 10, rx: 4, fill: "#8a5a2b" }], ["ellipse", { cx: 18.5, cy: 12, rx: 3.5, ry: 5, fill: "#e0b279" }], ["circle", { cx: 18.5, cy: 12, r: 1.6, fill: "#8a5a2b" }]],
    brick: [["rect", { x: 2, y: 5, width: 20, height: 14, rx: 2, fill: "#b4532d" }], S("M2 12h20M9 5v7M15 12v7", "#f3d6bd", 1.6)],
    stone: [P("M3 17 6 7l7-4 7 5 1 9-8 4z", "#8d9096"), S("M6 7l6 5h9M12 12l1 9", "#c8cbd0", 1.4)],
    glass: [P("M9 2h6v5l4.5 11.5A2.5 2.5 0 0 1 17 22H7a2.5 2.5 0 0 1-2.5-3.5L9 7z", "#4aaed6"), S("M8 13h8", "#d8f1fb", 1.6)],
    papyrus: [["rect", { x: 5, y: 3, width: 14, height: 18, rx: 1.5, fill: "#e5cd8e" }], S("M8 8h8M8 12h8M8 16h5", "#8a6d2c", 1.5)],
    any: [["rect", { x: 3, y: 3, width: 18, height: 18, rx: 4, fill: "#9a8f7a" }], S("M9.5 9.5a2.5 2.5 0 1 1 3.5 2.3c-.7.3-1 .9-1 1.7M12 17v.1", "#fff", 2)],
    coin: [["circle", { cx: 12, cy: 12, r: 10.5, fill: "#e3b341", stroke: "#9a7412", "stroke-width": 1.5 }]],
    vp: [["circle", { cx: 12, cy: 12, r: 10.5, fill: "#3d8b4f", stroke: "#1f5a2c", "stroke-width": 1.5 }]],
    shield: [P("M12 2 4 5v6c0 5 3.4 9 8 11 4.6-2 8-6 8-11V5z", "#c23b2e"), S("M12 5v14", "#f2b6ae", 1.5)],
    chain: [S("M9.5 14.5l5-5M7.5 11.5l-2 2a3.5 3.5 0 0 0 5 5l2-2M16.5 12.5l2-2a3.5 3.5 0 0 0-5-5l-2 2", "#3b3b3b", 2.2)],
    wonder: [P("M12 3 22 20H2z", "#c9a24b"), S("M12 3 8 20", "#8c6a2a", 1.2)],
    token: [["circle", { cx: 12, cy: 12, r: 10, fill: "#3f9e64", stroke: "#1f5535", "stroke-width": 1.5 }], P("M12 6l1.8 3.8 4.2.5-3.1 2.9.8 4.1L12 15.3l-3.7 2 .8-4.1L6 10.3l4.2-.5z", "#d9f2e2")],
    again: [S("M19 12a7 7 0 1 1-2.1-5", "#2b5d9b", 2.6), P("M20.5 3.5v6h-6z", "#2b5d9b")],
    destroy: [S("M6 6l12 12M18 6 6 18", "#b8322a", 3)],
    discard: [["rect", { x: 7, y: 2, width: 12, height: 16, rx: 2, fill: "#b9ad93" }], ["rect", { x: 4, y: 6, width: 12, height: 16, rx: 2, fill: "#d9ceb5", stroke: "#6b6254", "stroke-width": 1.2 }]],
    trade: [S("M4 8h14M14 4l4 4-4 4M20 16H6M10 12l-4 4 4 4", "#5b4a2a", 2)],
    wheel: [["circle", { cx: 12, cy: 12, r: 8.5, fill: "none", stroke: "#2c2c2c", "stroke-width": 2 }], S("M12 3.5v17M3.5 12h17M6 6l12 12M18 6 6 18", "#2c2c2c", 1.4)],
    pendulum: [S("M12 2v10", "#2c2c2c", 1.8), P("M12 11 7.5 15.5 12 22l4.5-6.5z", "#2c2c2c")],
    quill: [P("M20 3C11 4 6 10 5 19.5l1.8.8c1-4 3-7 6-9-2-.2-3.2.2-4.2 1C11 9 15 6.5 20 3z", "#2c2c2c")],
    mortar: [P("M3.5 11h17a8.5 8.5 0 0 1-17 0z", "#2c2c2c"), S("M13.5 10 19 2.5", "#2c2c2c", 2.6)],
    sundial: [P("M2.5 18a9.5 9.5 0 0 1 19 0z", "#2c2c2c"), S("M12 18 8 5", "#2c2c2c", 2)],
    globe: [["circle", { cx: 12, cy: 12, r: 9, fill: "none", stroke: "#2c2c2c", "stroke-width": 1.8 }], ["ellipse", { cx: 12, cy: 12, rx: 4, ry: 9, fill: "none", stroke: "#2c2c2c", "stroke-width": 1.4 }], S("M3 12h18M5 7h14M5 17h14", "#2c2c2c", 1.2)],
    scale: [S("M12 3v17M7 20.5h10M4 7h16", "#2c2c2c", 1.8), P("M4 7 1.2 13h5.6zM20 7l-2.8 6h5.6z", "#2c2c2c")],
  };
  const FILL = { brown: "#7b4a1e", grey: "#7d7f86", yellow: "#d9a21b", red: "#b8322a", blue: "#2462a8",
                 green: "#24824f", purple: "#6d3591" };
  for (const c of COLOURS) ICONS["card-" + c] = [["rect", { x: 5, y: 2, width: 14, height: 20, rx: 2.5, fill: FILL[c], stroke: "#0008", "stroke-width": 1.2 }]];
  const ICON_WORDS = { coin: "coins", vp: "victory points", shield: "shields", chain: "chain",
    wonder: "wonder", token: "progress token", again: "play again", destroy: "destroy",
    discard: "discard pile", trade: "trading", any: "a resource of your choice" };

  function installIcons() {
    if (document.getElementById("duel-icons")) return;
    const svg = document.createElementNS(SVGNS, "svg");
    svg.id = "duel-icons";
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("width", "0"); svg.setAttribute("height", "0");
    svg.classList.add("sprite");
    for (const [name, shapes] of Object.entries(ICONS)) {
      const sym = document.createElementNS(SVGNS, "symbol");
      sym.id = "i-" + name;
      sym.setAttribute("viewBox", "0 0 24 24");
      for (const [tag, attrs] of shapes) {
        const s = document.createElementNS(SVGNS, tag);
        for (const [k, v] of Object.entries(attrs)) s.setAttribute(k, v);
        sym.appendChild(s);
      }
      svg.appendChild(sym);
    }
    document.body.prepend(svg);
  }
  const iconWord = (name) => ICON_WORDS[name] || (W && (W.resource[name.toUpperCase()] || W.symbol[name.toUpperCase()])) ||
    (name.startsWith("card-") ? `${name.slice(5)} card` : name);

  // One icon; `n` inside it (coins, VP) or beside it (×n), or repeated (resources, shields).
  function icon(name, n = 1, opts = {}) {
    const box = el("span", "ic ic-" + name);
    const inside = name === "coin" || name === "vp";
    const times = inside || n <= 0 ? 1 : n <= 3 ? n : 1;
    for (let k = 0; k < times; k++) {
      const svg = document.createElementNS(SVGNS, "svg");
      svg.setAttribute("viewBox", "0 0 24 24");
      svg.setAttribute("aria-hidden", "true");
      const use = document.createElementNS(SVGNS, "use");
      use.setAttribute("href", "#i-" + name);
      svg.appendChild(use);
      box.appendChild(svg);
    }
    if (inside) box.appendChild(el("b", "", n < 0 ? `−${-n}` : String(n)));
    else if (n > 3) box.appendChild(el("b", "times", `×${n}`));
    const words = inside ? `${n} ${iconWord(name)}` : n > 1 ? `${n} ${iconWord(name)}` : iconWord(name);
    if (!opts.silent) { box.setAttribute("role", "img"); box.setAttribute("aria-label", words); }
    box.title = words;
    return box;
  }
  // An effect's pieces ([icon, n] or a short text) as a row of icons.
  function pieces(list) {
    const row = el("span", "fx");
    for (const p of list) row.appendChild(typeof p === "string" ? el("span", "fxw", p) : icon(p[0], p[1]));
    return row;
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  const cardsOf = (p) => Object.values(p.sortedHand || {}).flat();
  const pretty = (name) => (CAT.cards[name] || CAT.wonders[name] || CAT.tokens[name] || {name: String(name).toLowerCase().replaceAll("_", " ")}).name;
  // The name with soft hyphens (the catalogue's label), for a narrow tile or token.
  const label = (name) => { const x = CAT.cards[name] || CAT.tokens[name] || CAT.wonders[name]; return x ? x.label : pretty(name); };
  const coins = (n) => `${n} coin${n === 1 ? "" : "s"}`;

  function costEl(coinCost, resources) {
    const c = el("span", "cost");
    if (coinCost) c.appendChild(icon("coin", coinCost));
    const counts = {};
    for (const r of resources) counts[r] = (counts[r] || 0) + 1;
    for (const [r, n] of Object.entries(counts)) c.appendChild(icon(r.toLowerCase(), n));
    if (!coinCost && !resources.length) c.appendChild(el("span", "free", "free"));
    return c;
  }
  function costText(coinCost, resources) {
    const parts = [];
    if (coinCost) parts.push(coins(coinCost));
    const counts = {};
    for (const r of resources) counts[r] = (counts[r] || 0) + 1;
    for (const [r, n] of Object.entries(counts)) parts.push(`${n} ${W.resource[r]}`);
    return parts.length ? parts.join(", ") : "free";
  }
  const effectText = (x) => x.effects.map((e) => e.text).join("; ");
  function cardTip(name) {
    const c = CAT.cards[name];
    let t = `${c.name} (${c.color}, ${W.ages[c.age]})\nCost: ${costText(c.coins, c.resources)}\n` +
      `Effect: ${effectText(c) || "none"}`;
    if (c.chainFrom) t += `\nFree if you own ${pretty(c.chainFrom)}`;
    // (Not the cards it makes free: naming cards not yet seen would read as a hint.)
    if (c.chainTo.length) t += "\nMakes a later card free (its chain)";
    return t;
  }
  function wonderTip(name) {
    const w = CAT.wonders[name];
    return `${w.name}\nCost: ${costText(0, w.resources)}\nEffect: ${effectText(w)}`;
  }

  // A face-up card as a tile (the pyramid's, a choice's): colour, cost and effect as icons,
  // its name in words.
  function cardTile(name, opts = {}) {
    const back = BACK_AGE[name];
    const tag = opts.button ? "button" : "div";
    if (back) {
      const t = el(tag, "tile back " + back[0]);
      t.appendChild(el("span", "backmark", back[1]));
      t.setAttribute("aria-label", "a face-down card");
      return t;
    }
    const c = CAT.cards[name];
    const t = el(tag, "tile " + c.color);
    const top = el("span", "top");
    top.appendChild(costEl(c.coins, c.resources));
    if (c.chainFrom || c.chainTo.length) top.appendChild(icon("chain", 1, { silent: true }));
    t.appendChild(top);
    t.appendChild(el("span", "name", c.label));
    const fx = el("span", "eff");
    for (const e of c.effects) fx.appendChild(pieces(e.icons));
    t.appendChild(fx);
    t.title = cardTip(name);
    t.setAttribute("aria-label", `${c.name}: ${effectText(c)}`);
    return t;
  }
  // A card as a small chip (a city's, the discard pile's).
  function chip(name, tag = "span") {
    const c = CAT.cards[name];
    const e = el(tag, "chip " + c.color);
    e.appendChild(el("span", "cname", c.name));
    const fx = el("span", "cfx");
    for (const x of c.effects) fx.appendChild(pieces(x.icons));
    e.appendChild(fx);
    e.title = cardTip(name);
    return e;
  }
  function wonderEl(name, age, tag = "div") {
    const w = CAT.wonders[name];
    const e = el(tag, "wonder" + (age ? " built" : ""));
    const head = el("span", "wname", w.name);
    e.appendChild(head);
    const line = el("span", "weff");
    if (!age) line.appendChild(costEl(0, w.resources));
    for (const x of w.effects) line.appendChild(pieces(x.icons));
    e.appendChild(line);
    e.title = wonderTip(name) + (age ? `\nBuilt in ${W.ages[age]}` : "");
    e.setAttribute("aria-label", `${w.name}${age ? ", built" : ""}: ${effectText(w)}`);
    return e;
  }
  function tokenEl(name, tag = "div") {
    const t = CAT.tokens[name];
    const e = el(tag, "token");
    e.appendChild(pieces(t.effects[0].icons));
    e.appendChild(el("span", "tname", t.label));
    e.title = `${t.name}: ${effectText(t)}`;
    e.setAttribute("aria-label", `${t.name}: ${effectText(t)}`);
    return e;
  }

  // `e` shows `points` (the engine's breakdown, TOTAL included; null while unknown).
  function showPoints(e, points, final = false) {
    e.replaceChildren(icon("vp", points ? points.TOTAL : "…"));
    e.title = points ? (final ? "" : "points as they stand (guilds and the pawn counted as now)\n") +
      W.score.map(([k, words]) => `${words}: ${points[k] ?? 0}`).join("\n") : "points: counting…";
    return e;
  }
  function science(p) {
    const seen = {};
    for (const n of cardsOf(p)) { const s = CAT.cards[n].symbol; if (s) seen[s] = (seen[s] || 0) + 1; }
    if (p.tokens.includes("LAW")) seen.scale = (seen.scale || 0) + 1;
    return seen;
  }
  function shields(p) { return cardsOf(p).reduce((n, c) => n + CAT.cards[c].shields, 0); }

  // One city: name, coins, points, shields, science; wonders; tokens; cards grouped by colour
  // in columns, like cards on a table. opts: label, toMove, prev (the view before, to mark what
  // is new), pick(name) -> element or null (the cards that can be destroyed, as elements
  // carrying their move), points (the engine's breakdown so far: never counted here).
  function city(view, key, opts = {}) {
    const p = view[key];
    const before = opts.prev ? opts.prev[key] : null;
    const box = el("section", "panel city" + (opts.toMove ? " to-move" : "") + (p.won ? " winner" : ""));
    box.dataset.city = key;
    const h = el("h2", "cityhead");
    h.appendChild(el("span", "who", opts.label || key));
    const stats = el("span", "stats");
    const money = el("span", "stat coins"); money.appendChild(icon("coin", p.money)); stats.appendChild(money);
    const final = p.score && p.score.TOTAL !== undefined;
    stats.appendChild(showPoints(el("span", "stat vp"), final ? p.score : opts.points, final));
    const sh = el("span", "stat"); sh.appendChild(icon("shield", 1)); sh.appendChild(el("b", "", shields(p))); sh.title = `${shields(p)} shields`; stats.appendChild(sh);
    const sci = science(p);
    const sciBox = el("span", "stat science");
    for (const [s, n] of Object.entries(sci)) sciBox.appendChild(icon(s, n));
    if (!Object.keys(sci).length) sciBox.appendChild(el("span", "muted", "no science"));
    stats.appendChild(sciBox);
    for (const t of p.tokens) {
      const e = el("span", "stat tok", CAT.tokens[t].name);
      e.prepend(icon("token", 1, { silent: true }));
      e.title = `${CAT.tokens[t].name}: ${effectText(CAT.tokens[t])}`;
      if (before && !before.tokens.includes(t)) e.classList.add("fresh");
      stats.appendChild(e);
    }
    h.appendChild(stats);
    box.appendChild(h);
    const body = el("div", "citybody");
    const ws = el("div", "wonders");
    for (const [name, age] of Object.entries(p.wonders)) {
      const w = wonderEl(name, age);
      if (before && age && !(before.wonders[name])) w.classList.add("fresh");
      ws.appendChild(w);
    }
    if (!Object.keys(p.wonders).length) ws.appendChild(el("span", "muted", "no wonders yet"));
    body.appendChild(ws);
    const had = new Set(before ? cardsOf(before) : cardsOf(p));
    const byColor = {};
    for (const n of cardsOf(p)) (byColor[CAT.cards[n].color] ||= []).push(n);
    const cards = el("div", "cards");
    for (const color of COLOURS) {
      if (!byColor[color]) continue;
      const g = el("div", "cgroup");
      g.dataset.colour = color;
      for (const n of byColor[color]) {
        const picked = opts.pick ? opts.pick(n) : null;
        const c = picked || chip(n);
        if (picked) { c.classList.add("chip", CAT.cards[n].color); c.title = cardTip(n); }
        if (!had.has(n)) c.classList.add("fresh");
        g.appendChild(c);
      }
      cards.appendChild(g);
    }
    if (!cardsOf(p).length) cards.appendChild(el("div", "muted", "no buildings yet"));
    body.appendChild(cards);
    box.appendChild(body);
    return box;
  }

  // The conflict track, -9 (player1's capital) to 9 (player2's), with the loot still there.
  function military(view, labels) {
    const m = view.military;
    const box = el("div", "panel militarybox");
    const pos = m.militaryPosition;
    const h = el("h2", "", "Military");
    h.appendChild(el("span", "sub", pos === 0 ? "even" :
      `${labels[pos > 0 ? "player1" : "player2"]} leads by ${Math.abs(pos)}`));
    box.appendChild(h);
    const track = el("div", "military");
    track.setAttribute("role", "img");
    track.setAttribute("aria-label", `conflict pawn ${pos === 0 ? "in the middle" : Math.abs(pos) + " towards " + labels[pos > 0 ? "player2" : "player1"] + "'s capital"}`);
    for (let x = -9; x <= 9; x++) {
      const a = Math.abs(x);
      const zone = a === 9 ? "capital" : a >= 6 ? "z10" : a >= 3 ? "z5" : a >= 1 ? "z2" : "z0";
      const c = el("div", "mcell " + zone + (x === pos ? " pawn" : ""));
      if (x === pos) c.dataset.pawn = String(pos);
      track.appendChild(c);
    }
    box.appendChild(track);
    const loot = el("div", "loot");
    const place = (col, span, n, there) => {
      const s = el("span", there ? "" : "gone");
      if (there) s.appendChild(icon("coin", -n));
      s.style.gridColumn = `${col} / span ${span}`;
      s.title = there ? `loot: the player on this side loses ${n} coins when the pawn gets here` : "";
      loot.appendChild(s);
    };
    place(2, 3, 5, m.loot5Player1Available);   // x = -8..-6
    place(5, 3, 2, m.loot2Player1Available);   // x = -5..-3
    place(13, 3, 2, m.loot2Player2Available);  // x = 3..5
    place(16, 3, 5, m.loot5Player2Available);  // x = 6..8
    box.appendChild(loot);
    return box;
  }

  // The Age's structure as laid out on the table: rows overlapping, face-down cards as backs.
  // opts.tile(slot, card) may return the element to use (the play page's takeable ones). The
  // cards' size follows the room the structure has (fitPyramid), so it never needs scrolling.
  function pyramid(view, opts = {}) {
    const rows = ROWS[view.age];
    const width = Math.max(...rows.map((r) => r.length));
    const box = el("div", "pyramid");
    box.dataset.rows = String(rows.length);
    box.dataset.cols = String(width);
    box.style.width = `calc(${width} * (var(--cw) + var(--gap)) - var(--gap))`;
    box.style.height = `calc(${rows.length - 1} * var(--ch) * 0.52 + var(--ch))`;
    box.setAttribute("aria-label", `${W.ages[view.age]} structure`);
    rows.forEach((row, r) => {
      row.forEach((slot, k) => {
        if (slot === null) return;
        const col = (width - row.length) / 2 + k;
        const place = (e) => {
          e.style.left = `calc(${col} * (var(--cw) + var(--gap)))`;
          e.style.top = `calc(${r} * var(--ch) * 0.52)`;
          e.style.zIndex = String(r * 2 + 1);
        };
        const card = view.visiblePyramid[String(slot)];
        if (!card) {
          if (opts.lastSlot === slot) {  // under the cards, so it never crosses their text
            const e = el("div", "lasttaken"); place(e); e.style.zIndex = "0"; box.appendChild(e);
          }
          return;
        }
        const e = (opts.tile && opts.tile(slot, card)) || cardTile(card.cardName);
        if (!card.isActive) e.classList.add("covered");
        e.dataset.slot = String(slot);
        place(e);
        box.appendChild(e);
      });
    });
    const wrap = el("div", "pyramid-wrap");
    wrap.appendChild(box);
    return wrap;
  }
  // A city whose colour columns do not fit one row sheds its chips' icons, then takes smaller
  // letters (the tooltips keep it all), so it leaves the structure its room.
  function fitCities(scope = document) {
    const wide = !matchMedia("(max-width: 1100px)").matches;  // narrow: the page scrolls
    for (const cards of scope.querySelectorAll(".city .cards")) {
      cards.classList.remove("crowded", "packed");
      if (!wide) continue;
      const groups = [...cards.children];
      const oneRow = () => groups.every((g) => g.offsetTop === groups[0].offsetTop);
      for (const step of ["crowded", "packed"]) {
        if (!groups.length || oneRow()) break;
        cards.classList.add(step);
      }
    }
  }
  // Sizes the structure's cards to the room its box has (called after it is in the page and
  // when the window changes): as large as fits, never larger than the design's size.
  function fitPyramid(scope = document) {
    fitCities(scope);
    for (const p of scope.querySelectorAll(".pyramid")) {
      const wrap = p.parentElement;
      const rows = Number(p.dataset.rows), cols = Number(p.dataset.cols);
      const room = wrap.getBoundingClientRect();
      // A wide window gives the structure the room left between the cities; a narrow one
      // lets it be as tall as most of the window.
      const maxH = matchMedia("(max-width: 1100px)").matches ? innerHeight * 0.6 : room.height || 400;
      const gap = parseFloat(getComputedStyle(p).getPropertyValue("--gap")) || 6;
      const byWidth = ((room.width - 4) - (cols - 1) * gap) / cols / 0.76;
      const byHeight = (maxH - 6) / ((rows - 1) * 0.52 + 1);
      const ch = Math.max(48, Math.min(118, byWidth, byHeight));
      p.style.setProperty("--ch", `${ch.toFixed(1)}px`);
      p.style.setProperty("--cw", `${(ch * 0.76).toFixed(1)}px`);
      p.classList.toggle("small", ch < 84);
      p.classList.toggle("tiny", ch < 66);
      // A card whose words do not fit the part of it that shows (a covered card's top band,
      // --ch * .52) sheds its cost, then takes smaller letters: its tooltip has it all.
      // An uncovered one, too small for it all, keeps its name and effect, then its name.
      for (const t of p.querySelectorAll(".tile:not(.back)")) {
        t.classList.remove("nocost", "noeff", "squeeze", "smallest");
        const covered = t.classList.contains("covered");
        const foot = covered ? ch * 0.52 - 2 : t.clientHeight;
        const ends = () => covered ? Math.max(...[...t.children].filter((c) => c.offsetParent && !c.classList.contains("eff"))
          .map((c) => c.offsetTop + c.offsetHeight)) : t.scrollHeight;
        for (const step of ["squeeze", "nocost", covered ? "smallest" : "noeff"]) {
          if (ends() <= foot) break;
          t.classList.add(step);
        }
      }
    }
  }

  // The engine's score breakdown of both cities, once the game is over.
  // One row per player, one column per kind of points: it fits the room the structure had.
  function scoreTable(view, labels) {
    const t = el("table", "score");
    const head = el("tr");
    head.appendChild(el("th", "", ""));
    for (const [key, name] of W.score) head.appendChild(el("th", key === "TOTAL" ? "total" : "", name));
    t.appendChild(head);
    for (const p of ["player1", "player2"]) {
      const tr = el("tr");
      tr.appendChild(el("th", "", labels[p]));
      for (const [key] of W.score) tr.appendChild(el("td", key === "TOTAL" ? "total" : "", (view[p].score || {})[key] ?? "—"));
      t.appendChild(tr);
    }
    const wrap = el("div", "scorewrap");
    wrap.dataset.scrolls = "";  // sideways on a phone
    wrap.appendChild(t);
    return wrap;
  }

  // The slot whose card was taken between two views of the same Age (to outline it).
  function takenSlot(prev, view) {
    if (!prev || prev.age !== view.age) return null;
    for (const s of Object.keys(prev.visiblePyramid)) if (!view.visiblePyramid[s]) return Number(s);
    return null;
  }
  // A short flight of the card just taken, from its slot to the city that took it (none with
  // prefers-reduced-motion, or when either end is not on the page).
  function flyTaken(fromRect, city, name) {
    if (!fromRect || !city || !CAT.cards[name]) return;
    if (matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    const to = city.getBoundingClientRect();
    if (!to.width) return;
    const ghost = cardTile(name);
    ghost.classList.add("flying");
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.left = `${fromRect.left}px`; ghost.style.top = `${fromRect.top}px`;
    ghost.style.width = `${fromRect.width}px`; ghost.style.height = `${fromRect.height}px`;
    document.body.appendChild(ghost);
    const dx = to.left + to.width / 2 - (fromRect.left + fromRect.width / 2);
    const dy = to.top + to.height / 2 - (fromRect.top + fromRect.height / 2);
    const anim = ghost.animate([{ transform: "translate(0,0) scale(1)", opacity: 1 },
      { transform: `translate(${dx}px,${dy}px) scale(.45)`, opacity: 0.2 }], { duration: 450, easing: "ease-in" });
    anim.onfinish = () => ghost.remove();
    anim.oncancel = () => ghost.remove();
  }

  // What an agent said or found, after its move: an LLM's attempts (the model's reply and its
  // reasoning, folded), a search's top moves with visits (each move's text written by the
  // server: duel/words.py), a rule's reason. `names` fills the texts' players.
  function agentDetails(details, notes, fill) {
    const box = el("div", "details");
    if (!details || !Object.keys(details).length) { box.appendChild(el("div", "muted", "no details")); return box; }
    if (details.timeout) box.appendChild(el("div", "error", "out of time: the fallback played"));
    if (details.error) box.appendChild(el("div", "error", details.error));
    for (const n of notes || []) box.appendChild(el("div", "", n));
    if (details.top) {
      box.appendChild(el("div", "", `Search: ${details.iterations ?? "?"} iterations in ${details.seconds ?? "?"} s`));
      const t = el("table", "top-moves");
      const head = el("tr");
      for (const h of ["move", "visits", "win rate"]) head.appendChild(el("th", "", h));
      t.appendChild(head);
      for (const row of details.top) {
        const tr = el("tr");
        tr.appendChild(el("td", "", row.text ? fill(row.text) : "a move"));
        tr.appendChild(el("td", "", row.visits));
        tr.appendChild(el("td", "", row.value !== undefined ? `${Math.round(Number(row.value) * 100)}%` : ""));
        t.appendChild(tr);
      }
      box.appendChild(t);
    }
    const llm = details.llm;
    if (llm) {
      box.appendChild(el("div", "", (llm.legal_at_attempt ? `A legal move at attempt ${llm.legal_at_attempt}` : "No legal move") +
        (llm.fallback ? `; the fallback (${llm.fallback}) played` : "")));
      for (const c of llm.calls || []) {
        const a = el("div", "attempt");
        a.appendChild(el("div", c.category === "OK" ? "cat-OK" : "cat-bad",
          `Attempt ${c.attempt}: ${W.category[c.category] || c.category}${c.error ? " — " + c.error : ""}`));
        a.appendChild(el("div", "muted", `${c.input_tokens ?? "?"} tokens read, ${c.output_tokens ?? "?"} written` +
          (c.cached_tokens ? ` (${c.cached_tokens} read from the cache)` : "") +
          (c.reasoning_tokens ? ` (${c.reasoning_tokens} reasoning)` : "") + (c.latency_s != null ? ` · ${c.latency_s} s` : "") +
          (c.cost_usd != null ? ` · $${Number(c.cost_usd).toFixed(4)}` : " · cost unknown")));
        if (c.thinking) {
          const t = el("details", "thinking");
          t.appendChild(el("summary", "", `Its reasoning (${c.thinking.length} characters)`));
          t.appendChild(el("pre", "", c.thinking));
          a.appendChild(t);
        }
        const r = el("details", "reply");
        r.appendChild(el("summary", "", "Its reply, as written"));
        r.appendChild(el("pre", "", c.raw || "(no reply)"));
        a.appendChild(r);
        box.appendChild(a);
      }
    }
    return box;
  }

  return {
    setCatalogue: (c) => { CAT = c; W = c.words; }, words: () => W, el, icon, pieces, installIcons,
    cardTile, chip, wonderEl, tokenEl, city, military, pyramid, fitPyramid, takenSlot, flyTaken,
    scoreTable, showPoints, agentDetails, pretty, label, cardTip, coins,
  };
})();
