"""What consolidation derives from LoCoMo, scored against LoCoMo's own gold facts.

LoCoMo ships per-session "observations": short statements about a speaker, each citing
the turns it comes from. Those of the tuning half (conv-26, 30, 41, 42, 43; 1,210 of
them) are in ``../shared/bench/locomo10_observations_tuning.jsonl``.

The default run goes through the real pipeline: it starts ``memstream up`` (embedded
Tansu broker, worker, HTTP API, no embedder: consolidation needs none) on a fresh data
folder, publishes the tuning half's turns as ``bench/locomo.py`` does (one user per
conversation, the LoCoMo event id as idempotency key and provenance) and a
``session_ended`` per conversation, waits until consolidation stops adding memories,
and lists every derived memory (kind other than ``episode``) with its provenance.

``--direct`` calls the extractor itself on the same sessions (each session's turns in
order, as consolidation hands them over when a session closes whole): the same
memories in seconds, for tuning the rules. Both print the same figures.

Scores, with MiniLM (the shipped model) cosine similarity and a threshold of 0.6:

- coverage: the share of gold observations for which some derived memory cites one of
  the observation's evidence turns and says the same thing;
- precision: the share of derived memories that say the same thing as some gold
  observation of their conversation; ``cited precision`` asks as well that the memory
  cites one of that observation's evidence turns.

Precision and counts are printed per tag of the derived memory (home, work, relation,
event, ...), coverage per conversation.

The same scores are printed for the hand-written user-and-assistant conversations of
``tests/fixtures/conversations`` (``bench/corpus.py``), with three more: the share of
derived facts that are a request or a question, that hold a broken name ("Jos" for
"José"), or that end where their sentence went on ("Dr.", "2." of "2.5"), for both sets;
and, of the gold facts with a date that a derived fact covers, the share whose covering
facts carry the right resolved date.

Usage: python bench/facts.py [--direct] [--only locomo|corpus] [--bench ../shared/bench]
       [--show N]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from corpus import read_corpus
from fact_defects import broken_names, is_cut, is_request, name_words
from locomo import TUNED_ON, event_of, read_jsonl, serving, session_ends, wait_for_facts

from memstream.adapters.embedders import MiniLMEmbedder
from memstream.testing import WorkerProcess, wait_until
from memstream.text.extractor import Turn, extract_facts
from memstream.text.found_facts import RESOLVED_DATE

THRESHOLD = 0.6


def derived_directly(turns: list[dict]) -> list[dict]:
    """The extractor's memories for each session, as consolidation derives them."""
    sessions: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for turn in turns:
        sessions[(turn["stream_id"], turn["session_id"])].append(turn)
    found = []
    for (user, session), session_turns in sessions.items():
        ordered = sorted(session_turns, key=lambda t: t["seq"])
        memories = extract_facts(
            user,
            f"{user}:{session}",
            [
                Turn(
                    t["event_id"],
                    t["speaker"],
                    t.get("role") or "user",
                    t["content"],
                    datetime.fromisoformat(t["timestamp"]),
                )
                for t in ordered
            ],
        )
        found.extend(
            {
                "user_id": user,
                "kind": m.kind,
                "content": m.content,
                "tags": m.tags,
                "source_event_ids": m.source_event_ids,
            }
            for m in memories
        )
    return found


