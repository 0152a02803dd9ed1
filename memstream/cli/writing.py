"""Commands that put memories in: ``publish`` (a message from the arguments, or events
from a JSONL file), ``remember`` (a fact), ``docs`` (add, list, show, remove documents)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memstream.cli.backends import SettingsOnDemand, running_server, settings_on_demand
from memstream.cli.shared import (
    Command,
    UsageError,
    access_of,
    run_here,
    say,
    tracing_asked,
)
from memstream.clock import system_clock
from memstream.events.errors import InvalidQuery

if TYPE_CHECKING:
    from memstream.application import Operations
    from memstream.streams.publisher import CheckedLine

__all__ = ["WAIT_HELP", "docs", "print_token", "publish", "register", "remember"]

#: What ``--wait`` does, for every command that writes.
WAIT_HELP = "answer once the worker has applied it (the next command sees it)"


@settings_on_demand
def publish(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    """One message: through the server running for the data folder when there is one
    (it validates, journals and publishes), else to the broker straight away. A JSONL
    file: to the broker straight away, each line checked here and reported by number.
    No store is opened either way."""
    if args.text and not args.jsonl:  # one message: refused whole if it is invalid
        document = _message_document(args)
        server = running_server(settings)
        if server is not None and tracing_asked():
            from opentelemetry.trace import SpanKind

            from memstream.observability import tracing

            # the command's own span: the server's spans (and the worker's) join its trace
            with tracing.span("publish", SpanKind.CLIENT, events=1):
                token = server.publish([document], wait=args.wait)
        elif server is not None:
            token = server.publish([document], wait=args.wait)
        else:
            token = run_here(
                settings.get(), lambda ops: _published_here(ops, [document], args.wait)
            )
        print("accepted 1 of 1")
        print_token(token)
        return 0
    if not args.jsonl:
        raise UsageError("give --jsonl FILE, or --user, --session and the message text")
    from memstream.cli import render

    lines = _read_lines(args.jsonl)
    checked, token = run_here(settings.get(), lambda ops: _lines_here(ops, lines, args.wait))
    say(render.published(checked))
    print_token(token)
    return 0 if all(c.event is not None for c in checked) else 1


async def _published_here(
    ops: Operations, documents: list[dict[str, Any]], wait: bool
) -> str | None:
    """Publish ``documents`` from this process; their token (with ``wait``, once the
    projections hold them)."""
    accepted = await ops.changes.publish(documents)
    if wait and accepted.token is not None:
        for user in sorted({str(d["user_id"]) for d in documents}):
            await ops.reads.after_write(accepted.token, user)
    return accepted.token


async def _lines_here(
    ops: Operations, lines: list[bytes], wait: bool
) -> tuple[list[CheckedLine], str | None]:
    """Publish JSON ``lines`` from this process; the lines as checked and their token
    (with ``wait``, once the projections hold them)."""
    checked, token = await ops.changes.publish_lines(lines)
    if wait and token is not None:
        users = sorted({c.event.user_id for c in checked if c.event is not None})
        for user in users:
            await ops.reads.after_write(token, user)
    return checked, token


def print_token(token: str | None) -> None:
    """The write token, for a read to wait for (``--after-write``), on a line of its own
    after the command's answer."""
    if token is not None:
        print(f"token: {token}")


def _message_document(args: argparse.Namespace) -> dict[str, Any]:
    """The message the arguments describe (validated once, by the publish)."""
    if not args.user or not args.session:
        raise UsageError("--user and --session are required with a message text")
    fields = {
        "type": "message",
        "user_id": args.user,
        "session_id": args.session,
        "role": args.role,
        "speaker": args.speaker,
        "project_id": args.project,
        "channel": args.channel,
        "content": args.text,
        "occurred_at": args.at or system_clock().isoformat(),
    }
    return {k: v for k, v in fields.items() if v is not None}


def _read_lines(path: str) -> list[bytes]:
    if path == "-":
        return sys.stdin.buffer.read().splitlines()
    try:
        return Path(path).read_bytes().splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


