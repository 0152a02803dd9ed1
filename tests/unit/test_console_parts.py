"""The console's pure parts and its pages over a real store, in process: session tokens
(signed, expiring, shared by replicas through the data location), how untrusted bytes
and text are shown, the entity graph's layout, the confidence curve, the samples'
series, what a context block leaves out, and the pages answered without a broker as
the operator (escaped, under the security policy, errors as pages)."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstream.application import Operations
from memstream.console.curves import confidence_curve
from memstream.console.graph import HEIGHT, WIDTH, layout
from memstream.console.samples import Samples
from memstream.console.sessions import COOKIE, Sessions
from memstream.console.shown import bytes_as_hex, bytes_as_text, marks, when
from memstream.http.app import create_app
from memstream.observability.deployment_sample import applied_next
from memstream.queries.context.assembly import (
    NO_ROOM,
    SAID_ABOVE,
    UNDER_FLOOR,
    ContextLine,
    assemble,
)
from memstream.queries.memory_list import ListRequest
from memstream.queries.search.request import SearchRequest
from memstream.storage.log_records import LogPosition
from memstream.storage.shared_folder import SharedFolder


def _sessions(folder: Path, clock: list[float], ttl: float = 60.0) -> Sessions:
    return Sessions(SharedFolder.local(folder), ttl, clock=lambda: clock[0])


def test_a_session_token_opens_until_it_expires_and_not_once_changed(tmp_path: Path) -> None:
    now = [1_000_000.0]
    sessions = _sessions(tmp_path, now)
    token = sessions.issue("a1b2c3")
    opened = sessions.open(token)
    assert opened is not None and opened.key_id == "a1b2c3"
    assert opened.accepts(opened.action_token) and not opened.accepts("x" + opened.action_token)
    assert not opened.accepts(None)
    key, expires, nonce, signature = token.split(".")
    for forged in (
        f"ffffff.{expires}.{nonce}.{signature}",  # another key
        f"{key}.{int(expires) + 3600}.{nonce}.{signature}",  # a longer life
        token[:-1] + ("A" if token[-1] != "A" else "B"),  # another signature
        "", "garbage", token + ".x",
    ):  # fmt: skip
        assert sessions.open(forged) is None, forged
    now[0] += 61
    assert sessions.open(token) is None, "expired"


def test_replicas_share_the_secret_through_the_data_location(tmp_path: Path) -> None:
    now = [1_000_000.0]
    one, two = _sessions(tmp_path, now), _sessions(tmp_path, now)
    token = one.issue("a1b2c3")
    opened = two.open(token)
    assert opened is not None
    assert opened.action_token == one.open(token).action_token  # type: ignore[union-attr]
    elsewhere = _sessions(tmp_path / "other", now)
    assert elsewhere.open(token) is None, "another deployment's secret"


def test_two_sessions_of_one_key_have_different_action_tokens(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path, [1_000_000.0])
    first = sessions.open(sessions.issue("a1"))
    second = sessions.open(sessions.issue("a1"))
    assert first is not None and second is not None
    assert first.action_token != second.action_token


@given(st.binary(max_size=300))
def test_bytes_shown_as_text_hold_no_markup_control_or_direction_character(data: bytes) -> None:
    shown = bytes_as_text(data)
    assert not marks(shown), "every invisible or direction character is escaped"
    assert all(ch in "\n\t" or ch.isprintable() or not ch.isspace() for ch in shown)


def test_bytes_read_as_sent_with_what_does_not_show_written_out() -> None:
    sent = "<script>x</script> \u202egnp.exe \u200b".encode() + b"\xff"
    shown = bytes_as_text(sent)
    assert shown.startswith("<script>x</script> \\u202egnp.exe \\u200b")
    assert shown.endswith("\\xff")
    assert bytes_as_hex(b"\x00\x01ab").startswith("000000  00 01 61 62")
    assert marks("Pay \u202eexe") == ["RIGHT-TO-LEFT OVERRIDE"]
    assert when(datetime(2024, 5, 1, 12, tzinfo=UTC)) == "2024-05-01 12:00:00 UTC"
    assert when(None) == "-"


def test_the_graph_puts_the_entity_in_the_middle_and_the_closest_nearest() -> None:
    nodes, edges = layout(
        ("e0", "Ana", "person"),
        [("e1", "Bob", "person", 5), ("e2", "Lisbon", "place", 1), ("e3", "Acme", "org", 1)],
    )
    centre = nodes[0]
    assert centre.centre and (centre.x, centre.y) == (WIDTH / 2, HEIGHT / 2)
    assert len(edges) == 3
    distance = {n.name: ((n.x - centre.x) ** 2 + (n.y - centre.y) ** 2) ** 0.5 for n in nodes[1:]}
    assert distance["Bob"] < distance["Lisbon"]
    assert all(0 <= n.x <= WIDTH and 0 <= n.y <= HEIGHT for n in nodes)
    assert edges[0].width > edges[1].width
    assert layout(("e0", "Ana", "person"), []) == ([centre], [])


def test_the_confidence_curve_falls_with_time_and_marks_today() -> None:
    curve = confidence_curve(0.9, 0.05, days_since_used=10, access_count=0)
    ys = [float(p.split(",")[1]) for p in str(curve["points"]).split()]
    assert ys == sorted(ys), "lower on the page as it decays"
    assert 0 < float(curve["today_x"]) < float(curve["width"])  # type: ignore[arg-type]
    assert curve["today"] == pytest.approx(0.9 * 2.718281828 ** (-0.05 * 10**0.8), rel=1e-6)


def test_samples_give_lag_and_ingest_over_time() -> None:
    samples = Samples(1.0)
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    key = ("memory.messages", 0)
    samples.add(t0, {key: 10}, {key: 10})
    samples.add(t0 + timedelta(seconds=2), {key: 30}, {key: 12})
    samples.add(t0 + timedelta(seconds=4), None, {key: 30})  # the broker did not answer
    series = samples.series()
    assert series["lag"] == [0, 18, 0]
    assert series["ingest_per_second"] == [None, 10.0, 0.0]
    assert series["partitions"]["memory.messages/0"] == [0, 18, 0]
    assert samples.latest() is not None and not samples.latest().broker_answered  # type: ignore[union-attr]
    assert samples.kept.maxlen == 3601
    old = {key: LogPosition("old", "memory.messages", 0, 99)}
    assert applied_next(old, "new") == {}
    assert applied_next(old, "old") == {key: 100}


def test_a_context_block_says_what_it_left_out_and_why() -> None:
    def line(memory_id: str, score: float, words: int = 5) -> ContextLine:
        return ContextLine(memory_id, " ".join(["word"] * words), score=score)

    built = assemble(
        {
            "facts": [line("a", 1.0), line("big", 0.9, 400), line("faint", 0.1)],
            "temporal": [line("a", 1.0), line("b", 0.8)],
        },
        budget_tokens=60,
        count_tokens=lambda text: len(text.split()),
    )
    assert {(m, reason) for m, _, reason in built.left_out} == {
        ("faint", UNDER_FLOOR),
        ("big", NO_ROOM),
        ("a", SAID_ABOVE),
    }
    kept = {line.memory_id for s in built.sections for line in s.lines}
    assert kept == {"a", "b"}


def _get(operations: Operations, path: str, **kwargs: object) -> httpx.Response:
    app = create_app(operations, with_mcp=False)

    async def call() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.get(path, **kwargs)  # type: ignore[arg-type]

    return asyncio.run(call())


def test_the_operator_gets_a_session_and_every_page_is_escaped_under_the_policy(
    operations: Operations,
) -> None:
    listed = asyncio.run(operations.reads.list_memories(ListRequest(user_id="ana")))
    memory = listed.memories[0]["memory_id"]
    for path in (
        "/console",
        "/console/users",
        "/console/users/ana",
        f"/console/users/ana/memories/{memory}",
        "/console/users/ana/playground?q=where+does+Ana+live",
        "/console/users/ana/documents",
        "/console/dead-letters",
        "/console/keys",
    ):
        answer = _get(operations, path)
        assert answer.status_code == 200, (path, answer.text[:300])
        assert "default-src 'none'" in answer.headers["content-security-policy"]
        assert answer.headers["x-frame-options"] == "DENY"
        cookie = answer.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie
        assert "samesite=strict" in cookie.lower() and "Path=/console" in cookie
    page = _get(operations, "/console/users/ana/playground?q=where+does+Ana+live").text
    assert "Lisbon" in page and "returned" in page


def test_a_document_just_uploaded_reads_as_accepted_not_as_blanks(operations: Operations) -> None:
    """Right after an upload (the worker has not applied it yet) the page says what is
    known: received, waiting for the worker; no empty fields, no blank chunk list."""
    checksum = "ab" * 32
    answer = _get(operations, f"/console/users/ana/documents/lease-md?version={checksum}")
    assert answer.status_code == 200, answer.text[:300]
    main = answer.text.split("<main", 1)[1]
    assert 'id="document-status" class="status status-received">received<' in main
    assert "the worker has not read it yet" in main and "None yet" in main
    words = " ".join(re.sub(r"<[^>]+>", "", main).split())
    assert not re.search(r"\s[.,-](\s|$)", words), words  # a blank where a value was
    assert "version ." not in words and "Versions" not in words and "none yet" in words


def test_a_refusal_is_a_page_saying_why_not_a_traceback(operations: Operations) -> None:
    missing = _get(operations, "/console/users/ana/memories/ep-nothing")
    assert missing.status_code == 404 and "no memory" in missing.text
    assert "Traceback" not in missing.text and missing.headers["content-type"].startswith(
        "text/html"
    )
    bad = _get(operations, "/console/users/ana?kind=sonnet")
    assert bad.status_code == 422 and "kind: must be one of" in bad.text
    bad_time = _get(operations, "/console/users/ana?after=yesterday")
    assert bad_time.status_code == 422 and "after:" in bad_time.text
    empty_query = _get(operations, "/console/users/ana/playground?q=%21%21")
    assert empty_query.status_code == 422 and "query" in empty_query.text
    login = _get(operations, "/console/login?next=https://elsewhere.example/")
    assert login.status_code == 303 and login.headers["location"] == "/console"


@pytest.mark.parametrize(
    "asked",
    [
        {"query": "where does Ana live", "k": 2},
        {"query": "what does the cat like", "k": 1},
        {"query": "where does Ana live", "k": 3, "kinds": ["episode"]},
    ],
)
def test_the_playground_answers_as_search_and_context_do(
    operations: Operations, asked: dict[str, object]
) -> None:
    request = SearchRequest.model_validate({"user_id": "ana", **asked})
    now = operations.clock()
    pinned = request.model_copy(update={"now": now})

    async def both() -> tuple[object, ...]:
        shown, trace, block = await operations.reads.playground(pinned)
        searched = await operations.reads.search(pinned)
        context = await operations.reads.context("ana", request.query, None, None, now)
        return shown, trace, block, searched, context

    shown, trace, block, searched, context = asyncio.run(both())
    assert [(r.memory_id, r.score) for r in shown.results] == [  # type: ignore[attr-defined]
        (r.memory_id, r.score)
        for r in searched.results  # type: ignore[attr-defined]
    ]
    returned = [c.memory_id for c in trace.ordered() if c.outcome == "returned"]  # type: ignore[attr-defined]
    assert returned == [r.memory_id for r in shown.results]  # type: ignore[attr-defined]
    assert block.context == context.context  # type: ignore[attr-defined]
    assert block.sections == context.sections  # type: ignore[attr-defined]


def test_a_form_from_another_origin_is_refused_before_anything_is_done(
    operations: Operations,
) -> None:
    app = create_app(operations, with_mcp=False)

    async def calls() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            page = await client.get("/console/keys")  # the operator's session, a token
            token = re.search(r'name="action_token" value="([^"]+)"', page.text)
            assert token is not None
            form = {"action_token": token.group(1)}
            foreign = {"origin": "http://elsewhere.example"}
            return [
                await client.post("/console/users/ana/memories/m1/forget", data=form,
                                  headers=foreign),
                await client.post("/console/login", data={"key": "x"}, headers=foreign),
                await client.post("/console/keys", data={**form, "tenant": "acme"},
                                  headers=foreign),
            ]  # fmt: skip

    forget, login, key = asyncio.run(calls())
    assert forget.status_code == 403 and "another site" in forget.text
    assert login.status_code == 403 and "another site" in login.text
    assert key.status_code == 403
    assert not operations.settings.api_keys_location.is_local or not list(
        Path(operations.settings.api_keys_location.path).glob("*.json")
    ), "no key was made"


def test_the_health_page_shows_the_storage_and_counts_as_they_are_at_first_view(
    operations: Operations, tmp_path: Path
) -> None:
    """Sizes are measured when the page is first shown (not minutes later by the
    sampler), and the memory counts are the stats' own."""
    events = Path(operations.settings.data_location.path) / "events" / "e1"
    events.mkdir(parents=True)
    (events / "part-0.parquet").write_bytes(b"x" * 184_000)
    page = _get(operations, "/console").text
    figures = page[page.index('id="figures"') :]
    assert "<dt>event archive</dt><dd>184.0 kB</dd>" in figures, figures[:2000]
    counted = asyncio.run(operations.reads.stats(None))["memories"]
    for kind, n in counted.items():
        assert f"<dt>{kind}</dt><dd>{n:,}</dd>" in figures, (kind, n)
