"""The console in a real browser (Debian's Chromium, driven by Playwright) against a real
worker, broker and LanceDB with API keys on: logging in, hostile memory content that
must read as sent and run nothing, correcting a memory and seeing its history, the
playground's numbers against the API's, a document from upload to indexed, the health
page's lag rising and falling while the worker is frozen, a read key refused every
action, actions without the session's token refused, and another tenant's pages
refused without saying whether they exist."""

from __future__ import annotations

import json
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page
from support.browser import PWNED, chromium, logged_in, screenshot, watch_for_scripts

from memstream.tenancy.keys import KeyStore
from memstream.testing import WorkerProcess, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.slow]

ANA = "acme:ana"
BOB = "globex:bob"

#: Memory content meant to run in, or mislead, a page that shows it.
HOSTILE = [
    "<script>window.__pwned = 'script'; alert('script')</script>",
    "<img src=x onerror=\"window.__pwned='img'; alert('img')\"> my cat",
    "[click me](javascript:window.__pwned='link') and <a href=\"javascript:alert(1)\">x</a>",
    "**bold** <svg onload=\"window.__pwned='svg'\"></svg> `code` {{ 7*7 }} {% raw %}",
    "Pay to \u0430cme\u2024com \u202egnp.exe\u202c now",  # Cyrillic a, one-dot leader, RLO
]


class Console:
    """The deployment the tests share, with its keys and what they wrote."""

    def __init__(self, worker: WorkerProcess, tokens: dict[str, str]) -> None:
        self.worker, self.tokens = worker, tokens
        self.api = worker.api_url
        self.memories: dict[str, str] = {}  # content -> memory id (ana's)

    def call(self, who: str, method: str, path: str, body: Any = None, **params: Any) -> Any:
        answer = httpx.request(
            method,
            f"{self.api}{path}",
            json=body,
            params=params or None,
            headers={"Authorization": f"Bearer {self.tokens[who]}"},
            timeout=60,
        )
        return answer


def _turn(user: str, i: int, text: str, session: str = "s1") -> dict[str, Any]:
    return {
        "event_id": f"{user.split(':')[1]}-{i}",
        "user_id": user,
        "session_id": session,
        "role": "user",
        "speaker": "Ana" if user == ANA else "Bob",
        "content": text,
        "occurred_at": f"2024-05-0{1 + i % 8}T10:{i % 60:02d}:00Z",
    }


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    data = tmp_path_factory.mktemp("console") / "data"
    keys = KeyStore(data)
    tokens = {
        "acme-admin": keys.create("acme", "admin")[1],
        "acme": keys.create("acme", "write")[1],
        "acme-read": keys.create("acme", "read")[1],
        "globex": keys.create("globex", "write")[1],
    }
    worker = WorkerProcess(data, env={"MEMSTREAM_CONSOLE_SAMPLE_SECONDS": "1"}).start()
    try:
        worker.wait_serving()
        c = Console(worker, tokens)
        said = [
            "I moved to Lisbon with Bob in March.",
            "Bob works at Acme with Carol.",
            "Carol and Bob went hiking in Sintra.",
            *HOSTILE,
        ]
        turns = [_turn(ANA, i, text) for i, text in enumerate(said)]
        assert c.call("acme", "POST", "/v1/events", turns).status_code == 202
        bobs = [_turn(BOB, 0, "My secret pet is a wombat called Fig.")]
        assert c.call("globex", "POST", "/v1/events", bobs).status_code == 202

        def listed() -> list[dict[str, Any]] | None:
            page = c.call("acme", "GET", "/v1/memories", user_id=ANA, limit=50).json()
            return page["memories"] if len(page["memories"]) == len(said) else None

        c.memories = {m["content"]: m["memory_id"] for m in wait_until(listed, timeout=60)}
        wait_until(
            lambda: c.call("globex", "GET", "/v1/memories", user_id=BOB).json()["memories"],
            timeout=60,
        )
        yield c
    finally:
        worker.stop(timeout=60)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as found:
        yield found


