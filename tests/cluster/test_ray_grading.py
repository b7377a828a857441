"""Grading on Ray for real: the games run as tasks of a local Ray instance and come back to the
grading folder as a local run writes them (resumable: a second run plays nothing), and so do
their analyses (--analyse); the LLM's requests keep to --llm-limit across every worker; the
limit's count itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.fake_llm_server import FakeLLMServer

from duel.agents.llm.transport.limits import SLOT_SECONDS, LimitSpec, RequestCounter
from duel.analysis.game import load_analysis
from duel.cli import main
from duel.errors import UsageError
from duel.transcripts import read, verified_result

pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")

from grading.test_grading import scripted  # noqa: E402 - the grading tests' fake model


def grade(url: str, out: Path, *extra: str) -> int:
    return main(["grade", "--variants", "baseline", "--model",
                 f"llm:compat:fake@{url}/v1,mode=text", "--opponent", "random", "--deals", "1",
                 "--out", str(out), "--no-progress", "--ray", "local", *extra])


@pytest.mark.slow  # about 30 s: a Ray instance and a graded run
def test_grading_on_ray_keeps_the_cluster_wide_request_limit(local_ray: None,
                                                             tmp_path: Path) -> None:
    with FakeLLMServer(responder=scripted) as srv:
        srv.delay = 0.1  # two games' requests overlap unless something holds them apart
        assert grade(srv.url, tmp_path / "free", "--jobs", "2", "--analyse",
                     "--analyse-iterations", "4") == 0
        free_peak = srv.max_in_flight
        srv.max_in_flight = 0
        assert grade(srv.url, tmp_path / "limited", "--jobs", "2", "--llm-limit", "1/10000") == 0
        assert srv.max_in_flight == 1
        assert free_peak == 2  # the games did run side by side
        calls = len(srv.requests)
        assert grade(srv.url, tmp_path / "limited", "--jobs", "2") == 0  # resumed
        assert len(srv.requests) == calls
    # --analyse on Ray: each game's graded seat analysed there, its sidecar written here.
    for path in sorted((tmp_path / "free").glob("games/*/*.jsonl")):
        seat = int(path.stem.split("seat")[1])
        found = load_analysis(path)
        assert found is not None and found.seats == (seat,), path
    for out in ("free", "limited"):
        games = sorted((tmp_path / out).glob("games/*/deal*.jsonl"))
        assert len(games) == 4  # baseline and null, each deal from both seats
        for path in games:
            assert verified_result(read(path)) is not None
        assert (tmp_path / out / "report.csv").exists()
    def lengths(out: str) -> list[int]:
        return [p.read_text().count("\n")
                for p in sorted((tmp_path / out).glob("games/*/*.jsonl"))]

    assert lengths("free") == lengths("limited")


def test_the_limit_counts_requests_in_flight_and_per_minute() -> None:
    counter = RequestCounter(LimitSpec(in_flight=2, per_minute=3, window=60.0))
    first, second = counter.take(0.0), counter.take(0.1)
    assert first and second and counter.take(0.2) is None  # two in flight
    counter.give_back(first)
    third = counter.take(0.3)
    assert third is not None
    counter.give_back(second)
    assert counter.take(0.4) is None  # one in flight, but three started this minute
    assert counter.take(60.05) is not None  # the first start left the minute
    # A slot never given back (its worker died) is taken back in the end.
    counter = RequestCounter(LimitSpec(in_flight=1, per_minute=100))
    assert counter.take(0.0) is not None and counter.take(1.0) is None
    assert counter.take(SLOT_SECONDS + 1.0) is not None


@pytest.mark.parametrize("text", ["8", "0/10", "8/x", "-1/5", "/"])
def test_a_bad_limit_is_refused_by_name(text: str) -> None:
    with pytest.raises(UsageError, match="--llm-limit"):
        LimitSpec.parse(text)
    assert LimitSpec.parse("8/500") == LimitSpec(8, 500)
