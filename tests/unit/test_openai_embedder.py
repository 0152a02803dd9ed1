"""The OpenAI embedder through the real ``openai`` SDK, against a local HTTP server that
speaks the embeddings API (rate limits and a malformed answer included)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import numpy as np
import pytest
from support.model_server import send_json

from memstream.adapters.embedders import OpenAIEmbedder


class FakeOpenAI(BaseHTTPRequestHandler):
    """Answers POST /v1/embeddings; ``plan`` lists the status of each next answer."""

    plan: ClassVar[list[str]] = []
    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeOpenAI.requests.append(
            {"path": self.path, "body": body, "auth": self.headers["Authorization"]}
        )
        step = FakeOpenAI.plan.pop(0) if FakeOpenAI.plan else "ok"
        if step == "429":
            self._send(429, {"error": {"message": "slow down", "type": "rate_limit"}})
            return
        if step == "500":
            self._send(500, {"error": {"message": "boom", "type": "server_error"}})
            return
        size = body["dimensions"] if step == "ok" else body["dimensions"] - 1
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": [float(len(text) + j) for j in range(size)],
            }
            for i, text in enumerate(body["input"])
        ]
        data.reverse()  # the API may answer out of order: the index says where each goes
        self._send(
            200,
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": 3, "total_tokens": 3},
            },
        )

    def _send(self, status: int, document: dict[str, Any]) -> None:
        send_json(self, status, document)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    FakeOpenAI.plan, FakeOpenAI.requests = [], []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_batches_orders_normalizes_and_sends_dimensions(server: str) -> None:
    embedder = OpenAIEmbedder("sk-test", dimensions=8, base_url=server, batch_size=2)
    vectors = embedder.embed(["a", "bbb", "cc"])
    assert vectors.shape == (3, 8) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    expected = np.arange(8, dtype=np.float32) + 3  # "bbb": len 3
    assert np.allclose(vectors[1], expected / np.linalg.norm(expected))
    assert [len(r["body"]["input"]) for r in FakeOpenAI.requests] == [2, 1]
    first = FakeOpenAI.requests[0]
    assert first["path"] == "/v1/embeddings" and first["auth"] == "Bearer sk-test"
    assert first["body"]["model"] == "text-embedding-3-small" and first["body"]["dimensions"] == 8
    assert embedder.model == "text-embedding-3-small" and embedder.dimension == 8


def test_rate_limits_and_server_errors_are_retried(server: str) -> None:
    FakeOpenAI.plan = ["429", "500", "ok"]
    embedder = OpenAIEmbedder("sk-test", dimensions=4, base_url=server, backoff_seconds=0.01)
    assert embedder.embed(["hello"]).shape == (1, 4)
    assert len(FakeOpenAI.requests) == 3


def test_gives_up_after_the_retries(server: str) -> None:
    import openai

    FakeOpenAI.plan = ["429"] * 10
    embedder = OpenAIEmbedder(
        "sk-test", dimensions=4, base_url=server, max_retries=2, backoff_seconds=0.01
    )
    with pytest.raises(openai.RateLimitError):
        embedder.embed(["hello"])
    assert len(FakeOpenAI.requests) == 3


def test_a_malformed_answer_is_an_error_not_a_vector(server: str) -> None:
    FakeOpenAI.plan = ["short"]
    embedder = OpenAIEmbedder("sk-test", dimensions=4, base_url=server)
    with pytest.raises(ValueError, match="shape"):
        embedder.embed(["hello"])
