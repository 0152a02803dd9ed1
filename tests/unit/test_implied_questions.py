"""The corpus's implied questions imply their answer without its words: each shares no
word the full-text index keeps (stemmed, stop words dropped, as BM25 reads them) with
the turn that answers it, so a search finds that turn by meaning or not at all. The
questions of later statements are about a turn that refers back to an earlier one, and
share no such word with the earlier one, which answers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from memstream.queries.search.term_index import words

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from corpus import CORPUS, read_corpus

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


def test_every_later_statement_question_is_about_the_later_turn_not_the_earlier() -> None:
    """The questions of the later statements share words with the later turn (what the
    retrievers find) and none with the earlier turn it refers back to (what answers),
    and the two turns share none with each other: only a link reaches the answer."""
    corpus = read_corpus()
    said = {t["event_id"]: t["content"] for t in corpus.turns}
    conversation = json.loads((CORPUS / "37-kwame-later-links.json").read_text())
    linked = [q for q in corpus.questions if corpus.kinds[q["stream_id"]] == "linked"]
    assert len(linked) == len(conversation["questions"]) >= 20
    for question, written in zip(linked, conversation["questions"], strict=True):
        [earlier] = question["evidence_event_ids"]
        later = f"{question['stream_id']}:{written['through'][0]}"
        asked = set(words(question["question"])) - PLAIN
        assert not asked & set(words(said[earlier])), question["question"]
        assert asked & set(words(said[later])), question["question"]
        assert question["answer"] in said[earlier]
        assert earlier.split(":")[1] < later.split(":")[1]  # an earlier session
