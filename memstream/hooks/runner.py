"""``memstream hook [--host HOST] EVENT``: what a coding agent runs at its hook points,
one core for every host (Claude Code, Codex CLI, Gemini CLI, Cursor: :mod:`.hosts` says
what each event does there and what the host reads back).

The agent hands the hook a JSON document on standard input and reads what it prints.
At session start and on each prompt, the hook asks the running server for a context
block (``POST /v1/context``: no language model, a small budget) and prints it as the
agent's additional context (Cursor, which takes none from a hook, finds it in its
rules file). At a turn's end it publishes the turn: Claude Code's from its transcript
file, read from where the last run stopped (ids from the transcript's own); the other
hosts' from what the hook is handed (ids from the host's name for the turn,
:mod:`.turns`), so a hook that fires twice stores nothing twice. The repository is the
project; at session end the session is ended too, so the lifecycle consolidates it.

The hook never stands in the agent's way: when memstream is down or slow it prints one
line on standard error and exits 0 (a turn it could not publish is published by the
next hook that fires: the read position moves only once the server took the turns).
It imports the standard library alone, so a hook costs a Python start and one request.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import sys
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memstream.events.identifier_rules import identifier_for
from memstream.events.text_limits import well_formed
from memstream.hooks.errors import HookProblem, UnsafePath
from memstream.hooks.files import inside, remove_file, write_file
from memstream.hooks.hosts import DEFAULT_HOST, HOSTS, Act, Host
from memstream.hooks.transcripts import identifier, read_transcript
from memstream.hooks.turns import folder_of, session_end_event, session_of, turn_events
from memstream.policies.limits import MAX_CONTEXT_TOKENS
from memstream.server_address import server_url
from memstream.storage.write_tokens import MAX_TOKEN_CHARS, BadToken, merged, parse_token

__all__ = ["EVENTS", "HookProblem", "main"]

#: The hook points of Claude Code (the default host), by memstream's name and its own.
EVENTS = HOSTS[DEFAULT_HOST].aliases
#: Tokens a context block may spend by default (the agent's prompt pays for it), and at most.
DEFAULT_BUDGET = 600
MAX_BUDGET = MAX_CONTEXT_TOKENS
#: Seconds an inject waits for the server; a capture, per request.
INJECT_TIMEOUT = 3.0
#: Seconds an inject waits for the hooks' last writes to be applied, before it asks for
#: what memory holds now instead (``--wait``), and the most it may be given.
AFTER_WRITE_TIMEOUT = 2.0
MAX_WAIT = 30.0
CAPTURE_TIMEOUT = 20.0
#: Events per publish (the API takes up to 1,000).
_BATCH = 500
#: The most of a transcript one run reads: a long transcript is caught up with over
#: several runs, each saving how far it got, so no run outlasts the agent's timeout.
READ_BYTES = 8 * 1024 * 1024
#: The most of a host's input a hook reads: hosts hand a few kilobytes (a prompt, an
#: answer, paths), never a transcript itself.
MAX_INPUT_BYTES = 16 * 1024 * 1024
#: Where Cursor reads the block from (it cannot take context from a hook).
RULES_FILE = Path(".cursor") / "rules" / "memstream.mdc"


def main(argv: list[str]) -> int:
    """Run the hook ``argv`` names; always 0 but for a misuse of the command itself.
    Standard output carries only what the host reads."""
    if argv[:1] == ["install"]:
        return _install(argv[1:])
    try:
        host, event, options = _parse(argv)
    except HookProblem as exc:
        print(f"memstream hook: {exc}", file=sys.stderr)
        return 2
    said: list[str] = []
    try:
        payload = _payload(sys.stdin.buffer.read(MAX_INPUT_BYTES + 1))
        problems = _run(host, event, payload, options, said)
    except HookProblem as exc:
        problems = [exc]
    if problems:  # the first: when memstream is down, each step says the same
        print(f"memstream hook {event}: {problems[0]}", file=sys.stderr)
    answer = said[0] if said else host.replies.get(event) or host.silence
    if answer:
        print(answer)
    return 0


def _run(
    host: Host, event: str, payload: dict[str, Any], options: dict[str, str], said: list[str]
) -> list[HookProblem]:
    """Do what ``event`` does on ``host``, each step whatever the one before it met
    (a block injected is still printed when storing the prompt failed); what to print
    goes into ``said``; the problems met are returned."""
    acts = host.events[event]
    problems: list[HookProblem] = []

    def inject() -> None:
        block = _context(host, Act.INJECT_PROMPT in acts, payload, options)
        if block:
            output = {"hookEventName": event, "additionalContext": block}
            said.append(json.dumps({"hookSpecificOutput": output}))

    steps = []
    if Act.INJECT_START in acts or Act.INJECT_PROMPT in acts:
        steps.append(inject)
    if Act.WRITE_RULES in acts:
        steps.append(lambda: _write_rules(host, payload, options))
    if Act.CAPTURE_TRANSCRIPT in acts:
        steps.append(lambda: _capture(host, payload, options, end=Act.END_SESSION in acts))
    elif Act.STORE_PROMPT in acts or Act.STORE_ANSWER in acts or Act.END_SESSION in acts:
        steps.append(lambda: _store(host, acts, payload, options))
    for step in steps:
        try:
            step()
        except HookProblem as exc:
            problems.append(exc)
    return problems


def _install(argv: list[str]) -> int:
    """``memstream hook install HOST [--project DIR] [--user U] [--data DIR] [--api URL]
    [--wait SECONDS]``:
    the hooks in the host's settings (see :mod:`.install`)."""
    import argparse

    from memstream.hooks.install import install_hooks
    from memstream.hooks.reach import hooks_reach
    from memstream.mcp.config import memstream_command

    parser = argparse.ArgumentParser(
        prog="memstream hook install",
        description="write memstream's hooks into a coding agent's settings, keeping the rest",
    )
    parser.add_argument("agent", choices=tuple(HOSTS))
    parser.add_argument(
        "--project", help="this project's settings (default: the home folder's, every project)"
    )
    parser.add_argument("--user", help="the memstream user the hooks act for (default: yours)")
    parser.add_argument("--data", help="the data folder whose running server the hooks ask")
    parser.add_argument("--api", help="the API the hooks ask (default: the data folder's server)")
    parser.add_argument(
        "--wait",
        type=float,
        help=f"seconds a prompt's block waits for the turns the hooks stored before "
        f"(default {AFTER_WRITE_TIMEOUT:g}, at most {MAX_WAIT:g}); then memory as it is",
    )
    args = parser.parse_args(argv)
    if args.wait is not None and not 0 <= args.wait <= MAX_WAIT:
        parser.error(f"--wait takes seconds from 0 to {MAX_WAIT:g}")
    options = ["--user", args.user or _user({})]
    if args.wait is not None:
        options += ["--wait", f"{args.wait:g}"]
    project = Path(args.project) if args.project else None
    try:
        if project is not None and not project.expanduser().is_dir():
            raise HookProblem(f"no project folder at {project}: name one that exists")
        reach = hooks_reach(args.api, args.data, os.environ, Path.cwd())
        options += reach.options
        print(install_hooks(HOSTS[args.agent], project, memstream_command(), options))
        print(reach.found)
        if reach.warning is not None:
            print(f"warning: {reach.warning}", file=sys.stderr)
    except HookProblem as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write the settings: {exc.strerror}", file=sys.stderr)
        return 2
    return 0


