"""The local extractor on user-and-assistant chats: statements become facts, requests
do not; names, numbers and sentences stay whole; dates follow each sentence's tense.
The whole hand-written corpus (``tests/fixtures/conversations``) gives no fact that is
a request, a broken name or a cut sentence, as ``bench/facts.py`` judges them."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memstream.text.extractor import Turn, extract_facts

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from corpus import read_corpus
from fact_defects import broken_names, is_cut, is_request, name_words

SATURDAY = datetime(2024, 6, 1, 9, 15, tzinfo=UTC)


def _facts(text: str, speaker: str | None = "Ana", at: datetime = SATURDAY) -> list[str]:
    turns = [Turn("e1", speaker, "user", text, at)]
    return [m.content for m in extract_facts("u", "s", turns)]


@pytest.mark.parametrize(
    "asked",
    [
        "Help me plan my week: two design reviews and a dentist appointment on Friday.",
        "Remind me what to pack for the Alps?",
        "Write three quiz questions about acids and bases for my students.",
        "Can you suggest plants that survive on my north-facing balcony?",
        "Hmm, do I need to restart the service?",
        "Let's keep chasing my dreams together.",
        "Which indentation do I prefer in Python code?",
        "Do I like green tea better than black tea?",
        "What do I usually prefer for breakfast?",
        "So, where do I live now that I moved?",
        "Which editor do I love",
    ],
)
def test_a_request_or_question_is_no_fact(asked: str) -> None:
    assert _facts(asked) == []


def test_a_lead_in_is_dropped_and_the_statement_after_it_kept() -> None:
    facts = _facts("Actually, I should correct something: I teach physics, not chemistry.")
    assert facts and all(not f.startswith("Ana should") for f in facts)
    assert any("physics" in f for f in facts)


@pytest.mark.parametrize(
    ("said", "whole"),
    [
        ("My brother Nils will help with the games.", "Nils"),
        ("My son Elias starts school in September.", "Elias"),
        ("My partner José is still in Porto.", "José"),
        ("I prefer SQLAlchemy 2.0 style with async sessions.", "SQLAlchemy 2.0 style"),
        ("I usually charge €1,200 for a cover.", "€1,200"),
        ("I mostly read Ursula K. Le Guin these days.", "Ursula K. Le Guin these days"),
    ],
)
def test_names_numbers_and_versions_stay_whole(said: str, whole: str) -> None:
    facts = _facts(said)
    assert any(whole in f for f in facts), facts


def test_each_sentence_dates_its_own_phrases_in_its_own_tense() -> None:
    # said on a Saturday: "accepted" is past, but the job starts the coming Monday
    work, start = _facts("I accepted the offer from Vestas! I start my new job on Monday.")
    assert work == "Ana works at Vestas."  # its sentence names no date
    assert "(on 2024-06-03)" in start


@pytest.mark.parametrize(
    ("said", "facts"),
    [
        ("I start a new job at Northwind next Monday as a data engineer.",
         ["Ana works at Northwind (from 2024-06-03).",
          "Ana works as a data engineer (from 2024-06-03)."]),
        ("I'm starting a new job at Northwind on Monday, as a backend developer.",
         ["Ana works at Northwind (from 2024-06-03).",
          "Ana works as a backend developer (from 2024-06-03)."]),
        ("Next week I start at Northwind Labs as their new platform lead.",
         ["Ana works at Northwind Labs (from the week of 2024-06-03).",
          "Ana works as a platform lead (from the week of 2024-06-03)."]),
        ("I'm joining Contoso next month as head of design.",
         ["Ana works at Contoso (from 2024-07).", "Ana works as a head of design (from 2024-07)."]),
        ("I just got hired by Contoso as a product designer.",
         ["Ana works at Contoso.", "Ana works as a product designer."]),
        ("I was promoted to senior analyst last month.",
         ["Ana works as a senior analyst (from 2024-05)."]),
        ("My new role is staff engineer.", ["Ana works as a staff engineer."]),
        ("I quit my job at Initech.", ["Ana left the job at Initech."]),
        ("I moved to Porto last week.", ["Ana moved to Porto (the week of 2024-05-20)."]),
        ("We moved to Bergen last week, the flat is still full of boxes.",
         ["Ana moved to Bergen (the week of 2024-05-20)."]),
        ("I start my new job tomorrow as a nurse, as you know.",
         ["Ana works as a nurse (from 2024-06-02)."]),
        ("I start my new job tomorrow, as you know.", []),  # no role, and an aside
    ],
)  # fmt: skip
def test_a_job_a_role_and_a_move_are_facts_in_their_slot_dated_by_their_sentence(
    said: str, facts: list[str]
) -> None:
    assert _facts(said) == facts


@pytest.mark.parametrize(
    "said", ["We moved to Kubernetes last month.", "I moved to Rust for the CLI."]
)
def test_moving_to_a_tool_is_no_move_of_house(said: str) -> None:
    turns = [Turn("e1", "Ana", "user", said, SATURDAY)]
    assert all(m.attribute != "lives_in" for m in extract_facts("u", "s", turns))


def test_a_fact_of_an_unnamed_user_starts_with_a_capital() -> None:
    assert _facts("We moved to Porto.", speaker=None) == ["The user moved to Porto."]
    assert _facts("I work at Initech.", speaker=None) == ["The user works at Initech."]


def test_a_new_job_supersedes_the_old_one_in_its_slot() -> None:
    turns = [
        Turn("e1", "Ana", "user", "I work as a tester at Initech.", SATURDAY),
        Turn("e2", "Ana", "user", "I start a new job at Northwind on Monday as a data engineer.",
             SATURDAY),
    ]  # fmt: skip
    slots = {
        (m.attribute, m.value): m.exclusive
        for m in extract_facts("u", "s", turns)
        if m.attribute in {"works_at", "occupation"}
    }
    assert slots == {
        ("works_at", "Initech"): True,
        ("occupation", "tester"): True,
        ("works_at", "Northwind"): True,
        ("occupation", "data engineer"): True,
    }  # exclusive: the later of each slot supersedes the earlier when applied


def test_what_an_unnamed_user_says_of_themself_is_kept_of_the_user() -> None:
    facts = _facts("I'm lactose intolerant.", speaker=None)
    assert facts == ["The user is lactose intolerant."]


def test_no_fact_of_the_corpus_is_a_request_a_broken_name_or_a_cut_sentence() -> None:
    corpus = read_corpus()
    by_id = {t["event_id"]: t for t in corpus.turns}
    speakers = name_words(t["speaker"] or "" for t in corpus.turns)
    sessions: dict[tuple[str, str], list[dict]] = {}
    for turn in corpus.turns:
        sessions.setdefault((turn["stream_id"], turn["session_id"]), []).append(turn)
    wrong, derived = [], 0
    for (user, session), turns in sessions.items():
        found = extract_facts(
            user,
            session,
            [
                Turn(
                    t["event_id"],
                    t["speaker"],
                    t["role"],
                    t["content"],
                    datetime.fromisoformat(t["timestamp"]),
                )
                for t in turns
            ],
        )
        derived += len(found)
        for memory in found:
            source = " ".join(by_id[e]["content"] for e in memory.source_event_ids)
            if (
                is_request(memory.content)
                or broken_names(memory.content, source, speakers)
                or is_cut(memory.content, source)
            ):
                wrong.append(memory.content)
    assert derived >= 100  # the corpus says a lot: an extractor finding nothing fails
    assert wrong == []


def test_a_nationality_is_nobody_a_pronoun_can_stand_for() -> None:
    turns = [
        Turn("e1", "François", "user", "My girlfriend Léa loves Japanese food.", SATURDAY),
        Turn("e2", "François", "user", "She hates coriander by the way.", SATURDAY),
    ]
    facts = [m.content for m in extract_facts("u", "s", turns)]
    assert any(f.startswith("Léa dislikes coriander") for f in facts), facts
    assert not any(f.startswith("Japanese") for f in facts)


def test_a_pronoun_stands_for_the_person_its_own_sentence_named_before_it() -> None:
    """A correction said in a later session of its own: "he" is Rui, named before it in
    the same sentence, not the person the session named last (none here)."""
    said = "That's wrong, Rui doesn't live in Coimbra anymore, he moved to Aveiro in April."
    moved = [m for m in extract_facts("u", "s", [Turn("e1", "Inês", "user", said, SATURDAY)])]
    assert [(m.content, m.subject, m.attribute) for m in moved] == [
        ("Rui moved to Aveiro (in 2024-04).", "Rui", "lives_in")
    ]
    assert moved[0].exclusive  # the home in Coimbra said before is superseded
    # a name after the pronoun is not who it stands for: the person named before is
    turns = [
        Turn("e1", "Inês", "user", "My brother Rui lives in Coimbra.", SATURDAY),
        Turn("e2", "Inês", "user", "He moved to Lisbon last month, Marta told me.", SATURDAY),
    ]
    facts = [m.content for m in extract_facts("u", "s", turns)]
    assert "Rui moved to Lisbon (in 2024-05)." in facts
    assert not any(f.startswith("Marta moved") for f in facts)


def _chat(text: str, speaker: str = "Priya") -> list[tuple[str, str]]:
    """What the extractor keeps of a user's turn answered by an assistant: (kind,
    content) pairs."""
    turns = [
        Turn("e1", speaker, "user", text, SATURDAY),
        Turn("e2", None, "assistant", "Understood.", SATURDAY),
    ]
    return [(m.kind, m.content) for m in extract_facts("u", "s", turns)]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "Always include security advice when I ask about auth.",
            "Priya's standing instruction: always include security advice when Priya asks "
            "about auth.",
        ),
        (
            "Never suggest Terragrunt to me, the team voted against it.",
            "Priya's standing instruction: never suggest Terragrunt to Priya, the team voted "
            "against it.",
        ),
        (
            "Please don't use unwrap in examples.",
            "Priya's standing instruction: don't use unwrap in examples.",
        ),
    ],
)
def test_a_standing_instruction_to_an_assistant_is_kept_as_a_procedure(
    said: str, kept: str
) -> None:
    assert _chat(said) == [("procedure", kept)]


def test_encouragement_between_friends_is_no_instruction() -> None:
    turns = [
        Turn("e1", "Jon", "user", "Never stop believing in your dreams.", SATURDAY),
        Turn("e2", "Gina", "user", "Always remember how far you've come!", SATURDAY),
        Turn("e3", "Jon", "user", "Don't worry about it.", SATURDAY),
    ]
    assert [m for m in extract_facts("u", "s", turns) if m.kind == "procedure"] == []


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("I maintain a Rust CLI called logslice.", "Priya maintains a Rust CLI called logslice."),
        ("I usually charge €1,200 for a cover.", "Priya usually charges €1,200 for a cover."),
        ("I switched to Postgres last week.", "Priya switched to Postgres last week"),
    ],
)
def test_a_verb_agrees_with_the_speaker_it_is_said_of(said: str, kept: str) -> None:
    assert any(content.startswith(kept) for _, content in _chat(said)), _chat(said)


def test_a_document_s_own_words_are_no_statement_of_the_user() -> None:
    manual = (
        "We recommend rotating the keys every 90 days. Our service keeps backups for a "
        "week. I live in Lisbon."
    )
    found = extract_facts("u", "doc", [Turn("c1", None, "document", manual, SATURDAY)])
    assert [(m.attribute, m.value) for m in found] == [("lives_in", "Lisbon")]  # the notes' I


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("We went with Argon2id, thanks.", "Priya and others went with Argon2id."),
        ("Our deploy target is Fly.io, by the way.", "Priya's deploy target is Fly.io."),
    ],
)
def test_an_aside_at_a_statement_s_end_is_left_out(said: str, kept: str) -> None:
    assert ("fact", kept) in _chat(said)


def test_a_statement_with_a_question_tag_is_still_a_statement() -> None:
    assert any("Porto" in fact for fact in _facts("I moved to Porto last week, right?"))
    assert _facts("I prefer tabs over spaces, don't I?")
