"""Long calls, streamed: a reply that takes longer than the timeout is not thrown away.

A call is *long* when its output budget could take longer than the spec's `timeout` at the
rate Anthropic's SDK assumes when it refuses a non-streamed request (128,000 output tokens an
hour: with the default 600 s, budgets over 21,333 tokens). Anthropic's SDK requires streaming
for such requests ("Streaming is required for operations that may take longer than 10
minutes"); OpenAI's cuts a non-streamed call off at its timeout and the reply, billed, is lost.
So long calls are streamed on both: Anthropic's `messages.stream(...)` and its final message,
OpenAI's Chat Completions with `stream=True` and `stream_options.include_usage`, put back
together into the completion the non-streamed call returns, and OpenAI's Responses API with
`stream=True`, whose last event (`response.completed`, `response.incomplete` or
`response.failed`) carries the whole response the non-streamed call returns; so that all are
recorded alike.

While streaming, `timeout` is the longest silence between two events, not a limit on the whole
call: a slow but live reply is read to its end. Before the reply's first output a model that
reasons may think in silence (OpenAI's Chat Completions sends nothing while a model reasons),
so for a call that may reason that wait may last as long as the budget could take at the same
rate. A stream that falls silent for longer is a timeout (TransportError, "timed out"):
recorded as TRANSPORT, and the try after it says "after a timeout".
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from duel.errors import TransportError

# Output tokens an hour the Anthropic SDK assumes for a non-streamed request (its
# _calculate_nonstreaming_timeout: 60 * 60 * max_tokens / 128_000 seconds).
TOKENS_PER_HOUR = 128_000


def expected_seconds(max_tokens: int) -> float:
    """How long a reply of `max_tokens` tokens may take, at the SDK's rate."""
    return 3600.0 * max_tokens / TOKENS_PER_HOUR


def is_long(max_tokens: int, timeout: float) -> bool:
    """Whether a call with this output budget is streamed: it could outlast `timeout`."""
    return expected_seconds(max_tokens) > timeout


def first_output_allowance(max_tokens: int, timeout: float, thinks: bool = True) -> float:
    """Seconds to wait for a streamed reply's first output: a model that may reason may think
    in silence for as long as its budget could take; any other starts within `timeout`."""
    return max(timeout, expected_seconds(max_tokens)) if thinks else timeout


def _transport_errors() -> tuple[tuple[type[Exception], ...], tuple[type[Exception], ...]]:
    """The timeout and HTTP errors the SDKs' HTTP clients raise while a stream is read (the
    SDKs do not wrap those): httpx's, and httpx2's (Anthropic's SDK uses that fork)."""
    modules: list[Any] = [httpx]
    try:
        import httpx2

        modules.append(httpx2)
    except ImportError:
        pass  # the anthropic SDK's httpx fork is there only with newer SDKs
    return (tuple(m.TimeoutException for m in modules),
            tuple(m.HTTPError for m in modules))


def _stall(who: str, waited: float, events: int) -> TransportError:
    where = "before the reply began" if not events else f"after {events} events"
    return TransportError(f"{who}: timed out: the stream sent nothing for {waited:g} s {where} "
                          "(a stalled stream; nothing usable was received)")


async def read(stream: AsyncIterator[Any], timeout: float, allowance: float,
               began: Callable[[Any], bool], who: str) -> AsyncIterator[Any]:
    """The stream's events, each awaited at most `timeout` seconds once the reply has begun
    (`began(event)` is true of its first output event) and `allowance` seconds before. Raises
    TransportError on a stall or a broken connection."""
    count = 0
    started = False
    timeouts, broken = _transport_errors()
    stalls: tuple[type[Exception], ...] = (TimeoutError, *timeouts)
    iterator = stream.__aiter__()
    while True:
        wait = timeout if started else allowance
        try:
            event = await asyncio.wait_for(iterator.__anext__(), wait)
        except StopAsyncIteration:
            return
        except stalls as exc:
            raise _stall(who, wait, count) from exc
        except broken as exc:
            raise TransportError(f"{who}: the stream broke after {count} events: {exc}") from exc
        count += 1
        started = started or began(event)
        yield event


# ---------------------------------------------------------------------------- OpenAI
def _chunk_began(chunk: Any) -> bool:
    for choice in getattr(chunk, "choices", None) or []:
        delta = choice.delta.to_dict() if choice.delta is not None else {}
        if any(v for k, v in delta.items() if k != "role") or choice.finish_reason:
            return True
    return False


async def openai_chat(client: Any, request: dict[str, Any], max_tokens: int, timeout: float,
                      who: str, thinks: bool) -> Any:
    """One Chat Completions call, streamed: the `ChatCompletion` it adds up to (with the
    provider's request id), as the non-streamed call would have returned it. `thinks`: the
    call may reason before it answers (so may be silent that long)."""
    from openai.types.chat import ChatCompletion

    allowance = first_output_allowance(max_tokens, timeout, thinks)
    # the HTTP client's reads may wait that long; `read` holds later events to `timeout`
    stream = await client.chat.completions.create(
        **request, stream=True, stream_options={"include_usage": True}, timeout=allowance)
    chunks: list[dict[str, Any]] = []
    try:
        async for chunk in read(stream, timeout, allowance, _chunk_began, who):
            chunks.append(chunk.to_dict())
    finally:
        await stream.close()
    completion = ChatCompletion.construct(**reassemble(chunks))
    request_id = stream.response.headers.get("x-request-id")
    if request_id:
        completion._request_id = request_id
    return completion