def _parse(argv: list[str]) -> tuple[Host, str, dict[str, str]]:
    usage = (
        "usage: memstream hook [--host HOST] EVENT [--user U] [--data DIR] [--api URL] "
        f"[--budget N] [--wait SECONDS], HOST one of {', '.join(HOSTS)} (claude-code by "
        f"default; its EVENT one of {', '.join(EVENTS)}); or memstream hook install HOST"
    )
    if not argv or argv[0] in ("-h", "--help"):
        raise HookProblem(usage)
    options: dict[str, str] = {}
    rest, named = list(argv), []
    while rest:
        word = rest.pop(0)
        if not word.startswith("--"):
            named.append(word)
            continue
        if word not in ("--host", "--user", "--data", "--api", "--budget", "--wait") or not rest:
            raise HookProblem(f"unknown option {word!r}; {usage}")
        options[word[2:]] = rest.pop(0)
    budget = options.get("budget", str(DEFAULT_BUDGET))
    if not budget.isdigit() or not 1 <= int(budget) <= MAX_BUDGET:
        raise HookProblem(f"--budget takes a number of tokens from 1 to {MAX_BUDGET}; {usage}")
    wait = options.get("wait", str(AFTER_WRITE_TIMEOUT))
    try:
        if not 0 <= float(wait) <= MAX_WAIT:
            raise ValueError(wait)
    except ValueError:
        raise HookProblem(f"--wait takes seconds from 0 to {MAX_WAIT:g}; {usage}") from None
    host = HOSTS.get(options.pop("host", DEFAULT_HOST))
    if host is None:
        raise HookProblem(f"no host {argv[argv.index('--host') + 1]!r}; {usage}")
    if len(named) != 1:
        raise HookProblem(usage)
    name = named[0]
    event = host.aliases.get(name, name if name in host.events else None)
    if event is None:
        raise HookProblem(f"no hook event {name!r} for {host.name}; {usage}")
    return host, event, options


def _payload(data: bytes) -> dict[str, Any]:
    if len(data) > MAX_INPUT_BYTES:
        raise HookProblem(f"the agent's input is over {MAX_INPUT_BYTES >> 20} MiB")
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


