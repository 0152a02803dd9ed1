"""The lifecycle's pure parts: decay, merging state and sessions, closing, extraction."""

from __future__ import annotations

import dataclasses
import itertools
import math
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstream.events.vocabulary import FactsConsolidated
from memstream.policies.decay import (
    DecayCandidate,
    decay_decisions,
    decayed_confidence,
    is_stable_fact,
)
from memstream.projections.derived import slot_of
from memstream.projections.memory_state import (
    StateChange,
    effective_confidence,
    is_hidden,
    merge_states,
    slot_links,
)
from memstream.projections.sessions import (
    SessionTouch,
    accept_consolidations,
    coalesce_touches,
    merge_sessions,
    sessions_to_close,
)
from memstream.text.extractor import Turn, extract_facts
from memstream.text.sentences import _sentences

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("confidence", "rate", "days", "accesses", "expected"),
    [
        (0.9, 0.02, 60.0, 0, 0.9 * math.exp(-0.02 * 60**0.8)),
        (1.0, 0.02, 0.0, 0, 1.0),
        (0.8, 0.03, 10.0, 20, 0.8 * math.exp(-0.03 * 10**0.8) + 0.05 * math.log(2)),
        (0.5, 0.01, 365.0, 100, 0.5 * math.exp(-0.01 * 365**0.8) + 0.05 * math.log(6)),
        (1.0, 0.0, 1000.0, 400, 1.0),  # capped at 1
        (0.7, 0.02, -3.0, 0, 0.7),  # accessed "after" now counts as now
    ],
)
def test_decay_matches_the_formula(
    confidence: float, rate: float, days: float, accesses: int, expected: float
) -> None:
    assert abs(decayed_confidence(confidence, rate, days, accesses) - min(1.0, expected)) < 1e-9


def _candidate(memory_id: str, state: dict[str, Any] | None = None, **kw: Any) -> DecayCandidate:
    fields: dict[str, Any] = {
        "kind": "fact",
        "confidence": 0.9,
        "occurred_at": T0,
        "access_count": 0,
        "last_accessed": None,
        "state": state,
    }
    fields.update(kw)
    return DecayCandidate(memory_id=memory_id, **fields)


def _state(**kw: Any) -> dict[str, Any]:
    row = StateChange("m", "u", **kw).row()
    return row


def test_decay_skips_protected_forgotten_superseded_and_episodes() -> None:
    now = T0 + timedelta(days=60)
    decayed, pruned = decay_decisions(
        "u",
        [
            _candidate("plain"),
            _candidate("protected", _state(protected_at=T0)),
            _candidate("forgotten", _state(forgotten_at=T0, forgotten_reason="forgotten")),
            _candidate("old", _state(valid_until=T0, superseded_by="new")),
            _candidate("episode", kind="episode"),
            _candidate("accessed", access_count=5, last_accessed=T0 + timedelta(days=50)),
        ],
        now,
    )
    assert decayed is not None and pruned is None
    values = {u.memory_id: u.confidence for u in decayed.updates}
    assert set(values) == {"plain", "accessed"}
    assert abs(values["plain"] - 0.9 * math.exp(-0.02 * 60**0.8)) < 1e-9
    expected = 0.9 * math.exp(-0.02 * 10**0.8) + 0.05 * math.log1p(5 / 20)
    assert abs(values["accessed"] - expected) < 1e-9


@pytest.mark.parametrize(
    ("attribute", "content", "stable"),
    [
        (None, "Ana is allergic to shellfish.", True),
        ("partner", "the user's partner is José.", True),
        ("sister:zoë", "the user's sister is Zoë.", True),
        ("lives_in", "the user lives in Porto.", True),
        (None, "Ana's birthday is on 3 March.", True),
        (None, "Ana plans to run the Porto marathon in October.", False),
        ("works_at", "the user works at Stripe.", False),
        (None, "Ana feels tired this week.", False),
    ],
)
def test_stable_facts_keep_their_confidence_while_states_and_plans_fade(
    attribute: str | None, content: str, stable: bool
) -> None:
    """Two years unused: an allergy, a relation, a home keep what they were written
    with (until a newer fact supersedes them); a plan or a state fades and is pruned."""
    assert is_stable_fact("fact", attribute, content) is stable
    candidate = _candidate("m", stable=is_stable_fact("fact", attribute, content))
    decayed, pruned = decay_decisions("u", [candidate], T0 + timedelta(days=730))
    assert (decayed is None and pruned is None) is stable
    assert not is_stable_fact("opinion", attribute, content)  # facts only


