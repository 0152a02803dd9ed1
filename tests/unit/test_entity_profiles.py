"""An entity's profile lists the memories that mention it, whatever its kind: a place,
an organization, a pet or a product as well as a person (their ids share the named
group's, and the profile looks them up there)."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstream.events.codec import encode
from memstream.queries.profiles import entity_profile
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message
from memstream.text.mentions import extract_mentions, is_ordinary_word
from memstream.text.place_names import PLACE_NAMES

AT = datetime(2024, 5, 1, 12, tzinfo=UTC)

#: A sentence that tells each kind of a made-up name.
SENTENCES = {
    "person": "I had lunch with {} today.",
    "place": "We moved to {} last year.",
    "organization": "I work at {} Corp now.",
    "pet": "My cat {} sleeps all day.",
    "product": "I have been playing {} all week.",
}

made_up_names = st.from_regex(r"[BDFGKLMNPRTVZ][aeiou][bdklmnrstvz][aeiou][lnrs]", fullmatch=True)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SENTENCES)), made_up_names)
def test_the_profile_of_any_kind_of_entity_lists_the_memory_that_mentions_it(
    kind: str, name: str
) -> None:
    if is_ordinary_word(name) or name in PLACE_NAMES:
        return  # not a made-up name after all
    text = SENTENCES[kind].format(name)
    [mention] = [m for m in extract_mentions(text, None, AT) if m.name.startswith(name)]
    assert mention.type == kind, (text, mention)
    with tempfile.TemporaryDirectory() as folder:
        store = ProjectionStore(str(Path(folder) / "projections"))
        projector = Projector(store, "test", clock=FakeClock(AT))
        event = message(event_id="e1", content=text, occurred_at=AT)
        projector.apply([LogRecord("e", "t", 0, 0, AT, None, encode(event))])
        profile = entity_profile(store, event.user_id, mention.name)
        assert profile is not None, text
        assert profile["type"] == kind
        assert [m["content"] for m in profile["memories"]] == [text]
        assert profile["memory_count"] == 1
