"""Games on a Ray cluster (`--ray ADDRESS`): each game is a Ray task, its result sent back to
this process, which records it exactly as a local run does (the same games.jsonl or grading
folder, progress bar, resume and summary): the runs' `run_gated` loop only sees futures.

- ADDRESS: `local` starts a private Ray instance on this machine, `auto` joins the cluster this
  node belongs to (`ray start`), `ray://HOST:PORT` connects through Ray Client, and a GCS
  address `HOST:PORT` joins that cluster. Every node needs duel installed alike.
- A worker that dies mid-game (its process or its node) has its game run again by Ray
  (`RETRIES` times); a game's result reaches this process once, when it finished, so it is
  recorded once and never lost.
- LLM seats: `--llm-limit IN_FLIGHT/PER_MINUTE`, one Ray actor per provider and model, caps
  the requests in flight and started per minute across the whole cluster (see
  duel.agents.llm.transport.limits).

Ray is an optional extra: `pip install -e '.[ray]'`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

from duel.agents.llm.transport import limits
from duel.agents.llm.transport.limits import LimitSpec
from duel.errors import UsageError

INSTALL = "--ray needs Ray: pip install -e '.[ray]' (on every node of the cluster)"
RETRIES = 3  # runs of a game whose worker died, after the first


def ray_module() -> Any:
    """The `ray` module (UsageError saying how to install it when it is not)."""
    try:
        import ray
    except ImportError:
        raise UsageError(INSTALL) from None
    return ray


def connect(address: str, cpus: int | None = None) -> int:
    """Join (or, for `local`, start) the Ray cluster at `address`; the CPUs it offers.
    `cpus`: for `local`, how many CPUs the private instance offers (default: all)."""
    ray = ray_module()
    if not ray.is_initialized():
        if address == "local":
            ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
        elif address == "auto" or address.startswith("ray://") or ":" in address:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
        else:
            raise UsageError(f"--ray {address!r}: give local, auto, ray://HOST:PORT or the "
                             "HOST:PORT of a cluster's head")
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _call(fn: Callable[..., Any], limit: LimitSpec | None, *args: Any) -> Any:
    """`fn(*args)` in a worker, its LLM requests under the run's cluster-wide limit."""
    limits.use(limit)
    return fn(*args)


class RayPool:
    """Submits `fn(*args)` as Ray tasks (one CPU each, run again if their worker dies), each a
    concurrent future as an executor's would be. `limit`: the LLM requests' cluster-wide limit
    per provider and model, its actors made now for the LLM `agents` the run plays."""

    def __init__(self, fn: Callable[..., Any], limit: LimitSpec | None = None,
                 agents: Sequence[Any] = ()) -> None:
        ray = ray_module()
        self.fn = fn
        self.limit = limit
        self.remote = ray.remote(num_cpus=1, max_retries=RETRIES,
                                 retry_exceptions=False)(_call)
        self.refs: list[Any] = []
        self.actors = [limits.actor(key, limit) for key in
                       dict.fromkeys(filter(None, map(limits.key_of, agents)))] \
            if limit is not None else []

    def submit(self, *args: Any) -> Future[Any]:
        # Named after the work (a worker's process title shows it: `ray::play_game`).
        ref = self.remote.options(name=self.fn.__name__).remote(self.fn, self.limit, *args)
        self.refs.append(ref)
        future: Future[Any] = ref.future()
        return future

    def shutdown(self) -> None:
        """Cancel the games still running (an interrupt or an error stopped the run)."""
        ray = ray_module()
        for ref in self.refs:
            try:
                ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001 - a finished task cannot be cancelled
                pass
        self.refs.clear()
