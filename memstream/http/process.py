"""The HTTP API as a child of ``memstream up``: it dies with its parent and drains with it.

The parent talks to the child over a pipe:

- ``drain``: from now on publishes are answered 503 ("memstream is stopping"); the child
  answers ``draining`` once no publish is in flight any more, so the parent knows that
  everything the API acknowledged is in the log before it drains the log.
- ``exit``: stop serving and exit.

The child exits when its parent dies, even by SIGKILL: the kernel sends it SIGKILL
(``PR_SET_PDEATHSIG``), and, should that be missed, the pipe reads end-of-file. SIGINT
and SIGTERM sent to the whole process group (Ctrl-C in a terminal, ``kill -- -PGID``)
only put the child into draining: the parent decides when it exits.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import threading
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

from memstream.application import DrainState
from memstream.observability.logs import configure_logging
from memstream.settings import Settings
from memstream.streams.lifeline import start_child

__all__ = ["ApiProcess"]

log = logging.getLogger(__name__)


def _listen(conn: Connection, state: DrainState, server: Any) -> None:
    """The child's control thread: follow the parent's words until exit or EOF."""
    while True:
        try:
            word = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            os._exit(1)
        if word == "drain":
            state.draining = True
            state.wait_idle(timeout=10.0)
            conn.send("draining")
        elif word == "exit":
            server.should_exit = True
            return


def _child(settings_json: str, listener: socket.socket, conn: Connection, parent_pid: int) -> None:
    start_child(parent_pid)
    settings = Settings.model_validate_json(settings_json)
    configure_logging(settings.log_level, settings.log_format)
    import uvicorn

    from memstream.http.serve import build_api
    from memstream.http.wire import api_server_config

    state = DrainState()

    class _Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield  # signals are the parent's business (see the module docstring)

    def _start_draining(signum: int, frame: Any) -> None:
        state.draining = True

    signal.signal(signal.SIGINT, _start_draining)
    signal.signal(signal.SIGTERM, _start_draining)
    app = build_api(settings, drain=state)
    config = api_server_config(
        app, settings.api_host, settings.api_port, timeout_graceful_shutdown=5
    )
    server = _Server(config)
    threading.Thread(target=_listen, args=(conn, state, server), daemon=True).start()
    server.run(sockets=[listener])


class ApiProcess:
    """The API in a spawned child process (see the module docstring), serving on
    ``listener``: the parent's socket, bound and listening, which the child takes over
    (this process closes its copy, so the port is free again once the child exits)."""

    def __init__(self, settings: Settings, listener: socket.socket) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child_conn = context.Pipe()
        self._process = context.Process(
            target=_child,
            args=(settings.for_child(), listener, child_conn, os.getpid()),
            name="memstream-api",
            daemon=True,
        )
        self._process.start()  # the socket is duplicated for the child here
        listener.close()
        child_conn.close()

    def is_alive(self) -> bool:
        return self._process.is_alive()

    def drain(self, timeout: float = 10.0) -> bool:
        """Stop taking publishes; True once none is in flight any more."""
        if not self._process.is_alive():
            return True
        try:
            self._conn.send("drain")
            return bool(self._conn.poll(timeout)) and self._conn.recv() == "draining"
        except (OSError, EOFError):
            return not self._process.is_alive()

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the child to exit; kill it after ``timeout`` seconds."""
        with contextlib.suppress(OSError):
            self._conn.send("exit")
        self._process.join(timeout)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(5)
        self._conn.close()

    def kill(self) -> None:
        if self._process.is_alive():
            self._process.kill()
