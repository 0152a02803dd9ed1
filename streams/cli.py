"""The ``memstream`` command line.

up, serve, publish, search, stats, entity, replay, digest; the lifecycle jobs (``jobs
consolidate|decay|reflect|weak|archive``); expand and restore archived memories; the
commands (remember, correct, confirm, forget) and a memory's history.

Settings are built here once, from flags and then ``MEMSTREAM_*`` variables, and passed
down. Every failure the user can fix is printed as one ``error:`` line (exit code 2);
no traceback is an error message.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from projections.codec import encode, from_document, problems_of
from projections.digest import digest_tables
from projections.errors import InvalidQuery, ProjectionError
from projections.events import (
    ConfidenceDecayed,
    Event,
    FactsConsolidated,
    MemoryAccessed,
    MemoryPruned,
    ReflectionWritten,
    SessionClosed,
    in_time_range,
)
from projections.profiles import entity_profile
from projections.search import SearchRequest
from projections.stats import stats as compute_stats
from storage.errors import StorageError
from storage.lance_store import STATE_TABLES, ProjectionStore
from storage.layout import DataLayout
from storage.schemas import NOT_STATE_COLUMNS
from streams import replay as replay_module
from streams.errors import BrokerError, StreamsError
from streams.publisher import Publisher, check_lines, publisher_for
from streams.settings import Settings
from streams.topics import MESSAGES, end_offsets, read_epoch

__all__ = ["main"]


class UsageError(Exception):
    """A command was given something it cannot use."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    if args.command != "up":
        # Library log lines (aiokafka's connection errors) are not messages for the user:
        # failures reach them as one `error:` line.
        logging.getLogger().addHandler(logging.NullHandler())
    try:
        _check_identifiers(args)
        settings = _settings(args)
        return int(args.handler(args, settings))
    except ValidationError as exc:
        _error("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))
    except (UsageError, StreamsError, ProjectionError, StorageError) as exc:
        _error(str(exc))
    except KeyboardInterrupt:
        return 130
    return 2


def _check_identifiers(args: argparse.Namespace) -> None:
    """Refuse a malformed identifier or name before anything reads or publishes."""
    from projections.scope import plain_text, valid_identifier

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


def _error(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {
        "data": getattr(args, "data", None),
        "kafka": getattr(args, "kafka", None),
        "embedder": getattr(args, "embedder", None),
        "api_port": getattr(args, "port", None),
    }
    return Settings(**{k: v for k, v in overrides.items() if v is not None})


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memstream", description="Durable memory for AI agents.")
    sub = parser.add_subparsers(dest="command")

    def command(name: str, handler: Any, help_: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_)
        p.add_argument("--data", help="data folder (default ./memstream-data, or MEMSTREAM_DATA)")
        p.add_argument("--kafka", help="Kafka bootstrap address (default: the embedded broker)")
        p.set_defaults(handler=handler)
        return p

    p = command("up", _up, "run the broker (when embedded), the worker and the HTTP API")
    p.add_argument("--embedder", choices=("minilm", "openai", "none"))
    p.add_argument("--port", type=int, help="HTTP API port (default 8787)")
    p.add_argument("--no-api", action="store_true", help="run the worker without the HTTP API")

    p = command("serve", _serve, "serve the HTTP API alone (the worker runs elsewhere)")
    p.add_argument("--embedder", choices=("minilm", "openai", "none"))
    p.add_argument("--port", type=int, help="HTTP API port (default 8787)")

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

    p = command("search", _search, "hybrid search of a user's memories")
    p.add_argument("--user", required=True)
    p.add_argument("--project")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--now", help="the time relative phrases refer to (ISO 8601)")
    p.add_argument("--after", help="only memories from this time on (ISO 8601)")
    p.add_argument("--before", help="only memories before this time (ISO 8601)")
    p.add_argument("--kind", action="append", dest="kinds", help="only this kind (repeatable)")
    p.add_argument("--tag", action="append", dest="tags", help="only with this tag (repeatable)")
    p.add_argument("--embedder", choices=("minilm", "openai", "none"))
    p.add_argument(
        "--history", action="store_true", help="include superseded and forgotten memories"
    )
    p.add_argument(
        "--archived", action="store_true", help="also search the summaries of archived memories"
    )
    p.add_argument("--json", action="store_true")
    p.add_argument("query")

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

    p = command("remember", _remember, "remember a fact (a remember_fact command)")
    p.add_argument("--user", required=True)
    p.add_argument("--project")
    p.add_argument("--kind", choices=("fact", "preference", "procedure", "opinion"))
    p.add_argument("--tag", action="append", dest="tags")
    p.add_argument("text")

    p = command("correct", _correct, "replace a memory with corrected content")
    p.add_argument("--user", required=True)
    p.add_argument("memory_id")
    p.add_argument("text")

    for name, help_ in (
        ("confirm", "confirm a memory: full confidence, never decays"),
        ("forget", "forget a memory: never returned by search, kept for history"),
        ("history", "the memories that replaced one another through this one"),
    ):
        p = command(name, _memory_command, help_)
        p.add_argument("--user", required=True)
        p.add_argument("--json", action="store_true")
        p.add_argument("memory_id")

    p = command("entity", _entity, "an entity's profile: aliases, mentions, memories")
    p.add_argument("--user", required=True)
    p.add_argument("--json", action="store_true")
    p.add_argument("name")

    p = command("stats", _stats, "memory counts, dead letters, applied offsets and lag")
    p.add_argument("--user")
    p.add_argument("--json", action="store_true")

    p = command("replay", _replay, "rebuild the projections from Kafka or the event archive")
    p.add_argument("--source", choices=("kafka", "archive"), default="archive")
    p.add_argument("--into", required=True, help="an empty folder for the rebuilt projections")
    p.add_argument("--swap", action="store_true", help="then switch the data folder to them")

    p = command("digest", _digest, "print a digest of the projected state")
    p.add_argument("--tables", action="store_true", help="also one digest per table")
    return parser


def _up(args: argparse.Namespace, settings: Settings) -> int:
    from streams.worker import run

    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    return run(settings, api=not args.no_api)


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from streams.serve import serve

    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    return serve(settings)


def _publish(args: argparse.Namespace, settings: Settings) -> int:
    if args.jsonl:
        lines = _read_lines(args.jsonl)
    elif args.text:
        lines = [json.dumps(_message_document(args)).encode()]
    else:
        raise UsageError("give --jsonl FILE, or --user, --session and the message text")
    checked = check_lines(lines)

    async def send() -> None:
        async with publisher_for(settings) as publisher:
            await publisher.publish_lines(checked)

    asyncio.run(send())
    accepted = [c for c in checked if c.event is not None]
    print(f"accepted {len(accepted)} of {len(checked)}")
    for line in checked:
        if line.event is None:
            where = "sent to memory.dlq" if line.sendable else "not sent"
            print(f"line {line.number}: rejected ({where}): {'; '.join(line.problems)}")
    return 0 if len(accepted) == len(checked) else 1


def _message_document(args: argparse.Namespace) -> dict[str, Any]:
    if not args.user or not args.session:
        raise UsageError("--user and --session are required with a message text")
    event = from_document(
        {
            "user_id": args.user,
            "session_id": args.session,
            "role": args.role,
            "speaker": args.speaker,
            "project_id": args.project,
            "channel": args.channel,
            "content": args.text,
            "occurred_at": args.at or datetime.now(UTC).isoformat(),
        }
    )
    document: dict[str, Any] = json.loads(event.model_dump_json())
    return document


def _read_lines(path: str) -> list[bytes]:
    if path == "-":
        return sys.stdin.buffer.read().splitlines()
    try:
        return Path(path).read_bytes().splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def _open_store(settings: Settings) -> ProjectionStore:
    location = DataLayout(settings.data_location).existing_projections()
    if location is None:
        raise UsageError(f"no projections in {settings.data} yet: run `memstream up` and publish")
    return ProjectionStore.at(location)


def _search(args: argparse.Namespace, settings: Settings) -> int:
    from streams.components import make_embedder, make_searcher

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
                "include_archived": args.archived,
            }
        )
    except ValidationError as exc:
        raise InvalidQuery("; ".join(problems_of(exc))) from None
    store = _open_store(settings)
    response = make_searcher(settings, store, make_embedder(settings)).search(request)
    if args.json:
        print(response.model_dump_json(indent=2))
    else:
        for rank, r in enumerate(response.results, start=1):
            when = r.occurred_at.isoformat() if r.occurred_at else "-"
            who = f"{r.speaker}: " if r.speaker else ""
            cold = " (archived)" if r.archived else ""
            print(f"{rank:>3}. [{r.score:.3f}] {when} {r.session_id} {who}{r.content}{cold}")
        if not response.results:
            print("no results")
    if response.results:  # reinforcement, after the answer is out; best effort
        _report_access(settings, request.user_id, [r.memory_id for r in response.results])
    return 0


