"""Who answers a command's reads and memory commands: a running server, or this process,
through one client of the HTTP API.

When ``memstream up`` or ``memstream serve`` runs for the data folder (it says so in
the folder's local state, :mod:`memstream.server_address`), or ``--api URL``
(``MEMSTREAM_API_URL``) names a server, the command asks it over HTTP: the server has
the store open and the model loaded, so the command answers in a few milliseconds after
Python starts. Otherwise (or with ``--in-process``) the command opens the data folder
itself and asks the same API in this process
(:mod:`memstream.http.in_process`), which takes a second or two before the first answer.

Either way the same routes answer, so what a command prints, and what it is refused
with, does not depend on who answered it.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from memstream.setting_names import SETTING_NAMES, from_environment
from memstream.storage.errors import MemstreamError

if TYPE_CHECKING:
    from memstream.client import MemoryClient
    from memstream.queries.memory_list import ListRequest
    from memstream.settings import Settings

__all__ = [
    "CLI_AGENT",
    "MemoryAccess",
    "ServerRefused",
    "SettingsOnDemand",
    "memory_access",
    "plain",
    "run_closing",
    "running_server",
    "settings_on_demand",
]

_T = TypeVar("_T")

#: How many times a command asks a busy server again (it answers 503 with Retry-After).
BUSY_RETRIES = 3
#: The agent the command line's reads are recorded as served to.
CLI_AGENT = "memstream-cli"


class ServerRefused(MemstreamError):
    """The server answered with an error; the message is its explanation, ``status``
    its HTTP status (None when it did not answer)."""

    def __init__(
        self, message: str, status: int | None = None, problems: list[str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        #: the server's ``field: problem`` lines, when it refused a request's fields
        self.problems = problems or []


class SettingsOnDemand:
    """A command's settings, built the first time they are asked for: a command that a
    running server answers needs none, and is spared their cost (pydantic and every
    setting's validation: a third of a short command's CPU).

    Args:
        build: makes the settings (from the flags and the ``MEMSTREAM_*`` variables).
        args: the command's arguments: ``--api``, ``--data`` and ``--in-process``.
        environ: the environment (the ``MEMSTREAM_*`` variables, in any case).
    """

    def __init__(
        self,
        build: Callable[[], Settings],
        args: argparse.Namespace,
        environ: Mapping[str, str] = os.environ,
    ) -> None:
        self._build = build
        self._built: Settings | None = None
        self.args = args
        #: the settings' variables, by the settings' rule (any case), named in capitals
        self.variables = {
            f"MEMSTREAM_{name.upper()}": value
            for name, value in from_environment(environ, SETTING_NAMES).items()
        }

    def get(self) -> Settings:
        if self._built is None:
            self._built = self._build()
        return self._built


_Handler = TypeVar("_Handler", bound=Callable[..., int])


def settings_on_demand(handler: _Handler) -> _Handler:
    """Mark a command's handler as taking a :class:`SettingsOnDemand`, not settings."""
    setattr(handler, "settings_on_demand", True)  # noqa: B010 (a function's own mark)
    return handler


def running_server(settings: SettingsOnDemand) -> MemoryAccess | None:
    """The server to ask: ``--api`` (``MEMSTREAM_API_URL``), else the one running for the
    data folder, else None; found by the rule every client follows
    (:func:`memstream.server_address.running_server_url`), without the settings."""
    from memstream.client import MemoryClient
    from memstream.server_address import running_server_url

    given = settings.args
    url = running_server_url(
        settings.variables,
        api=getattr(given, "api", None),
        data=getattr(given, "data", None),
        health=_health,
    )
    if not url:
        return None
    key = settings.variables.get("MEMSTREAM_API_KEY") or None
    return MemoryAccess(
        url, lambda: MemoryClient(url, retries=BUSY_RETRIES, api_key=key, agent=CLI_AGENT)
    )


