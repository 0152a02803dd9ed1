"""Other systems' exports read into events (no I/O here): a ChatGPT data export's
conversations (the branch the user last saw), a Claude data export's conversations, and
a Mem0 export's memories, each turn a message of a session named after its
conversation, each memory a remembered fact."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime
from functools import partial
from typing import Any

from pydantic import ValidationError

from memstream.events.problems import problems_of
from memstream.events.vocabulary import (
    MessageEvent,
    RememberFact,
    SessionEnded,
)
from memstream.portability.import_plan import (
    IDENTIFIER,
    NOT_IN_IDENTIFIERS,
    TAG,
    ImportPlan,
    Skipped,
    Unreadable,
)

__all__ = ["chatgpt", "claude", "mem0"]


def chatgpt(conversations: Iterable[Any], user_id: str, plan: ImportPlan) -> Iterator[None]:
    for number, conversation in enumerate(conversations, start=1):
        where = f"conversation {number}"
        if isinstance(conversation, Unreadable):
            plan.skipped.append(Skipped(where, conversation.reason))
            continue
        if not isinstance(conversation, dict) or not isinstance(conversation.get("mapping"), dict):
            plan.skipped.append(Skipped(where, "not a conversation (no 'mapping' of messages)"))
            continue
        conversation_id = conversation.get("conversation_id") or conversation.get("id")
        if not isinstance(conversation_id, str) or not conversation_id:
            plan.skipped.append(Skipped(where, "a conversation without an id"))
            continue
        title = str(conversation.get("title") or "")
        try:
            session = _session_id("chatgpt", conversation_id)
        except ValueError as exc:
            plan.skipped.append(Skipped(where, str(exc)))
            continue
        try:
            started = _epoch(conversation.get("create_time"))
        except ValueError as exc:
            plan.skipped.append(Skipped(where, str(exc)))
            continue
        messages = [node.get("message") for node in _branch(conversation)]
        read = partial(
            _chatgpt_turn, user_id=user_id, session=session, title=title, started=started
        )
        turns = _turns(plan, where, messages, read)
        if not turns and any(isinstance(m, dict) for m in messages):
            plan.skipped.append(Skipped(where, "no turn of the user or the assistant in it"))
        _add_session(plan, turns, user_id, session, "chatgpt", conversation_id)
        yield


def _branch(conversation: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The nodes from the root to ``current_node`` (the branch the user last saw), or,
    without one, from the root along each node's last child."""
    mapping: Mapping[str, Any] = conversation["mapping"]
    nodes = {k: v for k, v in mapping.items() if isinstance(v, dict)}
    current = conversation.get("current_node")
    path: list[Mapping[str, Any]] = []
    if isinstance(current, str) and current in nodes:
        seen: set[str] = set()
        while isinstance(current, str) and current in nodes and current not in seen:
            seen.add(current)
            path.append(nodes[current])
            current = nodes[current].get("parent")
        return path[::-1]
    roots = [n for n in nodes.values() if n.get("parent") not in nodes]
    node = roots[0] if roots else None
    while node is not None and len(path) <= len(nodes):
        path.append(node)
        children = [c for c in node.get("children") or () if c in nodes]
        node = nodes[children[-1]] if children else None
    return path


def _chatgpt_turn(
    message: Any,
    user_id: str,
    session: str,
    title: str,
    started: datetime | None,
) -> MessageEvent | None:
    if not isinstance(message, dict):
        return None  # the root node carries no message
    author = message.get("author")
    if not isinstance(author, dict) or not isinstance(author.get("role"), str):
        raise ValueError("a message without its author's role")
    role = author["role"]
    metadata = message.get("metadata") or {}
    if role not in ("user", "assistant", "tool") or metadata.get(
        "is_visually_hidden_from_conversation"
    ):
        return None  # system prompts and hidden context are not the conversation
    text = _chatgpt_text(message.get("content") or {})
    if not text:
        return None
    at = _epoch(message.get("create_time")) or started
    if at is None:
        raise ValueError("a message without a time, in a conversation without one")
    return MessageEvent(
        event_id=f"chatgpt:{message['id']}",
        user_id=user_id,
        session_id=session,
        channel="chatgpt",
        role=role,
        content=text,
        occurred_at=at,
        metadata={"conversation": title} if title else {},
    )


def _chatgpt_text(content: Mapping[str, Any]) -> str:
    kind = content.get("content_type")
    if kind in ("text", "multimodal_text"):
        given = content.get("parts") or ()
        parts = [p for p in given if isinstance(p, str)]
        if given and not parts and not any(isinstance(p, dict) for p in given):
            raise ValueError("its parts are not text")  # (a dict is an image, say)
        return "\n".join(parts).strip()
    if kind == "code" and isinstance(content.get("text"), str):
        return str(content["text"]).strip()
    return ""  # images alone, browsing results, reasoning: no words of the conversation


