"use strict";
// The page for a person's seat, or a spectator's: it reads the game with the same REST calls
// and event stream as any bot (the seat's token, from the URL fragment, goes in the
// Authorization header only, so no server log ever holds it).
const PAGE = /*__PAGE_DATA__*/null;
Board.setCatalogue(PAGE.catalogue);
Board.installIcons();
const { el } = Board;
const W = PAGE.catalogue.words;
const CODE = PAGE.code;
const BASE = `/games/${encodeURIComponent(CODE)}`;
const HASH = new URLSearchParams(location.hash.slice(1));
const TOKEN = HASH.get("token");
const AUTO = HASH.get("auto") !== "0";  // forced moves played for the person (#auto=0: not)
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
const logged = new Map();  // ply -> the move as GET /log writes it (words, details)
let fromRect = null;      // where the card just taken was, for its flight to the city

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

function setLabels() {
  const you = info.you;
  trueNumber = you ? { player2: you, player1: 3 - you } : { player1: 1, player2: 2 };
  for (const key of ["player1", "player2"]) {
    const n = trueNumber[key];
    labels[key] = you && n === you ? `Player ${n} (you)` : `${PAGE.names[n] || "Player " + n} (player ${n})`;
  }
}
const byTrue = () => ({ [trueNumber.player1]: labels.player1, [trueNumber.player2]: labels.player2 });
// A text of duel/words.py with its players ("{1}", "{2}": true numbers) in this page's labels.
const fill = (text) => text.replace(/\{([12])\}/g, (_, n) => byTrue()[n]);
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
  const taken = view ? Board.takenSlot(view, v) : null;
  const slotEl = taken !== null ? document.querySelector(`#table [data-slot="${taken}"]`) : null;
  fromRect = slotEl ? slotEl.getBoundingClientRect() : null;
  const takenName = taken !== null ? view.visiblePyramid[String(taken)].cardName : null;
  const mover = view ? view.currentPlayerNumber : null;
  prev = view; view = v; ply = n; moves = null; selected = null; busy = false;
  document.body.dataset.ply = String(n);
  document.body.dataset.step = v.step;
  if (over()) finish();
  render();
  if (takenName && mover) Board.flyTaken(fromRect, document.querySelector(`[data-city=player${mover}]`), takenName);
  if (over()) document.body.dataset.pointsPly = String(n);  // the view's own final score
  else loadPoints(n);
  // From the first move not logged yet: after a reload all of them, later any a failed
  // request missed.
  if (n > 0) loadLog(logged.size ? Math.min(n, Math.max(...logged.keys()) + 1) : 1);
  if (myTurn()) {
    try {
      const m = await call("/moves");
      if (m.ply === ply) {
        moves = m; render();
        // The only move there is (the draft's last wonder, the last token): played for the
        // person, and the log says so.
        if (AUTO && m.moves.length === 1 && !m.unavailable.length) { await play(seatSwap({ move: m.moves[0].move, moveData: m.moves[0].moveData })); return; }
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

// The moves from ply `since` on, in words (GET /log: duel/words.py writes them), into the
// log; the last one's details (what the agent said or found) into the "last move" panel.
// A reload reads them all again: nothing is lost.
async function loadLog(since) {
  try {
    const r = await call(`/log?since=${since}`);
    for (const m of r.moves) logged.set(m.ply, m);
    drawLog();
    const last = logged.get(Math.max(...logged.keys()));
    if (last) showLast(last);
  } catch (e) { /* the log is a courtesy; the game goes on without it */ }
}
function moveWords(m) {
  return `${byTrue()[m.player]} ${fill(m.text)}` + (m.forced ? ` (${m.player === info.you ? W.forcedForYou : W.forced})` : "");
}
function drawLog() {
  const log = document.getElementById("log");
  const rows = [...logged.values()].sort((a, b) => a.ply - b.ply);
  log.replaceChildren(...rows.map((m) => {
    const d = el("div", m.forced ? "forced" : "", `${m.ply}. ${moveWords(m)}`);
    d.dataset.ply = String(m.ply);
    return d;
  }));
  log.scrollTop = log.scrollHeight;
}
function showLast(m) {
  const box = document.getElementById("thinking");
  box.replaceChildren(el("h2", "", `Last move (${m.ply})`));
  box.appendChild(el("div", "", `${moveWords(m)} · ${m.seconds} s`));
  if (info.players[m.player] !== "external") box.appendChild(Board.agentDetails(m.details, m.notes, fill));
}

// -------------------------------------------------------------------------- moves
// The API gives and takes a seat's moves in its own labels (it is always player 2); the page
// shows and carries them in true ones, like everything it says ("I start" carries your own
// number). Only the choice of who starts names a player.
function seatSwap(mv) {
  if (mv.move !== "CHOOSE_STARTING_PLAYER" || info.you !== 1) return mv;
  return { move: mv.move, moveData: { playerNumber: 3 - mv.moveData.playerNumber } };
}
function moveEl(tag, cls, mv, text) {
  const e = el(tag, cls, text);
  const json = seatSwap({ move: mv.move, moveData: mv.moveData });
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
                                     body: JSON.stringify({ ...seatSwap(mv), ply }) });
    await arrive(r.ply, r.state);
  } catch (e) {
    busy = false;
    say(String(e.message || e));
    document.querySelectorAll("[data-move]").forEach((b) => b.removeAttribute("aria-disabled"));
  }
}
const legal = (kind) => (moves ? moves.moves.filter((m) => m.move === kind) : []);
function priceText(p) { return p ? `pay ${Board.coins(p)}` : "free"; }

