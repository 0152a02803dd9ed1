"""Entry point of the ``memstream`` command (see :mod:`streams.cli`)."""

from __future__ import annotations

import sys

from streams.cli import main as _main

__all__ = ["main"]


def main() -> None:
    sys.exit(_main())
