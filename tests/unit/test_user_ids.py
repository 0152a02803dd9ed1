"""Which user the bytes of an event that did not validate name: where a rejected line is
counted, keyed and erased."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstream.events.user_ids import claimed_user


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        (b'{"user_id": "ana", "role": "robot"}', "ana"),
        (b'{"user_id": "acme:support/bob", "content": ""}', "acme:support/bob"),
        (b'{"user_id": "two words"}', None),  # no well-formed id: no one's
        (b'{"user_id": 7}', None),
        (b'["ana"]', None),
        (b"not json", None),
        (b'{"user_id": "ana"', None),
        (b"\xff\xfe", None),
        (b"[" * 100_000, None),  # nested past what the parser goes: no one's, no error
    ],
)
def test_the_user_a_rejected_line_names(raw: bytes, named: str | None) -> None:
    assert claimed_user(raw) == named


@given(st.binary(max_size=200))
def test_any_bytes_name_a_user_or_none_and_never_raise(raw: bytes) -> None:
    named = claimed_user(raw)
    assert named is None or isinstance(named, str)
