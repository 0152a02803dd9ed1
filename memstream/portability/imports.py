"""Reading an import file into events (no I/O here): memstream's own ``events`` export,
a ChatGPT or a Claude data export, a Mem0 export of memories.

The shape is told from the content, not the file name:

- memstream ``events``: JSON lines whose first line is an export header
  (:mod:`memstream.portability.exports`);
- ChatGPT: ``conversations.json`` (or the export's zip holding it), a list of
  conversations with a ``mapping`` of message nodes: the branch that ends at
  ``current_node`` becomes a session, its messages turns;
- Claude: ``conversations.json`` (or the zip), a list of conversations with
  ``chat_messages``;
- Mem0: a list of memories (``{"id", "memory", "created_at", ...}``), bare or under
  ``results`` or ``memories``: each becomes a ``remember_fact`` at its own time.

Every event id is made from the exporter's own ids (a message's, a memory's), so
importing a file twice stores nothing twice. An entry that cannot be read is reported
by its position and skipped; the rest is imported. A file of no known shape is refused
with the shapes accepted.

A file is read as a stream (:func:`open_import`): a JSON list one entry at a time (by
``ijson``'s events, each entry built alone, none nesting deeper than
:data:`MAX_DEPTH`), a zip's ``conversations.json`` inflated as it is read (its declared
size at most :data:`MAX_INFLATED_BYTES`), memstream's own export a line at a time; so
the memory an import takes is that of one entry and one batch of events, whatever the
file's size.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import chain
from typing import IO, Any

import ijson  # type: ignore[import-untyped]

from memstream.events.codec import from_document
from memstream.events.errors import InvalidEvent, ProjectionError
from memstream.events.vocabulary import (
    Event,
    UserErased,
)
from memstream.portability.chat_exports import chatgpt, claude, mem0
from memstream.portability.import_plan import (
    ImportPlan,
    Skipped,
    Unreadable,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_INFLATED_BYTES",
    "MAX_LINE_BYTES",
    "MAX_SKIPS_NAMED",
    "SHAPES",
    "ImportStream",
    "UnknownShape",
    "open_import",
    "read_import",
]

#: The deepest an entry of an export may nest (a ChatGPT conversation nests about 8).
MAX_DEPTH = 100
#: The most a zip's ``conversations.json`` may declare it inflates to.
MAX_INFLATED_BYTES = 8 * 1024**3
#: The most skipped entries an import names one by one (the rest are counted).
MAX_SKIPS_NAMED = 1_000
#: The longest line of a memstream export read (an original of a 50 MB document, in
#: base64, is about 67 MB).
MAX_LINE_BYTES = 128 * 1024**2

#: The shapes an import reads, as an error names them.
SHAPES = (
    "a memstream events export (memstream export --format events)",
    "a ChatGPT data export (conversations.json, or the export's .zip)",
    "a Claude data export (conversations.json, or the export's .zip)",
    "a Mem0 export of memories (a JSON list of {id, memory, created_at}, or under 'results')",
)


class UnknownShape(ProjectionError):
    """The file is none of the shapes an import reads."""


@dataclass
class ImportStream:
    """A file being read: its ``plan`` fills as ``steps`` go (one entry a step)."""

    plan: ImportPlan
    steps: Iterator[None] = field(default_factory=lambda: iter(()))

    def __post_init__(self) -> None:
        self.steps = _skips_counted(self.steps, self.plan)

    def batches(self, size: int) -> Iterator[tuple[list[bytes], list[Event]]]:
        """The originals met and the events read, about ``size`` events at a time, in
        the file's order (an original before the events after it)."""
        plan = self.plan
        for _ in self.steps:
            if len(plan.events) >= size or plan.originals:
                yield self._taken()
        if plan.events or plan.originals:
            yield self._taken()

    def _taken(self) -> tuple[list[bytes], list[Event]]:
        plan = self.plan
        taken = (plan.originals, plan.events)
        plan.originals, plan.events = [], []
        return taken


def _skips_counted(steps: Iterator[None], plan: ImportPlan) -> Iterator[None]:
    """``steps``, the plan's skipped entries past :data:`MAX_SKIPS_NAMED` counted
    instead of kept (a file of a million bad entries holds no million reasons)."""
    for step in steps:
        if len(plan.skipped) > MAX_SKIPS_NAMED:
            plan.more_skipped += len(plan.skipped) - MAX_SKIPS_NAMED
            del plan.skipped[MAX_SKIPS_NAMED:]
        yield step
    if len(plan.skipped) > MAX_SKIPS_NAMED:
        plan.more_skipped += len(plan.skipped) - MAX_SKIPS_NAMED
        del plan.skipped[MAX_SKIPS_NAMED:]


def read_import(data: bytes, user_id: str) -> ImportPlan:
    """The events ``data`` holds for ``user_id``, all of them (see :func:`open_import`).

    Raises:
        UnknownShape: naming the shapes accepted; also a memstream export of another user.
    """
    stream = open_import(io.BytesIO(data), user_id)
    for _ in stream.steps:
        pass
    return stream.plan


