"""The code's layout keeps its promises: every module at the path its import name says and
importable under that one name, imports pointing down the layers, the pure rooms free of
I/O, and every module saying what it exports.

The rooms of ``memstream``, from the front doors down (a module may import its own tier
and the tiers below; docs/architecture.md draws them):

    cli http mcp hooks console integrations front doors; frameworks' adapters
    gate                                    what the HTTP doors share: the guard
    application portability tenancy client  use cases, the façade every door calls
    runtime                                 processes: the worker, the faust app, wiring
    jobs                                    lifecycle, archive, replay, the lanes' work
    streams queries                         the Kafka runtime; the read side
    adapters observability                  models and parsers; metrics, traces, logs
    settings                                one frozen settings object
    projections policies text               pure: folds, policies, language rules
    events clock                            the event vocabulary; time
    storage                                 rows and bytes, knowing nothing of events
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import memstream

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "memstream"
#: Each room of ``memstream`` (a subpackage, or a module of the package itself) by tier.
TIERS: dict[str, int] = {
    "storage": 0,
    "events": 1,
    "clock": 1,
    "model_building": 1,
    "projections": 2,
    "policies": 2,
    "text": 2,
    "settings": 3,
    "setting_names": 3,
    "adapters": 4,
    "observability": 4,
    "streams": 5,
    "queries": 5,
    "jobs": 6,
    "runtime": 7,
    "application": 8,
    "portability": 8,
    "tenancy": 8,
    "client": 8,
    "server_address": 8,
    "gate": 9,
    "cli": 9,
    "http": 9,
    "mcp": 9,
    "hooks": 9,
    "console": 9,
    "integrations": 9,
    "__main__": 9,
    "testing": 9,
    "settings_reference": 9,
}
#: The rooms that are pure: no I/O, time passed in.
PURE = ["events", "clock", "projections", "policies", "text"]
#: What pure code must not load, even indirectly.
IMPURE = ["lancedb", "fastapi", "uvicorn", "onnxruntime", "openai", "anthropic", "aiokafka"]
#: The folders at the root that name rooms of the package and must not import.
SIGNPOSTS = ["streams", "projections", "storage"]
#: Modules allowed past 600 lines: the event vocabulary (one model per event).
LONG_ALLOWED = {"memstream.events.vocabulary"}


def _all_modules() -> list[str]:
    found = ["memstream"]
    found += [info.name for info in pkgutil.walk_packages([str(PACKAGE)], prefix="memstream.")]
    return found


ALL_MODULES = _all_modules()


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _tier(module: str) -> int:
    return 9 if module == "memstream" else TIERS[_room(module)]


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


def test_every_room_has_a_tier() -> None:
    rooms = {_room(m) for m in ALL_MODULES if m != "memstream"}
    assert rooms <= set(TIERS), f"rooms without a tier: {sorted(rooms - set(TIERS))}"


@pytest.mark.parametrize("module", ALL_MODULES)
def test_imports_point_down_the_tiers(module: str) -> None:
    ours = {n for n in _imported(module) if n.split(".")[0] == "memstream" and n != "memstream"}
    upward = sorted(n for n in ours if _tier(n) > _tier(module))
    assert not upward, f"{module} (tier {_tier(module)}) imports {upward} from above"


@pytest.mark.parametrize("module", [m for m in ALL_MODULES if _room(m) == "storage"])
def test_storage_knows_rows_not_events(module: str) -> None:
    ours = {n for n in _imported(module) if n.startswith("memstream.")}
    assert {_room(n) for n in ours} <= {"storage"}, f"{module} imports {sorted(ours)}"


@pytest.mark.parametrize("module", [m for m in ALL_MODULES if _room(m) in PURE])
def test_pure_rooms_import_nothing_that_does_io(module: str) -> None:
    roots = {name.split(".")[0] for name in _imported(module)}
    assert not roots & set(IMPURE), f"{module} imports {sorted(roots & set(IMPURE))}"


def test_importing_every_pure_module_loads_nothing_that_does_io() -> None:
    pure = [m for m in ALL_MODULES if _room(m) in PURE]
    script = (
        "import importlib, json, sys\n"
        f"for name in {pure!r}: importlib.import_module(name)\n"
        f"print(json.dumps(sorted(m for m in {IMPURE!r} if m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert json.loads(done.stdout) == []


def test_a_command_a_server_answers_loads_neither_models_nor_settings() -> None:
    """``memstream search`` and ``publish`` through a running server load the parser,
    httpx and the client alone (0.12 s of CPU, bench/cli.py): no pydantic, no settings,
    no event model, no OpenTelemetry; ``--version`` loads not even httpx."""
    script = (
        "import json, sys\n"
        "sys.modules['httpx._main'] = None\n"
        "from memstream.cli import commands, reading, writing, backends, shared, render\n"
        "import memstream.client\n"
        "heavy = ['pydantic', 'memstream.settings', 'memstream.events.vocabulary',\n"
        "         'opentelemetry', 'lancedb', 'numpy']\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert json.loads(done.stdout) == []


def test_only_the_front_doors_import_the_front_doors() -> None:
    doors = (
        "memstream.cli.",
        "memstream.http.",
        "memstream.mcp.",
        "memstream.hooks.",
        "memstream.console.",
    )
    for module in ALL_MODULES:
        if f"{module}.".startswith(doors) or module in ("memstream.__main__", "memstream.testing"):
            continue
        wrong = {n for n in _imported(module) if f"{n}.".startswith(doors)}
        assert not wrong, f"{module} imports the front door {sorted(wrong)}"


def _runtime_imports(module: str) -> set[str]:
    """The modules of memstream ``module`` imports when it runs (anywhere in its source,
    functions included; not under ``if TYPE_CHECKING:``), ``from package import module``
    naming the module."""
    known = set(ALL_MODULES)
    tree = ast.parse(_source(module).read_text())
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name in known and name != module}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of ``graph`` with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_rooms_and_no_modules_import_each_other_round_a_loop() -> None:
    """A room (or module) that imports another which imports it back, directly or
    through others, is one thing in two places: what both need belongs below both."""
    modules = {module: _runtime_imports(module) for module in ALL_MODULES}
    packages = {module: {m for m in modules if m.startswith(f"{module}.")} for module in modules}
    # a package's own modules are not a cycle with it: the package lists them
    graph = {module: found - packages[module] for module, found in modules.items()}
    assert _cycles(graph) == []
    rooms: dict[str, set[str]] = {}
    for module, found in graph.items():
        rooms.setdefault(_room(module), set()).update(
            _room(other) for other in found if _room(other) != _room(module)
        )
    assert _cycles(rooms) == []


def test_the_cycle_check_finds_a_loop() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("module", ALL_MODULES)
def test_every_module_is_at_the_path_its_name_says(module: str) -> None:
    loaded = importlib.import_module(module)
    assert loaded.__file__ is not None
    assert Path(loaded.__file__) == _source(module), f"{module} loads from {loaded.__file__}"


def test_no_module_is_reachable_through_a_link() -> None:
    """Git keeps no symbolic link (a link to a folder of code is a second name for it,
    and Git for Windows checks it out as a text file)."""
    staged = subprocess.run(
        ["git", "ls-files", "-s"], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout.splitlines()
    links = [line.split("\t")[1] for line in staged if line.startswith("120000")]
    assert links == []
    assert not [p for p in PACKAGE.rglob("*") if p.is_symlink()]


def test_the_only_code_on_the_import_path_is_the_package() -> None:
    """From the root of the repository (on ``sys.path`` in an editable install, and as the
    working folder of ``python -m``), every folder holding Python code is ``memstream``,
    the signposts (which refuse to import), or the tests' and benchmarks' own scripts."""
    code = {p.parts[0] for p in (q.relative_to(ROOT) for q in ROOT.glob("*/**/*.py"))}
    code -= {".venv", "build", "dist", "memstream-data", ".git"}
    assert code <= {"memstream", "tests", "bench", "deploy", *SIGNPOSTS}, code
    assert not list(ROOT.glob("*.py")), "a module at the root would import as a second name"


@pytest.mark.parametrize("folder", ["root", "elsewhere"])
@pytest.mark.parametrize("name", [*SIGNPOSTS, "models", "queries"])
def test_the_rooms_import_only_under_memstream(name: str, folder: str, tmp_path: Path) -> None:
    cwd = ROOT if folder == "root" else tmp_path
    done = subprocess.run(
        [sys.executable, "-c", f"import {name}"], capture_output=True, text=True, cwd=cwd
    )
    assert done.returncode != 0
    assert "ImportError" in done.stderr or "ModuleNotFoundError" in done.stderr
    if name in SIGNPOSTS:  # the root is on the path of an editable install
        assert f"import memstream.{name}" in done.stderr
    else:
        assert f"No module named '{name}'" in done.stderr


def test_one_module_object_per_file() -> None:
    """Importing every module leaves one entry in ``sys.modules`` per source file."""
    script = (
        "import importlib, json, sys\n"
        f"for name in {ALL_MODULES!r}: importlib.import_module(name)\n"
        "files = [m.__file__ for m in list(sys.modules.values())\n"
        "         if getattr(m, '__file__', None) and '/memstream/' in m.__file__]\n"
        "print(json.dumps(files))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
    )
    files = [f for f in json.loads(done.stdout) if f.startswith(str(PACKAGE))]
    assert len(files) == len(set(files)) == len(ALL_MODULES)


#: The most public methods (and properties) one class may have, its bases' included: a
#: class past it does several jobs, and is parts composed, not one object.
MAX_PUBLIC_METHODS = 30

#: Counts, for every class the package defines, the public methods and properties it
#: and its bases within the package define (run in a subprocess: it imports everything).
_COUNT_METHODS = """
import importlib, inspect, json, sys
def public_methods(cls):
    names = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith(("memstream", "__main__")):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_"):
                continue
            if inspect.isfunction(value) or isinstance(
                value, (property, classmethod, staticmethod)
            ) or type(value).__name__ == "cached_property":
                names.add(name)
    return names
