"""The entity projection: rule-based mentions in a message, and the ``entities`` rows.

``extract_mentions`` finds, with rules and no model: person-like capitalized names
(several words, sentence-initial words only when they are not ordinary words), the
speaker, ``@mentions``, emails, URLs, hashtags, dates and times (relative ones resolved
against the message's time), and money amounts. Each mention has a *key*: its type
group and its normalized name (case, accents and ``@`` folded), so "Vitaly", "vitaly"
and "@Vitaly" share one key, and ``entity_id`` turns (user, key) into a stable id that
memories carry in ``entity_ids``.

An alias makes two keys one entity: ``merge_entity`` keeps, per entity row, the keys it
answers to, and search resolves a name through those aliases at read time, so an alias
added later also finds the memories linked before it existed. All functions are pure.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memstream.storage.log_records import LogPosition
from memstream.text.mentions import NAMED, EntityMention, entity_group

__all__ = [
    "MentionSeen",
    "entity_id",
    "entity_ids_for",
    "fold_mentions",
    "guard_columns",
    "merge_entity",
    "newer_than_row",
]


@dataclass(frozen=True, slots=True)
class MentionSeen:
    """A mention with its owner, the message's time and log position, and the memory
    the message became."""

    user_id: str
    mention: EntityMention
    seen_at: datetime
    position: LogPosition
    memory_id: str = ""

    @property
    def entity_id(self) -> str:
        return entity_id(self.user_id, entity_group(self.mention.type), self.mention.key)


def newer_than_row(position: LogPosition, row: Mapping[str, Any] | None) -> bool:
    """Whether an event at ``position`` was not yet applied to ``row``.

    Rows are per user and a user's events share a partition, so the row's last applied
    (epoch, offset) in that partition orders them; an event from another partition (the
    topic was re-partitioned) is taken as new.
    """
    if row is None or row.get("applied_epoch") is None:
        return True
    if position.partition != row["applied_partition"]:
        return True
    return (position.log_epoch, position.offset) > (row["applied_epoch"], row["applied_offset"])


def guard_columns(position: LogPosition) -> dict[str, Any]:
    """The columns that keep a folded row's last applied position (its guard)."""
    return {
        "applied_epoch": position.log_epoch,
        "applied_partition": position.partition,
        "applied_offset": position.offset,
    }


def fold_mentions(
    existing: Mapping[str, Mapping[str, Any]], seen: Iterable[MentionSeen]
) -> dict[str, dict[str, Any]]:
    """The entity rows ``seen`` changes, given the current rows by id (pure).

    Mentions at or below a row's applied position are skipped, so folding the same
    batch twice changes nothing the second time.
    """
    changed: dict[str, dict[str, Any]] = {}
    for item in seen:
        key = item.entity_id
        row = changed.get(key) or existing.get(key)
        if not newer_than_row(item.position, row):
            continue
        changed[key] = merge_entity(
            row,
            user_id=item.user_id,
            mention=item.mention,
            seen_at=item.seen_at,
            count=1,
            position=item.position,
        )
    return changed


def entity_id(user_id: str, entity_type: str, key: str) -> str:
    """The stable id of a user's entity: one per (type group, normalized name)."""
    digest = hashlib.blake2b(f"{user_id}\x1f{entity_type}\x1f{key}".encode(), digest_size=12)
    return f"en-{digest.hexdigest()}"


def merge_entity(
    existing: Mapping[str, Any] | None,
    *,
    user_id: str,
    mention: EntityMention,
    seen_at: datetime,
    count: int,
    position: LogPosition,
) -> dict[str, Any]:
    """The ``entities`` row after ``count`` more mentions seen up to ``seen_at``.

    ``position`` of the newest mention is kept in the row (its guard columns);
    the projector passes only mentions newer than the row's position, so applying a batch
    twice counts it once.
    """
    group = entity_group(mention.type)
    if existing is None:
        return {
            "entity_id": entity_id(user_id, group, mention.key),
            "user_id": user_id,
            "type": mention.type,
            "canonical_name": mention.name,
            "key": mention.key,
            "aliases": [mention.key],
            "mention_count": count,
            "first_seen": seen_at,
            "last_seen": seen_at,
            **guard_columns(position),
        }
    row = dict(existing)
    row["mention_count"] = int(row["mention_count"]) + count
    row["first_seen"] = min(row["first_seen"], seen_at)
    row["last_seen"] = max(row["last_seen"], seen_at)
    # A fuller form of a name becomes the canonical one ("Maria" -> "Maria Gonzalez").
    if len(mention.name) > len(row["canonical_name"]) and mention.type in NAMED:
        row["canonical_name"] = mention.name
    # A name first seen as a bare name takes the kind a later sentence gives it.
    if row["type"] == "person" and mention.type in NAMED:
        row["type"] = mention.type
    row.update(guard_columns(position))
    return row


def entity_ids_for(user_id: str, mentions: Iterable[EntityMention]) -> list[str]:
    return [entity_id(user_id, entity_group(m.type), m.key) for m in mentions]