def open_import(source: IO[bytes], user_id: str) -> ImportStream:
    """The file ``source`` (seekable) for ``user_id``, its shape told, read as its
    steps are taken (see the module docstring).

    Raises:
        UnknownShape: naming the shapes accepted; also a memstream export of another user.
    """
    if source.read(4) == b"PK\x03\x04":
        source.seek(0)
        source = _zip_member(source)
    source.seek(0)
    first = _first_byte(source)
    if first == b"{":
        header = _first_line(source)
        if isinstance(header, dict) and "memstream_export" in header:
            plan = ImportPlan("a memstream events export")
            return ImportStream(plan, _memstream_events(source, header, user_id, plan))
        key = _listed_key(source)
        plan = ImportPlan("a Mem0 export of memories")
        items = _checked(_list_items(source, key), plan.skipped, "memory")
        return ImportStream(plan, mem0(items, user_id, plan))
    if first != b"[":
        raise _unknown("it is not JSON, nor JSON lines starting with an export header")
    skipped: list[Skipped] = []  # the plan's, once its shape is known
    items = _checked(_list_items(source, None), skipped, "entry")
    seen: list[Any] = []
    for item in items:
        seen.append(item)
        if isinstance(item, dict):
            break
    if not seen:
        return ImportStream(ImportPlan("an empty list"))
    sample = seen[-1]
    if not isinstance(sample, dict):
        if any(isinstance(item, Unreadable) for item in seen):
            raise _unknown("its JSON nests deeper than any export does")
        raise _unknown("it is a JSON list of no objects")
    entries = chain(seen, items)
    read = {"mapping": chatgpt, "chat_messages": claude, "memory": mem0}
    for marker, shape in _LIST_SHAPES.items():
        if marker in sample:
            plan = ImportPlan(shape, skipped=skipped)
            return ImportStream(plan, read[marker](entries, user_id, plan))
    raise _unknown("a JSON list of entries with no 'mapping', 'chat_messages' or 'memory'")


#: The key a list's first object has, and the shape it says the list is of.
_LIST_SHAPES = {
    "mapping": "a ChatGPT data export",
    "chat_messages": "a Claude data export",
    "memory": "a Mem0 export of memories",
}


def _unknown(why: str) -> UnknownShape:
    return UnknownShape(f"not a file memstream imports ({why}); it reads " + "; ".join(SHAPES))


def _zip_member(source: IO[bytes]) -> IO[bytes]:
    """The zip's ``conversations.json``, inflated as it is read."""
    try:
        archive = zipfile.ZipFile(source)
        members = [
            m for m in archive.infolist() if m.filename.rsplit("/", 1)[-1] == "conversations.json"
        ]
        if not members:
            raise _unknown("a zip without conversations.json")
        member = min(members, key=lambda m: len(m.filename))
        if member.file_size > MAX_INFLATED_BYTES:
            raise _unknown(
                f"its conversations.json inflates to {member.file_size:,} bytes; the limit is "
                f"{MAX_INFLATED_BYTES:,}"
            )
        return archive.open(member)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError) as exc:
        raise _unknown(f"a damaged zip: {exc}") from None


def _first_byte(source: IO[bytes]) -> bytes:
    """The first byte that is not white space (the stream is left at its start)."""
    try:
        while chunk := source.read(65536):
            stripped = chunk.lstrip()
            if stripped:
                return stripped[:1]
        return b""
    finally:
        source.seek(0)


def _first_line(source: IO[bytes]) -> Any:
    """The first line, as JSON, if it is a short line of JSON (an export header)."""
    try:
        line = b""
        while not line.strip():
            line = source.readline(65536)
            if not line:
                return None
        return json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    finally:
        source.seek(0)


_OPENS = ("start_map", "start_array")
_CLOSES = ("end_map", "end_array")


def _listed_key(source: IO[bytes]) -> str:
    """Which key of the file's top-level object holds its list of memories:
    ``results``, or else ``memories`` (the stream is left at its start)."""
    kinds: dict[str, str] = {}
    depth = deepest = 0
    key: str | None = None
    try:
        for event, value in ijson.basic_parse(source, use_float=True):
            if depth == 1 and event == "map_key":
                key = value
            elif depth == 1 and key is not None:
                kinds.setdefault(key, event)
                key = None
            depth += (event in _OPENS) - (event in _CLOSES)
            deepest = max(deepest, depth)
    except ijson.JSONError as exc:
        raise _unknown(f"it is not JSON: {exc}") from None
    finally:
        source.seek(0)
    listed = "results" if "results" in kinds else "memories"
    if kinds.get(listed) != "start_array":
        if deepest > MAX_DEPTH:
            raise _unknown("its JSON nests deeper than any export does")
        raise _unknown("it is a JSON object without a list of 'results' or 'memories'")
    return listed


