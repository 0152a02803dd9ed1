"""``memstream hook install HOST``: memstream's hooks merged into a coding agent's
settings file, never clobbering what is there.

The settings are the host's file under the home folder (every project: ``~/.claude/
settings.json``, ``~/.codex/hooks.json``, ``~/.gemini/settings.json``,
``~/.cursor/hooks.json``), or with ``--project DIR`` the same path under ``DIR``. Each
hook point gets one entry that runs ``memstream hook ...``; an entry memstream wrote
before is replaced (installing twice changes nothing), every other entry and setting is
kept as it was, and a file that is not a JSON object is refused rather than rewritten.
The file is replaced whole, so an interrupted install leaves the old one.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memstream.hooks.errors import HookProblem, UnsafePath
from memstream.hooks.files import inside, write_file
from memstream.hooks.hosts import DEFAULT_HOST, HOSTS, Act, Host, Shape

__all__ = ["install_hooks", "merged_settings"]

#: What marks a hook entry as memstream's.
_MARK = " hook "
_INJECTING = {Act.INJECT_START, Act.INJECT_PROMPT, Act.WRITE_RULES}


def _entry(host: Host, event: str, line: str) -> dict[str, Any]:
    """The settings entry running ``line`` at ``event``, in the host's shape."""
    if host.shape is Shape.FLAT:
        return {"command": line}
    hook: dict[str, Any] = {"type": "command", "command": line}
    if host.timeouts is not None:
        injecting = bool(_INJECTING & set(host.events[event]))
        hook["timeout"] = host.timeouts[0] if injecting else host.timeouts[1]
    if host.named_hooks:
        hook["name"] = f"memstream-{event}"
    return {"hooks": [hook]}


def merged_settings(
    existing: dict[str, Any],
    command: Sequence[str],
    options: Sequence[str],
    host: Host = HOSTS[DEFAULT_HOST],
) -> tuple[dict[str, Any], list[str]]:
    """``existing`` settings with memstream's hooks in, and the hook points changed."""
    settings = dict(existing)
    if host.shape is Shape.FLAT:
        settings.setdefault("version", 1)
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HookProblem("its 'hooks' is not a JSON object: fix it by hand first")
    hooks = dict(hooks)
    changed = []
    by_name = {event: name for name, event in host.aliases.items()}
    for event in host.events:
        chosen = ["--host", host.name] if host.name != DEFAULT_HOST else []
        words = [*command, "hook", *chosen, by_name.get(event, event), *options]
        ours = _entry(host, event, shlex.join(words))
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
    for hook in entry.get("hooks") or [entry]:
        line = hook.get("command") if isinstance(hook, dict) else None
        if isinstance(line, str) and (
            line.startswith(shlex.join(command) + _MARK) or line.startswith("memstream" + _MARK)
        ):
            return True
    return False


def install_hooks(
    host: Host, project: Path | None, command: Sequence[str], options: Sequence[str]
) -> str:
    """Merge the hooks into the host's settings file; what was done, in a line or two."""
    root = project.expanduser().resolve() if project else Path.home().resolve()
    path = root / host.settings
    # a project is anyone's clone: no link in it is followed. The home folder is the
    # user's own: a settings file linked into a dotfiles checkout there is written through
    # (the link stays), a link to outside it is not
    if project is None and path.is_symlink():
        if not inside(path, root):
            raise UnsafePath(f"{path} is a link to outside {root}: left as it is")
        path = path.resolve()
    existing: dict[str, Any] = {}
    if path.is_symlink():
        raise UnsafePath(f"{path} is a link: left as it is")
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
        settings, changed = merged_settings(existing, command, options, host)
    except HookProblem as exc:
        raise HookProblem(f"{path}: {exc}") from None
    if not changed:
        return f"{path}: memstream's hooks are installed already; nothing changed"
    write_file(root, path, json.dumps(settings, indent=2) + "\n")
    kept = sorted(set(existing) - {"hooks"})
    others = f"; kept {', '.join(kept)}" if kept else ""
    return f"{path}: memstream hooks at {', '.join(changed)}{others}"
