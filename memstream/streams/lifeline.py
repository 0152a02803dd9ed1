"""Child processes that die with their parent, even when the parent is SIGKILLed.

A child calls :func:`die_with_parent` first thing: on Linux the kernel then sends it
SIGKILL when the parent dies (``PR_SET_PDEATHSIG``); a parent that died before the call
is noticed by its changed parent pid. memstream's children (the HTTP API of ``memstream
up``, replay's decode workers and log reader) never outlive the process that started
them, and so never keep a port, a lock or a half-written folder.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass

from memstream.model_building import build_models_when_used

__all__ = ["Launch", "die_with_parent", "launched_to_die_with_us", "start_child"]

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """Make this process exit when ``parent_pid`` (its parent) dies."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:  # the parent died before the line above
        os._exit(1)


def start_child(parent_pid: int) -> None:
    """What a child of memstream's does first: die with ``parent_pid``, and leave each
    pydantic model unbuilt until it is used (:mod:`memstream.model_building`: the child
    is about to import lancedb)."""
    die_with_parent(parent_pid)
    build_models_when_used()


@dataclass(frozen=True)
class Launch:
    """How to start a program that dies with this process: ``command`` (``setpriv
    --pdeathsig KILL`` in front where the system has it) and the ``preexec_fn`` to pass
    ``subprocess.Popen`` otherwise (None when not needed or not possible)."""

    command: list[str]
    preexec_fn: Callable[[], None] | None


def launched_to_die_with_us(command: list[str]) -> Launch:
    """``command`` made to receive SIGKILL when this process dies, even by SIGKILL.

    ``setpriv`` sets the death signal without running Python code in the forked child,
    which is unsafe once threads (LanceDB's, a test server's) run; without it the
    child calls ``prctl`` itself before ``exec``. Either way the signal comes when the
    *thread* that started the child ends: start children from a thread that lives as
    long as they should."""
    if not sys.platform.startswith("linux"):
        return Launch(command, None)
    setpriv = shutil.which("setpriv")
    if setpriv:
        return Launch([setpriv, "--pdeathsig", "KILL", *command], None)
    return Launch(command, _set_death_signal)


def _set_death_signal() -> None:  # pragma: no cover - runs in the child before exec
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
