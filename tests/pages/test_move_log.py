"""GET /games/{code}/log: the moves so far in words, written by duel.words from the states they
were played in (the play page's log and "last move" panel, rebuilt from it on a reload). It
names nothing that was hidden when it was asked for (checked at every ply of a game against
MCTS), agrees with the transcript move for move, marks the forced moves, and words a search's
top moves."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from fastapi.testclient import TestClient
from helpers.server_helpers import assert_no_leak, bearer, create, move_body

from duel import words
from duel.engine import WONDERS, Move
from duel.transcripts import read, replay
from server.main import create_app

IDENTIFIER = r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"


def test_the_log_in_words_names_nothing_hidden(db: str, tmp_path: Path) -> None:
    with TestClient(create_app(db)) as client:
        code, tokens = create(client, "external", "mcts:iterations=30", seed=11)
        rng = random.Random(11)
        seen = 0
        while True:
            info = client.get(f"/games/{code}/info").json()
            if info["over"]:
                break
            moves = client.get(f"/games/{code}/moves", headers=bearer(tokens["1"])).json()
            if not moves["yourTurn"]:
                continue
            log = client.get(f"/games/{code}/log").json()["moves"]
            assert [m["ply"] for m in log] == list(range(1, moves["ply"] + 1))
            # Only what was public: the state now is the one the log was asked in.
            state = client.app.state.manager.get(code).state  # type: ignore[attr-defined]
            # (The Hanging Gardens is no Gardens: the wonders' names out first.)
            text = json.dumps(log)
            for w in WONDERS:
                text = text.replace(words.name(w.name), " ")
            assert_no_leak(text, state, f"the log at ply {moves['ply']}")
            for m in log:
                assert not re.search(IDENTIFIER, m["text"]), m["text"]
                for row in m["details"].get("top", []):
                    assert row["text"] and not re.search(IDENTIFIER, row["text"]), row
            seen += 1
            move = rng.choice(moves["moves"])
            r = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                            json=move_body(move, moves["ply"]))
            assert r.status_code == 200, r.text
        assert seen > 20
        log = client.get(f"/games/{code}/log").json()["moves"]
        later = client.get(f"/games/{code}/log?since=30").json()["moves"]
        assert later == [m for m in log if m["ply"] >= 30]
        path = tmp_path / "game.jsonl"
        path.write_text(client.get(f"/games/{code}/transcript").text)
        assert client.get("/games/nope/log").status_code == 404
    # Move for move, the words duel.words writes from the transcript's own replay.
    t = read(path)
    assert len(log) == len(t.moves)
    for m, step in zip(log, replay(t), strict=True):
        assert m["ply"] == step.ply and m["move"] == step.move.to_json()
        assert m["text"] == words.move_text(step.before, step.move, step.after)
        assert m["forced"] == (len(step.before.legal_moves()) == 1)
    # The draft's fourth pick is player 1's only wonder left: forced.
    assert log[3]["forced"] and log[3]["move"]["move"] == "SELECT_WONDER"
    assert Move.from_json(log[3]["move"])