def test_a_standing_instruction_keeps_its_confidence_and_other_procedures_fade() -> None:
    instruction = "Priya's standing instruction: always include security advice."
    assert is_stable_fact("procedure", "instruction:always include security advice", instruction)
    assert not is_stable_fact("procedure", None, "To deploy, run make release.")


def test_a_fact_searches_keep_returning_is_not_pruned_and_later_uses_do_not_count() -> None:
    """Decay counts from the last use: a fact still asked about keeps its confidence
    while an unused one of the same age is pruned; a job run for an earlier time
    ignores uses made after it."""
    now = T0 + timedelta(days=900)
    asked = _candidate("asked", access_count=3, last_accessed=now - timedelta(days=2))
    decayed, pruned = decay_decisions("u", [_candidate("unused"), asked], now)
    assert pruned is not None and pruned.memory_ids == ["unused"]
    assert decayed is not None
    assert {u.memory_id: u.confidence for u in decayed.updates}["asked"] > 0.8
    later = _candidate("later", access_count=3, last_accessed=now + timedelta(days=1))
    _, pruned = decay_decisions("u", [later], now)
    assert pruned is not None and pruned.memory_ids == ["later"]


def test_protected_memories_never_decay_however_long() -> None:
    for days in (1, 100, 10_000):
        decayed, pruned = decay_decisions(
            "u", [_candidate("p", _state(protected_at=T0))], T0 + timedelta(days=days)
        )
        assert decayed is None and pruned is None
    assert effective_confidence(0.4, _state(protected_at=T0, confidence=0.1,
                                             confidence_as_of=T0)) == 1.0  # fmt: skip


def test_decay_prunes_under_the_threshold_and_is_the_same_when_run_twice() -> None:
    now = T0 + timedelta(days=3000)
    first = decay_decisions("u", [_candidate("a"), _candidate("b", confidence=1.0)], now)
    again = decay_decisions("u", [_candidate("a"), _candidate("b", confidence=1.0)], now)
    assert first == again
    assert first[1] is not None and first[1].memory_ids == ["a", "b"]


_TIMES = st.sampled_from([T0 + timedelta(hours=h) for h in range(6)])
_CHANGES = st.lists(
    st.one_of(
        st.builds(
            lambda at, by: StateChange("m1", "u", valid_until=at, superseded_by=by),
            _TIMES,
            st.sampled_from(["x", "y", "z"]),
        ),
        st.builds(
            lambda at: StateChange("m1", "u", forgotten_at=at, forgotten_reason="forgotten"),
            _TIMES,
        ),
        st.builds(lambda at: StateChange("m1", "u", protected_at=at), _TIMES),
        st.builds(
            lambda at, c: StateChange("m1", "u", confidence=c, confidence_as_of=at),
            _TIMES,
            st.sampled_from([0.1, 0.5, 0.9]),
        ),
    ),
    min_size=1,
    max_size=8,
)


@given(_CHANGES, st.randoms())
def test_state_rows_do_not_depend_on_event_order_or_repeats(
    changes: list[StateChange], rnd: Any
) -> None:
    shuffled = list(changes)
    rnd.shuffle(shuffled)
    once = merge_states({}, changes)
    other = merge_states({}, shuffled + shuffled[:2])
    # applied in two batches: the second batch merges into the stored rows
    half = len(changes) // 2
    stored = merge_states({}, changes[:half])
    twice = {**stored, **merge_states(stored, changes[half:])}
    assert once == other == twice


_TOUCH = st.one_of(
    st.builds(lambda at: SessionTouch("u", "s", first_at=at, last_at=at, log_partition=1), _TIMES),
    st.builds(lambda at: SessionTouch("u", "s", ended_at=at), _TIMES),
    st.builds(
        lambda at, why: SessionTouch("u", "s", closed_through=at, closed_reason=why),
        _TIMES,
        st.sampled_from(["gap", "idle"]),
    ),
)
_TOUCHES = st.lists(_TOUCH, min_size=1, max_size=8)


@given(_TOUCHES, st.randoms())
def test_session_rows_do_not_depend_on_event_order_or_repeats(
    touches: list[SessionTouch], rnd: Any
) -> None:
    shuffled = list(touches)
    rnd.shuffle(shuffled)
    assert merge_sessions({}, touches) == merge_sessions({}, shuffled + shuffled[:3])


_TWO_SESSIONS = st.lists(
    st.builds(
        lambda touch, session: dataclasses.replace(touch, session_id=session),
        _TOUCH,
        st.sampled_from(["s1", "s2"]),
    ),
    max_size=12,
)


