"""Every client on this machine finds the server by one rule: the Python client (and the
command line through it) and a coding agent's hook answer the same address for the same
environment, and trust an announced server only while it answers as itself."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from memstream.client import server_url as client_server_url
from memstream.hooks.runner import _server as hook_server
from memstream.server_address import ADDRESS_FILE, DEFAULT_URL


@pytest.fixture
def healthz() -> Iterator[tuple[str, str]]:
    """A real HTTP server on loopback whose ``/healthz`` names one instance."""
    instance = "run-1"

    class Health(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"status": "ok", "instance": instance}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", instance
    server.shutdown()
    server.server_close()


def _both(environ: dict[str, str], data: Path) -> tuple[str, str]:
    environment = {**environ, "MEMSTREAM_DATA": str(data)}
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(environment)
    try:
        return client_server_url(environment), hook_server({})
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_an_announced_server_that_answers_as_itself_is_asked(
    tmp_path: Path, healthz: tuple[str, str]
) -> None:
    url, instance = healthz
    announced = {"url": url, "pid": os.getpid(), "instance": instance}
    (tmp_path / ADDRESS_FILE).write_text(json.dumps(announced))
    assert _both({}, tmp_path) == (url, url)


def test_an_announced_server_that_answers_as_another_is_not(
    tmp_path: Path, healthz: tuple[str, str]
) -> None:
    url, _ = healthz
    announced = {"url": url, "pid": os.getpid(), "instance": "another-run"}
    (tmp_path / ADDRESS_FILE).write_text(json.dumps(announced))
    assert _both({}, tmp_path) == (DEFAULT_URL, DEFAULT_URL)


def test_the_variable_wins_and_nothing_announced_means_the_default(tmp_path: Path) -> None:
    assert _both({"MEMSTREAM_API_URL": "http://10.0.0.9:9000/"}, tmp_path) == (
        "http://10.0.0.9:9000",
        "http://10.0.0.9:9000",
    )
    assert _both({}, tmp_path) == (DEFAULT_URL, DEFAULT_URL)


def test_an_address_file_naming_no_http_server_is_not_followed(tmp_path: Path) -> None:
    """A file:// URL in the address file is never opened (urllib would read a local
    file that answers like a server), nor any scheme but HTTP's: the default is asked."""
    folder = tmp_path / "looks-like-a-server"
    folder.mkdir()
    (folder / "healthz").write_text(json.dumps({"status": "ok", "instance": "run-1"}))
    for url in (f"file://{folder}", "ftp://127.0.0.1:1"):
        announced = {"url": url, "pid": os.getpid(), "instance": "run-1"}
        (tmp_path / ADDRESS_FILE).write_text(json.dumps(announced))
        assert _both({}, tmp_path) == (DEFAULT_URL, DEFAULT_URL)
