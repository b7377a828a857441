"""The built-in agent kinds: their names, help and option tables, and where each builder lives.

Builders are named by path, not imported: a kind's module (and its dependencies: numpy and
onnxruntime for dqn, tenacity and the SDKs for llm) loads when an agent of that kind is built.
"""

from __future__ import annotations

from duel.agents.kinds import AgentKind, Param
from duel.prompts.harness import OPTIONS as HARNESS_OPTIONS

STOP_AFTER_HELP = ("moves in a row lost to the transport (no connection, busy, cut off at the "
                   "model's limit) before the game stops, rather than play the fallback for "
                   "it (0: never; default 3, or --stop-after-fallbacks)")

MCTS_PARAMS = {
    "iterations": Param(int, 0, "iterations per move (default 1000 when no time is given)"),
    "time": Param(float, 0.0, "seconds per move"),
    "c": Param(float, 0.7, "UCB exploration constant"),
    "rollout": Param(str, "mast", "rollout policy: uniform, heuristic or mast"),
    "epsilon": Param(float, 0.3, "mast rollouts: chance of a random move instead of the best"),
    "build_bias": Param(float, 0.75, "heuristic rollouts: chance to redraw a discard"),
    "margin": Param(float, 0.0, "weight of the score margin in the reward (0-1)"),
    "tree": Param(str, "game", "game: the tree grows to the game's end; age: it stops where "
                               "the next Age starts, playouts go on from there"),
    "seed": Param(int, -1, "seed of the agent's own generator (-1: the match's)"),
    "reuse": Param(int, 0, "1: keep the subtree of the moves played since the last search "
                           "(single process; guide: the Python tree); 0: a new tree each move "
                           "(the default: no weaker in either search; docs/native.md, "
                           "docs/guide.md)"),
    "workers": Param(int, 1, "root parallelism: processes, each growing a tree with the full "
                             "budget; visits summed"),
    "native": Param(int, 1, "1: search in the native core when it is built (docs/native.md; "
                            "guide: the Python tree when reuse=1, 2: the network in C++ too); "
                            "0: the Python search"),
    # The learned guide (duel/agents/guided, docs/guide.md): PUCT with a network's priors and
    # values.
    "guide": Param(str, "", "a policy-value network guiding the search: default (shipped) or "
                            "a .onnx path; then c is PUCT's (default 1.5)"),
    "root": Param(str, "auto", "guide: gumbel (sequential halving), puct, or auto"),
    "cap": Param(int, 11, "guide: outcomes sampled at most per card reveal (0: no cap)"),
    "mix": Param(float, 0.3, "guide: weight of a MAST rollout in a leaf's value (0: the "
                             "network's alone)"),
    "m": Param(int, 16, "guide, root=gumbel: moves considered at the root"),
    "noise": Param(float, 1.0, "guide, root=gumbel: scale of the Gumbel noise"),
    "fpu": Param(float, 0.2, "guide: first-play urgency, how far below its parent an "
                             "unvisited move counts"),
    "runtime": Param(str, "numpy", "guide: numpy or onnx (onnxruntime)"),
}

