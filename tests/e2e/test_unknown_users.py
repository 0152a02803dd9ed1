"""A user memstream holds nothing of is said so, with the known ids most like it (a
typo, another case), by every read of the command line; ``memstream users`` lists the
users held; ``erase`` asks before it erases and says when there is nothing to erase."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from memstream.events.codec import encode
from memstream.events.user_ids import closest_users, tenant_of
from memstream.queries.users import known_users
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.layout import DataLayout
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, WorkerProcess, free_port, message, wait_until

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
USERS = ["ana", "acme:bob", "acme:bobby", "globex:bob"]


@pytest.mark.parametrize(
    ("asked", "closest"),
    [
        ("Ana", ["ana"]),  # another case first
        ("anna", ["ana"]),
        ("acme:bobb", ["acme:bobby", "acme:bob"]),  # of its tenant only
        ("globex:bobby", ["globex:bob"]),
        ("nobody-here", []),
    ],
)
def test_the_closest_known_ids_are_of_the_same_tenant(asked: str, closest: list[str]) -> None:
    assert closest_users(asked, USERS) == closest
    assert tenant_of("acme:support/bob") == "acme" and tenant_of("ana") is None


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data folder holding the users' memories, with a server running for it: each
    command asks it, as on a machine where memstream runs (one server for the module,
    not a store and a model opened by every command)."""
    folder = tmp_path_factory.mktemp("users") / "data"
    store = ProjectionStore.at(DataLayout(resolve_location(str(folder))).projections())
    said = [
        message(
            event_id=f"{user}-{i}",
            user_id=user,
            content=f"I moved to Porto, note {i}.",
            occurred_at=T0.replace(day=1 + n),
        )
        for n, user in enumerate(USERS)
        for i in range(n + 1)
    ]
    records = [
        LogRecord("e1", "memory.messages", 0, i, T0, e.user_id.encode(), encode(e))
        for i, e in enumerate(said)
    ]
    Projector(store, consumer="memstream", clock=FakeClock(T0)).apply(records)
    # no broker: reads need none, and erase is refused before it would publish
    server = WorkerProcess(folder, kafka=f"127.0.0.1:{free_port()}", command=("serve",))
    server.start()
    try:
        wait_until(lambda: server.check_alive() or _answers(server.api_url), timeout=60)
        yield folder
    finally:
        server.stop()


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def test_the_users_held_are_listed_with_counts_and_last_activity(data: Path) -> None:
    store = ProjectionStore.at(DataLayout(resolve_location(str(data))).projections())
    listed = known_users(store)
    assert [u["user_id"] for u in listed] == sorted(USERS)
    by_id = {u["user_id"]: u for u in listed}
    assert by_id["globex:bob"]["memories"] == 4 and by_id["ana"]["memories"] == 1
    assert by_id["globex:bob"]["last_at"] == T0.replace(day=4)
    assert [u["user_id"] for u in known_users(store, "acme")] == ["acme:bob", "acme:bobby"]


def _cli(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memstream", *args, "--data", str(data)],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.mark.slow
def test_reads_of_an_unknown_user_say_so_and_suggest_the_closest(data: Path) -> None:
    """A search, a list or the counts of a user nobody holds answer what the API answers
    (nothing: exit 0), said in one line with the closest users held; an entity of one
    is not found (404), said in the same one line."""
    for args, hint, code in (
        (("search", "--user", "Ana", "porto"), "did you mean ana?", 0),
        (("stats", "--user", "anna"), "did you mean ana?", 0),
        (("memories", "list", "--user", "acme:bobb"), "did you mean acme:bobby or acme:bob?", 0),
        (("entity", "--user", "Ana", "porto"), "did you mean ana?", 2),
        (("search", "--user", "nobody-here", "porto"), "(`memstream users` lists them)", 0),
    ):
        done = _cli(data, *args)
        assert done.returncode == code, (args, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        user = args[args.index("--user") + 1]
        said = (done.stdout + done.stderr).strip()
        assert len(said.splitlines()) == 1, said  # one line, no "no results" beside it
        assert f"no memory of user {user} is held here" in said and hint in said, said
        assert said.startswith("error: ") is (code == 2), said
    quiet = _cli(data, "search", "--user", "Ana", "porto", "--json")
    assert quiet.returncode == 0 and json.loads(quiet.stdout)["results"] == []
    assert "did you mean ana?" in quiet.stderr
    known = _cli(data, "search", "--user", "ana", "porto")
    assert known.returncode == 0 and "error" not in known.stderr, known.stderr
    listed = _cli(data, "users", "--json")
    assert [u["user_id"] for u in json.loads(listed.stdout)["users"]] == sorted(USERS)
    assert "4 users" in _cli(data, "users").stdout


@pytest.mark.slow
def test_erase_asks_first_and_says_when_there_is_nothing_to_erase(data: Path) -> None:
    nobody = _cli(data, "erase", "--user", "nobody-here")
    assert nobody.returncode == 2, nobody.stderr
    assert "no memory of user nobody-here is held here" in nobody.stderr
    assert "nothing to erase" in nobody.stderr and "add --yes" in nobody.stderr
    asked = _cli(data, "erase", "--user", "ana")  # not on a terminal: nothing is erased
    assert asked.returncode == 2 and "add --yes" in asked.stderr, asked.stderr
    assert "nothing to erase" not in asked.stderr
    still = _cli(data, "search", "--user", "ana", "porto")
    assert still.returncode == 0 and "Porto" in still.stdout
