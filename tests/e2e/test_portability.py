"""Export and import: a user's events exported from one deployment and imported into an
empty one rebuild the same memory (the same per-user digest), a second import changes
nothing; the Markdown and JSON exports say what the store holds; ChatGPT, Claude and
Mem0 exports, in the shapes their exporters write, become sessions, turns and facts,
with a malformed entry reported by position and the rest imported."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memstream.application.stores import open_store
from memstream.client import MemoryClient
from memstream.events.vocabulary import MessageEvent, RememberFact, SessionEnded
from memstream.http.export_answers import UserExport
from memstream.portability import imports
from memstream.portability.import_plan import Skipped
from memstream.portability.imports import MAX_DEPTH, MAX_SKIPS_NAMED, UnknownShape, read_import
from memstream.queries.user_state import user_digest
from memstream.settings import Settings
from memstream.testing import WorkerProcess, wait_until

# -- the exporters' shapes, as their documentation and real exports show them ---------------


def chatgpt_export() -> list[dict[str, Any]]:
    """``conversations.json`` of a ChatGPT data export: one conversation whose branch
    was edited (the abandoned reply is not on ``current_node``'s path), a system node,
    a hidden context node, an image-only turn; and one conversation without a mapping."""

    def node(
        node_id: str, parent: str | None, children: list[str], message: dict[str, Any] | None
    ) -> dict[str, Any]:
        return {"id": node_id, "message": message, "parent": parent, "children": children}

    def said(message_id: str, role: str, parts: list[Any], at: float | None, **more: Any) -> Any:
        return {
            "id": message_id,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": at,
            "update_time": None,
            "content": {"content_type": more.pop("kind", "text"), "parts": parts},
            "status": "finished_successfully",
            "end_turn": True,
            "weight": 1.0,
            "metadata": more.pop("metadata", {}),
            "recipient": "all",
        }

    mapping = {
        "root": node("root", None, ["sys"], None),
        "sys": node("sys", "root", ["ctx"], said("m-sys", "system", [""], None)),
        "ctx": node(
            "ctx",
            "sys",
            ["u1"],
            said(
                "m-ctx",
                "user",
                ["(custom instructions)"],
                1714550000.0,
                metadata={"is_visually_hidden_from_conversation": True},
            ),
        ),
        "u1": node(
            "u1",
            "ctx",
            ["a1-old", "a1"],
            said("m-u1", "user", ["I adopted a cat named Miso."], 1714550400.0),
        ),
        "a1-old": node(
            "a1-old", "u1", [], said("m-a1-old", "assistant", ["Draft reply"], 1714550405.0)
        ),
        "a1": node(
            "a1",
            "u1",
            ["u2"],
            said("m-a1", "assistant", ["Lovely! How old is Miso?"], 1714550410.0),
        ),
        "u2": node(
            "u2", "a1", ["u3"], said("m-u2", "user", ["She is two and loves tuna."], 1714550460.0)
        ),
        "u3": node(
            "u3",
            "u2",
            [],
            said(
                "m-u3",
                "user",
                [{"content_type": "image_asset_pointer"}],
                1714550470.0,
                kind="multimodal_text",
            ),
        ),
    }
    return [
        {
            "title": "Cat care",
            "create_time": 1714550000.0,
            "update_time": 1714550470.0,
            "mapping": mapping,
            "moderation_results": [],
            "current_node": "u3",
            "conversation_id": "0c9f1c2e-1111-4a6b-9b1e-3f1f5a1d2e01",
            "id": "0c9f1c2e-1111-4a6b-9b1e-3f1f5a1d2e01",
            "default_model_slug": "gpt-4o",
        },
        {"title": "Broken", "create_time": 1714550000.0, "id": "no-mapping"},
    ]


def claude_export() -> list[dict[str, Any]]:
    """``conversations.json`` of a Claude data export; the second message has a sender
    the export never writes."""
    return [
        {
            "uuid": "5d2c1a10-2222-4c1e-8f00-6b7a3e9d0c01",
            "name": "Moving house",
            "created_at": "2024-06-02T08:00:00.000000Z",
            "updated_at": "2024-06-02T08:05:00.000000Z",
            "account": {"uuid": "acct-1"},
            "chat_messages": [
                {
                    "uuid": "c-1",
                    "text": "",
                    "content": [{"type": "text", "text": "We are moving to Porto in July."}],
                    "sender": "human",
                    "created_at": "2024-06-02T08:00:00.000000Z",
                    "updated_at": "2024-06-02T08:00:00.000000Z",
                    "attachments": [],
                    "files": [],
                },
                {
                    "uuid": "c-2",
                    "text": "?",
                    "sender": "robot",
                    "created_at": "2024-06-02T08:01:00Z",
                },
                {
                    "uuid": "c-3",
                    "text": "Congratulations on the move to Porto!",
                    "content": [],
                    "sender": "assistant",
                    "created_at": "2024-06-02T08:02:00.000000Z",
                },
            ],
        }
    ]


def mem0_export() -> dict[str, Any]:
    """What Mem0's ``get_all`` answers: memories under ``results``; one without text."""
    return {
        "results": [
            {
                "id": "8a1b2c3d-0000-4000-8000-000000000001",
                "memory": "Is vegetarian",
                "hash": "d41d8cd98f00b204e9800998ecf8427e",
                "metadata": None,
                "categories": ["food", "Health Conditions"],
                "created_at": "2024-07-20T09:15:00.123456-07:00",
                "updated_at": "2024-07-20T09:15:00.123456-07:00",
                "user_id": "alex",
            },
            {"id": "8a1b2c3d-0000-4000-8000-000000000002", "memory": "", "user_id": "alex"},
            {
                "id": "8a1b2c3d-0000-4000-8000-000000000003",
                "memory": "Plays tennis on Sundays",
                "created_at": "2024-07-21T10:00:00Z",
                "user_id": "alex",
            },
        ]
    }


# -- reading the shapes (no broker) ----------------------------------------------------------


def test_a_chatgpt_export_becomes_the_branch_the_user_saw_with_its_times() -> None:
    plan = read_import(json.dumps(chatgpt_export()).encode(), "ana")
    assert plan.shape == "a ChatGPT data export"
    turns = [e for e in plan.events if isinstance(e, MessageEvent)]
    assert [(t.role, t.content) for t in turns] == [
        ("user", "I adopted a cat named Miso."),
        ("assistant", "Lovely! How old is Miso?"),
        ("user", "She is two and loves tuna."),
    ]
    assert {t.session_id for t in turns} == {"chatgpt-0c9f1c2e-1111-4a6b-9b1e-3f1f5a1d2e01"}
    assert turns[0].occurred_at.isoformat() == "2024-05-01T08:00:00+00:00"
    assert [t.event_id for t in turns] == ["chatgpt:m-u1", "chatgpt:m-a1", "chatgpt:m-u2"]
    assert isinstance(plan.events[-1], SessionEnded)
    assert [(s.position, s.reason) for s in plan.skipped] == [
        ("conversation 2", "not a conversation (no 'mapping' of messages)")
    ]
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("chat.html", "<html></html>")
        archive.writestr("conversations.json", json.dumps(chatgpt_export()))
    assert read_import(zipped.getvalue(), "ana").events == plan.events


def test_a_claude_export_and_a_mem0_export_skip_their_malformed_entries_by_position() -> None:
    claude = read_import(json.dumps(claude_export()).encode(), "ana")
    assert claude.shape == "a Claude data export"
    turns = [e for e in claude.events if isinstance(e, MessageEvent)]
    assert [(t.role, t.content) for t in turns] == [
        ("user", "We are moving to Porto in July."),
        ("assistant", "Congratulations on the move to Porto!"),
    ]
    assert [s.position for s in claude.skipped] == ["conversation 1, message 2"]
    assert "robot" in claude.skipped[0].reason
    mem0 = read_import(json.dumps(mem0_export()).encode(), "alex")
    facts = [e for e in mem0.events if isinstance(e, RememberFact)]
    assert [(f.content, f.tags) for f in facts] == [
        ("Is vegetarian", ["food", "health-conditions"]),
        ("Plays tennis on Sundays", []),
    ]
    assert facts[0].occurred_at.isoformat() == "2024-07-20T16:15:00.123456+00:00"
    assert [(s.position, s.reason) for s in mem0.skipped] == [("memory 2", "no 'memory' text")]
    assert read_import(json.dumps(mem0_export()["results"]).encode(), "alex").events == mem0.events


def _conversation(number: int, **message: Any) -> dict[str, Any]:
    """A ChatGPT conversation of one user turn (``message`` overrides its fields)."""
    said = {"content_type": "text", "parts": [f"I planted tomato {number}."]}
    turn = {"id": f"m{number}", "author": {"role": "user"}, "create_time": 1714550400,
            "content": said}  # fmt: skip
    turn.update(message)
    return {
        "id": f"c{number}", "title": "garden", "create_time": 1714550400, "current_node": "n2",
        "mapping": {
            "n1": {"id": "n1", "message": None, "parent": None, "children": ["n2"]},
            "n2": {"id": "n2", "message": turn, "parent": "n1", "children": []},
        },
    }  # fmt: skip


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ({"create_time": 1e300}, "message 2: time 1e+300 is no date"),
        ({"create_time": -1e18}, "message 2: time -1e+18 is no date"),
        ({"author": None}, "message 2: a message without its author's role"),
        ({"author": "user"}, "message 2: a message without its author's role"),
        ({"content": {"content_type": "text", "parts": [1, 2]}}, "its parts are not text"),
        ({"content": "just text"}, "message 2: "),
    ],
)
def test_one_bad_entry_is_skipped_by_position_and_the_good_ones_imported(
    bad: dict[str, Any], why: str
) -> None:
    conversations = [_conversation(n) for n in range(12)] + [_conversation(12, **bad)]
    plan = read_import(json.dumps(conversations).encode(), "ana")
    assert len([e for e in plan.events if isinstance(e, MessageEvent)]) == 12
    said = [f"{s.position}: {s.reason}" for s in plan.skipped]
    assert any(line.startswith("conversation 13, ") and why in line for line in said), said
    timeless = {**_conversation(13), "create_time": 1e300}  # the conversation's own time
    plan = read_import(json.dumps([*conversations[:12], timeless]).encode(), "ana")
    assert [(s.position, s.reason) for s in plan.skipped] == [
        ("conversation 13", "time 1e+300 is no date")
    ]


