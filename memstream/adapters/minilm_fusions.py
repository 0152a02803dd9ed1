"""Operator fusions of MiniLM's exported graph that onnxruntime does not find by itself.

The packaged model was exported from PyTorch's scaled-dot-product attention: each
layer's attention is some twenty small operators (reshapes, transposes, the shapes they
need, the mask made a bias, a softmax guarded against NaN) and each GELU five. A short
query's run is mostly the hand-offs between operators, and onnxruntime's own fusions at
load do not recognise these forms. :func:`fused` replaces each layer's attention with one
``MultiHeadAttention`` and each GELU with one ``Gelu`` (onnxruntime's contrib operators,
the same arithmetic, to a float's last bits; where those bits move the 8-bit rounding
of the activations that follow, a vector moves as far as that rounding moves it
anyway). 145 operators are left of 255, and a 16-token query runs in 1.8 ms on one
thread instead of 2.2 (``integer_graph`` of :mod:`memstream.adapters.minilm_graph`,
which calls it).

Every step checks the form it expects and leaves a graph it does not recognise as it
was. The functions take and give lists of ONNX nodes (pure; the caller rebuilds the
graph).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["fused", "without_dead"]

_PRODUCT = "DynamicQuantizeMatMul"
_MASK = "attention_mask"
_MASK_INT32 = "attention_mask_int32"


def fused(nodes: Sequence[Any], constants: Mapping[str, np.ndarray]) -> list[Any]:
    """``nodes`` (a graph's nodes in order, its weight products already integer ones,
    six a layer: query, key, value, output, and the two of the feed-forward block) with
    each layer's attention and each GELU fused; ``constants`` the graph's initializers
    as arrays. The nodes left unread are still there (see :func:`without_dead`)."""
    return _gelu_fused(_attention_fused(list(nodes), constants), constants)


def without_dead(nodes: Sequence[Any], outputs: set[str]) -> list[Any]:
    """``nodes`` less those whose outputs nothing reads (neither another node nor the
    graph's ``outputs``), repeated until none is left."""
    alive = list(nodes)
    while True:
        read = {name for node in alive for name in node.input} | outputs
        kept = [node for node in alive if any(name in read for name in node.output)]
        if len(kept) == len(alive):
            return kept
        alive = kept


def _readers(nodes: Sequence[Any]) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for node in nodes:
        for name in node.input:
            found.setdefault(name, []).append(node)
    return found


def _attention_fused(nodes: list[Any], constants: Mapping[str, np.ndarray]) -> list[Any]:
    """Each layer's attention, from its biased query, key and value to the input of its
    output product, made one ``MultiHeadAttention`` over the attention mask (as int32, 1
    for a token, 0 for padding)."""
    from onnx import TensorProto, helper

    readers = _readers(nodes)
    made_by = {output: node for node in nodes for output in node.output}
    products = [n for n in nodes if n.op_type == _PRODUCT]
    if not products or len(products) % 6 or _MASK not in readers:
        return nodes

    def biased(product: Any) -> str | None:
        adds = [n for n in readers.get(product.output[0], []) if n.op_type == "Add"]
        return adds[0].output[0] if len(adds) == 1 else None

    replacing: dict[int, Any] = {}
    for layer in range(len(products) // 6):
        query, key, value, output = products[6 * layer : 6 * layer + 4]
        sides = [side for side in (biased(query), biased(key), biased(value)) if side]
        width = constants.get(query.input[1], np.empty((0, 0))).shape[-1]
        heads = _heads(sides[0] if sides else None, width, readers, made_by, constants)
        joined = made_by.get(output.input[0])
        if len(sides) != 3 or heads is None or joined is None or joined.op_type != "Reshape":
            return nodes
        replacing[id(joined)] = helper.make_node(
            "MultiHeadAttention",
            [*sides, "", _MASK_INT32],
            [output.input[0]],
            name=f"attention_{layer}",
            domain="com.microsoft",
            num_heads=heads,
        )
    cast = helper.make_node("Cast", [_MASK], [_MASK_INT32], name="mask_int32", to=TensorProto.INT32)
    return [cast, *(replacing.get(id(node), node) for node in nodes)]


def _heads(
    query: str | None,
    width: int,
    readers: Mapping[str, list[Any]],
    made_by: Mapping[str, Any],
    constants: Mapping[str, np.ndarray],
) -> int | None:
    """The number of heads a query of ``width`` numbers a token is split into: from the
    shape it is reshaped to (batch, tokens, heads, head size), its last two parts
    constants (one of them may be -1)."""
    if query is None:
        return None
    reshapes = [n for n in readers.get(query, []) if n.op_type == "Reshape"]
    if len(reshapes) != 1:
        return None
    shape = reshapes[0].input[1]
    if shape in constants:
        parts = [int(d) for d in constants[shape].reshape(-1)][2:]
    else:
        concat = made_by.get(shape)
        if concat is None or concat.op_type != "Concat" or len(concat.input) != 4:
            return None
        found = [constants.get(name) for name in concat.input[2:]]
        if any(part is None or part.size != 1 for part in found):
            return None
        parts = [int(part.reshape(-1)[0]) for part in found if part is not None]
    if len(parts) != 2:
        return None
    heads, size = parts
    if heads <= 0 and size > 0 and width % size == 0:
        heads = width // size
    return heads if heads > 0 and width % heads == 0 else None


def _gelu_fused(nodes: list[Any], constants: Mapping[str, np.ndarray]) -> list[Any]:
    """Each ``x * (0.5 * (erf(x / sqrt 2) + 1))`` made one ``Gelu(x)``."""
    from onnx import helper

    readers = _readers(nodes)
    made_by = {output: node for node in nodes for output in node.output}
    replacing: dict[int, Any] = {}
    for erf in (n for n in nodes if n.op_type == "Erf"):
        divide = made_by.get(erf.input[0])
        if divide is None or divide.op_type != "Div":
            continue
        if not _is(divide.input[1], constants, math.sqrt(2)):
            continue
        x = divide.input[0]
        plus_one = _only(readers, erf.output[0], "Add")
        half = _only(readers, plus_one.output[0], "Mul") if plus_one is not None else None
        last = _only(readers, half.output[0], "Mul") if half is not None else None
        if (
            plus_one is None
            or half is None
            or last is None
            or not any(_is(name, constants, 1.0) for name in plus_one.input)
            or not any(_is(name, constants, 0.5) for name in half.input)
            or x not in last.input
        ):
            continue
        replacing[id(last)] = helper.make_node(
            "Gelu", [x], list(last.output), name=f"{last.name}_gelu", domain="com.microsoft"
        )
    return [replacing.get(id(node), node) for node in nodes]


def _only(readers: Mapping[str, list[Any]], name: str, op_type: str) -> Any | None:
    """The one reader of ``name``, if it is one and of ``op_type``."""
    found = readers.get(name, [])
    return found[0] if len(found) == 1 and found[0].op_type == op_type else None


def _is(name: str, constants: Mapping[str, np.ndarray], value: float) -> bool:
    """Whether ``name`` is a one-number constant of ``value`` (to float32's precision)."""
    found = constants.get(name)
    return found is not None and found.size == 1 and abs(float(found.reshape(-1)[0]) - value) < 1e-6
