"""Context assembly: shares of the budget, unused share flowing on, a budget never
exceeded (counted with the shipped tokenizer), null when nothing is found, archived
lines labelled; and, over a real store, the block and the explanation an agent gets."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memstream.adapters.tokens import count_tokens
from memstream.application import NotFound, Operations
from memstream.projections.episodes import memory_id_for
from memstream.queries.context.assembly import SECTIONS, ContextLine, assemble, complexity

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def _lines(prefix: str, n: int, words: int = 12, **kw: object) -> list[ContextLine]:
    text = " ".join(f"word{i}" for i in range(words))
    return [
        ContextLine(f"{prefix}-{i}", f"{prefix} {i}: {text}", T0, **kw)  # type: ignore[arg-type]
        for i in range(n)
    ]


FULL = {
    "facts": _lines("fact", 200, kind="fact"),
    "entities": _lines("ent", 200, kind="entity"),
    "temporal": _lines("turn", 200, kind="episode"),
    "evidence": _lines("said", 200, kind="episode"),
}


@pytest.mark.parametrize("budget", [50, 100, 250, 1000, 2000, 3000, 5000, 8000])
def test_the_budget_is_never_exceeded_and_each_section_keeps_to_its_share(budget: int) -> None:
    block = assemble(FULL, budget, count_tokens)
    assert block.context is not None
    assert block.tokens == count_tokens(block.context) <= budget
    carried = 0
    for section, (_, share, _) in zip(block.sections, SECTIONS, strict=True):
        room = int(budget * share) + carried
        assert section.tokens <= room
        carried = room - section.tokens


def test_unused_share_flows_to_the_next_section() -> None:
    with_facts = assemble(FULL, 1000, count_tokens)
    without = assemble({**FULL, "facts": []}, 1000, count_tokens)
    entities = next(s for s in without.sections if s.name == "entities")
    assert entities.tokens > int(1000 * 0.25)  # the facts' 40% went on to the entities
    assert len(entities.lines) > len(with_facts.sections[1].lines)
    assert without.tokens <= 1000 and "## What is known" not in (without.context or "")


def test_nothing_found_is_null_and_a_memory_is_said_once() -> None:
    assert assemble({}, 1000, count_tokens).context is None
    assert assemble({"facts": []}, 1000, count_tokens).tokens == 0
    same = _lines("fact", 1, kind="fact")
    block = assemble({"facts": same, "evidence": same}, 1000, count_tokens)
    assert block.context is not None and block.context.count("(2024-05-01, fact-0)") == 1


def test_a_block_stops_where_the_evidence_stops_whatever_budget_is_left() -> None:
    scored = [
        ContextLine(f"fact-{i}", f"fact {i}", T0, "fact", score=score)
        for i, score in enumerate([0.40, 0.30, 0.13, 0.11, 0.02])
    ]
    unscored = ContextLine("turn-0", "a turn with no score", T0, "episode")
    block = assemble({"facts": scored, "temporal": [unscored]}, 2000, count_tokens, floor=0.3)
    kept = [line.memory_id for section in block.sections for line in section.lines]
    assert kept == ["fact-0", "fact-1", "fact-2", "turn-0"]  # 0.13 >= 0.3 * 0.40 > 0.11
    assert block.tokens < 100  # the unused budget is not spent
    everything = assemble({"facts": scored}, 2000, count_tokens, floor=0.0)
    assert len(everything.sections[0].lines) == 5


def test_lines_carry_id_date_and_the_archived_label() -> None:
    cold = ContextLine("ep-1", "We booked Lisbon, 420 euros.", T0, "episode", archived=True)
    hot = ContextLine("fact-2", "Ana lives\nin Porto.", None, "fact")
    assert cold.render() == "- [archived] We booked Lisbon, 420 euros. (2024-05-01, ep-1)"
    assert hot.render() == "- [fact] Ana lives in Porto. (undated, fact-2)"


@pytest.mark.parametrize(
    ("query", "judged"),
    [
        ("Where does Ana live?", "simple"),
        ("What is my dentist's name?", "simple"),
        ("Why did Ana move to Porto?", "complex"),
        ("How has Maria's job changed since 2022?", "complex"),
        ("Where did we go in May? And who came with us?", "complex"),
    ],
)
def test_queries_are_judged_simple_or_complex(query: str, judged: str) -> None:
    assert complexity(query) == judged


def test_a_context_block_holds_the_corrected_fact_its_entities_and_turns(
    operations: Operations,
) -> None:
    block = asyncio.run(operations.reads.context("ana", "What does Miso like to eat?"))
    assert block.context is not None and block.complexity == "simple"
    assert block.budget_tokens == 1000 and 0 < block.tokens <= 1000
    assert "[fact] Ana's cat Miso likes tuna." in block.context
    assert "sardines" not in block.context  # the corrected fact is history
    assert "## People, places and things" in block.context and "Miso (pet" in block.context
    assert block.context.count("Ana's cat Miso likes tuna.") == 1  # a profile repeats no fact
    assert "Porto (place" not in block.context  # no profile the question has no use for
    facts = next(s for s in block.sections if s["name"] == "facts")
    assert facts["lines"][0]["memory_id"].startswith("cmd-")
    small = asyncio.run(
        operations.reads.context("ana", "What does Miso like to eat?", budget_tokens=60)
    )
    assert small.tokens <= 60 and small.budget_tokens == 60
    nothing = asyncio.run(operations.reads.context("ana", "quantum chromodynamics"))
    assert nothing.context is None and nothing.tokens == 0
    other = asyncio.run(operations.reads.context("bob", "What does Miso like to eat?"))
    assert other.context is None  # another user's memories never leak in


def test_an_entity_line_says_something_or_is_left_out(operations: Operations) -> None:
    """A profile with no fact to give, of an entity the question does not name (a date,
    a name in a result), takes no line: its mention count is not worth the tokens."""
    block = asyncio.run(operations.reads.context("ana", "Who helped me move house?"))
    assert block.context is not None and "Maria helped me move to Porto" in block.context
    assert "(date" not in block.context and "Porto (place" not in block.context
    asked = asyncio.run(operations.reads.context("ana", "What do I know about Porto?"))
    assert asked.context is not None and "Porto (place" in asked.context  # named: kept


def test_a_thing_the_question_does_not_name_is_profiled_for_a_fact_that_says_its_words() -> None:
    """Postgres, named by a turn about where MLflow keeps its artifacts, has facts of
    another project to give: no line for "Which bucket holds the MLflow artifacts?";
    a line when a fact says a word of the question, or when the question names it."""
    from memstream.queries.context.gathering import worth_a_line
    from memstream.queries.context.relevance import question_words

    postgres = {"canonical_name": "Postgres", "aliases": ["postgres"], "type": "product"}
    shop = [{"content": "Tomasz's Django shop runs on Postgres 15."}]
    asked = question_words("Which bucket holds the MLflow artifacts?")
    assert not worth_a_line(postgres, shop, set(), asked)
    assert not worth_a_line(postgres, [], set(), asked)
    assert worth_a_line(postgres, shop, set(), question_words("What does the shop run on?"))
    assert worth_a_line(postgres, [], {"postgres"}, asked)  # the question names it
    # a date or an amount, whatever its facts say, only when named
    date = {"canonical_name": "2024-05-01", "aliases": ["2024-05-01"], "type": "date"}
    assert not worth_a_line(date, [{"content": "The bucket moved on 2024-05-01."}], set(), asked)
    # "The user" of a statement is no word it shares with "the user" of a question
    user_asked = question_words("Which bucket does the user keep the artifacts in?")
    mine = [{"content": "The user maintains the Django shop."}]
    assert not worth_a_line(postgres, mine, set(), user_asked)


def _first_fact(operations: Operations, question: str) -> str:
    """The id of the first line of the facts section of the block for ``question``."""
    block = asyncio.run(operations.reads.context("ana", question))
    assert block.context is not None
    facts = next(s for s in block.sections if s["name"] == "facts")
    return str(facts["lines"][0]["memory_id"])


def test_history_says_when_a_correction_was_made_and_that_the_old_fact_never_held(
    operations: Operations,
) -> None:
    new_fact = _first_fact(operations, "What does Miso like to eat?")
    old, new = asyncio.run(operations.reads.history("ana", new_fact))
    assert (old["content"], new["content"]) == (
        "Ana's cat Miso likes sardines.",
        "Ana's cat Miso likes tuna.",
    )
    remembered_at = T0 + timedelta(minutes=2)
    assert old["superseded_by"] == new_fact
    assert old["superseded_at"] == T0 + timedelta(hours=1)  # when it was corrected
    assert old["valid_until"] == remembered_at + timedelta(microseconds=1)  # never held
    assert new["superseded_at"] is None


def test_explain_shows_where_a_memory_came_from_and_its_confidence(
    operations: Operations,
) -> None:
    new_fact = _first_fact(operations, "What does Miso like to eat?")
    why = asyncio.run(operations.reads.explain("ana", new_fact))
    assert why["memory"]["content"] == "Ana's cat Miso likes tuna."
    assert [m["content"] for m in why["history"]] == [
        "Ana's cat Miso likes sardines.",
        "Ana's cat Miso likes tuna.",
    ]
    assert why["commands"]["corrects"] and not why["commands"]["confirmed"]
    assert "Miso" in why["entities"]
    confidence = why["confidence"]
    assert confidence["written"] == 1.0 and 0 < confidence["now"] < 1.0
    assert confidence["days_since_used"] == pytest.approx(30, abs=0.01)  # since it happened
    episode = asyncio.run(operations.reads.explain("ana", memory_id_for("ana", "m1")))
    assert episode["confidence"]["rule"] == "an episode does not decay"
    with pytest.raises(NotFound):
        asyncio.run(operations.reads.explain("bob", new_fact))


def _result(content: str, similarity: float | None = None, entities: tuple[str, ...] = ()) -> Any:
    from memstream.queries.search.request import SearchResult

    return SearchResult(
        memory_id="m", kind="episode", content=content, score=0.5, session_id=None,
        occurred_at=T0, speaker=None, source_event_ids=[], entities=list(entities),
        similarity=similarity,
    )  # fmt: skip


def test_a_result_bears_on_a_question_by_its_words_its_names_or_its_meaning() -> None:
    from memstream.queries.context.relevance import bears_on, question_words

    asked = "When did Ana move to Porto?"
    words = question_words(asked)
    assert bears_on(_result("I moved to a new flat"), asked, words, 0.3)  # "move", stemmed
    assert bears_on(_result("She loves it there", entities=("Ana",)), asked, words, 0.3)
    assert not bears_on(_result("We met her", entities=("An",)), asked, words, 0.3)  # a word
    assert bears_on(_result("Relocation is hard", similarity=0.42), asked, words, 0.3)
    assert not bears_on(_result("The cat likes tuna", similarity=0.12), asked, words, 0.3)
    assert not bears_on(_result("The cat likes tuna"), asked, words, 0.3)  # no vector yet
    assert bears_on(_result("The cat likes tuna"), asked, words, None)  # no cut-off


def test_a_word_most_results_say_weighs_little_and_a_rare_one_much() -> None:
    from memstream.queries.context.relevance import (
        bearing_results,
        question_words,
        word_share,
        word_weights,
    )

    asked = "Where does the user work now?"
    jobs = [_result(f"{name} works as a data analyst.") for name in ("Lena", "Søren", "Wei")]
    results = [
        _result("The user works remotely for a bank."),
        *jobs * 4,
        _result("Shift work is hard on couples."),
        _result("Settled in Edinburgh now, the flat is cold."),
    ]
    results = [r.model_copy(update={"memory_id": f"m{n}"}) for n, r in enumerate(results)]
    weights = word_weights(question_words(asked), [r.content for r in results])
    assert weights["work"] < weights["now"] < weights["user"] + 1e-9
    # a word every result says still weighs something: the results are not all there is
    alike = word_weights({"bike"}, ["my bike", "the bike", "a bike"])
    assert alike["bike"] > 0 and word_share("my bike", alike) == 1.0
    assert word_share("nothing asked here", weights) == 0.0
    assert word_share("the user works now", weights) == pytest.approx(1.0)
    kept = [r.memory_id for r in bearing_results(results, asked, question_words(asked), 0.3)]
    # "work", said by 14 of the 15, is not enough on its own
    assert kept == ["m0", f"m{len(results) - 1}"]
    # with no cut-off, every result bears
    assert len(bearing_results(results, asked, question_words(asked), None)) == len(results)


def test_a_fact_told_by_someone_the_question_does_not_name_is_no_answer() -> None:
    """In a history of several speakers, "Chloé lives in Lyon." is near "Which city
    does Ana live in now?" in words and meaning, and no answer to it; a fact that names
    Ana, a fact Ana told and a turn of anyone's still bear on it."""
    from memstream.queries.context.relevance import (
        bearing_results,
        question_words,
        speakers_named,
    )

    asked = "Which city does Ana live in now?"

    def said(content: str, speaker: str | None, kind: str = "fact") -> Any:
        return _result(content, similarity=0.45).model_copy(
            update={"memory_id": content, "speaker": speaker, "kind": kind}
        )

    results = [
        said("Ana lives in Lisbon.", "Ana"),
        said("Chloé lives in Lyon.", "Chloé"),
        said("Wei lives in Vancouver.", "Wei", "preference"),
        said("Rita visits Ana in Lisbon every May.", "Rita"),  # names Ana
        said("I live in Oslo now, by the fjord.", "Lena", "episode"),  # a turn
        said("Someone lives in Madrid.", None),  # told by no one known
    ]
    assert speakers_named(results, asked) == {"Ana"}
    kept = [r.memory_id for r in bearing_results(results, asked, question_words(asked), 0.3)]
    assert kept == [
        "Ana lives in Lisbon.",
        "Rita visits Ana in Lisbon every May.",
        "I live in Oslo now, by the fjord.",
        "Someone lives in Madrid.",
    ]
    # a question that names no speaker keeps them all; so does no cut-off
    unnamed = "Which city does the user live in now?"
    assert speakers_named(results, unnamed) == frozenset()
    assert len(bearing_results(results, unnamed, question_words(unnamed), 0.3)) == 6
    assert len(bearing_results(results, asked, question_words(asked), None)) == 6
    # a name inside a word is not the name ("Banana" is no "Ana")
    assert speakers_named(results, "Is a banana a good snack?") == frozenset()