def test_an_entry_nested_too_deep_or_a_file_cut_short_loses_only_what_cannot_be_read() -> None:
    good = [json.dumps(_conversation(n)).encode() for n in range(12)]
    deep = b'{"mapping": ' * 100_000 + b"1" + b"}" * 100_000
    data = b"[" + b",".join([*good[:6], deep, *good[6:]]) + b"]"
    plan = read_import(data, "ana")
    assert len([e for e in plan.events if isinstance(e, MessageEvent)]) == 12
    assert [(s.position, s.reason) for s in plan.skipped] == [
        ("conversation 7", f"it nests deeper than {MAX_DEPTH} levels, deeper than any export does")
    ]
    cut = b"[" + b",".join(good)[:-40]  # the twelfth conversation and the list unfinished
    plan = read_import(cut, "ana")
    assert len([e for e in plan.events if isinstance(e, MessageEvent)]) == 11
    [skipped] = plan.skipped
    assert skipped.position == "after entry 11"
    assert skipped.reason.startswith("the rest of the file cannot be read: ")


def test_a_zip_whose_conversations_inflate_past_the_limit_is_refused_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("export/conversations.json", json.dumps([_conversation(1)] * 100))
    monkeypatch.setattr(imports, "MAX_INFLATED_BYTES", 1000)  # 8 GiB: 1 kB here
    with pytest.raises(
        UnknownShape, match=r"conversations.json inflates to [\d,]+ bytes; the limit is 1,000"
    ):
        read_import(zipped.getvalue(), "ana")


