"""A scripted reply as the providers stream it (server-sent events), for FakeLLMServer.

OpenAI's Chat Completions (`stream: true`): `data: {chunk}` lines, the first delta with the
role, the content, refusal and reasoning text in pieces, each tool call opened with its id and
name and its arguments in pieces, a last choice chunk with the finish reason; with
`stream_options.include_usage` every chunk has `"usage": null` and one more chunk with no
choices carries the usage (and any other top-level field of the reply, as llama.cpp sends its
`timings`); then `data: [DONE]`.

Anthropic's Messages (`stream: true`): `message_start` (the message with no content, the input
and cache usage), per content block `content_block_start`, its deltas (`text_delta`,
`thinking_delta` then `signature_delta`, `input_json_delta`) and `content_block_stop`, a
`ping`, `message_delta` (stop reason, the output usage) and `message_stop`.

OpenAI's Responses API (`stream: true`): `response.created` and `response.in_progress` (the
response with no output yet), per output item `response.output_item.added` (the item empty),
its parts and deltas (`response.reasoning_summary_part.added`,
`response.reasoning_summary_text.delta`/`.done`, `response.content_part.added`,
`response.output_text.delta`/`.done`, `response.refusal.delta`/`.done`,
`response.function_call_arguments.delta`/`.done`) and `response.output_item.done` (the whole
item), then `response.completed`, `response.incomplete` or `response.failed` with the whole
response; every event names its `type` and a `sequence_number`.
"""

from __future__ import annotations

import json
from typing import Any

PIECE = 7  # characters per streamed piece of text


def _pieces(text: str) -> list[str]:
    return [text[i:i + PIECE] for i in range(0, len(text), PIECE)] or [""]


def sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    body = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {body}\n\n".encode()


def openai_events(reply: dict[str, Any], include_usage: bool) -> list[bytes]:
    base = {k: reply[k] for k in ("id", "created", "model") if k in reply}
    base["object"] = "chat.completion.chunk"
    extra = {k: v for k, v in reply.items()
             if k not in ("id", "created", "model", "object", "choices", "usage")}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body: dict[str, Any] = {**base, "choices": [
            {"index": 0, "delta": delta, "finish_reason": finish}]}
        if include_usage:
            body["usage"] = None
        return sse(body)

    out: list[bytes] = []
    choice = (reply.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    out.append(chunk({"role": "assistant", "content": ""}))
    for key in ("reasoning_content", "reasoning", "refusal", "content"):
        if message.get(key):
            out.extend(chunk({key: piece}) for piece in _pieces(message[key]))
    for index, call in enumerate(message.get("tool_calls") or []):
        out.append(chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                          "function": {"name": call["function"]["name"],
                                                       "arguments": ""}}]}))
        out.extend(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                   for piece in _pieces(call["function"]["arguments"]))
    out.append(chunk({}, choice.get("finish_reason") or "stop"))
    if include_usage:
        out.append(sse({**base, "choices": [], "usage": reply.get("usage"), **extra}))
    out.append(sse("[DONE]"))
    return out


def anthropic_events(reply: dict[str, Any]) -> list[bytes]:
    usage = dict(reply.get("usage") or {})
    output = {k: usage.pop(k) for k in ("output_tokens", "output_tokens_details")
              if k in usage}
    start = {**{k: v for k, v in reply.items() if k not in ("content", "usage")},
             "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {**usage, "output_tokens": 1}}
    out = [sse({"type": "message_start", "message": start}, "message_start")]
    for index, block in enumerate(reply.get("content") or []):
        kind = block["type"]
        opened: dict[str, Any]
        deltas: list[dict[str, Any]] = []
        if kind == "text":
            opened = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in _pieces(block["text"])]
        elif kind == "thinking":
            opened = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p}
                      for p in _pieces(block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "tool_use":
            opened = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": p}
                      for p in _pieces(json.dumps(block["input"]))]
        else:
            opened, deltas = block, []
        out.append(sse({"type": "content_block_start", "index": index,
                        "content_block": opened}, "content_block_start"))
        out.extend(sse({"type": "content_block_delta", "index": index, "delta": d},
                       "content_block_delta") for d in deltas)
        out.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        if index == 0:
            out.append(sse({"type": "ping"}, "ping"))
    out.append(sse({"type": "message_delta",
                    "delta": {"stop_reason": reply.get("stop_reason"),
                              "stop_sequence": reply.get("stop_sequence")},
                    "usage": output}, "message_delta"))
    out.append(sse({"type": "message_stop"}, "message_stop"))
    return out


def responses_events(reply: dict[str, Any]) -> list[bytes]:
    out: list[bytes] = []

    def send(kind: str, **fields: Any) -> None:
        out.append(sse({"type": kind, "sequence_number": len(out), **fields}, kind))

    started = {**reply, "status": "in_progress", "incomplete_details": None, "output": [],
               "usage": None}
    send("response.created", response=started)
    send("response.in_progress", response=started)
    for index, item in enumerate(reply.get("output") or []):
        at = {"output_index": index, "item_id": item.get("id", "")}
        kind = item["type"]
        if kind == "reasoning":
            send("response.output_item.added", output_index=index,
                 item={**item, "summary": []})
            for part_index, part in enumerate(item.get("summary") or []):
                part_at = {**at, "summary_index": part_index}
                send("response.reasoning_summary_part.added", **part_at,
                     part={"type": "summary_text", "text": ""})
                for piece in _pieces(part["text"]):
                    send("response.reasoning_summary_text.delta", **part_at, delta=piece)
                send("response.reasoning_summary_text.done", **part_at, text=part["text"])
                send("response.reasoning_summary_part.done", **part_at, part=part)
        elif kind == "message":
            send("response.output_item.added", output_index=index,
                 item={**item, "status": "in_progress", "content": []})
            for part_index, part in enumerate(item.get("content") or []):
                part_at = {**at, "content_index": part_index}
                empty = {**part, "text": ""} if part["type"] == "output_text" else \
                    {**part, "refusal": ""}
                send("response.content_part.added", **part_at, part=empty)
                field = "text" if part["type"] == "output_text" else "refusal"
                name = "output_text" if field == "text" else "refusal"
                for piece in _pieces(part[field]):
                    send(f"response.{name}.delta", **part_at, delta=piece,
                         **({"logprobs": []} if field == "text" else {}))
                send(f"response.{name}.done", **part_at, **{field: part[field]},
                     **({"logprobs": []} if field == "text" else {}))
                send("response.content_part.done", **part_at, part=part)
        elif kind == "function_call":
            send("response.output_item.added", output_index=index,
                 item={**item, "status": "in_progress", "arguments": ""})
            for piece in _pieces(item.get("arguments") or ""):
                send("response.function_call_arguments.delta", **at, delta=piece)
            send("response.function_call_arguments.done", **at,
                 arguments=item.get("arguments") or "")
        else:
            send("response.output_item.added", output_index=index, item=item)
        send("response.output_item.done", output_index=index, item=item)
    end = {"completed": "response.completed", "incomplete": "response.incomplete",
           "failed": "response.failed"}.get(reply.get("status") or "", "response.completed")
    send(end, response=reply)
    return out
