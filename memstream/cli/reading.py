"""Commands that read memory: ``search``, ``memories list``, ``context``, ``explain``,
``entity``, ``users``, ``stats`` and ``served`` (what agents were shown), answered by
the server running for the data folder when there is one, else in this process."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime

from memstream.cli import render
from memstream.cli.backends import ServerRefused, SettingsOnDemand, settings_on_demand
from memstream.cli.shared import (
    Command,
    UsageError,
    access_of,
    as_flags,
    not_found,
    show,
    time_arg,
    unknown_user,
)
from memstream.policies.choices import EMBEDDERS, MEMORY_KINDS
from memstream.storage.errors import MemstreamError

__all__ = [
    "after_write_flag",
    "context_command",
    "entity_command",
    "explain_command",
    "memories_command",
    "register",
    "search_command",
    "served_command",
    "stats_command",
    "users_command",
]


@settings_on_demand
def memories_command(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    from memstream.queries.memory_list import ListRequest

    access = access_of(args, settings)
    cursor = args.cursor
    while True:
        request = ListRequest(
            user_id=args.user,
            kind=args.kind,
            session_id=args.session,
            project_id=args.project,
            after=time_arg(args.after, "--after"),
            before=time_arg(args.before, "--before"),
            order="oldest" if args.oldest else "newest",
            limit=args.limit,
            cursor=cursor,
            include_hidden=args.history,
            as_of=args.as_of,
        )
        page = access.list_memories(request, args.after_write)
        unknown = None
        if not page["memories"] and cursor is None:
            unknown = unknown_user(access, args.user, quiet=True)
        if args.json:
            print(json.dumps(page, default=str))
        elif unknown is None:
            print(render.memory_page(page, args.all))
        if unknown is not None:  # the API's answer: an empty page; said in one line
            print(unknown, file=sys.stderr if args.json else sys.stdout)
            return 0
        cursor = page["next_cursor"]
        if not args.all or cursor is None:
            return 0


@settings_on_demand
def search_command(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    """The request goes as the API takes it and is checked where it is answered (a
    refusal names the flags: ``--kind: must be one of ...``); the answer is printed from
    the API's JSON. Through a running server nothing here loads a model of either."""
    fields = {
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
        "after_write": args.after_write,
        "as_of": args.as_of,
    }
    access = access_of(args, settings)
    try:
        found = access.search({name: value for name, value in fields.items() if value is not None})
    except ServerRefused as exc:
        if exc.status != 422 or not exc.problems:
            raise
        raise UsageError("; ".join(as_flags(exc.problems, _SEARCH_FLAGS))) from None
    unknown = None if found["results"] else unknown_user(access, args.user, quiet=True)
    if args.json:
        print(json.dumps(found, indent=2, ensure_ascii=False))
    if unknown is not None:  # the API's answer: no results; said in one line
        print(unknown, file=sys.stderr if args.json else sys.stdout)
        return 0
    if not args.json:
        print(render.search_results(found, args.min_similarity))
    behind = render.freshness(found.get("freshness"))
    if behind and not args.json:
        print(behind, file=sys.stderr)
    if found.get("as_of") is not None and not args.json:
        recorded = datetime.fromisoformat(found["as_of"]["recorded_at"])
        print(f"as of {recorded.isoformat()}", file=sys.stderr)
    return 0


#: The flag of each field of a search request.
_SEARCH_FLAGS = {"user_id": "--user", "project_id": "--project", "query": "QUERY", "k": "-k",
                 "now": "--now", "after": "--after", "before": "--before", "kinds": "--kind",
                 "tags": "--tag", "min_similarity": "--min-similarity",
                 "after_write": "--after-write", "as_of": "--as-of"}  # fmt: skip