def _report_access(settings: Settings, user_id: str, memory_ids: list[str]) -> None:
    event = MemoryAccessed(user_id=user_id, memory_ids=memory_ids, accessed_at=datetime.now(UTC))

    async def send() -> None:
        async with Publisher(settings.bootstrap) as publisher:
            await publisher.publish([event])

    try:
        asyncio.run(asyncio.wait_for(send(), 5))
    except Exception:  # the broker is down: the answer stands, the access is not counted
        logging.getLogger(__name__).debug("access not reported", exc_info=True)


def _publish_events(settings: Settings, events: Sequence[Event]) -> None:
    async def send() -> None:
        async with publisher_for(settings) as publisher:
            await publisher.publish(events)

    asyncio.run(send())


def _time_arg(value: str | None, name: str) -> datetime:
    if value is None:
        return datetime.now(UTC)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{name}: not an ISO 8601 time: {value!r}") from None
    try:
        return in_time_range(parsed)
    except ValueError as exc:
        raise UsageError(f"{name}: {exc}") from None


def _jobs(args: argparse.Namespace, settings: Settings) -> int:
    from projections.scope import valid_identifier
    from streams.components import make_lifecycle, make_model

    user = valid_identifier("user", args.user) if args.user else None
    now = _time_arg(args.now, "--now")
    if args.job == "archive":
        return _archive(args, settings, user, now)
    jobs = make_lifecycle(settings, _open_store(settings), make_model(settings))
    if args.job == "weak":
        if user is None:
            raise UsageError("jobs weak needs --user")
        weak = jobs.weak_facts(user, now)
        if args.json:
            print(json.dumps(weak, indent=2))
        for w in [] if args.json else weak:
            print(f"{w['confidence']:.4f} {w['kind']:<10} {w['memory_id']}")
        return 0
    events: list[Event]
    failed: dict[str, str] = {}
    if args.job == "decay":
        events = list(jobs.decay(now, user))
    else:
        result = (
            jobs.consolidate(now, user) if args.job == "consolidate" else jobs.reflect(now, user)
        )
        events, failed = result.events, result.failed
    if args.json:
        print(json.dumps([json.loads(encode(e)) for e in events], indent=2, ensure_ascii=False))
    else:
        for e in events:
            print(_describe(e))
    if not args.dry_run and events:
        _publish_events(settings, events)
    verb = "would publish" if args.dry_run else "published"
    print(f"{verb} {len(events)} events", file=sys.stderr)
    for what, reason in sorted(failed.items()):
        print(f"failed, to be tried again: {what}: {reason}", file=sys.stderr)
    return 1 if failed else 0


