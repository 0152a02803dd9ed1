"""A log written by an older memstream still replays to the same memory.

``tests/fixtures/log-0.4.0`` holds the event archive and cold store that memstream 0.4.0
wrote (every event type); replaying it with today's code must give the per-table digests
0.4.0 recorded, over the columns 0.4.0's tables had (``columns.json``), as today's rows
state them (:data:`AS_STATED_THEN`): columns added since are new projections of the same
events, which the digests of a newer log cover.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memstream.application.stores import open_store
from memstream.projections.archiving import storage_ref_of, summary_of
from memstream.projections.derived import SLOT_WORDS
from memstream.projections.digest import digest_tables
from memstream.settings import Settings
from memstream.storage.lance.tables import STATE_TABLES
from memstream.storage.schemas import NOT_STATE_COLUMNS
from memstream.text.mentions import NAMED_TYPES

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memstream", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("version", ["0.4.0"])
def test_an_old_log_replays_to_the_digests_it_was_written_with(
    version: str, tmp_path: Path
) -> None:
    written = FIXTURES / f"log-{version}"
    data = tmp_path / "data"
    data.mkdir()
    for part in ("events", "cold"):
        shutil.copytree(written / part, data / part)
    into = tmp_path / "replayed"
    done = _cli("replay", "--data", str(data), "--source", "archive", "--into", str(into))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("replayed 202 records (202 applied, 0 dead letters)")
    assert _digests(into, json.loads((written / "columns.json").read_text())) == (
        (written / "digest.txt").read_text().splitlines()
    )
    digests = _cli("digest", "--tables", "--data", str(into))  # the command reads it too
    assert digests.returncode == 0, digests.stderr
    assert len(digests.stdout.splitlines()) == 1 + len(STATE_TABLES)


#: Columns 0.4.0 kept that are derived from others today, by table.
AS_STATED_THEN: dict[str, dict[str, Callable[[dict[str, Any]], Any]]] = {
    # the summary is kept once, speaker first, as the full-text index sees it; the
    # storage reference without the memory id, which the row has already
    "archive_index": {"summary": summary_of, "storage_ref": storage_ref_of},
    # every named thing was a person then; today places, organisations, pets and
    # products are told apart (same entity ids)
    "entities": {"type": lambda r: "person" if r["type"] in NAMED_TYPES else r["type"]},
    # a derived memory's full text was its content; today its attribute's words follow
    "memories": {"search_text": lambda r: _without_slot_words(r["search_text"])},
}


def _without_slot_words(text: str) -> str:
    for words in SLOT_WORDS.values():
        text = text.removesuffix(f" [{words}]")
    return text


def _digests(data: Path, columns: dict[str, list[str]]) -> list[str]:
    """``memstream digest --tables`` of the state tables, over ``columns`` only."""
    store = open_store(Settings(data=str(data)))
    tables = {}
    for name in STATE_TABLES:
        if name not in columns:  # a table that version did not have: nothing of its log
            assert store.count(name) == 0, name
            continue
        derived = AS_STATED_THEN.get(name, {})
        rows = [
            {**r, **{column: state(r) for column, state in derived.items()}}
            for r in store.scan(name).to_pylist()
        ]
        tables[name] = [{k: v for k, v in r.items() if k in columns[name]} for r in rows]
    lines = [digest_tables(tables, ignore=NOT_STATE_COLUMNS)]
    for name, rows in tables.items():
        lines.append(f"{name} {len(rows)} {digest_tables({name: rows}, NOT_STATE_COLUMNS)}")
    return lines
