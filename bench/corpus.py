"""The hand-written user-and-assistant conversations of ``tests/fixtures/conversations``.

Each file is one user's chat with an assistant over one or more sessions (moves, family,
health, work, long coding sessions with code, requests, corrections, non-ASCII names, a
pasted contract), with the facts a reader would keep from it and questions whose answer
it holds:

- ``speaker``: the user's display name, or null when the channel does not know it;
- ``sessions``: each with its start ``at`` and its ``turns`` (``role``, ``text``), a
  minute apart; turn ``"2:3"`` is the third turn of the second session;
- ``facts``: ``fact`` (what is true of the user or the people around them), ``turns``
  (the turns that say it) and, when the fact has one, the ``date`` it resolves to
  (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``, against the turn's own time);
- ``questions``: ``question``, a short ``answer`` the right memory holds word for word,
  and the ``turns`` that answer it.

They are read here in the shape of LoCoMo's turns and gold observations, so that the
LoCoMo benchmarks score them with the same code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "conversations"


@dataclass(frozen=True)
class Corpus:
    """The conversations as LoCoMo-shaped turns, gold facts and questions."""

    turns: list[dict]
    facts: list[dict]
    questions: list[dict]
    #: each conversation's kind ("move", "coding", ...), by its id
    kinds: dict[str, str]


def read_corpus(folder: Path = CORPUS) -> Corpus:
    """Every conversation of ``folder``, in file order."""
    turns: list[dict] = []
    facts: list[dict] = []
    questions: list[dict] = []
    kinds: dict[str, str] = {}
    for path in sorted(folder.glob("*.json")):
        conversation = json.loads(path.read_text())
        name = conversation["id"]
        kinds[name] = conversation["kind"]
        seq = 0
        for s, session in enumerate(conversation["sessions"], start=1):
            start = datetime.fromisoformat(session["at"])
            for t, turn in enumerate(session["turns"], start=1):
                at = start + timedelta(minutes=t - 1)
                turns.append(
                    {
                        "stream_id": name,
                        "event_id": f"{name}:{s}:{t}",
                        "session_id": f"session_{s}",
                        "seq": seq,
                        "timestamp": at.isoformat(),
                        "speaker": conversation["speaker"] if turn["role"] == "user" else None,
                        "role": turn["role"],
                        "content": turn["text"],
                    }
                )
                seq += 1

        def cited(refs: list[str], name: str = name) -> list[str]:
            return [f"{name}:{ref}" for ref in refs]

        facts.extend(
            {
                "stream_id": name,
                "observation": f["fact"],
                "evidence_event_ids": cited(f["turns"]),
                "date": f.get("date"),
            }
            for f in conversation["facts"]
        )
        questions.extend(
            {
                "stream_id": name,
                "question": q["question"],
                "answer": q["answer"],
                "evidence_event_ids": cited(q["turns"]),
                "asked_at": turns[-1]["timestamp"],
            }
            for q in conversation["questions"]
        )
    return Corpus(turns, facts, questions, kinds)
