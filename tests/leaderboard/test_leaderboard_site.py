"""`duel leaderboard` on real tournaments (two MCTS rungs, rule, random and a priced LLM seat on a
fake OpenAI server, two of its games analysed): leaderboard.json follows its schema and the
issue's contract, its figures are those of the games, and the site works in Chromium from
file:// (order, intervals, sorting, every link, the replays) without fetching anything else."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers.leaderboard_runs import RUNGS, play_all

from duel.cli import main
from duel.schemas import schema_error
from duel.stats import wilson

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(os.environ.get("DUEL_TEST_ARTIFACTS", "/tmp/duel-test-artifacts")) / "leaderboard"
CONTRACT = ("spec", "rating", "rating_ci", "rank_interval", "games", "score_rate",
            "cost_per_game_usd", "mean_loss")


@dataclass
class Site:
    root: Path
    folders: list[Path]
    llm: str
    data: dict[str, Any]

    def player(self, name: str) -> dict[str, Any]:
        return next(p for p in self.data["players"] if p["player"] == name)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    root = tmp_path_factory.mktemp("board")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_API_KEY", "sk-test-not-used")
        folders, llm = play_all(root)
    out = root / "site"
    assert main(["leaderboard", *map(str, folders), "--out", str(out), "--resamples", "400",
                 "--jobs", "2"]) == 0
    return Site(out, folders, llm, json.loads((out / "leaderboard.json").read_text()))


def lines(folders: list[Path]) -> list[dict[str, Any]]:
    return [json.loads(x) for f in folders for x in (f / "games.jsonl").read_text().splitlines()]


def test_the_json_follows_its_schema_and_the_contract(site: Site) -> None:
    data = site.data
    assert schema_error("leaderboard", data) is None
    assert json.loads((site.root / "leaderboard.schema.json").read_text())["$id"].endswith(
        "leaderboard.schema.json")
    played = lines(site.folders)
    assert data["summary"]["games"] == len(data["games"]) == len(played) == 38
    players = data["players"]
    assert {p["player"] for p in players} == {*RUNGS, "rule", "random", site.llm}
    ratings = [p["rating"] for p in players]
    assert ratings == sorted(ratings, reverse=True)  # the strongest first
    for position, p in enumerate(players, 1):
        assert all(key in p for key in CONTRACT), p
        low, high = p["rating_ci"]
        assert low <= p["rating"] <= high
        best, worst = p["rank_interval"]
        assert 1 <= best <= position <= worst <= len(players), p
        games = [g for g in played if p["spec"] in (g["player1"], g["player2"])]
        assert p["games"] == len(games)
        points = sum(1.0 if g["winner"] == (1 if g["player1"] == p["spec"] else 2) else 0.0
                     for g in games)
        assert p["score_rate"] == round(points / len(games), 4)
        assert p["score_rate_ci"] == [round(x, 4) for x in wilson(points, len(games))]
    assert sum(p["games"] for p in players) == 2 * len(played)


def test_the_ladder_is_the_scale_and_rule_beats_random(site: Site) -> None:
    low, high = site.player(RUNGS[0]), site.player(RUNGS[1])
    assert low["anchor"] and low["rating"] == 0.0 and low["rating_ci"] == [0.0, 0.0]
    assert (low["rung"], high["rung"], high["anchor"]) == (4, 40, False)
    assert site.data["method"]["anchor"] == RUNGS[0]
    names = [p["player"] for p in site.data["players"]]
    assert names.index("rule") < names.index("random")
    assert site.player("rule")["place"].startswith("above MCTS-40")


def test_the_llm_s_money_legality_and_loss_are_its_games(site: Site) -> None:
    p = site.player(site.llm)
    mine = [(g, "1" if g["player1"] == site.llm else "2") for g in lines(site.folders)
            if site.llm in (g["player1"], g["player2"])]
    totals = [g["totals"][seat] for g, seat in mine]
    cost = sum(t["cost_usd"] for t in totals)
    assert cost > 0 and p["cost_usd"] == pytest.approx(cost, abs=1e-6)
    assert p["cost_games"] == p["games"] == len(mine) == 10
    assert p["cost_per_game_usd"] == pytest.approx(cost / 10, abs=1e-6)
    wins = sum(1 for g, seat in mine if str(g["winner"]) == seat)
    assert p["cost_per_game_won_usd"] == pytest.approx(cost / wins, abs=1e-6)
    moves = sum(t["moves"] for t in totals)
    first = sum(t["first_try_legal"] * t["moves"] for t in totals)
    assert p["llm_moves"] == moves and p["first_try_legal"] == pytest.approx(first / moves, 1e-3)
    assert 0.7 < p["first_try_legal"] < 0.85  # every fifth call is refused and re-asked
    low, high = p["first_try_legal_ci"]
    assert low <= p["first_try_legal"] <= high
    assert p["tokens_per_move"]["input"] > 1000 and p["reasoning"] == "default"
    # the analyser's sidecars of two of its games
    sidecars = sorted(site.folders[5].glob("transcripts/*.analysis.json"))
    assert len(sidecars) == 2
    losses = [d["loss"] for s in sidecars for d in json.loads(s.read_text())["decisions"]]
    assert p["decisions"] == len(losses) and p["analysed_games"] == 2
    assert p["mean_loss"] == pytest.approx(sum(losses) / len(losses), abs=1e-4)
    assert p["mean_loss_ci"] is None  # two games: too few to resample
    assert set(p["loss_by_age"]) <= {"1", "2", "3"} and p["loss_by_kind"]
    for other in ("rule", "random", *RUNGS):
        q = site.player(other)
        assert (q["llm"], q["cost_per_game_usd"], q["first_try_legal"], q["mean_loss"]) == \
            (False, 0.0, None, None)


def test_every_link_of_every_page_is_a_file_of_the_site(site: Site) -> None:
    pages = [site.root / "index.html", *sorted((site.root / "players").glob("*.html"))]
    assert len(pages) == 1 + len(site.data["players"])
    replays = set()
    for page in pages:
        text = page.read_text()
        for ref in re.findall(r'(?:href|src)="([^"]+)"', text):
            if ref == "data:,":
                continue  # the empty icon: no request for /favicon.ico
            assert not re.match(r"[a-z]+:", ref), f"{page.name} links outside the site: {ref}"
            target = (page.parent / ref.split("#")[0]).resolve()
            assert target.is_file(), f"{page.name}: {ref}"
            if "/games/" in target.as_posix():
                replays.add(target.name)
    # every game has its replay page, linked from its players' pages
    assert replays == {f"{g['key']}.html" for g in site.data["games"]}
    assert all(g["replay"] == f"games/{g['key']}.html" for g in site.data["games"])


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu",
                                          "--disable-background-networking"])
        try:
            yield browser
        finally:
            browser.close()


def test_the_site_in_chromium_from_file(site: Site) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(30_000)
        problems: list[str] = []
        requested: list[str] = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("request", lambda r: requested.append(r.url))
        page.goto((site.root / "index.html").as_uri())
        rows = "table#leaderboard tbody tr"
        order = page.eval_on_selector_all(rows, "rs => rs.map(r => r.dataset.player)")
        assert order == [p["player"] for p in site.data["players"]]
        shown = page.eval_on_selector_all(rows, "rs => rs.map(r => r.cells[3].textContent.trim())")
        assert shown == ["–".join(map(str, sorted(set(p["rank_interval"]))))
                         for p in site.data["players"]]
        page.screenshot(path=str(ARTIFACTS / "index-1280.png"), full_page=True)
        # sorted by games (a first click: the most first), then back by position
        page.click("table#leaderboard th:nth-child(5) button")
        by_games = page.eval_on_selector_all(rows, "rs => rs.map(r => r.dataset.player)")
        assert by_games == [p["player"] for p in sorted(site.data["players"],
                                                        key=lambda p: -p["games"])]
        page.click("table#leaderboard th:nth-child(1) button")
        assert page.eval_on_selector_all(rows, "rs => rs.map(r => r.dataset.player)") == \
            sorted(order, key=order.index)
        # the LLM's page: its opponents, its worst decision opening the replay at its ply
        page.click(f"table#leaderboard tr[data-player='{site.llm}'] td.player a")
        assert page.text_content("h1") == site.llm
        opponents = page.eval_on_selector_all("#opponents tbody tr",
                                              "rs => rs.map(r => r.dataset.opponent)")
        assert sorted(opponents) == ["random", "rule"]
        assert page.locator("#game-list tbody tr").count() == 10
        page.screenshot(path=str(ARTIFACTS / "player-1280.png"), full_page=True)
        worst = page.locator("#worst tbody tr a").first
        ply = int(worst.get_attribute("href").split("#ply=")[1])
        worst.click()
        page.wait_for_function("() => document.getElementById('ply').textContent.length > 0")
        assert page.text_content("#ply").startswith(f"move {ply} of ")
        assert site.llm in page.text_content("#title")
        page.go_back()
        page.locator("#game-list a", has_text="replay").first.click()
        page.wait_for_function("() => document.getElementById('ply').textContent.length > 0")
        assert page.text_content("#ply").startswith("move 0 of ")
        # narrow screens
        for name, url in (("index", (site.root / "index.html").as_uri()),
                          ("player", (site.root / site.player(site.llm)["page"]).as_uri())):
            small = browser.new_page(viewport={"width": 390, "height": 844})
            small.on("pageerror", lambda e: problems.append(str(e)))
            small.on("request", lambda r: requested.append(r.url))
            small.goto(url)
            assert small.locator("h1").is_visible()
            # the page fits the screen: only a wide table scrolls, inside its own box
            assert small.evaluate("document.documentElement.scrollWidth") <= 390
            small.screenshot(path=str(ARTIFACTS / f"{name}-390.png"), full_page=True)
    assert problems == []
    assert requested and all(url.startswith("file://") for url in requested), \
        [u for u in requested if not u.startswith("file://")]


def test_a_tampered_transcript_loses_its_replay_and_says_why(site: Site, tmp_path: Path,
                                                             capsys: Any) -> None:
    """A line's transcript whose result is not the line's is not linked; one whose moves do
    not re-play gets no replay page; both are noted, the games still count (their lines)."""
    folder = tmp_path / "t"
    shutil.copytree(site.folders[4], folder)  # random vs rule, 4 games
    named = [json.loads(x)["transcript"] for x in (folder / "games.jsonl").read_text().splitlines()]
    first, second = folder / named[0], folder / named[1]
    text = first.read_text().splitlines()
    footer = json.loads(text[-1])
    footer["victory"] = "science" if footer["victory"] != "science" else "military"
    first.write_text("\n".join([*text[:-1], json.dumps(footer)]) + "\n")
    text = second.read_text().splitlines()
    move = json.loads(text[5])
    move["view_hash"] = "0" * 16
    second.write_text("\n".join([*text[:5], json.dumps(move), *text[6:]]) + "\n")
    out = tmp_path / "site"
    assert main(["leaderboard", str(folder), "--out", str(out), "--resamples", "100",
                 "--jobs", "1"]) == 0
    printed = capsys.readouterr().out
    data = json.loads((out / "leaderboard.json").read_text())
    assert len(data["games"]) == 4 and sum(g["replay"] is None for g in data["games"]) == 2
    notes = " ".join(data["notes"])
    assert f"{first} is not linked: its result is not the line's" in notes
    assert "no replay: ply 5: field view_hash differs" in notes
    assert "note:" in printed
    # built again: the replays already made are kept, not made again
    made = {p.name: p.stat().st_mtime_ns for p in (out / "games").glob("*.html")}
    assert len(made) == 2
    assert main(["leaderboard", str(folder), "--out", str(out), "--resamples", "100"]) == 0
    assert {p.name: p.stat().st_mtime_ns for p in (out / "games").glob("*.html")} == made
