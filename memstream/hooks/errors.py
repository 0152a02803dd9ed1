"""The hooks' one root exception, and what it is raised for.

HookProblem          why a hook or the installer did nothing (one line, no traceback)
└── UnsafePath       a path the hooks will not write through or read (a link, or a
                     place outside where the file belongs)
"""

from __future__ import annotations

__all__ = ["HookProblem", "UnsafePath"]


class HookProblem(Exception):
    """Why the hook did nothing (one line for the agent's log)."""


class UnsafePath(HookProblem):
    """A path the hooks will not write through or read (see :mod:`.files`)."""
