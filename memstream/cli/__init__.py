"""Entry point of the ``memstream`` command (see :mod:`memstream.cli.commands`).

The command's modules are imported when it runs, not when this module is imported:
a replay's worker processes import the main module again and need none of them.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> None:
    from memstream.cli.commands import main as run

    sys.exit(run())
