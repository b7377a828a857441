"""A loopback HTTP server that speaks just enough of the OpenAI (Chat Completions, Responses) and
Anthropic APIs for the real SDKs, replying from a script. Tests enqueue replies and read back
the requests it received.
A request with `stream: true` gets its reply as the provider streams it (fake_streams.py),
`stream_gap` seconds between events; `stall_after` events in, the stream falls silent for
`stall_seconds` (a stalled connection; once: the next stream flows). `kind` answers the
look-ups that name a compatible server: `GET /v1/models` with llama.cpp's or vLLM's
`owned_by`, Ollama's `GET /api/version`."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from helpers.fake_streams import anthropic_events, openai_events, responses_events


class Scripted:
    """One scripted HTTP reply (`raw`: send these bytes instead of JSON; `events`: to a
    request that asks for a stream, send these server-sent events instead of the body's own)."""

    def __init__(self, body: Any, status: int = 200, headers: dict[str, str] | None = None,
                 raw: bytes | None = None, events: list[bytes] | None = None) -> None:
        self.body = body
        self.status = status
        self.headers = headers or {}
        self.raw = raw
        self.events = events


def openai_reply(content: str | None = None, tool_args: str | None = None,
                 finish: str = "stop", prompt_tokens: int = 1200, completion_tokens: int = 20,
                 cached: int = 1000) -> Scripted:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_args is not None:
        message["tool_calls"] = [{"id": "call_1", "type": "function",
                                  "function": {"name": "play_move", "arguments": tool_args}}]
    return Scripted({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens,
                  "prompt_tokens_details": {"cached_tokens": cached}},
    })


def anthropic_reply(tool_input: Any = None, text: str | None = None,
                    stop: str = "tool_use", input_tokens: int = 100, output_tokens: int = 30,
                    cache_read: int = 1100, cache_write: int = 0) -> Scripted:
    content: list[dict[str, Any]] = []
    if text is not None:
        content.append({"type": "text", "text": text})
    if tool_input is not None:
        content.append({"type": "tool_use", "id": "toolu_1", "name": "play_move",
                        "input": tool_input})
    return Scripted({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
        "content": content, "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens,
                  "cache_read_input_tokens": cache_read,
                  "cache_creation_input_tokens": cache_write},
    })


def error_reply(status: int, headers: dict[str, str] | None = None,
                code: str | None = None) -> Scripted:
    error: dict[str, Any] = {"message": f"scripted {status}", "type": "error"}
    if code is not None:
        error["code"] = code
    return Scripted({"error": error}, status, headers)


def _as_content(reply: Scripted) -> Scripted:
    """A scripted Chat Completions tool call, sent to a request that offered no tool, as the
    message content a server would send: the form the request asked for (json_schema, a
    compatible server's default, or json_object)."""
    choices = reply.body.get("choices") if isinstance(reply.body, dict) else None
    message = (choices[0].get("message") or {}) if choices else {}
    calls = message.get("tool_calls") or []
    if len(calls) != 1 or message.get("content"):
        return reply
    body = json.loads(json.dumps(reply.body))
    choice = body["choices"][0]
    choice["message"] = {**{k: v for k, v in message.items() if k != "tool_calls"},
                         "content": calls[0]["function"]["arguments"]}
    if choice.get("finish_reason") == "tool_calls":
        choice["finish_reason"] = "stop"
    return Scripted(body, reply.status, reply.headers, reply.raw, reply.events)


class FakeLLMServer:
    def __init__(self, responder: Callable[[dict[str, Any]], Scripted] | None = None) -> None:
        self.responder = responder  # replies when the script is empty
        # Anthropic's POST /v1/messages/count_tokens: {"input_tokens": counter(body)} (None:
        # the endpoint is not there, a 404)
        self.counter: Callable[[dict[str, Any]], int] | None = getattr(responder, "count", None)
        self.script: deque[Scripted] = deque()
        self.requests: list[dict[str, Any]] = []
        self.delay = 0.0  # seconds before each reply
        self.stream_gap = 0.0  # seconds between streamed events
        self.stall_after: int | None = None  # a streamed reply goes silent after this many
        self.stall_seconds = 5.0
        self.streamed = 0  # replies sent as a stream
        self.kind: str | None = None  # llamacpp, vllm or ollama: what GET look-ups say
        self.gets: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.errors: list[str] = []  # what the responder raised
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                server.gets.append(self.path)
                body: Any = None
                if self.path.endswith("/models") and server.kind in ("llamacpp", "vllm"):
                    body = {"object": "list", "data": [{"id": "m", "object": "model",
                                                        "created": 0, "owned_by": server.kind}]}
                elif self.path.endswith("/models") and server.kind == "ollama":
                    body = {"object": "list", "data": [{"id": "m", "object": "model",
                                                        "created": 0, "owned_by": "library"}]}
                elif self.path == "/api/version" and server.kind == "ollama":
                    body = {"version": "0.12.3"}
                data = json.dumps(body if body is not None else {"error": "not found"}).encode()
                self.send_response(200 if body is not None else 404)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append({"path": self.path, "headers": dict(self.headers),
                                            "body": body})
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    if self.path.endswith("/count_tokens"):
                        reply = Scripted({"input_tokens": server.counter(body)}) \
                            if server.counter is not None else error_reply(404)
                    elif server.script:
                        reply = server.script.popleft()
                    elif getattr(server.responder, "routes", None) and any(
                            self.path.endswith(r) for r in server.responder.routes):
                        # a responder of more than one endpoint (Gemini's cachedContents)
                        reply = server.responder.route(self.path, body)
                    elif server.responder is not None:
                        try:
                            reply = server.responder(body)
                        except Exception as exc:  # noqa: BLE001 - the test's own bug
                            # Answered, not dropped: a dropped connection is retried with
                            # backoff and the test hangs; the test fails on leaving (__exit__).
                            server.errors.append(f"{type(exc).__name__}: {exc}")
                            reply = error_reply(400)
                            reply.body["error"]["message"] = f"the fake's responder raised: {exc}"
                    else:
                        reply = error_reply(500)
                try:
                    if server.delay:
                        time.sleep(server.delay)
                finally:
                    with server._lock:
                        server.in_flight -= 1
                if reply.status == 200 and reply.raw is None and "tools" not in body:
                    reply = _as_content(reply)
                if body.get("stream") and reply.status == 200 and reply.raw is None:
                    self.stream(reply, body)
                    return
                data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def stream(self, reply: Scripted, body: dict[str, Any]) -> None:
                events = reply.events if reply.events is not None else \
                    anthropic_events(reply.body) if self.path.endswith("/messages") else \
                    responses_events(reply.body) if self.path.endswith("/responses") else \
                    openai_events(reply.body, bool((body.get("stream_options") or {})
                                                   .get("include_usage")))
                with server._lock:
                    server.streamed += 1
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    for i, event in enumerate(events):
                        if server.stall_after is not None and i == server.stall_after:
                            server.stall_after = None
                            time.sleep(server.stall_seconds)
                            return  # the client gave up: the connection is closed
                        if i and server.stream_gap:
                            time.sleep(server.stream_gap)
                        self.wfile.write(event)
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> FakeLLMServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self.errors and exc[0] is None:
            raise AssertionError(f"the fake LLM server's responder raised: {self.errors}")

    def enqueue(self, *replies: Scripted) -> None:
        self.script.extend(replies)