def reassemble(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """Chat Completions chunks put back together as the completion they stream. Text fields of
    a delta are joined (content, refusal, reasoning_content, reasoning), a tool call's
    arguments are joined by its index; fields a server repeats in every chunk (role, a tool
    call's id and name) are kept once, which the SDK's own accumulator would join; the usage
    and any field of the last chunk's (llama.cpp's `timings`) are kept."""
    out: dict[str, Any] = {"object": "chat.completion", "choices": []}
    choices: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        for key, value in chunk.items():
            if key in ("choices", "object") or value is None:
                continue
            if key in ("id", "model", "created", "system_fingerprint") and key in out:
                continue  # the first chunk's
            out[key] = value
        for choice in chunk.get("choices") or []:
            index = choice.get("index", 0)
            slot = choices.setdefault(index, {"index": index, "finish_reason": None,
                                              "message": {"role": "assistant"}})
            if choice.get("finish_reason"):
                slot["finish_reason"] = choice["finish_reason"]
            _add_delta(slot["message"], choice.get("delta") or {})
    out["choices"] = [choices[i] for i in sorted(choices)]
    return out


def _add_delta(message: dict[str, Any], delta: dict[str, Any]) -> None:
    for key, value in delta.items():
        if value is None or key == "role":
            continue
        if key == "tool_calls":
            calls: list[dict[str, Any]] = message.setdefault("tool_calls", [])
            for part in value:
                _add_tool_call(calls, part)
        elif isinstance(value, str):
            message[key] = (message.get(key) or "") + value
        else:
            message[key] = value


def _add_tool_call(calls: list[dict[str, Any]], part: dict[str, Any]) -> None:
    index = part.get("index", len(calls))
    while len(calls) <= index:
        calls.append({"id": None, "type": "function",
                      "function": {"name": "", "arguments": ""}})
    call = calls[index]
    if part.get("id") and not call["id"]:
        call["id"] = part["id"]
    function = part.get("function") or {}
    if function.get("name") and not call["function"]["name"]:
        call["function"]["name"] = function["name"]
    if function.get("arguments"):
        call["function"]["arguments"] += function["arguments"]


# ---------------------------------------------------------------------------- Responses
# The events that end a Responses stream, each carrying the whole response.
RESPONSE_ENDS = ("response.completed", "response.incomplete", "response.failed")


def _response_began(event: Any) -> bool:
    """Output has begun: a delta (summary, text, refusal, arguments), an item done, or the end
    (`response.created`, `response.in_progress` and an opened item come before the reasoning,
    which may be silent)."""
    kind = getattr(event, "type", "") or ""
    return kind.endswith((".delta", ".done")) or kind in RESPONSE_ENDS


def code_and_message(error: Any, otherwise: str) -> str:
    """An OpenAI error's `code` and `message` ("server_error: ..."): a stream's `error` event
    and a failed response's `error` object carry the same two fields."""
    code, message = getattr(error, "code", None), getattr(error, "message", None)
    return ": ".join(str(x) for x in (code, message) if x) or otherwise


async def openai_responses(client: Any, request: dict[str, Any], max_tokens: int,
                           timeout: float, who: str, thinks: bool) -> Any:
    """One Responses API call, streamed: the `Response` of its last event (with the
    provider's request id), as `responses.create` would have returned it. A stream that
    reports an `error` event, or ends with no response, is a TransportError."""
    allowance = first_output_allowance(max_tokens, timeout, thinks)
    stream = await client.responses.create(**request, stream=True, timeout=allowance)
    final: Any = None
    try:
        async for event in read(stream, timeout, allowance, _response_began, who):
            kind = getattr(event, "type", "")
            if kind in RESPONSE_ENDS:
                final = event.response
            elif kind == "error":
                said = code_and_message(event, str(event))
                raise TransportError(f"{who}: the stream reported an error: {said}",
                                     reported=said)
    finally:
        await stream.close()
    if final is None:
        raise TransportError(f"{who}: the stream ended without a response (no "
                             "response.completed event)")
    request_id = stream.response.headers.get("x-request-id")
    if request_id:
        final._request_id = request_id
    return final


# ---------------------------------------------------------------------------- Anthropic
def _event_began(event: Any) -> bool:
    return getattr(event, "type", "") in ("content_block_start", "content_block_delta",
                                          "message_delta")


async def anthropic_messages(client: Any, request: dict[str, Any], timeout: float,
                             who: str, thinks: bool) -> Any:
    """One Messages call through the SDK's `messages.stream(...)`: its final message (with the
    provider's request id), as `messages.create` would have returned it."""
    request = dict(request)
    stream_call = client.messages.stream
    if "temperature" in request and \
            "temperature" not in inspect.signature(stream_call).parameters:
        request["extra_body"] = {**request.get("extra_body", {}),
                                 "temperature": request.pop("temperature")}
    allowance = first_output_allowance(int(request["max_tokens"]), timeout, thinks)
    async with stream_call(**request, timeout=allowance) as stream:
        async for _ in read(stream, timeout, allowance, _event_began, who):
            pass  # read() enforces the silences; the SDK's stream keeps the final message
        message = await stream.get_final_message()
        request_id = stream.request_id
    if request_id:
        message._request_id = request_id
    return message
