"""The board's points as they stand (board.js `tally`, shown in each city) are the engine's
(`GameState.score`) after every move of whole games: the replay viewer's frames, evaluated in
Chromium against the engine's replay of the same transcripts."""

from __future__ import annotations

from pathlib import Path

from browser import chromium, open_page

from duel.agents import make_agent
from duel.engine import new_game
from duel.match import play_match
from duel.transcripts import TranscriptWriter, initial_state, read, replay
from duel.viewer import render

GAMES = [(3, "rule", "random"), (8, "random", "rule"), (14, "rule", "rule"), (2, "rule", "rule"),
         (5, "rule", "rule")]


def test_points_so_far_are_the_engine_s_after_every_move(tmp_path: Path) -> None:
    with chromium() as browser:
        checked = 0
        counted: set[str] = set()  # the kinds of points the games reached
        for seed, p1, p2 in GAMES:
            agents = (make_agent(p1), make_agent(p2))
            path = tmp_path / f"game{seed}.jsonl"
            deal = new_game(seed).deal
            writer = TranscriptWriter.for_match(path, seed, deal, agents)
            writer.finish(play_match(*agents, seed=seed, deal=deal, on_move=writer.record).result)
            t = read(path)
            states = [initial_state(t), *(step.after for step in replay(t))]
            expected = [[s.score(0)["TOTAL"], s.score(1)["TOTAL"]] for s in states]
            counted |= {k for s in states for i in (0, 1) for k, v in s.score(i).items() if v}
            page_path = tmp_path / f"game{seed}.html"
            page_path.write_text(render(t))
            page, errors = open_page(browser, page_path.as_uri())
            shown = page.evaluate("""GAME.frames.map(f => { const v = structuredClone(f.view);
                v.player1.score = {}; v.player2.score = {};
                return [Board.tally(v, "player1"), Board.tally(v, "player2")]; })""")
            assert shown == expected, next((k, a, b) for k, (a, b)
                                           in enumerate(zip(shown, expected, strict=True))
                                           if a != b)
            assert not errors, errors
            checked += len(states)
            page.close()
    assert checked > 250
    assert counted >= {"CIVILIAN_BUILDING", "SCIENTIFIC_BUILDING", "COMMERCIAL_BUILDING", "GUILD",
                       "MILITARY_BUILDING", "WONDER", "MONEY", "PROGRESS_TOKEN"}, counted
