"""Helpers for testing code that talks to memstream: a real broker, events, a clock.

Use them in your own tests::

    from memstream.testing import embedded_broker, message, FakeClock

    with embedded_broker() as bootstrap:
        ...  # publish to memstream's topics at ``bootstrap``

Nothing here is a mock: the broker is the same embedded Tansu broker memstream runs.
"""

from __future__ import annotations

import itertools
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

from memstream.events.codec import from_document
from memstream.events.vocabulary import Event, MessageEvent
from memstream.streams.broker import EmbeddedBroker
from memstream.streams.lifeline import launched_to_die_with_us
from memstream.streams.publisher import CheckedLine, Published

__all__ = [
    "ApiPublishing",
    "FakeClock",
    "KeptEvents",
    "SpanReceiver",
    "WorkerProcess",
    "descendants",
    "embedded_broker",
    "free_port",
    "message",
    "spawn",
    "wait_until",
]

_counter = itertools.count()


class KeptEvents:
    """An event sink that keeps what is published (a read's access and served reports),
    for a test that reads and has no log to write to."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    async def publish(self, events: Sequence[Event]) -> Published:
        self.events.extend(events)
        return Published([e.event_id for e in events], None)

    async def publish_lines(self, lines: Sequence[CheckedLine]) -> Any:
        raise AssertionError("nothing is written here")

    async def close(self) -> None:
        return None


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def embedded_broker(port: int | None = None) -> Iterator[str]:
    """Run the embedded broker for the duration of the block; yield its bootstrap address."""
    broker = EmbeddedBroker(port=port or free_port())
    broker.start()
    try:
        yield broker.bootstrap
    finally:
        broker.stop()


def _first_error(lines: list[str], most: int = 40) -> list[str]:
    """The first line logged at ERROR or CRITICAL, and what follows it until the next
    log line (its traceback), at most ``most`` lines."""
    for start, line in enumerate(lines):
        if " ERROR " in line or " CRITICAL " in line:
            block = [line]
            for following in lines[start + 1 : start + most]:
                if following[:4].isdigit() and following[4:5] == "-":  # the next log line
                    break
                block.append(following)
            return block
    return []


def message(**fields: Any) -> MessageEvent:
    """A valid message event; any field can be overridden."""
    n = next(_counter)
    document: dict[str, Any] = {
        "event_id": f"test-{n}",
        "user_id": "alice",
        "session_id": "s1",
        "role": "user",
        "content": f"message number {n}",
        "occurred_at": datetime(2024, 5, 1, 12, 0, tzinfo=UTC) + timedelta(seconds=n),
    }
    document.update(fields)
    event = from_document(document)
    assert isinstance(event, MessageEvent)
    return event


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2024, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


def wait_until(check: Callable[[], Any], timeout: float = 60.0, interval: float = 0.2) -> Any:
    """Call ``check`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(interval)
    raise TimeoutError(f"condition not met within {timeout} s (last value: {last!r})")


def descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (children, their children, ...), read from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


def spawn(command: list[str], log_path: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start ``command`` in a session of its own, its output appended to ``log_path``,
    made to die with this (test) process even when that is killed before it can stop it."""
    launch = launched_to_die_with_us(command)
    with open(log_path, "ab") as log:
        return subprocess.Popen(
            launch.command,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
            preexec_fn=launch.preexec_fn,
        )


class WorkerProcess:
    """``memstream up`` in a child process, in a process group of its own (for
    restarts, SIGKILL and signals to the group in tests).

    Args:
        data: the data folder (or an ``s3://`` data location, with ``log_path``).
        kafka: a broker address, or None for the embedded broker on ``broker_port``.
        env: extra ``MEMSTREAM_*`` settings (the embedder is off unless they set
            ``MEMSTREAM_EMBEDDER``; the HTTP API and the metrics get free ports,
            ``api_port`` and ``metrics_port``).
        log_path: where the worker's output goes (default: next to the data folder).
        command: the subcommand and its options (default ``up``; ``worker``, ``serve``...).
    """

    def __init__(
        self,
        data: Path | str,
        kafka: str | None = None,
        broker_port: int | None = None,
        env: dict[str, str] | None = None,
        log_path: Path | None = None,
        command: Sequence[str] = ("up",),
    ) -> None:
        self.command = list(command)
        self.data = data
        self.kafka = kafka
        self.broker_port = broker_port or free_port()
        self.api_port = free_port()
        self.metrics_port = free_port()
        self.env = env or {}
        self.process: subprocess.Popen[bytes] | None = None
        if log_path is None:
            if not isinstance(data, Path):
                raise ValueError("a worker on s3:// data needs a log_path")
            log_path = data.parent / f"{data.name}-worker.log"
        self.log_path = log_path
        self._log_start = 0
        WorkerProcess.known.add(self)

    #: Every worker of this test process still referenced (what a failed test's report
    #: shows the logs of).
    known: ClassVar[weakref.WeakSet[WorkerProcess]] = weakref.WeakSet()

    @property
    def bootstrap(self) -> str:
        return self.kafka or f"127.0.0.1:{self.broker_port}"

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    @property
    def metrics_url(self) -> str:
        """The worker's metrics port (``/metrics``, ``/healthz``, ``/readyz``)."""
        return f"http://127.0.0.1:{self.metrics_port}"

    def __enter__(self) -> WorkerProcess:
        """Start the worker (unless started) and wait until its API serves; stopped when
        the block ends, whatever happened in it."""
        if self.process is None:
            self.start()
        try:
            self.wait_serving(timeout=120)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> WorkerProcess:
        env = {
            **os.environ,
            "MEMSTREAM_BROKER_PORT": str(self.broker_port),
            # upkeep three times as often as deployed, so it races the tests' writes; not
            # more: at 5 s an idle deployment spent 1.4 s of CPU a half minute on it
            "MEMSTREAM_OPTIMIZE_EVERY_SECONDS": "10",
            "MEMSTREAM_EMBEDDER": "none",
            "MEMSTREAM_API_PORT": str(self.api_port),
            "MEMSTREAM_METRICS_PORT": str(self.metrics_port),
            **self.env,
        }
        command = [sys.executable, "-m", "memstream", *self.command, "--data", str(self.data)]
        if self.kafka:
            command += ["--kafka", self.kafka]
        self._log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
        self.process = spawn(command, self.log_path, env)
        return self

    def children(self) -> set[int]:
        """The processes ``memstream up`` started (the broker, the API) and theirs."""
        return descendants(self.process.pid) if self.process is not None else set()

    def signal(self, signum: int, group: bool = False) -> None:
        """Send ``signum`` to ``memstream up``, or to its whole process group."""
        assert self.process is not None
        if group:
            os.killpg(self.process.pid, signum)
        else:
            self.process.send_signal(signum)

    def wait(self, timeout: float) -> int:
        assert self.process is not None
        return self.process.wait(timeout)

    @staticmethod
    def wait_gone(pids: set[int], timeout: float = 10.0) -> set[int]:
        """Wait until none of ``pids`` is alive; return those still alive then."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            alive = {pid for pid in pids if _alive(pid)}
            if not alive:
                return set()
            time.sleep(0.1)
        return {pid for pid in pids if _alive(pid)}

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Wait until the worker owns its partitions."""

        def ready() -> bool:
            self.check_alive()
            return "ready: " in self.log()

        wait_until(ready, timeout)

    def wait_serving(self, timeout: float = 60.0) -> None:
        """Wait until the worker owns its partitions and the HTTP API answers."""
        import httpx

        self.wait_ready(timeout)

        def healthy() -> bool:
            self.check_alive()
            try:
                return httpx.get(f"{self.api_url}/healthz", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until(healthy, timeout)

    def log(self) -> str:
        """What this run of the worker has logged so far."""
        if not self.log_path.exists():
            return ""
        with open(self.log_path, "rb") as log:
            log.seek(self._log_start)
            return log.read().decode(errors="replace")

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` of this worker's log (after its first error, with the
        traceback that follows it, when that is further up) and, for ``up`` on a local
        folder, of its embedded broker's (where a broker that died says why)."""
        logged = self.log().splitlines()
        tail = logged[-lines:]
        first = _first_error(logged)
        if first and first[0] not in tail:  # a crash's cause, far above its aftermath
            tail = ["-- the first error --", *first, "-- the end --", *tail]
        broker = Path(self.data) / "logs" / "broker.log" if isinstance(self.data, Path) else None
        if self.kafka is None and broker is not None and broker.exists():
            tail += ["-- broker.log --", *broker.read_text(errors="replace").splitlines()[-10:]]
        return "\n".join(tail)

    def check_alive(self) -> None:
        """Raise, with the worker's log, if the worker has exited."""
        if self.process is not None and self.process.poll() is not None:
            raise RuntimeError(f"worker exited with {self.process.returncode}: {self.log()}")

    def kill(self) -> None:
        """SIGKILL: no clean shutdown at all."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self, timeout: float = 20.0) -> int | None:
        """Ctrl-C, then SIGKILL if it does not stop in ``timeout`` seconds."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None