def test_the_unnamed_user_of_a_statement_is_no_word_the_question_shares() -> None:
    """Every statement of an unnamed user says "The user ...": a question saying "the
    user" shares that with all of them, and bears on none of them by it."""
    from memstream.queries.context.relevance import bearing_results, bears_on, question_words

    asked = "What diet does the user follow?"
    words = question_words(asked)

    def fact(content: str) -> Any:
        return _result(content).model_copy(update={"memory_id": content, "kind": "fact"})

    climbing = fact("The user joined a climbing gym near the Shore.")
    vegan = fact("The user has been vegan for three years, the user's diet is plant-based.")
    assert not bears_on(climbing, asked, words, 0.3)
    assert bears_on(vegan, asked, words, 0.3)  # by "diet"
    # a turn that says "user" says it: it is no placeholder there
    assert bears_on(_result("Which user follows the new policy?"), asked, words, 0.3)
    kept = bearing_results([climbing, vegan], asked, words, 0.3)
    assert [r.memory_id for r in kept] == [vegan.memory_id]
    # near in meaning, a statement still bears
    assert bears_on(climbing.model_copy(update={"similarity": 0.41}), asked, words, 0.3)


def test_a_statement_about_someone_the_question_does_not_name_is_no_answer() -> None:
    """ "Nadia is allergic to penicillin." is near "What is Pierogi allergic to?" in words
    and meaning, and about someone else; a statement about Pierogi, one that names her,
    the user's own and any turn still bear on it."""
    from memstream.queries.context.relevance import bearing_results, question_words

    asked = "What is Pierogi allergic to?"

    def said(content: str, kind: str = "fact", entities: tuple[str, ...] = ()) -> Any:
        return _result(content, similarity=0.45, entities=entities).model_copy(
            update={"memory_id": content, "kind": kind}
        )

    results = [
        said("We adopted a dog called Pierogi.", "episode", ("Pierogi",)),
        said("Nadia told me about her allergy.", "episode", ("Nadia",)),
        said("Zoë Park is coming for dinner.", "episode", ("Zoë Park",)),
        said("Nadia is allergic to penicillin."),
        said("Zoë Park is allergic to shellfish."),
        said("Pierogi is allergic to chicken."),
        said("Nadia's vet says Pierogi is allergic to chicken."),  # names Pierogi
        said("The user is allergic to cats."),  # the user's own: no name opens it
        said("Nadia sneezes around dogs.", "episode"),  # a turn
    ]
    kept = [r.memory_id for r in bearing_results(results, asked, question_words(asked), 0.3)]
    assert "Nadia is allergic to penicillin." not in kept
    assert "Zoë Park is allergic to shellfish." not in kept  # the longest name known
    assert kept == [
        r.memory_id for r in results if r.memory_id not in {results[3].memory_id,
                                                              results[4].memory_id}
    ]  # fmt: skip
    # a question naming no one known judges no statement so
    unnamed = "What is the dog allergic to?"
    assert len(bearing_results(results, unnamed, question_words(unnamed), 0.3)) == 9


