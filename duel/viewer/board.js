// The board shared by the play page and the replay viewer: draws a prompt-format state (the
// view's labels: player1's city on top, player2's below) from the card catalogue that
// duel/viewer/catalogue.py writes. Text from outside (names, agents' replies) only ever goes
// in as text nodes.
"use strict";
const Board = (() => {
  let CAT = null;
  const ROWS = {
    1: [[0, 1], [2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12, 13], [14, 15, 16, 17, 18, 19]],
    2: [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14], [15, 16, 17], [18, 19]],
    3: [[0, 1], [2, 3, 4], [5, 6, 7, 8], [9, null, 10], [11, 12, 13, 14], [15, 16, 17], [18, 19]],
  };
  const RES_LETTER = {WOOD: "W", BRICK: "B", STONE: "S", GLASS: "G", PAPYRUS: "P"};
  const BACK_AGE = {AGE_ONE_BACK: ["age1", "I"], AGE_TWO_BACK: ["age2", "II"],
                    AGE_THREE_BACK: ["age3", "III"], GUILD_BACK: ["guild", "G"]};

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  const cardsOf = (p) => Object.values(p.sortedHand || {}).flat();
  const pretty = (name) => (CAT.cards[name] || CAT.wonders[name] || CAT.tokens[name] || {name}).name;
  // The name with soft hyphens (the catalogue's label), for a narrow tile or token.
  const label = (name) => { const x = CAT.cards[name] || CAT.tokens[name]; return x ? x.label : pretty(name); };

  function costEl(coins, resources) {
    const c = el("span", "cost");
    if (coins) c.appendChild(el("span", "res coin", coins));
    for (const r of resources) {
      const pip = el("span", "res " + r, RES_LETTER[r]);
      pip.title = r.toLowerCase();
      c.appendChild(pip);
    }
    return c;
  }
  function costText(coins, resources) {
    const parts = [];
    if (coins) parts.push(`${coins} coin${coins > 1 ? "s" : ""}`);
    if (resources.length) parts.push(resources.map((r) => r.toLowerCase()).join(", "));
    return parts.length ? parts.join(" + ") : "free";
  }
  function cardTip(name) {
    const c = CAT.cards[name];
    let t = `${c.name} (${c.color}, Age ${c.age})\nCost: ${costText(c.coins, c.resources)}\n` +
      `Effect: ${c.effects.join("; ") || "none"}`;
    if (c.chainFrom) t += `\nFree if you own ${pretty(c.chainFrom)}`;
    return t;
  }
  function wonderTip(name) {
    const w = CAT.wonders[name];
    return `${w.name}\nCost: ${costText(0, w.resources)}\nEffect: ${w.effects.join("; ")}`;
  }

  // A face-up card as a tile (the pyramid's, the discard pile's, a choice's).
  function cardTile(name, opts = {}) {
    const back = BACK_AGE[name];
    const tag = opts.button ? "button" : "div";
    if (back) {
      const t = el(tag, "tile back " + back[0], back[1]);
      t.setAttribute("aria-label", "face-down card");
      return t;
    }
    const c = CAT.cards[name];
    const t = el(tag, "tile " + c.color);
    t.appendChild(costEl(c.coins, c.resources));
    t.appendChild(el("span", "name", c.label));
    if (c.chainFrom) t.appendChild(el("span", "chain", "free via " + pretty(c.chainFrom)));
    t.appendChild(el("span", "eff", c.effects.join("; ")));
    t.title = cardTip(name);
    t.setAttribute("aria-label", c.name);
    return t;
  }
  function chip(name, tag = "span") {
    const c = CAT.cards[name];
    const e = el(tag, "chip " + c.color, c.name);
    e.title = cardTip(name);
    return e;
  }
  function wonderEl(name, age, tag = "div") {
    const w = CAT.wonders[name];
    const e = el(tag, "wonder" + (age ? " built" : ""));
    e.appendChild(el("span", "wname", w.name + (age ? ` · built in Age ${age}` : "")));
    const line = el("span", "weff");
    line.appendChild(costEl(0, w.resources));
    line.appendChild(document.createTextNode(" " + w.effects.join("; ")));
    e.appendChild(line);
    e.title = wonderTip(name);
    return e;
  }
  function tokenEl(name, tag = "div") {
    const t = CAT.tokens[name];
    const e = el(tag, "token", t.label);
    e.title = `${t.name}: ${t.effects.join("; ")}`;
    e.setAttribute("aria-label", `${t.name}: ${t.effects.join("; ")}`);
    return e;
  }

  // `e` shows `points` (the engine's breakdown, TOTAL included; null while unknown).
  function showPoints(e, points, final = false) {
    e.textContent = `${points ? points.TOTAL : "…"} VP`;
    e.title = points ? (final ? "" : "points as they stand (guilds and the pawn counted as now)\n") +
      Object.entries(points).map(([k, v]) => `${k}: ${v}`).join("\n") : "points: counting…";
    return e;
  }
  function science(p) {
    const seen = {};
    for (const n of cardsOf(p)) { const s = CAT.cards[n].symbol; if (s) seen[s] = (seen[s] || 0) + 1; }
    if (p.tokens.includes("LAW")) seen.scale = (seen.scale || 0) + 1;
    return seen;
  }
  function shields(p) { return cardsOf(p).reduce((n, c) => n + CAT.cards[c].shields, 0); }

  // One city: name, coins, points, wonders, tokens, science and cards grouped by colour.
  // opts: label, toMove, prev (the view before, to mark what is new), pick(name) -> element
  // or null (the cards that can be destroyed, as elements carrying their move), points (the
  // engine's breakdown so far, from the server or the replay's data: never counted here).
  function city(view, key, opts = {}) {
    const p = view[key];
    const before = opts.prev ? opts.prev[key] : null;
    const box = el("section", "panel city" + (opts.toMove ? " to-move" : "") + (p.won ? " winner" : ""));
    box.dataset.city = key;
    const h = el("h2", "", opts.label || key);
    box.appendChild(h);
    const stats = el("div", "stats");
    stats.appendChild(el("span", "stat coins", `${p.money} coins`));
    const final = p.score && p.score.TOTAL !== undefined;
    stats.appendChild(showPoints(el("span", "stat vp"), final ? p.score : opts.points, final));
    stats.appendChild(el("span", "stat", `${shields(p)} shields`));
    const sci = science(p);
    const sciText = Object.entries(sci).map(([s, n]) => (n > 1 ? `${s}×${n}` : s)).join(", ");
    stats.appendChild(el("span", "stat science", `science: ${sciText || "none"}`));
    box.appendChild(stats);
    const ws = el("div", "wonders");
    for (const [name, age] of Object.entries(p.wonders)) {
      const w = wonderEl(name, age);
      if (before && age && !(before.wonders[name])) w.classList.add("fresh");
      ws.appendChild(w);
    }
    if (!Object.keys(p.wonders).length) ws.appendChild(el("span", "muted", "no wonders yet"));
    box.appendChild(ws);
    if (p.tokens.length) {
      const ts = el("div", "tokens");
      for (const t of p.tokens) {
        const e = tokenEl(t);
        if (before && !before.tokens.includes(t)) e.classList.add("fresh");
        ts.appendChild(e);
      }
      box.appendChild(ts);
    }
    const had = new Set(before ? cardsOf(before) : cardsOf(p));
    const byColor = {};
    for (const n of cardsOf(p)) (byColor[CAT.cards[n].color] ||= []).push(n);
    for (const color of ["brown", "grey", "yellow", "red", "blue", "green", "purple"]) {
      if (!byColor[color]) continue;
      const g = el("div", "group");
      for (const n of byColor[color]) {
        const picked = opts.pick ? opts.pick(n) : null;
        const c = picked || chip(n);
        if (picked) { c.classList.add("chip", CAT.cards[n].color); c.title = cardTip(n); }
        if (!had.has(n)) c.classList.add("fresh");
        g.appendChild(c);
      }
      box.appendChild(g);
    }
    if (!cardsOf(p).length) box.appendChild(el("div", "muted", "no buildings yet"));
    return box;
  }

  // The conflict track, -9 (player1's capital) to 9 (player2's), with the loot still there.
  function military(view, labels) {
    const m = view.military;
    const box = el("div", "panel");
    const h = el("h2", "", "Military");
    const pos = m.militaryPosition;
    h.appendChild(el("span", "sub", pos === 0 ? "even" :
      `${labels[pos > 0 ? "player1" : "player2"]} leads by ${Math.abs(pos)}`));
    box.appendChild(h);
    const ends = el("div", "mends");
    ends.appendChild(el("span", "", "◀ " + labels.player1));
    ends.appendChild(el("span", "", labels.player2 + " ▶"));
    box.appendChild(ends);
    const track = el("div", "military");
    track.setAttribute("role", "img");
    track.setAttribute("aria-label", `conflict pawn at ${pos} (negative: towards ${labels.player1})`);
    for (let x = -9; x <= 9; x++) {
      const a = Math.abs(x);
      const zone = a === 9 ? "capital" : a >= 6 ? "z10" : a >= 3 ? "z5" : a >= 1 ? "z2" : "";
      const c = el("div", "mcell " + zone + (x === pos ? " pawn" : ""), x === pos ? "" : String(a));
      if (x === pos) c.dataset.pawn = String(pos);
      track.appendChild(c);
    }
    box.appendChild(track);
    const loot = el("div", "loot");
    const place = (col, span, text, there) => {
      const s = el("span", there ? "" : "gone", text);
      s.style.gridColumn = `${col} / span ${span}`;
      s.title = there ? "loot token: the player on this side loses these coins when the pawn gets here" : "";
      loot.appendChild(s);
    };
    place(2, 3, "−5", m.loot5Player1Available);   // x = -8..-6
    place(5, 3, "−2", m.loot2Player1Available);   // x = -5..-3
    place(13, 3, "−2", m.loot2Player2Available);  // x = 3..5
    place(16, 3, "−5", m.loot5Player2Available);  // x = 6..8
    box.appendChild(loot);
    return box;
  }

  // The Age's structure as laid out on the table: rows overlapping, face-down cards as backs.
  // opts.tile(slot, name, card) may return the element to use (the play page's takeable ones).
  function pyramid(view, opts = {}) {
    const rows = ROWS[view.age];
    const width = Math.max(...rows.map((r) => r.length));
    const box = el("div", "pyramid");
    box.style.width = `calc(${width} * (var(--cw) + 6px))`;
    box.style.height = `calc(${rows.length - 1} * var(--ch) * 0.52 + var(--ch))`;
    box.setAttribute("aria-label", `Age ${view.age} structure`);
    rows.forEach((row, r) => {
      row.forEach((slot, k) => {
        if (slot === null) return;
        const col = (width - row.length) / 2 + k;
        const place = (e) => {
          e.style.left = `calc(${col} * (var(--cw) + 6px))`;
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
        e.appendChild(el("span", "slotnum", slot));
        place(e);
        box.appendChild(e);
      });
    });
    const wrap = el("div", "pyramid-wrap");
    wrap.appendChild(box);
    return wrap;
  }

  // The engine's score breakdown of both cities, once the game is over.
  const SCORE_ROWS = [["CIVILIAN_BUILDING", "blue cards"], ["SCIENTIFIC_BUILDING", "green cards"],
    ["COMMERCIAL_BUILDING", "yellow cards"], ["GUILD", "guilds"], ["MILITARY_BUILDING", "military"],
    ["WONDER", "wonders"], ["MONEY", "coins"], ["PROGRESS_TOKEN", "progress tokens"], ["TOTAL", "total"]];
  function scoreTable(view, labels) {
    const t = el("table", "score");
    const head = el("tr");
    for (const h of ["", labels.player1, labels.player2]) head.appendChild(el("th", "", h));
    t.appendChild(head);
    for (const [key, name] of SCORE_ROWS) {
      const tr = el("tr", key === "TOTAL" ? "total" : "");
      tr.appendChild(el("td", "", name));
      for (const p of ["player1", "player2"]) tr.appendChild(el("td", "", (view[p].score || {})[key] ?? "—"));
      t.appendChild(tr);
    }
    return t;
  }

  // The slot whose card was taken between two views of the same Age (to outline it).
  function takenSlot(prev, view) {
    if (!prev || prev.age !== view.age) return null;
    for (const s of Object.keys(prev.visiblePyramid)) if (!view.visiblePyramid[s]) return Number(s);
    return null;
  }

  // A move in words, in the labels of `view` (names: {1: ..., 2: ...} of that view's players).
  function describeMove(mv, view, names) {
    const d = mv.moveData || {};
    const card = () => {
      const c = view && view.visiblePyramid[String(d.cardIndex)];
      return c && !BACK_AGE[c.cardName] ? pretty(c.cardName) : `card ${d.cardIndex}`;
    };
    switch (mv.move) {
      case "SELECT_WONDER": return `take ${pretty(d.wonder)}`;
      case "CONSTRUCT_BUILDING": return `build ${card()}`;
      case "DISCARD": return `discard ${card()}`;
      case "CONSTRUCT_WONDER": return `build ${pretty(d.wonder)} with ${card()}`;
      case "CHOOSE_PROGRESS_TOKEN": case "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD":
        return `take ${pretty(d.progressToken)}`;
      case "DESTROY_CARD": return `destroy ${pretty(d.cardName)}`;
      case "CONSTRUCT_FROM_DISCARD": return `build ${pretty(d.cardName)} from the discard pile`;
      case "CHOOSE_STARTING_PLAYER": return `${names[d.playerNumber] || "player " + d.playerNumber} starts`;
      default: return JSON.stringify(mv);
    }
  }

  // What an agent said or found, after its move: an LLM's attempts (reply, reasoning, why it
  // was refused), a search's top moves with visit counts. `view` is the position it moved
  // in, in true labels, to name the cards.
  function agentDetails(details, view, names) {
    const box = el("div", "details");
    if (!details || !Object.keys(details).length) { box.appendChild(el("div", "muted", "no details")); return box; }
    if (details.timeout) box.appendChild(el("div", "error", "out of time: the fallback played"));
    if (details.error) box.appendChild(el("div", "error", details.error));
    if (details.top) {
      box.appendChild(el("div", "", `search: ${details.iterations ?? "?"} iterations in ${details.seconds ?? "?"} s`));
      const t = el("table", "top-moves");
      const head = el("tr");
      for (const h of ["move", "visits", "value"]) head.appendChild(el("th", "", h));
      t.appendChild(head);
      for (const row of details.top) {
        const tr = el("tr");
        tr.appendChild(el("td", "", describeMove(row.move, view, names)));
        tr.appendChild(el("td", "", row.visits));
        tr.appendChild(el("td", "", row.value !== undefined ? Number(row.value).toFixed(2) : ""));
        t.appendChild(tr);
      }
      box.appendChild(t);
    }
    const llm = details.llm;
    if (llm) {
      box.appendChild(el("div", "", `LLM ${llm.variant || ""}: legal at attempt ${llm.legal_at_attempt ?? "—"}` +
        (llm.fallback ? `, fallback ${llm.fallback}` : "")));
      for (const c of llm.calls || []) {
        const a = el("div", "attempt");
        a.appendChild(el("div", c.category === "OK" ? "cat-OK" : "cat-bad",
          `attempt ${c.attempt}: ${c.category}${c.error ? " — " + c.error : ""}`));
        a.appendChild(el("div", "muted", `${c.input_tokens ?? "?"} tokens in / ${c.output_tokens ?? "?"} out` +
          (c.reasoning_tokens ? ` (${c.reasoning_tokens} reasoning)` : "") + (c.latency_s != null ? ` · ${c.latency_s} s` : "") +
          (c.cost_usd != null ? ` · $${Number(c.cost_usd).toFixed(4)}` : "")));
        if (c.thinking) {
          const t = el("details", "thinking");
          t.appendChild(el("summary", "", `reasoning (${c.thinking.length} characters)`));
          t.appendChild(el("pre", "", c.thinking));
          a.appendChild(t);
        }
        a.appendChild(el("pre", "", c.raw || "(no reply)"));
        box.appendChild(a);
      }
    }
    const rest = Object.keys(details).filter((k) => !["top", "iterations", "seconds", "llm", "timeout", "error"].includes(k));
    if (rest.length) box.appendChild(el("pre", "", JSON.stringify(Object.fromEntries(rest.map((k) => [k, details[k]])), null, 1).slice(0, 1500)));
    return box;
  }

  return {
    setCatalogue: (c) => { CAT = c; }, el, cardTile, chip, wonderEl, tokenEl, city, military,
    pyramid, takenSlot, scoreTable, showPoints, describeMove, agentDetails, pretty, label, cardTip,
  };
})();
