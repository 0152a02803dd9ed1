"""What JSON an event may be: one parser and one check for every door and the worker.

An event is stored as JSON and read back by the worker; whatever a door accepts must
come back exactly as it went in. So the text is parsed by one parser (pydantic-core's,
the worker's), and every decoded document passes one check before it is validated as
an event: at most :data:`MAX_DEPTH` levels of objects and arrays, no NaN or infinite
number (JSON has none: they would come back as ``null``), and no lone surrogate in any
key or text (UTF-8 cannot hold one: it would come back altered, or not at all). A
problem is named by the path of the value that has it. Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from typing import Any

from pydantic_core import from_json

__all__ = [
    "MAX_DEPTH",
    "JsonProblem",
    "document_problems",
    "dotted",
    "parse_json",
]

#: Most levels of objects and arrays one event may nest (the event itself is the
#: first); well below the parser's own limit, so that limit is never what refuses.
MAX_DEPTH = 64

_SURROGATE = re.compile("[\ud800-\udfff]")
#: A JSON string, or one structural character (what :func:`_path_at` walks over).
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{},:]')
_POSITION = re.compile(r"at line (\d+) column (\d+)")


class JsonProblem(ValueError):
    """Text that is not JSON an event may be.

    Attributes:
        path: where in the document the problem is (keys and indexes), as far as known.
        problem: what is wrong.
    """

    def __init__(self, path: list[str | int], problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{dotted(path) or 'body'}: {problem}")


def parse_json(raw: bytes) -> Any:
    """The document ``raw`` holds (strict UTF-8 JSON), as the worker reads it.

    Raises:
        JsonProblem: the bytes are not UTF-8 JSON, or the JSON holds a lone surrogate or
            nests deeper than the parser goes, with the path where it happens.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonProblem([], f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    try:
        return from_json(text)  # pydantic-core's parser: a third of json.loads' time
    except ValueError as exc:  # its positions count bytes, so they are placed in ``raw``
        raise _located(raw, str(exc)) from None


def document_problems(document: Any) -> list[str]:
    """One ``path: problem`` line for each value of ``document`` (a decoded JSON value
    or the same built in Python) that JSON cannot carry back faithfully."""
    if _clean(document, 1):  # the common case, on the worker's hot path: no paths built
        return []
    return [f"{dotted(path) or 'event'}: {problem}" for path, problem in _problems(document)]


def dotted(path: Sequence[str | int]) -> str:
    """A path as ``metadata.a.0``, its first six steps and ``…`` for the rest."""
    shown = [str(p) for p in path[:6]]
    return ".".join(shown) + (".…" if len(path) > 6 else "")


def _clean(value: Any, depth: int) -> bool:
    """Whether ``value`` (at nesting ``depth``) has none of the problems
    :func:`_problems` names; recursion never goes deeper than :data:`MAX_DEPTH`."""
    if isinstance(value, str):
        return value.isascii() or _SURROGATE.search(value) is None
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return depth <= MAX_DEPTH and all(
            (not isinstance(key, str) or key.isascii() or _SURROGATE.search(key) is None)
            and _clean(item, depth + 1)
            for key, item in value.items()
        )
    if isinstance(value, list):
        return depth <= MAX_DEPTH and all(_clean(item, depth + 1) for item in value)
    return True


def _problems(document: Any) -> Iterator[tuple[list[str | int], str]]:
    stack: list[tuple[list[str | int], Any]] = [([], document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict | list) and len(path) >= MAX_DEPTH:
            yield path, f"nested more than {MAX_DEPTH} levels deep"
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and _SURROGATE.search(key):
                    yield [*path, _printable(key)], _NOT_UNICODE_KEY
                else:
                    stack.append(([*path, key], item))
        elif isinstance(value, list):
            stack.extend(([*path, i], item) for i, item in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            yield path, "NaN and infinite numbers cannot be stored (JSON has none)"
        elif isinstance(value, str) and not value.isascii() and _SURROGATE.search(value):
            yield path, _NOT_UNICODE


_NOT_UNICODE = "holds a lone surrogate (\\ud800-\\udfff): text must be valid Unicode"
_NOT_UNICODE_KEY = "this key " + _NOT_UNICODE


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")


def _located(raw: bytes, message: str) -> JsonProblem:
    """The parser's complaint, said plainly and placed at the path it is about."""
    if "recursion limit" in message:
        problem = f"nested more than {MAX_DEPTH} levels deep"
    elif "hex escape" in message or "surrogate" in message:
        problem = _NOT_UNICODE
    else:
        return JsonProblem([], f"not JSON: {message}")
    found = _POSITION.search(message)
    if found is None:
        return JsonProblem([], problem)
    line, column = int(found.group(1)), int(found.group(2))
    start = 0
    for _ in range(line - 1):
        start = raw.index(b"\n", start) + 1
    return JsonProblem(_path_at(raw, start + column - 1), problem)


def _path_at(raw: bytes, position: int) -> list[str | int]:
    """The keys and indexes of the value being read at byte ``position``."""
    path: list[str | int] = []
    last_string = ""
    for token in _TOKEN.finditer(raw):
        if token.start() >= position:
            break
        text = token.group()
        if token.end() > position:  # the string the position is in: a key, or a value
            if raw[token.end() :].lstrip()[:1] == b":" and path:
                path[-1] = text[1:-1].decode("utf-8", "replace")
            break
        if text in (b"{", b"["):
            path.append("" if text == b"{" else 0)
        elif text in (b"}", b"]"):
            path = path[:-1]
        elif text == b",":
            if path and isinstance(path[-1], int):
                path[-1] += 1
        elif text == b":":
            if path:
                path[-1] = last_string
        else:
            last_string = text[1:-1].decode("utf-8", "replace")
    return path
