"""A Python client of the HTTP API: publish, search, memory, entity, stats.

    from memstream import MemoryClient
    with MemoryClient("http://127.0.0.1:8787") as memory:
        memory.publish({"user_id": "alice", "session_id": "s1", "role": "user",
                        "content": "I moved to Porto", "occurred_at": "2024-05-01T10:00:00Z"})
        hits = memory.search("alice", "where do I live?")

Errors the API reports (422 with the fields that were wrong, 404) are raised as
:class:`MemstreamAPIError` with the server's explanation. A server beyond its capacity
answers 503 with ``Retry-After`` (and a key over its rate, 429); ``retries`` says how
many times the client waits that long and asks again (none by default). ``api_key`` is
sent as ``Authorization: Bearer`` to a server that requires keys.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any

import httpx

__all__ = ["MemoryClient", "MemstreamAPIError"]


class MemstreamAPIError(Exception):
    """The API refused a request; ``status`` and ``detail`` say why."""

    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(f"{status}: {detail}")
        self.status = status
        self.detail = detail


class MemoryClient:
    """Calls a memstream HTTP API (``memstream up`` or ``memstream serve``)."""

    def __init__(
        self,
        url: str = "http://127.0.0.1:8787",
        timeout: float = 30.0,
        retries: int = 0,
        api_key: str | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        self._http = httpx.Client(base_url=url, timeout=timeout, headers=headers)
        self._retries = retries

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

    def publish(self, events: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> list[str]:
        """Publish one event or several; return the accepted event ids."""
        body = self._call("POST", "/v1/events", json=events)
        return list(body["accepted"])

    def search(self, user_id: str, query: str, **options: Any) -> dict[str, Any]:
        """Search ``user_id``'s memories; ``options``: project_id, k, now, after, before,
        kinds, tags (datetimes as ISO strings)."""
        payload = {"user_id": user_id, "query": query, **options}
        result: dict[str, Any] = self._call("POST", "/v1/search", json=payload)
        return result

    def context(self, user_id: str, query: str, **options: Any) -> dict[str, Any]:
        """The memory block for an agent about to answer ``query`` (``context`` is None
        when nothing relevant is found); ``options``: project_id, budget_tokens, now."""
        payload = {"user_id": user_id, "query": query, **options}
        result: dict[str, Any] = self._call("POST", "/v1/context", json=payload)
        return result

    def explain(self, user_id: str, memory_id: str) -> dict[str, Any]:
        """Why a memory exists and how its confidence got where it is."""
        result: dict[str, Any] = self._call(
            "GET", f"/v1/memories/{memory_id}/explain", params={"user_id": user_id}
        )
        return result

    def memory(self, user_id: str, memory_id: str) -> dict[str, Any]:
        result: dict[str, Any] = self._call(
            "GET", f"/v1/memories/{memory_id}", params={"user_id": user_id}
        )
        return result

    def entity(self, user_id: str, name: str) -> dict[str, Any]:
        result: dict[str, Any] = self._call(
            "GET", "/v1/entities", params={"user_id": user_id, "name": name}
        )
        return result

    def history(self, user_id: str, memory_id: str) -> list[dict[str, Any]]:
        """The memories that replaced one another through this one, oldest first."""
        body = self._call("GET", f"/v1/memories/{memory_id}/history", params={"user_id": user_id})
        return list(body["history"])

    def remember(self, user_id: str, content: str, **options: Any) -> str:
        """Store a memory stated by the user or an agent; return its id. ``options``:
        project_id, kind, tags."""
        body = self._call(
            "POST", "/v1/memories", json={"user_id": user_id, "content": content, **options}
        )
        return str(body["memory_id"])

    def correct(self, user_id: str, memory_id: str, content: str) -> str:
        """Replace a memory with corrected content; return the new memory's id."""
        payload = {"user_id": user_id, "content": content}
        body = self._call("POST", f"/v1/memories/{memory_id}/correct", json=payload)
        return str(body["memory_id"])

    def confirm(self, user_id: str, memory_id: str) -> None:
        self._call("POST", f"/v1/memories/{memory_id}/confirm", json={"user_id": user_id})

    def forget(self, user_id: str, memory_id: str) -> None:
        self._call("POST", f"/v1/memories/{memory_id}/forget", json={"user_id": user_id})

    def erase(self, user_id: str) -> dict[str, Any]:
        """Erase everything memstream keeps of ``user_id`` (a tenant admin key's call);
        the answer says whether every copy is gone yet (``complete``)."""
        result: dict[str, Any] = self._call("DELETE", f"/v1/users/{user_id}", timeout=300.0)
        return result

    def stats(self, user_id: str | None = None) -> dict[str, Any]:
        params = {"user_id": user_id} if user_id else {}
        result: dict[str, Any] = self._call("GET", "/v1/stats", params=params)
        return result

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._http.request(method, path, **kwargs)
        for _ in range(self._retries):
            wait = _retry_after(response)
            if wait is None:
                break
            time.sleep(wait)
            response = self._http.request(method, path, **kwargs)
        if response.status_code >= 400:
            try:
                detail = response.json().get("detail")
            except ValueError:
                detail = response.text
            raise MemstreamAPIError(response.status_code, detail)
        return response.json()


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
