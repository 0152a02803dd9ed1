"""Turn-level retrieval over the hand-written conversations, against BM25 in one run.

The 37 user-and-assistant conversations of ``tests/fixtures/conversations`` (moves,
family, health, work, eleven coding sessions with code, four of them with answers of
2,000 to 5,600 characters, requests, corrections, a year of life changes, one whose
41 questions only imply the turn that answers them: "Is a banana a good afternoon snack
for me?" of "I've been diagnosed with type 2 diabetes", and one whose 21 later
statements refer back to earlier ones: "my calves already ache since I signed up for
the half-marathon" to "my physio told me to stop running", each question about the
later statement and answered by the earlier) are taken as one user's history: 463 turns
over two years, in time order, each conversation's sessions its own. Every question of
the corpus is asked of that one history, so each answer has to be found among the
turns of all the others.

The history goes through ``memstream up`` (embedded Tansu broker, worker with the MiniLM
embedder, HTTP API) as ``bench/locomo.py`` sends LoCoMo; the questions are asked with
``k = 50`` and ``now`` = the end of the history, with facts (a fact counts as the turns
it came from) and episodes only, and with facts again with links followed at each of
``--link-shares`` (0: links not followed; the default setting's share is the first
run's) and with an assistant's short reply to a statement ranked at each of
``--restatement-weights`` (1: as found, without the stage that ranks an echo below
what it echoes; the default's weight is the first run's), then without each of the
other stages that rank turns by what they are: no reply handing its score back to the
statement it follows (which takes the echoes' stage with it), users' questions ranked as
found; and with none of these stages (no hand-back, questions and echoes as found, links
not followed: the ranking before them). Each setting is asked of its own copy of the
ingested folder: the accesses one run reports do not move the next
one's ranking. ``../shared/bench/bm25_baseline.py``
ranks the same turns for the same questions, and ``../shared/bench/score.py`` scores
every run: recall@10 and hit@1 are printed for every question, for those of the coding
sessions, for those of the sessions with turns longer than the embedder reads (found by
passages), for the life events, the implied questions and the later statements.

Usage: python bench/corpus_retrieval.py [--bench ../shared/bench] [--out bench-out/corpus]
    [--embedder e5-small] [--data DIR] [--link-shares 0,1.5] [--restatement-weights 1]
  --data keeps the ingested data folder and reuses it next time.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from corpus import read_corpus
from locomo import ask, copied, publish_and_wait, serving, wait_for_facts, worker_env

from memstream.testing import WorkerProcess
from memstream.text.passages import LONG_TURN_CHARACTERS

USER = "corpus"


def one_history() -> tuple[list[dict], list[dict]]:
    """The corpus's turns as one user's, in time order, and its questions (LoCoMo's
    fields: each a single-hop question with its gold turns, and the kind of the
    conversation it is about)."""
    corpus = read_corpus()
    turns = sorted(corpus.turns, key=lambda t: (t["timestamp"], t["event_id"]))
    history = [
        {
            **t,
            "dataset": "memstream-corpus",
            "stream_id": USER,
            "session_id": f"{t['stream_id']}:{t['session_id']}",
        }
        for t in turns
    ]
    sessions = {t["event_id"]: t["session_id"] for t in history}
    end = history[-1]["timestamp"]
    questions = [
        {
            "stream_id": USER,
            "question_id": f"{q['stream_id']}:q{n}",
            "question": q["question"],
            "answer": q["answer"],
            "dataset": "memstream-corpus",
            "category": 4,
            "category_name": "single-hop",
            "asked_at": end,
            "gold_event_ids": q["evidence_event_ids"],
            "gold_session_ids": sorted({sessions[e] for e in q["evidence_event_ids"]}),
            "main": True,
            "conversation": q["stream_id"],
            "kind": corpus.kinds[q["stream_id"]],
        }
        for n, q in enumerate(corpus.questions)
    ]
    return history, questions


def scored(bench: Path, events: Path, questions: Path, run: Path) -> dict[str, float]:
    """recall@10 and hit@1 of a run over all the questions, as ``score.py`` counts them."""
    figures = run.with_suffix(f".{questions.stem}.scores.json")
    score = [sys.executable, str(bench / "score.py"), str(questions), str(events), str(run)]
    subprocess.run(
        [*score, "--json", str(figures)],
        check=True,
        capture_output=True,
    )
    overall = json.loads(figures.read_text())["ALL(main)"]
    return {"recall@10": overall["recall@10"], "hit@1": overall["hit@1"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--bench", default=str(Path(__file__).parents[1] / ".." / "shared" / "bench")
    )
    parser.add_argument("--out", default="bench-out/corpus")
    parser.add_argument(
        "--embedder", choices=("minilm", "e5-small"), default="minilm", help="the worker's"
    )
    parser.add_argument("--data", help="keep the ingested data folder here, and reuse it")
    parser.add_argument(
        "--link-shares",
        default="0",
        help="the questions asked again with links followed at these shares (0: not at all)",
    )
    parser.add_argument(
        "--restatement-weights",
        default="1",
        help="asked again with an assistant's short reply to a statement ranked at these "
        "shares of its score (1: as found, the statement tying it)",
    )
    args = parser.parse_args()
    bench = Path(args.bench).resolve()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    history, questions = one_history()
    events = out / "events.jsonl"
    events.write_text("".join(json.dumps(t) + "\n" for t in history))
    long_ones = {
        t["stream_id"] for t in read_corpus().turns if len(t["content"]) > LONG_TURN_CHARACTERS
    }
    subsets = {
        "every question": questions,
        "coding sessions": [q for q in questions if q["kind"] == "coding"],
        "long coding sessions": [q for q in questions if q["conversation"] in long_ones],
        "life events": [q for q in questions if q["kind"] == "life"],
        "implied links": [q for q in questions if q["kind"] == "implied"],
        "later statements": [q for q in questions if q["kind"] == "linked"],
    }
    files = {}
    for name, subset in subsets.items():
        files[name] = out / f"questions-{re.sub(r'[^a-z]+', '-', name)}.jsonl"
        files[name].write_text("".join(json.dumps(q) + "\n" for q in subset))

    print(f"embedder: {args.embedder}")
    runs = {"memstream, with facts": out / "run-with-facts.jsonl"}
    runs["memstream, episodes only"] = out / "run-episodes-only.jsonl"
    shares = [float(x) for x in args.link_shares.split(",") if x]
    for share in shares:
        runs[_with_links(share)] = out / f"run-links-{share:g}.jsonl"
    weights = [float(x) for x in args.restatement_weights.split(",") if x]
    for weight in weights:
        runs[_echoes_at(weight)] = out / f"run-echoes-{weight:g}.jsonl"
    for label in STAGES_OFF:
        runs[label] = out / f"run-{re.sub(r'[^a-z]+', '-', label)}.jsonl"
    runs["BM25 (shared baseline)"] = out / "run-bm25.jsonl"
    with tempfile.TemporaryDirectory(prefix="memstream-corpus-") as tmp:
        data = Path(args.data) if args.data else Path(tmp) / "data"
        if not (data / "CURRENT").exists():
            ingest(data, history, args.embedder)
        # lanes quiet; each setting asked of its own copy (the same access counts)
        worker = WorkerProcess(copied(data, Path(tmp) / "asked"), env=worker_env(args.embedder))
        try:
            client = serving(worker.start())
            ask(client, questions, runs["memstream, with facts"])
            ask(client, questions, runs["memstream, episodes only"], ["episode"])
        finally:
            worker.stop()
        # the same memories, links followed at another share, echoes at another weight
        for label, setting in [
            *((_with_links(share), {"MEMSTREAM_LINK_SHARE": str(share)}) for share in shares),
            *(
                (_echoes_at(weight), {"MEMSTREAM_RESTATEMENT_WEIGHT": str(weight)})
                for weight in weights
            ),
            *STAGES_OFF.items(),
        ]:
            env = {**worker_env(args.embedder), **setting}
            worker = WorkerProcess(copied(data, Path(tmp) / "asked"), env=env).start()
            try:
                ask(serving(worker), questions, runs[label])
            finally:
                worker.stop()
    subprocess.run(
        [
            sys.executable,
            str(bench / "bm25_baseline.py"),
            str(events),
            str(files["every question"]),
            str(runs["BM25 (shared baseline)"]),
        ],
        check=True,
        capture_output=True,
    )
    print(f"\n{len(questions)} questions over one history of {len(history)} turns")
    for name, subset in subsets.items():
        print(f"{name} ({len(subset)} questions)")
        for label, run in runs.items():
            s = scored(bench, events, files[name], run)
            print(f"  {label:<30} recall@10 {s['recall@10']:.3f}  hit@1 {s['hit@1']:.3f}")


def ingest(data: Path, history: list[dict], embedder: str) -> None:
    """The history through ``memstream up`` into ``data``: every turn embedded, every
    session consolidated (facts and links)."""
    worker = WorkerProcess(data, env=worker_env(embedder, quiet=False)).start()
    try:
        client = serving(worker)
        seconds = publish_and_wait(client, history)
        print(f"ingested and embedded {len(history)} turns in {seconds:.1f} s")
        print(f"consolidated: {wait_for_facts(client, stable_seconds=20)}", flush=True)
    finally:
        worker.stop()


#: The settings that turn off the stages ranking turns by what they are, one at a time
#: and all together (with the links).
STAGES_OFF: dict[str, dict[str, str]] = {
    "no reply hand-back": {"MEMSTREAM_REPLY_SHARE": "0"},
    "questions as found": {"MEMSTREAM_QUESTION_WEIGHT": "1"},
    "before the new stages": {
        "MEMSTREAM_REPLY_SHARE": "0",
        "MEMSTREAM_QUESTION_WEIGHT": "1",
        "MEMSTREAM_RESTATEMENT_WEIGHT": "1",
        "MEMSTREAM_LINK_SHARE": "0",
    },
}


def _with_links(share: float) -> str:
    return "links not followed" if share == 0 else f"links at share {share:g}"


def _echoes_at(weight: float) -> str:
    return "echoes as found" if weight == 1 else f"echoes at weight {weight:g}"


if __name__ == "__main__":
    main()
