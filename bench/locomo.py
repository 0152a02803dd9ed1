"""Retrieval quality on LoCoMo through the real pipeline, scored by the shared scorer.

Starts ``memstream up`` (embedded Tansu broker, worker with the default MiniLM embedder,
HTTP API) on a fresh data folder; publishes every LoCoMo turn through the client (one
``user_id`` per conversation, the speaker set, ``content`` indexed, the LoCoMo event id
as the idempotency key and provenance); waits until every turn is a memory and has its
vector; asks every question through ``POST /v1/search`` with ``now = asked_at`` and
``k = 50``; writes the run file and scores it with ``../shared/bench/score.py``.

The weights were tuned on conversations conv-26, conv-30 and conv-41 only; the table
is printed for all ten and for the seven held out.

Usage: python bench/locomo.py [--bench ../shared/bench] [--out bench-out/locomo-run.jsonl]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memstream.client import MemoryClient
from memstream.testing import WorkerProcess, wait_until

TUNED_ON = {"conv-26", "conv-30", "conv-41"}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def event_of(turn: dict) -> dict:
    return {
        "event_id": turn["event_id"],
        "user_id": turn["stream_id"],
        "session_id": f"{turn['stream_id']}:{turn['session_id']}",
        "role": "user",
        "speaker": turn["speaker"],
        "content": turn["content"],
        "occurred_at": turn["timestamp"] + "Z",
        "channel": "locomo",
    }


def score(bench: Path, questions: list[dict], run: Path, label: str) -> None:
    subset = run.with_name(f"{run.stem}-{label}-questions.jsonl")
    subset.write_text("".join(json.dumps(q) + "\n" for q in questions))
    print(f"\n== {label}: {len(questions)} questions ==", flush=True)
    subprocess.run(
        [
            sys.executable,
            str(bench / "score.py"),
            str(subset),
            str(bench / "locomo10_events.jsonl"),
            str(run),
        ],
        check=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--bench", default=str(Path(__file__).parents[1] / ".." / "shared" / "bench")
    )
    parser.add_argument("--out", default="bench-out/locomo-run.jsonl")
    args = parser.parse_args()
    bench = Path(args.bench).resolve()
    turns = read_jsonl(bench / "locomo10_events.jsonl")
    questions = read_jsonl(bench / "locomo10_questions.jsonl")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="memstream-locomo-") as tmp:
        worker = WorkerProcess(Path(tmp) / "data", env={"MEMSTREAM_EMBEDDER": "minilm"}).start()
        try:
            worker.wait_ready()
            client = MemoryClient(worker.api_url, timeout=120)

            def healthy() -> bool:
                try:
                    return bool(client.stats())
                except Exception:
                    return False

            wait_until(healthy, timeout=120)
            started = time.perf_counter()
            for start in range(0, len(turns), 500):
                client.publish([event_of(t) for t in turns[start : start + 500]])

            def ingested() -> bool:
                s = client.stats()
                return sum(s["memories"].values()) == len(turns) and s["embedding_lag"] == 0

            wait_until(ingested, timeout=1800, interval=2)
            ingest_seconds = time.perf_counter() - started
            print(
                f"ingested and embedded {len(turns)} turns in {ingest_seconds:.1f} s "
                f"({len(turns) / ingest_seconds:.0f} turns/s, embedding bound)",
                flush=True,
            )
            rows, took, wall = [], [], []
            for q in questions:
                t0 = time.perf_counter()
                answer = client.search(q["stream_id"], q["question"], k=50, now=q["asked_at"] + "Z")
                wall.append((time.perf_counter() - t0) * 1000)
                took.append(answer["took_ms"])
                slots = [
                    r["source_event_ids"][0]
                    if len(r["source_event_ids"]) == 1
                    else r["source_event_ids"]
                    for r in answer["results"]
                ]
                rows.append({"question_id": q["question_id"], "retrieved": slots})
            out.write_text("".join(json.dumps(r) + "\n" for r in rows))
            print(
                f"{len(questions)} searches: server p50 {statistics.median(took):.1f} ms, "
                f"client p50 {statistics.median(wall):.1f} ms; run file {out}",
                flush=True,
            )
        finally:
            worker.stop()

    score(bench, questions, out, "all ten conversations")
    score(bench, [q for q in questions if q["stream_id"] not in TUNED_ON], out, "seven held out")


if __name__ == "__main__":
    main()