def _archive(args: argparse.Namespace, settings: Settings, user: str | None, now: datetime) -> int:
    from streams.components import make_archiver, make_embedder, make_model

    store = _open_store(settings)
    if args.dry_run:  # the candidates only: nothing is summarized, written or published
        decisions = make_archiver(settings, store).candidates(now, user)
        if args.json:
            print(json.dumps([vars(d) for d in decisions], indent=2))
        for d in [] if args.json else decisions:
            print(
                f"{d.user_id} {d.memory_id} age {d.age_days:.1f} d "
                f"hotness {d.hotness:.4f}: {d.reason}"
            )
        print(f"would archive {len(decisions)} memories", file=sys.stderr)
        return 0
    archiver = make_archiver(settings, store, make_embedder(settings), make_model(settings))
    events = archiver.archive(now, user)
    if args.json:
        print(json.dumps([json.loads(encode(e)) for e in events], indent=2, ensure_ascii=False))
    for e in [] if args.json else events:
        print(f"{e.user_id} {e.memory_id} -> {e.storage_ref} ({e.reason})")
    if events:
        _publish_events(settings, events)
    print(f"published {len(events)} events", file=sys.stderr)
    merged = archiver.cold.compact()
    if merged:
        print(f"cold store: {merged} small files merged", file=sys.stderr)
    return 0


