"""Which questions ask about a life's slots (work, home, a relation), and of whom."""

from __future__ import annotations

import pytest

from memstream.queries.context.life_questions import (
    HOME_ATTRIBUTES,
    WORK_ATTRIBUTES,
    LifeQuestion,
    life_question,
)

NONE: frozenset[str] = frozenset()


@pytest.mark.parametrize(
    ("query", "asked"),
    [
        ("Where do I work and what do I do there?", LifeQuestion(WORK_ATTRIBUTES, NONE, None)),
        ("Where does Ana work?", LifeQuestion(WORK_ATTRIBUTES, NONE, "Ana")),
        ("What do I do for a living?", LifeQuestion(WORK_ATTRIBUTES, NONE, None)),
        ("who do I work for", LifeQuestion(WORK_ATTRIBUTES, NONE, None)),
        ("What's my job?", LifeQuestion(WORK_ATTRIBUTES, NONE, None)),
        ("Where do I live?", LifeQuestion(HOME_ATTRIBUTES, NONE, None)),
        ("Where did Søren move?", LifeQuestion(HOME_ATTRIBUTES, NONE, "Søren")),
        ("where did I move to after Lisbon", LifeQuestion(HOME_ATTRIBUTES, NONE, None)),
        ("Who is my sister?", LifeQuestion(NONE, frozenset({"sister"}), None)),
        ("Who is Ana's manager now?", LifeQuestion(NONE, frozenset({"manager"}), "Ana")),
        ("What is my partner's name?", LifeQuestion(NONE, frozenset({"partner"}), None)),
        ("Who are my friends?", LifeQuestion(NONE, frozenset({"friend"}), None)),
    ],
)
def test_a_question_about_work_home_or_family_names_its_slots_and_whose(
    query: str, asked: LifeQuestion
) -> None:
    assert life_question(query) == asked


@pytest.mark.parametrize(
    "query",
    [
        "When did Ana move to Porto?",  # when, not where: the search answers it
        "What is the hotel booking reference?",
        "Who is my favourite author?",  # no relation
        "What time is it?",
        "Where did I move the config file?",  # a thing moved, not a home
        "Can you help me with my job application?",
        "What is Ana's role in the migration?",
        "Which database does Priya's app use now?",
    ],
)
def test_any_other_question_asks_of_no_slot(query: str) -> None:
    assert life_question(query) is None
