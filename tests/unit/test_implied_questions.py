"""The corpus's implied questions imply their answer without its words: each shares no
word the full-text index keeps (stemmed, stop words dropped, as BM25 reads them) with
the turn that answers it, so a search finds that turn by meaning or not at all."""

from __future__ import annotations

import sys
from pathlib import Path

from memstream.queries.search.term_index import words

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from corpus import read_corpus

#: Words too plain to carry a question's meaning ("day" in "three coffees a day").
PLAIN = {"day"}


def test_every_implied_question_shares_no_kept_word_with_its_answer() -> None:
    corpus = read_corpus()
    said = {t["event_id"]: t["content"] for t in corpus.turns}
    implied = [q for q in corpus.questions if corpus.kinds[q["stream_id"]] == "implied"]
    assert len(implied) >= 40
    for question in implied:
        [turn] = question["evidence_event_ids"]
        shared = set(words(question["question"])) & set(words(said[turn])) - PLAIN
        assert not shared, (question["question"], shared)
        assert question["answer"] in said[turn]
