"""Commands that change memory: ``correct``, ``confirm``, ``forget`` (and a memory's
``history``), and ``erase`` (a user, for good, after asking)."""

from __future__ import annotations

import argparse

from memstream.cli import render
from memstream.cli.reading import after_write_flag as _after_write
from memstream.cli.shared import (
    Command,
    access_of,
    confirmed_erasure,
    show,
    unknown_user,
)
from memstream.cli.writing import WAIT_HELP, print_token
from memstream.settings import Settings

__all__ = ["correct", "erase", "memory_command", "register"]


def correct(args: argparse.Namespace, settings: Settings) -> int:
    access = access_of(args, settings)
    now_id, token = access.correct(args.user, args.memory_id, args.text, args.wait)
    print(f"corrected {args.memory_id}: now {now_id}")
    print_token(token)
    return 0


def memory_command(args: argparse.Namespace, settings: Settings) -> int:
    access = access_of(args, settings)
    if args.command == "history":
        show(args, access.history(args.user, args.memory_id, args.after_write), render.history)
        return 0
    if args.command == "confirm":
        token = access.confirm(args.user, args.memory_id, args.wait)
        print(f"confirmed {args.memory_id}")
    else:
        token = access.forget(args.user, args.memory_id, args.wait)
        print(f"forgot {args.memory_id}")
    print_token(token)
    return 0


def erase(args: argparse.Namespace, settings: Settings) -> int:

    access = access_of(args, settings)
    unknown = unknown_user(access, args.user, quiet=True)
    if not args.yes and not confirmed_erasure(args.user, unknown):
        return 2
    done = access.erase(args.user)
    show(args, done, render.erasure)
    return 0 if done["complete"] else 3


def register(command: Command) -> None:
    """Add this module's commands, with their flags, to the parser ``command`` builds."""
    p = command("correct", correct, "replace a memory with corrected content", True)
    p.add_argument("--user", required=True)
    p.add_argument("--wait", action="store_true", help=WAIT_HELP)
    p.add_argument("memory_id")
    p.add_argument("text")

    for name, help_ in (
        ("confirm", "confirm a memory: full confidence, never decays"),
        ("forget", "forget a memory: never returned by search, kept for history"),
        ("history", "the memories that replaced one another through this one"),
    ):
        p = command(name, memory_command, help_, asks_server=True)
        p.add_argument("--user", required=True)
        p.add_argument("--json", action="store_true")
        if name == "history":
            _after_write(p)
        else:
            p.add_argument("--wait", action="store_true", help=WAIT_HELP)
        p.add_argument("memory_id")

    p = command(
        "erase",
        erase,
        "erase a user for good: destroy the user's data keys, then drop every row, "
        "vector, entity and archived original of the user",
        asks_server=True,
    )
    p.add_argument("--user", required=True)
    p.add_argument("--yes", action="store_true", help="erase without asking (for scripts)")
    p.add_argument("--json", action="store_true")
