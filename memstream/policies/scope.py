"""The scope rule, as a LanceDB filter built from validated values.

A read sees the user's own memories that belong to no project, plus, when a project is
given, that project's memories of the same user; never another user's, and never a
soft-deleted row. Values are validated identifiers and rendered as quoted literals.
"""

from __future__ import annotations

import re

from memstream.events.errors import InvalidQuery
from memstream.events.identifier_rules import IDENTIFIER_RULE, TAG_PATTERN, TAG_RULE, is_identifier
from memstream.storage import filters

__all__ = [
    "is_identifier",
    "owner_view_filter",
    "plain_text",
    "scope_filter",
    "valid_identifier",
    "valid_path_identifier",
    "valid_tag",
]

#: The identifier and tag rules of the event models (the worker's too), for values that
#: arrive outside an event (a query's user, a path parameter).
_TAG = re.compile(TAG_PATTERN, re.ASCII)


def valid_identifier(name: str, value: str) -> str:
    """``value`` if it is a valid identifier, else InvalidQuery naming ``name``."""
    if not is_identifier(value):
        raise InvalidQuery(f"{name}: {IDENTIFIER_RULE}")
    return value


def valid_path_identifier(name: str, value: str) -> str:
    """``value`` if it is a valid identifier none of whose ``/``-separated segments is
    ``.`` or ``..`` (a name that goes into a URL path: clients that normalise paths
    could never reach it), else InvalidQuery naming ``name``."""
    valid_identifier(name, value)
    if any(segment in (".", "..") for segment in value.split("/")):
        raise InvalidQuery(f"{name}: must not have a '.' or '..' segment between slashes")
    return value


def valid_tag(name: str, value: str) -> str:
    """``value`` if it is a valid tag, else InvalidQuery naming ``name``."""
    if not _TAG.fullmatch(value):
        raise InvalidQuery(f"{name}: {TAG_RULE}")
    return value


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def plain_text(name: str, value: str) -> str:
    """``value`` if it holds no control character (NUL, newline, ...), else InvalidQuery
    naming ``name``."""
    if _CONTROL.search(value):
        raise InvalidQuery(f"{name}: must not contain control characters (NUL, newlines, ...)")
    return value


def scope_filter(
    user_id: str, project_id: str | None = None, *, include_deleted: bool = False
) -> str:
    """The filter every read of a user's rows is restricted by: the user, and the
    project (rows of no project, or of this one). On ``memories`` it also leaves out
    what is no longer valid, unless ``include_deleted`` (which tables without the
    lifecycle columns, ``vectors`` and the archive index, always give)."""
    user = filters.equals("user_id", valid_identifier("user_id", user_id))
    if project_id is None:
        project = filters.is_null("project_id")
    else:
        project = filters.any_of(
            filters.is_null("project_id"),
            filters.equals("project_id", valid_identifier("project_id", project_id)),
        )
    alive = "" if include_deleted else filters.is_null("valid_until")
    return filters.all_of(user, project, alive)


def owner_view_filter(user_id: str, project_id: str | None = None) -> str:
    """The filter of the views a user's owner pages through (a list of memories, an
    entity's profile): with a project, :func:`scope_filter`'s rule (the user's memories
    of no project, and that project's: never another project's); without one, every
    memory of the user, of any project (as an export holds them). Soft-deleted rows
    are not left out here: the views show them as history."""
    if project_id is None:
        return filters.equals("user_id", valid_identifier("user_id", user_id))
    return scope_filter(user_id, project_id, include_deleted=True)