@settings_on_demand
def remember(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    fields: dict[str, Any] = {"user_id": args.user, "content": args.text}
    if args.project:
        fields["project_id"] = args.project
    if args.kind:
        fields["kind"] = args.kind
    if args.tags:
        fields["tags"] = args.tags
    memory_id, token = access_of(args, settings).remember(fields, wait=args.wait)
    print(f"remembered {memory_id}")
    print_token(token)
    return 0


@settings_on_demand
def docs(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    from memstream.cli import render

    access = access_of(args, settings)
    if args.action == "list":
        found = access.documents(args.user)
        print(json.dumps(found, indent=2, default=str) if args.json else render.documents(found))
        return 0
    if args.action == "show":
        if len(args.items) != 1:
            raise InvalidQuery("docs show: name one document")
        shown = access.document(args.user, args.items[0], args.wait)
        print(json.dumps(shown, indent=2, default=str) if args.json else render.document(shown))
        return 0 if shown["status"] != "failed" else 1
    if args.action == "remove":
        if len(args.items) != 1:
            raise InvalidQuery("docs remove: name one document")
        done = access.remove_document(args.user, args.items[0], args.wait)
        said = "was removed already" if done["removed"] else "removed (its chunks and facts)"
        print(json.dumps(done) if args.json else f"document {args.items[0]} {said}")
        return 0
    if not args.items:
        raise InvalidQuery("docs add: name the files to add")
    if args.document_id and len(args.items) > 1:
        raise InvalidQuery("--document-id names one document: add one file with it")
    failed = 0
    for item in args.items:
        path = Path(item)
        if not path.is_file():
            raise InvalidQuery(f"{item}: no such file")
        options = {
            "title": args.title,
            "document_id": args.document_id,
            "project_id": args.project,
            "tags": args.tags or [],
        }
        done = access.add_document(args.user, path, args.wait, options)
        added: dict[str, Any] | None = done.get("document")
        if args.json:
            print(json.dumps(done, default=str))
        elif added is not None:
            print(render.document(added))
        else:
            state = "accepted" if done["new"] else "unchanged (the same bytes as before)"
            print(f"{item}: {state}, document {done['document_id']}")
        failed += added is not None and added["status"] == "failed"
    return 1 if failed else 0


def register(command: Command) -> None:
    """Add this module's commands, with their flags, to the parser ``command`` builds."""
    p = command("publish", publish, "publish messages from a JSONL file or from the arguments")
    p.add_argument("--jsonl", help="file with one event per line, or - for standard input")
    p.add_argument("--user")
    p.add_argument("--session")
    p.add_argument("--role", default="user")
    p.add_argument("--speaker")
    p.add_argument("--project")
    p.add_argument("--channel", default="cli")
    p.add_argument("--at", help="when it was said (ISO 8601; default now)")
    p.add_argument("--wait", action="store_true", help=WAIT_HELP)
    p.add_argument("text", nargs="?")

    p = command("remember", remember, "remember a fact (a remember_fact command)", True)
    p.add_argument("--user", required=True)
    p.add_argument("--project")
    p.add_argument("--kind", choices=("fact", "preference", "procedure", "opinion"))
    p.add_argument("--tag", action="append", dest="tags")
    p.add_argument("--wait", action="store_true", help=WAIT_HELP)
    p.add_argument("text")

    p = command("docs", docs, "add documents, list them, show their status, remove one", True)
    p.add_argument("action", choices=("add", "list", "show", "remove"))
    p.add_argument("items", nargs="*", metavar="FILE|DOCUMENT_ID", help="files to add; a document")
    p.add_argument("--user", required=True)
    p.add_argument("--project")
    p.add_argument("--title", help="the title (default: the file's name)")
    p.add_argument("--document-id", help="the document's id (default: the file's name)")
    p.add_argument("--tag", action="append", dest="tags")
    p.add_argument(
        "--wait",
        nargs="?",
        type=float,
        const=300.0,
        default=0.0,
        help="wait until each document is indexed or failed (at most the seconds given, 300)",
    )
    p.add_argument("--json", action="store_true")
