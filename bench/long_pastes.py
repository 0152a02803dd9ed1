"""Long pastes benchmark: one user's 24 messages of 100,000 characters, and how long
another user's message then takes to be searchable and to have its vector.

Runs ``memstream up`` (the embedded broker, the worker with its embedder and lifecycle
timer, as deployed) on a fresh data folder on this machine. After one warm-up message
(the model loaded), user ``paster`` publishes 24 messages of 100,000 characters of
prose through the HTTP API (four requests of six), and at once user ``other`` publishes
one short message holding a word nobody else wrote. Measured from that message's
acknowledgement: when a full-text search of ``other`` finds it (over HTTP), and when its
vector row is in the ``vectors`` table; then when every passage of the pastes has its
vector. Targets (issue: every acknowledged write counts): searchable within 5 s, its
vector within 30 s.

Usage: python bench/long_pastes.py [--messages 24] [--chars 100000] [--rounds 1]
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from memstream.client import MemoryClient
from memstream.projections.episodes import memory_id_for
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import VECTORS
from memstream.storage.layout import DataLayout
from memstream.testing import WorkerProcess, wait_until
from memstream.text.passages import passages

_VOCABULARY = """the a of to and in we it our was for on with deploy service cluster node
queue Lisbon Berlin Ana Bo config timeout retry request latency budget review team
migration schema index table cache release rollback metrics alert page"""
_WORDS = _VOCABULARY.split()


def paste(rng: random.Random, chars: int) -> str:
    """Prose of ``chars`` characters: sentences of 8-20 words, paragraphs of 3-6."""
    out: list[str] = []
    size = 0
    while size < chars:
        paragraph = []
        for _ in range(rng.randint(3, 6)):
            words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 20))]
            paragraph.append(" ".join(words).capitalize() + ".")
        text = " ".join(paragraph)
        out.append(text)
        size += len(text) + 2
    return "\n\n".join(out)[:chars]


def open_store(data: Path) -> ProjectionStore:
    uri = wait_until(lambda: DataLayout(resolve_location(str(data))).existing_projections()).uri
    return ProjectionStore(uri, read_consistency_interval=timedelta(0))


def has_vector(store: ProjectionStore, memory_id: str) -> bool:
    return store.count(VECTORS, f"memory_id = '{memory_id}'") > 0


def one_round(messages: int, chars: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "data"
        deployed = {"MEMSTREAM_EMBEDDER": "minilm"}  # as deployed (tests switch it off)
        with (
            WorkerProcess(data, env=deployed) as worker,
            MemoryClient(worker.api_url, timeout=120) as client,
        ):
            store = open_store(data)
            warm = client.publish(
                {"user_id": "other", "session_id": "w", "role": "user", "content": "warm up"}
            )
            wait_until(lambda: has_vector(store, memory_id_for("other", warm[0])), 120)
            pasted = [
                {"user_id": "paster", "session_id": "p", "role": "user",
                 "event_id": f"paste-{n}", "content": paste(rng, chars)}
                for n in range(messages)
            ]  # fmt: skip
            expected_passages = sum(len(passages(p["content"])) for p in pasted)
            for start in range(0, len(pasted), 6):
                client.publish(pasted[start : start + 6])
            word = f"zyxq{seed}orbl"
            said = f"the spare key is under the {word} pot"
            [event_id] = client.publish(
                {"user_id": "other", "session_id": "o", "role": "user", "content": said}
            )
            acked = time.perf_counter()
            memory_id = memory_id_for("other", event_id)
            searchable = vector = None
            while searchable is None or vector is None:
                worker.check_alive()
                now = time.perf_counter() - acked
                if now > 900:
                    raise SystemExit("the other user's message was not seen within 900 s")
                found = client.search("other", word, k=3)["results"]
                if searchable is None and any(word in r["content"] for r in found):
                    searchable = now
                if vector is None and has_vector(store, memory_id):
                    vector = now
                time.sleep(0.1)
            own = [memory_id_for("paster", p["event_id"]) for p in pasted]
            wait_until(
                lambda: (
                    store.count(VECTORS, "memory_id LIKE 'ep-%+p%'") >= expected_passages
                    and all(has_vector(store, m) for m in own)
                ),
                1800,
                0.5,
            )
            all_passages = time.perf_counter() - acked
    return {"searchable": searchable, "vector": vector, "passages": all_passages,
            "passage_count": float(expected_passages)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=24)
    parser.add_argument("--chars", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print("background lanes: the embedder (measured) and the lifecycle timer run as deployed")
    for round_ in range(args.rounds):
        got = one_round(args.messages, args.chars, seed=round_)
        print(
            f"round {round_ + 1}: {args.messages} x {args.chars:,} characters "
            f"({got['passage_count']:.0f} passages) from one user; another user's message "
            f"searchable after {got['searchable']:.1f} s (target 5 s), its vector after "
            f"{got['vector']:.1f} s (target 30 s); every passage embedded after "
            f"{got['passages']:.0f} s"
        )


if __name__ == "__main__":
    main()
