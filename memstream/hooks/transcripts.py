"""A coding agent's transcript file read into message events (pure; no I/O here).

Claude Code writes its transcript as JSON lines: one object per entry, ``type`` ``user``
or ``assistant`` for the turns (others are summaries and bookkeeping), each with its own
``uuid``, a ``timestamp``, the session's ``sessionId`` and a ``message`` whose
``content`` is text or a list of blocks (``text``, ``tool_use``, ``tool_result``,
``thinking``). A turn becomes a message event of its text blocks alone: tool calls and
their results are the work, not the conversation, and meta entries (``isMeta``), a
subagent's entries (``isSidechain``) and slash-command echoes are left out. The event
id is the entry's own ``uuid``, so reading the same turn again stores it once. A last
line the agent is still writing (not yet a whole JSON line) is left for the next read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from memstream.events.identifier_rules import bounded_id
from memstream.events.text_limits import MESSAGE_CHARS, trimmed

__all__ = ["TranscriptRead", "identifier", "read_transcript"]

#: The longest text a message carries (the event's own limit).
MAX_TEXT = MESSAGE_CHARS
_NOT_IN_IDENTIFIERS = re.compile(r"[^A-Za-z0-9_.:@+/-]+")
_COMMAND_ECHO = ("<command-name>", "<command-message>", "<local-command-", "<bash-")


@dataclass(frozen=True)
class TranscriptRead:
    """The message documents of the whole lines from a byte offset on, and the offset
    after the last whole line (where the next read starts)."""

    messages: list[dict[str, Any]]
    next_offset: int


def identifier(text: str, prefix: str = "") -> str:
    """``text`` as a memstream identifier: characters outside the rule become ``-``."""
    cleaned = _NOT_IN_IDENTIFIERS.sub("-", f"{prefix}{text}").strip("-")
    return cleaned[:200] or "unnamed"


def read_transcript(
    data: bytes,
    offset: int,
    *,
    user_id: str,
    session_id: str,
    project_id: str | None,
    channel: str = "claude-code",
) -> TranscriptRead:
    """The messages of ``data`` (a transcript's bytes) from byte ``offset`` on."""
    if offset > len(data):  # the file was replaced by a shorter one: read it anew
        offset = 0
    end = data.rfind(b"\n", offset) + 1
    if end <= offset:
        return TranscriptRead([], offset)
    messages = []
    for line in data[offset:end].splitlines():
        entry = _entry(line)
        if entry is None:
            continue
        document = _message(entry, user_id, session_id, project_id, channel)
        if document is not None:
            messages.append(document)
    return TranscriptRead(messages, end)


def _entry(line: bytes) -> Mapping[str, Any] | None:
    try:
        entry = json.loads(line)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None  # a damaged line: the rest of the transcript still counts
    return entry if isinstance(entry, dict) else None


def _message(
    entry: Mapping[str, Any],
    user_id: str,
    session_id: str,
    project_id: str | None,
    channel: str,
) -> dict[str, Any] | None:
    kind = entry.get("type")
    if kind not in ("user", "assistant") or entry.get("isMeta") or entry.get("isSidechain"):
        return None
    message = entry.get("message")
    uuid, at = entry.get("uuid"), entry.get("timestamp")
    if not isinstance(message, dict) or not isinstance(uuid, str) or not isinstance(at, str):
        return None
    text = "\n".join(_texts(message.get("content"))).strip()
    if not text or text.startswith(_COMMAND_ECHO):
        return None
    document: dict[str, Any] = {
        "type": "message",
        "event_id": bounded_id(channel, uuid),
        "user_id": user_id,
        "session_id": session_id,
        "channel": channel,
        "role": "user" if kind == "user" else "assistant",
        "content": trimmed(text, MAX_TEXT),
        "occurred_at": at,
    }
    if project_id is not None:
        document["project_id"] = project_id
    return document


def _texts(content: Any) -> Iterator[str]:
    if isinstance(content, str):
        yield content
        return
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                yield text