#: The elements reaching past the window's right edge, deepest first (what to fix).
_WIDEST = """(() => { const past = e => e.getBoundingClientRect().right > window.innerWidth + 0.5;
  return [...document.querySelectorAll('body *')].filter(past)
    .filter(e => ![...e.children].some(past)).slice(0, 4)
    .map(e => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className); })()"""


@pytest.mark.parametrize("width", [390, 1366])
def test_every_page_fits_a_phone_and_a_laptop_without_scrolling_sideways(
    console: Console, browser: Browser, width: int
) -> None:
    """Each page is as wide as the window or narrower: a wide table scrolls inside its
    own box, never the page."""
    memory = next(iter(console.memories.values()))
    user = f"/console/users/{ANA}"
    pages = ["/console", "/console/users", user, f"{user}/memories/{memory}",
             f"{user}/playground?q=where+did+Ana+move", f"{user}/documents", f"{user}/served",
             "/console/keys", "/console/dead-letters"]  # fmt: skip
    page = logged_in(browser, console.api, console.tokens["acme-admin"])
    page.set_viewport_size({"width": width, "height": 900})
    wide = {}
    for path in pages:
        page.goto(f"{console.api}{path}")
        page.wait_for_load_state("load")
        over = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        if over > 0:
            wide[path] = (over, page.evaluate(_WIDEST))
    page.context.close()
    assert wide == {}, f"pages wider than {width} px (by px, and what reaches past): {wide}"


def test_login_exchanges_a_key_for_an_http_only_strict_cookie_that_expires(
    console: Console, browser: Browser
) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{console.api}/console/users/{ANA}")
    assert "/console/login" in page.url, "no session: the login page"
    page.fill("#key", "msk_000000000000_not-a-key")
    page.click("button[type=submit]")
    assert page.locator("[role=alert]").inner_text() == "this API key is unknown or revoked"
    page.fill("#key", console.tokens["acme"])
    page.click("button[type=submit]")
    page.wait_for_url(f"{console.api}/console/users/{ANA}")  # back where it was going
    (cookie,) = context.cookies()
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/console"
    assert 0 < cookie["expires"] - time.time() <= 8 * 3600 + 60
    assert console.tokens["acme"] not in cookie["value"], "the key itself is not kept"
    assert page.evaluate("document.cookie") == "", "scripts cannot read the session"
    answer = page.request.get(f"{console.api}/console")
    policy = answer.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy
    context.close()


def test_hostile_content_reads_as_sent_and_runs_nothing(console: Console, browser: Browser) -> None:
    page = logged_in(browser, console.api, console.tokens["acme"])
    dialogs = watch_for_scripts(page)
    _dead_letter(console)
    pages = [f"/console/users/{ANA}", f"/console/users/{ANA}?order=oldest"]
    pages += [f"/console/users/{ANA}/memories/{console.memories[text]}" for text in HOSTILE]
    pages.append(f"/console/users/{ANA}/playground?q=cat+click+bold+pay")
    admin = logged_in(browser, console.api, console.tokens["acme-admin"])
    admin_dialogs = watch_for_scripts(admin)
    for path in pages:
        page.goto(f"{console.api}{path}")
        assert page.evaluate(PWNED) is None, path
        if path == f"/console/users/{ANA}":
            screenshot(page, "timeline")
            assert "Position" in page.locator("#freshness").inner_text()
    for text in HOSTILE:  # each reads as sent, in the timeline and on its own page
        page.goto(f"{console.api}/console/users/{ANA}/memories/{console.memories[text]}")
        assert page.locator("#memory-content").inner_text() == text
        assert page.evaluate(PWNED) is None
    page.goto(f"{console.api}/console/users/{ANA}/memories/{console.memories[HOSTILE[4]]}")
    assert "RIGHT-TO-LEFT OVERRIDE" in page.locator(".warning").inner_text()
    links = page.eval_on_selector_all("a[href]", "all => all.map(a => a.getAttribute('href'))")
    assert not [href for href in links if href.lower().startswith("javascript")]
    # the dead letter's bytes, on the admin's pages
    admin.goto(f"{console.api}/console/dead-letters")
    admin.click("main table a[href^='/console/dead-letters/'] >> nth=0")
    shown = admin.locator("#bytes-text").inner_text()
    assert "<script>window.__pwned='dead'</script>" in shown and "\\xff" in shown
    assert admin.evaluate(PWNED) is None
    screenshot(admin, "dead-letter")
    assert dialogs == [] and admin_dialogs == []
    page.context.close()
    admin.context.close()


