"""The leaderboard's HTML: the index (the ranking table, the plots, the notes) and a page per
player, from Jinja2 templates (autoescaped: a spec or a model's text is shown, never run). The
static site and `duel serve` render the same pages; only their links differ (`Links`), and
the server puts its response's nonce on the one <style> and the one <script>."""

from __future__ import annotations

import hashlib
import re
from functools import cache
from typing import Any, Protocol

import jinja2
from markupsafe import Markup

from duel import __version__
from duel.viewer.pages import head

from .figures import FEWEST_UNITS, Board
from .games import SEATS, Game


class Links(Protocol):
    """Where a page's links go: the static site's relative paths, or the server's routes."""

    def index(self) -> str: ...

    def player(self, name: str) -> str: ...

    def game(self, key: str, ply: int | None = None) -> str | None:
        """The replay of game `key` (at decision `ply`), or None if it has none."""
        ...

    def plot(self, name: str) -> str: ...

    def data(self) -> str: ...

    def schema(self) -> str: ...


def slug(name: str) -> str:
    """A player's page name: its spec's letters and digits, cut short, and a hash of the
    whole (two specs never share a page, whatever their characters)."""
    readable = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:48].strip("-")
    return f"{readable or 'player'}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def _signed(x: float) -> str:
    return f"{x:+.0f}".replace("-", "−")


def _pct(x: float | None, digits: int = 1) -> str:
    return "—" if x is None else f"{100 * x:.{digits}f}%"


NO_CI = f"no CI (under {FEWEST_UNITS} games)"


def _pcts(ci: list[float] | None) -> str:
    return NO_CI if not ci else f"{_pct(ci[0])}–{_pct(ci[1])}"


def _dollars(x: float) -> str:
    """Three significant figures (whole cents from $10)."""
    if x == 0:
        return "0"
    return f"{x:,.2f}" if x >= 10 else f"{x:.3g}" if x >= 0.001 else f"{x:.2g}"


def _usd(x: float | None) -> str:
    return "unknown" if x is None else f"${_dollars(x)}"


def _usds(ci: list[float] | None) -> str:
    return NO_CI if not ci else f"{_dollars(ci[0])}–{_dollars(ci[1])}"


def _num(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:,.0f}" if abs(x) >= 100 or float(x).is_integer() else f"{x:,.1f}"


def _loss(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _losses(ci: list[float] | None) -> str:
    return NO_CI if not ci else f"{ci[0]:.3f}–{ci[1]:.3f}"


def _rank(interval: list[int]) -> str:
    best, worst = interval
    return str(best) if best == worst else f"{best}–{worst}"


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("duel.leaderboard", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters.update(signed=_signed, pct=_pct, pcts=_pcts, usd=_usd, usds=_usds, num=_num,
                       loss=_loss, losses=_losses, rank=_rank,
                       day=lambda s: s[:10], minute=lambda s: s[:16].replace("T", " "))
    return env


@cache
def _asset(name: str) -> str:
    loader = environment().loader
    assert loader is not None
    return loader.get_source(environment(), name)[0]


def _render(template: str, nonce: str | None, **context: Any) -> str:
    return environment().get_template(template).render(
        head=Markup(head().rstrip("\n")),
        css=Markup(_asset("leaderboard.css")),
        js=Markup(_asset("leaderboard.js")),
        nonce=nonce, version=__version__, **context)


def date_range(board: Board) -> str:
    dates = sorted(g.started_at for g in board.games if g.started_at)
    if not dates:
        return ""
    return f"{dates[0][:10]} – {dates[-1][:10]}"


def index_page(board: Board, links: Links, plots: dict[str, str],
               nonce: str | None = None) -> str:
    return _render("index.html", nonce, board=board, links=links, plots=plots,
                   dates=date_range(board))


def player_page(board: Board, name: str, links: Links, nonce: str | None = None) -> str:
    p = board.player(name)
    rating = {r["player"]: r["rating"] for r in board.players}
    opponents = []
    for pair in board.pairings:
        if name not in (pair["a"], pair["b"]):
            continue
        mine = pair["a"] == name
        other = pair["b"] if mine else pair["a"]
        wins, losses = (pair["a_wins"], pair["b_wins"]) if mine else (pair["b_wins"],
                                                                     pair["a_wins"])
        lo, hi = pair["a_score_rate_ci"]
        opponents.append({
            "name": other, "games": pair["games"], "wins": wins, "draws": pair["draws"],
            "losses": losses,
            "score_rate": pair["a_score_rate"] if mine else round(1 - pair["a_score_rate"], 4),
            "score_rate_ci": [lo, hi] if mine else [round(1 - hi, 4), round(1 - lo, 4)],
            "expected": 1 / (1 + 10 ** ((rating[other] - rating[name]) / 400))})
    opponents.sort(key=lambda o: -rating[o["name"]])
    games = [_game_row(board, g, name, links) for g in reversed(board.games_of(name))]
    worst = [{**w, "opponent": board.seats[w["game"]][2 - w["seat"]]}
             for w in board.worst.get(name, [])]
    return _render("player.html", nonce, p=p, method=board.method, links=links,
                   opponents=opponents, games=[x for rows in games for x in rows], worst=worst,
                   players=len(board.players))


def _game_row(board: Board, g: Game, name: str, links: Links) -> list[dict[str, Any]]:
    """The player's row (two in a game it played against itself)."""
    rows = []
    for seat in SEATS:
        if board.seats[g.key][seat - 1] != name:
            continue
        points = g.points(seat)
        totals = g.totals[seat - 1]
        mine, theirs = g.scores[seat - 1], g.scores[2 - seat]
        rows.append({
            "key": g.key, "started_at": g.started_at, "seat": seat,
            "opponent": board.seats[g.key][2 - seat], "points": points,
            "outcome": {1.0: "won", 0.5: "shared", 0.0: "lost"}[points],
            "victory": g.victory, "mine": mine, "theirs": theirs, "margin": mine - theirs,
            "moves": g.moves, "cost": totals.get("cost_usd") if totals else None,
            "link": links.game(g.key)})
    return rows


def empty_page(nonce: str | None = None) -> str:
    """The leaderboard before any game is over."""
    return _render("empty.html", nonce)