_READ_ALL = """
import resource, sys
from memstream.portability.imports import open_import
with open(sys.argv[1], "rb") as source:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    stream = open_import(source, "ana")
    events = sum(len(batch) for _, batch in stream.batches(500))
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(stream.plan.shape, events, len(stream.plan.skipped), (after - before) * 1024)
"""


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["mem0", "chatgpt-zip"])
def test_a_big_export_is_read_entry_by_entry_in_bounded_memory(tmp_path: Path, shape: str) -> None:
    """300,000 Mem0 memories (40 MB), or a zip whose conversations.json inflates to
    about 70 MB: read whole (every event made, in batches), the reading process grows
    by less than 64 MiB (json.loads of the file alone would take several times that)."""
    path = tmp_path / "export"
    with open(path, "wb") as out:
        if shape == "mem0":
            entries = 300_000
            out.write(b"[" + b",".join(
                json.dumps({"id": f"m{n}", "memory": f"Ana likes thing number {n} a lot",
                            "created_at": "2024-01-01T00:00:00Z"}).encode()
                for n in range(entries)) + b"]")  # fmt: skip
            expected = entries
        else:
            with (
                zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive,
                archive.open("conversations.json", "w") as member,
            ):
                member.write(b"[")
                for n in range(200_000):
                    member.write((b"," if n else b"") + json.dumps(_conversation(n)).encode())
                member.write(b"]")
            expected = 400_000  # a turn and the session's end each
    done = subprocess.run(
        [sys.executable, "-c", _READ_ALL, str(path)], capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr
    *_, events, skipped, grown = done.stdout.split()
    assert (int(events), int(skipped)) == (expected, 0), done.stdout
    assert int(grown) < 64 * 1024**2, done.stdout


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nests deeper than any export does"),
        (b'{"a": ' * 100_000 + b"1" + b"}" * 100_000, "nests deeper than any export does"),
        (b"name,email\nana,a@example.com\n", "not JSON"),
        (b'{"hello": "world"}', "without a list of 'results' or 'memories'"),
        (b'[{"title": "x"}]', "no 'mapping', 'chat_messages' or 'memory'"),
        (b'{"memstream_export": 1, "format": "events", "user_id": "bob"}\n', "--user bob"),
    ],
)
def test_a_file_of_no_known_shape_is_refused_naming_the_shapes_read(data: bytes, why: str) -> None:
    with pytest.raises(UnknownShape) as refused:
        read_import(data, "ana")
    assert why in str(refused.value)
    if "--user" not in why:
        assert "ChatGPT" in str(refused.value) and "Mem0" in str(refused.value)


