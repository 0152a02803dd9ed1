"""A memory a framework stored as a JSON document reads as text in a context block;
any other content is shown as it is."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstream.text.stored_items import readable


def _item(key: str, value: object, namespace: tuple[str, ...] = ("ana", "memories")) -> str:
    document = {"namespace": list(namespace), "key": key, "value": value}
    return json.dumps(document, ensure_ascii=False, sort_keys=True)


@pytest.mark.parametrize(
    ("value", "key", "shown"),
    [
        ({"where": "in the garage on Rua Nova"}, "bike", "bike: where: in the garage on Rua Nova"),
        ({"content": "Jo takes oat milk in coffee."}, "3f1c9a2e-77b4-4c1e-9d7a-0b5e2f6a1c3d",
         "Jo takes oat milk in coffee."),
        ({"food": "pizza", "drinks": ["tea", "água"], "spicy": False}, "likes",
         "likes: drinks: tea, água; food: pizza; spicy: false"),
        ({"text": {"city": "Porto", "since": 2024}}, "home", "home: city: Porto; since: 2024"),
        ({}, "empty", "empty"),
        ({"note": None}, "n-1", "n-1"),
    ],
)  # fmt: skip
def test_an_item_reads_as_its_key_and_what_its_value_says(
    value: object, key: str, shown: str
) -> None:
    assert readable(_item(key, value)) == shown


@pytest.mark.parametrize(
    "content",
    [
        "I moved to Porto last week.",
        '{"key": "bike", "value": {"where": "garage"}}',  # no namespace: not an item
        '{"key": "bike", "namespace": [], "value": "garage"}',  # a value that is no object
        '{"key": "bike", "namespace": [], "value": {"a": 1}, "extra": 2}',
        "{not json",
        "[1, 2]",
        '{"a": ' + "[" * 5000 + "]" * 5000 + "}",  # nested past what JSON is read to
        '{"key": "k", "namespace": [], "value": {"a": ' + "[" * 900 + "]" * 900 + "}}",
    ],
)
def test_anything_else_is_shown_as_it_is(content: str) -> None:
    assert readable(content) == content


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(
    key=st.text(min_size=1, max_size=20),
    value=st.dictionaries(st.text(max_size=8), _json, max_size=5),
)
def test_an_item_never_reads_as_its_json(key: str, value: dict[str, object]) -> None:
    stored = _item(key, value)
    shown = readable(stored)
    assert shown != stored and not shown.startswith('{"namespace"')


@given(content=st.text(max_size=200))
def test_text_that_is_no_item_is_unchanged(content: str) -> None:
    try:
        document = json.loads(content)
    except ValueError:
        document = None
    if not (isinstance(document, dict) and set(document) == {"key", "namespace", "value"}):
        assert readable(content) == content
