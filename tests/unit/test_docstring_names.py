"""Every name a docstring points at resolves: each ``:mod:``, ``:func:``, ``:class:``,
``:meth:``, ``:data:``, ``:attr:``, ``:exc:`` and ``:obj:`` reference of every module,
class and function of the package, and every ``memstream.…`` name in double
backticks. A module moved or a function renamed leaves no docstring naming the old
place."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from collections.abc import Iterator
from functools import cache
from types import ModuleType
from typing import Any

import memstream

ROLE = re.compile(r":(?:mod|func|class|meth|data|attr|exc|obj):`~?([^`<>]+?)`")
TICKED = re.compile(r"``(memstream\.[A-Za-z_][\w.]*)``")
#: ``memstream.…`` names that are not Python objects: the audit log's logger.
NOT_OBJECTS = {"memstream.audit"}


@cache
def _modules() -> dict[str, ModuleType]:
    found = {"memstream": memstream}
    for info in pkgutil.walk_packages(memstream.__path__, "memstream."):
        found[info.name] = importlib.import_module(info.name)
    return found


def _has(obj: Any, name: str) -> bool:
    """Whether ``obj`` has ``name``: an attribute, or a field a dataclass or a pydantic
    model declares (which the class itself may not carry)."""
    if hasattr(obj, name):
        return True
    fields = getattr(obj, "__dataclass_fields__", None) or getattr(obj, "model_fields", None)
    return (bool(fields) and name in fields) or name in getattr(obj, "__annotations__", {})


def _walk(obj: Any, parts: list[str]) -> bool:
    for part in parts:
        if not _has(obj, part):
            return False
        obj = getattr(obj, part, None)
    return True


def _absolute(name: str) -> bool:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        module = _modules().get(".".join(parts[:cut]))
        if module is not None:
            return _walk(module, parts[cut:])
    return False


def _defined_anywhere(head: str) -> list[Any]:
    """The package's own objects named ``head`` (a class or function defined in one of
    its modules)."""
    return [
        getattr(m, head)
        for name, m in _modules().items()
        if getattr(getattr(m, head, None), "__module__", None) == name
    ]


def resolves(name: str, module: str) -> bool:
    """Whether ``name``, as written in a docstring of ``module``, names something."""
    if name.startswith("memstream"):
        return _absolute(name)
    here = _modules()[module]
    package = module if hasattr(here, "__path__") else module.rsplit(".", 1)[0]
    if name.startswith("."):
        base, rest = package, name[1:]
        while rest.startswith("."):
            base, rest = base.rsplit(".", 1)[0], rest[1:]
        return _absolute(f"{base}.{rest}")
    parts = name.split(".")
    if _walk(here, parts) or _absolute(f"{package}.{name}") or _absolute(f"memstream.{name}"):
        return True
    classes = [c for c in vars(here).values() if isinstance(c, type)]
    if any(_walk(c, parts) for c in classes):  # a method or field of a class here
        return True
    return any(_walk(obj, parts[1:]) for obj in _defined_anywhere(parts[0]))


def _docstrings(module: ModuleType) -> Iterator[str]:
    with open(module.__file__ or "", encoding="utf-8") as source:
        tree = ast.parse(source.read())
    yield ast.get_docstring(tree) or ""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield ast.get_docstring(node) or ""


def test_every_name_a_docstring_points_at_resolves() -> None:
    unresolved = [
        f"{name}: {found}"
        for name, module in sorted(_modules().items())
        for doc in _docstrings(module)
        for found in [*ROLE.findall(doc), *TICKED.findall(doc)]
        if found.strip() not in NOT_OBJECTS and not resolves(found.strip(), name)
    ]
    assert unresolved == []


def test_the_check_finds_a_name_that_is_gone() -> None:
    assert resolves("memstream.storage.errors.MemstreamError", "memstream.storage")
    assert resolves(".relevance", "memstream.queries.context.gathering")
    assert resolves("DocumentCases.add", "memstream.http.document_routes")
    assert resolves("JobResult.failed", "memstream.jobs.lifecycle")  # a dataclass field
    assert not resolves("memstream.observability.exposition", "memstream.observability")
    assert not resolves("streams.components.lifecycle_policy", "memstream.policies.lifecycle")
    assert not resolves("DocumentCases.no_such_thing", "memstream.http.document_routes")