def test_a_reply_sharing_a_word_alone_hands_back_no_statement() -> None:
    """A user's statement found through the assistant's reply to it bears when the reply
    does in meaning; "How long does it run?" shares "how long" with the question, and
    the project it asks about is no answer to it."""
    from memstream.queries.context.relevance import bearing_results, question_words

    asked = "How long is the learning rate warmup?"
    statement = _result("My manager put me on the Leeds office relocation project.")
    reply = _result("That is a lot to juggle. How long does it run?", similarity=0.12)
    statement = statement.model_copy(
        update={"memory_id": "s", "role": "user", "found_through": "r"}
    )
    reply = reply.model_copy(update={"memory_id": "r", "role": "assistant"})
    words = question_words(asked)
    assert [r.memory_id for r in bearing_results([reply, statement], asked, words, 0.3)] == ["r"]
    near = reply.model_copy(update={"similarity": 0.52})
    kept = bearing_results([near, statement], asked, words, 0.3)
    assert [r.memory_id for r in kept] == ["r", "s"]


def test_only_the_results_that_bear_most_have_their_entities_profiled() -> None:
    from memstream.queries.context.relevance import profiled_results, question_words

    asked = "What did the vet say about the dog's weight?"
    near = _result("Pierogi needs to lose two kilos", similarity=0.52, entities=("Pierogi",))
    by_words = _result("The vet says the dog's weight is fine", entities=("Dr Mills",))
    one_word = _result("Lukasz said hello", similarity=0.31, entities=("Lukasz",))
    named = _result("Biscuit went for a walk", entities=("Biscuit",))
    bearing = [near, by_words, one_word, named]
    profiled = profiled_results(bearing, asked, question_words(asked), 0.3)
    assert profiled == [near, by_words]
    assert (
        profiled_results(bearing, "Is Biscuit well?", question_words("Is Biscuit well?"), 0.3)[-1]
        is named
    )
    assert profiled_results(bearing, asked, question_words(asked), None) == bearing


