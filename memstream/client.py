"""A Python client of the HTTP API: publish, search, memory, entity, stats.

    from memstream import MemoryClient
    with MemoryClient() as memory:
        memory.publish({"user_id": "alice", "session_id": "s1", "role": "user",
                        "content": "I moved to Porto"})
        hits = memory.search("alice", "where do I live?")

The client finds the server as the command line does: the ``url`` given, else
``MEMSTREAM_API_URL``, else the server running for the data folder (the ``api.json`` it
announces itself in; ``MEMSTREAM_DATA`` and ``MEMSTREAM_STATE_DIR`` say where), else
``http://127.0.0.1:8787``. ``api_key`` (else ``MEMSTREAM_API_KEY``) is sent as
``Authorization: Bearer`` to a server that requires keys.

Errors the API reports (422 with the fields that were wrong, 404) are raised as
:class:`MemstreamAPIError` with the server's explanation; a server that cannot be
reached, as :class:`MemstreamUnreachable` naming its address. A server beyond its
capacity answers 503 with ``Retry-After`` (and a key over its rate, 429); ``retries``
says how many times the client waits that long and asks again (none by default). A
message published without ``occurred_at`` is stamped with the time here, before it is
sent, so asking again sends the same event.

Every write answers a write token (where in the log it was put). The clients of one
server in a process keep, per user, the token of their writes; with ``read_your_writes``
(the default) each read of that user passes it as ``after_write``, so the server answers
once the write is applied: what this process wrote through any client, its next read
sees (a write not applied within the server's wait is a 503, :class:`MemstreamAPIError`).
Any read also takes ``after_write=`` given by hand, and ``wait="vectors"`` to wait for
the vectors too. A request made inside an OpenTelemetry span
carries its W3C ``traceparent``, so the server's spans (and the worker's and the
embedder's, through the log) join the caller's trace.

``agent`` and ``session_id`` name the agent the client serves (sent as the
``Memstream-Agent`` and ``Memstream-Session`` headers): every context block and search
answer it is given is recorded under them (``served``: what each agent was shown).
"""

from __future__ import annotations

import builtins
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import quote

import httpx

from memstream.server_address import server_url
from memstream.storage.errors import MemstreamError
from memstream.storage.write_tokens import UnseenWrites

__all__ = [
    "MemoryClient",
    "MemstreamAPIError",
    "MemstreamError",
    "MemstreamUnreachable",
    "server_url",
]

#: The address of the API answered in this process (no socket is opened).
IN_PROCESS_URL = "http://memstream.in-process"


class MemstreamAPIError(MemstreamError):
    """The API refused a request; ``status`` and ``detail`` say why."""

    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(f"{status}: {detail}")
        self.status = status
        self.detail = detail


