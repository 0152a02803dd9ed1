"""Another site's page against a deployment, in a real browser: every route that changes
state tried by ``fetch`` (``no-cors`` and CORS, as text, JSON and multipart) and by
``<form>`` posts of every encoding, from a page on another host name and port; and a
DNS-rebinding read, a page whose own name resolves to 127.0.0.1 on the API's port,
reading users, memories and the console's key form as its own origin.

Chromium resolves ``evil.test`` and ``rebind.test`` to 127.0.0.1
(``--host-resolver-rules``, set by :func:`support.browser.chromium`), so both pages are
real pages of real origins that reach the server on loopback, as an attacker's would.
"""

from __future__ import annotations

import json
import re
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser

from memstream.application import Operations
from memstream.http.app import create_app
from memstream.settings import Settings

__all__ = ["MARKER", "answered", "attack", "attempts", "rebinding_read", "state_changing_routes"]

#: What every planted write carries (the tests assert no memory holds it).
MARKER = "planted-by-another-site"
_CHANGES = {"POST", "PUT", "PATCH", "DELETE"}


def state_changing_routes() -> list[tuple[str, str]]:
    """``(method, path template)`` of every route of the API's port that changes state
    (the API, MCP and the console), read from the app itself."""
    with tempfile.TemporaryDirectory(prefix="memstream-routes-") as data:
        app = create_app(Operations(Settings(data=data)))
        found = set()
        waiting: list[Any] = list(app.routes)
        while waiting:
            route = waiting.pop()
            if hasattr(route, "original_router"):  # a router included in the app (unprefixed)
                waiting += route.original_router.routes
            methods = getattr(route, "methods", None) or set()
            for method in methods & _CHANGES:
                found.add((method, route.path))
    return sorted(found)


def answered(api: str, status: int, headers: dict[str, str] | None = None) -> float:
    """How many requests the API at ``api`` has answered with ``status`` (its metrics)."""
    import httpx
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(f"{api}/metrics", headers=headers, timeout=30).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "memstream_http_requests_total"
        and sample.labels.get("status") == str(status)
    )


def attempts() -> int:
    """How many requests :func:`attack` sends: from two origins of the server's own port
    (``127.0.0.1`` and ``localhost``), a preflighted JSON ``fetch`` of each route, and
    three ``no-cors`` fetches and three ``<form>`` posts of each POST route."""
    routes = state_changing_routes()
    posts = sum(method == "POST" for method, _ in routes)
    return 2 * (len(routes) + 6 * posts)


def filled(path: str, user: str, memory_id: str) -> str:
    """``path`` with its parameters filled for ``user``'s ``memory_id`` (an action: forget)."""
    values = {"user_id": user, "memory_id": memory_id, "document_id": "planted.md",
              "key_id": "000000000000", "action": "forget", "dead_letter_id": "x"}  # fmt: skip
    path = re.sub(r"{(\w+)(:\w+)?}", lambda m: values[m.group(1)], path)
    return f"{path}?user_id={user}"


def _page(api_port: int, routes: list[tuple[str, str]], user: str) -> str:
    """The attacking page: every route, from every angle, then ``window.__done``."""
    event = [{"user_id": user, "session_id": "web", "role": "user", "content": MARKER}]
    bodies = {"json": json.dumps(event), "memory": json.dumps({"user_id": user, "content": MARKER,
              "new_content": MARKER, "jsonrpc": "2.0", "id": 1, "method": "tools/call",
              "params": {"name": "remember_fact", "arguments": {"content": MARKER}}})}  # fmt: skip
    config = {"port": api_port, "routes": routes, "bodies": bodies, "user": user,
              "marker": MARKER}  # fmt: skip
    return _html("cross_site.js", config)


def _html(script: str, config: dict[str, Any]) -> str:
    """A page running ``pages/<script>`` with ``window.CONFIG`` set to ``config``."""
    code = (Path(__file__).parent / "pages" / script).read_text()
    data = json.dumps(config).replace("</", "<\\/")
    return (
        f"<!doctype html><html><body><script>window.CONFIG = {data};\n{code}</script></body></html>"
    )


@contextmanager
def _site(html: str) -> Iterator[int]:
    """A page served at ``/`` of a port of its own (another origin); yields the port."""
    body = html.encode()

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def attack(
    browser: Browser, api_port: int, user: str, memory_id: str, key: str | None = None
) -> None:
    """Open the attacking page at ``http://evil.test:PORT/`` (PORT its own) in a browser
    whose user has a console session (logged in with ``key`` where keys are on), and let
    it try every state-changing route."""
    routes = [(m, filled(p, user, memory_id)) for m, p in state_changing_routes()]
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{api_port}/console")  # the victim's console session
        if key is not None:
            page.fill("#key", key)
            page.click("button[type=submit]")
            page.wait_for_url(f"http://127.0.0.1:{api_port}/console")
        with _site(_page(api_port, routes, user)) as port:
            page.goto(f"http://evil.test:{port}/")
            page.wait_for_function("window.__done === true", timeout=90_000)
    finally:
        context.close()


def rebinding_read(browser: Browser, api_port: int, user: str) -> list[dict[str, Any]]:
    """What a page of ``rebind.test`` on the API's port reads when its name now resolves
    to 127.0.0.1: same-origin fetches of users, memories, a search, the console's keys
    page, and a key minted with the token that page holds. Answers each as
    ``{"path", "status", "text"}``."""
    origin = f"http://rebind.test:{api_port}"
    html = _html("rebinding.js", {"user": user})
    context = browser.new_context()
    try:
        page = context.new_page()
        page.route(f"{origin}/", lambda route: route.fulfill(body=html, content_type="text/html"))
        page.goto(f"{origin}/")
        page.wait_for_function("window.__read !== undefined", timeout=60_000)
        read: list[dict[str, Any]] = page.evaluate("window.__read")
        return read
    finally:
        context.close()
