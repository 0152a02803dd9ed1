"""Concurrent queries embedded together: every caller gets its own text's vector, a lone
caller is not kept waiting, callers arriving while the model runs share its next call,
and a failed call reaches each caller of its batch."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from memstream.adapters.query_batches import QueryBatcher
from memstream.testing import wait_until


def _vector(text: str) -> np.ndarray:
    return np.array([len(text), sum(map(ord, text))], dtype=np.float32)


class SlowModel:
    """Takes ``seconds`` a call, whatever its size; records each call's texts."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.calls: list[list[str]] = []
        self._lock = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            self.calls.append(list(texts))
        time.sleep(self.seconds)
        if any(t.startswith("poison") for t in texts):
            raise RuntimeError("the model failed")
        return np.stack([_vector(t) for t in texts])


def test_a_lone_query_is_embedded_at_once() -> None:
    model = SlowModel(0.0)
    batcher = QueryBatcher(model)
    assert np.array_equal(batcher("hello"), _vector("hello"))
    assert model.calls == [["hello"]]  # a call of its own, made by the caller itself
    assert np.array_equal(batcher("again"), _vector("again"))  # and the next one too


def test_concurrent_queries_share_calls_and_each_gets_its_own_vector() -> None:
    model = SlowModel(0.02)
    batcher = QueryBatcher(model, max_batch=8)
    texts = [f"query number {n}" + "!" * n for n in range(64)]
    with ThreadPoolExecutor(max_workers=32) as pool:
        vectors = list(pool.map(batcher, texts))
    for text, vector in zip(texts, vectors, strict=True):
        assert np.array_equal(vector, _vector(text))
    embedded = [t for call in model.calls for t in call]
    assert sorted(embedded) == sorted(texts)  # each once
    assert max(map(len, model.calls)) > 1 and max(map(len, model.calls)) <= 8
    assert len(model.calls) < len(texts)
    assert batcher.calls == len(model.calls) and batcher.texts == len(texts)


def test_a_failed_call_reaches_every_caller_of_its_batch_and_no_other() -> None:
    running, release = threading.Event(), threading.Event()
    calls: list[list[str]] = []

    def model(texts: Sequence[str]) -> np.ndarray:
        calls.append(list(texts))
        if texts == ["first"]:  # held until the others wait for the next call
            running.set()
            release.wait(10)
        if any(t.startswith("poison") for t in texts):
            raise RuntimeError("the model failed")
        return np.stack([_vector(t) for t in texts])

    batcher = QueryBatcher(model)
    errors: dict[str, str] = {}
    answers: dict[str, np.ndarray] = {}

    def ask(text: str) -> None:
        try:
            answers[text] = batcher(text)
        except RuntimeError as error:
            errors[text] = str(error)

    first = threading.Thread(target=ask, args=("first",))
    first.start()
    assert running.wait(10)
    rest = [threading.Thread(target=ask, args=(t,)) for t in ("poison pill", "bystander")]
    for thread in rest:
        thread.start()
    wait_until(lambda: len(batcher._waiting) == 2, timeout=10)
    release.set()
    for thread in [first, *rest]:
        thread.join(10)
    assert calls == [["first"], ["poison pill", "bystander"]]
    assert np.array_equal(answers["first"], _vector("first"))
    assert errors == {"poison pill": "the model failed", "bystander": "the model failed"}
    assert np.array_equal(batcher("after"), _vector("after"))  # the batcher goes on


@pytest.mark.parametrize("callers", [2, 5])
def test_the_model_is_never_run_twice_at_once(callers: int) -> None:
    running, most = [0], [0]
    lock = threading.Lock()

    def model(texts: Sequence[str]) -> np.ndarray:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.005)
        with lock:
            running[0] -= 1
        return np.stack([_vector(t) for t in texts])

    batcher = QueryBatcher(model)
    with ThreadPoolExecutor(max_workers=callers) as pool:
        list(pool.map(batcher, [f"q{n}" for n in range(50)]))
    assert most[0] == 1