def test_lines_that_bear_not_on_the_question_are_left_out_and_said_why() -> None:
    from memstream.queries.context.assembly import UNRELATED

    related = ContextLine("m1", "Maria helped me move to Porto.", T0, "episode", score=0.3)
    noise = ContextLine("m2", "Ana's cat Miso likes tuna.", T0, "fact", score=0.9,
                        unrelated=True)  # fmt: skip
    block = assemble({"facts": [noise], "temporal": [related]}, 500, count_tokens)
    assert block.context is not None and "Miso" not in block.context and "Porto" in block.context
    assert ("m2", "facts", UNRELATED) in block.left_out
    # the best line of those kept is what the relative floor is measured from
    assert all(reason != "scored under 0.4 of the best line" for _, _, reason in block.left_out)
    only_noise = assemble({"facts": [noise]}, 500, count_tokens)
    assert only_noise.context is None and only_noise.left_out == [("m2", "facts", UNRELATED)]


#: What Ana said in one session: eight turns, about her home, her family and her things.
ANA_SAID = ["Ana's cat Miso likes tuna.", "I moved to Porto last week.",
            "My sister Rita lives in Braga.", "The café on Rua Nova opens at eight.",
            "I bought a green bike.", "Rita's birthday is in March.",
            "The shop closes on Sundays.", "I water the tomatoes every morning."]  # fmt: skip


