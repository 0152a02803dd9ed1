"""Time phrases in queries, resolved against a fixed ``now``."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memstream.projections.timephrases import query_range

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
