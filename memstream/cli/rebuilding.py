"""Commands that rebuild or move memory: ``replay``, ``reembed``, ``switch``, ``digest``,
``export`` and ``import``."""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from memstream.cli import render
from memstream.cli.progress import counting
from memstream.cli.shared import (
    Command,
    UsageError,
    run_here,
    say,
)
from memstream.portability.exports import EXPORT_FORMATS
from memstream.settings import EMBEDDERS, Settings

__all__ = [
    "digest_command",
    "export_command",
    "import_command",
    "reembed_command",
    "register",
    "replay_command",
    "switch_command",
]


def replay_command(args: argparse.Namespace, settings: Settings) -> int:
    report, generation = run_here(
        settings,
        lambda ops: ops.rebuilding.replay(
            args.source, args.into, args.swap, args.writers, args.through
        ),
    )
    print(
        f"replayed {report.records} records ({report.applied} applied, {report.dead_letters} "
        f"dead letters) in {report.seconds:.2f} s, {report.rate:,.0f}/s "
        f"into {report.projections_uri}"
    )
    if generation is not None:
        print(f"{settings.data} now uses {generation}")
    return 0


def reembed_command(args: argparse.Namespace, settings: Settings) -> int:
    def progress(embedded: int) -> None:
        print(f"\rembedded {embedded} memories", end="", file=sys.stderr, flush=True)

    report, embedded = run_here(
        settings,
        lambda ops: ops.rebuilding.reembed(args.embedder_name, args.source, args.into, progress),
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


def switch_command(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.application import Operations

    generation = Operations(settings).rebuilding.switch(args.folder, force=args.force)
    print(f"{settings.data} now uses {generation}")
    return 0


def digest_command(args: argparse.Namespace, settings: Settings) -> int:
    total, tables = run_here(settings, lambda ops: ops.reads.digest(args.user))
    print(total)
    if args.tables:
        for name, (rows, digest) in tables.items():
            print(f"{name} {rows} {digest}")
    return 0


def export_command(args: argparse.Namespace, settings: Settings) -> int:
    """Stream the export to the file (with a progress line on a terminal) or stdout."""
    from memstream.application import Operations

    ops = Operations(settings)
    what = "events" if args.format == "events" else "memories"
    with counting(f"exporting {args.user}", what) as count:
        pieces = ops.rebuilding.export(args.user, args.format, counted=count)
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
    say(f"exported {args.user} ({args.format}) to {args.output}")
    return 0


def import_command(args: argparse.Namespace, settings: Settings) -> int:
    with (
        _import_source(args.file) as source,
        counting(f"importing for {args.user}", "events published") as count,
    ):
        report = run_here(
            settings,
            lambda ops: ops.rebuilding.import_file(
                args.user, source, progress=lambda done, _: count(done)
            ),
        )
    say(render.imported(report))
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


def register(command: Command) -> None:
    """Add this module's commands, with their flags, to the parser ``command`` builds."""
    p = command("replay", replay_command, "rebuild the projections from Kafka or the event archive")
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
    p.add_argument(
        "--through",
        metavar="TOKEN",
        help="only the records at or before this position (a write token, or the "
        "'position' of `memstream stats --json`): the memory as it stood there",
    )

    p = command(
        "reembed",
        reembed_command,
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
        switch_command,
        "switch the data folder to the projections `replay` or `reembed` built (stop the "
        "worker first)",
    )
    p.add_argument("folder", help="the folder given to --into")
    p.add_argument(
        "--force",
        action="store_true",
        help="switch even to projections that hold less history than those in use",
    )

    p = command("digest", digest_command, "print a digest of the projected state")
    p.add_argument("--tables", action="store_true", help="also one digest per table")
    p.add_argument("--user", help="of this user's rows only (what an export and import keep)")

    p = command(
        "export",
        export_command,
        "export everything memstream holds of a user: its events (to import elsewhere), "
        "a Markdown dossier, or the projections as JSON",
    )
    p.add_argument("--user", required=True)
    p.add_argument("--format", choices=EXPORT_FORMATS, default="events")
    p.add_argument("-o", "--output", help="the file to write (default: standard output)")

    p = command(
        "import",
        import_command,
        "import a memstream events export, a ChatGPT or Claude data export, or a Mem0 "
        "export of memories for a user (importing the same file again changes nothing)",
    )
    p.add_argument("--user", required=True)
    p.add_argument("file", help="the file (conversations.json, an export's .zip, ...), or -")
