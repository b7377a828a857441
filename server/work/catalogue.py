"""The agents this server offers: the built-in kinds any caller may ask for, with their safe
parameters only, and the agents its operator configured, which callers use by name.

Nothing a request says can make the server call out, read a file or spend a key: a spec that
could (`llm:*`, `dqn:PATH`, `http:URL`, a base URL, a host, a timeout, retries, attempts) comes
only from the operator (`duel serve --agent NAME=SPEC`, `--agents FILE`). A seat stores what its
request named, a built-in spec or a configured name; after a restart a name is built from the
configuration of the day, and a name no longer configured leaves the seat to its fallback.

With an operator token set, configured agents that reach out (any kind but the built-in, local
ones) are for the operator's token alone: they spend the operator's keys."""

from __future__ import annotations

import hmac
import logging
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from duel.agents.attempts import never_stopping
from duel.agents.base import Agent
from duel.agents.spec import kinds, make_agent, parse_params
from duel.errors import (
    AuthError,
    DuelError,
    ForbiddenError,
    InvalidStateError,
    SpecError,
    UsageError,
)
from server.work.privacy import OperatorAgent, public_reason, secrets_of
from server.work.search_budget import LIMITS, check_budget

log = logging.getLogger("duel.server")

EXTERNAL = "external"  # the seat of a bot that plays over HTTP with its token

# The built-in kinds any caller may ask for, and the parameters a request may set for each (the
# budget's caps still apply). dqn plays only its shipped model: `dqn:PATH` would read a file.
PUBLIC_PARAMS: dict[str, tuple[str, ...]] = {
    "random": (),
    "rule": (),
    "mcts": ("iterations", "time", "c", "rollout", "epsilon", "build_bias", "margin", "seed",
             "workers", "tree"),
    "dqn": (),
}
PUBLIC_HELP = {"dqn": "the shipped deep-Q network (ONNX); model files are the operator's"}

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,39}")
NAME_RULE = "a letter, then up to 39 letters, digits, '_', '.' or '-'"
SHOWN = 60  # characters of a refused spec quoted back


@dataclass(frozen=True)
class Choice:
    """What a request's agent resolved to: the text its seat stores, whether it is one of the
    operator's agents, and whether it needs the operator's token."""

    seat: str
    configured: bool = False
    restricted: bool = False


def _shown(text: str) -> str:
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "...")


