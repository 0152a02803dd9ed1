"""``memstream hook EVENT``: what a coding agent runs at its hook points.

The agent hands the hook a JSON document on standard input and reads what it prints.
At session start and on each prompt, the hook asks the running server for a context
block (``POST /v1/context``: no language model, a small budget) and prints it as the
agent's additional context. At stop, before compaction and at session end, it reads the
transcript file from where it last stopped and publishes the new turns
(``POST /v1/events``, durable once answered; ids from the transcript's own, so a hook
that fires twice stores nothing twice), with the repository as the project; at session
end it ends the session too, so the lifecycle consolidates it.

The hook never stands in the agent's way: when memstream is down or slow it prints one
line on standard error and exits 0 (a turn it could not publish is published by the
next hook that fires: the read position moves only once the server took the turns).
It imports the standard library alone, so a hook costs a Python start and one request.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from memstream.hooks.transcripts import identifier, read_transcript
from memstream.server_address import server_url

__all__ = ["EVENTS", "HookProblem", "main"]

#: The hook points, by memstream's name and by Claude Code's.
EVENTS = {
    "session-start": "SessionStart",
    "prompt": "UserPromptSubmit",
    "stop": "Stop",
    "pre-compact": "PreCompact",
    "session-end": "SessionEnd",
}
_INJECT = {"SessionStart", "UserPromptSubmit"}
#: Tokens a context block may spend by default (the agent's prompt pays for it).
DEFAULT_BUDGET = 600
#: Seconds an inject waits for the server; a capture, per request.
INJECT_TIMEOUT = 3.0
CAPTURE_TIMEOUT = 20.0
#: Events per publish (the API takes up to 1,000).
_BATCH = 500
#: The most of a transcript one run reads: a long transcript is caught up with over
#: several runs, each saving how far it got, so no run outlasts the agent's timeout.
READ_BYTES = 8 * 1024 * 1024


class HookProblem(Exception):
    """Why the hook did nothing (one line for the agent's log)."""


def main(argv: list[str]) -> int:
    """Run the hook ``argv`` names; always 0 but for a misuse of the command itself."""
    if argv[:1] == ["install"]:
        return _install(argv[1:])
    try:
        event, options = _parse(argv)
    except HookProblem as exc:
        print(f"memstream hook: {exc}", file=sys.stderr)
        return 2
    try:
        payload = _payload(sys.stdin.buffer.read())
        if event in _INJECT:
            _inject(event, payload, options)
        else:
            _capture(event, payload, options)
    except HookProblem as exc:
        print(f"memstream hook {argv[0]}: {exc}", file=sys.stderr)
    return 0


def _install(argv: list[str]) -> int:
    """``memstream hook install claude-code [--project DIR] [--user U] [--data DIR]
    [--api URL]``: the hooks in Claude Code's settings (see :mod:`.install`)."""
    import argparse

    from memstream.hooks.install import install_claude_code
    from memstream.mcp.config import memstream_command

    parser = argparse.ArgumentParser(
        prog="memstream hook install",
        description="write memstream's hooks into a coding agent's settings, keeping the rest",
    )
    parser.add_argument("agent", choices=("claude-code",))
    parser.add_argument(
        "--project", help="this project's .claude/settings.json (default: ~/.claude)"
    )
    parser.add_argument("--user", help="the memstream user the hooks act for (default: yours)")
    parser.add_argument("--data", help="the data folder whose running server the hooks ask")
    parser.add_argument("--api", help="the API the hooks ask (default: the data folder's server)")
    args = parser.parse_args(argv)
    options = ["--user", args.user or _user({})]
    if args.api:
        options += ["--api", args.api]
    else:
        data = args.data or os.environ.get("MEMSTREAM_DATA") or "./memstream-data"
        if not data.startswith("s3://"):
            data = str(Path(data).expanduser().resolve())
        options += ["--data", data]
    project = Path(args.project) if args.project else None
    try:
        print(install_claude_code(project, memstream_command(), options))
    except HookProblem as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write the settings: {exc.strerror}", file=sys.stderr)
        return 2
    return 0


def _parse(argv: list[str]) -> tuple[str, dict[str, str]]:
    usage = (
        "usage: memstream hook EVENT [--user U] [--data DIR] [--api URL] [--budget N], "
        f"EVENT one of {', '.join(EVENTS)}; or memstream hook install claude-code"
    )
    if not argv or argv[0] in ("-h", "--help"):
        raise HookProblem(usage)
    name = argv[0]
    event = EVENTS.get(name, name if name in EVENTS.values() else None)
    if event is None:
        raise HookProblem(f"no hook event {name!r}; {usage}")
    options: dict[str, str] = {}
    rest = argv[1:]
    while rest:
        flag = rest.pop(0)
        if flag not in ("--user", "--data", "--api", "--budget") or not rest:
            raise HookProblem(f"unknown option {flag!r}; {usage}")
        options[flag[2:]] = rest.pop(0)
    return event, options


def _payload(data: bytes) -> dict[str, Any]:
    try:
        payload = json.loads(data or b"{}")
    except ValueError:
        raise HookProblem("the agent's input is not JSON") from None
    except RecursionError:
        raise HookProblem("the agent's input nests deeper than any hook's input") from None
    if not isinstance(payload, dict):
        raise HookProblem("the agent's input is not a JSON object")
    return payload


# -- inject ----------------------------------------------------------------------------------


def _inject(event: str, payload: dict[str, Any], options: dict[str, str]) -> None:
    project = _project(payload)
    if event == "UserPromptSubmit":
        query = str(payload.get("prompt") or "").strip()
    else:
        query = f"what matters for the work on {project or 'this project'}: decisions, preferences"
    if not any(ch.isalnum() for ch in query):
        return
    body: dict[str, Any] = {
        "user_id": _user(options),
        "query": query[:2000],
        "budget_tokens": int(options.get("budget") or DEFAULT_BUDGET),
    }
    if project is not None:
        body["project_id"] = project
    answer = _call(options, "POST", "/v1/context", body, INJECT_TIMEOUT)
    block = answer.get("context") if isinstance(answer, dict) else None
    if not block:
        return
    print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": block}}))


# -- capture ---------------------------------------------------------------------------------


def _capture(event: str, payload: dict[str, Any], options: dict[str, str]) -> None:
    path = payload.get("transcript_path")
    session = payload.get("session_id")
    if not isinstance(path, str) or not isinstance(session, str):
        raise HookProblem("the agent's input names no transcript_path and session_id")
    transcript = Path(path).expanduser()
    position = _Position(transcript)
    try:
        offset, data = _window(transcript, position.load())
    except OSError as exc:
        raise HookProblem(f"cannot read the transcript {path}: {exc.strerror}") from None
    user, project = _user(options), _project(payload)
    session_id = identifier(session, "claude-code-")
    read = read_transcript(data, 0, user_id=user, session_id=session_id, project_id=project)
    if not read.messages and read.next_offset == 0 and len(data) == READ_BYTES:
        # one line longer than a run reads: stepped past, so that it wedges nothing
        print(f"memstream hook: a transcript line of over {READ_BYTES:,} bytes skipped",
              file=sys.stderr)  # fmt: skip
        position.save(_after_line(transcript, offset))
        return
    documents = list(read.messages)
    if event == "SessionEnd" and documents:
        documents.append(
            {
                "type": "session_ended",
                "event_id": f"claude-code-end:{session_id}"[:200],
                "user_id": user,
                "session_id": session_id,
                "occurred_at": documents[-1]["occurred_at"],
                **({"project_id": project} if project is not None else {}),
            }
        )
    for start in range(0, len(documents), _BATCH):
        _call(options, "POST", "/v1/events", documents[start : start + _BATCH], CAPTURE_TIMEOUT)
    position.save(offset + read.next_offset)


def _window(transcript: Path, offset: int) -> tuple[int, bytes]:
    """At most :data:`READ_BYTES` of ``transcript`` from ``offset`` (from 0 when the
    file is shorter: it was replaced), and where they start. Only a regular file is
    read (a device such as ``/dev/zero`` never ends).

    Raises:
        OSError: the transcript cannot be read, or is no regular file.
    """
    if not transcript.is_file():
        raise OSError(errno.EINVAL, "not a regular file")
    with transcript.open("rb") as file:
        size = os.fstat(file.fileno()).st_size
        offset = offset if offset <= size else 0
        file.seek(offset)
        return offset, file.read(READ_BYTES)


def _after_line(transcript: Path, offset: int) -> int:
    """The offset just after the line that starts at ``offset`` (the file's end when it
    has no end of line yet: the next run reads on from there)."""
    with transcript.open("rb") as file:
        file.seek(offset)
        position = offset
        while chunk := file.read(1 << 20):
            found = chunk.find(b"\n")
            if found >= 0:
                return position + found + 1
            position += len(chunk)
        return position


class _Position:
    """How far a transcript was published: a small file per transcript in the user's
    state folder (``XDG_STATE_HOME``, else ``~/.local/state``)."""

    def __init__(self, transcript: Path) -> None:
        base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
        digest = hashlib.sha256(str(transcript.resolve()).encode()).hexdigest()[:32]
        self.path = base / "memstream" / "hooks" / f"{digest}.json"

    def load(self) -> int:
        try:
            offset = json.loads(self.path.read_text()).get("offset", 0)
        except (OSError, ValueError, AttributeError):
            return 0
        return offset if isinstance(offset, int) and offset >= 0 else 0

    def save(self, offset: int) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_suffix(".partial")
            partial.write_text(json.dumps({"offset": offset}))
            partial.replace(self.path)
        except OSError as exc:  # the turns are stored; the next hook sends them again
            raise HookProblem(f"cannot keep the transcript's position: {exc.strerror}") from None


# -- shared ----------------------------------------------------------------------------------


def _user(options: dict[str, str]) -> str:
    named = options.get("user") or os.environ.get("MEMSTREAM_USER")
    if named:
        return named
    import getpass

    return identifier(getpass.getuser())


def _project(payload: dict[str, Any]) -> str | None:
    """The repository the agent works in (the folder holding ``.git`` at or above its
    working directory, else the working directory), as a project id."""
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return None
    folder = Path(cwd)
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return identifier(candidate.name)
    return identifier(folder.name) if folder.name else None


def _server(options: dict[str, str]) -> str:
    """The API to ask: ``--api``, else the rule every client follows
    (:func:`memstream.server_address.server_url`), for ``--data`` if given."""
    return server_url(os.environ, api=options.get("api"), data=options.get("data"))


def _call(options: dict[str, str], method: str, path: str, body: object, timeout: float) -> Any:
    url = _server(options) + path
    headers = {"Content-Type": "application/json"}
    key = os.environ.get("MEMSTREAM_API_KEY")
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers=headers, method=method
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        raise HookProblem(f"{url} answered {exc.code}: {_detail(exc)}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise HookProblem(f"memstream is not reachable at {url} ({reason}); skipped") from None
    except ValueError:
        raise HookProblem(f"{url} answered something other than JSON") from None


def _detail(exc: urllib.error.HTTPError) -> str:
    try:
        detail = json.loads(exc.read()).get("detail")
    except (ValueError, AttributeError, OSError):
        return exc.reason
    return detail if isinstance(detail, str) else json.dumps(detail)[:300]
