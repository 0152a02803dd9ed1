"""The spine of the ``memstream`` command line: the parser, settings, and errors.

Each command lives in the module of its group, which registers the command's flags
beside its handler: :mod:`~memstream.cli.running` (up, serve, worker, embed, broker,
top), :mod:`~memstream.cli.writing` (publish, remember, docs),
:mod:`~memstream.cli.reading` (search, memories, context, explain, entity, users, stats),
:mod:`~memstream.cli.changing` (correct, confirm, forget, history, erase),
:mod:`~memstream.cli.lifecycle` (jobs, expand, restore), :mod:`~memstream.cli.rebuilding`
(replay, reembed, switch, digest, export, import) and :mod:`~memstream.cli.agents` (mcp,
hook, keys). A command line loads the module of the command it names, and nothing else.

Settings are built here once, from flags and then ``MEMSTREAM_*`` variables, and passed
down. Every failure the user can fix is printed as one ``error:`` line (exit code 2);
no traceback is an error message. Reads and memory commands are answered by the server
running for the data folder when there is one, else in this process
(:mod:`memstream.cli.backends`).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from memstream.cli import SERVICES
from memstream.cli.backends import SettingsOnDemand
from memstream.cli.shared import (
    UsageError,
    say_error,
    tracing_asked,
)
from memstream.storage.errors import MemstreamError

if TYPE_CHECKING:
    from pydantic import ValidationError

    from memstream.settings import Settings

__all__ = ["UsageError", "main"]


def _any_flag(words: Sequence[str]) -> bool:
    return any(word.startswith("-") and word != "-" for word in words)


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words and not words[0].startswith("-") and words[0] not in _GROUPS:
        say_error(_no_command(words[0]))
        return 2
    parser = _parser(words[0] if words else None)
    args, extra = parser.parse_known_args(words)
    if extra and getattr(args, "command", None) == "docs" and not _any_flag(extra):
        args.items = [*args.items, *extra]  # files after an option: `docs add --user u a b`
    elif extra:
        say_error(_unknown_words(parser, args.command, extra))
        return 2
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    if args.command not in SERVICES:
        # Library log lines (aiokafka's connection errors) are not messages for the user:
        # failures reach them as one `error:` line.
        logging.getLogger().addHandler(logging.NullHandler())
        if tracing_asked():  # with the OTEL_* environment: a publish starts a trace
            from memstream.observability import tracing

            tracing.configure("cli")
    try:
        _check_identifiers(args)
        _warn_of_unknown_variables(os.environ)
        settings = SettingsOnDemand(lambda: _settings(args), args)
        on_demand = getattr(args.handler, "settings_on_demand", False)
        return int(args.handler(args, settings if on_demand else settings.get()))
    except MemstreamError as exc:  # the one root of what memstream refuses on purpose
        say_error(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as cat does
        _silence_stdout()
        return 141
    except Exception as exc:
        if not _refused_by_pydantic(exc):
            raise
        from memstream.events.problems import problems_of

        say_error("; ".join(problems_of(exc)))  # type: ignore[arg-type]
    return 2


def _refused_by_pydantic(error: Exception) -> bool:
    """Whether ``error`` is pydantic's refusal of a value (only once pydantic is loaded:
    a command that never validated a model has no such error to catch)."""
    core = sys.modules.get("pydantic_core")
    return core is not None and isinstance(error, core.ValidationError)


def _no_command(word: str) -> str:
    """What a word that names no command is told: the closest commands, if any."""
    import difflib

    close = difflib.get_close_matches(word, list(_GROUPS), n=2, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return f"no command {word[:40]!r}{hint}; `memstream --help` lists them by task"


def _unknown_words(parser: argparse.ArgumentParser, command: str, extra: Sequence[str]) -> str:
    """What a command line with words its command does not take is told: each option it
    does not have, with the closest it has; or the words left over."""
    import difflib

    found = next(a for a in parser._actions if a.dest == "command").choices
    chosen = cast(Mapping[str, argparse.ArgumentParser], found)
    options = [o for a in chosen[command]._actions for o in a.option_strings]
    unknown = [w.split("=", 1)[0] for w in extra if w.startswith("-") and w != "-"]
    if not unknown:
        words = " ".join(w[:40] for w in extra[:3])
        return f"memstream {command} does not take {words!r}: quote text of several words"
    said = []
    for flag in unknown[:3]:
        close = difflib.get_close_matches(flag, options, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        said.append(f"no option {flag[:40]}{hint}")
    return (
        f"memstream {command} has {'; '.join(said)}; `memstream {command} --help` lists its options"
    )


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that nothing more is written to a closed
    pipe (not even the interpreter's last flush)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _check_identifiers(args: argparse.Namespace) -> None:
    """Refuse a malformed identifier or name before anything reads or publishes."""
    from memstream.policies.scope import plain_text, valid_identifier

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


#: The settings a command's flags give, by the flag (argparse keeps each under the
#: flag's name without its dashes).
_FLAGS = {"data": "--data", "kafka": "--kafka", "embedder": "--embedder", "api_port": "--port",
          "api_url": "--api"}  # fmt: skip


def _settings(args: argparse.Namespace) -> Settings:
    """The settings: the environment's ``MEMSTREAM_*`` variables, then the command's
    flags. A value a setting refuses is named by its flag or its variable, as the user
    gave it."""
    from memstream.model_building import build_models_when_used

    build_models_when_used()  # the command works in this process: it opens the store
    from pydantic import ValidationError

    from memstream.settings import Settings

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
    from memstream.events.problems import problems_of
    from memstream.settings import Settings

    lines = []
    for problem, item in zip(problems_of(error), error.errors(), strict=True):
        field = str(item["loc"][0]) if item["loc"] else ""
        if field in Settings.model_fields:
            name = _FLAGS[field] if field in given else f"MEMSTREAM_{field.upper()}"
            problem = name + problem[len(field) :]
        lines.append(problem)
    return lines


def _warn_of_unknown_variables(environ: Mapping[str, str]) -> None:
    """Warn of each ``MEMSTREAM_*`` variable that is no setting, with the closest one."""
    import difflib

    from memstream.setting_names import SETTING_NAMES

    known = [f"MEMSTREAM_{name.upper()}" for name in SETTING_NAMES]
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
        ("served", "memstream served --user ana --memory ep-1a2b3c4d"),
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
        ("console", "memstream console --open"),
    )),
    ("Agents and access", (
        ("mcp", "memstream mcp --user ana --print-config"),
        ("hook", "memstream hook install claude-code --user ana"),
        ("keys", "memstream keys create --tenant acme --role write"),
    )),
)  # fmt: skip
_EXAMPLES = {name: example for _, commands in _TASKS for name, example in commands}


#: The module of each command: it registers the command's flags beside its handler.
_GROUPS = {
    **dict.fromkeys(("up", "serve", "worker", "embed", "broker", "top", "console"), "running"),
    **dict.fromkeys(("publish", "remember", "docs"), "writing"),
    **dict.fromkeys(
        ("search", "memories", "context", "explain", "entity", "users", "stats", "served"),
        "reading",
    ),
    **dict.fromkeys(("correct", "confirm", "forget", "history", "erase"), "changing"),
    **dict.fromkeys(("jobs", "expand", "restore"), "lifecycle"),
    **dict.fromkeys(("replay", "reembed", "switch", "digest", "export", "import"), "rebuilding"),
    **dict.fromkeys(("mcp", "hook", "keys"), "agents"),
}


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked (the lookup reads
    the installed packages' metadata)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import version

        parser.exit(message=f"memstream {version('memstream')}\n")


def _parser(command_word: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or, given the command a line names, of that command's
    module alone (a command imports only what it uses; ``--help`` loads them all)."""
    parser = argparse.ArgumentParser(
        prog="memstream",
        usage="memstream COMMAND [options]   (memstream COMMAND --help for its options)",
        description="Durable memory for AI agents.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", help=argparse.SUPPRESS)
    helps: dict[str, str] = {}

    def command(
        name: str, handler: Any, help_: str, asks_server: bool = False
    ) -> argparse.ArgumentParser:
        helps[name] = help_
        p = sub.add_parser(
            name,
            prog=f"memstream {name}",
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

    named = _GROUPS.get(command_word or "")
    for group in [named] if named else sorted(set(_GROUPS.values())):
        importlib.import_module(f"memstream.cli.{group}").register(command)
    if not named:
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
