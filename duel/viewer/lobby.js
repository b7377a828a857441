"use strict";
// The lobby: the agents this server offers (GET /agents), a game against one (POST /games,
// then its play page with the seat's token in the URL fragment) or between two of them (then
// its page as a spectator's), and the games to watch or replay (GET /games). Nothing here that a bot could not do.
const { el } = Board;
let agents = [];
async function json(path, options) {
  const r = await fetch(path, options);
  const body = await r.json().catch(() => null);
  if (!r.ok) throw new Error(`${r.status}: ${body && body.detail ? (typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail)) : r.statusText}`);
  return body;
}
function describe(a) {
  const params = Object.entries(a.params || {}).map(([k, p]) => `${k} (${p.help}${p.max != null ? `, at most ${p.max}` : ""})`);
  return `${a.help}${params.length ? " Parameters: " + params.join("; ") : ""}`;
}
// The agent of a select ("" for the opponent, "1" for player 1 when watching two agents).
const chosen = (k) => agents.find((x) => x.name === document.getElementById("agent" + k).value);
function specOf(k) {
  const a = chosen(k), params = document.getElementById("params" + k);
  return params.value.trim() && !params.disabled ? `${a.name}:${params.value.trim()}` : a.name;
}
function agentChanged() {
  const watching = document.getElementById("seat").value === "watch";
  document.getElementById("firstbox").hidden = !watching;
  for (const k of watching ? ["", "1"] : [""]) {
    const a = chosen(k);
    document.getElementById("agenthelp" + k).textContent = a ? describe(a) : "";
    document.getElementById("params" + k).disabled = !a || !Object.keys(a.params || {}).length;
  }
  if (!watching) document.getElementById("agenthelp1").textContent = "";
  const restricted = chosen("") && chosen("").operator_only || watching && chosen("1") && chosen("1").operator_only;
  document.getElementById("adminbox").hidden = !restricted;
  document.querySelector("#create h2").textContent = watching ? "Watch a game" : "Play a game";
  document.getElementById("againstword").textContent = watching ? "Player 2" : "Against";
}
async function loadAgents() {
  agents = (await json("/agents")).agents;
  for (const k of ["", "1"]) {
    const sel = document.getElementById("agent" + k);
    sel.replaceChildren(...agents.map((a) => { const o = el("option", "", `${a.name}${a.name !== a.kind ? " (" + a.kind + ")" : ""}`); o.value = a.name; return o; }));
    if (agents.find((a) => a.name === "mcts")) { sel.value = "mcts"; document.getElementById("params" + k).value = "time=1"; }
  }
  agentChanged();
}
async function loadGames() {
  const body = document.getElementById("games");
  const games = (await json("/games")).games;
  body.replaceChildren(...games.map((g) => {
    const tr = el("tr");
    tr.appendChild(el("td", "", g.code));
    for (const n of ["1", "2"]) tr.appendChild(el("td", "", g.players[n] === "external" ? "a person or bot" : g.players[n]));
    tr.appendChild(el("td", "", g.ply));
    tr.appendChild(el("td", "", g.over ? (g.winner === "draw" ? "shared victory" : g.winner ? `player ${g.winner} won` : "over") : "in play"));
    const links = el("td");
    const watch = el("a", "", g.over ? "replay" : "watch live");
    watch.href = g.over ? `/games/${encodeURIComponent(g.code)}/view` : `/games/${encodeURIComponent(g.code)}/play`;
    links.appendChild(watch);
    tr.appendChild(links);
    return tr;
  }));
  if (!games.length) body.appendChild(el("tr")).appendChild(el("td", "muted", "no games yet"));
}
for (const id of ["agent", "agent1", "seat"]) document.getElementById(id).addEventListener("change", agentChanged);
document.getElementById("refresh").addEventListener("click", () => loadGames().catch((e) => { document.getElementById("msg").textContent = e.message; }));
document.getElementById("create").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const spec = specOf("");
  const seat = document.getElementById("seat").value;
  const seed = document.getElementById("seed").value;
  const body = seat === "watch" ? { player1: specOf("1"), player2: spec }
    : { player1: seat === "1" ? "external" : spec, player2: seat === "1" ? spec : "external" };
  if (seed !== "") body.seed = Number(seed);
  const headers = { "Content-Type": "application/json" };
  const admin = document.getElementById("admin").value;
  if (admin && !document.getElementById("adminbox").hidden) headers.Authorization = "Bearer " + admin;
  const msg = document.getElementById("msg");
  msg.className = ""; msg.textContent = "starting…";
  try {
    const game = await json("/games", { method: "POST", headers, body: JSON.stringify(body) });
    const page = `/games/${encodeURIComponent(game.code)}/play`;
    location.href = seat === "watch" ? page : `${page}#token=${encodeURIComponent(game.tokens[seat])}`;
  } catch (e) { msg.className = "error"; msg.textContent = e.message; }
});
loadAgents().then(loadGames).catch((e) => { document.getElementById("msg").textContent = e.message; });
