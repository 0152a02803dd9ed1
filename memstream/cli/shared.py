"""What every command of the command line shares: the refusal of a usage, printing an
answer (text for people, JSON with ``--json``) or an error line, who answers a command
(a running server, or this process), times given as flags, and a user memstream does not
know."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from memstream.cli.backends import MemoryAccess, SettingsOnDemand, memory_access, run_closing
from memstream.storage.errors import MemstreamError

if TYPE_CHECKING:
    from memstream.application import Operations
    from memstream.settings import Settings

#: Adds a command to the parser: its name, handler, help, and whether a server may
#: answer it (``--api``, ``--in-process``); answers the command's own parser.
Command = Callable[..., argparse.ArgumentParser]

__all__ = [
    "UsageError",
    "access_of",
    "as_flags",
    "confirmed_erasure",
    "not_found",
    "run_here",
    "say",
    "say_error",
    "show",
    "time_arg",
    "tracing_asked",
    "unknown_user",
]


_T = TypeVar("_T")


_D = TypeVar("_D")


class UsageError(MemstreamError):
    """A command was given something it cannot use."""


def tracing_asked() -> bool:
    """Whether any ``OTEL_*`` variable is set: with none, tracing is off
    (:func:`memstream.observability.tracing.wanted`) and the command loads none of it."""
    return any(name.startswith("OTEL_") for name in os.environ)


def say(text: str) -> None:
    """Print ``text`` unless there is nothing to say."""
    if text:
        print(text)


def show(args: argparse.Namespace, document: _D, text_of: Callable[[_D], str]) -> None:
    """``document`` as JSON with ``--json``, else as ``text_of`` renders it."""
    if args.json:
        print(json.dumps(document, indent=2, default=str, ensure_ascii=False))
    else:
        say(text_of(document))


def say_error(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)


def access_of(args: argparse.Namespace, settings: SettingsOnDemand) -> MemoryAccess:
    """Who answers this command (a server, or this process; see the module docstring).
    A search with ``--embedder`` is answered here: the server embeds with its own."""
    here = args.in_process or getattr(args, "embedder", None) is not None
    return memory_access(settings, in_process=here)


def run_here(settings: Settings, call: Callable[[Operations], Awaitable[_T]]) -> _T:
    """Run one operation in this process, then let its background reports finish
    (briefly)."""
    from memstream.application import Operations

    return run_closing(lambda: Operations(settings), call)


def as_flags(problems: Sequence[str], flags: Mapping[str, str]) -> list[str]:
    """Problems named by a request's fields (``kinds.0: must be ...``) named by the flags
    the user gave instead (``--kind: must be ...``)."""
    named = []
    for problem in problems:
        where, _, what = problem.partition(": ")
        field = where.split(".")[0]
        named.append(f"{flags[field]}: {what}" if field in flags and what else problem)
    return named


def time_arg(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{name}: not an ISO 8601 time: {value!r}") from None
    try:
        from memstream.events.identifier_rules import in_time_range

        return in_time_range(parsed)
    except ValueError as exc:
        raise UsageError(f"{name}: {exc}") from None


def confirmed_erasure(user_id: str, unknown: str | None) -> bool:
    """Whether to go on with erasing ``user_id``: asked on a terminal (the user id typed
    again); refused elsewhere, saying to add ``--yes``. ``unknown``: what says that no
    memory of the user is held (then there may be nothing to erase)."""
    if unknown is not None:
        say_error(f"{unknown}: nothing to erase, unless keys or rows of it are left")
    if not sys.stdin.isatty():
        say_error(f"erasing {user_id} is for good: add --yes to erase it (nothing was erased)")
        return False
    asked = "erase whatever is left of" if unknown else "erase, for good, every memory of"
    try:
        typed = input(f"{asked} {user_id}? type the user id to go on: ").strip()
    except EOFError:  # Ctrl-D: no answer is no
        typed = ""
    if typed != user_id:
        say_error("not erased (the id typed was not the user's)")
        return False
    return True


def unknown_user(access: MemoryAccess, user_id: str, *, quiet: bool = False) -> str | None:
    """None while memory of ``user_id`` is held; else a sentence saying it is not, with
    the known ids most like it (printed as an error unless ``quiet``)."""
    from memstream.events.user_ids import closest_users, tenant_of

    known = [u["user_id"] for u in access.users(tenant_of(user_id))]
    if user_id in known:
        return None
    near = closest_users(user_id, known)
    hint = f": did you mean {' or '.join(near)}?" if near else " (`memstream users` lists them)"
    said = f"no memory of user {user_id} is held here{hint}"
    if not quiet:
        say_error(said)
    return said


def not_found(exc: MemstreamError) -> bool:
    """Whether ``exc`` says that what was asked for is not there (in this process, or
    the server's 404)."""
    from memstream.application.errors import NotFound

    return isinstance(exc, NotFound) or getattr(exc, "status", None) == 404
