"""Details an agent returns are stored in true labels, whatever labels it saw (it plays as
player2): the move records, the transcripts and the viewer all speak the engine's labels."""

from __future__ import annotations

from pathlib import Path

from duel.engine import Seat
from duel.match import play_match
from duel.transcripts import TranscriptWriter, read
from duel.viewer import frames


def _start_choices(records: list) -> list:  # type: ignore[type-arg]
    return [r for r in records if r.step == "CHOOSE_STARTING_PLAYER" and r.details.get("top")]


def test_mcts_details_name_the_move_it_played_in_true_labels(tmp_path: Path) -> None:
    found = 0
    for seed in range(2, 8):
        path = tmp_path / f"g{seed}.jsonl"
        writer = TranscriptWriter.for_match(path, seed, play_match("random", "random",
                                                                   seed=seed).deal,
                                            [_Spec("mcts:iterations=40"), _Spec("random")])
        result = play_match("mcts:iterations=40", "random", seed=seed, on_move=writer.record)
        writer.finish(result.result)
        for record in _start_choices(result.records):
            if record.seat is not Seat.P1:
                continue  # player 1 is the seat whose labels are swapped for the agent
            found += 1
            # The top move by visits is the move played: the same labels on both.
            assert record.details["top"][0]["move"] == record.move.to_json()
        lines = read(path).moves
        for frame in frames(read(path))[1:]:
            rec = frame["record"]
            if rec["step"] == "CHOOSE_STARTING_PLAYER" and rec["details"].get("top"):
                assert rec["details"]["top"][0]["move"] == rec["move"]
        assert len(lines) == len(result.records)
    assert found > 0, "no CHOOSE_STARTING_PLAYER decision by player 1 in these seeds"


class _Spec:
    def __init__(self, spec: str) -> None:
        self.spec = spec