class MemstreamUnreachable(MemstreamError, ConnectionError):
    """No memstream server answers at ``url``."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(
            f"cannot reach memstream at {url} ({reason}): start it with `memstream up`, or "
            "give the client its address (url=, or MEMSTREAM_API_URL)"
        )
        self.url = url


class MemoryClient:
    """Calls a memstream HTTP API (``memstream up`` or ``memstream serve``); with no
    ``url``, the one the configuration names (see the module docstring). ``transport``
    decides where requests go, as in httpx: over the network by default, or to the API
    answered in this process (:func:`memstream.http.in_process.in_process_transport`)."""

    def __init__(
        self,
        url: str | None = None,
        timeout: float = 30.0,
        retries: int = 0,
        api_key: str | None = None,
        transport: httpx.BaseTransport | None = None,
        read_your_writes: bool = True,
        agent: str | None = None,
        session_id: str | None = None,
    ) -> None:
        if transport is not None and url is None:
            url = IN_PROCESS_URL
        self.url = (url or server_url()).rstrip("/")
        api_key = api_key or os.environ.get("MEMSTREAM_API_KEY") or None
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        if agent is not None:  # what the agent is shown is recorded under its name
            headers["Memstream-Agent"] = agent
        if session_id is not None:
            headers["Memstream-Session"] = session_id
        self._http = httpx.Client(
            base_url=self.url,
            timeout=timeout,
            headers=headers,
            transport=transport,
            # TLS settings only for https: a plain-HTTP client makes no TLS context (loading
            # the CA bundle is 20 ms of a command's start)
            verify=self.url.startswith("https://"),
        )
        self._retries = retries
        self._read_your_writes = read_your_writes
        #: per user, where this process's writes not yet seen applied were put
        self._unseen = _unseen_writes(self.url)
        #: the token of the last write this client made
        self.last_token: str | None = None

    def written(self, user_id: str) -> str | None:
        """The token of this process's writes of ``user_id`` (through any client of the
        same server) that no read has seen applied yet (None: none)."""
        token = self._unseen.of(user_id)
        return token.text() if token is not None else None

    def _wrote(self, users: Iterable[str], answer: Mapping[str, Any]) -> None:
        """Keep the token a write of ``users`` answered."""
        text = answer.get("token")
        if isinstance(text, str):
            self.last_token = text
            self._unseen.wrote(users, text)

    def _read(self, user_id: str, method: str, path: str, where: str, **kwargs: Any) -> Any:
        """A read of ``user_id``'s memory, after this process's writes of the user (its
        ``after_write`` put in ``where``: ``json`` or ``params``), unless the caller gave
        ``after_write`` itself (a token, or None for no wait)."""
        carried = dict(kwargs.get(where) or {})
        token = self._unseen.of(user_id) if self._read_your_writes else None
        if "after_write" in carried:  # the caller's own choice (None: wait for nothing)
            token = None
            if carried["after_write"] is None:
                del carried["after_write"]
        elif token is not None:
            carried["after_write"] = token.text()
        kwargs[where] = carried
        result = self._call(method, path, **kwargs)
        if token is not None:
            self._unseen.seen(user_id, token)  # applied: no later read waits for it
        return result

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def publish(
        self, events: Mapping[str, Any] | Sequence[Mapping[str, Any]]
    ) -> builtins.list[str]:
        """Publish one event or several; return the accepted event ids. A message
        without ``occurred_at`` happened now."""
        now = datetime.now(UTC).isoformat()
        batch = [events] if isinstance(events, Mapping) else list(events)
        stamped = [_timed(event, now) for event in batch]
        body = self._call("POST", "/v1/events", json=stamped)
        self._wrote((str(e.get("user_id")) for e in stamped), body)
        return list(body["accepted"])

    def search(self, user_id: str, query: str, **options: Any) -> dict[str, Any]:
        """Search ``user_id``'s memories; ``options``: project_id, k, now, after, before,
        kinds, tags (datetimes as ISO strings), as_of (memory as it stood at a past
        moment: an ISO time or a write token; the answer's ``as_of`` says which). Every
        read here takes ``as_of``."""
        payload = {"user_id": user_id, "query": query, **options}
        result: dict[str, Any] = self._read(user_id, "POST", "/v1/search", "json", json=payload)
        return result

    def list(self, user_id: str, **options: Any) -> dict[str, Any]:
        """A page of ``user_id``'s memories, newest first: ``{"memories": [...],
        "next_cursor": ...}``. ``options``: kind, session_id, project_id, after, before
        (ISO strings), order (``newest`` or ``oldest``), limit, cursor (the
        ``next_cursor`` of the page before), include_hidden."""
        params = {
            "user_id": user_id,
            **{k: v for k, v in options.items() if v is not None or k == "after_write"},
        }
        for name, value in params.items():
            if isinstance(value, bool):
                params[name] = "true" if value else "false"
        result: dict[str, Any] = self._read(user_id, "GET", "/v1/memories", "params", params=params)
        return result

    def all_memories(self, user_id: str, **options: Any) -> Iterator[dict[str, Any]]:
        """Every memory :meth:`list` gives, page after page."""
        cursor = options.pop("cursor", None)
        while True:
            page = self.list(user_id, cursor=cursor, **options)
            yield from page["memories"]
            cursor = page["next_cursor"]
            if cursor is None:
                return

    def context(self, user_id: str, query: str, **options: Any) -> dict[str, Any]:
        """The memory block for an agent about to answer ``query`` (``context`` is None
        when nothing relevant is found); ``options``: project_id, budget_tokens, now, cutoff
        (False: keep what bears not on the query too), after_write, wait."""
        payload = {"user_id": user_id, "query": query, **options}
        result: dict[str, Any] = self._read(user_id, "POST", "/v1/context", "json", json=payload)
        return result

    def served(self, user_id: str, **options: Any) -> builtins.list[dict[str, Any]]:
        """What callers were given of the user's memory, newest first: who asked, the
        question, the memory ids with their scores, the answer's digest; ``options``:
        memory_id (only the answers that held it: where it was used), limit."""
        params = {"user_id": user_id, **options}
        served: builtins.list[dict[str, Any]] = self._call("GET", "/v1/served", params=params)[
            "served"
        ]
        return served

    def served_answer(self, user_id: str, served_id: str) -> dict[str, Any]:
        """One answer as recorded, with ``rebuilt``: its text rendered again from its
        memory ids over memory as it stood then, and whether its digest is the one
        recorded."""
        path = f"/v1/served/{served_id}"
        result: dict[str, Any] = self._call("GET", path, params={"user_id": user_id})
        return result

    def explain(self, user_id: str, memory_id: str, **options: Any) -> dict[str, Any]:
        """Why a memory exists and how its confidence got where it is."""
        params = {"user_id": user_id, **options}
        path = f"/v1/memories/{memory_id}/explain"
        result: dict[str, Any] = self._read(user_id, "GET", path, "params", params=params)
        return result

    def memory(self, user_id: str, memory_id: str, **options: Any) -> dict[str, Any]:
        params = {"user_id": user_id, **options}
        path = f"/v1/memories/{memory_id}"
        result: dict[str, Any] = self._read(user_id, "GET", path, "params", params=params)
        return result

    def entity(
        self, user_id: str, name: str, project_id: str | None = None, **options: Any
    ) -> dict[str, Any]:
        """An entity's profile, its memories in the project's scope."""
        params = {"user_id": user_id, "name": name, **options}
        if project_id is not None:
            params["project_id"] = project_id
        result: dict[str, Any] = self._read(user_id, "GET", "/v1/entities", "params", params=params)
        return result

    def history(
        self, user_id: str, memory_id: str, **options: Any
    ) -> builtins.list[dict[str, Any]]:
        """The memories that replaced one another through this one, oldest first."""
        params = {"user_id": user_id, **options}
        path = f"/v1/memories/{memory_id}/history"
        body = self._read(user_id, "GET", path, "params", params=params)
        return list(body["history"])

    def remember(self, user_id: str, content: str, **options: Any) -> str:
        """Store a memory stated by the user or an agent; return its id. ``options``:
        project_id, kind, tags."""
        body = self._call(
            "POST", "/v1/memories", json={"user_id": user_id, "content": content, **options}
        )
        self._wrote([user_id], body)
        return str(body["memory_id"])

    def correct(self, user_id: str, memory_id: str, content: str) -> str:
        """Replace a memory with corrected content; return the new memory's id."""
        payload = {"user_id": user_id, "content": content}
        body = self._call("POST", f"/v1/memories/{memory_id}/correct", json=payload)
        self._wrote([user_id], body)
        return str(body["memory_id"])

    def confirm(self, user_id: str, memory_id: str) -> None:
        body = self._call("POST", f"/v1/memories/{memory_id}/confirm", json={"user_id": user_id})
        self._wrote([user_id], body)

    def forget(self, user_id: str, memory_id: str) -> None:
        body = self._call("POST", f"/v1/memories/{memory_id}/forget", json={"user_id": user_id})
        self._wrote([user_id], body)

    def erase(self, user_id: str) -> dict[str, Any]:
        """Erase everything memstream keeps of ``user_id`` (a tenant admin key's call);
        the answer says whether every copy is gone yet (``complete``)."""
        result: dict[str, Any] = self._call("DELETE", f"/v1/users/{user_id}", timeout=300.0)
        return result

    def export(self, user_id: str, format: str = "events") -> Iterator[bytes]:
        """Everything memstream holds of ``user_id`` (a tenant admin key's call), in
        ``format`` (events, json or markdown), a piece at a time as the server streams it."""
        request = self._http.build_request(
            "GET", f"/v1/users/{user_id}/export", params={"format": format}, timeout=300.0
        )
        try:
            response = self._http.send(request, stream=True)
        except httpx.ConnectError as exc:
            raise MemstreamUnreachable(self.url, _reason(exc)) from None
        try:
            if response.status_code >= 400:
                response.read()
                raise MemstreamAPIError(response.status_code, response.json().get("detail"))
            yield from response.iter_bytes()
        finally:
            response.close()

    def add_document(
        self,
        user_id: str,
        path: str | os.PathLike[str] | None = None,
        *,
        text: str | None = None,
        data: bytes | None = None,
        filename: str | None = None,
        wait: float = 0.0,
        **options: Any,
    ) -> dict[str, Any]:
        """Submit a document: a file at ``path``, ``data`` (bytes, named ``filename``)
        or ``text``. ``options``: title, document_id (needed for ``text``), project_id,
        tags, media_type (for ``text``). With ``wait``, waits up to that many seconds
        and the answer's ``document`` is its status (``indexed``, ``failed``...)."""
        params = {"wait": wait} if wait else {}
        timeout = max(60.0, wait + 30.0)
        if text is not None:
            body = {"user_id": user_id, "text": text, **options}
            answer = self._call("POST", "/v1/documents", json=body, params=params, timeout=timeout)
            self._wrote([user_id], answer)
            return dict(answer)
        if path is not None:
            data = Path(path).read_bytes()
            filename = filename or Path(path).name
        if data is None:
            raise ValueError("give the document as a path, data or text")
        # the type travels in the file's part; the tags as one comma-separated field
        fields = {k: v for k, v in options.items() if k not in ("tags", "media_type")}
        form = {"user_id": user_id, **fields}
        if options.get("tags"):
            form["tags"] = ",".join(options["tags"])
        files = {"file": (filename or "document", data, options.get("media_type"))}
        answer = self._call(
            "POST", "/v1/documents", data=form, files=files, params=params, timeout=timeout
        )
        self._wrote([user_id], answer)
        return dict(answer)

    def document(self, user_id: str, document_id: str, wait: float = 0.0) -> dict[str, Any]:
        """A document's status (``wait``: up to that many seconds for it to be done)."""
        params: dict[str, Any] = {"user_id": user_id, **({"wait": wait} if wait else {})}
        path = f"/v1/documents/{quote(document_id, safe='')}"
        return dict(self._call("GET", path, params=params, timeout=max(60.0, wait + 30.0)))

    def remove_document(self, user_id: str, document_id: str, wait: float = 0.0) -> dict[str, Any]:
        """Remove a document: its chunks and facts, of every version, are soft-deleted
        (``wait``: up to that many seconds for it to be applied)."""
        path = f"/v1/documents/{quote(document_id, safe='')}"
        params: dict[str, Any] = {"user_id": user_id, **({"wait": wait} if wait else {})}
        answer = self._call("DELETE", path, params=params, timeout=max(60.0, wait + 30.0))
        self._wrote([user_id], answer)
        return dict(answer)

    def documents(self, user_id: str) -> builtins.list[dict[str, Any]]:
        """The user's documents with their status, newest first."""
        found = self._call("GET", "/v1/documents", params={"user_id": user_id})
        return list(found["documents"])

    def freshness(self, user_id: str, **options: Any) -> dict[str, Any]:
        """How fresh reads of ``user_id`` are: ``position`` (what the projections hold of
        the user's partitions), ``pending_writes``, ``pending_vectors``; after this
        client's writes of the user (or ``after_write=``), so it also waits for them:
        ``wait="vectors"`` for their vectors too."""
        params = {"user_id": user_id, **options}
        result: dict[str, Any] = self._read(
            user_id, "GET", "/v1/freshness", "params", params=params
        )
        return result

    def users(self, tenant: str | None = None) -> builtins.list[dict[str, Any]]:
        """The users memory is held of (a key's own tenant's), with their counts."""
        params = {"tenant": tenant} if tenant else {}
        return list(self._call("GET", "/v1/users", params=params)["users"])

    def stats(self, user_id: str | None = None) -> dict[str, Any]:
        params = {"user_id": user_id} if user_id else {}
        result: dict[str, Any] = self._call("GET", "/v1/stats", params=params)
        return result

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._request(method, path, **kwargs)
        for _ in range(self._retries):
            wait = _retry_after(response)
            if wait is None:
                break
            time.sleep(wait)
            response = self._request(method, path, **kwargs)
        if response.status_code >= 400:
            try:
                detail = response.json().get("detail")
            except ValueError:
                detail = response.text
            raise MemstreamAPIError(response.status_code, detail)
        return response.json()

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        trace = _trace_headers()  # the caller's trace, if it has one, continues in the server
        if trace:
            kwargs["headers"] = {**kwargs.get("headers", {}), **trace}
        try:
            return self._http.request(method, path, **kwargs)
        except httpx.ConnectError as exc:
            raise MemstreamUnreachable(self.url, _reason(exc)) from None
        except httpx.TimeoutException as exc:
            raise MemstreamUnreachable(self.url, f"no answer in time: {_reason(exc)}") from None


