"""The HTTP contract types every answer: each JSON answer of each route (successes and
errors) is a named model in ``/openapi.json``, no model an answer uses is an open map,
operation ids are the routes' names, and routes are tagged by resource. The generated
TypeScript types (``clients/typescript/src/schema.ts``) follow from this document; their
test compares the two (test_typescript_client.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memstream.http.memory_answers import ArchivedOriginal
from memstream.http.openapi_document import openapi_document
from memstream.storage.schemas import MEMORIES_SCHEMA

#: The one open map an operation may take: an event's free-form ``metadata`` (a request
#: field the caller owns, never an answer's).
OPEN_BY_DESIGN = {"MessageEvent/properties/metadata"}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return openapi_document()


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield method.upper(), path, operation


def _refs(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        if "$ref" in schema:
            yield schema["$ref"].rsplit("/", 1)[-1]
        for value in schema.values():
            yield from _refs(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _refs(value)


def _open_maps(schema: Any, where: str) -> Iterator[str]:
    """Where ``schema`` allows any keys with any values."""
    if isinstance(schema, dict):
        untyped_object = schema.get("type") == "object" and not (
            schema.get("properties") or isinstance(schema.get("additionalProperties"), dict)
        )
        if schema.get("additionalProperties") is True or untyped_object:
            yield where
        for key, value in schema.items():
            yield from _open_maps(value, f"{where}/{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            yield from _open_maps(value, f"{where}[{i}]")


def test_every_json_answer_of_every_route_is_a_named_model(document: dict[str, Any]) -> None:
    untyped = []
    for method, path, operation in _operations(document):
        for status, answer in operation["responses"].items():
            for media, content in answer.get("content", {}).items():
                schema = content.get("schema", {})
                if media == "application/json" and not list(_refs(schema)):
                    untyped.append(f"{method} {path} {status}")
                elif media != "application/json" and schema.get("type") != "string":
                    untyped.append(f"{method} {path} {status} {media}")
    assert untyped == []


def test_no_model_an_answer_uses_is_an_open_map(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    answered = {
        name
        for _, _, operation in _operations(document)
        for answer in operation["responses"].values()
        for name in _refs(answer)
    }
    seen: set[str] = set()
    while answered - seen:  # the models those refer to, all the way down
        name = (answered - seen).pop()
        seen.add(name)
        answered |= set(_refs(schemas[name]))
    open_maps = [
        f"{name}{where}"
        for name in sorted(seen)
        for where in _open_maps(schemas[name], "")
        if f"{name}{where}" not in OPEN_BY_DESIGN
    ]
    assert open_maps == []
    assert len(seen) > 40  # the walk reached the answers' models


def test_operation_ids_are_the_route_names_and_routes_are_tagged(
    document: dict[str, Any],
) -> None:
    ids = [operation["operationId"] for _, _, operation in _operations(document)]
    assert len(ids) == len(set(ids))
    assert "list_memories" in ids and "post_search" in ids
    assert not [i for i in ids if "_v1_" in i or i.endswith(("_get", "_post", "_delete"))]
    untagged = [f"{m} {p}" for m, p, operation in _operations(document) if not operation["tags"]]
    assert untagged == []


def test_an_archived_original_declares_every_column_of_a_memory() -> None:
    declared = set(ArchivedOriginal.model_fields)
    assert set(MEMORIES_SCHEMA.names) <= declared
    assert declared - set(MEMORIES_SCHEMA.names) == {
        "vector",
        "vector_model",
        "vector_source_event_id",
        "checksum",
    }
