"""The code's layout keeps its promises: ``projections/`` is pure, imports point one way,
and every module says what it exports.

Layers, from the front doors down (a module may import its own layer and those below):

    memstream (front doors, operations) → streams, queries, models → projections → storage
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The layers, each a package under ``memstream`` (whose own modules are the front layer).
PACKAGES = ["memstream", "streams", "queries", "models", "projections", "storage"]
LOWER = PACKAGES[1:]
#: What pure code must not load, even indirectly.
IMPURE = ["lancedb", "fastapi", "uvicorn", "onnxruntime", "openai", "anthropic", "aiokafka"]
#: The packages each layer may import from.
ALLOWED = {
    "storage": {"storage"},
    "projections": {"projections", "storage"},
    "models": {"models", "projections", "storage"},
    "queries": {"queries", "models", "projections", "storage"},
    "streams": {"streams", "queries", "models", "projections", "storage"},
    "memstream": set(PACKAGES),
}


def _modules(package: str) -> list[str]:
    """The modules of a layer, by their installed names (``memstream.streams.x``); the
    front layer is ``memstream`` without the lower layers' packages."""
    folder = ROOT / package
    name = "memstream" if package == "memstream" else f"memstream.{package}"
    names = [name]
    for info in pkgutil.walk_packages([str(folder)], prefix=f"{name}."):
        if package == "memstream" and info.name.split(".")[1] in LOWER:
            continue
        names.append(info.name)
    return names


def _layer(module: str) -> str:
    """The layer of an installed module name: the package under ``memstream``."""
    parts = module.split(".")
    if parts[0] != "memstream":
        return parts[0]
    return parts[1] if len(parts) > 1 and parts[1] in LOWER else "memstream"


def _source(module: str) -> Path:
    path = ROOT / module.replace(".", "/")
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _imported(module: str) -> set[str]:
    """Every module named by an import statement anywhere in ``module``'s source."""
    tree = ast.parse(_source(module).read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _submodules(package: str) -> set[str]:
    """The public modules and packages directly inside ``package``."""
    folder = _source(package).parent
    inside = {p.stem for p in folder.glob("*.py")} | {
        p.name for p in folder.iterdir() if (p / "__init__.py").exists()
    }
    return {name for name in inside if not name.startswith("_")}


ALL_MODULES = [m for p in PACKAGES for m in _modules(p)]


@pytest.mark.parametrize("module", _modules("projections"))
def test_projections_import_nothing_that_does_io(module: str) -> None:
    roots = {name.split(".")[0] for name in _imported(module)}
    assert not roots & set(IMPURE), f"{module} imports {sorted(roots & set(IMPURE))}"


def test_importing_every_projection_loads_nothing_that_does_io() -> None:
    script = (
        "import importlib, json, sys\n"
        f"for name in {_modules('projections')!r}: importlib.import_module(name)\n"
        f"print(json.dumps(sorted(m for m in {IMPURE!r} if m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert json.loads(done.stdout) == []


@pytest.mark.parametrize("module", ALL_MODULES)
def test_imports_point_down_the_layers(module: str) -> None:
    layer = _layer(module)
    imported = _imported(module)
    ours = {_layer(name) for name in imported if name.split(".")[0] == "memstream"}
    assert ours <= ALLOWED[layer], f"{module} imports {sorted(ours - ALLOWED[layer])}"
    # only `memstream` is installed: no module names the layers as top-level packages
    bare = sorted(n for n in imported if n.split(".")[0] in LOWER)
    assert not bare, f"{module} imports {bare}: import memstream.{bare[0]}"


def test_only_the_front_doors_import_the_front_doors() -> None:
    doors = ("memstream.cli.", "memstream.http.", "memstream.mcp.", "memstream.hooks.")
    for module in ALL_MODULES:
        if f"{module}.".startswith(doors) or module in ("memstream.__main__", "memstream.testing"):
            continue
        wrong = {n for n in _imported(module) if f"{n}.".startswith(doors)}
        assert not wrong, f"{module} imports the front door {sorted(wrong)}"


@pytest.mark.parametrize("module", ALL_MODULES)
def test_every_module_states_its_public_names(module: str) -> None:
    """``__all__`` names exactly the module's public functions and classes (and nothing
    that is not there), so ``from x import *`` and the docs agree with the code."""
    loaded = importlib.import_module(module)
    exported = getattr(loaded, "__all__", None)
    assert exported is not None, f"{module} has no __all__"
    assert len(set(exported)) == len(exported), f"{module}.__all__ repeats a name"
    is_package = _source(module).name == "__init__.py"
    for name in exported:
        found = hasattr(loaded, name) or (is_package and name in _submodules(module))
        assert found, f"{module}.__all__ names {name!r}, which is not there"
    if _source(module).name == "__init__.py":  # a package: its modules, or what it lifts
        modules = {name.rsplit(".", 1)[1] for name in _modules(module)[1:] if "." in name}
        direct = {m.split(".")[0] for m in modules if not m.startswith("_")}
        if not direct <= set(exported):
            assert set(exported) - direct, (
                f"{module}.__all__ misses {sorted(direct - set(exported))}"
            )
    tree = ast.parse(_source(module).read_text())
    defined = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and not node.name.startswith("_")
    }
    missing = defined - set(exported)
    assert not missing, f"{module} defines public {sorted(missing)} missing from __all__"
