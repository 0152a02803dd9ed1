"""The configuration an MCP client (Claude Desktop, Claude Code, Cursor) needs to start
``memstream mcp`` over stdio: the executable's absolute path (those clients do not run
it from a shell with the virtual environment on ``PATH``) and the settings in use that
differ from the defaults. ``memstream mcp --print-config`` prints it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from memstream.settings import Settings

__all__ = ["client_config", "memstream_command"]


def memstream_command() -> list[str]:
    """How to start this memstream: its script beside this interpreter, else the
    interpreter with ``-m memstream``; absolute paths either way."""
    script = Path(sys.executable).parent / "memstream"
    if script.is_file():
        return [str(script.absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "memstream"]


def client_config(
    settings: Settings, user: str, project: str | None, command: list[str]
) -> tuple[dict[str, Any], list[str]]:
    """The ``mcpServers`` document that starts ``command mcp --user USER`` with the
    settings of ``settings`` that are not the defaults (the data folder always, as an
    absolute path), and the names of secret settings left out (they are the reader's
    to add: a printed configuration is no place for them)."""
    env: dict[str, str] = {}
    secrets = []
    for name, field in Settings.model_fields.items():
        value = getattr(settings, name)
        variable = f"MEMSTREAM_{name.upper()}"
        if name == "data":
            env[variable] = value if value.startswith("s3://") else str(Path(value).absolute())
        elif value == field.get_default(call_default_factory=True):
            continue
        elif isinstance(value, SecretStr):
            secrets.append(variable)
        else:
            env[variable] = _text(value)
    args = [*command[1:], "mcp", "--user", user]
    if project:
        args += ["--project", project]
    server = {"command": command[0], "args": args, "env": env}
    return {"mcpServers": {"memstream": server}}, secrets


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple | dict):
        import json

        return json.dumps(value)
    return str(value)
