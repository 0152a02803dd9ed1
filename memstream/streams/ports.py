"""Every port a server needs, taken before anything else starts, and who holds a busy
one.

``memstream up`` needs the HTTP API's port, the metrics port and, with the embedded
broker, the broker's; ``memstream serve`` the API's. All of them are tried at once,
before the broker, the worker or the model start, so one refusal names every port in
use (not one per attempt) within a second. A port held by another memstream on this
machine is named with that deployment's data folder: each server records its ports
(:func:`registered`) in a folder of this user's, while it runs. The advice is always to
choose other ports: a second deployment needs its own ports and its own broker (joining
another deployment's broker is refused, see :mod:`memstream.streams.deployment_identity`).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from memstream.streams.listener import PortBusy, PortInUse, listen_on

__all__ = ["PortNeed", "PortsInUse", "holder_of", "registered", "take_ports"]


class PortsInUse(PortInUse):
    """Ports a server needs are held by other programs (each is named)."""


@dataclass(frozen=True)
class PortNeed:
    """A port a server needs: what it serves, where, and the setting that moves it.

    ``listen``: bound and listening now, and handed to the server; otherwise only
    checked free (the embedded broker binds its own)."""

    serving: str
    host: str
    port: int
    setting: str
    listen: bool = True


def _registry() -> Path:
    return Path(tempfile.gettempdir()) / f"memstream-{os.getuid()}" / "servers"


@contextlib.contextmanager
def registered(data: str, ports: Iterable[int], folder: Path | None = None) -> Iterator[None]:
    """Record, for the block's duration, that this process serves ``data`` on ``ports``
    (what :func:`holder_of` reads)."""
    folder = folder or _registry()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{os.getpid()}.json"
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps({"pid": os.getpid(), "data": data, "ports": sorted(ports)}))
    os.replace(temporary, path)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()


def holder_of(port: int, folder: Path | None = None) -> str | None:
    """``memstream serving DATA (pid N)`` when a memstream that is running recorded
    ``port``; None otherwise (another program, or none)."""
    folder = folder or _registry()
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            record = json.loads(path.read_text())
            pid, data, ports = int(record["pid"]), str(record["data"]), record["ports"]
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            continue
        if port in ports and _alive(pid):
            return f"memstream serving {data} (pid {pid})"
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def take_ports(needs: Sequence[PortNeed], folder: Path | None = None) -> list[socket.socket | None]:
    """A listening socket for each need that listens (None for those only checked).

    Raises:
        PortsInUse: naming each port in use and who holds it, in one line, with the
            settings that choose others; nothing is left bound.
    """
    taken: list[socket.socket | None] = []
    busy: list[tuple[PortNeed, str]] = []
    for need in needs:
        try:
            taken.append(_take(need))
        except PortBusy:
            taken.append(None)
            busy.append((need, holder_of(need.port, folder) or "another program"))
        except PortInUse:  # not bindable for another reason: said as it is
            _close(taken)
            raise
    if busy:
        _close(taken)
        raise PortsInUse(_refusal(busy))
    return taken


def _take(need: PortNeed) -> socket.socket | None:
    listener = listen_on(need.host, need.port, serving=need.serving, port_setting=need.setting)
    if need.listen:
        return listener
    listener.close()  # free: its own server binds it
    return None


def _close(sockets: Iterable[socket.socket | None]) -> None:
    for listener in sockets:
        if listener is not None:
            listener.close()


def _refusal(busy: Sequence[tuple[PortNeed, str]]) -> str:
    named = "; ".join(
        f"{n.serving} port {n.port} on {n.host} is in use by {who}" for n, who in busy
    )
    others = any(who.startswith("memstream serving") for _, who in busy)
    settings = " and ".join(n.setting for n, _ in busy)
    advice = f"choose {'another' if len(busy) == 1 else 'others'} with {settings}"
    if others:
        advice += " (a second deployment needs its own ports and its own broker)"
    return f"{named}: {advice}"
