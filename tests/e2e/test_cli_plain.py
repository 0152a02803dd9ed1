"""The command line as a person meets it: help by task with examples that parse,
``--version``, output piped into ``head`` ending quietly, short memory ids shown and
taken back, plain times, and errors that name the flag or variable the user gave."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

import pytest

from memstream.cli.commands import _TASKS, _parser
from memstream.events.codec import encode
from memstream.projections.episodes import memory_id_for
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.layout import DataLayout
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.streams.topics import MESSAGES
from memstream.testing import FakeClock, message

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def _twins() -> tuple[tuple[str, str], tuple[str, str]]:
    """Two event ids whose memories' ids begin with the same four hex digits."""
    seen: dict[str, str] = {}
    for n in range(100_000):
        event_id = f"twin{n}"
        memory_id = memory_id_for("ana", event_id)
        if memory_id[:7] in seen:
            return (seen[memory_id[:7]], event_id), (
                memory_id_for("ana", seen[memory_id[:7]]),
                memory_id,
            )
        seen[memory_id[:7]] = event_id
    raise AssertionError("no two ids share four digits")


TWIN_EVENTS, TWINS = _twins()


def _memstream(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memstream", *args], capture_output=True, text=True, timeout=60
    )


def test_every_command_is_listed_once_by_task_with_an_example_that_parses() -> None:
    parser = _parser()
    listed = [name for _, commands in _TASKS for name, _ in commands]
    subcommands = next(a for a in parser._actions if a.dest == "command").choices
    assert subcommands is not None
    assert sorted(listed) == sorted(subcommands)  # each once, none left out
    for _, commands in _TASKS:
        for name, example in commands:
            words = shlex.split(example)
            assert words[:2] == ["memstream", name], example
            assert parser.parse_args(words[1:]).command == name, example
    shown = _memstream("--help").stdout
    for title, _ in _TASKS:
        assert f"\n{title}:\n" in shown


def test_each_command_has_one_clean_usage_line_and_suggestions_for_typos() -> None:
    parser = _parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert commands is not None
    for name, command in commands.items():
        usage = command.format_usage()
        assert usage.startswith(f"usage: memstream {name} "), usage
        assert "COMMAND" not in usage and "--help for its options" not in usage, usage
    misspelt = _memstream("serach", "--user", "ana", "porto")
    assert misspelt.returncode == 2 and misspelt.stdout == ""
    assert misspelt.stderr == (
        "error: no command 'serach' (did you mean search?); `memstream --help` lists them by task\n"
    )
    flag = _memstream("publish", "--user", "ana", "--session", "s1", "--speeker", "Ana", "hi")
    assert flag.returncode == 2 and len(flag.stderr.splitlines()) == 1, flag.stderr
    assert "memstream publish has no option --speeker (did you mean --speaker?)" in flag.stderr
    assert "usage:" not in flag.stderr and "Ana" not in flag.stderr  # no user's words back
    words = _memstream("stats", "one", "two")
    assert words.returncode == 2 and "Traceback" not in words.stderr
    one = _memstream("remember", "--user", "ana", "")
    assert "error: content: must have at least 1 character\n" in one.stderr, one.stderr


def test_version() -> None:
    done = _memstream("--version")
    assert (done.returncode, done.stdout) == (0, f"memstream {version('memstream')}\n")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A data folder whose projections hold 150 long messages of ana's."""
    folder = tmp_path / "data"
    store = ProjectionStore.at(DataLayout(resolve_location(str(folder))).projections())
    long = "We walked along the river to the old bridge and talked about the trip. " * 12
    said = [
        message(event_id=f"m{i}", user_id="ana", content=f"{long}{i}", occurred_at=T0)
        for i in range(150)
    ] + [
        message(event_id=event_id, user_id="ana", content="a twin", occurred_at=T0)
        for event_id in TWIN_EVENTS
    ]
    Projector(store, consumer="memstream", clock=FakeClock(T0)).apply(
        [LogRecord("e1", MESSAGES, 0, i, T0, b"ana", encode(m)) for i, m in enumerate(said)]
    )
    return folder


def _here(data: Path, *args: str) -> list[str]:
    """``memstream ARGS`` answered in this process from ``data`` (no server, no model;
    ``expand`` and ``jobs`` always answer in their own process)."""
    here = [] if args[0] in ("expand", "jobs") else ["--in-process"]
    return [sys.executable, "-m", "memstream", *args, "--data", str(data), *here]


