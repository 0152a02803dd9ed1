"""A local HTTP server that speaks Anthropic's Messages API and OpenAI's Chat Completions
API, for testing the model clients through the real SDKs.

Its "model" reads the numbered turns of the prompt ("[2] 2024-06-01 10:00 UTC (Saturday)
Maria: I moved to Porto") and answers a fact for each move or new job it finds, citing
the turn's number; a prompt without numbered turns (a reflection) gets a summary naming
how many lines it was given; a request for cold-storage summaries gets one per numbered
memory; a request for links links each numbered statement to the last earlier memory
listed under it. ``plan`` lists what the next answers are: ``ok``, ``429``,
``500``, ``malformed`` (valid JSON of the wrong shape), ``not-json`` (OpenAI: cut off
mid-object), ``fenced`` (OpenAI: the JSON in a code fence between sentences, as small
local models answer), ``think`` (OpenAI: a reasoning model's ``<think>`` block first) or
``no-tool`` (Anthropic: text instead of the forced tool call). ``formats`` are the
OpenAI response formats the server takes; another is refused with a 400, as Ollama and
older llama.cpp servers refuse a JSON schema.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

_TURN = re.compile(r"^\[(\d+)\] \S+ \S+ UTC \(\w+\) ([^:]+): (.*)$", re.MULTILINE)
_MOVE = re.compile(r"\bmoved to ([A-Z]\w+)")
_JOB = re.compile(r"\b(?:joined|started at|now work at) ([A-Z][\w ]*[\w])")


_ITEM = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)


_STATEMENT = re.compile(r"^\[(\d+)\] \S+ [^:]+: ", re.MULTILINE)
_EARLIER = re.compile(r"^    \[(\d+)\.(\d+)\] ", re.MULTILINE)


def _links_answer(prompt: str) -> dict[str, Any]:
    """Each statement linked to the last earlier memory listed under it (the least near:
    what the vectors alone would not choose first), and one link naming no candidate."""
    last: dict[int, int] = {}
    for statement, earlier in _EARLIER.findall(prompt):
        last[int(statement)] = max(last.get(int(statement), 0), int(earlier))
    links = [
        {"statement": s, "earlier": e, "relation": "cause", "strength": 0.8}
        for s, e in sorted(last.items())
    ]
    statements = len(_STATEMENT.findall(prompt))
    return {"links": [*links, {"statement": statements + 1, "earlier": 1, "relation": "x",
                               "strength": 2.0}]}  # fmt: skip


def _model_answer(prompt: str) -> dict[str, Any]:
    if "refers back" in ModelServer.requests[-1]["system"]:
        return _links_answer(prompt)
    if "cold storage" in ModelServer.requests[-1]["system"]:
        items = _ITEM.findall(prompt)
        return {"summaries": [f"Summary {n}: {' '.join(t.split()[:5])}" for n, t in items]}
    turns = _TURN.findall(prompt)
    if not turns:
        lines = [line for line in prompt.splitlines() if line.startswith("- ")]
        return {"summary": f"A week with {len(lines)} new things learned."}
    memories = []
    for number, speaker, text in turns:
        for pattern, attribute, verb in (
            (_MOVE, "lives_in", "lives in"),
            (_JOB, "works_at", "works at"),
        ):
            for found in pattern.findall(text):
                memories.append(
                    {
                        "kind": "fact",
                        "content": f"{speaker} {verb} {found}.",
                        "subject": speaker,
                        "attribute": attribute,
                        "value": found,
                        "exclusive": True,
                        "confidence": 0.9,
                        "importance": 0.7,
                        "tags": ["Home" if attribute == "lives_in" else "work"],
                        "turns": [int(number)],
                    }
                )
    return {"memories": memories}


def send_json(handler: BaseHTTPRequestHandler, status: int, document: dict[str, Any]) -> None:
    """Answer ``document`` as JSON with ``status``."""
    payload = json.dumps(document).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


class ModelServer(BaseHTTPRequestHandler):
    plan: ClassVar[list[str]] = []
    formats: ClassVar[set[str]] = {"json_schema", "json_object"}
    requests: ClassVar[list[dict[str, Any]]] = []
    usages: ClassVar[list[tuple[int, int]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ModelServer.requests.append(
            {
                "path": self.path,
                "body": body,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "system": body.get("system") or body["messages"][0]["content"],
            }
        )
        anthropic = self.path.endswith("/messages")
        wanted = (body.get("response_format") or {}).get("type")
        if not anthropic and wanted and wanted not in ModelServer.formats:
            error = {"message": f"response_format {wanted} is not supported", "type": "invalid"}
            self._send(400, {"error": error})
            return
        step = ModelServer.plan.pop(0) if ModelServer.plan else "ok"
        if step in ("429", "500"):
            kind = "rate_limit_error" if step == "429" else "api_error"
            error = {"type": kind, "message": f"fake {step}"}
            self._send(
                int(step), {"type": "error", "error": error} if anthropic else {"error": error}
            )
            return
        if anthropic:
            prompt = body["messages"][0]["content"]
            self._send(200, self._anthropic(body, _model_answer(prompt), step))
        else:
            prompt = body["messages"][1]["content"]
            self._send(200, self._openai(body, _model_answer(prompt), step))

    @staticmethod
    def _usage(body: dict[str, Any]) -> tuple[int, int]:
        usage = (len(json.dumps(body["messages"]).split()), 42)
        ModelServer.usages.append(usage)
        return usage

    def _anthropic(self, body: dict[str, Any], answer: dict[str, Any], step: str) -> dict[str, Any]:
        tokens_in, tokens_out = self._usage(body)
        if step == "malformed":
            answer = {"memories": [{"kind": "fact", "content": "no turns"}]}
        content: list[dict[str, Any]] = (
            [{"type": "text", "text": "I would rather chat."}]
            if step == "no-tool"
            else [
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": body["tool_choice"]["name"],
                    "input": answer,
                }
            ]
        )
        return {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": "end_turn" if step == "no-tool" else "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
        }

    def _openai(self, body: dict[str, Any], answer: dict[str, Any], step: str) -> dict[str, Any]:
        tokens_in, tokens_out = self._usage(body)
        text = json.dumps(answer)
        if step == "malformed":
            text = json.dumps({"memories": "none"})
        elif step == "not-json":
            text = '{"memories": [{"kind": "fact", '
        elif step == "fenced":
            text = f"Here are the memories:\n```json\n{text}\n```\nHope this helps!"
        elif step == "think":
            text = f"<think>The user moved; a fact {{maybe}}.</think>\n{text}"
        return {
            "id": "chatcmpl-01",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": None},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": tokens_in,
                "completion_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
            },
        }

    def _send(self, status: int, document: dict[str, Any]) -> None:
        send_json(self, status, document)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def model_server() -> Iterator[str]:
    """Serve on a free loopback port; yields the base URL (``http://127.0.0.1:N``)."""
    ModelServer.plan, ModelServer.requests, ModelServer.usages = [], [], []
    ModelServer.formats = {"json_schema", "json_object"}
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ModelServer)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
