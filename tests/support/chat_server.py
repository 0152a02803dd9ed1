"""A local server speaking OpenAI's Chat Completions API with scripted answers, for
running agent frameworks (through the real OpenAI SDK) against a model whose next
moves a test decides: each answer is either text or one tool call. Every request's body
is kept, so a test can read what the framework sent the model."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from support.model_server import send_json

__all__ = ["ScriptedChat", "scripted_chat"]


@dataclass
class ScriptedChat:
    """The answers still to give (``{"text": ...}`` or ``{"tool": name, "arguments":
    {...}}``), and the requests received."""

    url: str = ""
    answers: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def next_answer(self, body: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(body)
        answer = self.answers.pop(0) if self.answers else {"text": "(no more answers)"}
        message: dict[str, Any] = {"role": "assistant", "content": answer.get("text")}
        finish = "stop"
        if "tool" in answer:
            call_id = f"call_{len(self.requests)}"
            message["tool_calls"] = [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {
                        "name": answer["tool"],
                        "arguments": json.dumps(answer.get("arguments", {})),
                    },
                }
            ]
            finish = "tool_calls"
        return {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }


@contextmanager
def scripted_chat() -> Iterator[ScriptedChat]:
    """Serve on a free loopback port; the chat's ``url`` is the API base (``.../v1``)."""
    chat = ScriptedChat()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            send_json(self, 200, chat.next_answer(body))

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    chat.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield chat
    finally:
        httpd.shutdown()
        httpd.server_close()
