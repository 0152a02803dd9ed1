"""What the embedder agent embeds: each turn once, alone, and pooled with the vectors of
its session's two previous turns; a short turn that was pooled keeps its own vector too,
as its row ``+p0``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import numpy as np
import pytest

from memstream.events.codec import decode, encode
from memstream.events.vocabulary import EmbeddingComputed
from memstream.jobs.embedding_agent import SessionWindow, embed_turns, embed_values
from memstream.projections.episodes import memory_id_for
from memstream.projections.vectors import decode_vector
from memstream.testing import message
from memstream.text.passages import passage_of

NOW = datetime.fromisoformat("2024-06-01T00:00:00+00:00")


class RecordingEmbedder:
    """Vectors from text length; remembers what it was asked to embed."""

    model = "recording"
    version = "1"
    dimension = 4

    def __init__(self, fail: bool = False) -> None:
        self.texts: list[str] = []
        self.fail = fail

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail:
            raise RuntimeError("the model is down")
        self.texts.extend(texts)
        return np.array([[len(t), 1, 0, 0] for t in texts], dtype=np.float32)


def values(*turns: tuple[str, str, str]) -> list[bytes]:
    return [
        encode(message(event_id=f"e{i}", session_id=s, speaker=who, content=text))
        for i, (s, who, text) in enumerate(turns)
    ]


def _vectors(records: list[tuple[bytes, bytes]]) -> list[np.ndarray]:
    """The memories' own (pooled) vectors, in order."""
    events = [decode(value) for _, value in records]
    return [
        decode_vector(e.vector)
        for e in events
        if isinstance(e, EmbeddingComputed) and passage_of(e.memory_id)[1] is None
    ]


def _alone(records: list[tuple[bytes, bytes]]) -> dict[str, np.ndarray]:
    """The rows of turns said alone, by their memory's id."""
    events = [decode(value) for _, value in records]
    found = {}
    for e in events:
        assert isinstance(e, EmbeddingComputed)
        memory_id, index = passage_of(e.memory_id)
        if index is not None:
            assert index == 0 and memory_id not in found
            found[memory_id] = decode_vector(e.vector)
    return found


def _unit(*texts: str) -> np.ndarray:
    """The pooled vector of these texts under RecordingEmbedder."""
    total = np.sum([[len(t), 1, 0, 0] for t in texts], axis=0).astype(np.float32)
    unit: np.ndarray = total / np.linalg.norm(total)
    return unit


def test_each_turn_is_embedded_once_and_pooled_with_its_two_previous_turns() -> None:
    embedder, window = RecordingEmbedder(), SessionWindow()
    first = embed_values(
        values(("s1", "Ann", "one"), ("s1", "Bo", "two"), ("s2", "Ann", "other")),
        embedder,
        NOW,
        window,
    )
    second = embed_values(
        values(("s1", "Ann", "three"), ("s1", "Bo", "four")), embedder, NOW, window
    )
    assert embedder.texts == ["Ann: one", "Bo: two", "Ann: other", "Ann: three", "Bo: four"]
    expected = [
        _unit("Ann: one"),
        _unit("Bo: two", "Ann: one"),
        _unit("Ann: other"),
        _unit("Ann: three", "Ann: one", "Bo: two"),
        _unit("Bo: four", "Bo: two", "Ann: three"),
    ]
    for found, wanted in zip(_vectors(first + second), expected, strict=True):
        np.testing.assert_allclose(found, wanted, rtol=1e-6)


