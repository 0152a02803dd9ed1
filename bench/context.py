"""Context blocks on LoCoMo: does the block an agent gets hold the evidence?

Ingests the ten LoCoMo conversations through ``memstream up`` (the MiniLM embedder on,
one user per conversation, as ``bench/locomo.py`` does), waits for every vector and for
consolidation to settle, then stops the worker: the measurement runs with no background
lane (no embedder, no lifecycle timer) beside it. For each main question (categories 1-4)
it gathers the context candidates once, with ``now = asked_at``, and assembles a block at
each budget with the same code ``POST /v1/context`` runs
(:func:`memstream.queries.context.gathering.context_candidates` and
:func:`memstream.queries.context.assembly.assemble`, tokens counted with the shipped
tokenizer). A question counts as covered when a line of the block rests on one of
its gold evidence turns (the turn itself, or a fact citing it); recall is the share of
gold turns the block rests on. Printed per category and with the tokens a block used,
for the tuning half (conv-26, 30, 41, 42, 43) and the checking half, with the time to
build a block. Lines scored under a floor share of the best one are left out of a block
(``RELEVANCE_FLOOR``); ``--floors`` compares several over the same candidates.

``--corpus`` asks the questions of the hand-written user-and-assistant conversations of
``tests/fixtures/conversations`` instead, of all of them as one user's history (each
answer among the turns of the others), each of a block of one budget (600 tokens
unless ``--budgets`` names one), and prints per question whether its answer, word for
word, is in the block, and how many of the block's lines rest only on turns of other
conversations (lines that bear not on the question; a line resting on no turn, as an
entity's profile without facts, is counted in neither).

``--cutoff`` sets the similarity of the cut-off that leaves out of a block what bears
not on the question (:mod:`memstream.queries.context.relevance`; ``none``: no cut-off).
``--link-share`` follows links between memories at that share (0: not at all); with
``--corpus`` the answers and the lines of others are also printed by kind of
conversation.

Usage: python bench/context.py [--budgets 1000,2000,4000] [--floors 0,0.3] [--data FOLDER]
       python bench/context.py --corpus [--budgets 600] [--data FOLDER] [--cutoff none]
                               [--link-share 0]
  --data keeps the ingested data folder and reuses it next time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).parent))

from corpus_retrieval import one_history
from locomo import TUNED_ON, publish_and_wait, read_jsonl, wait_for_facts

from memstream.adapters.tokens import count_tokens
from memstream.application import Operations
from memstream.client import MemoryClient
from memstream.policies.limits import CONTEXT_MIN_SIMILARITY
from memstream.queries.context.assembly import RELEVANCE_FLOOR, assemble
from memstream.queries.context.gathering import context_candidates
from memstream.queries.search.searcher import Searcher, SearchRequest
from memstream.settings import Settings
from memstream.storage.layout import DataLayout
from memstream.testing import WorkerProcess

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def ingest(data: Path, turns: list[dict]) -> None:
    worker = WorkerProcess(data, env={"MEMSTREAM_EMBEDDER": "minilm"}).start()
    try:
        worker.wait_serving(timeout=120)
        client = MemoryClient(worker.api_url, timeout=120)
        seconds = publish_and_wait(client, turns)
        print(f"ingested and embedded {len(turns)} turns in {seconds:.0f} s")
        print(f"consolidated: {wait_for_facts(client, stable_seconds=40)}", flush=True)
    finally:
        worker.stop(timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--bench", default=str(Path(__file__).parents[1] / ".." / "shared" / "bench")
    )
    parser.add_argument("--budgets", help="tokens per block (1000,2000,4000; --corpus: 600)")
    parser.add_argument("--data", help="keep the ingested data folder here and reuse it")
    parser.add_argument(
        "--floors", default=str(RELEVANCE_FLOOR), help="relevance floors to compare, e.g. 0,0.3"
    )
    parser.add_argument(
        "--cutoff",
        default=str(CONTEXT_MIN_SIMILARITY),
        help="the similarity of the block's cut-off (memstream.queries.context.relevance), "
        "or 'none' for none",
    )
    parser.add_argument(
        "--link-share",
        type=float,
        help="follow links at this share (0: not at all; default: the setting's)",
    )
    parser.add_argument(
        "--corpus",
        action="store_true",
        help="the questions of tests/fixtures/conversations, each at one budget (600)",
    )
    args = parser.parse_args()
    cutoff = None if args.cutoff == "none" else float(args.cutoff)
    print(f"the block's cut-off: {'none' if cutoff is None else f'similarity {cutoff:g}'}")
    if args.corpus:
        corpus_blocks(args.data, int(args.budgets or 600), cutoff, args.link_share)
        return
    budgets = [int(b) for b in (args.budgets or "1000,2000,4000").split(",")]
    bench = Path(args.bench).resolve()
    turns = read_jsonl(bench / "locomo10_events.jsonl")
    questions = [q for q in read_jsonl(bench / "locomo10_questions.jsonl") if q["main"]]
    with tempfile.TemporaryDirectory(prefix="memstream-context-") as tmp:
        data = Path(args.data) if args.data else Path(tmp) / "data"
        if DataLayout(Settings(data=str(data)).data_location).existing_projections() is None:
            ingest(data, turns)
        floors = [float(f) for f in args.floors.split(",")]
        chosen = {} if args.link_share is None else {"link_share": args.link_share}
        settings = Settings(data=str(data), embedder="minilm", **chosen)
        measure(settings, questions, budgets, floors, cutoff)


class TimedSearcher:
    """The searcher, keeping the time its searches take (to tell a block's own cost)."""

    def __init__(self, searcher: Any) -> None:
        self._searcher = searcher
        self.spent = 0.0

    def search(self, request: SearchRequest, *args: Any, **options: Any) -> Any:
        started = time.perf_counter()
        try:
            return self._searcher.search(request, *args, **options)
        finally:
            self.spent += time.perf_counter() - started

    def __getattr__(self, name: str) -> Any:
        return getattr(self._searcher, name)


def measure(
    settings: Settings,
    questions: list[dict],
    budgets: list[int],
    floors: list[float],
    cutoff: float | None,
) -> None:
    operations = Operations(settings)
    searcher = TimedSearcher(operations.parts.searcher)  # opens the store, loads the embedder
    gathered_for: list[tuple[dict, Any]] = []
    took: list[float] = []
    searching: list[float] = []
    middle = budgets[len(budgets) // 2]
    for q in questions:
        now = datetime.fromisoformat(q["asked_at"] + "+00:00")
        request = SearchRequest(user_id=q["stream_id"], query=q["question"])
        searcher.spent = 0.0
        started = time.perf_counter()
        candidates = context_candidates(cast(Searcher, searcher), request, now, None, cutoff)
        gathered = time.perf_counter() - started
        searching.append(searcher.spent * 1000)
        started = time.perf_counter()
        assemble(candidates, middle, count_tokens)  # the middle budget's whole block
        took.append((gathered + time.perf_counter() - started) * 1000)
        gathered_for.append((q, candidates))
    for floor in floors:
        print(f"\n== relevance floor {floor} ==")
        report(gathered_for, budgets, floor)
    beyond = sorted(t - s for t, s in zip(took, searching, strict=True))
    took.sort()
    searching.sort()

    def p99(values: list[float]) -> float:
        return values[int(len(values) * 0.99) - 1]

    print(
        f"one block at {budgets[len(budgets) // 2]} tokens: p50 {statistics.median(took):.1f} ms, "
        f"p99 {p99(took):.1f} ms, in process, no background lane running; of which "
        f"searching p50 {statistics.median(searching):.1f} ms, p99 {p99(searching):.1f} ms; "
        f"beyond search p50 {statistics.median(beyond):.1f} ms, p99 {p99(beyond):.1f} ms"
    )
    asyncio.run(operations.close())


def report(gathered_for: list[tuple[dict, Any]], budgets: list[int], floor: float) -> None:
    """Coverage, recall and tokens used of the blocks at each budget, per half."""
    covered: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    recall: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    tokens: dict[tuple[str, int], list[int]] = defaultdict(list)
    for q, candidates in gathered_for:
        gold = set(q["gold_event_ids"])
        half = "tuning" if q["stream_id"] in TUNED_ON else "checking"
        for budget in budgets:
            block = assemble(candidates, budget, count_tokens, floor)
            rests_on = {
                s for section in block.sections for line in section.lines for s in line.sources
            }
            tokens[(half, budget)].append(block.tokens)
            for category in (CATEGORIES[q["category"]], "all main"):
                covered[(half, budget, category)].append(float(bool(gold & rests_on)))
                recall[(half, budget, category)].append(len(gold & rests_on) / len(gold))
    print(f"{len(gathered_for)} main questions; budgets {budgets} tokens")
    header = f"{'half':<10} {'budget':>6}  " + "  ".join(
        f"{c:>18}" for c in [*CATEGORIES.values(), "all main"]
    )
    print(header + "   (covered / recall)   tokens used p50 / max")
    for half in ("tuning", "checking"):
        for budget in budgets:
            cells = []
            for category in [*CATEGORIES.values(), "all main"]:
                c = covered[(half, budget, category)]
                r = recall[(half, budget, category)]
                cells.append(f"{statistics.mean(c):.3f} / {statistics.mean(r):.3f}".rjust(18))
            used = sorted(tokens[(half, budget)])
            print(
                f"{half:<10} {budget:>6}  " + "  ".join(cells)
                + f"   {statistics.median(used):.0f} / {used[-1]}"
            )  # fmt: skip


#: The kinds of question the corpus gained after its blocks were first measured.
LATER_KINDS = frozenset({"implied", "linked"})


def corpus_blocks(
    data_folder: str | None, budget: int, cutoff: float | None, link_share: float | None
) -> None:
    """Each question of the hand-written conversations, asked of them all as one user's
    history (``bench/corpus_retrieval.py``): is its answer, word for word, in the block
    of ``budget`` tokens, and does the block rest on a turn that says it? Links followed
    at ``link_share`` (None: the setting's default)."""
    history, questions = one_history()
    conversation_of = {t["event_id"]: t["session_id"].split(":")[0] for t in history}
    with tempfile.TemporaryDirectory(prefix="memstream-context-corpus-") as tmp:
        data = Path(data_folder) if data_folder else Path(tmp) / "data"
        if DataLayout(Settings(data=str(data)).data_location).existing_projections() is None:
            ingest(data, history)
        chosen = {} if link_share is None else {"link_share": link_share}
        operations = Operations(Settings(data=str(data), embedder="minilm", **chosen))
        print(f"links followed at share {operations.settings.link_share:g}")
        answered, resting, used = 0, 0, []
        by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        lines_of, others_of, shares = 0, 0, []
        print(f"\n{len(questions)} questions of one history of {len(history)} turns, a block of "
              f"{budget} tokens each")  # fmt: skip
        for q in questions:
            now = datetime.fromisoformat(q["asked_at"] + "+00:00")
            request = SearchRequest(user_id=q["stream_id"], query=q["question"])
            candidates = context_candidates(operations.parts.searcher, request, now, None, cutoff)
            block = assemble(candidates, budget, count_tokens)
            text = block.context or ""
            has = q["answer"].lower() in text.lower()
            rests_on = {s for sec in block.sections for line in sec.lines for s in line.sources}
            rests = bool(set(q["gold_event_ids"]) & rests_on)
            answered += has
            resting += rests
            used.append(block.tokens)
            # a line resting only on turns of other conversations bears not on it
            lines = [line for sec in block.sections for line in sec.lines]
            others = [
                line
                for line in lines
                if line.sources
                and all(conversation_of.get(e, "") != q["conversation"] for e in line.sources)
            ]
            lines_of += len(lines)
            others_of += len(others)
            kind = by_kind[q["kind"]]
            kind[0], kind[1], kind[2], kind[3] = (
                kind[0] + 1, kind[1] + has, kind[2] + len(others), kind[3] + len(lines)
            )  # fmt: skip
            shares.append(len(others) / len(lines) if lines else 0.0)
            mark = "yes" if has else "NO "
            print(
                f"  {mark} {block.tokens:>4} tokens {len(others):>2}/{len(lines):<2} lines of "
                f"others  {q['conversation']}: {q['question']}"
            )
        n = len(questions)
        print(
            f"answer in the block: {answered} of {n} ({answered / n:.3f}); block rests on an "
            f"evidence turn: {resting} of {n}; tokens p50 {statistics.median(used):.0f}, "
            f"max {max(used)}"
        )
        print(
            f"lines resting only on other conversations' turns: {others_of} of {lines_of} "
            f"({others_of / max(lines_of, 1):.3f}); a block's share of them, mean "
            f"{statistics.mean(shares):.3f}"
        )
        for name, (asked, has_it, others_n, lines_n) in sorted(by_kind.items()):
            print(
                f"  {name:<10} {asked:>3} questions: answer in the block {has_it:>3}, lines of "
                f"others {others_n:>3} of {lines_n:>3} ({others_n / max(lines_n, 1):.3f})"
            )
        # the implied and linked questions came later: the others are those the blocks'
        # share of other conversations' lines was first measured on
        rest = [v for k, v in by_kind.items() if k not in LATER_KINDS]
        asked_n, others_n, lines_n = (sum(v[i] for v in rest) for i in (0, 2, 3))
        print(
            f"  the {asked_n} questions neither implied nor linked: lines of others {others_n} "
            f"of {lines_n} ({others_n / max(lines_n, 1):.3f})"
        )
        asyncio.run(operations.close())


if __name__ == "__main__":
    main()
