"""The lifecycle in a running worker: sessions close, facts supersede, commands, decay.

A worker with a real broker closes a person's two sessions on its own (a new session,
then the idle rule), consolidates them into facts with provenance, and the later city
and job supersede the earlier ones; correct, confirm and forget go through the API and
the CLI; ``jobs decay`` sixty days later lowers confidences exactly as the formula
says; pruned facts leave search but stay in history; replay gives the same digest.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from memstream.testing import WorkerProcess, embedded_broker, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.slow]

NOW = datetime.now(UTC).replace(microsecond=0)
S1 = NOW - timedelta(days=10)
S2 = NOW - timedelta(days=5)
TURNS = [
    ("s1", S1, "I live in Lisbon and I work at Acme Corp."),
    ("s1", S1 + timedelta(minutes=1), "I love hiking in the mountains."),
    ("s2", S2, "Big news: I just moved to Porto!"),
    ("s2", S2 + timedelta(minutes=1), "And I started a new job at Blue Fin Labs."),
]


def _cli(data: Path, bootstrap: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memstream", *args, "--data", str(data), "--kafka", bootstrap],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WorkerProcess, Path]]:
    data = tmp_path_factory.mktemp("lifecycle") / "data"
    with embedded_broker() as bootstrap:
        worker = WorkerProcess(
            data,
            kafka=bootstrap,
            env={
                "MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "1",
                "MEMSTREAM_SESSION_IDLE_MINUTES": "0.05",
                # a round reads one session's text: every session closed in a round but
                # left to the next by the bound is consolidated by the rounds that follow
                "MEMSTREAM_CONSOLIDATE_CHARACTERS_PER_TICK": "60",
            },
        ).start()
        worker.wait_ready()
        wait_until(lambda: _get(worker.api_url, "/healthz") is not None, timeout=60)
        yield worker, data
        worker.stop()


def _get(url: str, path: str, **params: str) -> Any:
    try:
        answer = httpx.get(f"{url}{path}", params=params, timeout=10)
    except httpx.HTTPError:
        return None
    return answer.json() if answer.status_code == 200 else None


def _facts(url: str, query: str, history: bool = False) -> list[dict[str, Any]]:
    body = {"user_id": "vitaly", "query": query, "kinds": ["fact"], "include_history": history}
    results: list[dict[str, Any]] = httpx.post(f"{url}/v1/search", json=body).json()["results"]
    return results


def test_a_new_job_said_in_passing_supersedes_the_old_one(
    running: tuple[WorkerProcess, Path],
) -> None:
    """Jobs joined by "and", ";" and led by "now"/"also" become facts, and the later
    job replaces the earlier one, by the worker's own consolidation. (Before the test
    below, which stops the worker to replay its log.)"""
    worker, _ = running
    url = worker.api_url
    said = [
        ("m1", S1, "I live in Lisbon and I work as a nurse at Santa Maria hospital."),
        ("m2", S2, "Great. I also quit the hospital; I now work as a software tester at Farfetch."),
    ]
    events = [
        {"event_id": f"maya-{i}", "user_id": "maya", "session_id": session, "role": "user",
         "speaker": "Maya", "content": text, "occurred_at": at.isoformat()}
        for i, (session, at, text) in enumerate(said)
    ]  # fmt: skip
    assert httpx.post(f"{url}/v1/events", json=events).status_code == 202

    def job_facts() -> list[dict[str, Any]]:
        body = {"user_id": "maya", "query": "What is Maya's job?", "kinds": ["fact"]}
        return list(httpx.post(f"{url}/v1/search", json=body).json()["results"])

    def tester() -> dict[str, Any] | None:
        return next((r for r in job_facts() if "software tester" in r["content"]), None)

    fact = wait_until(tester, timeout=60)
    assert fact["content"] == "Maya works as a software tester." and fact["source_event_ids"] == [
        "maya-1"
    ]
    wait_until(lambda: not any("nurse" in r["content"] for r in job_facts()), timeout=30)
    assert job_facts()[0]["content"] in {  # the question's answer comes first
        "Maya works as a software tester.",
        "Maya works at Farfetch.",
    }
    history = _get(url, f"/v1/memories/{fact['memory_id']}/history", user_id="maya")["history"]
    assert [h["value"] for h in history] == ["nurse", "software tester"]
    listed = httpx.get(f"{url}/v1/memories", params={"user_id": "maya", "kind": "fact"}).json()
    standing = {m["content"] for m in listed["memories"]}
    assert {"Maya works at Farfetch.", "Maya left the hospital."} <= standing
    assert "Maya works at Santa Maria hospital." not in standing  # superseded by Farfetch


def test_facts_supersede_commands_decay_and_replay(
    running: tuple[WorkerProcess, Path], tmp_path: Path
) -> None:
    worker, data = running
    url = worker.api_url
    events = [
        {
            "event_id": f"v-{i}",
            "user_id": "vitaly",
            "session_id": session,
            "role": "user",
            "speaker": "Vitaly",
            "content": text,
            "occurred_at": at.isoformat(),
        }
        for i, (session, at, text) in enumerate(TURNS)
    ]
    assert httpx.post(f"{url}/v1/events", json=events).status_code == 202

    # The worker closes both sessions by itself and consolidates them.
    def porto() -> dict[str, Any] | None:
        found = [r for r in _facts(url, "where does Vitaly live") if "Porto" in r["content"]]
        return found[0] if found else None

    fact = wait_until(porto, timeout=60)
    assert fact["source_event_ids"] == ["v-2"]
    # The supersession is another table's row: a reader may see the new fact a moment
    # before it sees the old one replaced.
    wait_until(
        lambda: not any("Lisbon" in r["content"] for r in _facts(url, "Vitaly lives in Lisbon")),
        timeout=30,
    )
    history = _get(url, f"/v1/memories/{fact['memory_id']}/history", user_id="vitaly")["history"]
    assert [h["value"] for h in history] == ["Lisbon", "Porto"]
    assert history[0]["superseded_by"] == fact["memory_id"]
    assert history[0]["valid_until"].startswith(S2.date().isoformat())
    assert "Lisbon" in " ".join(
        r["content"] for r in _facts(url, "Vitaly lives in Lisbon", history=True)
    )

    # Correct the job through the API: the correction replaces Blue Fin Labs.
    job = wait_until(
        lambda: next(
            (r for r in _facts(url, "where does Vitaly work") if "Blue Fin" in r["content"]), None
        )
    )
    answer = httpx.post(
        f"{url}/v1/memories/{job['memory_id']}/correct",
        json={"user_id": "vitaly", "content": "Vitaly works at Red Kite Studio."},
    ).json()
    corrected = answer["memory_id"]
    wait_until(
        lambda: [r["memory_id"] for r in _facts(url, "where does Vitaly work")][:1] == [corrected]
    )
    chain = _get(url, f"/v1/memories/{corrected}/history", user_id="vitaly")["history"]
    assert [h["memory_id"] for h in chain][-2:] == [job["memory_id"], corrected]
    assert "Acme" in chain[0]["content"]
    bad = httpx.post(
        f"{url}/v1/memories/no-such-id/correct", json={"user_id": "vitaly", "content": "x"}
    )
    assert bad.status_code == 404

    # Confirm through the CLI: protected; forget the preference through the CLI.
    assert (
        _cli(data, worker.bootstrap, "confirm", "--user", "vitaly", fact["memory_id"]).returncode
        == 0
    )
    hiking = wait_until(
        lambda: next(
            (
                r
                for r in httpx.post(
                    f"{url}/v1/search",
                    json={"user_id": "vitaly", "query": "hiking", "kinds": ["preference"]},
                ).json()["results"]
            ),
            None,
        )
    )
    done = _cli(data, worker.bootstrap, "forget", "--user", "vitaly", hiking["memory_id"])
    assert done.returncode == 0, done.stderr
    wait_until(
        lambda: _get(url, f"/v1/memories/{fact['memory_id']}", user_id="vitaly")["protected"]
    )
    wait_until(
        lambda: (
            not httpx.post(
                f"{url}/v1/search",
                json={"user_id": "vitaly", "query": "hiking", "kinds": ["preference"]},
            ).json()["results"]
        )
    )
    assert (
        _get(url, f"/v1/memories/{hiking['memory_id']}", user_id="vitaly")["forgotten_reason"]
        == "forgotten"
    )

    # Decay sixty days later: exactly the formula, from what each memory says.
    later = NOW + timedelta(days=60)
    dry = _cli(
        data,
        worker.bootstrap,
        "jobs",
        "decay",
        "--now",
        later.isoformat(),
        "--user",
        "vitaly",
        "--json",
        "--dry-run",
    )
    assert dry.returncode == 0, dry.stderr
    decided = [e for e in json.loads(dry.stdout) if e["type"] == "confidence_decayed"]
    updates = {u["memory_id"]: u["confidence"] for u in decided[0]["updates"]}
    assert updates and fact["memory_id"] not in updates and corrected in updates
    for memory_id, value in updates.items():
        m = _get(url, f"/v1/memories/{memory_id}", user_id="vitaly")
        since = datetime.fromisoformat(m["last_accessed"] or m["occurred_at"])
        days = max((later - since).total_seconds() / 86400, 0.0)
        rate = {"fact": 0.02, "preference": 0.01, "opinion": 0.03}[m["kind"]]
        expected = min(
            1.0,
            m["written_confidence"] * math.exp(-rate * days**0.8)
            + 0.05 * math.log(1 + m["access_count"] / 20),
        )
        assert abs(value - expected) < 1e-9, (memory_id, value, expected)
    run = _cli(
        data, worker.bootstrap, "jobs", "decay", "--now", later.isoformat(), "--user", "vitaly",
        "--json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    published = [e for e in json.loads(run.stdout) if e["type"] == "confidence_decayed"]
    applied = {u["memory_id"]: u["confidence"] for u in published[0]["updates"]}
    # the same memories as the dry run, their values those the dry run's formula gives
    # for the state the run read: a search's access report (sent beside its answer)
    # applied between the two runs changes the count and the last access it starts from
    assert applied.keys() == updates.keys()
    wait_until(
        lambda: (
            abs(
                _get(url, f"/v1/memories/{corrected}", user_id="vitaly")["confidence"]
                - applied[corrected]
            )
            < 1e-9
        )
    )
    assert _get(url, f"/v1/memories/{fact['memory_id']}", user_id="vitaly")["confidence"] == 1.0

    # Years later what is neither confirmed nor often used is pruned: gone from search,
    # kept in history. A fact no search has returned yet is certain to go; the corrected
    # one goes unless the searches above returned it often enough (about 35 times, more
    # polls on a slow machine) that its use alone holds it over the threshold.
    noted = httpx.post(
        f"{url}/v1/memories",
        json={"user_id": "vitaly", "content": "Vitaly's locker code is 3141.", "kind": "fact"},
    ).json()
    unused = noted["memory_id"]
    wait_until(lambda: _get(url, f"/v1/memories/{unused}", user_id="vitaly"))
    far = NOW + timedelta(days=5000)
    run = _cli(data, worker.bootstrap, "jobs", "decay", "--now", far.isoformat(), "--json")
    assert run.returncode == 0, run.stderr
    decided = [e for e in json.loads(run.stdout) if e.get("user_id") == "vitaly"]
    values = {
        u["memory_id"]: u["confidence"]
        for e in decided
        if e["type"] == "confidence_decayed"
        for u in e["updates"]
    }
    prunes = [e for e in decided if e["type"] == "memory_pruned"]
    pruned_ids = {m for e in prunes for m in e["memory_ids"]}
    threshold = prunes[0]["threshold"]
    assert fact["memory_id"] not in values.keys() | pruned_ids  # confirmed: never decays
    assert {unused, corrected} <= values.keys() and unused in pruned_ids
    assert pruned_ids == {m for m, v in values.items() if v < threshold}
    standing = {fact["memory_id"]} | ({corrected} - pruned_ids)
    wait_until(lambda: {r["memory_id"] for r in _facts(url, "Vitaly works lives")} == standing)
    for memory_id in pruned_ids:
        assert _get(url, f"/v1/memories/{memory_id}", user_id="vitaly")["forgotten_reason"] == (
            "pruned"
        )
        assert memory_id in [
            h["memory_id"]
            for h in _get(url, f"/v1/memories/{memory_id}/history", user_id="vitaly")["history"]
        ]
    if corrected not in pruned_ids:  # held by use: 0.05 * ln(1 + count / 20) >= threshold
        held = _get(url, f"/v1/memories/{corrected}", user_id="vitaly")
        assert held["access_count"] >= 20 * math.expm1(threshold / 0.05)
        assert held["forgotten_reason"] is None

    # A weekly reflection (dry run prints it, publishes nothing).
    reflect = _cli(
        data,
        worker.bootstrap,
        "jobs",
        "reflect",
        "--now",
        (S2 + timedelta(days=7)).isoformat(),
        "--dry-run",
    )
    assert reflect.returncode == 0 and "Porto" in reflect.stdout, reflect.stdout + reflect.stderr

    # Replay rebuilds the same state: sessions, facts, supersession, decay, pruning.
    worker.stop()
    live = _cli(data, worker.bootstrap, "digest").stdout.strip()
    for source in ("kafka", "archive"):
        target = tmp_path / f"replay-{source}"
        done = _cli(data, worker.bootstrap, "replay", "--source", source, "--into", str(target))
        assert done.returncode == 0, done.stderr
        rebuilt = subprocess.run(
            [sys.executable, "-m", "memstream", "digest", "--data", str(target)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert rebuilt.stdout.strip() == live, source