@given(_TWO_SESSIONS, _TWO_SESSIONS)
def test_coalesced_touches_merge_to_the_rows_every_touch_gives(
    earlier: list[SessionTouch], touches: list[SessionTouch]
) -> None:
    stored = merge_sessions({}, earlier)
    coalesced = coalesce_touches(touches)
    assert len(coalesced) == len({t.session_id for t in touches})
    assert merge_sessions(stored, coalesced) == merge_sessions(stored, touches)


def test_slot_supersession_follows_event_time_not_arrival() -> None:
    facts = [
        {"memory_id": "lisbon", "occurred_at": T0, "slot": "u|vitaly|lives_in"},
        {"memory_id": "porto", "occurred_at": T0 + timedelta(days=30), "slot": "u|vitaly|lives_in"},
        {"memory_id": "braga", "occurred_at": T0 + timedelta(days=10), "slot": "u|vitaly|lives_in"},
    ]
    for order in itertools.permutations(facts):
        # the chain from any arrival order, merged incrementally, is the same
        stored: dict[str, dict[str, Any]] = {}
        for n in range(1, 4):
            stored.update(merge_states(stored, slot_links("u", list(order[:n]))))
        by_id = {r["memory_id"]: r for r in stored.values()}
        assert by_id["lisbon"]["superseded_by"] == "braga"
        assert by_id["braga"]["superseded_by"] == "porto"
        assert by_id["braga"]["valid_until"] == T0 + timedelta(days=30)
        assert "porto" not in by_id and not is_hidden(by_id.get("porto"))


def _session(**kw: Any) -> dict[str, Any]:
    row = SessionTouch("u", kw.pop("session_id", "s1"), log_partition=0, **kw).row()
    return row


@pytest.mark.parametrize(
    ("rows", "watermark", "now", "reasons"),
    [
        # still talking: nothing closes
        ([_session(first_at=T0, last_at=T0, log_received_at=T0)], T0, T0, {}),
        # the partition's event time moved past the gap
        (
            [_session(first_at=T0, last_at=T0, log_received_at=T0)],
            T0 + timedelta(minutes=31),
            T0,
            {"s1": "gap"},
        ),
        # a newer session of the same user
        (
            [
                _session(first_at=T0, last_at=T0, log_received_at=T0),
                _session(
                    session_id="s2",
                    first_at=T0 + timedelta(minutes=5),
                    last_at=T0 + timedelta(minutes=5),
                    log_received_at=T0,
                ),
            ],
            T0 + timedelta(minutes=5),
            T0,
            {"s1": "new_session"},
        ),
        # ended explicitly
        (
            [_session(first_at=T0, last_at=T0, ended_at=T0, log_received_at=T0)],
            T0,
            T0,
            {"s1": "ended"},
        ),
        # quiet partition: processing time runs out
        (
            [_session(first_at=T0, last_at=T0, log_received_at=T0)],
            T0,
            T0 + timedelta(minutes=30),
            {"s1": "idle"},
        ),
        # already closed through its last turn
        (
            [_session(first_at=T0, last_at=T0, closed_through=T0, log_received_at=T0)],
            T0 + timedelta(days=1),
            T0 + timedelta(days=1),
            {},
        ),
    ],
)
def test_sessions_close_by_the_rules(
    rows: list[dict[str, Any]], watermark: datetime, now: datetime, reasons: dict[str, str]
) -> None:
    closed = sessions_to_close(
        rows, {0: watermark}, now, timedelta(minutes=30), timedelta(minutes=30)
    )
    assert {c.session_id: c.reason for c in closed} == reasons
    for c in closed:
        assert c.through == T0


def test_a_run_as_of_a_time_uses_it_as_the_event_clock_too() -> None:
    """``jobs consolidate --now T``: the user's last session closes once its last turn
    is a gap before T, though the watermark has not moved and the turn arrived just now
    (it would stay open for the worker's timer at the same processing time)."""
    last = _session(first_at=T0, last_at=T0, log_received_at=T0 + timedelta(days=9))
    at = T0 + timedelta(hours=3)
    gap, idle = timedelta(minutes=30), timedelta(minutes=30)
    assert sessions_to_close([last], {0: T0}, at, gap, idle) == []
    (closed,) = sessions_to_close([last], {0: T0}, at, gap, idle, event_now=at)
    assert (closed.reason, closed.through, closed.closed_at) == ("gap", T0, at)
    assert sessions_to_close([last], {}, at, gap, idle, event_now=at)[0].reason == "gap"
    too_soon = T0 + timedelta(minutes=29)
    assert sessions_to_close([last], {0: T0}, too_soon, gap, idle, event_now=too_soon) == []