def test_a_short_turn_pooled_with_earlier_ones_is_also_a_row_of_its_own_vector() -> None:
    """Search finds a memory by its nearest row: by the turn in its conversation, or by
    what it says alone. A turn with nothing before it in its session needs no second row
    (its vector is its own), nor does a long turn (its passages are said alone)."""
    embedder = RecordingEmbedder()
    long_turn = "A long answer. " * 120
    records = embed_turns(  # the turns agent's work (passages are another's)
        values(
            ("s1", "Ann", "one"),
            ("s1", "Bo", "two"),
            ("s2", "Ann", "other"),
            ("s1", "Bo", long_turn),
            ("s1", "Ann", "three"),
        ),
        embedder,
        NOW,
        SessionWindow(),
    )
    alone = _alone(records)
    assert set(alone) == {memory_id_for("alice", "e1"), memory_id_for("alice", "e4")}
    np.testing.assert_allclose(alone[memory_id_for("alice", "e1")], _unit("Bo: two"), rtol=1e-6)
    np.testing.assert_allclose(alone[memory_id_for("alice", "e4")], _unit("Ann: three"), rtol=1e-6)
    assert len(embedder.texts) == len(set(embedder.texts))  # no text embedded twice


def test_a_session_not_in_the_window_is_looked_up_and_its_turns_embedded() -> None:
    asked = []

    def lookup(user: str, session: str, before: datetime) -> list[str]:
        asked.append((user, session))
        return ["A: old", "B: older reply", "A: last"]

    embedder = RecordingEmbedder()
    records = embed_values(values(("s9", "B", "new")), embedder, NOW, SessionWindow(lookup))
    assert asked == [("alice", "s9")]
    assert embedder.texts == ["B: new", "B: older reply", "A: last"]
    [vector] = _vectors(records)
    np.testing.assert_allclose(vector, _unit("B: new", "B: older reply", "A: last"), rtol=1e-6)


def test_events_name_the_model_and_carry_the_exact_vector() -> None:
    [(key, value)] = embed_values(values(("s1", "Ann", "hi")), RecordingEmbedder(), NOW)
    event = decode(value)
    assert isinstance(event, EmbeddingComputed) and key == b"alice"
    assert (event.model, event.model_version, event.dimension) == ("recording", "1", 4)
    np.testing.assert_allclose(decode_vector(event.vector), _unit("Ann: hi"), rtol=1e-6)


def test_a_failed_batch_leaves_the_window_as_it_was() -> None:
    window = SessionWindow()
    with pytest.raises(RuntimeError):
        embed_values(values(("s1", "Ann", "lost?")), RecordingEmbedder(fail=True), NOW, window)
    embedder = RecordingEmbedder()
    embed_values(values(("s1", "Ann", "lost?")), embedder, NOW, window)
    [vector] = _vectors(embed_values(values(("s1", "Ann", "again")), embedder, NOW, window))
    np.testing.assert_allclose(vector, _unit("Ann: again", "Ann: lost?"), rtol=1e-6)


def test_undecodable_values_are_skipped() -> None:
    assert embed_values([b"not json"], RecordingEmbedder(), NOW) == []


def test_a_take_of_a_big_document_s_parts_holds_a_batch_of_texts() -> None:
    """The derived embedder takes so many records that a take of a big document's full
    parts holds no more texts than a batch (its offsets move as the document is
    embedded), and it takes one record at least."""
    from support.documents import T0, submitted

    from memstream.adapters.tokens import count_tokens
    from memstream.events.vocabulary import CHUNKS_PER_EVENT
    from memstream.jobs.document_lane import ReadLimits, chunked_submission
    from memstream.jobs.embedding_agent import derived_memories, derived_take

    body = "\n\n".join(f"## Part {n}\n\nThe lease term {n} runs a year." for n in range(700))
    data = body.encode()
    parts = chunked_submission(
        submitted(data, "text/markdown"), data, count_tokens, T0, ReadLimits(target=12, overlap=0)
    )
    values = [encode(part) for part in parts]
    assert len(parts) > 4 and len(derived_memories(values[:1])) == CHUNKS_PER_EVENT
    for batch_size in (256, 300, 64):
        take = values[: derived_take(batch_size)]
        assert 0 < len(derived_memories(take)) <= batch_size
    assert derived_take(10) == 1  # a part holding more than a batch is taken alone
