"""Where the HTTP API of a data folder answers, for the command line on the same machine.

A server (``memstream up`` or ``memstream serve``) writes ``api.json`` into the data
folder's local state folder while it runs: its URL, its process id and an instance token
that its ``/healthz`` answers with. A client command (``memstream search``, ``stats``...)
reads the file and asks that server instead of opening the store and loading the model
itself, which takes longer than the search. The file is trusted only while the process is
alive and the server at the URL answers with the same token (a port reused by another
server, or a file left by a killed one, is ignored).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from memstream.storage.state_folder import DEFAULT_DATA, state_folder

__all__ = [
    "ADDRESS_FILE",
    "DEFAULT_URL",
    "Health",
    "announced",
    "answers",
    "api_url_of",
    "new_instance",
    "running_api",
    "running_server_url",
    "server_url",
]

ADDRESS_FILE = "api.json"
#: Where a server answers when nothing says otherwise (``memstream up``'s default).
DEFAULT_URL = "http://127.0.0.1:8787"
#: How long a client waits for ``/healthz`` before it opens the data folder itself.
HEALTH_SECONDS = 1.0
#: The most of a ``/healthz`` answer read (a server's is a few dozen bytes).
HEALTH_BYTES = 4096


def new_instance() -> str:
    """A token naming one run of a server."""
    return secrets.token_hex(8)


def api_url_of(host: str, port: int) -> str:
    """The URL a client on this machine reaches a server bound to ``host:port`` at."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


@contextlib.contextmanager
def announced(folder: Path, url: str, instance: str) -> Iterator[Path | None]:
    """Write the address file into ``folder`` for the block's duration; remove it after,
    unless another server has announced itself there since. A live server already
    announced there keeps its file (this block then yields None): several replicas of
    the API may share a folder, and clients need only one of them."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ADDRESS_FILE
    if running_api(folder) is not None:
        yield None
        return
    document = {"url": url, "pid": os.getpid(), "instance": instance}
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(document))
    os.replace(temporary, path)
    try:
        yield path
    finally:
        if _read(path).get("instance") == instance:
            with contextlib.suppress(OSError):
                path.unlink()


#: Asks ``/healthz`` at a URL: what it answers (None: nothing, or not a JSON object).
Health = Callable[[str], "Mapping[str, object] | None"]


def running_api(folder: Path, health: Health | None = None) -> str | None:
    """The URL of the server announced in ``folder``, if it runs and answers as itself
    (asked with ``health``: by default the standard library's HTTP; a process that has
    another HTTP client loaded asks with it)."""
    document = _read(folder / ADDRESS_FILE)
    url, pid, instance = document.get("url"), document.get("pid"), document.get("instance")
    if not isinstance(url, str) or not isinstance(pid, int) or not isinstance(instance, str):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, but another user's: not ours to ask
        return None
    answer = (health or _health)(url)
    return url if answer is not None and answer.get("instance") == instance else None


def _health(url: str) -> dict[str, object] | None:
    """What ``/healthz`` at ``url`` answers (None: nothing, or not a JSON object)."""
    if not url.startswith(("http://", "https://")):  # urllib would open file:// too
        return None
    import urllib.request  # (a command that asks with httpx loads none of it)

    try:  # the standard library: a coding agent's hook finds the server this way too
        with urllib.request.urlopen(f"{url}/healthz", timeout=HEALTH_SECONDS) as response:
            answer = json.loads(response.read(HEALTH_BYTES))
    except (OSError, ValueError, RecursionError):
        return None
    return answer if isinstance(answer, dict) else None


def answers(url: str) -> bool:
    """Whether a memstream answers ``/healthz`` at ``url`` (within :data:`HEALTH_SECONDS`)."""
    answer = _health(url)
    return answer is not None and answer.get("status") == "ok"


def server_url(
    environ: Mapping[str, str] = os.environ, *, api: str | None = None, data: str | None = None
) -> str:
    """The API a client on this machine asks, the one rule for the Python client, the
    command line's hooks and every front door that asks a server: ``api`` if given,
    else ``MEMSTREAM_API_URL``, else the server running for the data folder (``data``,
    else ``MEMSTREAM_DATA``; its state in ``MEMSTREAM_STATE_DIR`` when given), else
    :data:`DEFAULT_URL`."""
    return running_server_url(environ, api=api, data=data) or DEFAULT_URL


def running_server_url(
    environ: Mapping[str, str] = os.environ,
    *,
    api: str | None = None,
    data: str | None = None,
    health: Health | None = None,
) -> str | None:
    """:func:`server_url`'s rule without its default: None when no address is given and
    no server runs for the data folder (the command line then answers in its process)."""
    if api:
        return api.rstrip("/")
    if environ.get("MEMSTREAM_API_URL"):
        return environ["MEMSTREAM_API_URL"].rstrip("/")
    folder = state_folder(
        data or environ.get("MEMSTREAM_DATA") or DEFAULT_DATA,
        environ.get("MEMSTREAM_STATE_DIR", ""),
    )
    return running_api(folder, health)


def _read(path: Path) -> dict[str, object]:
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}