def test_a_second_consolidation_of_the_same_turns_is_dropped() -> None:
    def event(through: datetime, extractor: str) -> FactsConsolidated:
        return FactsConsolidated(
            event_id=f"c{extractor}", user_id="u", session_id="s", through=through,
            extractor=extractor, decided_at=T0,
        )  # fmt: skip

    accepted, touches = accept_consolidations(
        {}, [event(T0, "a"), event(T0, "b"), event(T0 + timedelta(hours=1), "c")]
    )
    assert [e.extractor for e in accepted] == ["a", "c"]
    assert touches[-1].consolidated_through == T0 + timedelta(hours=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I live in Lisbon and I work at Acme Corp.",
            {("lives_in", "Lisbon"), ("works_at", "Acme Corp")},
        ),
        ("I just moved to Porto!", {("lives_in", "Porto")}),
        ("I started a new job at Blue Fin Labs.", {("works_at", "Blue Fin Labs")}),
        ("I am a teacher.", {("occupation", "teacher")}),
        (  # the relation, and what the rest of the sentence says
            "My sister Ana is visiting.",
            {
                ("sister:ana", "Ana"),
                ("said:vitaly's sister ana is visiting.", "Vitaly's sister Ana is visiting."),
            },
        ),
        (
            "I love hiking in the mountains.",
            {("likes:hiking in the mountains", "hiking in the mountains")},
        ),
        ("My favorite book is Dune.", {("favorite:book", "Dune")}),
        ("I prefer short answers.", {("prefers:short answers", "short answers")}),
        ("I'm allergic to shellfish.", {("allergy:shellfish", "shellfish")}),
        ("Sounds like fun!", set()),
        ("It's like a little oasis of calm.", set()),
    ],
)
def test_local_extractor_cases(text: str, expected: set[tuple[str, str]]) -> None:
    facts = extract_facts("u", "s", [Turn("e1", "Vitaly", "user", text, T0)])
    assert {(f.attribute, f.value) for f in facts} == expected
    for f in facts:
        assert f.source_event_ids == ["e1"] and f.subject == "Vitaly"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I live in Lisbon and I work as a nurse at Santa Maria hospital.",
            {
                ("lives_in", "Lisbon"),
                ("occupation", "nurse"),
                ("works_at", "Santa Maria hospital"),
            },
        ),
        (
            "Great. I also quit the hospital; I now work as a software tester at Farfetch.",
            {
                ("left_job", "hospital"),
                ("occupation", "software tester"),
                ("works_at", "Farfetch"),
            },
        ),
        ("My cat Miso sleeps on my desk.", {("cat:miso", "Miso")}),
    ],
)
def test_jobs_joined_by_and_or_led_by_now_and_also(
    text: str, expected: set[tuple[str, str]]
) -> None:
    facts = extract_facts("u", "s", [Turn("e1", "Maya", "user", text, T0)])
    assert {(f.attribute, f.value) for f in facts if f.attribute != "said"} >= expected
    assert all(f.subject == "Maya" for f in facts)


def test_a_new_job_supersedes_the_old_one_by_slot() -> None:
    said = [
        ("e1", "I live in Lisbon and I work as a nurse at Santa Maria hospital.", T0),
        ("e2", "I also quit the hospital; I now work as a software tester at Farfetch.",
         T0 + timedelta(days=20)),
    ]  # fmt: skip
    facts = [
        f
        for event_id, text, at in said
        for f in extract_facts("u", event_id, [Turn(event_id, "Maya", "user", text, at)])
    ]
    members = [
        {"memory_id": f.memory_id, "occurred_at": f.occurred_at, "slot": slot_of("u", f)}
        for f in facts
    ]
    by_id = {r["memory_id"]: r for r in merge_states({}, slot_links("u", members)).values()}
    ids = {(f.attribute, f.value): f.memory_id for f in facts}
    assert (
        by_id[ids[("occupation", "nurse")]]["superseded_by"]
        == ids[("occupation", "software tester")]
    )
    assert (
        by_id[ids[("works_at", "Santa Maria hospital")]]["superseded_by"]
        == ids[("works_at", "Farfetch")]
    )
    assert ids[("occupation", "software tester")] not in by_id  # the current job stands