class ApiPublishing:
    """A client publishing events through the HTTP API in batches, in a thread of its
    own; it remembers which events were acknowledged (202) and stops at the first
    refusal or connection failure.

    Args:
        url: the API's base URL.
        events: the event documents to publish, in order.
        batch: events per request.
    """

    def __init__(self, url: str, events: list[dict[str, Any]], batch: int = 100) -> None:
        self.url, self.events, self.batch = url, events, batch
        self.acknowledged: list[tuple[str, str]] = []  # (user, event id)
        self.refusals: list[tuple[int, str]] = []
        self.failure: str | None = None
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> ApiPublishing:
        self._thread.start()
        return self

    def join(self, timeout: float = 300.0) -> ApiPublishing:
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError("the client did not finish")
        return self

    def _run(self) -> None:
        import httpx

        self.started_at = time.monotonic()
        with httpx.Client(base_url=self.url, timeout=60) as client:
            for start in range(0, len(self.events), self.batch):
                events = self.events[start : start + self.batch]
                try:
                    response = client.post("/v1/events", json=events)
                except httpx.HTTPError as exc:  # the server died: not acknowledged
                    self.failure = repr(exc)
                    break
                if response.status_code != 202:
                    self.refusals.append((response.status_code, response.text))
                    break
                self.acknowledged += [(e["user_id"], e["event_id"]) for e in events]
        self.finished_at = time.monotonic()


