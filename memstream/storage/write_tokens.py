"""Write tokens: where in the log a write was put, as a string a reader hands back.

A token names one life (epoch) of the log and, per (topic, partition), the highest offset
a write got there. The projections hold the write once their checkpoint of each of those
partitions, in the same life of the log, is at or past that offset (:func:`behind`). The
tokens of several writes merge into one (:func:`merged`): the highest offset per
partition. A token of every checkpoint of a store (:func:`token_of_checkpoints`) says
which writes the store reflects; a replay cut at it rebuilds that store.

The text form is ``w1.`` and the URL-safe base64 of a compact JSON document. Callers
treat it as opaque: they get it from a write and pass it back to a read.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from memstream.storage.log_records import Checkpoints

__all__ = [
    "MAX_TOKEN_CHARS",
    "TOKEN_PATTERN",
    "BadToken",
    "UnseenWrites",
    "WriteToken",
    "behind",
    "merged",
    "parse_token",
    "token_of_checkpoints",
]

_PREFIX = "w1."

#: What every token's text looks like (and what a door may check before reading it).
TOKEN_PATTERN = r"^w1\.[A-Za-z0-9_-]+$"

#: The longest token text a read takes (a token names at most every partition of every
#: topic: some hundreds of characters).
MAX_TOKEN_CHARS = 8000


class BadToken(ValueError):
    """A text that is not a token memstream gave (the message does not quote it)."""


@dataclass(frozen=True)
class WriteToken:
    """Positions in one life of the log: the highest offset per (topic, partition)."""

    log_epoch: str
    positions: Mapping[tuple[str, int], int]

    def text(self) -> str:
        """The token as callers see it (``w1.`` and base64 of JSON)."""
        by_topic: dict[str, dict[str, int]] = {}
        for (topic, partition), offset in sorted(self.positions.items()):
            by_topic.setdefault(topic, {})[str(partition)] = offset
        document = {"e": self.log_epoch, "p": by_topic}
        raw = json.dumps(document, separators=(",", ":"), sort_keys=True).encode("utf-8")
        return _PREFIX + base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def parse_token(text: str) -> WriteToken:
    """The token ``text`` names.

    Raises:
        BadToken: the text is not a token memstream gave.
    """
    problem = BadToken("not a write token (pass back the 'token' a write answered, as it was)")
    if not text.startswith(_PREFIX) or len(text) > MAX_TOKEN_CHARS:
        raise problem
    body = text[len(_PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        document = json.loads(raw)
        epoch = document["e"]
        positions = {
            (str(topic), int(partition)): int(offset)
            for topic, offsets in document["p"].items()
            for partition, offset in offsets.items()
        }
    except (binascii.Error, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        raise problem from None  # RecursionError: JSON nested deeper than Python parses
    if not isinstance(epoch, str) or any(o < 0 or p < 0 for (_, p), o in positions.items()):
        raise problem
    return WriteToken(epoch, positions)


def merged(tokens: Iterable[WriteToken | None]) -> WriteToken | None:
    """One token for several writes: the highest offset per partition, in the newest life
    of the log the tokens name (positions of an older life are left out: a write of an
    older life is either in the newer log too, republished from the journal, or was
    applied before that life began)."""
    present = [t for t in tokens if t is not None]
    if not present:
        return None
    newest = max(t.log_epoch for t in present)
    positions: dict[tuple[str, int], int] = {}
    for token in present:
        if token.log_epoch == newest:
            for at, offset in token.positions.items():
                positions[at] = max(offset, positions.get(at, -1))
    return WriteToken(newest, positions)


def behind(token: WriteToken, checkpoints: Checkpoints) -> dict[tuple[str, int], int]:
    """Per partition the token names that ``checkpoints`` do not cover yet, how many
    records the projections still have to apply there to hold the write (empty: they
    hold it).

    A checkpoint of an older life of the log than the token's has applied none of the
    token's life; one of a newer life means the token was written to a log that has been
    replaced, and its writes are either in the new log (republished from the journal) or
    were applied before: nothing is waited for.
    """
    pending: dict[tuple[str, int], int] = {}
    for at, offset in token.positions.items():
        applied = checkpoints.get(at)
        if applied is not None and applied.log_epoch > token.log_epoch:
            continue
        reached = (
            applied.offset if applied is not None and applied.log_epoch == token.log_epoch else -1
        )
        if reached < offset:
            pending[at] = offset - reached
    return pending


def token_of_checkpoints(checkpoints: Checkpoints) -> WriteToken | None:
    """The token of what a store reflects: its checkpoints of the newest life of the log
    (None: it has applied nothing)."""
    if not checkpoints:
        return None
    newest = max(at.log_epoch for at in checkpoints.values())
    return WriteToken(
        newest,
        {key: at.offset for key, at in checkpoints.items() if at.log_epoch == newest},
    )


class UnseenWrites:
    """Per user, the token of a caller's writes that no read has seen applied yet: what
    a client (or an MCP session) passes as ``after_write`` so its reads see its writes."""

    def __init__(self) -> None:
        self._tokens: dict[str, WriteToken] = {}
        self._lock = threading.Lock()  # clients of one server share one (threads too)

    def wrote(self, users: Iterable[str], text: object) -> None:
        """Keep the token ``text`` a write of ``users`` answered (ignored if it is none)."""
        if not isinstance(text, str):
            return
        try:
            token = parse_token(text)
        except BadToken:
            return
        with self._lock:
            for user in set(users):
                self._tokens[user] = merged([self._tokens.get(user), token]) or token

    def of(self, user_id: str) -> WriteToken | None:
        """The token a read of ``user_id`` waits for (None: nothing to wait for)."""
        return self._tokens.get(user_id)

    def seen(self, user_id: str, token: WriteToken) -> None:
        """A read of ``user_id`` after ``token`` was answered: no later read waits for it
        (unless the user was written again since)."""
        with self._lock:
            if self._tokens.get(user_id) is token:
                del self._tokens[user_id]
