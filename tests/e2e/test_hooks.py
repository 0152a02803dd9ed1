"""Coding-agent hooks without a server: a Claude Code transcript (tool calls, thinking,
meta entries, a subagent's turns, a half-written last line) read into the turns of the
conversation, and ``hook install`` merging into a settings file that has entries of its
own. The hooks against a running server are in ``test_portability.py`` (one deployment
for both)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.transcripts import SESSION, as_bytes, entry, transcript_lines

from memstream.hooks.install import merged_settings
from memstream.hooks.transcripts import read_transcript
from memstream.server_address import DEFAULT_URL, answers


def test_a_transcript_becomes_its_conversation_and_a_half_written_line_waits() -> None:
    whole = as_bytes(transcript_lines())
    half = json.dumps(entry("assistant", "a-3", [{"type": "text", "text": "Done."}], 5))
    data = whole + half[:40].encode()
    read = read_transcript(data, 0, user_id="dev", session_id="s", project_id="shop")
    assert [(m["role"], m["content"]) for m in read.messages] == [
        ("user", "Let's use Postgres for the orders service, not MySQL."),
        ("assistant", "Agreed: Postgres for orders."),
        ("user", "And keep the migrations in sql/."),
    ]
    assert read.next_offset == len(whole)
    first = read.messages[0]
    assert first["event_id"] == "claude-code:u-1" and first["project_id"] == "shop"
    assert first["occurred_at"] == "2026-11-20T10:01:00.000Z"
    later = read_transcript(
        whole + half.encode() + b"\n", read.next_offset, user_id="dev", session_id="s",
        project_id=None,
    )  # fmt: skip
    assert [m["content"] for m in later.messages] == ["Done."]
    assert "project_id" not in later.messages[0]
    shorter = read_transcript(whole[:100], read.next_offset, user_id="dev", session_id="s",
                              project_id=None)  # fmt: skip
    assert shorter.next_offset <= 100  # a replaced, shorter file is read from its start


def test_install_merges_into_settings_that_have_entries_of_their_own(tmp_path: Path) -> None:
    existing = {
        "model": "sonnet",
        "permissions": {"allow": ["Bash(git diff:*)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        },
    }
    command = ["/opt/memstream/bin/memstream"]
    merged, changed = merged_settings(existing, command, ["--user", "dev"])
    assert changed == ["SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"]
    assert merged["model"] == "sonnet" and merged["permissions"] == existing["permissions"]
    assert merged["hooks"]["PreToolUse"] == existing["hooks"]["PreToolUse"]
    stop = merged["hooks"]["Stop"]
    assert stop[0] == existing["hooks"]["Stop"][0]
    assert stop[1]["hooks"][0]["command"] == "/opt/memstream/bin/memstream hook stop --user dev"
    again, changed_again = merged_settings(merged, command, ["--user", "dev"])
    assert again == merged and changed_again == []
    moved, _ = merged_settings(merged, command, ["--user", "ana"])  # replaced, not added
    assert len(moved["hooks"]["Stop"]) == 2 and "--user ana" in json.dumps(moved["hooks"]["Stop"])

    project = tmp_path / "shop"
    (project / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps(existing))
    said = _install("--project", str(project), "--user", "dev")
    assert said.returncode == 0, said.stderr
    assert "SessionStart" in said.stdout and "kept model, permissions" in said.stdout
    written = json.loads(settings.read_text())
    assert written["hooks"]["PreToolUse"] == existing["hooks"]["PreToolUse"]
    assert "nothing changed" in _install("--project", str(project), "--user", "dev").stdout
    settings.write_text("{not json")
    broken = _install("--project", str(project), "--user", "dev")
    assert broken.returncode == 2 and "left as it is" in broken.stderr
    assert settings.read_text() == "{not json"


#: An address nothing answers at: the install tests of settings files need no server
#: (the hooks are written with a warning that nothing answers there yet).
NOBODY = "http://127.0.0.1:9"


def _install(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    reach = [] if {"--api", "--data"} & set(args) else ["--api", NOBODY]
    return subprocess.run(
        [sys.executable, "-m", "memstream", "hook", "install", "claude-code", *args, *reach],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=cwd,
    )


def test_install_names_the_memstream_it_found_and_refuses_what_does_not_exist(
    tmp_path: Path,
) -> None:
    """A project or data folder that does not exist is refused (nothing is created); with
    nothing named and nothing answering, install says so; a folder named with no server
    running is written with a warning; an address answering is named."""
    home = {"HOME": str(tmp_path), "PATH": os.environ["PATH"]}  # no MEMSTREAM_* settings
    typo = tmp_path / "shpo"
    refused = _install("--project", str(typo), "--user", "dev", env=home)
    assert refused.returncode == 2 and "no project folder at" in refused.stderr, refused.stderr
    assert not typo.exists()
    missing = tmp_path / "nowhere"
    no_data = _install("--user", "dev", "--data", str(missing), env=home)
    assert no_data.returncode == 2 and f"no data folder at {missing}" in no_data.stderr
    assert not missing.exists() and not (tmp_path / ".claude").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    if not answers(DEFAULT_URL):  # a memstream of this machine's own would be found
        nothing = subprocess.run(
            [sys.executable, "-m", "memstream", "hook", "install", "claude-code"],
            capture_output=True, text=True, timeout=60, env=home, cwd=empty,
        )  # fmt: skip
        assert nothing.returncode == 2 and "no memstream found" in nothing.stderr
        assert "Traceback" not in nothing.stderr
    data = tmp_path / "data"
    data.mkdir()
    later = _install("--user", "dev", "--data", str(data), env=home)
    assert later.returncode == 0, later.stderr
    assert f"no memstream runs for {data} now" in later.stderr
    written = (tmp_path / ".claude" / "settings.json").read_text()
    assert f"--data {data}" in written


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["hook"], "usage: memstream hook [--host HOST] EVENT"),
        (["hook", "lunch"], "no hook event 'lunch' for claude-code"),
        (["hook", "--host", "vim", "prompt"], "no host 'vim'"),
        (["hook", "prompt", "--budget", "lots"], "--budget takes a number of tokens"),
        (["hook", "prompt", "--budget", "99999999"], "--budget takes a number of tokens"),
        (["hook", "prompt", "--wait", "forever"], "--wait takes seconds from 0 to 30"),
        (["hook", "prompt", "--wait", "300"], "--wait takes seconds from 0 to 30"),
    ],
)
def test_a_misused_hook_command_says_how_to_use_it(argv: list[str], said: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memstream", *argv], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and said in done.stderr


def _hook(
    event: str, stdin: bytes, tmp_path: Path, timeout: float = 30
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memstream", "hook", event, "--user", "dev",
         "--api", "http://127.0.0.1:9"],
        input=stdin.decode(), capture_output=True, text=True, timeout=timeout,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
             "XDG_STATE_HOME": str(tmp_path / "state")},
    )  # fmt: skip


def _kept(home: Path) -> Path:
    """Where Claude Code keeps a transcript, under ``home``."""
    folder = home / ".claude" / "projects" / "-work-shop"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{SESSION}.jsonl"


def test_a_transcript_is_read_only_from_where_its_host_keeps_them(tmp_path: Path) -> None:
    """A transcript path outside Claude Code's folders, or a link in them to a file
    outside, is not read (it could be any file of the user's); one line says so."""
    secret = tmp_path / "secrets.txt"
    secret.write_text(json.dumps({"type": "user", "message": {"content": "PIN 4321"}}) + "\n")
    linked = _kept(tmp_path)
    linked.symlink_to(secret)
    for path in (secret, linked):
        payload = {"session_id": SESSION, "transcript_path": str(path)}
        done = _hook("stop", json.dumps(payload).encode(), tmp_path)
        assert done.returncode == 0 and len(done.stderr.splitlines()) == 1, done.stderr
        assert "is not in claude-code's own folders" in done.stderr and "PIN" not in done.stderr
    assert not (tmp_path / "state" / "memstream").exists()  # nothing was read, nothing kept
    kept = tmp_path / "config"
    kept.mkdir()
    (kept / "t.jsonl").write_bytes(b"{}\n")
    payload = {"session_id": SESSION, "transcript_path": str(kept / "t.jsonl")}
    done = subprocess.run(
        [sys.executable, "-m", "memstream", "hook", "stop", "--user", "dev",
         "--api", "http://127.0.0.1:9"],
        input=json.dumps(payload), capture_output=True, text=True, timeout=30,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(kept),
             "XDG_STATE_HOME": str(tmp_path / "state")},
    )  # fmt: skip
    assert "own folders" not in done.stderr, done.stderr  # CLAUDE_CONFIG_DIR is its folder


