"""A Python client of the HTTP API: publish, search, memory, entity, stats.

    from memstream import MemoryClient
    with MemoryClient("http://127.0.0.1:8787") as memory:
        memory.publish({"user_id": "alice", "session_id": "s1", "role": "user",
                        "content": "I moved to Porto", "occurred_at": "2024-05-01T10:00:00Z"})
        hits = memory.search("alice", "where do I live?")

Errors the API reports (422 with the fields that were wrong, 404) are raised as
:class:`MemstreamAPIError` with the server's explanation.
"""

from __future__ import annotations

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

    def __init__(self, url: str = "http://127.0.0.1:8787", timeout: float = 30.0) -> None:
        self._http = httpx.Client(base_url=url, timeout=timeout)

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

    def stats(self, user_id: str | None = None) -> dict[str, Any]:
        params = {"user_id": user_id} if user_id else {}
        result: dict[str, Any] = self._call("GET", "/v1/stats", params=params)
        return result

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._http.request(method, path, **kwargs)
        if response.status_code >= 400:
            try:
                detail = response.json().get("detail")
            except ValueError:
                detail = response.text
            raise MemstreamAPIError(response.status_code, detail)
        return response.json()
