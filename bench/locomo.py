"""Retrieval quality on LoCoMo through the real pipeline, scored by the shared scorer.

Starts ``memstream up`` (embedded Tansu broker, worker with the default MiniLM embedder,
HTTP API) on a fresh data folder; publishes every LoCoMo turn through the client (one
``user_id`` per conversation, the speaker set, ``content`` indexed, the LoCoMo event id
as the idempotency key and provenance) and a ``session_ended`` for each conversation's
last session; waits until every turn is a memory and has its vector, then until
consolidation stops adding facts; asks every question through ``POST /v1/search`` with
``now = asked_at`` and ``k = 50`` twice, with the consolidated facts (a fact counts as
the turns it came from) and with episodes only, then with facts again with links
between memories followed at each of ``--link-shares`` (0: not followed); writes the
run files and scores them with ``../shared/bench/score.py``. Each setting is asked of
its own copy of the ingested folder, so the accesses one run reports do not move the
next one's ranking.

The ten conversations are split in two fixed halves: weights are tuned on the tuning
half (conv-26, 30, 41, 42, 43) and a change is kept only if it also helps the
checking half (conv-44, 47, 48, 49, 50). Tables are printed for each half and for all
ten.

``--lifecycle`` ages the store as a daily worker would have by the time the questions
are asked: it ingests once (as above), copies the data folder, asks every question of
the fresh copy, then on the other copy runs ``memstream jobs consolidate``, ``decay``
and ``archive`` for each conversation with ``--now`` = the time its questions are
asked, and asks again. It prints recall per category fresh and aged (tuning and
checking halves), the hot and archived counts, the bytes a hot and an archived memory
take (table data and indexes on disk, after compaction), and search latency both ways.
``--data DIR`` keeps the ingested folder and reuses it next time (either way). The
questions are asked of a worker restarted with its own lanes quiet (every turn is
embedded and consolidated by then): no lifecycle timer, no upkeep.

Usage: python bench/locomo.py [--bench ../shared/bench] [--out bench-out/locomo-run.jsonl]
                              [--data DIR] [--link-shares 0]
       python bench/locomo.py --lifecycle [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memstream.client import MemoryClient
from memstream.testing import WorkerProcess, wait_until

TUNED_ON = {"conv-26", "conv-30", "conv-41", "conv-42", "conv-43"}
TUNING_HALF = "tuning half (conv-26, 30, 41, 42, 43)"
CHECKING_HALF = "checking half (conv-44, 47, 48, 49, 50)"


def halves(questions: list[dict]) -> dict[str, list[dict]]:
    """The questions of the tuning half, of the checking half, and all of them."""
    return {
        TUNING_HALF: [q for q in questions if q["stream_id"] in TUNED_ON],
        CHECKING_HALF: [q for q in questions if q["stream_id"] not in TUNED_ON],
        "all ten": questions,
    }


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def event_of(turn: dict) -> dict:
    return {
        "event_id": turn["event_id"],
        "user_id": turn["stream_id"],
        "session_id": f"{turn['stream_id']}:{turn['session_id']}",
        "role": turn.get("role") or "user",  # LoCoMo's two people are both users
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
    subset = run.with_name(f"{run.stem}-{re.sub(r'[^a-z0-9]+', '-', label)}-questions.jsonl")
    subset.write_text("".join(json.dumps(q) + "\n" for q in questions))
    print(f"\n== {label}: {len(questions)} questions ==", flush=True)
    run_scorer(bench, subset, run)


def run_scorer(bench: Path, questions: Path, run: Path, *options: str, quiet: bool = False) -> None:
    """``../shared/bench/score.py`` on a questions file and a run file."""
    scorer = [sys.executable, str(bench / "score.py"), str(questions)]
    subprocess.run(
        [*scorer, str(bench / "locomo10_events.jsonl"), str(run), *options],
        check=True,
        capture_output=quiet,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--bench", default=str(Path(__file__).parents[1] / ".." / "shared" / "bench")
    )
    parser.add_argument("--out", default="bench-out/locomo-run.jsonl")
    parser.add_argument("--facts-stable-seconds", type=float, default=40.0)
    parser.add_argument("--lifecycle", action="store_true", help="fresh against aged")
    parser.add_argument("--data", help="keep the ingested data folder here and reuse it")
    parser.add_argument(
        "--embedder", choices=("minilm", "e5-small"), default="minilm", help="the worker's"
    )
    parser.add_argument(
        "--link-shares",
        default="0",
        help="the questions asked again with links followed at these shares (0: not at all)",
    )
    args = parser.parse_args()
    bench = Path(args.bench).resolve()
    turns = read_jsonl(bench / "locomo10_events.jsonl")
    questions = read_jsonl(bench / "locomo10_questions.jsonl")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.lifecycle:
        aged_against_fresh(args, bench, turns, questions, out)
        return

    with tempfile.TemporaryDirectory(prefix="memstream-locomo-") as tmp:
        data = Path(args.data) if args.data else Path(tmp) / "data"
        if (data / "CURRENT").exists():
            print(f"reusing the ingested data in {data}", flush=True)
        else:
            worker = WorkerProcess(data, env=worker_env(args.embedder, quiet=False)).start()
            try:
                client = serving(worker)
                ingest_seconds = publish_and_wait(client, turns)
                print(
                    f"ingested and embedded {len(turns)} turns in {ingest_seconds:.1f} s "
                    f"({len(turns) / ingest_seconds:.0f} turns/s, embedding bound)",
                    flush=True,
                )
                facts = wait_for_facts(client, stable_seconds=args.facts_stable_seconds)
                print(f"consolidated facts: {facts}", flush=True)
            finally:
                worker.stop()
        # the questions are asked of a worker whose own lanes are quiet: every turn is
        # embedded and consolidated already; no lifecycle timer, no upkeep
        runs: dict[str, tuple[list[str] | None, dict[str, str]]] = {
            "with facts": (None, {}),
            "episodes only": (["episode"], {}),
        }
        for share in (float(x) for x in args.link_shares.split(",") if x):
            label = "links not followed" if share == 0 else f"links at share {share:g}"
            runs[label] = (None, {"MEMSTREAM_LINK_SHARE": str(share)})
        for env in dict.fromkeys(tuple(sorted(e.items())) for _, e in runs.values()):
            # each setting asked of its own copy: the same access counts for each
            asked_of = copied(data, Path(tmp) / "asked")
            worker = WorkerProcess(asked_of, env={**worker_env(args.embedder), **dict(env)})
            worker.start()
            try:
                client = serving(worker)
                for label, (kinds, wanted) in runs.items():
                    if tuple(sorted(wanted.items())) == env:
                        asked(client, questions, kinds, out, label)
            finally:
                worker.stop()

    for label in runs:
        run = out.with_name(f"{out.stem}-{label.replace(' ', '-')}.jsonl")
        for half, subset in halves(questions).items():
            score(bench, subset, run, f"{label}, {half}")


def asked(
    client: MemoryClient, questions: list[dict], kinds: list[str] | None, out: Path, label: str
) -> None:
    """Every question (``k=50``, ``now = asked_at``, of ``kinds`` only when given) into
    the run file of ``label``; its latencies printed."""
    run = out.with_name(f"{out.stem}-{label.replace(' ', '-')}.jsonl")
    measured = ask(client, questions, run, kinds)
    took, wall = measured["took"], measured["wall"]
    print(
        f"{label}: {len(questions)} searches: server p50 {statistics.median(took):.1f} ms, "
        f"client p50 {statistics.median(wall):.1f} ms; run file {run}",
        flush=True,
    )


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


# -- --lifecycle: the same questions of a fresh and of an aged store ------------------


def aged_against_fresh(
    args: argparse.Namespace, bench: Path, turns: list[dict], questions: list[dict], out: Path
) -> None:
    with tempfile.TemporaryDirectory(prefix="memstream-aging-") as tmp:
        base = Path(args.data) if args.data else Path(tmp) / "ingested"
        if not (base / "CURRENT").exists():
            worker = WorkerProcess(base, env=worker_env(args.embedder, quiet=False)).start()
            try:
                client = serving(worker)
                seconds = publish_and_wait(client, turns)
                print(f"ingested and embedded {len(turns)} turns in {seconds:.1f} s", flush=True)
                print(f"consolidated facts: {wait_for_facts(client, 40.0)}", flush=True)
            finally:
                worker.stop()
        copies = {name: Path(tmp) / name for name in ("fresh", "aged")}
        for copy in copies.values():
            shutil.copytree(base, copy)
        measured = {}
        for name, data in copies.items():
            worker = WorkerProcess(data, env=worker_env(args.embedder)).start()
            try:
                client = serving(worker)
                if name == "aged":
                    age(worker, client, questions, args.embedder)
                measured[name] = ask(client, questions, out.with_name(f"{out.stem}-{name}.jsonl"))
            finally:
                worker.stop()
            measured[name].update(footprint(data))
    report(bench, questions, out, measured)


def worker_env(embedder: str, quiet: bool = True) -> dict[str, str]:
    """The worker's settings: ``embedder`` and, when ``quiet``, its own lanes quiet
    while questions are asked (every turn is embedded and consolidated already): no
    timer runs the lifecycle, no upkeep compacts."""
    if not quiet:
        return {"MEMSTREAM_EMBEDDER": embedder}
    return {
        "MEMSTREAM_EMBEDDER": embedder,
        "MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "86400",
        "MEMSTREAM_DECAY_EVERY_HOURS": "100000",
        "MEMSTREAM_ARCHIVE_EVERY_HOURS": "100000",
        "MEMSTREAM_REFLECT_EVERY_DAYS": "10000",
    }


def copied(data: Path, into: Path) -> Path:
    """A copy of the data folder ``data`` (broker log and tables) at ``into``: a run of
    questions that reports its accesses there leaves ``data`` as it was, so every run
    of a comparison ranks by the same access counts."""
    if into.exists():
        shutil.rmtree(into)
    shutil.copytree(data, into, symlinks=True)
    return into


def serving(worker: WorkerProcess) -> MemoryClient:
    worker.wait_ready()
    client = MemoryClient(worker.api_url, timeout=120)

    def healthy() -> bool:
        try:
            return bool(client.stats())
        except Exception:
            return False

    wait_until(healthy, timeout=120)
    return client


def age(worker: WorkerProcess, client: MemoryClient, questions: list[dict], embedder: str) -> None:
    """Each conversation's jobs, as of the time its questions are asked."""
    asked: dict[str, str] = {}
    for q in questions:
        asked[q["stream_id"]] = max(asked.get(q["stream_id"], ""), q["asked_at"])
    env = {
        **os.environ,
        **worker_env(embedder),
        "MEMSTREAM_DATA": str(worker.data),
        "MEMSTREAM_BROKER_PORT": str(worker.broker_port),
    }
    started = time.perf_counter()
    for user, at in sorted(asked.items()):
        for job in ("consolidate", "decay", "archive"):
            before = client.stats(user)
            done = subprocess.run(
                [sys.executable, "-m", "memstream", "jobs", job, "--user", user, "--now", at + "Z"],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            said = done.stderr.split("published ")[-1].split()[0]
            published = 0 if said == "nothing" else int(said)
            if job == "archive":
                wanted = before["archived"] + published
                wait_until(
                    lambda u=user, n=wanted: client.stats(u)["archived"] == n,
                    timeout=300,
                )
            elif published:
                settle(client, user)
        now = client.stats(user)
        print(f"{user} aged as of {at}: hot {now['memories']}, archived {now['archived']}")
    print(f"jobs for ten conversations took {time.perf_counter() - started:.1f} s", flush=True)


def settle(client: MemoryClient, user: str, quiet: float = 3.0) -> None:
    """Wait until the user's counts have not changed for ``quiet`` seconds."""
    last, since = client.stats(user), time.perf_counter()
    while time.perf_counter() - since < quiet:
        time.sleep(0.5)
        now = client.stats(user)
        if now != last:
            last, since = now, time.perf_counter()


def ask(
    client: MemoryClient, questions: list[dict], run: Path, kinds: list[str] | None = None
) -> dict:
    """Every question (``k=50``, ``now = asked_at``, of ``kinds`` only when given); the
    run file and the latencies."""
    rows, took, wall = [], [], []
    for q in questions:
        options: dict[str, Any] = {"k": 50, "now": q["asked_at"] + "Z"}
        if kinds:
            options["kinds"] = kinds
        t0 = time.perf_counter()
        answer = client.search(q["stream_id"], q["question"], **options)
        wall.append((time.perf_counter() - t0) * 1000)
        took.append(answer["took_ms"])
        slots = [
            r["source_event_ids"][0] if len(r["source_event_ids"]) == 1 else r["source_event_ids"]
            for r in answer["results"]
        ]
        rows.append({"question_id": q["question_id"], "retrieved": slots})
    run.write_text("".join(json.dumps(r) + "\n" for r in rows))
    stats = client.stats()
    return {
        "run": run,
        "took": took,
        "wall": wall,
        "hot": sum(stats["memories"].values()),
        "archived": stats["archived"],
    }


def footprint(data: Path) -> dict:
    """Bytes a hot memory (its ``memories`` and ``vectors`` rows) and an archived one
    (its ``archive_index`` row) take on disk, table data and indexes, once compacted."""
    from datetime import timedelta

    from memstream.application.stores import open_store
    from memstream.settings import Settings

    store = open_store(Settings(data=str(data)))
    store.upkeep.optimize(
        timedelta(days=1)
    )  # compacts (the bytes counted are the current version's)

    def on_disk(name: str) -> int:  # the current version's data files and indexes
        return int(store.table(name).stats()["total_bytes"])

    hot_rows = store.count("memories")
    archived_rows = store.count("archive_index")
    return {
        "hot_bytes": (on_disk("memories") + on_disk("vectors")) / max(hot_rows, 1),
        "archived_bytes": on_disk("archive_index") / max(archived_rows, 1) if archived_rows else 0,
    }


def scores(bench: Path, questions: list[dict], run: Path) -> dict:
    """The scorer's figures (``--json``) for these questions."""
    with tempfile.TemporaryDirectory() as tmp:
        subset, result = Path(tmp) / "questions.jsonl", Path(tmp) / "scores.json"
        subset.write_text("".join(json.dumps(q) + "\n" for q in questions))
        run_scorer(bench, subset, run, "--json", str(result), quiet=True)
        found: dict = json.loads(result.read_text())
        return found


def report(bench: Path, questions: list[dict], out: Path, measured: dict) -> None:
    groups = [
        ("ALL(main)", "recall@10"),
        ("ALL(main)", "recall@50"),
        ("ALL(main)", "hit@10"),
        ("multi-hop", "recall@10"),
        ("temporal", "recall@10"),
        ("open-domain", "recall@10"),
        ("single-hop", "recall@10"),
        ("paper:ALL_incl_adversarial", "recall@10"),
    ]
    for label, subset in halves(questions).items():
        fresh = scores(bench, subset, measured["fresh"]["run"])
        aged = scores(bench, subset, measured["aged"]["run"])
        print(f"\n== {label}: {sum(1 for q in subset if q['main'])} main questions ==")
        print(f"{'':34s} {'fresh':>7s} {'aged':>7s} {'aged-fresh':>10s}")
        for group, metric in groups:
            if group in fresh and group in aged:
                a, b = fresh[group][metric], aged[group][metric]
                print(f"{group + ' ' + metric:34s} {a:7.3f} {b:7.3f} {b - a:+10.3f}")
    f, a = measured["fresh"], measured["aged"]
    total = a["hot"] + a["archived"]
    print("\n== the store ==")
    print(
        f"memories hot: fresh {f['hot']:,}, aged {a['hot']:,} ({a['hot'] / total:.0%} of {total:,})"
    )
    print(f"memories archived: fresh {f['archived']:,}, aged {a['archived']:,}")
    print(
        f"bytes on disk per hot memory {a['hot_bytes']:,.0f} (fresh {f['hot_bytes']:,.0f}), "
        f"per archived memory {a['archived_bytes']:,.0f} "
        f"({a['archived_bytes'] / a['hot_bytes']:.0%} of a hot one)"
    )
    for name in ("fresh", "aged"):
        took, wall = sorted(measured[name]["took"]), sorted(measured[name]["wall"])
        print(
            f"search k=50 {name}: server p50 {statistics.median(took):.1f} ms, "
            f"p95 {took[int(len(took) * 0.95)]:.1f} ms; client p50 {statistics.median(wall):.1f} ms"
        )


if __name__ == "__main__":
    main()
