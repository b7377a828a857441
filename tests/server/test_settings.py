"""The operator's limits: `duel serve` has an option for each, a bad value is one line and exit
status 2, and the limits refuse what cannot be honoured (a search deadline over the cap)."""

from __future__ import annotations

import dataclasses

import pytest

from duel.cli import main
from duel.errors import UsageError
from server.settings import Limits
from server.work.search_budget import MAX_SECONDS


def test_serve_has_an_option_for_every_limit(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["serve", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for f in dataclasses.fields(Limits):
        assert "--" + f.name.replace("_", "-") in out, f.name


@pytest.mark.parametrize("option,value,needle", [
    ("--search-deadline", "0", "search-deadline must be a positive number"),
    ("--search-deadline", str(MAX_SECONDS + 1), "search-deadline is at most 30 seconds"),
    ("--llm-deadline", "nan", "llm-deadline must be a positive number"),
    ("--searches", "-1", "searches must be a positive number"),
    ("--header-timeout", "inf", "header-timeout must be a positive number"),
])
def test_a_bad_limit_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], option: str,
                                            value: str, needle: str) -> None:
    assert main(["serve", "--db", ":memory:", option, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("duel serve: ") and needle in err and err.count("\n") == 1, err


def test_a_live_games_cap_of_0_means_no_cap() -> None:
    assert Limits(max_live_games=0).max_live_games == 0
    with pytest.raises(UsageError, match="finished-kept must be a positive number"):
        Limits(finished_kept=0)
