"""Documents through a running memstream (``up``: the real broker, worker and API): a
PDF uploaded and found by the page its answer is on, the same bytes twice, a new
version, text sent as JSON, the CLI, refusals (415, 413, 422), an encrypted PDF that
fails with its reason, and erasure reaching the originals."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fpdf import FPDF
from mcp import Client

from memstream.client import MemoryClient, MemstreamAPIError
from memstream.storage.document_originals import DocumentOriginals
from memstream.storage.filesystems import resolve_location
from memstream.storage.layout import DataLayout
from memstream.testing import WorkerProcess, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.slow]


def lease_pdf(path: Path, **encryption: str) -> Path:
    document = FPDF()
    if encryption:
        document.set_encryption(**encryption)  # type: ignore[arg-type]
    document.set_font("helvetica", size=11)
    for n in range(1, 6):
        document.add_page()
        if n == 3:
            text = "3 Renewal\nThe tenant may renew the lease for two more years by written notice."
        else:
            text = f"{n} Topic {n}\nPage {n}: the rent of 900 euros is paid on the first day."
        document.multi_cell(0, 6, text)
    document.output(str(path))
    return path


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    data = tmp_path_factory.mktemp("documents") / "data"
    up = WorkerProcess(data, env={"MEMSTREAM_DOCUMENT_MAX_BYTES": "300000"}).start()
    try:
        up.wait_serving()
        yield up
    finally:
        children = up.children()
        up.stop()
        WorkerProcess.wait_gone(children)


def test_a_pdf_is_found_by_the_page_its_answer_is_on(worker: WorkerProcess, tmp_path: Path) -> None:
    pdf = lease_pdf(tmp_path / "lease.pdf")
    with MemoryClient(worker.api_url) as client:
        added = client.add_document("ana", pdf, wait=60)
        shown = added["document"]
        assert (shown["status"], shown["pages"], shown["version"]) == ("indexed", 5, 1), shown
        assert shown["chunks"] == shown["total_chunks"] >= 1
        found = client.search("ana", "when can the tenant renew the lease", k=3)["results"]
        assert found[0]["kind"] == "chunk" and "renew" in found[0]["content"]
        assert found[0]["document"]["citation"] == "lease.pdf, p. 3, §3 Renewal"
        again = client.add_document("ana", pdf)
        assert again["new"] is False and again["accepted"] == []
        assert [d["document_id"] for d in client.documents("ana")] == ["lease.pdf"]

        # a new version of the same document, sent as text: it replaces the old chunks
        text = "Renewal\n\nThe lease cannot be renewed; it ends in March."
        newer = client.add_document("ana", text=text, document_id="lease.pdf", wait=60)
        assert newer["document"]["version"] == 2 and newer["document"]["status"] == "indexed"
        found = client.search("ana", "when can the tenant renew the lease", k=5)["results"]
        assert found and all("two more years" not in r["content"] for r in found)


def test_refusals_say_what_is_wrong(worker: WorkerProcess, tmp_path: Path) -> None:
    with MemoryClient(worker.api_url) as client:
        with pytest.raises(MemstreamAPIError) as png:
            client.add_document("refused", data=b"\x89PNG\r\n\x1a\n\x00", filename="photo.png")
        assert png.value.status == 415 and "text/markdown" in str(png.value.detail)
        with pytest.raises(MemstreamAPIError) as big:
            client.add_document("refused", data=b"x" * 300_001, filename="big.txt")
        assert big.value.status == 413 and "300,000" in str(big.value.detail)
        with pytest.raises(MemstreamAPIError) as nameless:
            client.add_document("refused", text="a note without a name")
        assert nameless.value.status == 422 and "document_id" in str(nameless.value.detail)
        with pytest.raises(MemstreamAPIError) as lying:  # refused at the door, not later
            client.add_document("refused", data=b"plain words", filename="report.pdf")
        assert lying.value.status == 422
        assert "file: declared application/pdf, but its bytes are text" in str(lying.value.detail)
        with pytest.raises(MemstreamAPIError) as png:
            client.add_document("refused", data=b"\x89PNG\r\n\x1a\n\x00", filename="scan.png",
                                media_type="application/pdf")  # fmt: skip
        assert png.value.status == 422 and "neither text, a PDF nor a DOCX" in str(png.value.detail)
        # nothing refused was published: once the worker has applied all that was, the
        # user holds no document (each name is not found, and the list is empty)
        for name in ("photo.png", "big.txt", "report.pdf", "scan.png"):
            with pytest.raises(MemstreamAPIError) as missing:
                client.document("refused", name, wait=30)
            assert missing.value.status == 404
        assert client.documents("refused") == []
    plain = httpx.post(f"{worker.api_url}/v1/documents", content=b"x", timeout=10)
    assert plain.status_code == 415 and "multipart/form-data" in plain.text


def test_names_people_give_files_are_taken_with_a_safe_id(worker: WorkerProcess) -> None:
    """Spaces, accents and other scripts in a file's name: taken, a safe document id
    derived from the name, the name itself kept as the title; the same name again is
    the same document."""
    names = {"my notes.md": "my-notes-", "résumé.md": "resume-", "契約.md": "document-"}
    with MemoryClient(worker.api_url) as client:
        for name, starts in names.items():
            added = client.add_document("names", data=f"# {name}\n\nAbout {name}.".encode(),
                                        filename=name, wait=60)  # fmt: skip
            document_id = added["document_id"]
            assert document_id.startswith(starts) and document_id.endswith(".md"), document_id
            assert added["document"]["status"] == "indexed", added
            again = client.add_document("names", data=b"# Newer\n\nNew words.", filename=name)
            assert again["document_id"] == document_id and again["new"] is True
        assert len(client.documents("names")) == len(names)


def test_a_wait_for_a_document_ends_when_the_worker_has_caught_up(worker: WorkerProcess) -> None:
    """A document just submitted is waited for until the worker applies it; one no one
    submitted is not found once the worker has applied everything published before the
    wait, and the answer says so (before, it was not found once UNKNOWN_DOCUMENT_WAIT
    had passed, whatever the log held)."""
    with MemoryClient(worker.api_url) as client:
        added = client.add_document("waits", data=b"# Shed\n\nThe key is behind the door.",
                                    filename="shed.md")  # fmt: skip
        found = client.document("waits", added["document_id"], wait=60)
        assert found["document_id"] == added["document_id"], found
        with pytest.raises(MemstreamAPIError) as missing:
            client.document("waits", "never-sent.md", wait=60)
        # the log said so (the worker had applied all that was published), not the time
        assert missing.value.status == 404
        assert "none was submitted before this read" in str(missing.value.detail)
        with pytest.raises(MemstreamAPIError) as unasked:  # no wait: nothing is claimed
            client.document("waits", "never-sent.md")
        assert "none was submitted" not in str(unasked.value.detail)


def test_documents_in_any_script_or_without_spaces_are_indexed(worker: WorkerProcess) -> None:
    """Chinese and Japanese prose, an inline image and a minified JSON block: each
    indexed in chunks within the field's limit (each failed ``corrupt`` when a chunk
    was bounded by tokens alone), and the words after the image found."""
    texts = {
        "zh.md": "# 中文\n\n" + "我住在里斯本\uff0c我喜欢喝茶。" * 2500,
        "ja.txt": "私はリスボンに住んでいます。お茶が好きです。" * 2000,
        "pic.md": "# Pic\n\n![x](data:image/png;base64," + "iVBORw0KGgo" * 1800 + ")\n\n"
        "The garden shed key hangs behind the kitchen door.",
        "data.md": "# Data\n\n```json\n"
        + json.dumps({f"key{i}": i for i in range(3000)}, separators=(",", ":"))
        + "\n```\n",
    }
    with MemoryClient(worker.api_url) as client:
        for name, text in texts.items():
            added = client.add_document("scripts", data=text.encode(), filename=name, wait=60)
            shown = added["document"]
            assert shown["status"] == "indexed" and shown["chunks"] > 1, (name, shown)
        found = client.search("scripts", "where is the garden shed key", k=3)["results"]
        assert found and "kitchen door" in found[0]["content"]


def test_the_command_line_adds_lists_and_says_why_a_document_failed(
    worker: WorkerProcess, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\n## Garden\n\nPlant the tomatoes in May. I live in Lisbon.\n")
    locked = lease_pdf(tmp_path / "locked.pdf", owner_password="o", user_password="u")
    docs = [sys.executable, "-m", "memstream", "docs", "--api", worker.api_url]
    added = subprocess.run(
        [*docs, "add", "--user", "bo", str(notes), str(locked), "--wait", "60"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert added.returncode == 1, added.stderr  # one of them failed
    # (this worker runs no embedder: no chunk has its vector); sent with no title, the
    # notes are known by their first heading
    indexed = "notes.md (Notes): indexed, version 1, 1 of 1 chunks (0 with their vector), 1 facts"
    assert indexed in added.stdout
    assert "locked.pdf: failed, version 1, 0 of 0 chunks" in added.stdout
    assert "encrypted: the PDF is encrypted" in added.stdout
    listed = subprocess.run(
        [*docs, "list", "--user", "bo"], capture_output=True, text=True, timeout=60
    )
    assert listed.returncode == 0 and listed.stdout.count("\n") >= 2, listed.stderr
    search = subprocess.run(
        [sys.executable, "-m", "memstream", "search", "--api", worker.api_url, "--user", "bo",
         "when to plant tomatoes"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert "[Notes, p. 1, §Garden]" in search.stdout, search.stdout + search.stderr
    with MemoryClient(worker.api_url) as client:
        held = client.stats("bo")
        assert held["memories"].get("chunk", 0) >= 1 and held["hidden"] == 0, held
        [fact] = [
            r for r in client.search("bo", "where does bo live")["results"] if r["kind"] == "fact"
        ]
        assert fact["content"] == "The user lives in Lisbon."
        [chunk] = client.explain("bo", fact["memory_id"])["derived_from"]["memories"]
        assert chunk["kind"] == "chunk" and "tomatoes" in chunk["content"]
    removed = subprocess.run(
        [*docs, "remove", "notes.md", "--user", "bo", "--wait", "60"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert removed.stdout == "document notes.md removed (its chunks and facts)\n", removed.stderr
    with MemoryClient(worker.api_url) as client:
        assert client.document("bo", "notes.md")["status"] == "removed"
        assert client.search("bo", "tomatoes Lisbon")["results"] == []
        # its chunks and facts are no live memory any more: counted as hidden history
        after = client.stats("bo")
        assert "chunk" not in after["memories"] and "fact" not in after["memories"], after
        assert after["hidden"] == held["memories"]["chunk"] + held["memories"].get("fact", 0)
        [bo] = [u for u in client.users() if u["user_id"] == "bo"]
        assert bo["memories"] == sum(after["memories"].values()), bo


def test_erasing_a_user_removes_the_originals(worker: WorkerProcess, tmp_path: Path) -> None:
    assert isinstance(worker.data, Path)
    originals = DocumentOriginals(DataLayout(resolve_location(str(worker.data))).documents)
    with MemoryClient(worker.api_url) as client:
        client.add_document("cy", text="Cy's only note.", document_id="note", wait=60)
        assert len(originals.checksums("cy")) == 1
        assert client.erase("cy")["complete"] is True
        assert originals.checksums("cy") == []
        assert client.documents("cy") == []


def test_an_agent_adds_a_document_over_mcp(worker: WorkerProcess, tmp_path: Path) -> None:
    """The MCP tool over HTTP (the SDK's client): text goes in and is indexed; a path on
    the server's disk is refused over HTTP (only a stdio server reads the user's files)."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the server's own file")

    async def run() -> tuple[Any, Any, Any, Any]:
        async with Client(f"{worker.api_url}/mcp?user_id=dee") as client:
            added = await client.call_tool(
                "add_document",
                {"text": "The boiler is serviced every October.", "document_id": "house"},
            )
            status = await client.call_tool("document_status", {"document_id": "house"})
            refused = await client.call_tool("add_document", {"path": str(secret)})
            removed = await client.call_tool("remove_document", {"document_id": "house"})
            return added, status, refused, removed

    added, status, refused, removed = asyncio.run(run())
    assert not added.is_error and added.structured_content["status"] == "indexed"
    assert status.structured_content["chunks"] == 1
    assert removed.structured_content["status"] == "removed"
    assert refused.is_error and "cannot read files" in refused.content[0].text