def _context(
    host: Host, on_prompt: bool, payload: dict[str, Any], options: dict[str, str]
) -> str | None:
    """The context block for the prompt (or, at the start, for the project's work)."""
    project = _project(host, payload)
    if on_prompt:
        query = well_formed(str(payload.get("prompt") or "")).strip()
    else:
        query = f"what matters for the work on {project or 'this project'}: decisions, preferences"
    if not any(ch.isalnum() for ch in query):
        return None
    body: dict[str, Any] = {
        "user_id": _user(options),
        "query": query[:2000],
        "budget_tokens": int(options.get("budget") or DEFAULT_BUDGET),
    }
    if project is not None:
        body["project_id"] = project
    if not on_prompt:  # what matters for the project: no question to cut by
        body["cutoff"] = False
    answer = None
    asking = {"Memstream-Agent": host.name}  # what the agent was shown is recorded so
    session = session_of(host, payload)
    if session is not None:
        asking["Memstream-Session"] = session
    token = _Written(options, body["user_id"]).load()
    if token is not None:  # after the hooks' own writes (another process's, any host's)
        after = {**body, "after_write": token}
        waited = float(options.get("wait") or AFTER_WRITE_TIMEOUT)
        with contextlib.suppress(HookProblem):  # not applied in time: memory as it is
            answer = _call(options, "POST", "/v1/context", after, waited, asking)
    if answer is None:
        answer = _call(options, "POST", "/v1/context", body, INJECT_TIMEOUT, asking)
    block = answer.get("context") if isinstance(answer, dict) else None
    return block if isinstance(block, str) and block else None


def _write_rules(host: Host, payload: dict[str, Any], options: dict[str, str]) -> None:
    """The block for the prompt as the workspace's rules file (removed when there is
    none: an old block must not stand in for the new prompt's)."""
    folder = folder_of(host, payload)
    if folder is None or not Path(folder).is_dir():
        raise HookProblem("the agent's input names no workspace folder")
    workspace = Path(folder)
    path = workspace / RULES_FILE
    try:
        block = _context(host, True, payload, options)
    except HookProblem:
        _remove_rules(workspace, path)
        raise
    if block is None:
        _remove_rules(workspace, path)
        return
    text = (
        "---\ndescription: What memstream remembers that bears on the current prompt "
        "(rewritten by its hook on each prompt)\nalwaysApply: true\n---\n\n" + block + "\n"
    )
    try:
        write_file(workspace, path, text)
    except OSError as exc:
        raise HookProblem(f"cannot write {path}: {exc.strerror}") from None


def _remove_rules(workspace: Path, path: Path) -> None:
    try:
        remove_file(workspace, path)
    except OSError as exc:
        raise HookProblem(f"cannot remove {path}: {exc.strerror}") from None


def _store(
    host: Host, acts: tuple[Act, ...], payload: dict[str, Any], options: dict[str, str]
) -> None:
    """Publish the turn's prompt and answer, and the end of the session, as ``acts`` say."""
    user, project, now = _user(options), _project(host, payload), datetime.now(UTC)
    if session_of(host, payload) is None:
        raise HookProblem(f"the agent's input names no {host.session_field}")
    documents = turn_events(host, acts, payload, user_id=user, project_id=project, now=now)
    if Act.END_SESSION in acts:
        end = session_end_event(host, payload, user_id=user, project_id=project, now=now)
        documents += [end] if end is not None else []
    if documents:
        _publish(options, user, documents)


# -- capture ---------------------------------------------------------------------------------


def _capture(host: Host, payload: dict[str, Any], options: dict[str, str], *, end: bool) -> None:
    path = payload.get("transcript_path")
    session = payload.get("session_id")
    if not isinstance(path, str) or not isinstance(session, str):
        raise HookProblem("the agent's input names no transcript_path and session_id")
    transcript = Path(path).expanduser()
    kept_in = _transcript_folders(host)
    if not any(inside(transcript, folder) for folder in kept_in):
        raise UnsafePath(
            f"the transcript {path} is not in {host.name}'s own folders "
            f"({', '.join(map(str, kept_in))}): not read"
        )
    position = _Position(transcript)
    try:
        offset, data = _window(transcript, position.load())
    except OSError as exc:
        raise HookProblem(f"cannot read the transcript {path}: {exc.strerror}") from None
    user, project, now = _user(options), _project(host, payload), datetime.now(UTC)
    session_id = identifier_for(session, f"{host.name}-")
    read = read_transcript(data, 0, user_id=user, session_id=session_id, project_id=project)
    if not read.messages and read.next_offset == 0 and len(data) == READ_BYTES:
        # one line longer than a run reads: stepped past, so that it wedges nothing
        print(f"memstream hook: a transcript line of over {READ_BYTES:,} bytes skipped",
              file=sys.stderr)  # fmt: skip
        position.save(_after_line(transcript, offset))
        return
    documents = list(read.messages)
    if end and documents:
        ended = session_end_event(host, payload, user_id=user, project_id=project, now=now)
        if ended is not None:  # at the last turn's time, not the hook's
            documents.append({**ended, "occurred_at": documents[-1]["occurred_at"]})
    for start in range(0, len(documents), _BATCH):
        _publish(options, user, documents[start : start + _BATCH])
    position.save(offset + read.next_offset)


