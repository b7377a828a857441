"""Hostile files given to the CLI: one line on stderr naming what was wrong and exit 2 (1 for a
transcript whose facts do not replay), never a traceback."""

from __future__ import annotations

import contextlib
import io
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duel.cli import main
from duel.engine import new_game, seat_view
from duel.match import play_match
from duel.transcripts import TranscriptWriter


def run(*args: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(list(args))
    return code, err.getvalue()


def one_line(err: str) -> str:
    """The error line (`duel replay` may warn first about lines it skipped)."""
    lines = [line for line in err.strip().splitlines() if not line.startswith("warning: ")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def state_file(tmp_path: Path) -> Path:
    path = tmp_path / "state.json"
    path.write_text(json.dumps(seat_view(new_game(3))))
    return path


def test_a_state_that_is_not_utf8(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"step": "PLAY_CARD", "code": "caf\xe9"}')
    code, err = run("moves", str(bad))
    assert code == 2
    assert "is not UTF-8 text (byte 0xe9 at offset 34)" in one_line(err)


def test_json_nested_thousands_deep(tmp_path: Path) -> None:
    bad = tmp_path / "deep.json"
    bad.write_text("[" * 5000 + "]" * 5000)
    code, err = run("moves", str(bad))
    assert code == 2 and "nests 5000 levels deep (at most 64)" in one_line(err)
    move = tmp_path / "move.json"
    move.write_text('{"move": ' * 3000 + "1" + "}" * 3000)
    code, err = run("apply", str(state_file(tmp_path)), str(move))
    assert code == 2 and "levels deep" in one_line(err)


def test_an_integer_of_thousands_of_digits(tmp_path: Path) -> None:
    view = seat_view(new_game(3))
    text = json.dumps(view).replace('"money": 7', '"money": ' + "9" * 5000, 1)
    bad = tmp_path / "big.json"
    bad.write_text(text)
    code, err = run("moves", str(bad))
    assert code == 2 and "a number has 5000 digits (at most 30)" in one_line(err)


def test_nan_is_not_a_number(tmp_path: Path) -> None:
    bad = tmp_path / "nan.json"
    bad.write_text(json.dumps(seat_view(new_game(3))).replace('"age": 1', '"age": NaN', 1))
    code, err = run("moves", str(bad))
    assert code == 2 and "NaN is not a JSON number" in one_line(err)


def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "game.jsonl"
    deal = new_game(4).deal
    writer = TranscriptWriter.for_match(path, 4, deal, [_Spec("random"), _Spec("random")])
    writer.finish(play_match("random", "random", seed=4, on_move=writer.record).result)
    return path


class _Spec:
    def __init__(self, spec: str) -> None:
        self.spec = spec


@pytest.mark.parametrize("name", ["d" * 300, "/nonexistent/model.onnx", "/etc/passwd/x.onnx"])
def test_a_model_file_that_cannot_be_opened(name: str) -> None:
    """A name too long for the file system, a missing file, a path through a file: one line
    naming the model file (cut short), exit 2."""
    code, err = run("match", "--p1", f"dqn:{name}", "--p2", "random")
    line = one_line(err)
    assert code == 2 and "dqn:" in line and "model file" in line and len(line) < 200, err


def test_a_transcript_whose_players_is_not_an_object(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["players"] = "x"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    code, err = run("replay", str(path))
    assert code == 1 and "field players" in one_line(err)
    code, err = run("replay", str(path), "--at", "3")
    assert code == 1 and "field players" in one_line(err)


def test_a_transcript_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "bin.jsonl"
    path.write_bytes(b"\xff\xfe" + b"\x00" * 20)
    code, err = run("replay", str(path))
    assert code == 2 and "is not UTF-8 text (byte 0xff at offset 0)" in one_line(err)


def _mutate(obj: object, rng: random.Random) -> object:
    """One random edit deep inside a JSON value: a changed, removed or retyped field."""
    if isinstance(obj, dict) and obj:
        key = rng.choice(sorted(obj))
        out = dict(obj)
        roll = rng.random()
        if roll < 0.2:
            del out[key]
        elif roll < 0.4:
            out[key] = rng.choice([None, -1, 10**6, "x", [], {}, True, 2.5])
        else:
            out[key] = _mutate(obj[key], rng)
        return out
    if isinstance(obj, list) and obj:
        i = rng.randrange(len(obj))
        out_list = list(obj)
        out_list[i] = _mutate(obj[i], rng)
        return out_list
    return rng.choice([None, -1, 0, 99, "GUILD_BACK", "PLAY_CARD", "x" * 50, [], {}, False])


_SETTINGS = settings(max_examples=60, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(data=st.binary(max_size=300))
def test_random_bytes_never_crash_moves_apply_or_replay(tmp_path: Path, data: bytes) -> None:
    bad = tmp_path / "random.bin"
    bad.write_bytes(data)
    for args in (("moves", str(bad)), ("apply", str(state_file(tmp_path)), str(bad)),
                 ("apply", str(bad), str(bad)), ("replay", str(bad))):
        code, err = run(*args)
        assert code in (1, 2), args
        one_line(err)


@_SETTINGS
@given(seed=st.integers(0, 10_000), ply=st.integers(0, 60))
def test_mutated_states_and_moves_get_one_line(tmp_path: Path, seed: int, ply: int) -> None:
    rng = random.Random(seed)
    state = new_game(seed)
    for _ in range(ply):
        if state.is_terminal():
            break
        state = state.apply(rng.choice(state.legal_moves()))
    view_path, move_path = tmp_path / "s.json", tmp_path / "m.json"
    view_path.write_text(json.dumps(_mutate(seat_view(state), rng)))
    moves = state.legal_moves() or new_game(seed).legal_moves()
    move_path.write_text(json.dumps(_mutate(rng.choice(moves).to_json(), rng)))
    for args in (("moves", str(view_path)), ("apply", str(view_path), str(move_path))):
        code, err = run(*args)
        assert code in (0, 2), args
        if code:
            one_line(err)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000))
def test_mutated_transcripts_get_one_line(tmp_path: Path, seed: int) -> None:
    path = transcript(tmp_path)
    rng = random.Random(seed)
    lines = path.read_text().splitlines()
    i = rng.randrange(len(lines))
    lines[i] = json.dumps(_mutate(json.loads(lines[i]), rng))
    path.write_text("\n".join(lines) + "\n")
    code, err = run("replay", str(path))
    assert code in (0, 1, 2)
    if code:
        one_line(err)


# ---------------------------------------------------------------------------- not a file
FILE_COMMANDS = [("moves", "{}"), ("apply", "{} move.json"), ("replay", "{}"),
                 ("view", "{} --no-serve"), ("analyse", "{} --iterations 10"),
                 ("positions", "check {}")]


def _not_files(tmp_path: Path) -> list[tuple[str, Path]]:
    import os

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    folder = tmp_path / "folder.json"
    folder.mkdir()
    return [("a FIFO", fifo), ("a character device", zero), ("a directory", folder)]


@pytest.mark.parametrize(("command", "args"), FILE_COMMANDS)
def test_devices_fifos_and_directories_are_refused_at_once(tmp_path: Path, command: str,
                                                            args: str) -> None:
    """A symlink to /dev/zero would be read until memory runs out, a FIFO would block for
    ever: every command that reads a file refuses anything but a regular file, at once, with
    one line and exit 2."""
    import threading

    (tmp_path / "move.json").write_text('{"move": "SELECT_WONDER", "moveData": '
                                        '{"wonder": "THE_PYRAMIDS"}}')
    for kind, path in _not_files(tmp_path):
        out: list[tuple[int, str]] = []
        argv = [command, *args.format(path).split()]
        t = threading.Thread(target=lambda argv=argv, out=out: out.append(run(*argv)),
                             daemon=True)
        t.start()
        t.join(60)
        assert out, f"duel {' '.join(argv)} did not return ({kind})"
        code, err = out[0]
        line = one_line(err)
        assert code == 2 and f"it is {kind}, not a regular file" in line, (argv, err)


def test_a_file_over_the_size_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                               ) -> None:
    import duel.io

    monkeypatch.setattr(duel.io, "MAX_FILE", 1000)
    monkeypatch.setattr(duel.io.read_bytes, "__defaults__", (1000,))
    big = tmp_path / "big.json"
    big.write_text(" " * 2000)
    code, err = run("moves", str(big))
    assert code == 2 and "is over" in one_line(err) and "MiB" in one_line(err)
