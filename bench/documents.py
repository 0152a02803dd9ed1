"""Documents benchmark: a long PDF and many Markdown files through a running memstream.

Runs ``memstream up`` (embedded broker, worker, documents lane, MiniLM embedder) on a
fresh data folder and measures, on this machine:

1. a PDF of ``--pages`` pages (300 by default, about 330 words a page, written by fpdf2):
   from the upload until it is ``indexed`` (every chunk a memory, searchable by full
   text, checked with searches for phrases on its first, middle and last pages), and
   until every chunk has its vector (the embedding lag back to 0);
2. ``--files`` Markdown files (1,000 by default, a few sections each), uploaded one
   after the other: until all are indexed, and documents per second;
3. chat: messages published at ``--rate`` (100/s), publish-to-searchable p50/p95/p99
   (the poller of ``bench/ingest.py``), first alone (once every chunk has its vector),
   then while a second copy of the PDF (other bytes) and the Markdown files are
   uploaded and processed;
4. bytes stored per chunk: the originals, and the ``memories`` and ``vectors`` tables'
   growth, divided by the chunks;
5. with ``--big-mb``, first: ``--big-files`` Markdown files of that many megabytes of
   one user and, right after them, ``--small`` one-line documents of ten users of
   another tenant: until every small one is indexed (big files leave them a reader),
   and until each big one is indexed (every chunk a memory) and all are embedded.
   ``--big-only`` stops there, before the vectors.

The lifecycle timer is stopped (``MEMSTREAM_LIFECYCLE_EVERY_SECONDS`` far away) so it
does not share the cores with what is measured; the embedder runs, and table upkeep runs
as often as deployed (every 30 s), as in a deployment.

Usage: python bench/documents.py [--pages 300] [--files 1000] [--rate 100] [--seconds 30]
       [--batch-within SECONDS] [--big-mb 50 --big-files 2 --small 45 [--big-only]]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import threading
import time
from pathlib import Path

from fpdf import FPDF
from ingest import DEPLOYED_UPKEEP, latency, open_store

from memstream.client import MemoryClient
from memstream.testing import WorkerProcess, wait_until

WORDS = [
    "tenant",
    "landlord",
    "lease",
    "rent",
    "deposit",
    "notice",
    "renewal",
    "term",
    "clause",
    "party",
    "premises",
    "repair",
    "payment",
    "month",
    "year",
    "agreement",
    "property",
    "access",
    "insurance",
    "utility",
    "period",
    "written",
]


def long_pdf(pages: int, seed: int) -> tuple[bytes, dict[int, str]]:
    """A PDF of ``pages`` pages of numbered sections; a phrase unique to some pages."""
    rng = random.Random(seed)
    document = FPDF()
    document.set_font("helvetica", size=10)
    markers: dict[int, str] = {}
    for page in range(1, pages + 1):
        document.add_page()
        sentences = [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(9, 15))).capitalize() + "."
            for _ in range(28)
        ]
        marker = f"zq{seed}x{page}marker"
        markers[page] = marker
        sentences[5] = f"The code word of this page is {marker}."
        document.multi_cell(0, 5, f"{page} Section {page}\n" + " ".join(sentences))
    return bytes(document.output()), markers


def markdown_file(i: int) -> str:
    rng = random.Random(i)
    sections = []
    for s in range(rng.randint(2, 5)):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 160)))
        sections.append(f"## Part {s}\n\n{body.capitalize()}.\n")
    return f"# Note {i}\n\nmdnote{i} is its word.\n\n" + "\n".join(sections)


def big_markdown(megabytes: float, seed: int) -> bytes:
    """About ``megabytes`` of Markdown: numbered sections of four paragraphs of prose."""
    rng = random.Random(seed)
    parts, size, n = [], 0, 0
    while size < megabytes * 1_000_000:
        n += 1
        body = "\n\n".join(
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 90))).capitalize() + "."
            for _ in range(4)
        )
        part = f"## Section {n}\n\n{body}\n\n"
        parts.append(part)
        size += len(part)
    return "".join(parts).encode()


def big_and_small(
    client: MemoryClient, megabytes: float, small: int, files: int = 1, vectors: bool = True
) -> None:
    """``files`` big Markdown files of one user (tenant ``acme``), then ``small`` notes
    of ten users of another tenant (``globex``): when every note is indexed, when each
    big file is, and when the big ones' chunks all have their vectors."""
    bodies = [big_markdown(megabytes, 7 + n) for n in range(files)]
    sizes = " and ".join(f"{len(b):,}" for b in bodies)
    print(f"Markdown: {sizes} bytes of user 'acme:big', then {small} notes of 10 users "
          "of tenant globex")  # fmt: skip
    started = time.perf_counter()
    for n, body in enumerate(bodies):
        client.add_document("acme:big", data=body, filename=f"big-{n}.md")
    uploaded = time.perf_counter() - started
    users = [f"globex:small{n % 10}" for n in range(small)]
    for n, user in enumerate(users):
        client.add_document(user, text=f"Note {n}: the boat leaves at {n % 12} o'clock.",
                            document_id=f"note-{n}", title=f"note {n}")  # fmt: skip
    notes_sent = time.perf_counter()

    def done(user: str, expected: int) -> bool:
        return indexed(client, user, expected)

    wait_until(lambda: all(done(u, users.count(u)) for u in set(users)), 3600, 0.5)
    print(f"  the big uploads took {uploaded:.1f} s; every note indexed "
          f"{time.perf_counter() - notes_sent:.1f} s after the last was sent")  # fmt: skip
    seen: set[str] = set()

    def big_done() -> bool:
        for shown in client.documents("acme:big"):
            name = shown["document_id"]
            if shown["status"] in ("indexed", "failed") and name not in seen:
                seen.add(name)
                took = time.perf_counter() - started
                print(f"  {name} {shown['status']} {took:.1f} s after the first upload "
                      f"({shown['chunks']:,} chunks, error {shown.get('error')})")  # fmt: skip
        return len(seen) >= files

    wait_until(big_done, 7200, 2.0)
    if vectors:
        wait_until(lambda: client.stats()["embedding_lag"] == 0, 7200, 2.0)
        print(f"  every chunk has its vector {time.perf_counter() - started:.1f} s after")


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def indexed(client: MemoryClient, user: str, expected: int) -> bool:
    found = client.documents(user)
    done = [d for d in found if d["status"] in ("indexed", "failed", "empty")]
    return len(done) >= expected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--rate", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument(
        "--batch-within",
        type=float,
        default=None,
        help="MEMSTREAM_BATCH_WITHIN_SECONDS for the worker (default: its own, 0.5 s)",
    )
    parser.add_argument("--big-mb", type=float, default=0, help="big Markdown files first")
    parser.add_argument("--big-files", type=int, default=1, help="how many big files")
    parser.add_argument("--small", type=int, default=90)
    parser.add_argument("--big-only", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="memstream-docs-") as tmp:
        data = Path(tmp) / "data"
        env = {
            "MEMSTREAM_EMBEDDER": "minilm",
            "MEMSTREAM_DOCUMENT_MAX_BYTES": str(500_000_000),
            "MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "86400",
            **DEPLOYED_UPKEEP,  # table upkeep as deployed (tests run it every 5 s)
        }
        if args.batch_within is not None:
            env["MEMSTREAM_BATCH_WITHIN_SECONDS"] = str(args.batch_within)
        worker = WorkerProcess(data, env=env).start()
        try:
            worker.wait_serving(timeout=120)
            store = open_store(data)  # reads what the worker writes as it writes it
            with MemoryClient(worker.api_url, timeout=600) as client:
                if args.big_mb:
                    big_and_small(
                        client, args.big_mb, args.small, args.big_files, not args.big_only
                    )
                    if args.big_only:
                        return
                pdf, markers = long_pdf(args.pages, 1)
                print(f"PDF: {args.pages} pages, {len(pdf):,} bytes")
                started = time.perf_counter()
                added = client.add_document("bench", data=pdf, filename="long.pdf", wait=300)
                shown = added["document"]
                took = time.perf_counter() - started
                print(
                    f"  indexed (searchable by full text) {took:.1f} s after the upload: "
                    f"{shown['chunks']} chunks, status {shown['status']}"
                )
                for page in (1, args.pages // 2, args.pages):
                    hits = client.search("bench", markers[page], k=1)["results"]
                    cited = hits[0]["document"]["citation"] if hits else "nothing"
                    print(f"  search {markers[page]!r}: {cited}")
                wait_until(lambda: client.stats("bench")["embedding_lag"] == 0, 1800, 0.5)
                print(f"  every chunk has its vector {time.perf_counter() - started:.1f} s after")
                chunks = shown["chunks"]

                before = {
                    name: folder_bytes(Path(store.uri) / f"{name}.lance")
                    for name in ("memories", "vectors")
                }
                originals = folder_bytes(data / "documents")
                print(
                    f"  stored per chunk: original {originals / chunks:,.0f} B, "
                    f"memories {before['memories'] / chunks:,.0f} B, "
                    f"vectors {before['vectors'] / chunks:,.0f} B (tables before compaction)"
                )

                files = Path(tmp) / "notes"
                files.mkdir()
                for i in range(args.files):
                    (files / f"note-{i:04}.md").write_text(markdown_file(i))
                started = time.perf_counter()
                for path in sorted(files.iterdir()):
                    client.add_document("notes", path)
                uploaded = time.perf_counter() - started
                wait_until(lambda: indexed(client, "notes", args.files), 1800, 0.5)
                took = time.perf_counter() - started
                total = sum(d["chunks"] for d in client.documents("notes"))
                print(
                    f"{args.files} Markdown files: uploaded in {uploaded:.1f} s, all indexed "
                    f"{took:.1f} s after the first ({args.files / took:.1f} documents/s, "
                    f"{total:,} chunks)"
                )

            with MemoryClient(worker.api_url, timeout=600) as client:
                wait_until(lambda: client.stats()["embedding_lag"] == 0, 1800, 0.5)
            print(f"chat at {args.rate}/s alone (every chunk embedded, nothing else to do):")
            latency(worker, store, args.rate, args.seconds)

            # chat beside documents: a second PDF and the notes again (as new users)
            def documents_beside() -> None:
                with MemoryClient(worker.api_url, timeout=600) as client:
                    other, _ = long_pdf(args.pages, 2)
                    client.add_document("beside", data=other, filename="other.pdf")
                    for path in sorted(files.iterdir()):
                        client.add_document("beside-notes", path)

            beside = threading.Thread(target=documents_beside, daemon=True)
            beside.start()
            print(f"chat at {args.rate}/s while a {args.pages}-page PDF and the notes are read:")
            latency(worker, store, args.rate, args.seconds, probe="beside")
            beside.join()
        finally:
            worker.stop(timeout=60)


if __name__ == "__main__":
    main()