def _anas_memory(
    tmp_path: Path,
    consolidated: bool = False,
    sessions: Sequence[Sequence[str | tuple[str, str]]] | None = None,
) -> Any:
    """A searcher (MiniLM, a day after the last turn) over a store of what Ana said
    (``sessions``, a day apart; by default one session of ``ANA_SAID``; a turn given as
    (speaker, text) is someone else's), every memory with its vector; with the facts
    the local extractor reads in each session when ``consolidated``."""
    from memstream.adapters.embedders import MiniLMEmbedder, QueryEmbeddingCache
    from memstream.events.codec import encode
    from memstream.events.vocabulary import FactsConsolidated
    from memstream.jobs.embedding_agent import embed_values
    from memstream.queries.search.searcher import Searcher
    from memstream.storage.lance.store import ProjectionStore
    from memstream.storage.log_records import LogRecord
    from memstream.streams.projector import Projector
    from memstream.testing import FakeClock, message
    from memstream.text.extractor import LOCAL_EXTRACTOR, Turn, extract_facts

    values: list[bytes] = []
    last = T0
    for day, texts in enumerate(sessions or [ANA_SAID]):
        session = f"s{day + 1}"
        turns = [("Ana", t) if isinstance(t, str) else t for t in texts]
        said = [
            message(event_id=f"m{day}-{n}", user_id="ana", session_id=session, speaker=speaker,
                    content=text, occurred_at=T0 + timedelta(days=day, minutes=n))
            for n, (speaker, text) in enumerate(turns)
        ]  # fmt: skip
        values += [encode(m) for m in said]
        last = said[-1].occurred_at
        if consolidated:
            read = [Turn(m.event_id, m.speaker, "user", m.content, m.occurred_at) for m in said]
            facts = FactsConsolidated(
                event_id=f"c{day}", user_id="ana", session_id=session, through=last,
                extractor=LOCAL_EXTRACTOR, memories=extract_facts("ana", session, read),
                decided_at=last + timedelta(hours=1),
            )  # fmt: skip
            values.append(encode(facts))
    store = ProjectionStore(str(tmp_path / "projections"))
    embedder = MiniLMEmbedder(threads=1)
    embedded = [v for _, v in embed_values(values, embedder, T0)]
    Projector(store, "test", clock=FakeClock(T0)).apply(
        [LogRecord("e", "t", 0, i, T0, None, v) for i, v in enumerate([*values, *embedded])]
    )
    return Searcher(store, QueryEmbeddingCache(embedder), embedder.model,
                    clock=FakeClock(last + timedelta(days=1)))  # fmt: skip