def test_a_worker_killed_mid_document_leaves_it_indexed_once(tmp_path: Path) -> None:
    """SIGKILL while the documents lane reads a long PDF: the submission was accepted
    (journaled), so the restarted ``up`` publishes it again, reads it again, and the
    document ends indexed with each chunk stored once."""
    document = FPDF()
    document.set_font("helvetica", size=10)
    for n in range(1, 121):
        document.add_page()
        document.multi_cell(0, 5, f"{n} Part {n}\n" + f"Clause {n} says the rent is due. " * 60)
    pdf = bytes(document.output())
    data = tmp_path / "data"
    up = WorkerProcess(data).start()
    try:
        up.wait_serving()
        with MemoryClient(up.api_url) as client:
            added = client.add_document("eve", data=pdf, filename="long.pdf")
            assert added["new"] is True
        lane = wait_until(lambda: {p for p in up.children() if _is_lane(p)}, timeout=30)
        before = up.children()
        up.kill()  # before the lane's events are all applied, most likely mid-read
        # the documents lane's process (and everything else up started) dies with it
        assert WorkerProcess.wait_gone(before) == set() and lane <= before
        up.start()
        up.wait_serving()
        with MemoryClient(up.api_url) as client:
            # the journaled submission is published again, then applied: until then
            # the document is unknown to a read (a 404 after a few seconds' wait)
            wait_until(lambda: _known(client, "eve", "long.pdf"), timeout=120)
            shown = client.document("eve", "long.pdf", wait=120)
            assert shown["status"] == "indexed" and shown["version"] == 1, shown
            assert shown["chunks"] == shown["total_chunks"] > 64  # several parts
            stats = client.stats("eve")
        assert stats["memories"]["chunk"] == shown["total_chunks"], stats
    finally:
        children = up.children()
        up.stop()
        WorkerProcess.wait_gone(children)


def _known(client: MemoryClient, user_id: str, document_id: str) -> bool:
    """Whether the document is applied (in any status)."""
    try:
        client.document(user_id, document_id)
    except MemstreamAPIError as error:
        if error.status != 404:
            raise
        return False
    return True


def _is_lane(pid: int) -> bool:
    """Whether ``pid`` is a process of the documents lane (started by ``spawn``)."""
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