def _epoch(value: Any) -> datetime | None:
    """A time given in seconds since 1970 (None when none is given).

    Raises:
        ValueError: a number no date has (``1e300``, ``-1e18``, NaN).
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(float(value), UTC)
        except (OverflowError, OSError, ValueError):
            raise ValueError(f"time {value!r} is no date") from None
    return None


def claude(conversations: Iterable[Any], user_id: str, plan: ImportPlan) -> Iterator[None]:
    for number, conversation in enumerate(conversations, start=1):
        where = f"conversation {number}"
        if isinstance(conversation, Unreadable):
            plan.skipped.append(Skipped(where, conversation.reason))
            continue
        messages = conversation.get("chat_messages") if isinstance(conversation, dict) else None
        conversation_id = conversation.get("uuid") if isinstance(conversation, dict) else None
        if not isinstance(messages, list) or not isinstance(conversation_id, str):
            plan.skipped.append(
                Skipped(where, "not a conversation (no 'uuid' and 'chat_messages')")
            )
            continue
        try:
            session = _session_id("claude", conversation_id)
        except ValueError as exc:
            plan.skipped.append(Skipped(where, str(exc)))
            continue
        title = str(conversation.get("name") or "")
        read = partial(_claude_turn, user_id=user_id, session=session, title=title)
        turns = _turns(plan, where, messages, read)
        _add_session(plan, turns, user_id, session, "claude", conversation_id)
        yield


def _claude_turn(message: Any, user_id: str, session: str, title: str) -> MessageEvent | None:
    if not isinstance(message, dict):
        raise TypeError("not a message object")
    sender = message.get("sender")
    roles = {"human": "user", "assistant": "assistant"}
    if sender not in roles:
        raise ValueError(f"sender {sender!r} is neither 'human' nor 'assistant'")
    text = str(message["text"]) if isinstance(message.get("text"), str) else ""
    if not text.strip():
        text = "\n".join(
            str(part.get("text"))
            for part in message.get("content") or ()
            if isinstance(part, dict) and part.get("type") == "text" and part.get("text")
        )
    if not text.strip():
        return None  # attachments alone
    return MessageEvent(
        event_id=f"claude:{message['uuid']}",
        user_id=user_id,
        session_id=session,
        channel="claude",
        role=roles[sender],
        content=text.strip(),
        occurred_at=_iso(message.get("created_at")),
        metadata={"conversation": title} if title else {},
    )


def mem0(memories: Iterable[Any], user_id: str, plan: ImportPlan) -> Iterator[None]:
    for number, memory in enumerate(memories, start=1):
        if isinstance(memory, Unreadable):
            plan.skipped.append(Skipped(f"memory {number}", memory.reason))
            continue
        try:
            plan.events.append(_mem0_fact(memory, user_id))
        except (ValueError, ValidationError, TypeError, KeyError) as exc:
            plan.skipped.append(Skipped(f"memory {number}", _why(exc)))
        yield


def _mem0_fact(memory: Any, user_id: str) -> RememberFact:
    if not isinstance(memory, dict):
        raise TypeError("not a memory object")
    text = memory.get("memory")
    if not isinstance(text, str) or not text.strip():
        raise ValueError("no 'memory' text")
    if not isinstance(memory.get("id"), str) or not memory["id"]:
        raise ValueError("no 'id'")
    categories = memory.get("categories") or []
    tags = [
        t for t in (str(c).strip().lower().replace(" ", "-") for c in categories) if TAG.match(t)
    ]
    return RememberFact(
        event_id=f"mem0:{memory['id']}"[:200],
        user_id=user_id,
        content=text.strip()[:4000],
        tags=tags[:32],
        occurred_at=_iso(memory.get("created_at") or memory.get("updated_at")),
    )


def _turns(
    plan: ImportPlan,
    where: str,
    messages: list[Any],
    turn_of: Callable[[Any], MessageEvent | None],
) -> list[MessageEvent]:
    """The turns of a conversation's messages; a message that cannot be read is
    skipped, reported by its position."""
    turns: list[MessageEvent] = []
    for index, message in enumerate(messages, start=1):
        try:
            turn = turn_of(message)
        except (ValueError, ValidationError, TypeError, KeyError, AttributeError) as exc:
            plan.skipped.append(Skipped(f"{where}, message {index}", _why(exc)))
            continue
        if turn is not None:
            turns.append(turn)
    return turns


def _add_session(
    plan: ImportPlan,
    turns: list[MessageEvent],
    user_id: str,
    session: str,
    source: str,
    conversation_id: str,
) -> None:
    """A conversation's turns in time order, then the end of its session (so the
    lifecycle consolidates it without waiting for the session gap)."""
    if not turns:
        return
    turns.sort(key=lambda t: t.occurred_at)
    plan.events.extend(turns)
    plan.events.append(
        SessionEnded(
            event_id=f"{source}-end:{conversation_id}"[:200],
            user_id=user_id,
            session_id=session,
            occurred_at=turns[-1].occurred_at,
        )
    )


def _session_id(source: str, conversation_id: str) -> str:
    session = f"{source}-{NOT_IN_IDENTIFIERS.sub('-', conversation_id)}"[:200]
    if not IDENTIFIER.match(session):
        raise ValueError(f"conversation id {conversation_id!r} makes no session id")
    return session


def _iso(value: Any) -> datetime:
    if not isinstance(value, str):
        raise ValueError("no time ('created_at')")
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"time {value!r} is not ISO 8601") from None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _why(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(problems_of(exc))
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r}"
    return str(exc)
