"use strict";
// The page for a person's seat, or a spectator's: it reads the game with the same REST calls
// and event stream as any bot (the seat's token, from the URL fragment, goes in the
// Authorization header only, so no server log ever holds it).
const PAGE = /*__PAGE_DATA__*/null;
Board.setCatalogue(PAGE.catalogue);
const { el } = Board;
const CODE = PAGE.code;
const BASE = `/games/${encodeURIComponent(CODE)}`;
const TOKEN = new URLSearchParams(location.hash.slice(1)).get("token");
const AUTH = TOKEN ? { Authorization: "Bearer " + TOKEN } : {};
const stop = new AbortController();
addEventListener("pagehide", () => stop.abort());

let info = null;          // GET /info: the seats' agents, and our seat (`you`)
let view = null, prev = null, ply = -1;
let moves = null;         // GET /moves for the current ply, on our turn
let selected = null;      // the pyramid slot picked, before the second click
let busy = false;
let labels = {}, trueNumber = {};
let points = null;        // GET /info's points so far (the engine's), by true player number
const logLines = [];

async function call(path, options = {}) {
  const r = await fetch(BASE + path, { method: options.method, body: options.body, signal: stop.signal,
    headers: { ...AUTH, ...(options.headers || {}) } });
  const text = await r.text();
  if (r.ok && options.text) return text;
  let body = null;
  try { body = JSON.parse(text); } catch { body = text; }
  if (!r.ok) {
    const detail = body && body.detail !== undefined ? body.detail : body;
    const words = typeof detail === "string" ? detail : (detail.reason || JSON.stringify(detail));
    throw new Error(`${r.status}: ${words}`);
  }
  return body;
}
function say(text, cls = "error") {
  const box = document.getElementById("msg");
  if (box) { box.className = cls; box.textContent = text; }
}

function agentName(spec) { return spec === "external" ? "a person or bot" : spec; }
function setLabels() {
  const you = info.you;
  trueNumber = you ? { player2: you, player1: 3 - you } : { player1: 1, player2: 2 };
  for (const key of ["player1", "player2"]) {
    const n = trueNumber[key];
    labels[key] = you && n === you ? `You (player ${n})` : `Player ${n}: ${agentName(info.players[n])}`;
  }
}
// The engine's texts in the view's labels, back in true ones (a seat that is truly player 1
// sees itself as player 2), as duel/engine/view.py's swap_text swaps them.
const trueText = (text) => (info.you === 1 ? text.replace(/\b(player ?)([12])\b/gi,
  (_, word, n) => word + String(3 - Number(n))) : text);
const byTrue = () => ({ [trueNumber.player1]: labels.player1, [trueNumber.player2]: labels.player2 });
const over = () => view && view.step === "GAME_END";
const myTurn = () => info.you && view && !over() && view.currentPlayerNumber === 2;

// -------------------------------------------------------------------------- the stream
async function follow() {
  while (!stop.signal.aborted) {
    try {
      const r = await fetch(BASE + "/events", { headers: AUTH, signal: stop.signal });
      if (!r.ok) throw new Error(`events: HTTP ${r.status}`);
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value.replace(/\r\n/g, "\n");
        let cut;
        while ((cut = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, cut); buf = buf.slice(cut + 2);
          let event = "message", id = null, data = "";
          for (const line of block.split("\n")) {
            if (line.startsWith("event:")) event = line.slice(6).trim();
            else if (line.startsWith("id:")) id = line.slice(3).trim();
            else if (line.startsWith("data:")) data += line.slice(5).replace(/^ /, "");
          }
          if (event === "state" && data) await arrive(Number(id), JSON.parse(data));
        }
      }
    } catch (e) {
      if (stop.signal.aborted) return;
      document.getElementById("status").textContent = "connection lost; reconnecting…";
    }
    if (over()) return;
    await new Promise((ok) => setTimeout(ok, 1000));
  }
}