if sys.argv[1:] == ["--probe"]:
    class Wide:
        pass
    for i in range(31):
        setattr(Wide, f"use_{i}", lambda self: None)
    print(json.dumps({"Wide": len(public_methods(Wide))}))
    raise SystemExit
counts = {}
for module in json.loads(sys.stdin.read()):
    for name, value in vars(importlib.import_module(module)).items():
        if inspect.isclass(value) and value.__module__ == module:
            counts[f"{module}.{name}"] = len(public_methods(value))
print(json.dumps(counts))
"""


def _public_methods(*args: str) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, "-c", _COUNT_METHODS, *args],
        input=json.dumps(ALL_MODULES),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    counts: dict[str, int] = json.loads(done.stdout)
    return counts


def test_no_class_has_more_than_30_public_methods() -> None:
    counts = _public_methods()
    assert "memstream.application.operations.Operations" in counts  # the count saw it
    wide = {name: n for name, n in counts.items() if n > MAX_PUBLIC_METHODS}
    assert wide == {}, "compose these of parts, each with the state it needs"


def test_the_method_count_finds_a_wide_class() -> None:
    assert _public_methods("--probe") == {"Wide": 31}


@pytest.mark.parametrize("module", ALL_MODULES)
def test_no_module_grows_past_600_lines(module: str) -> None:
    lines = len(_source(module).read_text().splitlines())
    assert module in LONG_ALLOWED or lines <= 600, f"{module} has {lines} lines"


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
    if is_package:  # a package names its modules, or lifts names out of them
        missing = _submodules(module) - set(exported)
        assert not missing or set(exported) - _submodules(module), (
            f"{module}.__all__ misses {sorted(missing)}"
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


def test_the_package_is_what_python_reports() -> None:
    assert Path(memstream.__file__).parent == PACKAGE


TESTS = ROOT / "tests"


def test_the_tests_mirror_the_kinds_of_test() -> None:
    """Unit tests (one process, no broker), contract tests (a storage port on a local
    folder and on S3, or several processes on one store) and end-to-end tests (a broker,
    workers, the command line); what they share is in ``support/``, apart from fixtures."""
    loose = sorted(p.name for p in TESTS.glob("*.py") if p.name != "conftest.py")
    assert loose == [], f"tests outside their folder: {loose}"
    rooms = {p.parent.name for p in TESTS.rglob("test_*.py")}
    assert rooms == {"unit", "contract", "e2e"}, rooms
    assert not list((TESTS / "support").glob("test_*.py"))


@pytest.mark.parametrize(
    "path", sorted(TESTS.rglob("test_*.py")), ids=lambda p: str(p.relative_to(TESTS))
)
def test_no_test_file_imports_another(path: Path) -> None:
    tree = ast.parse(path.read_text())
    named: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            named.add(node.module)
    for node in ast.walk(tree):  # scripts a test runs in a subprocess
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            named.update(re.findall(r"(?m)^\s*(?:from|import) ([\w.]+)", node.value))
    others = sorted(
        n for n in named if n.split(".")[-1].startswith(("test_", "conftest")) or n == "tests"
    )
    assert not others, f"{path.name} imports {others}"