class SpanReceiver:
    """An OTLP/HTTP trace endpoint on loopback that keeps the spans it is sent (what a
    collector would receive), for tests of tracing across processes::

        with SpanReceiver() as receiver:
            env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint}
            ...
            receiver.spans  # [(trace id, span name, service name), ...]
            receiver.timed  # the same with span and parent ids, start and end (ns)
    """

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
            ExportTraceServiceResponse,
        )

        timed: list[tuple[str, str, str, str, str, int, int]] = []
        self.timed = timed

        class _Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                for resource_spans in request.resource_spans:
                    service = next(
                        (
                            a.value.string_value
                            for a in resource_spans.resource.attributes
                            if a.key == "service.name"
                        ),
                        "",
                    )
                    for scope in resource_spans.scope_spans:
                        for span in scope.spans:
                            timed.append(
                                (
                                    span.trace_id.hex(),
                                    span.span_id.hex(),
                                    span.parent_span_id.hex(),
                                    span.name,
                                    service,
                                    span.start_time_unix_nano,
                                    span.end_time_unix_nano,
                                )
                            )
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def spans(self) -> list[tuple[str, str, str]]:
        """(trace id, span name, service name) of each span received."""
        return [(trace_id, name, service) for trace_id, _, _, name, service, _, _ in self.timed]

    def __enter__(self) -> SpanReceiver:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