def _expand(args: argparse.Namespace, settings: Settings) -> int:
    from projections.archiver import NotArchived
    from projections.scope import valid_identifier
    from streams.components import make_archiver

    user = valid_identifier("user", args.user)
    archiver = make_archiver(settings, _open_store(settings))
    try:
        expansion = archiver.expand(user, args.memory_id, datetime.now(UTC))
    except NotArchived as exc:
        raise UsageError(str(exc)) from None
    _publish_events(settings, expansion.events)
    print(json.dumps(expansion.original, indent=2, default=str, ensure_ascii=False))
    return 0


def _restore(args: argparse.Namespace, settings: Settings) -> int:
    from projections.archiver import NotArchived
    from projections.scope import valid_identifier
    from streams.components import make_archiver

    user = valid_identifier("user", args.user)
    if args.all == (args.memory_id is not None):
        raise UsageError("give either a MEMORY_ID or --all")
    archiver = make_archiver(settings, _open_store(settings))
    try:
        events = archiver.restore(user, args.memory_id, datetime.now(UTC))
    except NotArchived as exc:
        raise UsageError(str(exc)) from None
    if events:
        _publish_events(settings, events)
    print(f"restoring {len(events)} memories")
    return 0


def _describe(event: Event) -> str:
    """One or more lines saying what a lifecycle event decided."""
    if isinstance(event, SessionClosed):
        return (
            f"session {event.user_id}/{event.session_id} closed ({event.reason}) "
            f"through {event.through.isoformat()}"
        )
    if isinstance(event, FactsConsolidated):
        lines = [
            f"session {event.user_id}/{event.session_id}: {len(event.memories)} memories "
            f"({event.extractor})"
        ]
        lines += [f"  + [{m.kind}] {m.content} ({m.confidence:.2f})" for m in event.memories]
        return "\n".join(lines)
    if isinstance(event, ConfidenceDecayed):
        lines = [f"{event.user_id}: {len(event.updates)} confidences as of {event.as_of}"]
        lines += [f"  {u.memory_id} -> {u.confidence:.6f}" for u in event.updates]
        return "\n".join(lines)
    if isinstance(event, MemoryPruned):
        return f"{event.user_id}: pruned {', '.join(event.memory_ids)}"
    if isinstance(event, ReflectionWritten):
        return f"{event.user_id}: reflection\n{event.memory.content}"
    return event.model_dump_json()


def _remember(args: argparse.Namespace, settings: Settings) -> int:
    from projections.commands import remembering

    fields: dict[str, Any] = {"user_id": args.user, "content": args.text}
    if args.project:
        fields["project_id"] = args.project
    if args.kind:
        fields["kind"] = args.kind
    if args.tags:
        fields["tags"] = args.tags
    event, memory_id = remembering(fields, datetime.now(UTC))
    _publish_events(settings, [event])
    print(f"remembered {memory_id}")
    return 0


def _correct(args: argparse.Namespace, settings: Settings) -> int:
    from projections.commands import UnknownMemory, correction
    from projections.scope import valid_identifier

    user = valid_identifier("user", args.user)
    try:
        event, new_id = correction(
            _open_store(settings), user, args.memory_id, args.text, datetime.now(UTC)
        )
    except UnknownMemory as exc:
        raise UsageError(str(exc)) from None
    _publish_events(settings, [event])
    print(f"corrected {args.memory_id}: now {new_id}")
    return 0


def _memory_command(args: argparse.Namespace, settings: Settings) -> int:
    from projections.commands import UnknownMemory, confirmation, forgetting
    from projections.profiles import memory_history
    from projections.scope import valid_identifier

    user = valid_identifier("user", args.user)
    store = _open_store(settings)
    if args.command == "history":
        chain = memory_history(store, user, args.memory_id)
        if chain is None:
            raise UsageError(f"no memory {args.memory_id} for user {user}")
        if args.json:
            print(json.dumps(chain, indent=2, default=str, ensure_ascii=False))
            return 0
        for m in chain:
            status = "current"
            if m["superseded_by"]:
                status = f"superseded {m['valid_until']} by {m['superseded_by']}"
            if m["forgotten_at"]:
                status = f"{m['forgotten_reason']} {m['forgotten_at']}"
            print(f"{m['occurred_at']} [{m['kind']}] {m['content']} ({status})")
        return 0
    make = confirmation if args.command == "confirm" else forgetting
    try:
        event = make(store, user, args.memory_id, datetime.now(UTC))
    except UnknownMemory as exc:
        raise UsageError(str(exc)) from None
    _publish_events(settings, [event])
    print(f"{'confirmed' if args.command == 'confirm' else 'forgot'} {args.memory_id}")
    return 0


