"""A LangGraph ``BaseStore`` over memstream: ``pip install 'memstream[langgraph]'``.

    from memstream.integrations.langgraph import MemstreamStore
    store = MemstreamStore()                     # namespace[0] is the user
    graph = builder.compile(store=store)         # or create_react_agent(..., store=store)

How LangGraph's items become memories:

- **user**: ``user_id`` if given, else the namespace's first label; **project**:
  ``project_id``; **tags**: ``langgraph`` on every item, and one tag per leading part of
  its namespace (``lg-`` and a digest of the labels), so a search under a namespace
  prefix is a tag filter in memstream, and the item's own key a tag of its own.
- an item is a ``remember_fact``: its content the JSON of ``{"namespace", "key",
  "value"}`` (what full-text and vector search read, and what the item is read back
  from; a context block shows it as its key and its value's text), exclusive in the
  slot of its namespace and key, so a ``put`` supersedes the item's earlier value (kept
  as history) and a ``delete`` forgets it.
- ``search`` with a query is memstream's hybrid search (BM25, vectors, entities), its
  score the ``SearchItem.score``; without one, the namespace's items newest first.
  ``filter`` is matched on the value (equality, or ``$eq $ne $gt $gte $lt $lte``).
- a ``put`` or ``delete`` returns once the change is applied (its write token: the
  worker applies events shortly after memstream accepts them), so a graph reads its
  writes; ``wait_visible=False`` returns once it is accepted (durable), and the next
  read through the client waits for it instead. Either way a key's writes apply in the
  order they were made: a value said again supersedes as any other, and a ``delete``
  after a ``put`` not yet applied waits for that put, then forgets it.
- a namespace of any depth: the first 29 of its prefixes are tags (memstream keeps 32
  a memory); a search under a deeper prefix filters its 29-label prefix's items.

Not covered: ``ttl`` (memstream's own decay and archive apply instead), ``index``
(memstream indexes every item itself), and ``list_namespaces`` over every user when no
``user_id`` is fixed (it lists the users the key reaches, then their namespaces).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from memstream.client import MemoryClient, MemstreamAPIError
from memstream.events.text_limits import well_formed
from memstream.integrations.visible import until_applied
from memstream.queries.search.request import MAX_QUERY_CHARS

__all__ = ["ITEM_TAG", "MemstreamStore", "namespace_tag"]

#: The tag every item of the store carries.
ITEM_TAG = "langgraph"
#: The most namespace depths tagged (memstream keeps 32 tags a memory).
_TAGGED_DEPTHS = 29
#: The longest item memstream keeps (a remembered fact's content).
MAX_ITEM_CHARS = 4000


def namespace_tag(namespace: tuple[str, ...]) -> str:
    """The tag of the items under ``namespace`` (a prefix of theirs, or their own)."""
    digest = hashlib.sha256(json.dumps(list(namespace)).encode()).hexdigest()[:24]
    return f"lg-{digest}"


def _key_tag(namespace: tuple[str, ...], key: str) -> str:
    digest = hashlib.sha256(json.dumps([*namespace, key]).encode()).hexdigest()[:24]
    return f"lgk-{digest}"


class MemstreamStore(BaseStore):
    """LangGraph's store interface over a memstream server (see the module docstring).

    Args:
        client: the client to call (one of ``url`` and ``api_key`` by default).
        user_id: every item's user; else the namespace's first label is the user.
        project_id: every item's project.
        wait_visible: whether a write returns only once it is applied (as LangGraph's
            own stores behave); without, it returns once memstream accepted it (durable)
            and the client's next read of the user waits for it.
        visible_seconds: how long a write (or a delete after a put) waits at most for
            the writes before it to be applied.
    """

    supports_ttl = False

    def __init__(
        self,
        client: MemoryClient | None = None,
        *,
        url: str | None = None,
        api_key: str | None = None,
        user_id: str | None = None,
        project_id: str | None = None,
        wait_visible: bool = True,
        visible_seconds: float = 30.0,
    ) -> None:
        self.client = client or MemoryClient(url, api_key=api_key, agent="langgraph")
        self.user_id = user_id
        self.project_id = project_id
        self.wait_visible = wait_visible
        self.visible_seconds = visible_seconds

    # -- the interface LangGraph calls ------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, PutOp):
            if op.value is None:
                self._delete(op.namespace, op.key)
            else:
                self._put(op.namespace, op.key, op.value)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise TypeError(f"unknown store operation {type(op).__name__}")

    # -- operations -------------------------------------------------------------------

    def _user(self, namespace: tuple[str, ...]) -> str:
        if self.user_id is not None:
            return self.user_id
        if not namespace:
            raise ValueError("the namespace's first label names the user: give one")
        return namespace[0]

    def _put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any]) -> None:
        try:
            content = well_formed(
                json.dumps(
                    {"namespace": list(namespace), "key": key, "value": dict(value)},
                    ensure_ascii=False,
                    sort_keys=True,
                )
            )
        except (TypeError, ValueError, RecursionError) as error:
            message = f"item {key!r} is not a JSON document memstream can keep: {error}"
            raise ValueError(message) from None
        if len(content) > MAX_ITEM_CHARS:
            raise ValueError(
                f"item {key!r} is {len(content)} characters as JSON; memstream keeps an "
                f"item of at most {MAX_ITEM_CHARS}"
            )
        tags = [
            ITEM_TAG,
            _key_tag(namespace, key),
            *(namespace_tag(namespace[:depth]) for depth in range(1, len(namespace) + 1)),
        ][: 2 + _TAGGED_DEPTHS]
        user = self._user(namespace)
        self.client.remember(
            user,
            content,
            project_id=self.project_id,
            subject=namespace_tag(namespace),
            attribute=_key_tag(namespace, key),
            exclusive=True,
            tags=tags,
        )
        if self.wait_visible:
            self._applied(user, f"the put of {key!r}")

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        row = self._current_row(namespace, key)
        return None if row is None else _item(row)

    def _delete(self, namespace: tuple[str, ...], key: str) -> None:
        user = self._user(namespace)
        self._applied(user, f"the put of {key!r}")  # a put of ours not yet applied
        row = self._current_row(namespace, key)
        if row is None:
            return
        self.client.forget(user, str(row["memory_id"]))
        if self.wait_visible:
            self._applied(user, f"the delete of {key!r}")

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = op.namespace_prefix
        users = [self._user(prefix)] if prefix or self.user_id else self._users()
        wanted = op.offset + op.limit
        found: list[SearchItem] = []
        tag = namespace_tag(prefix[:_TAGGED_DEPTHS]) if prefix else ITEM_TAG
        under = prefix if len(prefix) > _TAGGED_DEPTHS else ()  # deeper than tagged
        for user in users:
            if op.query:
                found += self._searched(user, op.query, tag, under, op.filter, wanted)
            else:
                found += self._listed(user, tag, under, op.filter, wanted)
        if op.query:
            found.sort(key=lambda item: -(item.score or 0.0))
        return found[op.offset : wanted]

    def _searched(
        self,
        user: str,
        query: str,
        tag: str,
        under: tuple[str, ...],
        where: dict[str, Any] | None,
        wanted: int,
    ) -> list[SearchItem]:
        depth = min(100, wanted * (4 if where or under else 1))
        answer = self.client.search(
            user,
            well_formed(query[:MAX_QUERY_CHARS]),
            k=depth,
            tags=[tag],
            kinds=["fact"],
            project_id=self.project_id,
        )
        items = []
        for hit in answer["results"]:
            item = _search_item(hit, hit["score"])
            fits = item is not None and _fits(item.namespace, under, "prefix")
            if item is not None and fits and _matches(item.value, where):
                items.append(item)
        return items[:wanted]

    def _listed(
        self,
        user: str,
        tag: str,
        under: tuple[str, ...],
        where: dict[str, Any] | None,
        wanted: int,
    ) -> list[SearchItem]:
        items = []
        for row in self._rows(user, tag):
            item = _search_item(row, None)
            if item is None or not _fits(item.namespace, under, "prefix"):
                continue
            if _matches(item.value, where):
                items.append(item)
                if len(items) >= wanted:
                    break
        return items

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefix: tuple[str, ...] = ()
        suffix: tuple[str, ...] = ()
        for condition in op.match_conditions or ():
            if condition.match_type == "prefix":
                prefix = tuple(condition.path)
            else:
                suffix = tuple(condition.path)
        if self.user_id is not None:
            users = [self.user_id]
        elif prefix and prefix[0] != "*":
            users = [prefix[0]]
        else:
            users = self._users()
        found: set[tuple[str, ...]] = set()
        for user in users:
            for row in self._rows(user, ITEM_TAG):
                item = _search_item(row, None)
                if item is None:
                    continue
                namespace = item.namespace
                if not (_fits(namespace, prefix, "prefix") and _fits(namespace, suffix, "suffix")):
                    continue
                if op.max_depth is not None:
                    namespace = namespace[: op.max_depth]
                found.add(namespace)
        return sorted(found)[op.offset : op.offset + op.limit]

    # -- reading memstream ------------------------------------------------------------

    def _rows(self, user: str, tag: str) -> Iterator[dict[str, Any]]:
        """The user's current items carrying ``tag``, newest first."""
        try:
            yield from self.client.all_memories(
                user, tag=tag, kind="fact", project_id=self.project_id, limit=200
            )
        except MemstreamAPIError as error:
            if error.status != 404:
                raise

    def _current_row(self, namespace: tuple[str, ...], key: str) -> dict[str, Any] | None:
        page = self.client.list(
            self._user(namespace),
            tag=_key_tag(namespace, key),
            kind="fact",
            project_id=self.project_id,
            limit=1,
        )
        rows = page["memories"]
        return rows[0] if rows else None

    def _current(self, namespace: tuple[str, ...], key: str) -> str | None:
        row = self._current_row(namespace, key)
        return None if row is None else str(row["memory_id"])

    def _users(self) -> list[str]:
        return [str(u["user_id"]) for u in self.client.users()]

    def _applied(self, user: str, what: str) -> None:
        """Wait until the writes of ``user`` made through the client are applied."""
        token = self.client.written(user)
        if token is not None:
            until_applied(self.client, user, token, self.visible_seconds, what)


