"""Retrieval quality on LoCoMo through the real pipeline, scored by the shared scorer.

Starts ``memstream up`` (embedded Tansu broker, worker with the default MiniLM embedder,
HTTP API) on a fresh data folder; publishes every LoCoMo turn through the client (one
``user_id`` per conversation, the speaker set, ``content`` indexed, the LoCoMo event id
as the idempotency key and provenance) and a ``session_ended`` for each conversation's
last session; waits until every turn is a memory and has its vector, then until
consolidation stops adding facts; asks every question through ``POST /v1/search`` with
``now = asked_at`` and ``k = 50`` twice, with the consolidated facts (a fact counts as
the turns it came from) and with episodes only; writes the run files and scores them
with ``../shared/bench/score.py``.

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


def session_ends(turns: list[dict]) -> list[dict]:
    """A ``session_ended`` for each conversation's last session (the others close when
    the next one starts), so that every session is consolidated."""
    last: dict[str, dict] = {}
    for turn in turns:
        last[turn["stream_id"]] = event_of(turn)
    return [
        {
            "type": "session_ended",
            "user_id": e["user_id"],
            "session_id": e["session_id"],
            "occurred_at": e["occurred_at"],
        }
        for e in last.values()
    ]


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
    parser.add_argument("--facts-stable-seconds", type=float, default=40.0)
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
            ingest_seconds = publish_and_wait(client, turns)
            print(
                f"ingested and embedded {len(turns)} turns in {ingest_seconds:.1f} s "
                f"({len(turns) / ingest_seconds:.0f} turns/s, embedding bound)",
                flush=True,
            )
            facts = wait_for_facts(client, stable_seconds=args.facts_stable_seconds)
            print(f"consolidated facts: {facts}", flush=True)
            runs = {"with facts": None, "episodes only": ["episode"]}
            for label, kinds in runs.items():
                rows, took, wall = [], [], []
                for q in questions:
                    options = {"k": 50, "now": q["asked_at"] + "Z"}
                    if kinds:
                        options["kinds"] = kinds
                    t0 = time.perf_counter()
                    answer = client.search(q["stream_id"], q["question"], **options)
                    wall.append((time.perf_counter() - t0) * 1000)
                    took.append(answer["took_ms"])
                    slots = [
                        r["source_event_ids"][0]
                        if len(r["source_event_ids"]) == 1
                        else r["source_event_ids"]
                        for r in answer["results"]
                    ]
                    rows.append({"question_id": q["question_id"], "retrieved": slots})
                run = out.with_name(f"{out.stem}-{label.replace(' ', '-')}.jsonl")
                run.write_text("".join(json.dumps(r) + "\n" for r in rows))
                print(
                    f"{label}: {len(questions)} searches: server p50 "
                    f"{statistics.median(took):.1f} ms, client p50 "
                    f"{statistics.median(wall):.1f} ms; run file {run}",
                    flush=True,
                )
        finally:
            worker.stop()

    for label in runs:
        run = out.with_name(f"{out.stem}-{label.replace(' ', '-')}.jsonl")
        score(bench, questions, run, f"{label}, all ten conversations")
        held_out = [q for q in questions if q["stream_id"] not in TUNED_ON]
        score(bench, held_out, run, f"{label}, seven held out")


def publish_and_wait(client: MemoryClient, turns: list[dict]) -> float:
    """Publish every turn (and each conversation's session end); wait until every turn
    is a memory with its vector; answer the seconds that took."""
    started = time.perf_counter()
    for start in range(0, len(turns), 500):
        client.publish([event_of(t) for t in turns[start : start + 500]])
    client.publish(session_ends(turns))

    def ingested() -> bool:
        s = client.stats()
        return s["memories"].get("episode", 0) == len(turns) and s["embedding_lag"] == 0

    wait_until(ingested, timeout=1800, interval=2)
    return time.perf_counter() - started


def wait_for_facts(client: MemoryClient, stable_seconds: float) -> dict[str, int]:
    """Wait until consolidation stops adding memories; the counts of derived kinds."""
    last: dict[str, int] = {}
    since = time.perf_counter()
    while time.perf_counter() - since < stable_seconds:
        time.sleep(2)
        counts = {k: n for k, n in client.stats()["memories"].items() if k != "episode"}
        if counts != last:
            last, since = counts, time.perf_counter()
    return last


if __name__ == "__main__":
    main()