def test_a_memory_corrected_in_the_console_shows_its_history(
    console: Console, browser: Browser
) -> None:
    page = logged_in(browser, console.api, console.tokens["acme"])
    old = console.memories["Bob works at Acme with Carol."]
    page.goto(f"{console.api}/console/users/{ANA}/memories/{old}")
    screenshot(page, "memory")
    page.fill("#correction", "Bob works at Globex with Carol.")
    page.click("form[action$='/correct'] button")
    assert "correct: accepted" in page.locator(".notice").inner_text()

    def corrected() -> bool:
        page.reload()
        return page.locator("ol.history li").count() == 2

    wait_until(corrected, timeout=30)
    assert "superseded by" in page.locator("dl.facts").inner_text()
    assert "Bob works at Globex with Carol." in page.locator("ol.history").inner_text()
    page.click("dl.facts a[href*='/memories/']")  # to the correction itself
    assert page.locator("#memory-content").inner_text() == "Bob works at Globex with Carol."
    assert "Bob works at Acme with Carol." in page.locator("ol.history").inner_text()
    lines = (Path(console.worker.data) / "logs" / "audit.jsonl").read_text().splitlines()
    audited = [json.loads(line) for line in lines]
    mine = [a for a in audited if a["operation"] == "correct" and a.get("door") == "console"]
    assert mine and mine[-1]["user_id"] == ANA and mine[-1]["tenant"] == "acme"
    assert "Globex" not in "\n".join(lines), "no content in the audit log"
    page.context.close()


def test_entities_are_a_graph_one_can_walk_with_the_keyboard(
    console: Console, browser: Browser
) -> None:
    page = logged_in(browser, console.api, console.tokens["acme"])
    memory = console.memories["Carol and Bob went hiking in Sintra."]
    page.goto(f"{console.api}/console/users/{ANA}/memories/{memory}")
    page.click("ul.chips a:has-text('Bob')")
    assert page.locator("h1").inner_text().startswith("Bob")
    nodes = page.locator("svg.graph a")
    assert nodes.count() >= 2, "Lisbon and Sintra (at least) are mentioned with Bob"
    names = [nodes.nth(i).get_attribute("aria-label") or "" for i in range(nodes.count())]
    assert any(name.startswith("Sintra,") for name in names), names
    screenshot(page, "entity")
    sintra = next(i for i, name in enumerate(names) if name.startswith("Sintra,"))
    nodes.nth(sintra).focus()  # a link: reached by Tab, followed by Enter
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/entities/en-.*"))
    assert page.locator("h1").inner_text().startswith("Sintra")
    page.keyboard.press("Tab")  # the first stop is the skip link
    assert page.evaluate("document.activeElement.className") == "skip"
    page.context.close()