class Catalogue:
    """The agents on offer: the public built-ins and the operator's `agents` (name -> spec).
    `admin_token`, if set, is the token that unlocks the restricted configured agents."""

    def __init__(self, agents: Mapping[str, str] | None = None,
                 admin_token: str | None = None, all_restricted: bool = False) -> None:
        self.agents: dict[str, str] = {}
        for name, spec in (agents or {}).items():
            if not NAME.fullmatch(name):
                raise UsageError(f"agent name {name!r} is not allowed: {NAME_RULE}")
            if name in PUBLIC_PARAMS or name == EXTERNAL:
                raise UsageError(f"agent name {name!r} is taken by the built-in {name!r}")
            if not isinstance(spec, str) or not spec.strip():
                raise UsageError(f"agent {name!r} needs a spec, e.g. {name}=llm:openai:MODEL")
            self.agents[name] = spec.strip()
        self.admin_token = admin_token or None
        # Every configured agent needs the operator's token, not only those that reach out
        # (`duel play`: the agent is the person's own, whatever its kind).
        self.all_restricted = all_restricted

    def offered(self) -> list[str]:
        return [*PUBLIC_PARAMS, *self.agents]

    def restricted(self, name: str) -> bool:
        """Whether configured agent `name` needs the operator's token (when one is set): every
        kind but the built-in ones may reach out and spend the operator's keys."""
        kind = self.agents[name].partition(":")[0]
        return self.admin_token is not None and (self.all_restricted or kind not in PUBLIC_PARAMS)

    # ------------------------------------------------------------------ requests
    def resolve(self, text: str) -> Choice:
        """The agent a request names: a configured name, or a built-in spec with only its
        public parameters. SpecError names what is not offered, and what is."""
        text = text.strip()
        if text in self.agents:
            return Choice(text, configured=True, restricted=self.restricted(text))
        kind_name, _, rest = text.partition(":")
        offered = f"offered: {', '.join(self.offered())}"
        if kind_name not in PUBLIC_PARAMS:
            if kind_name in kinds():
                raise SpecError(f"agent {_shown(text)} is not offered by this server "
                                f"(its operator configures such agents by name); {offered}")
            raise SpecError(f"unknown agent {_shown(text)}; {offered}")
        allowed = PUBLIC_PARAMS[kind_name]
        kind = kinds()[kind_name]
        if kind.custom_parser is not None:
            if rest.strip():
                raise SpecError(f"agent {_shown(text)} is not offered by this server: "
                                f"{kind_name} takes no parameters here; {offered}")
            return Choice(kind_name)
        extra = sorted(set(parse_params(kind, rest)) - set(allowed))
        if extra:
            raise SpecError(f"agent {_shown(text)} is not offered by this server: "
                            f"{', '.join(extra)} may not be set by a request; "
                            f"{kind_name} takes {', '.join(allowed) or 'no parameters'}")
        return Choice(text)

    def authorize(self, choices: Iterable[Choice], token: str | None) -> None:
        """Let the operator's token alone use the restricted agents: AuthError without a token,
        ForbiddenError with another."""
        restricted = [c.seat for c in choices if c.restricted]
        if not restricted or self.admin_token is None:
            return
        if token is None:
            raise AuthError(f"agent {restricted[0]!r} needs the operator's token")
        if not hmac.compare_digest(token.encode(), self.admin_token.encode()):
            raise ForbiddenError(f"agent {restricted[0]!r} is for the operator's token only")

    def is_operator(self, token: str | None) -> bool:
        """Whether `token` is the operator's (never, when no operator token is set)."""
        return self.admin_token is not None and token is not None and \
            hmac.compare_digest(token.encode(), self.admin_token.encode())

    def build(self, seat: str) -> Agent:
        """The agent of a seat's stored text (see `resolve`), its budget checked. Raises only
        SpecError; one about a configured agent names no path, URL or remote reply."""
        choice = self.resolve(seat)
        if not choice.configured:
            try:
                check_budget(choice.seat)
                return never_stopping(make_agent(choice.seat))
            except DuelError:
                raise  # the caller's own spec, told back to it
            except Exception as exc:  # noqa: BLE001 - a broken install is not the caller's fault
                log.warning("agent %r cannot be built: %s: %s", seat, type(exc).__name__, exc)
                raise SpecError(f"agent {seat!r} cannot be built here: "
                                f"{public_reason(exc)}") from None
        spec = self.agents[choice.seat]
        try:
            check_budget(spec)
            agent = never_stopping(make_agent(spec))
        except Exception as exc:  # noqa: BLE001 - the operator's agent: any failure, told safely
            log.warning("agent %r (%s) cannot be built: %s: %s", seat, spec,
                        type(exc).__name__, exc)
            raise SpecError(f"agent {seat!r} cannot be used: "
                            f"{public_reason(exc, secrets_of(spec))}") from None
        return OperatorAgent(choice.seat, spec, agent)

    def check(self) -> None:
        """Build every configured agent once, so that a typo, a missing key or a missing file
        stops the server at its start (SpecError naming the agent and its spec's problem)."""
        for name, spec in self.agents.items():
            try:
                check_budget(spec)
                make_agent(spec)
            except DuelError as exc:
                raise SpecError(f"agent {name}={spec}: {exc}") from None

    def listing(self) -> list[dict[str, Any]]:
        """What `GET /agents` shows: each built-in kind with the parameters a request may set
        (and the budget's caps), each configured name with its kind only."""
        out: list[dict[str, Any]] = []
        for name, allowed in PUBLIC_PARAMS.items():
            kind = kinds()[name]
            params = {}
            for key in allowed:
                param = kind.params[key]
                params[key] = {"type": param.type.__name__, "default": param.default,
                               "help": param.help,
                               **({"max": LIMITS[key]} if key in LIMITS else {})}
            out.append({"name": name, "kind": name, "help": PUBLIC_HELP.get(name, kind.help),
                        "params": params, "operator_only": False})
        for name, spec in self.agents.items():
            out.append({"name": name, "kind": spec.partition(":")[0],
                        "help": "configured by the server's operator", "params": {},
                        "operator_only": self.restricted(name)})
        return out


# ---------------------------------------------------------------------------- configuration
def parse_agent_option(text: str) -> tuple[str, str]:
    """`NAME=SPEC` (the `--agent` option) as its name and spec."""
    name, sep, spec = text.partition("=")
    if not sep or not name.strip() or not spec.strip():
        raise UsageError(f"--agent takes NAME=SPEC (e.g. gpt=llm:openai:gpt-5-mini), got "
                         f"{text!r}")
    return name.strip(), spec.strip()


def read_agents_file(path: str) -> dict[str, str]:
    """The `[agents]` table of a TOML file: `name = "spec"` lines."""
    from duel.io import read_bytes

    try:
        data = tomllib.loads(read_bytes(path).decode("utf-8"))
    except InvalidStateError as exc:
        why = str(exc).removeprefix(f"cannot read {path}: ")
        raise UsageError(f"agents file {path}: cannot read it ({why})") from None
    except UnicodeDecodeError:
        raise UsageError(f"agents file {path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"agents file {path}: not TOML ({exc})") from None
    table = data.get("agents")
    if not isinstance(table, dict):
        raise UsageError(f'agents file {path}: needs an [agents] table of name = "spec" lines')
    bad = [name for name, spec in table.items() if not isinstance(spec, str)]
    if bad:
        raise UsageError(f"agents file {path}: agent {bad[0]!r} must be a spec string")
    return dict(table)


def configured_agents(path: str | None, options: Iterable[str]) -> dict[str, str]:
    """The operator's agents: the file's, then each `--agent NAME=SPEC` (which wins over the
    file's agent of the same name)."""
    agents = read_agents_file(path) if path else {}
    for option in options:
        name, spec = parse_agent_option(option)
        agents[name] = spec
    return agents
