"""The API's own series: requests by route template, their durations, and refusals.

An ASGI middleware (no per-request objects beyond the status it notes) counts each
answered request in ``memstream_http_requests_total`` and times it in
``memstream_http_request_duration_seconds``, labelled by the route's template
(``/v1/memories/{memory_id}``, never the id itself), and counts 429, 503 and 507
answers in ``memstream_refusals_total``. Paths no route matched are labelled
``unmatched``, so a scan of random paths cannot grow the series.
"""

from __future__ import annotations

import re
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memstream.observability import metrics

__all__ = ["REFUSED", "Metering"]

#: The statuses that refuse work to protect the service.
REFUSED = frozenset({429, 503, 507})
#: A convertor in a route's path (``{memory_id:text}``): the template names the parameter.
_CONVERTOR = re.compile(r":\w+}")


class Metering:
    """Wraps the API app (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [500]

        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, noting)
        finally:
            route = _template(scope)
            method = scope.get("method", "")
            code = status[0]
            metrics.HTTP_REQUESTS.labels(method, route, str(code)).inc()
            metrics.HTTP_SECONDS.labels(method, route).observe(time.perf_counter() - started)
            if code in REFUSED:
                metrics.REFUSALS.labels(str(code), route).inc()


def _template(scope: Scope) -> str:
    route: Any = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str):
        return _CONVERTOR.sub("}", path)
    return "unmatched"
