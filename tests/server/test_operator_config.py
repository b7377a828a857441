"""The operator's configuration: `duel serve --agent NAME=SPEC`, `--agents FILE` and
`--admin-token-file` (or $DUEL_ADMIN_TOKEN; never the command line); a bad one stops the server
at its start with one line and exit 2, and so does a log level that would write tokens."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from duel.cli import main
from duel.errors import UsageError
from server.work.catalogue import Catalogue, configured_agents, parse_agent_option, read_agents_file


def serve(monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, list[Any]]:
    """`duel serve ARGS` with the server's run stubbed: the exit code, stderr and the apps it
    would have run."""
    apps: list[Any] = []
    monkeypatch.setattr("server.guard.connections.Server.run",
                        lambda self, **kw: apps.append(self.app))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["serve", *args])
    return code, err.getvalue(), apps


@pytest.mark.parametrize("name", ["", "1st", "a b", "a:b", "x" * 41, "random", "mcts",
                                  "external", "gpt=", "é"])
def test_agent_names_are_plain_and_not_taken(name: str) -> None:
    with pytest.raises(UsageError, match="agent name"):
        Catalogue({name: "rule"})


def test_an_agent_needs_a_spec() -> None:
    with pytest.raises(UsageError, match="needs a spec"):
        Catalogue({"gpt": " "})


@pytest.mark.parametrize("text", ["gpt", "=rule", "gpt=", " = "])
def test_the_agent_option_is_name_equals_spec(text: str) -> None:
    with pytest.raises(UsageError, match="NAME=SPEC"):
        parse_agent_option(text)
    assert parse_agent_option(" gpt = llm:openai:m,base_url=http://h/v1 ") == (
        "gpt", "llm:openai:m,base_url=http://h/v1")


@pytest.mark.parametrize("content,needle", [
    (b"\xff\xfe[agents]", "not UTF-8"),
    (b"[agents\ngpt = 1", "not TOML"),
    (b"gpt = 'rule'", "[agents] table"),
    (b"agents = 3", "[agents] table"),
    (b"[agents]\ngpt = 3", "must be a spec string"),
])
def test_a_bad_agents_file_is_named(tmp_path: Path, content: bytes, needle: str) -> None:
    path = tmp_path / "agents.toml"
    path.write_bytes(content)
    with pytest.raises(UsageError, match="agents file") as exc:
        read_agents_file(str(path))
    assert needle in str(exc.value)
    with pytest.raises(UsageError, match="cannot read it"):
        read_agents_file(str(tmp_path / "missing.toml"))


def test_options_win_over_the_file(tmp_path: Path) -> None:
    path = tmp_path / "agents.toml"
    path.write_text('[agents]\ndeep = "mcts:iterations=10"\nfast = "random"\n')
    assert configured_agents(str(path), ["deep=mcts:iterations=20", "slow=rule"]) == {
        "deep": "mcts:iterations=20", "fast": "random", "slow": "rule"}


@pytest.mark.parametrize("args", [
    ["--agent", "gpt"],
    ["--agent", "random=rule"],
    ["--agent", "gpt=llm:openai:gpt-4o-mini"],  # no OPENAI_API_KEY in the environment
    ["--agent", "mine=dqn:" + "d" * 300],
    ["--agent", "deep=mcts:time=1000"],
    ["--agent", "x=nosuchkind"],
    ["--agents", "/nonexistent/agents.toml"],
])
def test_a_bad_configuration_stops_the_server_with_one_line(
        monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, err, apps = serve(monkeypatch, *args)
    assert code == 2 and apps == [], err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("duel serve: ")


def test_the_configured_agents_are_served_by_name(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    path = tmp_path / "agents.toml"
    path.write_text('[agents]\nbot = "llm:compat:m@http://127.0.0.1:9/v1"\n')
    monkeypatch.setenv("DUEL_ADMIN_TOKEN", "from-env")
    code, err, apps = serve(monkeypatch, "--agents", str(path), "--agent",
                            "deep=mcts:iterations=10", "--db", str(tmp_path / "db.sqlite"))
    assert code == 0 and len(apps) == 1, err
    with TestClient(apps[0], base_url="http://127.0.0.1:8000") as client:
        offer = {a["name"]: a for a in client.get("/agents").json()["agents"]}
        assert offer["bot"]["operator_only"] is True and offer["deep"]["operator_only"] is False
        body = {"player1": "external", "player2": "bot"}  # (its seat never gets to move)
        assert client.post("/games", json=body).status_code == 401
        r = client.post("/games", json=body, headers={"Authorization": "Bearer from-env"})
        assert r.status_code == 201, r.text


def test_serve_help_documents_the_operator_s_options(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for needle in ("--agent NAME=SPEC", "--agents FILE", "--admin-token-file FILE",
                   "DUEL_ADMIN_TOKEN", "[agents]"):
        assert needle in text, needle


def test_the_operator_token_comes_from_a_file_or_the_environment(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Never from argv, which every user of the machine reads (`ps`): `--admin-token` is
    refused with one line saying where the token goes instead."""
    monkeypatch.delenv("DUEL_ADMIN_TOKEN", raising=False)
    db = str(tmp_path / "db.sqlite")
    code, err, apps = serve(monkeypatch, "--admin-token", "s3cret", "--db", db)
    assert code == 2 and apps == [] and "--admin-token-file" in err and "s3cret" not in err
    assert len(err.strip().splitlines()) == 1
    token = tmp_path / "token"
    token.write_text("from-a-file\n")
    code, err, apps = serve(monkeypatch, "--admin-token-file", str(token), "--db", db,
                            "--agent", "bot=llm:compat:m@http://127.0.0.1:9/v1")
    assert code == 0, err
    with TestClient(apps[0], base_url="http://127.0.0.1:8000") as client:
        body = {"player1": "external", "player2": "bot"}
        assert client.post("/games", json=body).status_code == 401
        r = client.post("/games", json=body, headers={"Authorization": "Bearer from-a-file"})
        assert r.status_code == 201, r.text
    for bad in (tmp_path, tmp_path / "missing"):
        code, err, apps = serve(monkeypatch, "--admin-token-file", str(bad), "--db", db)
        assert code == 2 and apps == [] and err.startswith("duel serve: --admin-token-file")
    (tmp_path / "empty").write_text("\n")
    code, err, _ = serve(monkeypatch, "--admin-token-file", str(tmp_path / "empty"), "--db", db)
    assert code == 2 and "is empty" in err


def test_the_trace_log_level_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path
                                        ) -> None:
    """uvicorn's trace level logs every request's headers, tokens included."""
    code, err, apps = serve(monkeypatch, "--log-level", "trace", "--db",
                            str(tmp_path / "db.sqlite"))
    assert code == 2 and apps == [] and "--log-level" in err and "Traceback" not in err