def _offset(tmp_path: Path) -> int:
    (saved,) = (tmp_path / "state" / "memstream" / "hooks").glob("*.json")
    offset: int = json.loads(saved.read_text())["offset"]
    return offset


@pytest.mark.parametrize(
    "hostile",
    [b"[" * 100_000, b'{"a": ' * 100_000, b"\xff\xfe not utf-8", b"x" * (9 * 1024 * 1024)],
    ids=["deep-list", "deep-object", "not-utf8", "a-line-longer-than-a-run-reads"],
)
def test_a_line_that_cannot_be_read_is_stepped_past(tmp_path: Path, hostile: bytes) -> None:
    """No traceback, and the offset moves past the line: it never wedges the capture."""
    transcript = _kept(tmp_path)
    transcript.write_bytes(hostile + b"\n")
    payload = {"session_id": SESSION, "transcript_path": str(transcript)}
    done = _hook("stop", json.dumps(payload).encode(), tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert _offset(tmp_path) == len(hostile) + 1


@pytest.mark.parametrize(
    ("stdin", "said"),
    [
        (b"[" * 100_000, "nests deeper than any hook's input"),
        (b"not json", "is not JSON"),
        (b" " * (17 << 20), "the agent's input is over 16 MiB"),
        (json.dumps({"session_id": SESSION, "transcript_path": "/dev/zero"}).encode(),
         "is not in claude-code's own folders"),
    ],
)  # fmt: skip
def test_hostile_input_to_a_hook_is_one_line_and_no_hang(
    tmp_path: Path, stdin: bytes, said: str
) -> None:
    done = _hook("stop", stdin, tmp_path, timeout=20)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert said in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


def test_install_writes_through_the_users_own_link_never_a_projects(tmp_path: Path) -> None:
    """A settings file the user linked into a dotfiles checkout in their home is written
    through (the link stays); a link in a project, or one to outside the home folder, is
    refused in one line naming it, and its target keeps every byte."""
    home = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(json.dumps({"model": "sonnet"}))
    (tmp_path / ".claude").mkdir()
    link = tmp_path / ".claude" / "settings.json"
    link.symlink_to(dotfiles)
    said = _install("--user", "dev", env=home)
    assert said.returncode == 0, said.stderr
    assert link.is_symlink() and link.resolve() == dotfiles  # the link stays a link
    assert "memstream hook stop" in dotfiles.read_text()
    nested = '{"a": ' * 100_000 + "1" + "}" * 100_000
    dotfiles.write_text(nested)
    refused = _install("--user", "dev", env=home)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    assert "left as it is" in refused.stderr and dotfiles.read_text() == nested

    outside = tmp_path / "victim.json"
    outside.write_text("{}")
    project = tmp_path / "shop"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").symlink_to(dotfiles)
    dotfiles.write_text("{}")
    planted = _install("--project", str(project), "--user", "dev", env=home)
    assert planted.returncode == 2 and len(planted.stderr.splitlines()) == 1, planted.stderr
    assert "is a link" in planted.stderr and dotfiles.read_text() == "{}"
    outer = tmp_path / "home"
    (outer / ".claude").mkdir(parents=True)
    (outer / ".claude" / "settings.json").symlink_to(outside)
    before = outside.read_text()
    beyond = _install("--user", "dev", env={**home, "HOME": str(outer)})
    assert beyond.returncode == 2 and "link to outside" in beyond.stderr, beyond.stderr
    assert outside.read_text() == before


@pytest.mark.parametrize(
    "kept",
    [b"[" * 200_000, b'{"token": "' + b"w" * 20_000_000 + b'"}', b"\xff\xfe", b"[1, 2]", None],
    ids=["deep", "huge", "not-utf8", "not-an-object", "a-device"],
)
def test_a_state_file_the_hook_cannot_use_is_started_over_not_a_traceback(
    tmp_path: Path, kept: bytes | None
) -> None:
    from memstream.hooks.runner import _kept

    path = tmp_path / "written.json"
    if kept is None:
        path.symlink_to("/dev/zero")  # never ends: read only as far as a state file goes
    else:
        path.write_bytes(kept)
    assert _kept(path) == {}
    path.unlink()
    path.write_text('{"token": "w1.abc", "offset": 12}')
    assert _kept(path) == {"token": "w1.abc", "offset": 12}