@settings_on_demand
def users_command(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    users = access_of(args, settings).users(args.tenant)
    show(args, {"users": users}, render.users)
    return 0


@settings_on_demand
def entity_command(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    access = access_of(args, settings)
    try:
        profile = access.entity(args.user, args.name, args.project, args.after_write, args.as_of)
    except MemstreamError as exc:
        if not_found(exc) and unknown_user(access, args.user) is not None:
            return 2
        raise
    show(args, profile, render.entity)
    return 0


@settings_on_demand
def context_command(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    now = time_arg(args.now, "--now")
    block = access_of(args, settings).context(
        args.user, args.query, args.project, args.budget, now, args.after_write, args.as_of
    )
    if args.json:
        print(json.dumps(block, indent=2, ensure_ascii=False))
        return 0
    print(block["context"] or "(nothing relevant)")
    print(
        f"{block['tokens']} of {block['budget_tokens']} tokens ({block['complexity']} query)",
        file=sys.stderr,
    )
    behind = render.freshness(block.get("freshness"))
    if behind:
        print(behind, file=sys.stderr)
    return 0


@settings_on_demand
def explain_command(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    explained = access_of(args, settings).explain(
        args.user, args.memory_id, args.after_write, args.as_of
    )
    show(args, explained, render.why)
    return 0


@settings_on_demand
def stats_command(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    access = access_of(args, settings)
    document = access.stats(args.user)
    held = sum(document["memories"].values()) + document["archived"]
    # the users' listing (a scan) only when the counts say nothing is held
    unknown = unknown_user(access, args.user, quiet=True) if args.user and not held else None
    if args.json:
        print(json.dumps(document, indent=2))
    elif unknown is None:
        print(render.stats(document))
    if unknown is not None:  # the API's answer: counts of nothing; said in one line
        print(unknown, file=sys.stderr if args.json else sys.stdout)
    return 0


@settings_on_demand
def served_command(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    access = access_of(args, settings)
    if args.served_id:
        show(args, access.served_answer(args.user, args.served_id), render.served_answer)
        return 0
    answers = access.served(args.user, args.memory, args.limit)
    show(args, {"served": answers}, render.served)
    return 0


def register(command: Command) -> None:
    """Add this module's commands, with their flags, to the parser ``command`` builds."""
    p = command("search", search_command, "hybrid search of a user's memories", asks_server=True)
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
    after_write_flag(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("query")

    p = command("memories", memories_command, "list a user's memories, a page at a time", True)
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
    after_write_flag(p)
    p.add_argument("--json", action="store_true")

    p = command(
        "users", users_command, "the users memory is held of, with counts and last activity", True
    )
    p.add_argument("--tenant", help="only this tenant's users (tenant:...)")
    p.add_argument("--json", action="store_true")

    p = command("entity", entity_command, "an entity's profile: aliases, mentions, memories", True)
    p.add_argument("--user", required=True)
    p.add_argument("--project", help="its memories in this project's scope")
    after_write_flag(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("name")

    p = command(
        "context", context_command, "the memory block for an agent about to answer QUERY", True
    )
    p.add_argument("--user", required=True)
    p.add_argument("--project")
    p.add_argument("--budget", type=int, help="tokens (default: 1,000 simple, 3,000 complex)")
    p.add_argument("--now", help="the time relative phrases refer to (ISO 8601)")
    after_write_flag(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("query")

    p = command(
        "explain", explain_command, "why a memory exists and how its confidence got there", True
    )
    p.add_argument("--user", required=True)
    after_write_flag(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("memory_id")

    p = command(
        "served",
        served_command,
        "what agents were shown of a user's memory; one answer rendered again by its id",
        True,
    )
    p.add_argument("--user", required=True)
    p.add_argument("--memory", metavar="ID", help="only the answers that held this memory")
    p.add_argument("--limit", type=int, default=20, help="answers listed (at most 200)")
    p.add_argument("--json", action="store_true")
    p.add_argument("served_id", nargs="?", help="one answer: rendered again from its record")

    p = command(
        "stats", stats_command, "memory counts, dead letters, applied offsets and lag", True
    )
    p.add_argument("--user")
    p.add_argument("--json", action="store_true")


def after_write_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--after-write TOKEN`` and ``--as-of WHEN`` to a reading command."""
    parser.add_argument(
        "--after-write",
        metavar="TOKEN",
        help="answer once the worker has applied this write (the token a write printed)",
    )
    parser.add_argument(
        "--as-of",
        metavar="WHEN",
        help="memory as it stood then: an ISO 8601 time (what was recorded by then) or a "
        "write token",
    )
