"""The browser viewer: one self-contained HTML page per game (plain HTML, CSS and JS).

`frames(transcript)` re-plays a transcript into the public view after every ply; `render()`
embeds them in the page, with the move-quality analysis when one is given (the win-chance curve
under the board, blunders and mistakes marked in the move list, the analyser's move beside the
move played). `duel view FILE` writes the page and serves it; the server shows the
same page at `/games/{code}/view`. The board is the play page's (board.css, board.js, the card
catalogue), inlined: the page stays one self-contained file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from duel.engine import seat_view
from duel.transcripts import ReplayStep, Transcript, initial_state, is_forfeit, replay
from duel.viewer.catalogue import catalogue
from duel.viewer.pages import asset, with_nonce
from duel.words.agents import agent_name, details_words
from duel.words.moves import move_json_text, move_text
from duel.words.names import fill


def frames(t: Transcript, steps: Iterable[ReplayStep] | None = None) -> list[dict[str, Any]]:
    """Frame 0 is the start; frame k the public view after ply k, with that move's record and
    both players' points so far (the engine's breakdowns, player 1's first: the page shows
    them, it never counts). A resignation gets a last frame of its own (the position does not
    change), so the attempts of an LLM that forfeited show too. Raises TranscriptError where
    the replay mismatches. `steps`: the transcript's replay, when the caller has made it
    already (to check the result too) and need not have it made twice."""
    state = initial_state(t)
    out: list[dict[str, Any]] = [{"ply": 0, "view": seat_view(state), "text": "Start",
                                  "record": None, "points": list(state.scores())}]
    names = {1: "Player 1", 2: "Player 2"}
    for step, rec in zip(replay(t) if steps is None else steps, t.moves, strict=False):
        text = fill(f"{{{step.before.current + 1}}} "
                    + move_text(step.before, step.move, step.after), names)
        details = dict(rec.get("details") or {})
        if isinstance(details.get("top"), list):  # a search's top moves, in words too
            details["top"] = [{**row, "text": fill(
                move_json_text(step.before, row.get("move")) or "a move", names)}
                for row in details["top"] if isinstance(row, dict)]
        out.append({"ply": step.ply, "view": seat_view(step.after), "text": text,
                    "record": {**rec, "details": details}, "notes": details_words(details),
                    "forced": len(step.before.legal_moves()) == 1,
                    "points": list(step.after.scores())})
    if len(out) <= len(t.moves) and is_forfeit(t.moves[len(out) - 1]):
        rec = t.moves[len(out) - 1]
        out.append({"ply": rec["ply"], "view": out[-1]["view"],
                    "text": f"Player {rec['player']} forfeits", "record": rec,
                    "points": out[-1]["points"]})
    return out


def analysis_data(sidecar: dict[str, Any]) -> dict[str, Any]:
    """What the page shows of an analysis sidecar (duel.analysis): each analysed decision by
    ply (the loss, its grade, the analyser's move), the win-chance curve and the seats'
    figures."""
    from duel.analysis.summary import grade

    return {
        "decisions": {str(d["ply"]): {
            "loss": d["loss"], "loss_se": d["loss_se"], "grade": grade(d["loss"]),
            "played_value": d["played_value"], "best_value": d["best_value"],
            "best_text": d["best_text"], "same": d["best"] == d["played"]}
            for d in sidecar["decisions"]},
        "curve": sidecar["curve"],
        "seats": {k: {f: v[f] for f in ("decisions", "mean_loss", "blunders", "mistakes",
                                         "accuracy")} for k, v in sidecar["seats"].items()},
    }


def render(t: Transcript, title: str = "duel game",
           analysis: dict[str, Any] | None = None, nonce: str | None = None,
           steps: Iterable[ReplayStep] | None = None) -> str:
    """The page for a transcript, with the game's frames embedded, and the analysis (a sidecar
    that `duel analyse` wrote, checked fresh by the caller) when there is one; `nonce` on its
    script and style when a server sends it with a content security policy; `steps`: see
    :func:`frames`. The page opens at the start, or at ply N for a URL ending in #ply=N."""
    data = {
        "title": title,
        "players": {k: agent_name(v.get("spec"))
                    for k, v in t.header.get("players", {}).items()},
        "frames": frames(t, steps),
        "result": t.footer,
        "analysis": analysis_data(analysis) if analysis is not None else None,
        "catalogue": catalogue(),
    }
    page = with_nonce(asset("viewer.html"), nonce)
    payload = _script_safe(json.dumps(data))
    # The title and the board first: a model's text in the payload may say "__TITLE__" too.
    page = page.replace("__TITLE__", _escape(title))
    page = page.replace("/*__BOARD_CSS__*/", asset("board.css"))
    page = page.replace("/*__BOARD_JS__*/", asset("board.js"))
    return page.replace("/*__GAME_DATA__*/null", payload)


def _escape(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def _script_safe(payload: str) -> str:
    """JSON that cannot end its <script> element or open another: whatever a model wrote (its
    thinking, its replies), no "<", ">" or "&" is left outside a JavaScript string escape. JSON
    has these characters only inside strings, where the escapes mean the same characters."""
    return payload.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
