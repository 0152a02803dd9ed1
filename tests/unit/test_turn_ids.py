"""Hooks and adapters lose no turn: the ids of what they store stay unique at any
length, the same words said in two turns are two turns, a session of any name gets an
identifier of its own, and text a door would refuse is repaired, not dropped (pure)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.transcripts import entry

from memstream.events.codec import from_document
from memstream.events.identifier_rules import IDENTIFIER_PATTERN, bounded_id, identifier_for
from memstream.events.text_limits import MESSAGE_CHARS, trimmed, well_formed
from memstream.hooks.hosts import HOSTS, Act
from memstream.hooks.transcripts import read_transcript
from memstream.hooks.turns import session_end_event, turn_events

NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
BOTH = (Act.STORE_PROMPT, Act.STORE_ANSWER)


def events(host: str, **payload: str) -> list[dict[str, object]]:
    return turn_events(HOSTS[host], BOTH, payload, user_id="dev", project_id=None, now=NOW)


def test_codex_turns_of_a_long_session_id_keep_ids_of_their_own() -> None:
    """A session id of 250 characters: every turn's ids differ (they were cut to 200
    characters, so every turn had the first turn's id and only it was kept)."""
    session = "s" * 250
    first = events(
        "codex", session_id=session, turn_id="t-1", prompt="a", last_assistant_message="b"
    )
    second = events(
        "codex", session_id=session, turn_id="t-2", prompt="a", last_assistant_message="b"
    )
    ids = [e["event_id"] for e in first + second]
    assert len(set(ids)) == 4 and all(len(str(i)) <= 200 for i in ids)
    for event in first + second:
        from_document(event)  # a valid event, its session an identifier


def test_gemini_says_the_same_words_twice_and_both_are_kept() -> None:
    said = {"session_id": "g", "prompt": "run the tests", "prompt_response": "all green"}
    once = events("gemini", timestamp="2026-11-29T09:00:00.000Z", **said)
    again = events("gemini", timestamp="2026-11-29T09:05:00.000Z", **said)
    repeated = events("gemini", timestamp="2026-11-29T09:00:00.000Z", **said)
    assert {e["event_id"] for e in once}.isdisjoint(e["event_id"] for e in again)
    assert [e["event_id"] for e in once] == [e["event_id"] for e in repeated]  # fired twice


def test_a_lone_surrogate_is_repaired_and_a_long_prompt_cut_with_a_note() -> None:
    [prompt] = turn_events(HOSTS["codex"], (Act.STORE_PROMPT,),
                           {"session_id": "s", "turn_id": "t", "prompt": "caf\ud800e " * 3},
                           user_id="dev", project_id=None, now=NOW)  # fmt: skip
    assert prompt["content"] == "caf\ufffde " * 3
    [long] = turn_events(HOSTS["codex"], (Act.STORE_PROMPT,),
                         {"session_id": "s", "turn_id": "t", "prompt": "x" * 150_000},
                         user_id="dev", project_id=None, now=NOW)  # fmt: skip
    content = str(long["content"])
    assert len(content) == MESSAGE_CHARS and content.endswith("characters more, not kept]")
    from_document(prompt)
    from_document(long)


def test_a_session_end_of_a_long_session_names_it() -> None:
    ended = session_end_event(HOSTS["codex"], {"session_id": "é" * 300}, user_id="dev",
                              project_id=None, now=NOW)  # fmt: skip
    assert ended is not None
    from_document(ended)


@given(st.text(min_size=1, max_size=400), st.text(min_size=1, max_size=400))
def test_any_two_names_have_two_identifiers_that_keep_the_rule(a: str, b: str) -> None:

    for name in (a, b):
        assert re.match(IDENTIFIER_PATTERN, identifier_for(name, "x-"))
    assert (identifier_for(a) == identifier_for(b)) == (a == b)
    assert (bounded_id("h", a, "t") == bounded_id("h", b, "t")) == (a == b)
    assert len(bounded_id("h", a, "t")) <= 200


def test_a_name_that_keeps_the_rule_is_its_own_identifier() -> None:
    assert identifier_for("chat-1") == "chat-1"
    assert identifier_for("019a-uuid", "codex-") == "codex-019a-uuid"
    assert identifier_for("my chat") != identifier_for("my-chat") == "my-chat"
    assert re.match(IDENTIFIER_PATTERN + r"\Z", identifier_for("chat-1\n"))  # no newline kept


def test_well_formed_text_joins_pairs_and_replaces_lone_halves() -> None:
    assert well_formed("\ud83d\ude00 ok") == "😀 ok"
    assert well_formed("a\udc00b\ud800") == "a\ufffdb\ufffd"
    assert trimmed("short") == "short"


@pytest.mark.parametrize("host", ["codex", "gemini", "cursor"])
def test_every_hosts_turns_of_a_long_session_keep_ids_of_their_own(host: str) -> None:
    """A session name of 300 characters, two turns: four events of their own, each a
    valid event of one session (its identifier within the rule)."""
    spec = HOSTS[host]
    said: list[dict[str, object]] = []
    for n in (1, 2):
        payload = {spec.session_field: "é" * 300, "prompt": f"prompt {n}", "timestamp": f"t{n}"}
        if spec.turn_field:
            payload[spec.turn_field] = f"turn-{n}"
        if spec.answer_field:
            payload[spec.answer_field] = f"answer {n}"
        said += turn_events(spec, BOTH, payload, user_id="dev", project_id=None, now=NOW)
    assert len({e["event_id"] for e in said}) == len(said) == 4
    assert len({e["session_id"] for e in said}) == 1
    for event in said:
        from_document(event)


def test_a_claude_code_transcript_line_with_a_lone_surrogate_is_kept_repaired() -> None:
    line = entry("user", "u" * 300, "caf\ud800 order?", 1)
    data = json.dumps(line).encode() + b"\n"  # JSON escapes the surrogate, as a host may
    read = read_transcript(data, 0, user_id="dev", session_id="s", project_id=None)
    [kept] = read.messages
    assert kept["content"] == "caf\ufffd order?" and len(str(kept["event_id"])) <= 200
    from_document(kept)
