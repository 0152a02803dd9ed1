"""Lifecycle commands: run a job once (``jobs consolidate|decay|reflect|weak|archive``),
and expand or restore archived memories."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime

from memstream.cli import render
from memstream.cli.shared import (
    Command,
    UsageError,
    run_here,
    say,
    time_arg,
)
from memstream.settings import Settings

__all__ = ["expand", "jobs", "register", "restore"]


def jobs(args: argparse.Namespace, settings: Settings) -> int:
    now = time_arg(args.now, "--now")
    if args.job == "archive":
        return _archive(args, settings, args.user, now)
    if args.job == "weak":
        if args.user is None:
            raise UsageError("jobs weak needs --user")
        weak = run_here(settings, lambda ops: ops.upkeep.weak_facts(args.user, now))
        say(json.dumps(weak, indent=2) if args.json else render.weak_facts(weak))
        return 0
    report = run_here(
        settings, lambda ops: ops.upkeep.run_job(args.job, now, args.user, args.dry_run)
    )
    say(render.events_json(report.events) if args.json else render.decisions(report.events))
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
        decisions = run_here(settings, lambda ops: ops.upkeep.archive_candidates(now, user))
        if args.json:
            print(json.dumps([vars(d) for d in decisions], indent=2))
        else:
            say(render.cold_decisions(decisions))
        print(f"would archive {len(decisions)} memories", file=sys.stderr)
        return 0
    report = run_here(settings, lambda ops: ops.upkeep.archive(now, user))
    say(render.events_json(report.events) if args.json else render.archived(report.events))
    print(f"published {len(report.events)} events", file=sys.stderr)
    if report.merged_files:
        print(f"cold store: {report.merged_files} small files merged", file=sys.stderr)
    return 0


def expand(args: argparse.Namespace, settings: Settings) -> int:
    expanded = run_here(settings, lambda ops: ops.upkeep.expand(args.user, args.memory_id))
    print(json.dumps(expanded.original, indent=2, default=str, ensure_ascii=False))
    return 0


def restore(args: argparse.Namespace, settings: Settings) -> int:
    if args.all == (args.memory_id is not None):
        raise UsageError("give either a MEMORY_ID or --all")
    done = run_here(settings, lambda ops: ops.upkeep.restore(args.user, args.memory_id))
    if not done.event_ids:
        print(f"nothing of {args.user} is archived")
        return 0
    restoring = len(done.event_ids)
    print(f"restoring {restoring} memor{'y' if restoring == 1 else 'ies'}")
    return 0


def register(command: Command) -> None:
    """Add this module's commands, with their flags, to the parser ``command`` builds."""
    p = command("jobs", jobs, "run a lifecycle job once and print what it decided")
    p.add_argument("job", choices=("consolidate", "decay", "reflect", "weak", "archive"))
    p.add_argument("--now", help="the time the job runs at (ISO 8601; default now)")
    p.add_argument("--user", help="only this user's memories")
    p.add_argument("--dry-run", action="store_true", help="decide, print, publish nothing")
    p.add_argument("--json", action="store_true")

    p = command("expand", expand, "an archived memory's original, read from cold storage")
    p.add_argument("--user", required=True)
    p.add_argument("memory_id")

    p = command("restore", restore, "bring archived memories back to the hot tables")
    p.add_argument("--user", required=True)
    p.add_argument("--all", action="store_true", help="every archived memory of the user")
    p.add_argument("memory_id", nargs="?")
