"""The default embedder: real MiniLM int8 weights, known cosine relations, offline."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest

from memstream.adapters.embedders import TOKENIZER_SHA256, MiniLMEmbedder, tokenizer_path


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=1)


def test_vectors_are_unit_length_384_float32(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed(["hello world", "a much longer sentence " * 40, "é ü ß 日本"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_cosine_relations_of_fixed_sentences(embedder: MiniLMEmbedder) -> None:
    a, b, c, d = embedder.embed(
        [
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The girl is carrying a baby.",
            "A man is riding a horse.",
        ]
    )
    assert float(a @ b) == pytest.approx(0.75, abs=0.05)  # full precision MiniLM: 0.76
    assert float(a @ b) > float(a @ d) > float(a @ c)
    assert float(a @ c) < 0.1


def test_order_and_batching_do_not_change_vectors(embedder: MiniLMEmbedder) -> None:
    texts = [f"sentence number {i} about {'cats ' * i}" for i in range(70)]
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts[:5]])
    assert np.allclose(together[:5], alone, atol=1e-5)


def test_the_shipped_tokenizer_is_the_pinned_file() -> None:
    assert hashlib.sha256(tokenizer_path().read_bytes()).hexdigest() == TOKENIZER_SHA256


def test_a_text_embedded_alone_on_its_own_threads_gets_the_batch_vector() -> None:
    """A lone query runs on a session of its own (two threads) and a batch on the
    other (one): the same model, the same vectors."""
    both = MiniLMEmbedder(threads=1, single_threads=2)
    assert both._single_session is not both._session
    texts = ["What does Miso like to eat?", "I moved to Porto last May with my cat"]
    together = both.embed(texts)
    for text, vector in zip(texts, together, strict=True):
        alone = both.embed_alone([text])[0]
        assert float(alone @ vector) > 0.99999


def test_a_query_is_embedded_alone_only_while_no_other_search_is_under_way() -> None:
    """The lone-call threads are for a query nothing else wants the cores beside; a
    query of a search among others runs on the batch threads."""
    from memstream.adapters.embedders import QueryEmbeddingCache

    class Recording(MiniLMEmbedder):
        def __init__(self) -> None:
            super().__init__(threads=1, single_threads=2)
            self.calls: list[tuple[str, list[str]]] = []

        def embed(self, texts: Any) -> np.ndarray:
            self.calls.append(("batch threads", list(texts)))
            return super().embed(texts)

        def embed_alone(self, texts: Any) -> np.ndarray:
            self.calls.append(("lone threads", list(texts)))
            return super().embed_alone(texts)

    embedder, others = Recording(), [0]
    cache = QueryEmbeddingCache(embedder, busy=lambda: others[0] > 0)
    cache("where does Miso live?")
    others[0] = 3
    cache("what does Miso eat?")
    assert embedder.calls == [
        ("lone threads", ["where does Miso live?"]),
        ("batch threads", ["what does Miso eat?"]),
    ]