def _transcript_folders(host: Host) -> list[Path]:
    """The folders ``host`` keeps its transcripts in, as this process's environment has
    them (a ``$VAR`` that is not set names none)."""
    expanded = (os.path.expandvars(folder) for folder in host.transcript_folders)
    return [Path(folder).expanduser() for folder in expanded if folder and "$" not in folder]


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


def _publish(options: dict[str, str], user: str, documents: list[dict[str, Any]]) -> None:
    """Publish ``documents`` (of ``user``), and keep the write's token for the reads of
    the hooks that fire next."""
    answer = _call(options, "POST", "/v1/events", documents, CAPTURE_TIMEOUT)
    token = answer.get("token") if isinstance(answer, dict) else None
    if isinstance(token, str):
        _Written(options, user).add(token)


#: The most of a state file a hook reads (it writes a few dozen bytes; a token is at
#: most ``MAX_TOKEN_CHARS``).
_STATE_BYTES = 64 * 1024


def _kept(path: Path) -> dict[str, Any]:
    """The JSON object a state file holds (empty: none, or not one: the hook starts
    over rather than stop)."""
    try:
        with path.open("rb") as file:
            found = json.loads(file.read(_STATE_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


def _state_folder() -> Path:
    """The user's state folder (``XDG_STATE_HOME``, else ``~/.local/state``)."""
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")


class _Written:
    """The write token of what the hooks published for one user to one server: a small
    file in the user's state folder, so that the next hook to fire (another process, of
    any host) asks for a context block that holds those writes.

    Two hooks finishing at once may each keep the token they merged: the one kept last
    wins, and a read may then not wait for the other's write (it is stored all the same)."""

    def __init__(self, options: dict[str, str], user: str) -> None:
        self.base = _state_folder()
        digest = hashlib.sha256(f"{_server(options)}\0{user}".encode()).hexdigest()[:32]
        self.path = self.base / "memstream" / "hooks" / f"written-{digest}.json"

    def load(self) -> str | None:
        token = _kept(self.path).get("token")
        return token if isinstance(token, str) and len(token) <= MAX_TOKEN_CHARS else None

    def add(self, token: str) -> None:
        try:
            kept = merged(parse_token(t) for t in (self.load(), token) if t is not None)
        except BadToken:  # a kept file that is no token: the new write's alone
            kept = parse_token(token)
        if kept is None:
            return
        try:
            self.base.mkdir(parents=True, exist_ok=True)
            write_file(self.base, self.path, json.dumps({"token": kept.text()}))
        except OSError as exc:  # stored; only a read's wait for it is lost
            raise HookProblem(f"cannot keep the write's token: {exc.strerror}") from None


class _Position:
    """How far a transcript was published: a small file per transcript in the user's
    state folder (``XDG_STATE_HOME``, else ``~/.local/state``)."""

    def __init__(self, transcript: Path) -> None:
        self.base = _state_folder()
        digest = hashlib.sha256(str(transcript.resolve()).encode()).hexdigest()[:32]
        self.path = self.base / "memstream" / "hooks" / f"{digest}.json"

    def load(self) -> int:
        offset = _kept(self.path).get("offset", 0)
        return offset if isinstance(offset, int) and offset >= 0 else 0

    def save(self, offset: int) -> None:
        try:
            self.base.mkdir(parents=True, exist_ok=True)
            write_file(self.base, self.path, json.dumps({"offset": offset}))
        except OSError as exc:  # the turns are stored; the next hook sends them again
            raise HookProblem(f"cannot keep the transcript's position: {exc.strerror}") from None


# -- shared ----------------------------------------------------------------------------------


def _user(options: dict[str, str]) -> str:
    named = options.get("user") or os.environ.get("MEMSTREAM_USER")
    if named:
        return named
    import getpass

    return identifier(getpass.getuser())


def _project(host: Host, payload: dict[str, Any]) -> str | None:
    """The repository the agent works in (the folder holding ``.git`` at or above its
    working directory, else the working directory), as a project id."""
    cwd = folder_of(host, payload)
    if cwd is None:
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


def _call(
    options: dict[str, str],
    method: str,
    path: str,
    body: object,
    timeout: float,
    asking: dict[str, str] | None = None,
) -> Any:
    url = _server(options) + path
    headers = {"Content-Type": "application/json", **(asking or {})}
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
