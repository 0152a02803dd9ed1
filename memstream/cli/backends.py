"""Who answers a command's reads and memory commands: a running server, or this process.

When ``memstream up`` or ``memstream serve`` runs for the data folder (it says so in
the folder's local state, :mod:`memstream.server_address`), or ``--api URL``
(``MEMSTREAM_API_URL``) names a server, the command asks it over HTTP: the server has
the store open and the model loaded, so the command answers in a few milliseconds after
Python starts. Otherwise (or with ``--in-process``) the command opens the data folder
itself, as a server would, which takes a second or two before the first answer.

Both answer the same documents (dates as ISO 8601 text), so what a command prints does
not depend on who answered it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import pydantic_core

from memstream.queries.search.request import SearchRequest, SearchResponse
from memstream.settings import Settings
from memstream.storage.errors import MemstreamError

if TYPE_CHECKING:
    from memstream.application import Operations
    from memstream.client import MemoryClient
    from memstream.queries.memory_list import ListRequest

__all__ = [
    "InProcess",
    "MemoryAccess",
    "OverHttp",
    "ServerRefused",
    "memory_access",
    "plain",
    "run_closing",
]

_T = TypeVar("_T")

#: How many times a command asks a busy server again (it answers 503 with Retry-After).
BUSY_RETRIES = 3


class ServerRefused(MemstreamError):
    """The server answered with an error; the message is its explanation, ``status``
    its HTTP status (None when it did not answer)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class MemoryAccess(Protocol):
    """What the command line reads and changes, whoever answers it."""

    def search(self, request: SearchRequest) -> SearchResponse: ...

    def context(
        self,
        user_id: str,
        query: str,
        project_id: str | None,
        budget_tokens: int | None,
        now: datetime | None,
    ) -> dict[str, Any]: ...

    def stats(self, user_id: str | None) -> dict[str, Any]: ...

    def users(self, tenant: str | None) -> list[dict[str, Any]]: ...

    def list_memories(self, request: ListRequest) -> dict[str, Any]: ...

    def entity(self, user_id: str, name: str, project_id: str | None) -> dict[str, Any]: ...

    def explain(self, user_id: str, memory_id: str) -> dict[str, Any]: ...

    def history(self, user_id: str, memory_id: str) -> list[dict[str, Any]]: ...

    def remember(self, fields: dict[str, Any]) -> str: ...

    def correct(self, user_id: str, memory_id: str, content: str) -> str: ...

    def confirm(self, user_id: str, memory_id: str) -> None: ...

    def forget(self, user_id: str, memory_id: str) -> None: ...

    def erase(self, user_id: str) -> dict[str, Any]: ...

    def add_document(
        self, user_id: str, path: Path, wait: float, options: dict[str, Any]
    ) -> dict[str, Any]: ...

    def document(self, user_id: str, document_id: str, wait: float) -> dict[str, Any]: ...

    def documents(self, user_id: str) -> list[dict[str, Any]]: ...

    def remove_document(self, user_id: str, document_id: str, wait: float) -> dict[str, Any]: ...


def memory_access(settings: Settings, in_process: bool = False) -> MemoryAccess:
    """The server to ask (``settings.api_url``, else the one running for the data
    folder), or this process when there is none or ``in_process`` is asked for."""
    if in_process:
        return InProcess(settings)
    url = settings.api_url
    if not url:
        from memstream.server_address import running_api

        url = running_api(settings.local_dir) or ""
    key = settings.api_key.get_secret_value() if settings.api_key else None
    return OverHttp(url, key) if url else InProcess(settings)


class _Closable(Protocol):
    async def close(self) -> None: ...


_C = TypeVar("_C", bound=_Closable)


def run_closing(open_: Callable[[], _C], call: Callable[[_C], Awaitable[_T]]) -> _T:
    """Run ``call`` on what ``open_`` makes, in an event loop of its own; close it after
    (an operations layer lets its background reports finish, briefly)."""

    async def run() -> _T:
        opened = open_()
        try:
            return await call(opened)
        finally:
            await opened.close()

    return asyncio.run(run())