def _list_items(source: IO[bytes], key: str | None) -> Iterator[Any]:
    """The entries of the top-level list (``key`` None) or of the list under ``key`` of
    the top-level object, built one at a time; an entry nesting deeper than
    :data:`MAX_DEPTH` is an :class:`Unreadable`, and the next one is read."""
    events = ijson.basic_parse(source, use_float=True)
    if key is None:
        first = next(events, None)
        if first is None or first[0] != "start_array":
            return
    elif not _to_list_under(events, key):
        return
    for event, value in events:
        if event == "end_array":
            return
        yield _entry(events, event, value) if event in _OPENS else value


def _to_list_under(events: Iterator[tuple[str, Any]], key: str) -> bool:
    """Read ``events`` up to the start of the top-level object's list under ``key``."""
    depth = 0
    last: str | None = None
    for event, value in events:
        if depth == 1 and last == key and event == "start_array":
            return True
        last = value if depth == 1 and event == "map_key" else None
        depth += (event in _OPENS) - (event in _CLOSES)
    return False


def _entry(events: Iterator[tuple[str, Any]], event: str, value: Any) -> Any:
    """The entry that ``event`` opens, built from ``events`` up to where it closes;
    nesting deeper than :data:`MAX_DEPTH`, an :class:`Unreadable` (read past)."""
    builder: Any = ijson.ObjectBuilder()
    builder.event(event, value)
    depth = 1
    for event, value in events:
        depth += (event in _OPENS) - (event in _CLOSES)
        if builder is not None:
            if depth > MAX_DEPTH:
                builder = None
            else:
                builder.event(event, value)
        if depth == 0:
            break
    return builder.value if builder is not None else Unreadable(_DEEP)


_DEEP = f"it nests deeper than {MAX_DEPTH} levels, deeper than any export does"


def _checked(items: Iterator[Any], skipped: list[Skipped], noun: str) -> Iterator[Any]:
    """``items``, until the file cannot be read any further: before the first entry
    that refuses the file; after it, the rest is reported skipped."""
    read = 0
    try:
        for item in items:
            read += 1
            yield item
    except (ijson.JSONError, zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
        if read == 0:
            raise _unknown(f"it is not JSON: {exc}") from None
        skipped.append(
            Skipped(f"after {noun} {read}", f"the rest of the file cannot be read: {exc}")
        )


# -- memstream's own export ----------------------------------------------------------------


def _memstream_events(
    source: IO[bytes], header: Mapping[str, Any], user_id: str, plan: ImportPlan
) -> Iterator[None]:
    if header.get("memstream_export") != 1 or header.get("format") != "events":
        raise _unknown(
            f"an export header of version {header.get('memstream_export')!r}, format "
            f"{header.get('format')!r}: this memstream reads version 1 'events' exports"
        )
    exported = header.get("user_id")
    if exported != user_id:
        raise UnknownShape(
            f"this export holds the events of user {exported!r}: import it with --user "
            f"{exported} (event ids and memory ids are the user's)"
        )
    return _memstream_lines(source, user_id, plan)


def _memstream_lines(source: IO[bytes], user_id: str, plan: ImportPlan) -> Iterator[None]:
    header_read = False
    for number, line in enumerate(_bounded_lines(source), start=1):
        if line is None:
            plan.skipped.append(Skipped(f"line {number}", f"longer than {MAX_LINE_BYTES:,} bytes"))
            continue
        if not line.strip():
            continue
        if not header_read:
            header_read = True
            continue
        where = f"line {number}"
        try:
            document = json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            plan.skipped.append(Skipped(where, f"not JSON: {exc}"))
            continue
        except RecursionError:
            plan.skipped.append(Skipped(where, "JSON nested deeper than any event"))
            continue
        if isinstance(document, dict) and set(document) == {"original"}:
            original = _original(document["original"])
            if isinstance(original, str):
                plan.skipped.append(Skipped(where, original))
            else:
                plan.originals.append(original)
                yield
            continue
        try:
            event = from_document(document)
        except InvalidEvent as exc:
            plan.skipped.append(Skipped(where, "; ".join(exc.problems)))
            continue
        if isinstance(event, UserErased) or event.user_id != user_id:
            plan.skipped.append(Skipped(where, f"an event of another user ({event.user_id})"))
            continue
        plan.events.append(event)
        yield


def _bounded_lines(source: IO[bytes]) -> Iterator[bytes | None]:
    """The lines of ``source``, each read no further than :data:`MAX_LINE_BYTES`: a
    longer one is None (and read past, a piece at a time)."""
    while line := source.readline(MAX_LINE_BYTES + 1):
        if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
            yield line
            continue
        while (rest := source.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
            pass
        yield None


def _original(document: Any) -> bytes | str:
    """A document's bytes, or why they cannot be read."""
    if not isinstance(document, dict) or not isinstance(document.get("data"), str):
        return "an original without its base64 'data'"
    try:
        return base64.b64decode(document["data"], validate=True)
    except (binascii.Error, ValueError):
        return "an original whose 'data' is not base64"


# -- ChatGPT -------------------------------------------------------------------------------


# -- Claude --------------------------------------------------------------------------------


# -- Mem0 ----------------------------------------------------------------------------------


# -- shared --------------------------------------------------------------------------------
