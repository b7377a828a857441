"""Whole games on the server: an external seat against each agent, agents alone, and the
transcripts they leave (the match runner's format, replayed and checked)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import WAIT, legal, live, manager
from helpers.server_helpers import (
    assert_no_leak,
    assert_valid_state,
    bearer,
    check_transcript,
    create,
    footer,
    move_body,
    wait_until,
)

from duel.agents.spec import make_agent
from duel.engine import Result, new_game
from duel.transcripts import TranscriptWriter, header_line
from duel.transcripts import read as read_transcript


@pytest.mark.parametrize("agent,external_seat", [
    ("rule", 1), ("random", 2), ("mcts:iterations=50", 1), ("rule", 2)])
def test_external_against_agent_full_game(client: TestClient, tmp_path: Path, agent: str,
                                          external_seat: int) -> None:
    seats = ["external", agent] if external_seat == 1 else [agent, "external"]
    code, tokens = create(client, *seats, seed=40 + external_seat)
    token = tokens[str(external_seat)]
    rng = random.Random(external_seat)
    assert client.get(f"/games/{code}/transcript").status_code == 409
    def turn_or_end() -> dict[str, Any] | bool | None:
        if live(client, code).over:
            return True
        m = legal(client, code, token)
        return m if m["yourTurn"] else None

    for _ in range(200):
        m = wait_until(turn_or_end, WAIT, "the external seat's turn")
        if m is True:
            break
        view = client.get(f"/games/{code}", headers=bearer(token)).json()
        public = client.get(f"/games/{code}").json()
        after = live(client, code).state
        for obj, what in ((view, "seat view"), (public, "public view"), (m, "/moves")):
            assert_no_leak(obj, after, what)
        assert_valid_state(view, "seat view")
        assert_valid_state(public, "public view")
        assert view["currentPlayerNumber"] == 2
        r = client.post(f"/games/{code}/moves", headers=bearer(token),
                        json=move_body(rng.choice(m["moves"]), m["ply"]))
        assert r.status_code == 200, r.text
        assert_valid_state(r.json()["state"], "accepted move's state")
    game = live(client, code)
    assert game.over and game.state.is_terminal()
    view = client.get(f"/games/{code}", headers=bearer(token)).json()
    assert view["step"] == "GAME_END"
    result = game.state.result()
    assert result is not None
    winner = result.winner_label
    assert view["player2"]["won"] == (winner == external_seat)
    assert view["player1"]["won"] == (winner == 3 - external_seat)
    assert legal(client, code, token) == {"ply": game.state.ply, "yourTurn": False, "moves": [],
                                          "unavailable": []}
    r = client.get(f"/games/{code}/transcript")
    assert r.status_code == 200
    t = check_transcript(r.text, tmp_path / "game.jsonl")
    assert len(t.moves) == game.state.ply
    assert t.header["players"][str(external_seat)]["spec"] == "external"
    assert t.header["players"][str(3 - external_seat)]["spec"] == agent
    assert footer(t)["winner"] == winner


def test_agents_play_a_whole_game_by_themselves(client: TestClient, tmp_path: Path) -> None:
    code, tokens = create(client, "rule", "random", seed=3)
    assert tokens == {}
    wait_until(lambda: live(client, code).over, WAIT, "the agents' game to end")
    public = client.get(f"/games/{code}").json()
    assert public["step"] == "GAME_END"
    assert_valid_state(public)
    t = check_transcript(client.get(f"/games/{code}/transcript").text, tmp_path / "t.jsonl")
    assert len(t.moves) == live(client, code).state.ply


def test_transcript_lines_have_the_match_runner_s_fields(client: TestClient,
                                                          tmp_path: Path) -> None:
    code, _ = create(client, "rule", "random", seed=67)
    wait_until(lambda: live(client, code).over, WAIT, "the agents' game")
    served = check_transcript(client.get(f"/games/{code}/transcript").text,
                              tmp_path / "served.jsonl")
    deal = new_game(seed=67).deal
    path = tmp_path / "runner.jsonl"
    writer = TranscriptWriter.for_match(path, 67, deal, (make_agent("rule"), make_agent("random")))
    writer.close()
    runner = read_transcript(path)
    assert set(served.header) == set(runner.header)
    assert served.header["deal_from_seed"] is True
    assert served.header["seed"] == 67 and served.header["deal"] == deal.to_json()


def test_a_forfeit_record_has_no_price(client: TestClient, test_agents: None) -> None:
    """As in the match runner: a resignation's move was never played, so it cost nothing."""
    code, _ = create(client, "testfail", "external", seed=68, fallback="forfeit")
    wait_until(lambda: live(client, code).over, WAIT, "the forfeit")
    rows = manager(client).store.moves(code)
    assert rows[-1].details.get("forfeit") is True and rows[-1].price == 0


@pytest.mark.parametrize("seats,fallback", [
    (("rule", "random"), "random"),  # played to the end
    (("testfail", "external"), "forfeit"),  # the failing agent resigns at once
])
def test_the_exported_transcript_is_what_the_writer_writes(
        client: TestClient, tmp_path: Path, test_agents: None, seats: tuple[str, str],
        fallback: str) -> None:
    """Byte for byte: the server's transcript of a game equals the file TranscriptWriter writes
    from the same header, the stored move records and the game's result."""
    code, _ = create(client, *seats, seed=71, fallback=fallback)
    wait_until(lambda: live(client, code).over, WAIT, "the end of the game")
    served = client.get(f"/games/{code}/transcript")
    assert served.status_code == 200, served.text
    game = live(client, code)
    records = manager(client).store.moves(code)
    if records[-1].is_forfeit:
        result = Result.forfeited(records[-1].seat, game.state.scores())
    else:
        result = game.state.result()
    assert result is not None
    header = header_line(71, new_game(seed=71).deal, code, True,
                         [(spec, None) for spec in seats], game.row.created)
    path = tmp_path / "writer.jsonl"
    writer = TranscriptWriter(path, header)
    for record in records:
        writer.record(record)
    writer.finish(result)
    assert served.content == path.read_bytes()