def plain(document: _T) -> _T:
    """``document`` as the HTTP API's JSON carries it (times as ISO 8601 text, UTC as
    ``Z``), so a command answers the same in this process as when it asks a server."""
    result: _T = json.loads(pydantic_core.to_json(document))
    return result


class InProcess:
    """The data folder opened in this process (see the module docstring)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def _run(self, call: Callable[[Operations], Awaitable[_T]]) -> _T:
        """Run one operation, then let its background reports finish (briefly)."""
        from memstream.application import Operations

        return run_closing(lambda: Operations(self.settings), call)

    def search(self, request: SearchRequest) -> SearchResponse:
        return self._run(lambda ops: ops.search(request))

    def list_memories(self, request: ListRequest) -> dict[str, Any]:
        page = self._run(lambda ops: ops.list_memories(request))
        return plain({"memories": page.memories, "next_cursor": page.next_cursor})

    def context(
        self,
        user_id: str,
        query: str,
        project_id: str | None,
        budget_tokens: int | None,
        now: datetime | None,
    ) -> dict[str, Any]:
        block = self._run(lambda ops: ops.context(user_id, query, project_id, budget_tokens, now))
        return plain(asdict(block))

    def stats(self, user_id: str | None) -> dict[str, Any]:
        return plain(self._run(lambda ops: ops.stats(user_id)))

    def users(self, tenant: str | None) -> list[dict[str, Any]]:
        return plain(self._run(lambda ops: ops.users(tenant)))

    def entity(self, user_id: str, name: str, project_id: str | None) -> dict[str, Any]:
        return plain(self._run(lambda ops: ops.entity(user_id, name, project_id)))

    def explain(self, user_id: str, memory_id: str) -> dict[str, Any]:
        return plain(self._run(lambda ops: ops.explain(user_id, memory_id)))

    def history(self, user_id: str, memory_id: str) -> list[dict[str, Any]]:
        return plain(self._run(lambda ops: ops.history(user_id, memory_id)))

    def remember(self, fields: dict[str, Any]) -> str:
        done = self._run(lambda ops: ops.remember(fields))
        return str(done.memory_id)

    def correct(self, user_id: str, memory_id: str, content: str) -> str:
        done = self._run(lambda ops: ops.correct(user_id, memory_id, content))
        return str(done.memory_id)

    def confirm(self, user_id: str, memory_id: str) -> None:
        self._run(lambda ops: ops.confirm(user_id, memory_id))

    def forget(self, user_id: str, memory_id: str) -> None:
        self._run(lambda ops: ops.forget(user_id, memory_id))

    def erase(self, user_id: str) -> dict[str, Any]:
        from memstream.application.results import erasure_document

        return plain(erasure_document(self._run(lambda ops: ops.erase(user_id))))

    def add_document(
        self, user_id: str, path: Path, wait: float, options: dict[str, Any]
    ) -> dict[str, Any]:
        data = path.read_bytes()

        async def add(ops: Operations) -> dict[str, Any]:
            done = await ops.add_document(user_id, data, name=path.name, **options)
            answer: dict[str, Any] = {
                "document_id": done.document_id,
                "checksum": done.checksum,
                "new": done.new,
                "accepted": done.event_ids,
            }
            if wait:
                answer["document"] = await ops.document(
                    user_id, done.document_id, wait, done.checksum
                )
            return answer

        return plain(self._run(add))

    def document(self, user_id: str, document_id: str, wait: float) -> dict[str, Any]:
        return plain(self._run(lambda ops: ops.document(user_id, document_id, wait)))

    def documents(self, user_id: str) -> list[dict[str, Any]]:
        return plain(self._run(lambda ops: ops.documents(user_id)))

    def remove_document(self, user_id: str, document_id: str, wait: float) -> dict[str, Any]:
        return plain(self._run(lambda ops: ops.remove_document(user_id, document_id, wait)))


class OverHttp:
    """A running server, asked over its HTTP API (see the module docstring)."""

    def __init__(self, url: str, api_key: str | None = None) -> None:
        self.url = url
        self._api_key = api_key

    def _ask(self, call: Callable[[MemoryClient], _T]) -> _T:
        import httpx

        from memstream.client import MemoryClient, MemstreamAPIError

        try:
            with MemoryClient(self.url, retries=BUSY_RETRIES, api_key=self._api_key) as client:
                return call(client)
        except MemstreamAPIError as exc:
            raise ServerRefused(_explanation(exc.detail), exc.status) from None
        except httpx.HTTPError as exc:
            raise ServerRefused(f"the API at {self.url} did not answer: {exc}") from None

    def list_memories(self, request: ListRequest) -> dict[str, Any]:
        options = {
            name: value.isoformat() if isinstance(value, datetime) else value
            for name, value in asdict(request).items()
            if name != "user_id"
        }
        return self._ask(lambda api: api.list(request.user_id, **options))

    def search(self, request: SearchRequest) -> SearchResponse:
        options = request.model_dump(mode="json", exclude={"user_id", "query"})
        found = self._ask(lambda api: api.search(request.user_id, request.query, **options))
        return SearchResponse.model_validate(found)

    def context(
        self,
        user_id: str,
        query: str,
        project_id: str | None,
        budget_tokens: int | None,
        now: datetime | None,
    ) -> dict[str, Any]:
        options = {
            "project_id": project_id,
            "budget_tokens": budget_tokens,
            "now": now.isoformat() if now else None,
        }
        given = {name: value for name, value in options.items() if value is not None}
        return self._ask(lambda api: api.context(user_id, query, **given))

    def stats(self, user_id: str | None) -> dict[str, Any]:
        return self._ask(lambda api: api.stats(user_id))

    def users(self, tenant: str | None) -> list[dict[str, Any]]:
        return self._ask(lambda api: api.users(tenant))

    def entity(self, user_id: str, name: str, project_id: str | None) -> dict[str, Any]:
        return self._ask(lambda api: api.entity(user_id, name, project_id))

    def explain(self, user_id: str, memory_id: str) -> dict[str, Any]:
        return self._ask(lambda api: api.explain(user_id, memory_id))

    def history(self, user_id: str, memory_id: str) -> list[dict[str, Any]]:
        return self._ask(lambda api: api.history(user_id, memory_id))

    def remember(self, fields: dict[str, Any]) -> str:
        rest = {name: value for name, value in fields.items() if name not in ("user_id", "content")}
        return self._ask(lambda api: api.remember(fields["user_id"], fields["content"], **rest))

    def correct(self, user_id: str, memory_id: str, content: str) -> str:
        return self._ask(lambda api: api.correct(user_id, memory_id, content))

    def confirm(self, user_id: str, memory_id: str) -> None:
        self._ask(lambda api: api.confirm(user_id, memory_id))

    def forget(self, user_id: str, memory_id: str) -> None:
        self._ask(lambda api: api.forget(user_id, memory_id))

    def erase(self, user_id: str) -> dict[str, Any]:
        return self._ask(lambda api: api.erase(user_id))

    def add_document(
        self, user_id: str, path: Path, wait: float, options: dict[str, Any]
    ) -> dict[str, Any]:
        given = {name: value for name, value in options.items() if value}
        return self._ask(lambda api: api.add_document(user_id, path, wait=wait, **given))

    def document(self, user_id: str, document_id: str, wait: float) -> dict[str, Any]:
        return self._ask(lambda api: api.document(user_id, document_id, wait))

    def documents(self, user_id: str) -> list[dict[str, Any]]:
        return self._ask(lambda api: api.documents(user_id))

    def remove_document(self, user_id: str, document_id: str, wait: float) -> dict[str, Any]:
        return self._ask(lambda api: api.remove_document(user_id, document_id, wait))


def _explanation(detail: Any) -> str:
    """The server's ``detail`` (a sentence or a list of ``field: problem`` lines) as one
    line."""
    if isinstance(detail, list):
        return "; ".join(str(item) for item in detail)
    return str(detail)