def _search_item(row: dict[str, Any], score: float | None) -> SearchItem | None:
    """The item a memory holds (None for a memory that is not one of the store's)."""
    try:
        document = json.loads(row["content"])
        namespace = tuple(str(label) for label in document["namespace"])
        key, value = str(document["key"]), document["value"]
    except (ValueError, KeyError, TypeError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    at = _time(row.get("occurred_at"))
    return SearchItem(namespace, key, value, at, at, score)


def _item(row: dict[str, Any]) -> Item | None:
    found = _search_item(row, None)
    if found is None:
        return None
    return Item(
        value=found.value,
        key=found.key,
        namespace=found.namespace,
        created_at=found.created_at,
        updated_at=found.updated_at,
    )


def _time(text: Any) -> datetime:
    if isinstance(text, str):
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    return datetime.now(UTC)


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
}


def _matches(value: dict[str, Any], where: dict[str, Any] | None) -> bool:
    """Whether ``value`` satisfies LangGraph's ``filter`` (a missing field fails)."""
    for field, wanted in (where or {}).items():
        have = value.get(field)
        if isinstance(wanted, dict) and wanted and all(k in _OPERATORS for k in wanted):
            try:
                if not all(_OPERATORS[op](have, arg) for op, arg in wanted.items()):
                    return False
            except TypeError:
                return False
        elif have != wanted:
            return False
    return True


def _fits(namespace: tuple[str, ...], path: tuple[str, ...], how: str) -> bool:
    if not path:
        return True
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if how == "prefix" else namespace[-len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))