def _block(searcher: Any, question: str, floor: float | None = 0.3) -> Any:
    from memstream.queries.context.gathering import context_candidates
    from memstream.queries.search.searcher import SearchRequest

    asked = SearchRequest(user_id="ana", query=question)
    found = context_candidates(searcher, asked, T0 + timedelta(days=1), None, floor)
    return assemble(found, 600, count_tokens)


def test_a_question_nothing_bears_on_gets_no_block(tmp_path: Path) -> None:
    """Eight memories, none about hotels, and vectors for them all (MiniLM): asked for
    the hotel booking reference (no shared word, cosines 0.04-0.24), there is no block;
    asked where Ana lives, there is."""
    from memstream.queries.context.assembly import UNRELATED

    searcher = _anas_memory(tmp_path)
    nothing = _block(searcher, "What is the hotel booking reference?")
    assert nothing.context is None
    assert nothing.left_out and {why for _, _, why in nothing.left_out} == {UNRELATED}
    assert _block(searcher, "What is the hotel booking reference?", floor=None).context
    home = _block(searcher, "Where does Ana live now?")  # MiniLM: every turn near (0.61-0.76)
    assert home.context is not None and "Porto" in home.context


def test_a_turn_of_a_conversation_the_named_speaker_had_no_part_in_is_no_answer(
    tmp_path: Path,
) -> None:
    """Kwame's "I don't drink alcohol any more" is near "Does Ana drink alcohol?" and
    said where Ana never spoke: no answer. Ben's turn in a conversation with Ana stays,
    though it does not name her; with no cut-off, everything the search found stays."""
    searcher = _anas_memory(
        tmp_path,
        sessions=[
            ["I stopped drinking alcohol in December."],
            [("Kwame", "I don't drink alcohol any more, ten months sober now.")],
            [("Ben", "You stopped drinking alcohol too, I heard."), "Yes, and I feel better."],
        ],
    )
    block = _block(searcher, "Does Ana drink alcohol?")
    assert block.context is not None
    assert "I stopped drinking alcohol in December." in block.context
    assert "You stopped drinking alcohol too" in block.context
    assert "ten months sober" not in block.context
    assert "ten months sober" in _block(searcher, "Does Ana drink alcohol?", None).context
    # a question that names no speaker keeps every speaker's turns
    assert "ten months sober" in _block(searcher, "Who stopped drinking alcohol?").context