#: Per server address, the writes of this process's clients no read has seen yet.
_UNSEEN: dict[str, UnseenWrites] = {}
_UNSEEN_LOCK = threading.Lock()


def _unseen_writes(url: str) -> UnseenWrites:
    with _UNSEEN_LOCK:
        return _UNSEEN.setdefault(url, UnseenWrites())


def _trace_headers() -> dict[str, str]:
    """The W3C trace headers of the caller's current span (none without OpenTelemetry:
    the client needs only httpx; and none while this process has not loaded its API,
    for then no span can be current)."""
    if "opentelemetry.trace" not in sys.modules:
        return {}
    try:
        from opentelemetry import propagate
    except ImportError:
        return {}
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier


def _timed(event: Mapping[str, Any], now: str) -> Mapping[str, Any]:
    """``event``, with ``occurred_at`` now if it is a message that says no time."""
    if event.get("type", "message") != "message" or "occurred_at" in event:
        return event
    return {**event, "occurred_at": now}


def _reason(exc: httpx.HTTPError) -> str:
    text = str(exc).strip()
    if "Connection refused" in text or "Errno 111" in text:
        return "connection refused"
    return text or type(exc).__name__


#: The longest ``Retry-After`` the client waits out; a longer one is reported at once.
MAX_RETRY_AFTER = 10.0


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait before asking again, when the server said to (429, 503)."""
    if response.status_code not in (429, 503):
        return None
    try:
        seconds = float(response.headers.get("Retry-After", ""))
    except ValueError:
        return None
    return seconds if 0 <= seconds <= MAX_RETRY_AFTER else None