QUIET = {**os.environ, "MEMSTREAM_EMBEDDER": "none"}


def _run(command: list[str], env: dict[str, str] = QUIET) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)


def test_output_piped_into_head_ends_without_a_traceback(data: Path) -> None:
    search = _here(data, "search", "--user", "ana", "--json", "-k", "100", "bridge trip")
    whole = _run(search)
    assert whole.returncode == 0, whole.stderr
    assert len(whole.stdout) > 100 * 1024  # more than a pipe holds (64 kB): EPIPE
    piped = subprocess.run(
        f"{shlex.join(search)} | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
        env=QUIET,
    )
    assert piped.stdout == "{\n"
    assert "Traceback" not in piped.stderr and "BrokenPipe" not in piped.stderr, piped.stderr


def test_search_shows_short_ids_that_the_other_commands_take_back(data: Path) -> None:
    found = _run(_here(data, "search", "--user", "ana", "-k", "3", "bridge trip 7"))
    assert found.returncode == 0, found.stderr
    first = found.stdout.splitlines()[0].split()
    # rank, score, day, minute, short id, then the content: no microseconds, no None
    assert re.fullmatch(r"\d\.\d{3}", first[1]) and first[2:4] == ["2024-05-01", "09:00"]
    assert re.fullmatch(r"ep-[0-9a-f]{8}", first[4]), first
    assert "None" not in found.stdout and ":00.000" not in found.stdout
    explained = _run(_here(data, "explain", "--user", "ana", "--json", first[4]))
    assert explained.returncode == 0, explained.stderr
    full = json.loads(explained.stdout)["memory"]["memory_id"]
    assert full.startswith(first[4]) and len(full) == len("ep-") + 32
    for command in ("explain", "expand", "history"):
        missing = _run(_here(data, command, "--user", "ana", "ep-00000000"))
        said = "error: no memory ep-00000000 for user ana\n"
        assert (missing.returncode, missing.stderr) == (2, said), command
    hot = _run(_here(data, "expand", "--user", "ana", first[4]))
    assert hot.stderr == (
        f"error: memory {full} of ana is not archived: it is in the hot tables "
        f"(`memstream explain --user ana {first[4]}` shows it)\n"
    )


def test_a_short_id_that_begins_several_memories_is_refused(data: Path) -> None:
    first = TWINS[0]
    shared = first[:7]  # "ep-" and the four hex digits both ids begin with
    refused = _run(_here(data, "explain", "--user", "ana", shared))
    assert refused.returncode == 2
    assert refused.stderr == (
        f"error: memory_id: {shared} begins 2 memories of ana ({', '.join(sorted(TWINS))}): "
        "give more of it\n"
    )
    assert _run(_here(data, "explain", "--user", "ana", first[:12])).returncode == 0


def test_a_dry_run_says_what_it_would_publish(data: Path) -> None:
    done = _run(_here(data, "jobs", "decay", "--dry-run", "--now", "2025-05-01T00:00:00Z"))
    assert done.returncode == 0, done.stderr
    assert re.search(r"would publish \d+ events \(a dry run: nothing was published\)", done.stderr)
    assert "published 0" not in done.stderr


def test_settings_refused_or_unknown_are_named_as_the_user_gave_them(tmp_path: Path) -> None:
    env = {**QUIET, "MEMSTREAM_API_PROT": "8788", "MEMSTREAM_API_PORT": "0"}
    wrong = _run([sys.executable, "-m", "memstream", "stats", "--data", str(tmp_path)], env)
    assert wrong.returncode == 2
    assert wrong.stderr.splitlines() == [
        "warning: MEMSTREAM_API_PROT is not a memstream setting (did you mean MEMSTREAM_API_PORT?)",
        "error: MEMSTREAM_API_PORT: must be at least 1",
    ]
    flag = _run(
        [sys.executable, "-m", "memstream", "serve", "--data", str(tmp_path), "--port", "70000"]
    )
    assert (flag.returncode, flag.stderr) == (2, "error: --port: must be at most 65535\n")


def test_a_search_refused_names_the_flags_and_says_no_pattern(tmp_path: Path) -> None:
    search = [sys.executable, "-m", "memstream", "search", "--data", str(tmp_path)]
    done = _run([*search, "--user", "ana", "-k", "500", "--kind", "rumour", "where?"])
    assert (done.returncode, done.stderr) == (
        2,
        "error: -k: must be at most 200; --kind: must be one of episode, fact, preference, "
        "procedure, opinion, reflection, summary, chunk\n",
    )