def test_the_speakers_a_question_does_not_name_are_not_profiled_when_it_names_one() -> None:
    from memstream.queries.context.gathering import _unasked_speakers
    from memstream.queries.context.relevance import speakers_named

    results = [
        _result("I live in Lisbon.").model_copy(update={"speaker": "Ana"}),
        _result("You moved in May.").model_copy(update={"speaker": "Ben"}),
        _result("Welcome to Lisbon!"),  # the assistant: no speaker
    ]
    assert _unasked_speakers(results, speakers_named(results, "Where does Ana live?")) == {"ben"}
    assert _unasked_speakers(results, speakers_named(results, "Where do I live?")) == frozenset()


def test_a_fact_restating_a_turn_above_it_is_in_the_block_with_its_date(
    tmp_path: Path,
) -> None:
    """ "I moved to Porto last week" ranks above the fact read from it, so a search leaves
    the fact out as a restatement; the block states it all the same, with the week the
    turn meant (the turn's own date is a week later), and the turn beside it."""
    from memstream.queries.search.searcher import SearchRequest

    searcher = _anas_memory(tmp_path, consolidated=True)
    question = "When did Ana move to Porto?"
    results = searcher.search(SearchRequest(user_id="ana", query=question, k=50)).results
    dated = "Ana moved to Porto (the week of 2024-04-22)."
    assert results[0].content == "I moved to Porto last week."
    assert dated not in [r.content for r in results]  # said by the turn above it
    block = _block(searcher, question)
    facts = next(s for s in block.sections if s.name == "facts")
    assert dated in [line.text for line in facts.lines]
    assert "I moved to Porto last week." in block.context
    sister = _block(searcher, "Who is Ana's sister?")
    facts = next(s for s in sister.sections if s.name == "facts")
    assert facts.lines[0].text == "Ana's sister is Rita."


def test_a_question_about_a_life_is_answered_first_from_its_current_slot(
    tmp_path: Path,
) -> None:
    """Ana worked at Initech as a tester; a day later she starts at Northwind as a data
    engineer. Asked where she works and what she does there, a block opens with the new
    job and role (dated), never the superseded ones, ahead of whatever the search ranked
    first; asked who her sister is, with the sister."""
    sessions = [
        ["I work as a tester at Initech.", "The coffee machine there is broken again."],
        ["Big news!", "I start a new job at Northwind on Monday as a data engineer.",
         "My sister Rita is so proud.", "Can you help me plan my first week?"],
    ]  # fmt: skip
    searcher = _anas_memory(tmp_path, consolidated=True, sessions=sessions)
    for question in ["Where do I work and what do I do there?", "Where does Ana work?"]:
        block = _block(searcher, question)
        facts = next(s for s in block.sections if s.name == "facts")
        assert {line.text for line in facts.lines[:2]} == {
            "Ana works at Northwind (from 2024-05-06).",
            "Ana works as a data engineer (from 2024-05-06).",
        }, block.context
        assert "Ana works at Initech." not in block.context
        assert "Ana works as a tester." not in block.context
    sister = _block(searcher, "Who is my sister?")
    facts = next(s for s in sister.sections if s.name == "facts")
    assert facts.lines[0].text == "Ana's sister is Rita."