LLM_PARAMS = {
    "prompt": Param(str, "baseline", "prompt variant (duel prompts list)"),
    "temperature": Param(float, None, "sampling temperature (unset: not sent, or 0.0 for models "
                                      "the table knows take it and do not reason)"),
    "max_attempts": Param(int, 3, "attempts per move before the fallback"),
    "fallback": Param(str, "random", "after the last attempt: forfeit, random or rule"),
    "max_tokens": Param(int, None, "output token limit per call (unset: the model's limit "
                                   "if it reasons, 1024 if not, 8192 for unknown ones)"),
    "reasoning_effort": Param(str, None, "none, minimal, low, medium, high, xhigh or max "
                                         "(anthropic: low, medium, high or max, as "
                                         "output_config.effort; unset: the model's)"),
    "thinking": Param(int, None, "anthropic extended thinking budget in tokens (>= 1024; "
                                 "models that take a budget)"),
    "thinking_form": Param(str, None, "anthropic, a model the table does not know: adaptive "
                                      "(reasoning_effort=) or budget (thinking=N)"),
    "provider": Param(str, None, "openrouter: the one backend to play on (no fallback)"),
    "mode": Param(str, "", "structured output: json_schema, tool, json_object or text"),
    "api": Param(str, "", "openai: responses (the Responses API, the default: reasoning "
                          "summaries, tools with reasoning) or chat (Chat Completions)"),
    "base_url": Param(str, "", "API endpoint (openai, anthropic, openrouter)"),
    "concurrency": Param(int, 8, "concurrent calls to this endpoint"),
    "transport_retries": Param(int, 6, "retries of a failed connection, 429 or 5xx"),
    "stop_after": Param(int, None, STOP_AFTER_HELP),
    "backoff": Param(float, 1.0, "first backoff in seconds (doubles each retry)"),
    "timeout": Param(float, 600.0, "seconds a call waits for its reply; a long call is "
                                   "streamed and this is its longest silence (docs/llm.md)"),
    "cache": Param(str, None, "google: implicit (Gemini caches a repeated prefix itself, the "
                              "default) or explicit (the rules text in a cachedContents "
                              "resource, its storage billed; docs/llm.md)"),
    "server": Param(str, None, "compat: the server behind the URL, llamacpp, vllm or ollama "
                               "(unset: looked up at the first call; docs/llm.md)"),
    "constrain": Param(str, "", "structured output admits shape (any well-formed move) or legal "
                                "(only the turn's legal moves; llm:local's default, compat)"),
    "tools": Param(str, "off", "on: the model plays through the tool set (get_state, "
                               "legal_moves, explain, simulate, make_move) as function tools"),
    "tool_steps": Param(int, None, "tools=on: look-up calls per turn (default 8)"),
    # the harness settings (duel.prompts.harness), read there: unset is the default
    **{o.name: Param(str, None, f"harness: {o.help} ({o.valid}; default {o.default})")
       for o in HARNESS_OPTIONS.values()},
}

RANDOM = AgentKind("random", "uniform over the legal moves",
                   factory="duel.agents.base:RandomAgent")
RULE = AgentKind("rule", "rule-based priorities (win, block, economy, points, deny)",
                 factory="duel.agents.rule_based:RuleAgent")
MCTS = AgentKind("mcts", "information-set MCTS (guide=MODEL: guided by a learned network)",
                 MCTS_PARAMS, factory="duel.agents.guided.spec:mcts_agent")
LLM = AgentKind("llm", "an LLM player: llm:openai:MODEL, llm:anthropic:MODEL, "
                "llm:openrouter:VENDOR/MODEL, llm:compat:MODEL@URL, llm:local; parameters a "
                "model refuses are adapted (README: Models)", LLM_PARAMS,
                custom_parser="duel.agents.llm.spec:parse_llm_spec")
DQN = AgentKind("dqn", "masked deep-Q network (ONNX); dqn:PATH plays a model file",
                custom_parser="duel.learning.rl.policy:parse_dqn_spec")

HTTP_PARAMS = {
    "agent": Param(str, "mcts", "the agent the remote server plays (';' for its commas)"),
    "timeout": Param(float, 10.0, "seconds per request"),
    "max_attempts": Param(int, 2, "requests per move before the fallback"),
    "fallback": Param(str, "random", "after the last attempt: forfeit, random or rule"),
    "busy_wait": Param(float, 300.0, "seconds a move waits at most for a busy (429, 503: its "
                                     "retry-after honoured) or unreachable server; no attempt "
                                     "spent"),
    "transport_retries": Param(int, 4, "retries of a refused or reset connection"),
    "backoff": Param(float, 0.5, "first backoff in seconds (doubles each retry)"),
    "stop_after": Param(int, None, STOP_AFTER_HELP),
}
HTTP = AgentKind("http", "another server's POST /agents/move: http:URL,agent=NAME (a timeout, "
                 "attempts and a fallback as for LLM seats)", HTTP_PARAMS,
                 custom_parser="duel.agents.remote:parse_http_spec")

BUILTIN_KINDS = (RANDOM, RULE, MCTS, LLM, DQN, HTTP)
