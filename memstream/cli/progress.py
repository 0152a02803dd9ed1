"""A progress line on the terminal for long commands (an export, an import): how many
records so far and how fast, drawn by rich on standard error, and only when standard
error is a terminal (a script or a pipe sees nothing of it)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

__all__ = ["counting"]


@contextlib.contextmanager
def counting(label: str, unit: str) -> Iterator[Callable[[int], None]]:
    """A function to call with the count done so far; a live line while it runs."""
    if not sys.stderr.isatty():
        yield lambda done: None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn

    columns = (
        SpinnerColumn(),
        TextColumn(label),
        TextColumn("{task.completed:,.0f} " + unit),
        TextColumn("{task.fields[rate]}"),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None, rate="")
        started = bar.get_time()

        def count(done: int) -> None:
            elapsed = bar.get_time() - started
            rate = f"{done / elapsed:,.0f}/s" if elapsed > 0.5 else ""
            bar.update(task, completed=done, rate=rate)

        yield count