async function arrive(n, v) {
  if (n <= ply) return;
  const before = view;
  prev = view; view = v; ply = n; moves = null; selected = null; busy = false;
  document.body.dataset.ply = String(n);
  document.body.dataset.step = v.step;
  if (v.previousMove) logLines.push(`${n}. ${trueText(v.previousMove)}`);
  if (over()) finish();
  render();
  if (over()) document.body.dataset.pointsPly = String(n);  // the view's own final score
  else loadPoints(n);
  if (n > 0) lastMoveDetails(n, before);
  if (myTurn()) {
    try {
      const m = await call("/moves");
      if (m.ply === ply) {
        moves = m; render();
        // Keyboard play: your turn starts on your first choice (without scrolling to it).
        if (!document.activeElement || document.activeElement === document.body) {
          const first = document.querySelector("#table .tile.takeable, [data-move]");
          if (first) first.focus({ preventScroll: true });
        }
      }
    } catch (e) { say(String(e.message || e)); }
  }
}

async function finish() {
  const p1 = view[Object.keys(trueNumber).find((k) => trueNumber[k] === 1)];
  const p2 = view[Object.keys(trueNumber).find((k) => trueNumber[k] === 2)];
  document.body.dataset.winner = p1.won ? "1" : p2.won ? "2" : "draw";
  document.body.setAttribute("data-game-over", "");
  try { info = await call("/info"); render(); } catch (e) { /* the result stands without how */ }
}

// The points so far as the server's engine counts them (GET /info, as any bot reads them):
// the page never counts points itself. Until they come, the last ones shown stay.
async function loadPoints(n) {
  try {
    const i = await call("/info");
    if (i.ply !== n || n !== ply || !i.points) return;  // a later move's points are on their way
    points = i.points;
    // In place, not a new render: the focus (keyboard play) stays where it is.
    for (const key of ["player1", "player2"]) {
      const e = document.querySelector(`[data-city=${key}] .stat.vp`);
      if (e) Board.showPoints(e, points[String(trueNumber[key])]);
    }
    document.body.dataset.pointsPly = String(n);
  } catch (e) { /* the points wait for the next move */ }
}

// What the agent that just moved said or found (public once its move is played).
async function lastMoveDetails(n, before) {
  const box = document.getElementById("thinking");
  try {
    const ndjson = await call(`/transcript?partial=true&since=${n}`, { text: true });
    const lines = ndjson.trim().split("\n").map((l) => JSON.parse(l));
    const rec = lines.find((l) => l.type === "move" && l.ply === n);
    if (!rec || n < ply - 1) return;  // a later move's details are on their way
    box.replaceChildren(el("h2", "", `Move ${n}: ${byTrue()[rec.player]}`));
    box.appendChild(el("div", "", `${rec.seconds}s: ${Board.describeMove(rec.move, before, byTrue())}` +
      (rec.price ? ` (paid ${rec.price} coins)` : "")));
    if (info.players[rec.player] !== "external") box.appendChild(Board.agentDetails(rec.details, before, byTrue()));
  } catch (e) { /* the details are a courtesy; the game goes on without them */ }
}

// -------------------------------------------------------------------------- moves
function moveEl(tag, cls, mv, text) {
  const e = el(tag, cls, text);
  const json = { move: mv.move, moveData: mv.moveData };
  e.dataset.move = JSON.stringify(json);
  if (tag !== "button") { e.tabIndex = 0; e.setAttribute("role", "button"); }
  e.addEventListener("click", () => play(json));
  e.addEventListener("keydown", (k) => { if (tag !== "button" && (k.key === "Enter" || k.key === " ")) { k.preventDefault(); play(json); } });
  return e;
}
async function play(mv) {
  if (busy || !moves) return;
  busy = true;
  document.querySelectorAll("[data-move]").forEach((b) => b.setAttribute("aria-disabled", "true"));
  say("", "");
  try {
    const r = await call("/moves", { method: "POST", headers: { "Content-Type": "application/json" },
                                     body: JSON.stringify({ ...mv, ply }) });
    await arrive(r.ply, r.state);
  } catch (e) {
    busy = false;
    say(String(e.message || e));
    document.querySelectorAll("[data-move]").forEach((b) => b.removeAttribute("aria-disabled"));
  }
}
const legal = (kind) => (moves ? moves.moves.filter((m) => m.move === kind) : []);
function priceText(p) { return p ? `pay ${p} coin${p > 1 ? "s" : ""}` : "free"; }

