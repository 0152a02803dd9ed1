"""Commands that change memory: ``correct``, ``confirm``, ``forget`` (and a memory's
``history``), and ``erase`` (a user, for good, after asking)."""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
from typing import TYPE_CHECKING

from memstream.application.erasure_receipts import check
from memstream.cli import render
from memstream.cli.backends import SettingsOnDemand, settings_on_demand
from memstream.cli.reading import after_write_flag as _after_write
from memstream.cli.shared import (
    Command,
    access_of,
    confirmed_erasure,
    show,
    unknown_user,
)
from memstream.cli.writing import WAIT_HELP, print_token
from memstream.storage.shared_folder import SharedFolder
from memstream.storage.signing_key import SigningKey

if TYPE_CHECKING:
    from memstream.settings import Settings

__all__ = ["correct", "erase", "memory_command", "register", "verify_receipt"]


@settings_on_demand
def correct(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    access = access_of(args, settings)
    now_id, token = access.correct(args.user, args.memory_id, args.text, args.wait)
    print(f"corrected {args.memory_id}: now {now_id}")
    print_token(token)
    return 0


@settings_on_demand
def memory_command(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    access = access_of(args, settings)
    if args.command == "history":
        chain = access.history(args.user, args.memory_id, args.after_write, args.as_of)
        show(args, chain, render.history)
        return 0
    if args.command == "confirm":
        token = access.confirm(args.user, args.memory_id, args.wait)
        print(f"confirmed {args.memory_id}")
    else:
        token = access.forget(args.user, args.memory_id, args.wait)
        print(f"forgot {args.memory_id}")
    print_token(token)
    return 0


@settings_on_demand
def erase(args: argparse.Namespace, settings: SettingsOnDemand) -> int:
    if args.verify is not None:
        return verify_receipt(args.verify, settings.get())
    if args.public_key:
        key = SigningKey(SharedFolder(settings.get().signing_key_location))
        if not key.made():
            print("this deployment has signed nothing yet: it has no signing key", file=sys.stderr)
            return 1
        print(base64.b64encode(key.public_key).decode())
        return 0
    if args.user is None:
        print("memstream erase: give --user (or --verify RECEIPT)", file=sys.stderr)
        return 2
    access = access_of(args, settings)
    unknown = unknown_user(access, args.user, quiet=True)
    if not args.yes and not confirmed_erasure(args.user, unknown):
        return 2
    done = access.erase(args.user)
    show(args, done, render.erasure)
    return 0 if done["complete"] else 3


#: The largest receipt ``--verify`` reads (one is a few kilobytes).
_RECEIPT_BYTES = 1 << 20


def verify_receipt(path: str, settings: Settings) -> int:
    """Check an erasure's receipt (a file, or ``-`` for standard input) against this
    deployment's signing key, or the public key ``MEMSTREAM_RECEIPT_PUBLIC_KEY``
    (base64) names: 0 when it holds, 1 with what is wrong."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(_RECEIPT_BYTES + 1)
        else:
            with open(path, "rb") as source:
                data = source.read(_RECEIPT_BYTES + 1)
        if len(data) > _RECEIPT_BYTES:
            raise ValueError(f"more than {_RECEIPT_BYTES:,} bytes: not a receipt")
        receipt = json.loads(data.decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # JSON and UTF-8 errors too
        reason = "nested too deep" if isinstance(exc, RecursionError) else exc
        print(
            f"memstream erase --verify: cannot read a receipt from {path}: {reason}",
            file=sys.stderr,
        )
        return 1
    if isinstance(receipt, dict) and isinstance(receipt.get("receipt"), dict):
        receipt = receipt["receipt"]  # the whole answer of an erasure
    given = os.environ.get("MEMSTREAM_RECEIPT_PUBLIC_KEY")
    if given:
        try:
            public_key = base64.b64decode(given, validate=True)
        except ValueError:
            print("MEMSTREAM_RECEIPT_PUBLIC_KEY is not a base64 public key", file=sys.stderr)
            return 1
    else:
        key = SigningKey(SharedFolder(settings.signing_key_location))
        if not key.made():
            print("this deployment has signed nothing: it has no signing key", file=sys.stderr)
            return 1
        public_key = key.public_key
    problems = check(receipt, public_key) if isinstance(receipt, dict) else ["not a receipt"]
    if problems:
        for problem in problems:
            print(f"NOT VALID: {problem}")
        return 1
    probes = receipt["probes"]
    print(
        f"valid: the erasure of {receipt['user_id']} asked at {receipt['requested_at']}, "
        f"signed by the deployment's key {receipt['signature']['key_id']}; "
        f"{len(probes)} read paths probed at {receipt['checked_at']}, none found anything"
    )
    return 0


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
    p.add_argument("--user")
    p.add_argument("--yes", action="store_true", help="erase without asking (for scripts)")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--verify",
        metavar="RECEIPT",
        help="check an erasure's receipt (a file, - for standard input) against this "
        "deployment's signing key, instead of erasing",
    )
    p.add_argument(
        "--public-key",
        action="store_true",
        help="print the deployment's public key (base64), with which anyone can check a "
        "receipt (MEMSTREAM_RECEIPT_PUBLIC_KEY=... memstream erase --verify RECEIPT)",
    )