def test_an_admin_creates_and_revokes_a_key_in_the_console(
    console: Console, browser: Browser
) -> None:
    page = logged_in(browser, console.api, console.tokens["acme-admin"])
    page.goto(f"{console.api}/console/keys")
    page.select_option("select[name=role]", "read")
    page.fill("input[name=name]", "console-made")
    page.click("form[action='/console/keys'] button")
    token = page.locator("#new-key").inner_text().strip()
    assert token.startswith("msk_")
    listed = httpx.get(
        f"{console.api}/v1/memories",
        params={"user_id": ANA},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert listed.status_code == 200, "the new read key reads acme's users"
    screenshot(page, "keys")
    row = page.locator("tr", has_text="console-made")
    row.locator("button:has-text('Revoke')").click()
    page.wait_for_url(f"{console.api}/console/keys")
    assert page.locator("#new-key").count() == 0, "a key is shown once"
    refused = httpx.get(
        f"{console.api}/v1/memories",
        params={"user_id": ANA},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert refused.status_code == 401
    page.context.close()


def test_the_playground_answers_as_the_api_does(console: Console, browser: Browser) -> None:
    ask = {"user_id": ANA, "query": "where did Bob go hiking", "k": 3}
    first = console.call("acme", "POST", "/v1/search", ask).json()["results"]
    returned = {r["memory_id"] for r in first}

    def counts() -> dict[str, int]:
        return {
            m: console.call("acme", "GET", f"/v1/memories/{m}", user_id=ANA).json()["access_count"]
            for m in returned
        }

    wait_until(lambda: all(n >= 1 for n in counts().values()), timeout=30)
    page = logged_in(browser, console.api, console.tokens["acme"])

    # The playground and the API must answer from the same state: a search's access
    # report (this test's first, an earlier test's, or the API search's below, each sent
    # up to 5 s after its answer) applied between the page and the API's answers changes
    # the scores, so the two are compared once no report landed between them.
    def served() -> set[str]:  # what the API's reads recorded as shown (the page: nothing)
        listed = console.call("acme", "GET", "/v1/served", user_id=ANA).json()["served"]
        return {s["served_id"] for s in listed}

    def settled() -> bool:  # every accepted write of the user's partition applied, and
        # a read starting now (a listing, as the page's) knows so
        fresh = console.call("acme", "GET", "/v1/freshness", user_id=ANA).json()
        listed = console.call("acme", "GET", "/v1/memories", user_id=ANA).json()
        return fresh["pending_writes"] == 0 and listed["freshness"]["pending_writes"] == 0

    for _ in range(10):
        wait_until(settled, timeout=30)  # the reports of the last round's reads too
        before, shown_before = counts(), served()
        page.goto(f"{console.api}/console/users/{ANA}/playground?q=where+did+Bob+go+hiking&k=3")
        then = console.call("acme", "POST", "/v1/search", ask).json()["results"]
        block = console.call("acme", "POST", "/v1/context", {"user_id": ANA, "query": ask["query"]})
        fresh = page.locator("#freshness").inner_text()
        if counts() == before and "accepted writes" not in fresh:
            break
        # the two reads' records (and the access report sent with the search's) are on
        # the log before the next round waits for the log to be applied: on a busy
        # machine one still on its way passed for settled, round after round
        wait_until(lambda: len(served() - shown_before) >= 2, timeout=30)  # noqa: B023
    screenshot(page, "playground")
    rows = page.locator("#candidates tbody tr.outcome-returned")
    shown = [
        (rows.nth(i).get_attribute("data-memory"), rows.nth(i).locator("[data-cell=score]"))
        for i in range(rows.count())
    ]
    assert [m for m, _ in shown] == [r["memory_id"] for r in then]
    for (_, cell), result in zip(shown, then, strict=True):
        assert float(cell.inner_text()) == pytest.approx(result["score"], rel=1e-5)
    assert page.locator("#context-block").inner_text() == block.json()["context"]
    assert "Looking here reports no access" in page.inner_text("main")
    # how fresh the answer is: the accesses waited for above are applied, nothing waits
    assert "Position" in fresh and "accepted writes" not in fresh, fresh
    page.context.close()


def test_a_document_is_followed_from_upload_to_indexed(console: Console, browser: Browser) -> None:
    text = "# Lease\n\n## Renewal\n\nThe lease renews every March for one year.\n" * 3
    page = logged_in(browser, console.api, console.tokens["acme"])
    page.goto(f"{console.api}/console/users/{ANA}/documents")
    page.set_input_files(
        "#upload-file",
        {"name": "lease.md", "mimeType": "text/markdown", "buffer": text.encode()},
    )
    page.fill("input[name=title]", "Lease")
    page.click("form[enctype] button")
    seen = {_text(page, "#document-status")}  # "received" while the worker has not applied it

    # the page reloads itself until the document is done
    def indexed() -> bool:
        seen.add(_text(page, "#document-status"))
        return "indexed" in seen

    wait_until(indexed, timeout=60)
    assert seen <= {"", "received", "chunked", "indexed"}, seen
    assert page.locator("ol.chunks li").count() >= 1
    assert "Renewal" in page.locator("ol.chunks").inner_text()
    assert "Lease" in page.locator("h1").inner_text()
    screenshot(page, "document")
    page.goto(f"{console.api}/console/users/{ANA}/documents")
    assert "indexed" in page.locator("table").inner_text()
    page.context.close()


def test_the_health_page_shows_lag_rise_while_the_worker_is_frozen_and_fall_after(
    console: Console, browser: Browser
) -> None:
    page = logged_in(browser, console.api, console.tokens["acme-admin"])
    wait_until(lambda: _text(page, "#live-status"), timeout=30)
    console.worker.signal(signal.SIGSTOP)  # the worker alone: the API child keeps serving
    try:
        turns = [_turn(ANA, 100 + i, f"note number {i}", "s9") for i in range(40)]
        assert console.call("acme", "POST", "/v1/events", turns).status_code == 202
        waiting = wait_until(lambda: _waiting(page) or None, timeout=30)
        assert waiting >= 1
        lagging = page.locator("td[data-cell=lag]").all_inner_texts()
        assert any(cell not in ("0", "?") for cell in lagging)
        # one lag figure everywhere (one sample's): the live line, the table's total,
        # and the sum of the partitions' lag
        said = _lag_figures(page)
        assert said["status"] == said["total"] == sum(said["partitions"]) >= 1, said
        screenshot(page, "health")
    finally:
        console.worker.signal(signal.SIGCONT)
    wait_until(lambda: _waiting(page) == 0, timeout=60)
    assert all(cell == "0" for cell in page.locator("td[data-cell=lag]").all_inner_texts())
    page.context.close()


def test_a_read_key_is_refused_every_action(console: Console, browser: Browser) -> None:
    page = logged_in(browser, console.api, console.tokens["acme-read"])
    memory = console.memories["I moved to Lisbon with Bob in March."]
    page.goto(f"{console.api}/console/users/{ANA}/memories/{memory}")
    assert page.locator("main button[disabled]").count() == 3
    token = page.locator("header input[name=action_token]").get_attribute("value")
    assert token
    for action in ("correct", "confirm", "forget", "restore"):
        answer = page.request.post(
            f"{console.api}/console/users/{ANA}/memories/{memory}/{action}",
            form={"action_token": token, "content": "changed"},
        )
        assert answer.status == 403, action
        assert "read-only" in answer.text()
    for path in ("/console/keys", "/console/dead-letters"):
        assert page.request.get(f"{console.api}{path}").status == 403
    answer = page.request.post(
        f"{console.api}/console/keys", form={"action_token": token, "role": "admin"}
    )
    assert answer.status == 403
    unchanged = console.call("acme", "GET", f"/v1/memories/{memory}", user_id=ANA).json()
    assert unchanged["content"] == "I moved to Lisbon with Bob in March."
    assert unchanged["protected"] is False and unchanged["forgotten_at"] is None
    page.context.close()


def test_forget_is_marked_as_destructive_and_asks_for_a_tick(
    console: Console, browser: Browser
) -> None:
    page = logged_in(browser, console.api, console.tokens["acme"])
    memory = console.memories["Carol and Bob went hiking in Sintra."]
    page.goto(f"{console.api}/console/users/{ANA}/memories/{memory}")
    forget = page.locator("form[action$='/forget'] button")
    confirm = page.locator("form[action$='/confirm'] button")
    colour = "el => getComputedStyle(el).backgroundColor"
    assert forget.evaluate(colour) != confirm.evaluate(colour)  # not alike at a glance
    forget.click()  # the tick is required: the browser does not send the form
    assert page.url.endswith(memory)
    token = page.locator("header input[name=action_token]").get_attribute("value") or ""
    unticked = page.request.post(
        f"{console.api}/console/users/{ANA}/memories/{memory}/forget",
        form={"action_token": token},
    )
    assert unticked.status == 422 and "tick" in unticked.text()
    still = console.call("acme", "GET", f"/v1/memories/{memory}", user_id=ANA).json()
    assert still["forgotten_at"] is None
    page.context.close()


def test_actions_without_the_sessions_token_are_refused(console: Console, browser: Browser) -> None:
    page = logged_in(browser, console.api, console.tokens["acme"])
    other = logged_in(browser, console.api, console.tokens["acme"])
    memory = console.memories["Carol and Bob went hiking in Sintra."]
    page.goto(f"{console.api}/console")
    other.goto(f"{console.api}/console")
    foreign = other.locator("header input[name=action_token]").get_attribute("value")
    url = f"{console.api}/console/users/{ANA}/memories/{memory}/forget"
    forms: list[dict[str, str | float | bool]] = [
        {},
        {"action_token": ""},
        {"action_token": foreign or "x"},
    ]
    for form in forms:
        answer = page.request.post(url, form=form)
        assert answer.status == 403, form
        assert "another site" in answer.text()
    still = console.call("acme", "GET", f"/v1/memories/{memory}", user_id=ANA).json()
    assert still["forgotten_at"] is None
    page.context.close()
    other.context.close()


def test_another_tenants_pages_are_refused_without_saying_what_exists(
    console: Console, browser: Browser
) -> None:
    page = logged_in(browser, console.api, console.tokens["acme-admin"])
    bob_memory = console.call("globex", "GET", "/v1/memories", user_id=BOB).json()["memories"]
    real = bob_memory[0]["memory_id"]
    for user, memory in ((BOB, real), ("globex:nobody", "ep-0000")):
        for path in (
            f"/console/users/{user}",
            f"/console/users/{user}/memories/{memory}",
            f"/console/users/{user}/playground?q=wombat",
            f"/console/users/{user}/entities/en-0000",
            f"/console/users/{user}/documents",
            f"/console/users/{user}/documents/lease",
        ):
            answer = page.request.get(f"{console.api}{path}")
            assert answer.status == 403, path
            assert "this API key cannot act on that user" in answer.text()
            assert "wombat" not in answer.text().replace("q=wombat", "")
    bobs_letters = _dead_letter(console, key=BOB.encode())
    page.goto(f"{console.api}/console/dead-letters")
    assert BOB not in page.inner_text("main")
    for letter in (bobs_letters, "dl-does-not-exist"):
        answer = page.request.get(f"{console.api}/console/dead-letters/{letter}")
        assert answer.status == 404
        assert "no dead letter" in answer.text()
    users = page.request.get(f"{console.api}/console/users").text()
    assert ANA in users and BOB not in users
    page.context.close()


def _text(page: Page, selector: str) -> str:
    """The text an element shows now ("" while there is none)."""
    found = page.locator(selector)
    return found.inner_text() if found.count() else ""


def _waiting(page: Page) -> int | None:
    """The records waiting the health page's live line says (None before it says)."""
    said = re.search(r"; (\d+) records? waiting", _text(page, "#live-status"))
    return int(said.group(1)) if said else None


def _lag_figures(page: Page) -> dict[str, Any]:
    """Every lag figure of the health page, read at one moment (between two updates)."""
    figures: dict[str, Any] = page.evaluate(
        """() => {
          const number = (text) => parseInt(text, 10);
          const line = document.getElementById("live-status").textContent;
          const said = /; (\\d+) records? waiting/.exec(line);
          const cells = [...document.querySelectorAll("td[data-cell=lag]")];
          return {
            status: said ? number(said[1]) : null,
            total: number(document.getElementById("waiting-total").textContent),
            partitions: cells.map((cell) => number(cell.textContent)),
          };
        }"""
    )
    return figures


def _dead_letter(console: Console, key: bytes = ANA.encode()) -> str:
    """Produce a record no event can be read from, past the doors; its dead letter's id."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from aiokafka import AIOKafkaProducer

    from memstream.streams.topics import MESSAGES

    value = b"<script>window.__pwned='dead'</script>\xff\xfe not JSON " + key

    async def produce() -> None:
        producer = AIOKafkaProducer(bootstrap_servers=console.worker.bootstrap)
        await producer.start()
        try:
            await producer.send_and_wait(MESSAGES, value, key=key)
        finally:
            await producer.stop()

    with ThreadPoolExecutor(1) as thread:  # Playwright's loop runs in this thread
        thread.submit(asyncio.run, produce()).result()
    from memstream.storage.filesystems import resolve_location
    from memstream.storage.lance.store import ProjectionStore
    from memstream.storage.lance.tables import DEAD_LETTERS
    from memstream.storage.layout import DataLayout

    uri = DataLayout(resolve_location(str(console.worker.data))).existing_projections()
    assert uri is not None
    store = ProjectionStore.at(uri)

    def found() -> str | None:
        store.refresh()
        rows = store.scan(DEAD_LETTERS, ["dead_letter_id", "value"]).to_pylist()
        return next((r["dead_letter_id"] for r in rows if r["value"] == value), None)

    letter: str = wait_until(found, timeout=30)
    return letter


def test_another_sites_page_stores_reads_and_mints_nothing_with_keys(
    console: Console, browser: Browser
) -> None:
    """Keys on, an admin logged in to the console: a page of another origin tries every
    state-changing route, and a DNS-rebinding page reads as its own origin."""
    from support.cross_site import MARKER, answered, attack, attempts, rebinding_read

    admin = {"Authorization": f"Bearer {console.tokens['acme-admin']}"}
    keys_before = KeyStore(Path(console.worker.data)).records()
    memory_id = console.memories["I moved to Lisbon with Bob in March."]
    kept_before = console.call("acme", "GET", "/v1/memories", user_id=ANA, limit=100,
                               include_hidden="true").json()["memories"]  # fmt: skip
    refused = answered(console.api, 403, admin)
    attack(browser, console.worker.api_port, ANA, memory_id, key=console.tokens["acme-admin"])
    rebound = answered(console.api, 421, admin)
    read = rebinding_read(browser, console.worker.api_port, ANA)
    assert {r["status"] for r in read} <= {0, 421}, read  # Chromium shows 421 as status 0
    assert not any("Lisbon" in r["text"] or "acme" in r["text"] for r in read), read
    assert answered(console.api, 421, admin) >= rebound + len(read)
    assert answered(console.api, 403, admin) >= refused + attempts()
    # a write of the same user after the attack: once it shows, any accepted before it has
    sentinel = [_turn(ANA, 99, "sentinel after the attack", session="s9")]
    assert console.call("acme", "POST", "/v1/events", sentinel).status_code == 202

    def kept() -> list[dict[str, Any]] | None:
        listed = console.call("acme", "GET", "/v1/memories", user_id=ANA, limit=100,
                              include_hidden="true").json()["memories"]  # fmt: skip
        return listed if any(m["content"].startswith("sentinel") for m in listed) else None

    after = wait_until(kept, timeout=60)
    assert not any(MARKER in m["content"] for m in after)
    # the one new turn is the sentinel (background jobs may derive facts meanwhile)
    before_ids = {m["memory_id"] for m in kept_before}
    new_turns = [m["content"] for m in after
                 if m["memory_id"] not in before_ids and m["kind"] == "episode"]  # fmt: skip
    assert new_turns == ["sentinel after the attack"], new_turns
    assert KeyStore(Path(console.worker.data)).records() == keys_before  # nothing minted


def test_the_openapi_document_tells_the_truth_with_keys(console: Console) -> None:
    """schemathesis as the keyless deployment is checked (test_hostile_input.py), with an
    admin key of tenant ``acme``: every answer, 401 and 403 included, as documented."""
    from support.contract import schemathesis

    done = schemathesis(
        console.api, "-H", f"Authorization: Bearer {console.tokens['acme-admin']}", examples=5
    )
    assert done.returncode == 0, done.stdout[-6000:]
    console.worker.check_alive()