# -- the round trip, through real deployments ----------------------------------------------


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run(
        [sys.executable, "-m", "memstream", *args],
        capture_output=True,
        input=stdin,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done


def _digest(data: Path, user: str) -> tuple[str, dict[str, tuple[int, str]]]:
    """The user's digest and per-table digests, read in this process (a fresh view)."""
    return user_digest(open_store(Settings(data=str(data))), user)


@pytest.fixture(scope="module")
def source(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[tuple[WorkerProcess, Path]]:
    """A deployment where ana talked, ended her session (consolidated into facts),
    stated a fact, corrected one and added a document."""
    data = tmp_path_factory.mktemp("source") / "data"
    worker = WorkerProcess(
        data,
        env={"MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "1", "MEMSTREAM_EMBEDDER": "minilm"},
    ).start()
    try:
        worker.wait_serving()
        api = httpx.Client(base_url=worker.api_url, timeout=60)
        request.addfinalizer(api.close)
        said = [
            "I live in Lisbon and I work as a nurse.",
            "My cat Miso likes tuna.",
            "Next month I am moving to Porto.",
        ]
        events: list[dict[str, Any]] = [
            {"event_id": f"t{i}", "user_id": "ana", "session_id": "s1", "role": "user",
             "speaker": "Ana", "content": text, "occurred_at": f"2024-05-01T10:0{i}:00Z"}
            for i, text in enumerate(said)
        ]  # fmt: skip
        events.append({"type": "session_ended", "user_id": "ana", "session_id": "s1",
                       "occurred_at": "2024-05-01T10:10:00Z"})  # fmt: skip
        assert api.post("/v1/events", json=events).status_code == 202
        fact = api.post(
            "/v1/memories", json={"user_id": "ana", "content": "Ana is allergic to peanuts"}
        )
        assert fact.status_code == 202
        doc = api.post(
            "/v1/documents",
            params={"wait": 60},
            json={"user_id": "ana", "document_id": "notes", "media_type": "text/markdown",
                  "text": "# Garden\n\nThe tomatoes go in the sunny bed by the wall."},
        )  # fmt: skip
        assert doc.json()["document"]["status"] == "indexed", doc.text

        def consolidated() -> bool:
            listed = api.get("/v1/memories", params={"user_id": "ana", "kind": "fact"}).json()
            return len(listed["memories"]) >= 2

        wait_until(consolidated, timeout=60)
        remembered = api.get("/v1/memories", params={"user_id": "ana", "kind": "fact"}).json()
        peanut = next(m for m in remembered["memories"] if "peanuts" in m["content"])
        corrected = api.post(
            f"/v1/memories/{peanut['memory_id']}/correct",
            json={"user_id": "ana", "content": "Ana is allergic to peanuts and cashews"},
        )
        assert corrected.status_code == 202, corrected.text
        wait_until(lambda: _lag(worker, "ana") == 0)
        wait_until(
            lambda: (
                "cashews" in json.dumps(api.get("/v1/memories", params={"user_id": "ana"}).json())
            )
        )
        settled = {"user_id": "ana"}  # and every memory has its vector
        wait_until(lambda: api.get("/v1/stats", params=settled).json()["embedding_lag"] == 0)
        yield worker, data
    finally:
        worker.stop(timeout=60)


def test_events_exported_and_imported_into_an_empty_store_rebuild_the_same_memory(
    source: tuple[WorkerProcess, Path], tmp_path: Path
) -> None:
    worker, data = source
    before = _digest(data, "ana")
    printed = _cli("digest", "--user", "ana", "--tables", "--data", str(data)).stdout.decode()
    assert printed.splitlines()[0] == before[0]  # what `memstream digest --user` prints
    assert f"memories {before[1]['memories'][0]} " in printed
    exported = tmp_path / "ana.jsonl"
    _cli("export", "--user", "ana", "-o", str(exported), "--data", str(data))
    lines = exported.read_bytes().splitlines()
    header = json.loads(lines[0])
    assert header["user_id"] == "ana" and header["format"] == "events"
    kinds = [json.loads(line).get("type", "original") for line in lines[1:]]
    for kind in ("message", "session_ended", "session_closed", "facts_consolidated",
                 "remember_fact", "correct_fact", "document_submitted", "document_chunked",
                 "embedding_computed", "original"):  # fmt: skip
        assert kind in kinds, kind
    assert b"I work as a nurse" in exported.read_bytes()  # decrypted for the owner
    with MemoryClient(worker.api_url) as client:
        streamed = b"".join(client.export("ana"))
    assert streamed.splitlines()[1:] == lines[1:]

    # The target's lifecycle runs all along (its first decay may meet the imported
    # facts, two years old by the wall clock, and decay them: the source's first decay
    # ran before it had facts). What it decides is its own; what the import brings is
    # the source's memory, and importing the file again changes nothing at all.
    target = tmp_path / "target"
    other = WorkerProcess(target, env={"MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "1"}).start()
    try:
        other.wait_serving()
        importing = ("import", "--user", "ana", str(exported), "--data", str(target))
        said = _cli(*importing, "--kafka", other.bootstrap)
        assert said.stdout.decode().startswith("imported a memstream events export:")
        assert "1 document originals stored" in said.stdout.decode()
        wait_until(lambda: _imported(_digest(target, "ana")) == _imported(before), timeout=60)
        first = _settled(other, target)
        assert _imported(first) == _imported(before)
        assert first[1]["memory_state"][0] >= before[1]["memory_state"][0]
        for _ in range(2):  # twice more: nothing changes, the lifecycle on throughout
            again = _cli(*importing, "--kafka", other.bootstrap)
            assert b"events published" in again.stdout
            assert _settled(other, target) == first
    finally:
        other.stop(timeout=60)


def _imported(digest: tuple[str, dict[str, tuple[int, str]]]) -> dict[str, tuple[int, str]]:
    """The tables an import fills from the file alone (``memory_state`` also holds what
    the importing deployment's own decay decided)."""
    return {name: table for name, table in digest[1].items() if name != "memory_state"}


def _settled(worker: WorkerProcess, data: Path) -> tuple[str, dict[str, tuple[int, str]]]:
    """The user's digest once the worker has applied everything and its lifecycle has
    run its first decay (the next is a day away): the same on two reads 3 s apart."""
    wait_until(lambda: _decays(worker) >= 1, timeout=60)
    digests: list[Any] = [None]

    def steady() -> bool:
        if _lag(worker, "ana") != 0:
            return False
        digests.append(_digest(data, "ana"))
        return digests[-1] == digests[-2]

    wait_until(steady, timeout=90, interval=3.0)
    settled: tuple[str, dict[str, tuple[int, str]]] = digests[-1]
    return settled


def _decays(worker: WorkerProcess) -> int:
    """The decay runs the worker has finished (from its metrics)."""
    text = httpx.get(f"{worker.metrics_url}/metrics").text
    runs = [
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("memstream_lifecycle_runs_total{")
        and 'job="decay"' in line
        and 'outcome="done"' in line
    ]
    return int(sum(runs))


def _lag(worker: WorkerProcess, user: str) -> int:
    stats = httpx.get(f"{worker.api_url}/v1/stats", params={"user_id": user}).json()
    return int(stats["lag"])


def test_markdown_and_json_exports_show_what_the_store_holds(
    source: tuple[WorkerProcess, Path],
) -> None:
    worker, data = source
    dossier = _cli("export", "--user", "ana", "--format", "markdown", "--data", str(data))
    text = dossier.stdout.decode()
    assert text.startswith("# What memstream holds of ana")
    assert "## Facts" in text and "Ana is allergic to peanuts and cashews" in text
    assert "Ana is allergic to peanuts _(" not in text  # the corrected one is history
    assert "## Documents" in text and "`notes`" in text and "indexed" in text
    assert "## Timeline" in text and "**Ana**: My cat Miso likes tuna." in text
    # an agent is shown something of ana: the export holds that record too
    asked = {"user_id": "ana", "query": "Miso"}
    headers = {"Memstream-Agent": "export-check"}
    assert httpx.post(f"{worker.api_url}/v1/search", json=asked, headers=headers).is_success

    def exported() -> dict[str, Any] | None:
        found = httpx.get(f"{worker.api_url}/v1/users/ana/export", params={"format": "json"})
        whole: dict[str, Any] = json.loads(found.content)
        shown = [r for r in whole["tables"]["served"] if r["agent"] == "export-check"]
        return whole if shown else None

    document = wait_until(exported, timeout=30)
    UserExport.model_validate(document)  # what /openapi.json says the export is
    assert document["user_id"] == "ana" and "vectors" not in document["tables"]
    contents = {m["content"] for m in document["tables"]["memories"]}
    assert "My cat Miso likes tuna." in contents
    assert all(r["user_id"] == "ana" for rows in document["tables"].values() for r in rows)
    nobody = httpx.get(f"{worker.api_url}/v1/users/nobody/export", params={"format": "markdown"})
    assert nobody.status_code == 200 and "0 memories" in nobody.text
    wrong = httpx.get(f"{worker.api_url}/v1/users/ana/export", params={"format": "pdf"})
    assert wrong.status_code == 422


def test_chatgpt_claude_and_mem0_exports_imported_twice_are_stored_once(
    source: tuple[WorkerProcess, Path], tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    worker, data = source
    where = ("--data", str(data), "--kafka", worker.bootstrap)
    files = {
        "bea": ("conversations.json", chatgpt_export(), "episode", 3),
        "cleo": ("claude.json", claude_export(), "episode", 2),
        "max": ("mem0.json", mem0_export(), "fact", 2),
    }
    said = {}
    for user, (name, document, _, _) in files.items():
        (tmp_path / name).write_text(json.dumps(document))
        said[user] = _cli("import", "--user", user, str(tmp_path / name), *where).stdout.decode()
    assert "4 events published; 1 entries skipped:" in said["bea"]
    assert "conversation 2: not a conversation" in said["bea"]
    assert "conversation 1, message 2: sender 'robot'" in said["cleo"]
    assert "memory 2: no 'memory' text" in said["max"]
    api = httpx.Client(base_url=worker.api_url, timeout=30)
    request.addfinalizer(api.close)

    def counts() -> dict[str, int]:
        return {
            user: len(
                api.get("/v1/memories", params={"user_id": user, "kind": kind}).json()["memories"]
            )
            for user, (_, _, kind, _) in files.items()
        }

    expected = {user: count for user, (_, _, _, count) in files.items()}
    wait_until(lambda: counts() == expected)
    for user, (name, _, _, _) in files.items():
        _cli("import", "--user", user, str(tmp_path / name), *where)
    for user in files:
        wait_until(lambda user=user: _lag(worker, user) == 0)  # type: ignore[misc]
    assert counts() == expected
    hits = api.post("/v1/search", json={"user_id": "bea", "query": "what does Miso eat?"}).json()
    assert any("loves tuna" in hit["content"] for hit in hits["results"][:3]), hits


# -- coding-agent hooks against the running server ----------------------------------------


def _hook(event: str, payload: dict[str, Any], *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memstream", "hook", event, "--user", "dev", *options],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **os.environ,
            "XDG_STATE_HOME": str(Path(payload["cwd"]).parent / "state"),
            "CLAUDE_CONFIG_DIR": str(Path(payload["transcript_path"]).parent),
        },
    )


def test_hooks_capture_the_transcript_once_and_inject_context_for_the_prompt(
    source: tuple[WorkerProcess, Path], tmp_path: Path
) -> None:
    from support.transcripts import as_bytes, entry, transcript_lines

    worker, _ = source
    repo = tmp_path / "shop"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_bytes(as_bytes(transcript_lines()))
    payload = {
        "session_id": "8f0b7a52-3c1d-4e55-9a10-2b6c1f9e7d01",
        "transcript_path": str(transcript),
        "cwd": str(repo / "src"),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    down = _hook("stop", payload, "--api", "http://127.0.0.1:9")  # memstream is not there
    assert down.returncode == 0 and down.stdout == ""
    assert "not reachable" in down.stderr and len(down.stderr.splitlines()) == 1
    api = ("--api", worker.api_url)
    assert _hook("stop", payload, *api).returncode == 0

    def turns() -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = httpx.get(
            f"{worker.api_url}/v1/memories",
            params={"user_id": "dev", "kind": "episode", "order": "oldest"},
        ).json()["memories"]
        return found

    wait_until(lambda: len(turns()) == 3)  # the turns the first, refused hook held
    assert {t["project_id"] for t in turns()} == {"shop"}
    more = json.dumps(entry("assistant", "a-4", [{"type": "text", "text": "Migrations moved."}], 6))
    with transcript.open("ab") as out:
        out.write(more.encode()[:30])  # the agent is still writing this line
    assert _hook("pre-compact", {**payload, "hook_event_name": "PreCompact"}, *api).returncode == 0
    with transcript.open("ab") as out:
        out.write(more.encode()[30:] + b"\n")
    ended = _hook("session-end", {**payload, "hook_event_name": "SessionEnd"}, *api)
    assert ended.returncode == 0, ended.stderr
    wait_until(lambda: len(turns()) == 4)
    _hook("stop", payload, *api)  # fired again: nothing new
    wait_until(lambda: _lag(worker, "dev") == 0)
    assert [t["content"] for t in turns()][-1] == "Migrations moved." and len(turns()) == 4

    asked = _hook(
        "prompt",
        {**payload, "hook_event_name": "UserPromptSubmit",
         "prompt": "which database do the orders use?"},
        *api,
    )  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    said = json.loads(asked.stdout)["hookSpecificOutput"]
    assert said["hookEventName"] == "UserPromptSubmit"
    assert "Postgres for the orders service" in said["additionalContext"]


def test_a_file_of_many_bad_entries_names_a_thousand_and_counts_the_rest() -> None:
    entries = [{"id": f"m{n}", "memory": "", "created_at": "2024-01-01T00:00:00Z"}
               for n in range(MAX_SKIPS_NAMED + 500)]  # fmt: skip
    entries.append({"id": "good", "memory": "Ana likes figs", "created_at": "2024-01-01T00:00:00Z"})
    plan = read_import(json.dumps(entries).encode(), "ana")
    assert len(plan.events) == 1
    assert len(plan.skipped) == MAX_SKIPS_NAMED and plan.more_skipped == 500
    assert plan.skipped[0] == Skipped("memory 1", "no 'memory' text")


def test_a_line_of_an_events_export_longer_than_the_limit_is_skipped_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(imports, "MAX_LINE_BYTES", 1000)  # 128 MiB: 1 kB here
    header = {"memstream_export": 1, "format": "events", "user_id": "ana"}
    event = {"type": "remember_fact", "event_id": "r1", "user_id": "ana",
             "content": "Ana likes figs", "occurred_at": "2024-01-01T00:00:00Z"}  # fmt: skip
    data = b"\n".join([json.dumps(header).encode(), b"x" * 5000, json.dumps(event).encode()])
    plan = read_import(data + b"\n", "ana")
    assert [e.event_id for e in plan.events] == ["r1"]
    assert plan.skipped == [Skipped("line 2", "longer than 1,000 bytes")]
