"""`-T tools=on` answers from the seat's view alone: twin deals, different only in the cards
nobody sees before Age II, give the same prompts and the same look-up answers (get_state,
legal_moves with why_not, explain) at every Age I turn, played alike."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")

from helpers.seat_tables import twin_deal  # noqa: E402
from inspect_ai.tool import ToolCall  # noqa: E402

from duel.engine import new_game  # noqa: E402
from duel.envs import TextEnv  # noqa: E402
from duel.envs.table import SeatTable  # noqa: E402
from duel.inspect.tools import ToolSeat  # noqa: E402


def _call(seat: ToolSeat, name: str, **arguments: object) -> str:
    answer = seat._look_up(ToolCall(id=name, function=name, arguments=dict(arguments)))
    return json.dumps(answer, sort_keys=True)


def test_no_look_up_answer_holds_a_hidden_card() -> None:
    deal = new_game(21).deal
    seen = []
    for d in (deal, twin_deal(deal)):
        env = TextEnv(opponent="random", seat=2)
        obs = env.reset(seed=21, deal=d, code="TWINS")
        seat = ToolSeat(None, SeatTable(env))  # type: ignore[arg-type]  # no model is asked
        rng = random.Random(0)
        answers = []
        while env.state.age == 1 and not env.done:
            answers.append(json.dumps([obs.prompt.chat(), obs.view, obs.legal], sort_keys=True))
            answers += [_call(seat, "get_state"), _call(seat, "legal_moves", why_not=True)]
            moves = json.loads(answers[-1])["moves"]
            pick = rng.choice(moves)
            answers.append(_call(seat, "explain", move=pick["move"], moveData=pick["moveData"]))
            result = env.step(json.dumps({"move": pick["move"], "moveData": pick["moveData"]}))
            obs = result.observation
        seen.append(answers)
    assert len(seen[0]) > 20 and seen[0] == seen[1]