// -------------------------------------------------------------------------- drawing
function render() {
  if (!view) return;
  document.body.classList.toggle("my-turn", Boolean(myTurn()));
  const cur = over() ? null : view.currentPlayerNumber;
  const who = cur ? labels["player" + cur] : null;
  document.getElementById("status").textContent = over() ? resultText()
    : `Age ${view.age} · ${view.step.replaceAll("_", " ").toLowerCase()} · ${who} to move` +
      (view.previousMove ? ` · last: ${trueText(view.previousMove)}` : "");
  const destroy = legal("DESTROY_CARD");
  const pick = destroy.length ? (name) => {
    const mv = destroy.find((m) => m.moveData.cardName === name);
    return mv ? moveEl("button", "chip", mv, `destroy ${Board.pretty(name)}`) : null;
  } : null;
  const pts = (key) => (points ? points[String(trueNumber[key])] : null);
  document.getElementById("top").replaceChildren(Board.city(view, "player1",
    { label: labels.player1, toMove: cur === 1, prev, pick, points: pts("player1") }));
  document.getElementById("bottom").replaceChildren(Board.city(view, "player2",
    { label: labels.player2, toMove: cur === 2, prev, points: pts("player2") }));
  document.getElementById("military").replaceChildren(Board.military(view, labels));
  drawTokens();
  drawTable();
  drawDiscard();
  drawActions();
  const log = document.getElementById("log");
  log.replaceChildren(...logLines.map((t) => el("div", "", t)));
  log.scrollTop = log.scrollHeight;
}
const VICTORY = { military: "by military supremacy", science: "by scientific supremacy",
                  civilian: "on points", forfeit: "by forfeit" };
