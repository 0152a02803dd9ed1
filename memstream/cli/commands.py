"""The ``memstream`` command line.

up, serve, publish, search, stats, entity, replay, digest; the lifecycle jobs (``jobs
consolidate|decay|reflect|weak|archive``); expand and restore archived memories; the
commands (remember, correct, confirm, forget) and a memory's history.

Settings are built here once, from flags and then ``MEMSTREAM_*`` variables, and passed
down. Every failure the user can fix is printed as one ``error:`` line (exit code 2);
no traceback is an error message.

Reads and memory commands are answered by the server running for the data folder when
there is one, else in this process (:mod:`memstream.cli.backends`). Modules are imported
by the commands that need them: ``publish`` loads no store, a command a server answers
loads neither the store nor the model.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError

from memstream.cli import render
from memstream.cli.backends import (
    InProcess,
    MemoryAccess,
    memory_access,
    run_closing,
)
from memstream.cli.progress import counting
from memstream.portability.exports import EXPORT_FORMATS
from memstream.projections.clock import system_clock
from memstream.projections.codec import problems_of
from memstream.projections.errors import InvalidQuery
from memstream.projections.events import in_time_range
from memstream.queries.search_documents import MEMORY_KINDS, SearchRequest
from memstream.storage.errors import MemstreamError
from memstream.streams.settings import EMBEDDERS, Settings

if TYPE_CHECKING:
    from memstream.operations import Operations
    from memstream.streams.ports import PortNeed

__all__ = ["UsageError", "main"]

_T = TypeVar("_T")
_D = TypeVar("_D")


class UsageError(MemstreamError):
    """A command was given something it cannot use."""


#: Where the HTTP API's port is chosen.
_API_PORT_SETTING = "--port or MEMSTREAM_API_PORT"

#: The commands that run until stopped: they log what they do.
_SERVICES = frozenset({"up", "serve", "worker", "embed", "broker"})


def _any_flag(words: Sequence[str]) -> bool:
    return any(word.startswith("-") and word != "-" for word in words)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra and getattr(args, "command", None) == "docs" and not _any_flag(extra):
        args.items = [*args.items, *extra]  # files after an option: `docs add --user u a b`
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    if args.command not in _SERVICES:
        # Library log lines (aiokafka's connection errors) are not messages for the user:
        # failures reach them as one `error:` line.
        logging.getLogger().addHandler(logging.NullHandler())
        from memstream.streams.telemetry import tracing

        tracing.configure("cli")  # with the OTEL_* environment: a publish starts a trace
    try:
        _check_identifiers(args)
        settings = _settings(args)
        return int(args.handler(args, settings))
    except ValidationError as exc:
        _error("; ".join(problems_of(exc)))
    except MemstreamError as exc:  # the one root of what memstream refuses on purpose
        _error(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as cat does
        _silence_stdout()
        return 141
    return 2


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that nothing more is written to a closed
    pipe (not even the interpreter's last flush)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _check_identifiers(args: argparse.Namespace) -> None:
    """Refuse a malformed identifier or name before anything reads or publishes."""
    from memstream.projections.scope import plain_text, valid_identifier

    for flag, attribute in (
        ("--user", "user"),
        ("--project", "project"),
        ("--session", "session"),
        ("MEMORY_ID", "memory_id"),
    ):
        value = getattr(args, attribute, None)
        if value is not None:
            valid_identifier(flag, value)
    if args.command == "entity":
        plain_text("NAME", args.name)


def _say(text: str) -> None:
    """Print ``text`` unless there is nothing to say."""
    if text:
        print(text)


def _show(args: argparse.Namespace, document: _D, text_of: Callable[[_D], str]) -> None:
    """``document`` as JSON with ``--json``, else as ``text_of`` renders it."""
    if args.json:
        print(json.dumps(document, indent=2, default=str, ensure_ascii=False))
    else:
        _say(text_of(document))


def _error(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)


#: The settings a command's flags give, by the flag (argparse keeps each under the
#: flag's name without its dashes).
_FLAGS = {"data": "--data", "kafka": "--kafka", "embedder": "--embedder", "api_port": "--port",
          "api_url": "--api"}  # fmt: skip


def _settings(args: argparse.Namespace) -> Settings:
    """The settings: the environment's ``MEMSTREAM_*`` variables, then the command's
    flags. A variable that is no setting is warned of, with the closest real one; a
    value a setting refuses is named by its flag or its variable, as the user gave it."""
    _warn_of_unknown_variables(os.environ)
    given = {
        field: getattr(args, flag.lstrip("-"))
        for field, flag in _FLAGS.items()
        if getattr(args, flag.lstrip("-"), None) is not None
    }
    try:
        return Settings(**given)
    except ValidationError as exc:
        raise UsageError("; ".join(_named_as_given(exc, given))) from None


def _named_as_given(error: ValidationError, given: Mapping[str, Any]) -> list[str]:
    """Each problem of the settings, led by the flag or variable that gave the value."""
    lines = []
    for problem, item in zip(problems_of(error), error.errors(), strict=True):
        field = str(item["loc"][0]) if item["loc"] else ""
        if field in Settings.model_fields:
            name = _FLAGS[field] if field in given else f"MEMSTREAM_{field.upper()}"
            problem = name + problem[len(field) :]
        lines.append(problem)
    return lines


def _warn_of_unknown_variables(environ: Mapping[str, str]) -> None:
    import difflib

    known = [f"MEMSTREAM_{name.upper()}" for name in Settings.model_fields]
    for name in sorted(environ):
        variable = name.upper()
        if variable.startswith("MEMSTREAM_") and variable not in known:
            close = difflib.get_close_matches(variable, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            print(f"warning: {name} is not a memstream setting{hint}", file=sys.stderr)


#: The commands by task, each with an example, as ``memstream --help`` lists them.
_TASKS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("Run memstream", (
        ("up", "memstream up"),
        ("serve", "memstream serve --port 8790"),
        ("worker", "memstream worker --kafka kafka:9092"),
        ("embed", "memstream embed --kafka kafka:9092"),
        ("broker", "memstream broker --port 9092"),
    )),
    ("Put memories in", (
        ("publish", 'memstream publish --user ana --session s1 "I moved to Porto"'),
        ("remember", 'memstream remember --user ana "Ana is allergic to peanuts"'),
        ("docs", "memstream docs add lease.pdf --user ana --wait"),
    )),
    ("Read them", (
        ("search", 'memstream search --user ana "where does she live?"'),
        ("memories", "memstream memories list --user ana --limit 20"),
        ("context", 'memstream context --user ana "what should I cook for Ana?"'),
        ("entity", "memstream entity --user ana porto"),
        ("explain", "memstream explain --user ana ep-1a2b3c4d"),
        ("history", "memstream history --user ana cmd-5e6f7a8b"),
        ("stats", "memstream stats --user ana"),
        ("users", "memstream users"),
    )),
    ("Change them", (
        ("correct", 'memstream correct --user ana ep-1a2b3c4d "Ana lives in Lisbon"'),
        ("confirm", "memstream confirm --user ana cmd-5e6f7a8b"),
        ("forget", "memstream forget --user ana cmd-5e6f7a8b"),
        ("erase", "memstream erase --user ana"),
    )),
    ("Lifecycle and cold storage", (
        ("jobs", "memstream jobs consolidate --dry-run"),
        ("expand", "memstream expand --user ana ep-1a2b3c4d"),
        ("restore", "memstream restore --user ana ep-1a2b3c4d"),
    )),
    ("Rebuild", (
        ("replay", "memstream replay --source archive --into /tmp/rebuilt"),
        ("reembed", "memstream reembed e5-small --into /tmp/e5"),
        ("switch", "memstream switch /tmp/rebuilt"),
        ("digest", "memstream digest --tables"),
    )),
    ("Take them out, bring them in", (
        ("export", "memstream export --user ana --format markdown -o ana.md"),
        ("import", "memstream import --user ana conversations.json"),
    )),
    ("Watch it", (
        ("top", "memstream top --metrics http://127.0.0.1:8788"),
    )),
    ("Agents and access", (
        ("mcp", "memstream mcp --user ana --print-config"),
        ("hook", "memstream hook install claude-code --user ana"),
        ("keys", "memstream keys create --tenant acme --role write"),
    )),
)  # fmt: skip
_EXAMPLES = {name: example for _, commands in _TASKS for name, example in commands}


def _parser() -> argparse.ArgumentParser:
    from importlib.metadata import version

    parser = argparse.ArgumentParser(
        prog="memstream",
        usage="memstream COMMAND [options]   (memstream COMMAND --help for its options)",
        description="Durable memory for AI agents.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"memstream {version('memstream')}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", help=argparse.SUPPRESS)
    helps: dict[str, str] = {}

    def command(
        name: str, handler: Any, help_: str, asks_server: bool = False
    ) -> argparse.ArgumentParser:
        helps[name] = help_
        p = sub.add_parser(
            name,
            help=help_,
            description=help_,
            epilog=f"example: {_EXAMPLES[name]}",
        )
        p.add_argument("--data", help="data folder (default ./memstream-data, or MEMSTREAM_DATA)")
        p.add_argument("--kafka", help="Kafka bootstrap address (default: the embedded broker)")
        if asks_server:
            p.add_argument(
                "--api",
                help="the HTTP API to ask (default: the server running for the data folder, "
                "if any, or MEMSTREAM_API_URL)",
            )
            p.add_argument(
                "--in-process",
                action="store_true",
                help="open the data folder in this process, even when a server runs for it",
            )
        p.set_defaults(handler=handler, in_process=False)
        return p

    p = command("up", _up, "run the broker (when embedded), the worker and the HTTP API")
    p.add_argument("--embedder", choices=EMBEDDERS)
    p.add_argument("--port", type=int, help="HTTP API port (default 8787)")
    p.add_argument("--no-api", action="store_true", help="run the worker without the HTTP API")

    p = command("serve", _serve, "serve the HTTP API alone (the worker runs elsewhere)")
    p.add_argument("--embedder", choices=EMBEDDERS)
    p.add_argument("--port", type=int, help="HTTP API port (default 8787)")

    p = command(
        "worker",
        _worker,
        "run one worker of a deployment (no API): it applies the partitions Kafka gives it",
    )
    p.add_argument("--embedder", choices=EMBEDDERS)
    p.add_argument(
        "--no-embed",
        action="store_true",
        help="leave embedding to `memstream embed` processes",
    )

    p = command("embed", _embed, "run one embedding process of a deployment (needs --kafka)")
    p.add_argument("--embedder", choices=EMBEDDERS)

    p = command("broker", _broker, "run the embedded Kafka-compatible broker alone")
    p.add_argument("--port", type=int, help="port to listen on (default MEMSTREAM_BROKER_PORT)")

    p = command("publish", _publish, "publish messages from a JSONL file or from the arguments")
    p.add_argument("--jsonl", help="file with one event per line, or - for standard input")
    p.add_argument("--user")
    p.add_argument("--session")
    p.add_argument("--role", default="user")
    p.add_argument("--speaker")
    p.add_argument("--project")
    p.add_argument("--channel", default="cli")
    p.add_argument("--at", help="when it was said (ISO 8601; default now)")
    p.add_argument("text", nargs="?")

    p = command("search", _search, "hybrid search of a user's memories", asks_server=True)
    p.add_argument("--user", required=True)
    p.add_argument("--project")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--now", help="the time relative phrases refer to (ISO 8601)")
    p.add_argument("--after", help="only memories from this time on (ISO 8601)")
    p.add_argument("--before", help="only memories before this time (ISO 8601)")
    p.add_argument("--kind", action="append", dest="kinds", help="only this kind (repeatable)")
    p.add_argument("--tag", action="append", dest="tags", help="only with this tag (repeatable)")
    p.add_argument("--embedder", choices=EMBEDDERS)
    p.add_argument(
        "--history", action="store_true", help="include superseded and forgotten memories"
    )
    p.add_argument(
        "--hot-only", action="store_true", help="leave archived memories out (searched by default)"
    )
    p.add_argument(
        "--min-similarity",
        type=float,
        metavar="S",
        help="leave out what is less similar in meaning to the query than S (cosine, e.g. 0.3)",
    )
    # archived memories are always searched now; the old flag is accepted and changes nothing
    p.add_argument("--archived", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true")
    p.add_argument("query")

    p = command("memories", _memories, "list a user's memories, a page at a time", True)
    p.add_argument("action", choices=("list",))
    p.add_argument("--user", required=True)
    p.add_argument("--kind", choices=MEMORY_KINDS)
    p.add_argument("--session")
    p.add_argument("--project")
    p.add_argument("--after", help="only memories from this time on (ISO 8601)")
    p.add_argument("--before", help="only memories before this time (ISO 8601)")
    p.add_argument("--oldest", action="store_true", help="oldest first (newest first otherwise)")
    p.add_argument("--limit", type=int, default=20, help="memories a page (at most 200)")
    p.add_argument("--cursor", help="where the page before ended (it prints the next one)")
    p.add_argument("--all", action="store_true", help="every page, one after the other")
    p.add_argument("--history", action="store_true", help="superseded and forgotten ones too")
    p.add_argument("--json", action="store_true")

    p = command("jobs", _jobs, "run a lifecycle job once and print what it decided")
    p.add_argument("job", choices=("consolidate", "decay", "reflect", "weak", "archive"))
    p.add_argument("--now", help="the time the job runs at (ISO 8601; default now)")
    p.add_argument("--user", help="only this user's memories")
    p.add_argument("--dry-run", action="store_true", help="decide, print, publish nothing")
    p.add_argument("--json", action="store_true")

    p = command("expand", _expand, "an archived memory's original, read from cold storage")
    p.add_argument("--user", required=True)
    p.add_argument("memory_id")

    p = command("restore", _restore, "bring archived memories back to the hot tables")
    p.add_argument("--user", required=True)
    p.add_argument("--all", action="store_true", help="every archived memory of the user")
    p.add_argument("memory_id", nargs="?")

    p = command("remember", _remember, "remember a fact (a remember_fact command)", True)
    p.add_argument("--user", required=True)
    p.add_argument("--project")
    p.add_argument("--kind", choices=("fact", "preference", "procedure", "opinion"))
    p.add_argument("--tag", action="append", dest="tags")
    p.add_argument("text")

    p = command("docs", _docs, "add documents, list them, show their status, remove one", True)
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

    p = command("correct", _correct, "replace a memory with corrected content", True)
    p.add_argument("--user", required=True)
    p.add_argument("memory_id")
    p.add_argument("text")

    for name, help_ in (
        ("confirm", "confirm a memory: full confidence, never decays"),
        ("forget", "forget a memory: never returned by search, kept for history"),
        ("history", "the memories that replaced one another through this one"),
    ):
        p = command(name, _memory_command, help_, asks_server=True)
        p.add_argument("--user", required=True)
        p.add_argument("--json", action="store_true")
        p.add_argument("memory_id")

    p = command(
        "erase",
        _erase,
        "erase a user for good: destroy the user's data keys, then drop every row, "
        "vector, entity and archived original of the user",
        asks_server=True,
    )
    p.add_argument("--user", required=True)
    p.add_argument("--yes", action="store_true", help="erase without asking (for scripts)")
    p.add_argument("--json", action="store_true")

    p = command("users", _users, "the users memory is held of, with counts and last activity",
                True)  # fmt: skip
    p.add_argument("--tenant", help="only this tenant's users (tenant:...)")
    p.add_argument("--json", action="store_true")

    p = command("entity", _entity, "an entity's profile: aliases, mentions, memories", True)
    p.add_argument("--user", required=True)
    p.add_argument("--project", help="its memories in this project's scope")
    p.add_argument("--json", action="store_true")
    p.add_argument("name")

    p = command("mcp", _mcp, "serve memory tools to an agent over MCP (stdio)")
    p.add_argument("--user", required=True, help="the user every tool acts for")
    p.add_argument("--project")
    p.add_argument(
        "--print-config",
        action="store_true",
        help="print the configuration that starts this server for Claude Desktop, Claude "
        "Code or Cursor, and exit",
    )

    p = command(
        "hook",
        _hook,
        "what a coding agent's hooks run: context in at each prompt, the transcript's "
        "turns out at stop (memstream hook install claude-code writes the settings)",
    )
    p.add_argument("event", help="session-start, prompt, stop, pre-compact, session-end, install")
    p.add_argument("options", nargs=argparse.REMAINDER)

    p = command("context", _context, "the memory block for an agent about to answer QUERY", True)
    p.add_argument("--user", required=True)
    p.add_argument("--project")
    p.add_argument("--budget", type=int, help="tokens (default: 1,000 simple, 3,000 complex)")
    p.add_argument("--now", help="the time relative phrases refer to (ISO 8601)")
    p.add_argument("--json", action="store_true")
    p.add_argument("query")

    p = command("explain", _explain, "why a memory exists and how its confidence got there", True)
    p.add_argument("--user", required=True)
    p.add_argument("--json", action="store_true")
    p.add_argument("memory_id")

    p = command(
        "top", _top, "a live view of a deployment from its metrics: lag, rates, latency, jobs"
    )
    p.add_argument(
        "--api", help="the HTTP API (default: the server running for the data folder, if any)"
    )
    p.add_argument(
        "--metrics",
        action="append",
        help="a worker's or embedder's metrics address (repeat for each; default "
        "MEMSTREAM_METRICS_HOST:MEMSTREAM_METRICS_PORT)",
    )
    p.add_argument("--every", type=float, default=2.0, help="seconds between views (default 2)")
    p.add_argument("--once", action="store_true", help="print one view and exit")

    p = command("stats", _stats, "memory counts, dead letters, applied offsets and lag", True)
    p.add_argument("--user")
    p.add_argument("--json", action="store_true")

    p = command("replay", _replay, "rebuild the projections from Kafka or the event archive")
    p.add_argument("--source", choices=("kafka", "archive"), default="archive")
    p.add_argument("--into", required=True, help="an empty folder for the rebuilt projections")
    p.add_argument("--swap", action="store_true", help="then switch the data folder to them")
    p.add_argument(
        "--writers",
        type=int,
        choices=range(1, 65),
        metavar="N",
        default=1,
        help="processes that each rebuild a group of partitions (from the archive)",
    )

    p = command(
        "reembed",
        _reembed,
        "rebuild the projections with another embedder's vectors, published to the log "
        "(the live projections keep serving; then stop the worker and `switch`)",
    )
    p.add_argument(
        "embedder_name", metavar="EMBEDDER", choices=[e for e in EMBEDDERS if e != "none"]
    )
    p.add_argument("--source", choices=("kafka", "archive"), default="archive")
    p.add_argument("--into", required=True, help="an empty folder for the new projections")

    p = command(
        "switch",
        _switch,
        "switch the data folder to the projections `replay` or `reembed` built (stop the "
        "worker first)",
    )
    p.add_argument("folder", help="the folder given to --into")
    p.add_argument(
        "--force",
        action="store_true",
        help="switch even to projections that hold less history than those in use",
    )

    p = command("keys", _keys, "create, list and revoke API keys (the data folder's)")
    actions = p.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="a new key of a tenant (shown once)")
    create.add_argument("--tenant", required=True, help="owns the user ids TENANT:...")
    create.add_argument("--role", choices=("read", "write", "admin"), default="write")
    create.add_argument("--name", default="", help="what the key is for")
    create.add_argument(
        "--key-file", help="write the key to this file (mode 600) instead of printing it"
    )
    create.add_argument(
        "--if-none",
        action="store_true",
        help="create nothing when the tenant already has an active key of this role",
    )
    listing = actions.add_parser("list", help="the keys: id, tenant, role, created, revoked")
    listing.add_argument("--json", action="store_true")
    revoke = actions.add_parser("revoke", help="revoke a key: refused from the next request on")
    revoke.add_argument("key_id")
    for action in (create, listing, revoke):  # `keys create --data D` as well as `keys --data D`
        action.add_argument("--data", default=argparse.SUPPRESS, help="data folder")

    p = command("digest", _digest, "print a digest of the projected state")
    p.add_argument("--tables", action="store_true", help="also one digest per table")
    p.add_argument("--user", help="of this user's rows only (what an export and import keep)")

    p = command(
        "export",
        _export,
        "export everything memstream holds of a user: its events (to import elsewhere), "
        "a Markdown dossier, or the projections as JSON",
    )
    p.add_argument("--user", required=True)
    p.add_argument("--format", choices=EXPORT_FORMATS, default="events")
    p.add_argument("-o", "--output", help="the file to write (default: standard output)")

    p = command(
        "import",
        _import,
        "import a memstream events export, a ChatGPT or Claude data export, or a Mem0 "
        "export of memories for a user (importing the same file again changes nothing)",
    )
    p.add_argument("--user", required=True)
    p.add_argument("file", help="the file (conversations.json, an export's .zip, ...), or -")
    parser.epilog = _by_task(helps)
    return parser


def _by_task(helps: Mapping[str, str]) -> str:
    """The commands grouped by task, each with what it does and an example."""
    width = max(len(name) for name in helps) + 2
    blocks = []
    for title, commands in _TASKS:
        lines = [f"{title}:"]
        for name, example in commands:
            lines.append(f"  {name:<{width}}{helps[name]}")
            lines.append(f"  {'':<{width}}$ {example}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _keys(args: argparse.Namespace, settings: Settings) -> int:
    """The key store of the data folder, changed here (an operator's command)."""
    from memstream.tenancy.audit import AuditLog
    from memstream.tenancy.keys import KeyStoreError, key_store_of

    store, audit = key_store_of(settings), AuditLog(settings.log_dir)
    try:
        if args.action == "list":
            keys = [key.public() for key in store.records()]
            _show(args, {"keys": keys}, render.keys_table)
        elif args.action == "revoke":
            revoked = store.revoke(args.key_id)
            audit.record(
                "key_revoke",
                key_id=None,
                tenant=revoked.tenant,
                detail={"revoked_key": revoked.key_id},
            )
            print(f"revoked {revoked.key_id} ({revoked.tenant}, {revoked.role})")
        else:
            return _create_key(args, store, audit)
    except KeyStoreError as exc:
        raise UsageError(str(exc)) from None
    return 0


def _create_key(args: argparse.Namespace, store: Any, audit: Any) -> int:
    existing = [
        k for k in store.records() if k.tenant == args.tenant and k.role == args.role and k.active
    ]
    if args.if_none and existing:
        print(f"{args.tenant} already has an active {args.role} key ({existing[0].key_id})")
        return 0
    record, token = store.create(args.tenant, args.role, args.name)
    audit.record(
        "key_create",
        key_id=None,
        tenant=record.tenant,
        detail={"created_key": record.key_id, "role": record.role},
    )
    if args.key_file:
        path = Path(args.key_file)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(token + "\n")
        print(f"created {record.key_id} ({record.tenant}, {record.role}); the key is in {path}")
    else:
        print(f"created {record.key_id} ({record.tenant}, {record.role}); the key, shown once:")
        print(token)
    return 0


def _up(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.server_address import running_api
    from memstream.streams.ports import registered, take_ports

    if args.no_api:
        from memstream.streams.log_lines import configure_logging
        from memstream.streams.worker import run

        configure_logging(settings.log_level, settings.log_format)
        return run(settings, api=None)
    served = running_api(settings.local_dir)
    if served is not None:
        _error(
            f"memstream already serves this data folder at {served}: stop it first, or add "
            "a worker to it with `memstream worker --kafka ADDRESS` (its broker's address)"
        )
        return 2
    needs = _ports_of(settings, api=True)
    # every port at once, before anything is loaded or started: ports in use end here
    listener, metrics, *_ = take_ports(needs)
    assert listener is not None
    from memstream.http.guard import serving_rule
    from memstream.http.process import ApiProcess
    from memstream.streams.log_lines import configure_logging
    from memstream.streams.worker import run

    rule = serving_rule(settings)
    configure_logging(settings.log_level, settings.log_format)
    logging.getLogger("memstream.http").info("HTTP API: %s", rule)
    with registered(settings.data_location.uri, [n.port for n in needs]):
        return run(settings, api=lambda s: ApiProcess(s, listener), metrics_socket=metrics)


def _ports_of(settings: Settings, *, api: bool) -> list[PortNeed]:
    """The ports ``up`` (``api``: with the HTTP API) needs: the API's, the metrics'
    (unless 0) and the embedded broker's; ``serve``, the API's alone."""
    from memstream.streams.ports import PortNeed

    needs = [PortNeed("the HTTP API", settings.api_host, settings.api_port, _API_PORT_SETTING)]
    if not api:
        return needs
    needs.append(PortNeed("the metrics", settings.metrics_host, settings.metrics_port,
                          "MEMSTREAM_METRICS_PORT (0: no metrics port)"))  # fmt: skip
    if settings.embedded:
        needs.append(PortNeed("the embedded broker", settings.broker_host, settings.broker_port,
                              "MEMSTREAM_BROKER_PORT", listen=False))  # fmt: skip
    return [n for n in needs if n.port != 0]


def _worker(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.streams.log_lines import configure_logging
    from memstream.streams.worker import run

    configure_logging(settings.log_level, settings.log_format)
    if args.no_embed:
        logging.getLogger("memstream.streams.worker").info(
            "this worker does not embed: run `memstream embed` beside it"
        )
    return run(settings, api=None, embed=not args.no_embed)


def _embed(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.streams.embedder_process import run_embedder
    from memstream.streams.log_lines import configure_logging

    configure_logging(settings.log_level, settings.log_format)
    return run_embedder(settings)


def _broker(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.streams.broker import run_broker
    from memstream.streams.log_lines import configure_logging

    configure_logging(settings.log_level, settings.log_format)
    port = args.port if args.port is not None else settings.broker_port
    return run_broker(settings.broker_host, port, settings.log_dir / "broker.log")


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.streams.ports import registered, take_ports

    needs = _ports_of(settings, api=False)
    (listener,) = take_ports(needs)  # a port in use ends here, before anything loads
    assert listener is not None
    from memstream.http.guard import serving_rule
    from memstream.http.serve import serve
    from memstream.streams.log_lines import configure_logging

    rule = serving_rule(settings)
    configure_logging(settings.log_level, settings.log_format)
    logging.getLogger("memstream.http").info("HTTP API: %s", rule)
    with registered(settings.data_location.uri, [n.port for n in needs]):
        return serve(settings, listener)


def _access(args: argparse.Namespace, settings: Settings) -> MemoryAccess:
    """Who answers this command (a server, or this process; see the module docstring).
    A search with ``--embedder`` is answered here: the server embeds with its own."""
    here = args.in_process or getattr(args, "embedder", None) is not None
    return memory_access(settings, in_process=here)


def _run(settings: Settings, call: Callable[[Operations], Awaitable[_T]]) -> _T:
    """Run one operation in this process, then let its background reports finish
    (briefly)."""
    from memstream.operations import Operations

    return run_closing(lambda: Operations(settings), call)


def _publish(args: argparse.Namespace, settings: Settings) -> int:
    """Publish to the broker straight away (no store is opened, no server asked)."""
    if args.text and not args.jsonl:  # one message: refused whole if it is invalid
        document = _message_document(args)
        _run(settings, lambda ops: ops.publish([document]))
        print("accepted 1 of 1")
        return 0
    if not args.jsonl:
        raise UsageError("give --jsonl FILE, or --user, --session and the message text")
    lines = _read_lines(args.jsonl)
    checked = _run(settings, lambda ops: ops.publish_lines(lines))
    _say(render.published(checked))
    return 0 if all(c.event is not None for c in checked) else 1


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


def _memories(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.queries.memory_list import ListRequest  # the tables' names: pyarrow

    access = _access(args, settings)
    cursor = args.cursor
    while True:
        request = ListRequest(
            user_id=args.user,
            kind=args.kind,
            session_id=args.session,
            project_id=args.project,
            after=_time_arg(args.after, "--after"),
            before=_time_arg(args.before, "--before"),
            order="oldest" if args.oldest else "newest",
            limit=args.limit,
            cursor=cursor,
            include_hidden=args.history,
        )
        page = access.list_memories(request)
        print(json.dumps(page, default=str) if args.json else render.memory_page(page, args.all))
        if not page["memories"] and cursor is None and _unknown_user(access, args.user):
            return 2
        cursor = page["next_cursor"]
        if not args.all or cursor is None:
            return 0


def _search(args: argparse.Namespace, settings: Settings) -> int:
    try:
        request = SearchRequest.model_validate(
            {
                "user_id": args.user,
                "project_id": args.project,
                "query": args.query,
                "k": args.k,
                "now": args.now,
                "after": args.after,
                "before": args.before,
                "kinds": args.kinds,
                "tags": args.tags,
                "include_history": args.history,
                "include_archived": not args.hot_only,
                "min_similarity": args.min_similarity,
            }
        )
    except ValidationError as exc:
        raise UsageError("; ".join(_as_flags(problems_of(exc), _SEARCH_FLAGS))) from None
    access = _access(args, settings)
    response = access.search(request)
    shown = render.search_results(response, request.min_similarity)
    print(response.model_dump_json(indent=2) if args.json else shown)
    return 2 if not response.results and _unknown_user(access, args.user) else 0


#: The flag of each field of a search request.
_SEARCH_FLAGS = {"user_id": "--user", "project_id": "--project", "query": "QUERY", "k": "-k",
                 "now": "--now", "after": "--after", "before": "--before", "kinds": "--kind",
                 "tags": "--tag", "min_similarity": "--min-similarity"}  # fmt: skip


def _as_flags(problems: Sequence[str], flags: Mapping[str, str]) -> list[str]:
    """Problems named by a request's fields (``kinds.0: must be ...``) named by the flags
    the user gave instead (``--kind: must be ...``)."""
    named = []
    for problem in problems:
        where, _, what = problem.partition(": ")
        field = where.split(".")[0]
        named.append(f"{flags[field]}: {what}" if field in flags and what else problem)
    return named


def _time_arg(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{name}: not an ISO 8601 time: {value!r}") from None
    try:
        return in_time_range(parsed)
    except ValueError as exc:
        raise UsageError(f"{name}: {exc}") from None


def _jobs(args: argparse.Namespace, settings: Settings) -> int:
    now = _time_arg(args.now, "--now")
    if args.job == "archive":
        return _archive(args, settings, args.user, now)
    if args.job == "weak":
        if args.user is None:
            raise UsageError("jobs weak needs --user")
        weak = _run(settings, lambda ops: ops.weak_facts(args.user, now))
        _say(json.dumps(weak, indent=2) if args.json else render.weak_facts(weak))
        return 0
    report = _run(settings, lambda ops: ops.run_job(args.job, now, args.user, args.dry_run))
    _say(render.events_json(report.events) if args.json else render.decisions(report.events))
    count = len(report.events)
    if args.dry_run:
        print(f"would publish {count} events (a dry run: nothing was published)", file=sys.stderr)
    elif count:
        print(f"published {count} events", file=sys.stderr)
    else:
        print(f"nothing to do: {args.job} decided nothing", file=sys.stderr)
    for what, reason in sorted(report.failed.items()):
        print(f"failed, to be tried again: {what}: {reason}", file=sys.stderr)
    return 1 if report.failed else 0


def _archive(
    args: argparse.Namespace, settings: Settings, user: str | None, now: datetime | None
) -> int:
    if args.dry_run:  # the candidates only: nothing is summarized, written or published
        decisions = _run(settings, lambda ops: ops.archive_candidates(now, user))
        if args.json:
            print(json.dumps([vars(d) for d in decisions], indent=2))
        else:
            _say(render.cold_decisions(decisions))
        print(f"would archive {len(decisions)} memories", file=sys.stderr)
        return 0
    report = _run(settings, lambda ops: ops.archive(now, user))
    _say(render.events_json(report.events) if args.json else render.archived(report.events))
    print(f"published {len(report.events)} events", file=sys.stderr)
    if report.merged_files:
        print(f"cold store: {report.merged_files} small files merged", file=sys.stderr)
    return 0


def _expand(args: argparse.Namespace, settings: Settings) -> int:
    expanded = _run(settings, lambda ops: ops.expand(args.user, args.memory_id))
    print(json.dumps(expanded.original, indent=2, default=str, ensure_ascii=False))
    return 0


def _restore(args: argparse.Namespace, settings: Settings) -> int:
    if args.all == (args.memory_id is not None):
        raise UsageError("give either a MEMORY_ID or --all")
    done = _run(settings, lambda ops: ops.restore(args.user, args.memory_id))
    if not done.event_ids:
        print(f"nothing of {args.user} is archived")
        return 0
    restoring = len(done.event_ids)
    print(f"restoring {restoring} memor{'y' if restoring == 1 else 'ies'}")
    return 0


def _remember(args: argparse.Namespace, settings: Settings) -> int:
    fields: dict[str, Any] = {"user_id": args.user, "content": args.text}
    if args.project:
        fields["project_id"] = args.project
    if args.kind:
        fields["kind"] = args.kind
    if args.tags:
        fields["tags"] = args.tags
    print(f"remembered {_access(args, settings).remember(fields)}")
    return 0


def _docs(args: argparse.Namespace, settings: Settings) -> int:
    access = _access(args, settings)
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


def _correct(args: argparse.Namespace, settings: Settings) -> int:
    now_id = _access(args, settings).correct(args.user, args.memory_id, args.text)
    print(f"corrected {args.memory_id}: now {now_id}")
    return 0


def _memory_command(args: argparse.Namespace, settings: Settings) -> int:
    access = _access(args, settings)
    if args.command == "history":
        _show(args, access.history(args.user, args.memory_id), render.history)
        return 0
    if args.command == "confirm":
        access.confirm(args.user, args.memory_id)
        print(f"confirmed {args.memory_id}")
    else:
        access.forget(args.user, args.memory_id)
        print(f"forgot {args.memory_id}")
    return 0


def _erase(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.tenancy.audit import AuditLog

    access = _access(args, settings)
    unknown = _unknown_user(access, args.user, quiet=True)
    if not args.yes and not _confirmed_erasure(args.user, unknown):
        return 2
    done = access.erase(args.user)
    if isinstance(access, InProcess):  # a server audits what it is asked
        AuditLog(settings.log_dir).record(
            "erase",
            key_id=None,
            tenant=None,
            user_id=args.user,
            status=200 if done["complete"] else 202,
        )
    _show(args, done, render.erasure)
    return 0 if done["complete"] else 3


def _confirmed_erasure(user_id: str, unknown: str | None) -> bool:
    """Whether to go on with erasing ``user_id``: asked on a terminal (the user id typed
    again); refused elsewhere, saying to add ``--yes``. ``unknown``: what says that no
    memory of the user is held (then there may be nothing to erase)."""
    if unknown is not None:
        _error(f"{unknown}: nothing to erase, unless keys or rows of it are left")
    if not sys.stdin.isatty():
        _error(f"erasing {user_id} is for good: add --yes to erase it (nothing was erased)")
        return False
    asked = "erase whatever is left of" if unknown else "erase, for good, every memory of"
    try:
        typed = input(f"{asked} {user_id}? type the user id to go on: ").strip()
    except EOFError:  # Ctrl-D: no answer is no
        typed = ""
    if typed != user_id:
        _error("not erased (the id typed was not the user's)")
        return False
    return True


def _unknown_user(access: MemoryAccess, user_id: str, *, quiet: bool = False) -> str | None:
    """None while memory of ``user_id`` is held; else a sentence saying it is not, with
    the known ids most like it (printed as an error unless ``quiet``)."""
    from memstream.projections.user_ids import closest_users, tenant_of

    known = [u["user_id"] for u in access.users(tenant_of(user_id))]
    if user_id in known:
        return None
    near = closest_users(user_id, known)
    hint = f": did you mean {' or '.join(near)}?" if near else " (`memstream users` lists them)"
    said = f"no memory of user {user_id} is held here{hint}"
    if not quiet:
        _error(said)
    return said


def _not_found(exc: MemstreamError) -> bool:
    """Whether ``exc`` says that what was asked for is not there (in this process, or
    the server's 404)."""
    from memstream.operations.errors import NotFound

    return isinstance(exc, NotFound) or getattr(exc, "status", None) == 404


def _users(args: argparse.Namespace, settings: Settings) -> int:
    users = _access(args, settings).users(args.tenant)
    _show(args, {"users": users}, render.users)
    return 0


def _entity(args: argparse.Namespace, settings: Settings) -> int:
    access = _access(args, settings)
    try:
        profile = access.entity(args.user, args.name, args.project)
    except MemstreamError as exc:
        if _not_found(exc) and _unknown_user(access, args.user) is not None:
            return 2
        raise
    _show(args, profile, render.entity)
    return 0


def _mcp(args: argparse.Namespace, settings: Settings) -> int:
    if args.print_config:
        return _print_mcp_config(args, settings)
    from memstream.mcp.server import Scope, memory_server
    from memstream.operations import Operations
    from memstream.streams.lifeline import die_with_parent

    die_with_parent(os.getppid())  # the agent that started it owns its life
    logging.basicConfig(level="WARNING", stream=sys.stderr)  # stdout is the protocol's
    # A long-lived reader: it must see what the worker writes after it opened the tables.
    operations = Operations(
        settings, read_consistency_seconds=settings.api_read_consistency_seconds
    )
    memory_server(operations, Scope(args.user, args.project)).run("stdio")
    return 0


def _print_mcp_config(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.mcp.config import client_config, memstream_command

    document, secrets = client_config(settings, args.user, args.project, memstream_command())
    print(json.dumps(document, indent=2))
    print(
        "Claude Desktop: merge it into claude_desktop_config.json; Cursor: into "
        "~/.cursor/mcp.json; Claude Code: into .mcp.json in the project",
        file=sys.stderr,
    )
    if secrets:
        print(f"add to env yourself (left out): {', '.join(secrets)}", file=sys.stderr)
    return 0


def _hook(args: argparse.Namespace, settings: Settings) -> int:
    """Reached only through ``main`` here (``memstream`` itself hands ``hook`` to the
    hook runner before anything else loads)."""
    from memstream.hooks.runner import main as hook

    return hook([args.event, *args.options])


def _context(args: argparse.Namespace, settings: Settings) -> int:
    now = _time_arg(args.now, "--now")
    block = _access(args, settings).context(args.user, args.query, args.project, args.budget, now)
    if args.json:
        print(json.dumps(block, indent=2, ensure_ascii=False))
        return 0
    print(block["context"] or "(nothing relevant)")
    print(
        f"{block['tokens']} of {block['budget_tokens']} tokens ({block['complexity']} query)",
        file=sys.stderr,
    )
    return 0


def _explain(args: argparse.Namespace, settings: Settings) -> int:
    _show(args, _access(args, settings).explain(args.user, args.memory_id), render.why)
    return 0


def _top(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.cli.top import run_top
    from memstream.server_address import running_api

    urls = list(args.metrics or [])
    if not urls and settings.metrics_port:
        urls.append(f"http://{settings.metrics_host}:{settings.metrics_port}")
    api = args.api or running_api(settings.local_dir) or settings.api_url or None
    if api:
        urls.insert(0, api)
    if not urls:
        _error("nothing to watch: give --api or --metrics (MEMSTREAM_METRICS_PORT is 0)")
        return 2
    if not 0.2 <= args.every <= 3600:
        _error("--every: must be 0.2 to 3600 seconds")
        return 2
    return run_top(urls, args.every, args.once)


def _stats(args: argparse.Namespace, settings: Settings) -> int:
    access = _access(args, settings)
    document = access.stats(args.user)
    print(json.dumps(document, indent=2) if args.json else render.stats(document))
    held = sum(document["memories"].values()) + document["archived"]
    # the users' listing (a scan) only when the counts say nothing is held
    return 2 if args.user and not held and _unknown_user(access, args.user) else 0


def _replay(args: argparse.Namespace, settings: Settings) -> int:
    report, generation = _run(
        settings, lambda ops: ops.replay(args.source, args.into, args.swap, args.writers)
    )
    print(
        f"replayed {report.records} records ({report.applied} applied, {report.dead_letters} "
        f"dead letters) in {report.seconds:.2f} s, {report.rate:,.0f}/s "
        f"into {report.projections_uri}"
    )
    if generation is not None:
        print(f"{settings.data} now uses {generation}")
    return 0


def _reembed(args: argparse.Namespace, settings: Settings) -> int:
    def progress(embedded: int) -> None:
        print(f"\rembedded {embedded} memories", end="", file=sys.stderr, flush=True)

    report, embedded = _run(
        settings,
        lambda ops: ops.reembed(args.embedder_name, args.source, args.into, progress),
    )
    if embedded:
        print(file=sys.stderr)
    print(
        f"replayed {report.records} records in {report.seconds:.2f} s, then embedded "
        f"{embedded} memories with {args.embedder_name} (published to the log) into "
        f"{report.projections_uri}"
    )
    print(
        f"to use them: stop the worker, `memstream switch {args.into}`, and run with "
        f"MEMSTREAM_EMBEDDER={args.embedder_name}"
    )
    return 0


def _switch(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.operations import Operations

    generation = Operations(settings).switch(args.folder, force=args.force)
    print(f"{settings.data} now uses {generation}")
    return 0


def _digest(args: argparse.Namespace, settings: Settings) -> int:
    total, tables = _run(settings, lambda ops: ops.digest(args.user))
    print(total)
    if args.tables:
        for name, (rows, digest) in tables.items():
            print(f"{name} {rows} {digest}")
    return 0


def _export(args: argparse.Namespace, settings: Settings) -> int:
    """Stream the export to the file (with a progress line on a terminal) or stdout."""
    from memstream.operations import Operations

    ops = Operations(settings)
    what = "events" if args.format == "events" else "memories"
    with counting(f"exporting {args.user}", what) as count:
        pieces = ops.export(args.user, args.format, counted=count)
        if args.output is None:
            for piece in pieces:
                sys.stdout.buffer.write(piece)
            sys.stdout.buffer.flush()
            return 0
        target = Path(args.output)
        partial = target.with_name(target.name + ".partial")
        try:
            with partial.open("wb") as out:
                for piece in pieces:
                    out.write(piece)
            partial.replace(target)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise UsageError(f"cannot write {args.output}: {exc.strerror}") from None
    _say(f"exported {args.user} ({args.format}) to {args.output}")
    return 0


def _import(args: argparse.Namespace, settings: Settings) -> int:
    with (
        _import_source(args.file) as source,
        counting(f"importing for {args.user}", "events published") as count,
    ):
        report = _run(
            settings,
            lambda ops: ops.import_file(args.user, source, progress=lambda done, _: count(done)),
        )
    _say(render.imported(report))
    return 0


@contextlib.contextmanager
def _import_source(name: str) -> Iterator[IO[bytes]]:
    """The file to import, open for reading as a stream; standard input (``-``) is
    spooled to a temporary file first (the reading seeks)."""
    if name == "-":
        with tempfile.TemporaryFile() as spooled:
            shutil.copyfileobj(sys.stdin.buffer, spooled)
            spooled.seek(0)
            yield spooled
        return
    path = Path(name)
    if path.exists() and not path.is_file():
        raise UsageError(f"cannot read {name}: not a regular file")
    try:
        source = open(path, "rb")  # noqa: SIM115 (closed below)
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror}") from None
    with source:
        yield source
