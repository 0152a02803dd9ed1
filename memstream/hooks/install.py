"""``memstream hook install claude-code``: memstream's hooks merged into Claude Code's
settings file, never clobbering what is there.

The settings are ``~/.claude/settings.json`` (every project), or with ``--project DIR``
``DIR/.claude/settings.json``. Each hook point gets one entry that runs ``memstream hook
...``; an entry memstream wrote before is replaced (installing twice changes nothing),
every other entry and setting is kept as it was, and a file that is not a JSON object is
refused rather than rewritten. The file is replaced whole, so an interrupted install
leaves the old one.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memstream.hooks.runner import EVENTS, HookProblem

__all__ = ["install_claude_code", "merged_settings"]

#: Seconds Claude Code gives each hook (inject: a context block; capture: a publish).
_TIMEOUTS = {"SessionStart": 10, "UserPromptSubmit": 10}
_CAPTURE_TIMEOUT = 60
#: What marks a hook entry as memstream's.
_MARK = " hook "


def merged_settings(
    existing: dict[str, Any], command: Sequence[str], options: Sequence[str]
) -> tuple[dict[str, Any], list[str]]:
    """``existing`` settings with memstream's hooks in, and the hook points changed."""
    settings = dict(existing)
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HookProblem("its 'hooks' is not a JSON object: fix it by hand first")
    hooks = dict(hooks)
    changed = []
    for name, event in EVENTS.items():
        line = shlex.join([*command, "hook", name, *options])
        ours = {
            "hooks": [
                {
                    "type": "command",
                    "command": line,
                    "timeout": _TIMEOUTS.get(event, _CAPTURE_TIMEOUT),
                }
            ]
        }
        entries = hooks.get(event, [])
        if not isinstance(entries, list):
            raise HookProblem(f"its hooks.{event} is not a list: fix it by hand first")
        kept = [e for e in entries if not _is_ours(e, command)]
        if [*kept, ours] != entries:
            changed.append(event)
        hooks[event] = [*kept, ours]
    settings["hooks"] = hooks
    return settings, changed


def _is_ours(entry: Any, command: Sequence[str]) -> bool:
    if not isinstance(entry, dict):
        return False
    for hook in entry.get("hooks") or ():
        line = hook.get("command") if isinstance(hook, dict) else None
        if isinstance(line, str) and (
            line.startswith(shlex.join(command) + _MARK) or line.startswith("memstream" + _MARK)
        ):
            return True
    return False


def install_claude_code(
    project: Path | None, command: Sequence[str], options: Sequence[str]
) -> str:
    """Merge the hooks into the settings file; what was done, in a line or two."""
    folder = (project.expanduser().resolve() if project else Path.home()) / ".claude"
    path = folder / "settings.json"
    if path.is_symlink():  # written through: the link (a dotfiles checkout, say) stays
        path = path.resolve()
    existing: dict[str, Any] = {}
    if path.exists():
        try:
            existing = json.loads(path.read_text() or "{}")
        except (OSError, ValueError) as exc:
            raise HookProblem(f"{path} is not readable JSON ({exc}): left as it is") from None
        except RecursionError:
            raise HookProblem(f"{path} nests deeper than settings do: left as it is") from None
        if not isinstance(existing, dict):
            raise HookProblem(f"{path} is not a JSON object: left as it is")
    try:
        settings, changed = merged_settings(existing, command, options)
    except HookProblem as exc:
        raise HookProblem(f"{path}: {exc}") from None
    if not changed:
        return f"{path}: memstream's hooks are installed already; nothing changed"
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(settings, indent=2) + "\n")
    partial.replace(path)
    kept = sorted(set(existing) - {"hooks"})
    others = f"; kept {', '.join(kept)}" if kept else ""
    return f"{path}: memstream hooks at {', '.join(changed)}{others}"