def _entity(args: argparse.Namespace, settings: Settings) -> int:
    from projections.scope import valid_identifier

    profile = entity_profile(_open_store(settings), valid_identifier("user", args.user), args.name)
    if profile is None:
        raise UsageError(f"no entity named {args.name!r} for user {args.user}")
    if args.json:
        print(json.dumps(profile, indent=2, default=str, ensure_ascii=False))
        return 0
    print(f"{profile['name']} ({profile['type']}), {profile['mention_count']} mentions")
    print(f"  aliases: {', '.join(profile['aliases'])}")
    print(f"  seen: {profile['first_seen']} .. {profile['last_seen']}")
    for item in profile["timeline"]:
        print(f"  {item['month']}: {item['memories']} memories")
    for m in profile["memories"]:
        print(f"  - {m['occurred_at']} {m['speaker'] or ''}: {m['content'][:100]}")
    return 0


def _stats(args: argparse.Namespace, settings: Settings) -> int:
    store = _open_store(settings)
    offsets, epoch = _log_position(settings)
    document = compute_stats(store, args.user, end_offsets=offsets, log_epoch=epoch)
    if args.json:
        print(json.dumps(document, indent=2))
        return 0
    for kind, count in document["memories"].items() or [("memories", 0)]:
        print(f"{kind:>14}: {count}")
    print(f"      entities: {document['entities']}")
    print(f" embedding lag: {document['embedding_lag']}")
    print(f"  dead letters: {document['dead_letters']}")
    lag = document["lag"]
    print(f"           lag: {'unknown (broker unreachable)' if lag is None else lag}")
    return 0


def _log_position(settings: Settings) -> tuple[dict[tuple[str, int], int] | None, str | None]:
    async def read() -> tuple[dict[tuple[str, int], int], str | None]:
        ends = await end_offsets(settings.bootstrap, MESSAGES)
        epoch = await read_epoch(settings.bootstrap, datetime.now(UTC), create=False)
        return {(MESSAGES, p): off for p, off in ends.items()}, epoch

    try:
        return asyncio.run(asyncio.wait_for(read(), 10))
    except (TimeoutError, Exception):
        return None, None


def _replay(args: argparse.Namespace, settings: Settings) -> int:
    if args.source == "archive":
        records = replay_module.archive_batches(settings.data_location)
    else:
        epoch = asyncio.run(read_epoch(settings.bootstrap, datetime.now(UTC), create=False))
        if epoch is None:
            raise BrokerError(f"the log at {settings.bootstrap} has no memstream topics")
        records = replay_module.kafka_batches(settings.bootstrap, epoch)
    from streams.components import make_cold_store

    into = settings.location_of(args.into)
    report = replay_module.rebuild(
        records, into, settings.consumer_group, cold_store=make_cold_store(settings)
    )
    print(
        f"replayed {report.records} records ({report.applied} applied, {report.dead_letters} "
        f"dead letters) in {report.seconds:.2f} s, {report.rate:,.0f}/s "
        f"into {report.projections_uri}"
    )
    if args.swap:
        generation = replay_module.switch_generation(into, settings.data_location)
        print(f"{settings.data} now uses {generation}")
    return 0


def _digest(args: argparse.Namespace, settings: Settings) -> int:
    store = _open_store(settings)
    print(state_digest(store))
    if args.tables:
        for name in STATE_TABLES:
            rows = store.scan(name).to_pylist()
            print(f"{name} {len(rows)} {digest_tables({name: rows}, ignore=NOT_STATE_COLUMNS)}")
    return 0


def state_digest(store: ProjectionStore) -> str:
    """The digest of a store's state (memories, vectors, entities, access), ignoring log
    positions."""
    tables = {name: store.scan(name).to_pylist() for name in STATE_TABLES}
    return digest_tables(tables, ignore=NOT_STATE_COLUMNS)