// -------------------------------------------------------------------------- drawing
function render() {
  if (!view) return;
  document.body.classList.toggle("my-turn", Boolean(myTurn()));
  const cur = over() ? null : view.currentPlayerNumber;
  const who = cur ? labels["player" + cur] : null;
  document.getElementById("status").textContent = over() ? resultText()
    : `${view.step === "WONDER_SELECTION" ? "Before Age I" : W.ages[view.age]} · ${W.step[view.step]} · ${cur === 2 && info.you ? "your turn" : who + " to move"}`;
  const destroy = legal("DESTROY_CARD");
  const pick = destroy.length ? (name) => {
    const mv = destroy.find((m) => m.moveData.cardName === name);
    if (!mv) return null;
    const b = moveEl("button", "chip", mv);
    b.append(...Board.chip(name).childNodes);
    b.setAttribute("aria-label", `destroy ${Board.pretty(name)}`);
    b.prepend(Board.icon("destroy", 1, { silent: true }));
    return b;
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
  Board.fitPyramid();
}
addEventListener("resize", () => Board.fitPyramid());
function resultText() {
  const w = document.body.dataset.winner;
  const how = info.victory ? ` ${W.victory[info.victory] || info.victory}` : "";
  const who = byTrue()[w];
  return w === "draw" ? "Game over: shared victory on points" : `Game over: ${Number(w) === info.you ? "you win" : who + " wins"}${how}` +
    (info.you ? (Number(w) === info.you ? " — well played!" : "") : "");
}
function drawTokens() {
  const box = document.getElementById("boardtokens");
  box.replaceChildren(el("h2", "", "Progress tokens"));
  const row = el("div", "tokens");
  const choose = legal("CHOOSE_PROGRESS_TOKEN");
  for (const t of view.tokensAvailable) {
    const mv = choose.find((m) => m.moveData.progressToken === t);
    const e = mv ? moveEl("button", "token", mv) : Board.tokenEl(t);
    if (mv) { const face = Board.tokenEl(t); e.append(...face.childNodes); e.title = face.title; e.setAttribute("aria-label", "take " + face.getAttribute("aria-label")); }
    row.appendChild(e);
  }
  if (!view.tokensAvailable.length) row.appendChild(el("span", "muted", "none left on the board"));
  box.appendChild(row);
}
function drawTable() {
  const box = document.getElementById("table");
  if (view.step === "WONDER_SELECTION") {
    box.replaceChildren(el("h2", "", W.step.WONDER_SELECTION[0].toUpperCase() + W.step.WONDER_SELECTION.slice(1)));
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
  box.replaceChildren(el("h2", "", W.ages[view.age]));
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
        const tag = build ? (build.price ? Board.coins(build.price) : "free") : refused && refused.price != null ? Board.coins(refused.price) : "";
        const price = build ? build.price : refused && refused.price != null ? refused.price : null;
        if (price !== null) {
          const pt = el("span", "pricetag" + (build ? "" : " dear"));
          pt.appendChild(price ? Board.icon("coin", price) : el("span", "", "free"));
          t.querySelector(".name").after(pt);
        }
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
  box.hidden = !view.discardedCards.length;
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
  box.firstChild.textContent = `Your move: ${W.step[view.step]}`;
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
    // The moves are in true player numbers (the server maps a seat's labels back): "I start"
    // carries this seat's own number.
    for (const mv of legal("CHOOSE_STARTING_PLAYER"))
      row.appendChild(moveEl("button", "choice", mv, seatSwap(mv).moveData.playerNumber === info.you ? "I start" : "My opponent starts"));
    c.appendChild(row);
  }
  if (step === "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD") {
    c.appendChild(el("div", "note", "The Great Library: take one of these three tokens from the box."));
    const row = el("div", "tokens");
    for (const mv of legal("CHOOSE_PROGRESS_TOKEN_FROM_DISCARD")) {
      const b = moveEl("button", "token", mv);
      const face = Board.tokenEl(mv.moveData.progressToken);
      b.append(...face.childNodes); b.title = face.title;
      row.appendChild(b);
    }
    c.appendChild(row);
  }
  if (step === "CONSTRUCT_FROM_DISCARD") {
    c.appendChild(el("div", "note", "The Mausoleum: build one discarded card for free."));
    const row = el("div", "discardpile");
    for (const mv of legal("CONSTRUCT_FROM_DISCARD")) {
      const b = moveEl("button", "chip " + PAGE.catalogue.cards[mv.moveData.cardName].color, mv);
      b.append(...Board.chip(mv.moveData.cardName).childNodes);
      row.appendChild(b);
    }
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
    g.appendChild(el("strong", "", card && PAGE.catalogue.cards[card.cardName] ? Board.pretty(card.cardName) : "a face-down card"));
    for (const mv of moves.moves.filter((m) => m.moveData.cardIndex === slot)) {
      let text;
      if (mv.move === "CONSTRUCT_BUILDING") text = "Build it";
      else if (mv.move === "DISCARD") text = `Discard it for ${Board.coins(2 + yellow)}`;
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
      d.appendChild(document.createTextNode(reasonWords(r.reason)));
      g.appendChild(d);
    }
    c.appendChild(g);
  }
}

// A refusal's reason names covering cards by slot: by name here ("covered by Baths and Quarry").
function reasonWords(reason) {
  return reason.replace(/^covered by (.*)$/, (_, slots) => "covered by " + slots.split(/, | and /).map((s) => {
    const c = view.visiblePyramid[s.trim()];
    return c && PAGE.catalogue.cards[c.cardName] ? Board.pretty(c.cardName) : "a face-down card";
  }).join(" and "));
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
