"""Time phrases in queries, resolved against a fixed ``now``."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memstream.text.time_phrases import find_spans, query_range

NOW = datetime(2024, 3, 14, 15, 0, tzinfo=UTC)  # a Thursday


def d(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("what did I do yesterday", "2024-03-13", "2024-03-14"),
        ("plans for tomorrow", "2024-03-15", "2024-03-16"),
        ("what happened last week", "2024-03-04", "2024-03-11"),
        ("this week's meetings", "2024-03-11", "2024-03-18"),
        ("what did we discuss in May", "2023-05-01", "2023-06-01"),  # the last May that began
        ("in March", "2024-03-01", "2024-04-01"),
        ("last month", "2024-02-01", "2024-03-01"),
        ("last year", "2023-01-01", "2024-01-01"),
        ("back in 2021", "2021-01-01", "2022-01-01"),
        ("three days ago", "2024-03-11", "2024-03-12"),
        ("last Friday", "2024-03-08", "2024-03-09"),
        ("next Monday", "2024-03-18", "2024-03-19"),
        ("on 2023-12-24", "2023-12-24", "2023-12-25"),
        ("May 7, 2023", "2023-05-07", "2023-05-08"),
    ],
)
def test_phrases(query: str, start: str, end: str) -> None:
    assert query_range(query, NOW) == (d(start), d(end))


@pytest.mark.parametrize("query", ["what is my dog's name", "may I ask about Mayfair", "13 cats"])
def test_no_phrase_no_range(query: str) -> None:
    assert query_range(query, NOW) is None


SATURDAY = datetime(2024, 4, 13, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("said", "label"),
    [
        ("I start my new job on Monday.", "2024-04-15"),  # what is to come: the next one
        ("I started my new job on Monday.", "2024-04-08"),  # done: the last one
        ("I will see her on Friday.", "2024-04-19"),
        ("We're flying to Rome on Sunday.", "2024-04-14"),
        ("I went hiking on Friday.", "2024-04-12"),
        ("I need to leave on Friday.", "2024-04-19"),  # "need" is no past tense
        ("I'm running the marathon in October.", "2024-10"),
        ("I'll be in Lisbon in March.", "2025-03"),
        ("I met Ana in March.", "2024-03"),
        ("We moved in on Saturday.", "2024-04-13"),  # today is the last Saturday
    ],
)
def test_a_bare_weekday_or_month_is_resolved_by_the_sentence_s_tense(said: str, label: str) -> None:
    [span] = find_spans(said, SATURDAY)
    assert span.label == label


@pytest.mark.parametrize(
    ("said", "on", "label"),
    [
        ("The recital is on January 25.", "2024-12-21", "2025-01-25"),  # the nearest
        ("On December 20 I went skiing.", "2025-01-05", "2024-12-20"),
        ("Her birthday is on June 12.", "2025-05-10", "2025-06-12"),
        # a past tense says nothing of the date: the trip booked is still to come
        ("We booked the Lisbon trip for 12 May.", "2024-03-04", "2024-05-12"),
        ("I'll start on 3 April.", "2024-04-13", "2025-04-03"),  # looking ahead: not gone
        ("We're planning the wedding for next September.", "2024-10-05", "2025-09"),
        ("We're moving next September.", "2024-08-05", "2024-09"),
        ("We went to Porto last March.", "2025-03-10", "2024-03"),
    ],
)
def test_a_date_without_its_year_is_the_nearest_one_in_the_sentence_s_tense(
    said: str, on: str, label: str
) -> None:
    [span] = find_spans(said, datetime.fromisoformat(on).replace(tzinfo=UTC))
    assert span.label == label


@pytest.mark.parametrize(
    ("said", "on", "start", "end"),
    [
        ("I bought Salomon boots last autumn.", "2025-03-03", "2024-09-01", "2024-12-01"),
        ("Next spring we want to do the garden.", "2024-08-03", "2025-03-01", "2025-06-01"),
        ("I'm illustrating a picture book this autumn.", "2025-07-05", "2025-09-01", "2025-12-01"),
        ("We went skiing this winter.", "2025-01-20", "2024-12-01", "2025-03-01"),
        ("This summer was hot.", "2024-11-10", "2024-06-01", "2024-09-01"),
        ("I will travel in the winter.", "2024-10-01", "2024-12-01", "2025-03-01"),
        ("In the summer I swam a lot.", "2024-10-01", "2024-06-01", "2024-09-01"),
    ],
)
def test_a_season_is_its_three_months_in_the_sentence_s_tense(
    said: str, on: str, start: str, end: str
) -> None:
    [span] = find_spans(said, datetime.fromisoformat(on).replace(tzinfo=UTC))
    assert (span.start.date().isoformat(), span.end.date().isoformat()) == (start, end)
    assert span.label == start[:4]


def test_fall_the_verb_is_no_season() -> None:
    assert find_spans("I fall asleep early.", NOW) == []