@pytest.mark.parametrize(
    ("before", "after", "tool"),
    [
        ("We track experiments in Weights & Biases for now.",
         "We moved from Weights & Biases to MLflow for experiment tracking.", "weights biases"),
        ("The backend is FastAPI and we use SQLite for now.",
         "Update: we switched from SQLite to Postgres yesterday.", "sqlite"),
        ("I'm using Jenkins at work.", "We finally migrated from our old Jenkins setup to "
         "GitHub Actions.", "jenkins"),
    ],
)  # fmt: skip
def test_a_switch_in_a_working_session_supersedes_what_it_replaced(
    before: str, after: str, tool: str
) -> None:
    said = [("e1", before, T0), ("e2", after, T0 + timedelta(days=14))]
    facts = [
        f
        for event_id, text, at in said
        for f in extract_facts("u", event_id, [Turn(event_id, "Mei", "user", text, at)])
    ]
    used, switched = (
        next(f for f in facts if event_id in f.source_event_ids and f.attribute == f"uses:{tool}")
        for event_id in ("e1", "e2")
    )
    members = [
        {"memory_id": f.memory_id, "occurred_at": f.occurred_at, "slot": slot_of("u", f)}
        for f in facts
    ]
    by_id = {r["memory_id"]: r for r in merge_states({}, slot_links("u", members)).values()}
    assert by_id[used.memory_id]["superseded_by"] == switched.memory_id
    assert switched.memory_id not in by_id  # what they use now stands


@pytest.mark.parametrize(
    "text",
    ["I moved from Lisbon to Porto in May.", "We moved from the suburbs to the city.",
     "We went from Madrid to Paris by train."],
)  # fmt: skip
def test_a_move_between_places_is_no_change_of_tools(text: str) -> None:
    facts = extract_facts("u", "s", [Turn("e1", "Mei", "user", text, T0)])
    assert not [f for f in facts if f.attribute.startswith("uses:")]


@pytest.mark.parametrize(
    ("speaker", "text", "expected"),
    [
        (
            "John",
            "I typically hold it for 30-60 seconds. It really helps with building strength!",
            "John typically holds it for 30-60 seconds.",
        ),
        (
            "Tim",
            "Yeah! Just finished a book and I started the next one; my shelf is full.",
            "Tim started the next one. Tim's shelf is full.",
        ),
        (
            "Melanie",
            "We went camping with the kids last week and our tent leaked.",
            "Melanie and others went camping with the kids last week and Melanie's tent leaked"
            " (the week of 2024-02-19).",
        ),
        ("Jo", "Thanks so much! I'm so glad you liked it. How are you?", None),
        ("Jo", "I love that you did that for your sister.", None),
        ("Jo", "Do you think I should go?", None),
    ],
)
def test_what_a_speaker_says_of_themself_is_told_in_the_third_person(
    speaker: str, text: str, expected: str | None
) -> None:
    facts = extract_facts("u", "s", [Turn("e1", speaker, "user", text, T0)])
    said = [f for f in facts if f.attribute is not None and f.attribute.startswith("said:")]
    assert [f.content for f in said] == ([expected] if expected else [])
    for f in said:
        assert f.source_event_ids == ["e1"] and f.subject == speaker and "statement" in f.tags


def test_extractor_resolves_pronouns_and_relative_dates() -> None:
    turns = [
        Turn("e1", "Vitaly", "user", "Maria lives in Berlin. She works at Siemens.", T0),
        Turn("e2", "Vitaly", "user", "I went to the climbing gym yesterday with friends.", T0),
    ]
    facts = {f.attribute: f for f in extract_facts("u", "s", turns)}
    assert facts["works_at"].subject == "Maria" and facts["works_at"].value == "Siemens"
    dated = next(f for a, f in facts.items() if a.startswith("did:"))
    assert "2024-02-29" in dated.content and dated.source_event_ids == ["e2"]


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Thanks to the physio, Dr. Moreau, my knee is better. I am happy!",
         ["Thanks to the physio, Dr. Moreau, my knee is better.", "I am happy!"]),
        ("Keep p99 under 2.5 seconds. Then ship v1.2 of notes.md now.",
         ["Keep p99 under 2.5 seconds.", "Then ship v1.2 of notes.md now."]),
        ("I met J. Smith today. He likes e.g. apples.",
         ["I met J. Smith today.", "He likes e.g. apples."]),
        ("I said no. Then I left", ["I said no.", "Then I left"]),
        ("Line one\nLine two.", ["Line one", "Line two."]),
    ],
)  # fmt: skip
def test_sentences_end_where_a_sentence_ends_not_at_every_period(
    text: str, sentences: list[str]
) -> None:
    assert [s.strip() for s in _sentences(text)] == sentences