function resultText() {
  const w = document.body.dataset.winner;
  const how = info.victory ? ` ${VICTORY[info.victory] || info.victory}` : "";
  return w === "draw" ? "Game over: shared victory on points" : `Game over: ${byTrue()[w]} wins${how}` +
    (info.you ? (Number(w) === info.you ? " — well played!" : "") : "");
}
function drawTokens() {
  const box = document.getElementById("boardtokens");
  box.replaceChildren(el("h2", "", "Progress tokens"));
  const row = el("div", "tokens");
  const choose = legal("CHOOSE_PROGRESS_TOKEN");
  for (const t of view.tokensAvailable) {
    const mv = choose.find((m) => m.moveData.progressToken === t);
    const e = mv ? moveEl("button", "token", mv, Board.label(t)) : Board.tokenEl(t);
    if (mv) { const tip = Board.tokenEl(t); e.title = tip.title; e.setAttribute("aria-label", "take " + tip.getAttribute("aria-label")); }
    row.appendChild(e);
  }
  if (!view.tokensAvailable.length) row.appendChild(el("span", "muted", "none left on the board"));
  box.appendChild(row);
}
function drawTable() {
  const box = document.getElementById("table");
  if (view.step === "WONDER_SELECTION") {
    box.replaceChildren(el("h2", "", "Wonder draft"));
    const d = el("div", "draft");
    const take = legal("SELECT_WONDER");
    for (const w of view.wondersAvailable) {
      const mv = take.find((m) => m.moveData.wonder === w);
      if (mv) {
        const b = moveEl("button", "wonder", mv);
        const face = Board.wonderEl(w);
        b.append(...face.childNodes); b.title = face.title;
        d.appendChild(b);
      } else d.appendChild(Board.wonderEl(w));
    }
    box.appendChild(d);
    return;
  }
  if (over()) {
    box.replaceChildren(el("h2", "", "Final score"), el("div", "note", resultText()),
                        Board.scoreTable(view, labels));
    return;
  }
  box.replaceChildren(el("h2", "", `Age ${view.age}`));
  const playing = myTurn() && view.step === "PLAY_CARD" && moves;
  const reasons = playing ? moves.unavailable : [];
  box.appendChild(Board.pyramid(view, {
    lastSlot: Board.takenSlot(prev, view),
    tile: (slot, card) => {
      if (!playing) return null;
      const covered = reasons.find((r) => r.moveData.cardIndex === slot && r.reason.startsWith("covered"));
      if (!card.isActive && !covered) return null;
      const t = Board.cardTile(card.cardName, { button: true });
      t.classList.add(card.isActive ? "takeable" : "blocked");
      if (card.isActive) {  // what building it costs you, before any click
        const build = moves.moves.find((m) => m.move === "CONSTRUCT_BUILDING" && m.moveData.cardIndex === slot);
        const refused = reasons.find((r) => r.move === "CONSTRUCT_BUILDING" && r.moveData.cardIndex === slot);
        const tag = build ? (build.price ? `${build.price} coins` : "free") : refused && refused.price != null ? `${refused.price} coins` : "";
        if (tag) t.appendChild(el("span", "pricetag" + (build ? "" : " dear"), tag));
        t.setAttribute("aria-label", `${Board.pretty(card.cardName)}: build ${build ? "for " + tag : "not possible (" + (refused ? refused.reason : "") + ")"}`);
      }
      if (selected === slot) t.classList.add("selected");
      t.setAttribute("aria-pressed", selected === slot ? "true" : "false");
      t.addEventListener("click", () => { selected = selected === slot ? null : slot; render(); focusChoice(); });
      return t;
    },
  }));
}
function focusChoice() {
  const first = document.querySelector("#actions .group:not([hidden]) [data-move], #actions .group:not([hidden]) .refused");
  if (first && first.focus) first.focus();
}
function drawDiscard() {
  const box = document.getElementById("discard");
  box.replaceChildren(el("h2", "", `Discard pile (${view.discardedCards.length})`));
  const pile = el("div", "discardpile");
  for (const n of view.discardedCards) pile.appendChild(Board.chip(n));
  if (!view.discardedCards.length) pile.appendChild(el("span", "muted", "empty"));
  box.appendChild(pile);
}
function drawActions() {
  const box = document.getElementById("actions");
  box.replaceChildren();
  const head = el("h2", "", info.you ? "Your move" : "Spectating");
  box.appendChild(head);
  box.appendChild(el("div", "", ""));
  box.lastChild.id = "msg";
  if (over()) { box.appendChild(el("div", "note", resultText())); return; }
  if (!info.you) { box.appendChild(el("div", "muted", "You are watching: the public view, live.")); return; }
  if (!myTurn()) { box.appendChild(el("div", "muted", `Waiting for ${labels.player1}…`)); return; }
  if (!moves) { box.appendChild(el("div", "muted", "Loading your moves…")); return; }
  const c = el("div", "choices");
  box.appendChild(c);
  const step = view.step;
  if (step === "WONDER_SELECTION") c.appendChild(el("div", "note", "Pick a wonder from the draft."));
  if (step === "CHOOSE_PROGRESS_TOKEN") c.appendChild(el("div", "note", "You made a science pair: take a progress token from the board."));
  if (step === "DESTROY_BROWN" || step === "DESTROY_GREY")
    c.appendChild(el("div", "note", `Destroy one of your opponent's ${step === "DESTROY_BROWN" ? "brown" : "grey"} cards (in their city above).`));
  if (step === "CHOOSE_STARTING_PLAYER") {
    c.appendChild(el("div", "note", `Who starts Age ${view.age}?`));
    const row = el("div", "row");
    for (const mv of legal("CHOOSE_STARTING_PLAYER"))
      row.appendChild(moveEl("button", "choice", mv, mv.moveData.playerNumber === 2 ? "I start" : "My opponent starts"));
    c.appendChild(row);
  }
  if (step === "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD") {
    c.appendChild(el("div", "note", "The Great Library: take one of these three tokens from the box."));
    const row = el("div", "tokens");
    for (const mv of legal("CHOOSE_PROGRESS_TOKEN_FROM_DISCARD")) {
      const b = moveEl("button", "token", mv, Board.label(mv.moveData.progressToken));
      b.title = Board.tokenEl(mv.moveData.progressToken).title;
      row.appendChild(b);
    }
    c.appendChild(row);
  }
  if (step === "CONSTRUCT_FROM_DISCARD") {
    c.appendChild(el("div", "note", "The Mausoleum: build one discarded card for free."));
    const row = el("div", "discardpile");
    for (const mv of legal("CONSTRUCT_FROM_DISCARD")) row.appendChild(moveEl("button", "chip " + PAGE.catalogue.cards[mv.moveData.cardName].color, mv, Board.pretty(mv.moveData.cardName)));
    c.appendChild(row);
  }
  if (step === "PLAY_CARD") playCardChoices(c);
}
function playCardChoices(c) {
  c.appendChild(el("div", "note", selected === null
    ? "Pick a card of the structure (click it, or Tab to it and press Enter): then build it, discard it for coins or build a wonder with it."
    : ""));
  if (selected !== null) c.lastChild.hidden = true;
  const yellow = Object.values(view.player2.sortedHand).flat().filter((n) => PAGE.catalogue.cards[n].color === "yellow").length;
  const slots = new Set([...moves.moves, ...moves.unavailable].map((m) => m.moveData.cardIndex));
  for (const slot of [...slots].sort((a, b) => a - b)) {
    const card = view.visiblePyramid[String(slot)];
    const g = el("div", "group choices");
    g.dataset.slot = String(slot);
    g.hidden = selected !== slot;
    g.appendChild(el("strong", "", card && !card.cardName.endsWith("_BACK") ? Board.pretty(card.cardName) : `card ${slot}`));
    for (const mv of moves.moves.filter((m) => m.moveData.cardIndex === slot)) {
      let text;
      if (mv.move === "CONSTRUCT_BUILDING") text = "Build it";
      else if (mv.move === "DISCARD") text = `Discard it for ${2 + yellow} coins`;
      else text = `Build ${Board.pretty(mv.moveData.wonder)} with it`;
      const b = moveEl("button", "choice", mv, text);
      if (mv.move !== "DISCARD") b.appendChild(el("span", "price", priceText(mv.price)));
      g.appendChild(b);
    }
    for (const r of moves.unavailable.filter((m) => m.moveData.cardIndex === slot)) {
      const what = r.move === "CONSTRUCT_BUILDING" ? (r.reason.startsWith("covered") ? "Cannot take it" : "Cannot build it")
        : `Cannot build ${Board.pretty(r.moveData.wonder)}`;
      const d = el("div", "refused");
      d.tabIndex = -1;
      d.appendChild(el("b", "", what + ": "));
      d.appendChild(document.createTextNode(r.reason));
      g.appendChild(d);
    }
    c.appendChild(g);
  }
}

document.addEventListener("keydown", (k) => { if (k.key === "Escape" && selected !== null) { selected = null; render(); } });

(async () => {
  try {
    info = await call("/info");
    setLabels();
    document.getElementById("title").textContent = `${labels.player1} vs ${labels.player2}`;
    document.title = `duel · ${labels.player1} vs ${labels.player2}`;
    await follow();
  } catch (e) {
    if (!stop.signal.aborted) document.getElementById("status").textContent = String(e.message || e);
  }
})();