def _health(url: str) -> dict[str, object] | None:
    """What ``/healthz`` at ``url`` answers, asked with httpx (the client the command
    asks with next; the standard library's HTTP would be one more to load)."""
    import httpx

    from memstream.server_address import HEALTH_BYTES, HEALTH_SECONDS

    try:
        # (certificates loaded only for https, as the client does: 30 ms of CPU)
        verify = url.startswith("https://")
        with httpx.stream("GET", f"{url}/healthz", timeout=HEALTH_SECONDS, verify=verify) as answer:
            body = b""
            for chunk in answer.iter_bytes():
                body += chunk
                if len(body) > HEALTH_BYTES:
                    return None
        found = json.loads(body)
    except (httpx.HTTPError, ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


def memory_access(settings: SettingsOnDemand, in_process: bool = False) -> MemoryAccess:
    """The server to ask (:func:`running_server`), or the API answered in this process
    when there is none or ``in_process`` is asked for: one client either way, over the
    network or over the in-process transport."""
    server = None if in_process else running_server(settings)
    if server is not None:
        return server

    def here() -> MemoryClient:
        built = settings.get()  # first: building them sets up this process for the store
        from memstream.client import MemoryClient
        from memstream.http.in_process import in_process_transport

        return MemoryClient(transport=in_process_transport(built), agent=CLI_AGENT)

    return MemoryAccess("this process", here)


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

    import asyncio

    return asyncio.run(run())


def plain(document: _T) -> _T:
    """``document`` as the HTTP API's JSON carries it (times as ISO 8601 text, UTC as
    ``Z``), so a command answers the same in this process as when it asks a server."""
    import pydantic_core

    result: _T = json.loads(pydantic_core.to_json(document))
    return result


class MemoryAccess:
    """What the command line reads and changes, through one client of the HTTP API: a
    running server's, or the API answered in this process (see the module docstring).

    Args:
        where: who answers, as an error names it (a URL, or "this process").
        client: makes the client, for each command's one call.
    """

    def __init__(self, where: str, client: Callable[[], MemoryClient]) -> None:
        self.where = where
        self._client = client

    def _ask(self, call: Callable[[MemoryClient], _T]) -> _T:
        import httpx

        from memstream.client import MemstreamAPIError

        try:
            with self._client() as client:
                return call(client)
        except MemstreamAPIError as exc:
            lines = [str(item) for item in exc.detail] if isinstance(exc.detail, list) else []
            raise ServerRefused(_explanation(exc.detail), exc.status, lines) from None
        except httpx.HTTPError as exc:
            raise ServerRefused(f"the API at {self.where} did not answer: {exc}") from None

    def publish(self, events: list[dict[str, Any]], wait: bool = False) -> str | None:
        """Publish ``events``; their write token (with ``wait``, once they are applied)."""

        def call(api: MemoryClient) -> str | None:
            api.publish(events)
            if wait:
                for user in sorted({str(event["user_id"]) for event in events}):
                    api.freshness(user)  # after the client's write of the user
            return api.last_token

        return self._ask(call)

    def list_memories(self, request: ListRequest, after_write: str | None = None) -> dict[str, Any]:
        options = {
            name: value.isoformat() if isinstance(value, datetime) else value
            for name, value in asdict(request).items()
            if name != "user_id"
        }
        if after_write is not None:
            options["after_write"] = after_write
        return self._ask(lambda api: api.list(request.user_id, **options))

    def search(self, fields: dict[str, Any]) -> dict[str, Any]:
        """The API's answer to a search of ``fields`` (a request as ``/v1/search`` takes it)."""
        options = {
            name: value for name, value in fields.items() if name not in ("user_id", "query")
        }
        return self._ask(lambda api: api.search(fields["user_id"], fields["query"], **options))

    def context(
        self,
        user_id: str,
        query: str,
        project_id: str | None,
        budget_tokens: int | None,
        now: datetime | None,
        after_write: str | None = None,
        as_of: str | None = None,
    ) -> dict[str, Any]:
        options = {
            "project_id": project_id,
            "budget_tokens": budget_tokens,
            "now": now.isoformat() if now else None,
            "after_write": after_write,
            "as_of": as_of,
        }
        given = {name: value for name, value in options.items() if value is not None}
        return self._ask(lambda api: api.context(user_id, query, **given))

    def stats(self, user_id: str | None) -> dict[str, Any]:
        return self._ask(lambda api: api.stats(user_id))

    def users(self, tenant: str | None) -> list[dict[str, Any]]:
        return self._ask(lambda api: api.users(tenant))

    def served(self, user_id: str, memory_id: str | None, limit: int) -> list[dict[str, Any]]:
        given: dict[str, Any] = {"limit": limit, **_given(memory_id=memory_id)}
        return self._ask(lambda api: api.served(user_id, **given))

    def served_answer(self, user_id: str, served_id: str) -> dict[str, Any]:
        return self._ask(lambda api: api.served_answer(user_id, served_id))

    def entity(
        self,
        user_id: str,
        name: str,
        project_id: str | None,
        after_write: str | None = None,
        as_of: str | None = None,
    ) -> dict[str, Any]:
        given = _given(after_write=after_write, as_of=as_of)
        return self._ask(lambda api: api.entity(user_id, name, project_id, **given))

    def explain(
        self, user_id: str, memory_id: str, after_write: str | None = None, as_of: str | None = None
    ) -> dict[str, Any]:
        given = _given(after_write=after_write, as_of=as_of)
        return self._ask(lambda api: api.explain(user_id, memory_id, **given))

    def history(
        self, user_id: str, memory_id: str, after_write: str | None = None, as_of: str | None = None
    ) -> list[dict[str, Any]]:
        given = _given(after_write=after_write, as_of=as_of)
        return self._ask(lambda api: api.history(user_id, memory_id, **given))

    def remember(self, fields: dict[str, Any], wait: bool = False) -> tuple[str, str | None]:
        """Remember ``fields``; the memory's id and the write's token (with ``wait``,
        once it is applied)."""
        rest = {name: value for name, value in fields.items() if name not in ("user_id", "content")}
        user_id = fields["user_id"]
        return self._changed(
            user_id, lambda api: api.remember(user_id, fields["content"], **rest), wait
        )

    def correct(
        self, user_id: str, memory_id: str, content: str, wait: bool = False
    ) -> tuple[str, str | None]:
        """The correction's memory id and write token (with ``wait``, once applied)."""
        return self._changed(user_id, lambda api: api.correct(user_id, memory_id, content), wait)

    def confirm(self, user_id: str, memory_id: str, wait: bool = False) -> str | None:
        """The confirmation's write token (with ``wait``, once applied)."""
        return self._changed(user_id, lambda api: api.confirm(user_id, memory_id), wait)[1]

    def forget(self, user_id: str, memory_id: str, wait: bool = False) -> str | None:
        """The forget's write token (with ``wait``, once applied)."""
        return self._changed(user_id, lambda api: api.forget(user_id, memory_id), wait)[1]

    def _changed(
        self, user_id: str, change: Callable[[MemoryClient], _T], wait: bool
    ) -> tuple[_T, str | None]:
        """What ``change`` answered and its write token (with ``wait``, once applied)."""

        def call(api: MemoryClient) -> tuple[_T, str | None]:
            answered = change(api)
            if wait:
                api.freshness(user_id)  # after the client's write of the user
            return answered, api.last_token

        return self._ask(call)

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


def _given(**options: str | None) -> dict[str, str]:
    """The options a read was given (those left out are not sent)."""
    return {name: value for name, value in options.items() if value}
