"""A host's hook input read into what memstream stores (pure; no I/O here): the turn's
prompt and answer as message events, the end of a session, and the session and the
folder the input names.

Event ids come from the host's own name for the turn (Codex's ``turn_id``, Cursor's
``generation_id``), else from what the turn said and when the host says it fired
(Gemini's ``timestamp``), so a hook that fires twice stores nothing twice while the same
words said again in a later turn are stored again; the prompt and the answer of a turn
share it, ``:user`` and ``:assistant`` after it. An id stays unique at any length (a
digest stands for what does not fit), a session of any name gets an identifier of its
own, and text with a lone surrogate is repaired (U+FFFD), not refused.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from memstream.events.identifier_rules import bounded_id, identifier_for
from memstream.events.text_limits import trimmed
from memstream.hooks.hosts import Act, Host
from memstream.hooks.transcripts import MAX_TEXT

__all__ = ["folder_of", "session_end_event", "session_of", "turn_events"]


def session_of(host: Host, payload: dict[str, Any]) -> str | None:
    """The memstream session of the host's conversation."""
    named = payload.get(host.session_field)
    return identifier_for(named, f"{host.name}-") if isinstance(named, str) and named else None


def folder_of(host: Host, payload: dict[str, Any]) -> str | None:
    """The folder the agent works in (Cursor's first workspace root)."""
    named = payload.get(host.folder_field)
    if isinstance(named, list):
        named = next((f for f in named if isinstance(f, str) and f), None)
    return named if isinstance(named, str) and named else None


def turn_events(
    host: Host,
    acts: tuple[Act, ...],
    payload: dict[str, Any],
    *,
    user_id: str,
    project_id: str | None,
    now: datetime,
) -> list[dict[str, Any]]:
    """The message events ``acts`` store of the turn ``payload`` describes."""
    session = session_of(host, payload)
    if session is None:
        return []
    prompt = _text(payload.get("prompt"))
    answer = _text(payload.get(host.answer_field)) if host.answer_field else ""
    turn = payload.get(host.turn_field) if host.turn_field else None
    if not isinstance(turn, str) or not turn:
        fired = payload.get("timestamp")
        moment = fired if isinstance(fired, str) else ""
        said = f"{session}\n{moment}\n{prompt}\n{answer}".encode("utf-8", "surrogatepass")
        turn = hashlib.sha256(said).hexdigest()[:24]
    said_now = [
        ("user", prompt, user_id) if act is Act.STORE_PROMPT else ("assistant", answer, host.name)
        for act in acts
        if act in (Act.STORE_PROMPT, Act.STORE_ANSWER)
    ]
    events = []
    for i, (role, text, speaker) in enumerate(said_now):
        if not text.strip():
            continue
        events.append(
            {
                "type": "message",
                "event_id": bounded_id(host.name, session, turn, role),
                "user_id": user_id,
                "session_id": session,
                "channel": host.name,
                "role": role,
                "speaker": speaker,
                "content": text,
                # the prompt a microsecond before the answer stored with it
                "occurred_at": (now + timedelta(microseconds=i)).isoformat(),
                **({"project_id": project_id} if project_id is not None else {}),
            }
        )
    return events


def session_end_event(
    host: Host, payload: dict[str, Any], *, user_id: str, project_id: str | None, now: datetime
) -> dict[str, Any] | None:
    """The ``session_ended`` of the host's conversation (None when it names none)."""
    session = session_of(host, payload)
    if session is None:
        return None
    return {
        "type": "session_ended",
        "event_id": bounded_id(f"{host.name}-end", session),
        "user_id": user_id,
        "session_id": session,
        "occurred_at": now.isoformat(),
        **({"project_id": project_id} if project_id is not None else {}),
    }


def _text(value: Any) -> str:
    return trimmed(value, MAX_TEXT) if isinstance(value, str) else ""
