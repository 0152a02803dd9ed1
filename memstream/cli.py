"""Entry point of the ``memstream`` command (see :mod:`streams.cli`).

The command's modules are imported when it runs, not when this module is imported:
a replay's worker processes import the main module again and need none of them.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> None:
    from streams.cli import main as run

    sys.exit(run())
