"""Commands for agents and access: ``mcp`` (memory tools over stdio, or the configuration
that starts them), ``hook`` (what a coding agent's hooks run) and ``keys`` (create, list
and revoke API keys)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from memstream.cli import render
from memstream.cli.shared import (
    Command,
    UsageError,
    show,
)
from memstream.settings import Settings

__all__ = ["hook_command", "keys_command", "mcp_command", "register"]


def keys_command(args: argparse.Namespace, settings: Settings) -> int:
    """The key store of the data folder, changed here (an operator's command)."""
    from memstream.tenancy.audit import AuditLog
    from memstream.tenancy.keys import KeyStoreError, key_store_of

    store, audit = key_store_of(settings), AuditLog(settings.log_dir)
    try:
        if args.action == "list":
            keys = [key.public() for key in store.records()]
            show(args, {"keys": keys}, render.keys_table)
        elif args.action == "revoke":
            revoked = store.revoke(args.key_id)
            audit.record(
                "key_revoke",
                key_id=None,
                tenant=revoked.tenant,
                detail={"revoked_key": revoked.key_id},
            )
            print(f"revoked {revoked.key_id} ({revoked.tenant}, {revoked.role})")
        else:
            return _create_key(args, store, audit)
    except KeyStoreError as exc:
        raise UsageError(str(exc)) from None
    return 0


def _create_key(args: argparse.Namespace, store: Any, audit: Any) -> int:
    existing = [
        k for k in store.records() if k.tenant == args.tenant and k.role == args.role and k.active
    ]
    if args.if_none and existing:
        print(f"{args.tenant} already has an active {args.role} key ({existing[0].key_id})")
        return 0
    record, token = store.create(args.tenant, args.role, args.name)
    audit.record(
        "key_create",
        key_id=None,
        tenant=record.tenant,
        detail={"created_key": record.key_id, "role": record.role},
    )
    if args.key_file:
        path = Path(args.key_file)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(token + "\n")
        print(f"created {record.key_id} ({record.tenant}, {record.role}); the key is in {path}")
    else:
        print(f"created {record.key_id} ({record.tenant}, {record.role}); the key, shown once:")
        print(token)
    return 0


def mcp_command(args: argparse.Namespace, settings: Settings) -> int:
    if args.print_config:
        return _print_mcp_config(args, settings)
    from memstream.application import Operations
    from memstream.mcp.scope import Scope
    from memstream.mcp.server import memory_server
    from memstream.streams.lifeline import die_with_parent

    die_with_parent(os.getppid())  # the agent that started it owns its life
    logging.basicConfig(level="WARNING", stream=sys.stderr)  # stdout is the protocol's
    # A long-lived reader: it must see what the worker writes after it opened the tables.
    operations = Operations(
        settings, read_consistency_seconds=settings.api_read_consistency_seconds
    )
    memory_server(operations, Scope(args.user, args.project)).run("stdio")
    return 0


def _print_mcp_config(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.mcp.config import client_config, memstream_command

    document, secrets = client_config(settings, args.user, args.project, memstream_command())
    print(json.dumps(document, indent=2))
    print(
        "Claude Desktop: merge it into claude_desktop_config.json; Cursor: into "
        "~/.cursor/mcp.json; Claude Code: into .mcp.json in the project",
        file=sys.stderr,
    )
    if secrets:
        print(f"add to env yourself (left out): {', '.join(secrets)}", file=sys.stderr)
    return 0


def hook_command(args: argparse.Namespace, settings: Settings) -> int:
    """Reached only through ``main`` here (``memstream`` itself hands ``hook`` to the
    hook runner before anything else loads)."""
    from memstream.hooks.runner import main as hook

    return hook([args.event, *args.options])


def register(command: Command) -> None:
    """Add this module's commands, with their flags, to the parser ``command`` builds."""
    p = command("mcp", mcp_command, "serve memory tools to an agent over MCP (stdio)")
    p.add_argument("--user", required=True, help="the user every tool acts for")
    p.add_argument("--project")
    p.add_argument(
        "--print-config",
        action="store_true",
        help="print the configuration that starts this server for Claude Desktop, Claude "
        "Code or Cursor, and exit",
    )

    p = command(
        "hook",
        hook_command,
        "what a coding agent's hooks run: context in at each prompt, the transcript's "
        "turns out at stop (memstream hook install claude-code writes the settings)",
    )
    p.add_argument("event", help="session-start, prompt, stop, pre-compact, session-end, install")
    p.add_argument("options", nargs=argparse.REMAINDER)

    p = command("keys", keys_command, "create, list and revoke API keys (the data folder's)")
    actions = p.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="a new key of a tenant (shown once)")
    create.add_argument("--tenant", required=True, help="owns the user ids TENANT:...")
    create.add_argument("--role", choices=("read", "write", "admin"), default="write")
    create.add_argument("--name", default="", help="what the key is for")
    create.add_argument(
        "--key-file", help="write the key to this file (mode 600) instead of printing it"
    )
    create.add_argument(
        "--if-none",
        action="store_true",
        help="create nothing when the tenant already has an active key of this role",
    )
    listing = actions.add_parser("list", help="the keys: id, tenant, role, created, revoked")
    listing.add_argument("--json", action="store_true")
    revoke = actions.add_parser("revoke", help="revoke a key: refused from the next request on")
    revoke.add_argument("key_id")
    for action in (create, listing, revoke):  # `keys create --data D` as well as `keys --data D`
        action.add_argument("--data", default=argparse.SUPPRESS, help="data folder")
