"""The metrics port of a worker or an embedder: ``/metrics``, ``/healthz`` and ``/readyz``.

The API serves the same three paths on its own port (:mod:`memstream.http.app`); a
worker and an embedder have no HTTP server of their own, so each listens on
``metrics_port`` (0: none) with ``prometheus_client``'s WSGI exposition on a thread.
``/healthz`` answers as long as the process runs and touches nothing; ``/readyz``
answers 200 when every readiness check passes, else 503 with the reasons.

The port is bound before the process starts its work (:func:`listen_on`), so a port
in use ends the process at once, in one line that names the setting.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler

from prometheus_client import make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer

from memstream.policies.doors import DoorRule
from memstream.settings import Settings
from memstream.streams.listener import listen_on

__all__ = ["MetricsServer", "Readiness", "bind_metrics", "metrics_rule", "readiness_document"]

log = logging.getLogger(__name__)

#: A readiness check: None when ready, else why not (one short sentence).
Check = Callable[[], str | None]


@dataclass
class Readiness:
    """Named checks, each answering None (ready) or why not; the answer is kept for
    ``cache_seconds`` so a probe every second costs a check every few seconds."""

    checks: dict[str, Check] = field(default_factory=dict)
    cache_seconds: float = 2.0
    clock: Callable[[], float] = time.monotonic
    _last: tuple[float, dict[str, str]] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, check: Check) -> None:
        self.checks[name] = check

    def problems(self) -> dict[str, str]:
        """What keeps this process from serving, by check (empty: ready)."""
        now = self.clock()
        with self._lock:
            if self._last is not None and now - self._last[0] < self.cache_seconds:
                return self._last[1]
            found: dict[str, str] = {}
            for name, check in self.checks.items():
                try:
                    problem = check()
                except Exception as exc:  # a check that fails is a reason, not a crash
                    problem = f"{type(exc).__name__}: {exc}"
                if problem is not None:
                    found[name] = problem
            self._last = (now, found)
            return found


def readiness_document(problems: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """The status code and body of ``/readyz``."""
    if not problems:
        return 200, {"status": "ready"}
    return 503, {"status": "not ready", "reasons": problems}


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # scrapes are not news
        pass


def metrics_rule(settings: Settings) -> DoorRule:
    """The Host and Origin rule of the metrics port ``settings`` name."""
    return settings.door_rule(settings.metrics_host, settings.metrics_port)


def bind_metrics(host: str, port: int) -> socket.socket | None:
    """The metrics port's socket, bound now (None when ``port`` is 0: no metrics port).

    Raises:
        PortInUse: naming the port and ``MEMSTREAM_METRICS_PORT``.
    """
    if port == 0:
        return None
    return listen_on(
        host,
        port,
        serving="the metrics",
        port_setting="MEMSTREAM_METRICS_PORT (0: no metrics port)",
        host_setting="MEMSTREAM_METRICS_HOST",
    )


class MetricsServer:
    """``/metrics``, ``/healthz`` and ``/readyz`` on ``listener``, on a daemon thread."""

    def __init__(
        self, listener: socket.socket, readiness: Readiness, rule: DoorRule | None = None
    ) -> None:
        self._readiness = readiness
        host, port = listener.getsockname()[:2]
        #: the Host and Origin rule (default: loopback names and the bound address)
        self._rule = rule or DoorRule.serving(host, port)
        self._metrics = make_wsgi_app()
        server = ThreadingWSGIServer(listener.getsockname()[:2], _Quiet, bind_and_activate=False)
        server.socket.close()
        server.socket = listener
        # bound already: what server_bind would have set besides binding
        host, port = listener.getsockname()[:2]
        server.server_address = (host, port)
        server.server_name, server.server_port = socket.getfqdn(host), port
        server.setup_environ()
        server.set_app(self._route)
        self._server = server
        self.address = "http://{}:{}".format(*server.server_address)

    def start(self) -> MetricsServer:
        threading.Thread(
            target=self._server.serve_forever, name="metrics-port", daemon=True
        ).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _route(self, environ: dict[str, Any], start: Callable[..., Any]) -> Iterable[bytes]:
        refusal = self._rule.refusal(
            environ.get("REQUEST_METHOD", "GET"),
            environ.get("HTTP_HOST"),
            environ.get("HTTP_ORIGIN"),
            environ.get("HTTP_SEC_FETCH_SITE"),
        )
        if refusal is not None:
            return _json(start, refusal.status, {"detail": refusal.reason})
        path = environ.get("PATH_INFO", "")
        if path == "/healthz":
            return _json(start, 200, {"status": "ok"})
        if path == "/readyz":
            return _json(start, *readiness_document(self._readiness.problems()))
        if path == "/metrics":
            return self._metrics(environ, start)  # type: ignore[no-any-return]
        return _json(start, 404, {"detail": "not found: /metrics, /healthz and /readyz are"})


def _json(start: Callable[..., Any], status: int, body: dict[str, Any]) -> list[bytes]:
    data = json.dumps(body).encode()
    reason = {
        200: "OK",
        403: "Forbidden",
        404: "Not Found",
        421: "Misdirected Request",
        503: "Service Unavailable",
    }[status]
    start(
        f"{status} {reason}",
        [("Content-Type", "application/json"), ("Content-Length", str(len(data)))],
    )
    return [data]
