"""Every name a docstring points at exists: a ``:mod:``, ``:func:``, ``:class:``,
``:meth:``, ``:attr:``, ``:data:`` or ``:exc:`` reference (absolute, relative to the
module's package, a name of the module, or ``Class.member`` of any class of the package)
and every ``memstream.…`` dotted name. A module moved or a function renamed fails here,
not in a reader's search."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "memstream"

_ROLE = re.compile(r":(?:mod|func|class|data|meth|attr|exc|obj):`~?([^`]+)`")
_DOTTED = re.compile(r"(?<![\w.`/])(memstream(?:\.[A-Za-z_]\w*)+)")
_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
#: Dotted words that name files or loggers, not modules.
_NOT_MODULES = {"memstream.mdc", "memstream.audit"}


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _has(owner: object, name: str) -> bool:
    """``owner.name`` exists, as an attribute, an annotated field or a dataclass field."""
    if hasattr(owner, name):
        return True
    if inspect.isclass(owner):
        if dataclasses.is_dataclass(owner) and name in {f.name for f in dataclasses.fields(owner)}:
            return True
        return any(name in getattr(k, "__annotations__", {}) for k in owner.__mro__)
    return False


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not _has(found, name):
                return False
            found = getattr(found, name, None)
        return True
    return False


def _classes() -> dict[str, list[type]]:
    """Every class defined in the package, by name."""
    found: dict[str, list[type]] = {}
    for path in PACKAGE.rglob("*.py"):
        module = importlib.import_module(_module_name(path))
        for name, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == module.__name__:
                found.setdefault(name, []).append(value)
    return found


def _reference_resolves(ref: str, module: ModuleType, classes: dict[str, list[type]]) -> bool:
    if ref.startswith("."):
        dots = len(ref) - len(ref.lstrip("."))
        package = (
            module.__name__ if hasattr(module, "__path__") else module.__name__.rpartition(".")[0]
        )
        base = package.split(".")[: len(package.split(".")) - (dots - 1)]
        return _resolves(".".join([*base, ref.lstrip(".")]))
    if ref.startswith("memstream"):
        return _resolves(ref)
    if _resolves(f"{module.__name__}.{ref}") or _resolves(ref):
        return True
    head, _, rest = ref.partition(".")
    owners = classes.get(head, [])
    if rest:  # Class.member, the class anywhere in the package
        return any(_has(owner, rest.split(".")[0]) for owner in owners)
    if owners:  # a class of the package, by its name
        return True
    # a member of a class of this module, named from that class's docstrings
    return any(_has(value, head) for value in vars(module).values() if inspect.isclass(value))


def test_every_name_a_docstring_points_at_exists() -> None:
    classes = _classes()
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = importlib.import_module(_module_name(path))
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(
                node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
            ):
                continue
            doc = ast.get_docstring(node)
            if not doc:
                continue
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 1)}"
            for ref in _ROLE.findall(doc):
                if not _reference_resolves(ref.strip().removesuffix("()"), module, classes):
                    missing.append(f"{where} {ref}")
            for dotted in _DOTTED.findall(doc):
                name = dotted.rstrip(".")
                if name not in _NOT_MODULES and not _resolves(name):
                    missing.append(f"{where} {name}")
    assert missing == [], "\n".join(missing)
