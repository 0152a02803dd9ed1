"""Entry point of the ``memstream`` command (see :mod:`memstream.cli.commands`).

The command's modules are imported when it runs, not when this module is imported:
a replay's worker processes import the main module again and need none of them.
"""

from __future__ import annotations

import os
import sys

__all__ = ["SERVICES", "main"]

#: The commands that run until stopped (they log what they do); the others are one-shot.
SERVICES = frozenset({"up", "serve", "worker", "embed", "broker"})


def main() -> None:
    # One BLAS thread per numpy call, set before numpy loads: a memstream process answers
    # many searches at once (and runs the model on threads of its own), so a vector
    # product spread over every core only makes the searches beside it wait. Measured
    # with bench/query.py, 50 clients at once: 82 searches/s with OpenBLAS's default
    # threads, 97/s with one.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # httpx imports its own command line (click, rich, pygments: 40 ms of a command's
    # 300) when it is imported, and falls back to a stub when that import fails; this
    # command never runs httpx's, so it takes the stub.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    if sys.argv[1:2] and sys.argv[1] not in SERVICES:
        # pydantic looks through every installed package's entry points for plugins when
        # the first model is built (memstream uses none): a one-shot command skips it
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if sys.argv[1:] == ["--version"]:  # nothing else to load
        from importlib.metadata import version

        print(f"memstream {version('memstream')}")
        sys.exit(0)
    if sys.argv[1:2] == ["hook"]:  # a coding agent waits on it: the standard library only
        from memstream.hooks.runner import main as hook

        sys.exit(hook(sys.argv[2:]))
    from memstream.cli.commands import main as run

    sys.exit(run())