def derived_by_pipeline(turns: list[dict], stable_seconds: float) -> list[dict]:
    """Every derived memory a running memstream keeps after consolidating ``turns``."""
    users = sorted({t["stream_id"] for t in turns})
    env = {"MEMSTREAM_EMBEDDER": "none", "MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "2"}
    with tempfile.TemporaryDirectory(prefix="memstream-facts-") as tmp:
        worker = WorkerProcess(Path(tmp) / "data", env=env).start()
        try:
            client = serving(worker)
            started = time.perf_counter()
            for start in range(0, len(turns), 500):
                client.publish([event_of(t) for t in turns[start : start + 500]])
            client.publish(session_ends(turns))
            wait_until(
                lambda: client.stats()["memories"].get("episode", 0) == len(turns),
                timeout=900,
                interval=1,
            )
            last = wait_for_facts(client, stable_seconds)
            took = time.perf_counter() - started - stable_seconds
            print(f"ingested and consolidated {len(turns)} turns in {took:.1f} s: {last}")
            derived = []
            for user in users:  # the user's rows as the json export gives them
                rows = json.loads(b"".join(client.export(user, format="json")))["tables"]
                hidden = {
                    r["memory_id"]
                    for r in rows["memory_state"]
                    if r.get("superseded_by") or r.get("forgotten_at")
                }
                derived.extend(
                    {**m, "user_id": user}
                    for m in rows["memories"]
                    if m["kind"] != "episode" and m["memory_id"] not in hidden
                )
            return derived
        finally:
            worker.stop()


def scored(observations: list[dict], derived: list[dict], show: int, title: str) -> None:
    embedder = MiniLMEmbedder()
    gold = embedder.embed([o["observation"] for o in observations])
    ours = embedder.embed([d["content"] for d in derived]) if derived else np.zeros((0, 384))
    similar = gold @ ours.T  # (observations, derived)
    same_user = np.array(
        [[o["stream_id"] == d["user_id"] for d in derived] for o in observations], dtype=bool
    )
    cites = np.array(
        [
            [bool(set(o["evidence_event_ids"]) & set(d["source_event_ids"])) for d in derived]
            for o in observations
        ],
        dtype=bool,
    )
    says = (similar >= THRESHOLD) & same_user
    covered = (says & cites).any(axis=1)
    precise = says.any(axis=0)
    cited_precise = (says & cites).any(axis=0)

    print(f"\n== {title}: {len(observations)} gold facts, {len(derived)} derived ==")
    print(f"coverage {covered.mean():.3f}   precision {precise.mean() if derived else 0:.3f}"
          f"   cited precision {cited_precise.mean() if derived else 0:.3f}")  # fmt: skip
    print("\ncoverage per conversation:")
    for user in sorted({o["stream_id"] for o in observations}):
        rows = [i for i, o in enumerate(observations) if o["stream_id"] == user]
        n = sum(1 for d in derived if d["user_id"] == user)
        print(f"  {user}: {covered[rows].mean():.3f} of {len(rows)}   ({n} derived)")
    print("\nprecision per tag of the derived memory:")
    by_tag: dict[str, list[int]] = defaultdict(list)
    for j, d in enumerate(derived):
        topics = [t for t in d.get("tags") or () if t != "statement"] or [d["kind"]]
        by_tag[topics[0]].append(j)
    for tag, rows in sorted(by_tag.items(), key=lambda kv: -len(kv[1])):
        print(f"  {tag:<12} {len(rows):>5} derived   precision {precise[rows].mean():.3f}")
    print("\nkinds:", dict(Counter(d["kind"] for d in derived)))
    dated_right(observations, derived, says & cites)
    if show:
        rng = random.Random(7)
        missed = [i for i in range(len(observations)) if not covered[i]]
        print(f"\n{min(show, len(missed))} gold observations not covered:")
        for i in rng.sample(missed, min(show, len(missed))):
            o = observations[i]
            print(f"  - {o['observation']}  [{', '.join(o['evidence_event_ids'])}]")
        wrong = [j for j in range(len(derived)) if not precise[j]]
        print(f"\n{min(show, len(wrong))} derived memories matching no gold observation:")
        for j in rng.sample(wrong, min(show, len(wrong))):
            print(f"  - {derived[j]['content']}")


def defects(derived: list[dict], turns: list[dict]) -> None:
    """The share of derived facts that are requests, hold a broken name, or are cut."""
    by_id = {t["event_id"]: t for t in turns}
    speakers = name_words(t.get("speaker") or "" for t in turns)
    kinds: dict[str, list[str]] = {"request": [], "broken name": [], "cut sentence": []}
    for d in derived:
        sources = [by_id[e] for e in d["source_event_ids"] if e in by_id]
        source = " ".join(t["content"] for t in sources)
        if is_request(d["content"]):
            kinds["request"].append(d["content"])
        if broken_names(d["content"], source, speakers):
            kinds["broken name"].append(d["content"])
        if is_cut(d["content"], source):
            kinds["cut sentence"].append(d["content"])
    print("\nderived facts that are:")
    for kind, found in kinds.items():
        share = len(found) / len(derived) if derived else 0.0
        print(f"  {kind:<13} {len(found):>4}   share {share:.3f}")
        for content in found[:5]:
            print(f"      {content}")


# -- dates ---------------------------------------------------------------------------


def _dates_in(content: str) -> list[tuple[str, str]]:
    return [(m.group(1) or "on", m.group(2)) for m in RESOLVED_DATE.finditer(content)]


def date_is_right(gold: str, how: str, found: str) -> bool:
    """A resolved date says the gold one: as precise or more, and the same (a week
    holds a gold day it starts the week of, or a gold month it starts in)."""
    if how == "the week of":
        start = datetime.fromisoformat(found)
        if len(gold) == 10:
            return 0 <= (datetime.fromisoformat(gold) - start).days < 7
        days = [(start + timedelta(days=n)).date().isoformat() for n in range(7)]
        return any(day.startswith(gold) for day in days)
    return found.startswith(gold)


def dated_right(observations: list[dict], derived: list[dict], covers: np.ndarray) -> None:
    """Of the gold facts with a date that some derived fact covers, the share whose
    covering facts carry the right date."""
    dated = [i for i, o in enumerate(observations) if o.get("date")]
    if not dated:
        return
    covered = [i for i in dated if covers[i].any()]
    right, wrong = [], []
    for i in covered:
        gold = observations[i]["date"]
        found = [
            (how, date)
            for j in np.flatnonzero(covers[i])
            for how, date in _dates_in(derived[j]["content"])
        ]
        if any(date_is_right(gold, how, date) for how, date in found):
            right.append(i)
        else:
            wrong.append((i, found))
    share = len(right) / len(covered) if covered else 0.0
    print(
        f"\ndates: {len(dated)} gold facts with a date, {len(covered)} covered, "
        f"{len(right)} of those dated right ({share:.3f})"
    )
    for i, found in wrong[:8]:
        o = observations[i]
        print(f"  - {o['observation']} [{o['date']}]: found {found or 'no date'}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--bench", default=str(Path(__file__).parents[1] / ".." / "shared" / "bench")
    )
    parser.add_argument("--direct", action="store_true", help="the extractor alone")
    parser.add_argument("--only", choices=["locomo", "corpus"], help="one of the two sets")
    parser.add_argument("--show", type=int, default=0, help="print N misses of each kind")
    parser.add_argument("--stable-seconds", type=float, default=20.0)
    args = parser.parse_args()
    bench = Path(args.bench).resolve()
    sets: dict[str, tuple[list[dict], list[dict]]] = {}
    if args.only in (None, "locomo"):
        turns = read_jsonl(bench / "locomo10_events.jsonl")
        sets["LoCoMo tuning half"] = (
            [t for t in turns if t["stream_id"] in TUNED_ON],
            read_jsonl(bench / "locomo10_observations_tuning.jsonl"),
        )
    if args.only in (None, "corpus"):
        corpus = read_corpus()
        sets["the corpus (tests/fixtures/conversations)"] = (corpus.turns, corpus.facts)
    every_turn = [t for turns, _ in sets.values() for t in turns]
    started = time.perf_counter()
    if args.direct:
        derived = derived_directly(every_turn)
        took = time.perf_counter() - started
        print(f"extracted from {len(every_turn)} turns in {took:.2f} s")
    else:
        derived = derived_by_pipeline(every_turn, args.stable_seconds)
    for title, (turns, observations) in sets.items():
        users = {t["stream_id"] for t in turns}
        theirs = [d for d in derived if d["user_id"] in users]
        scored(observations, theirs, args.show, title)
        defects(theirs, turns)


if __name__ == "__main__":
    main()
