"""The installed package adds one top-level name, ``memstream``, and its Python client
works in an environment that holds nothing but the client's own dependencies: an agent
app with a ``models`` or ``storage`` package of its own can install memstream beside it.
And the install lines the docs give work as written, from what ``make dist`` builds.

``make dist`` builds the wheel and the TypeScript client's tarball from this checkout;
the wheel is installed into an empty virtual environment with httpx (and what httpx
needs) from the package index, and asked; the docs' lines are run in a fresh virtual
environment and a fresh Node project."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def _run(*command: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(c) for c in command], capture_output=True, text=True, timeout=300, cwd=cwd
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What ``make dist`` builds (the wheel and the npm tarball), in a folder of its own."""
    folder = tmp_path_factory.mktemp("dist")
    _run("make", "--no-print-directory", "dist", f"DIST={folder}", cwd=ROOT)
    return folder


def _install_lines(document: str, tool: str) -> list[str]:
    """The install lines of ``tool`` (``pip``, ``npm``) a page of the docs gives."""
    return re.findall(rf"`({tool} install [^`]+)`", (ROOT / "docs" / document).read_text())


def test_the_docs_install_lines_work_in_a_fresh_environment_and_node_project(
    dist: Path, tmp_path: Path
) -> None:
    """Each ``pip install`` and ``npm install`` line of docs/integrations.md, run as
    written with the path of this clone's ``make dist`` in place of /path/to/memstream
    (pip's lines through uv's pip, as ``make`` installs: the same resolution from the
    same index, without the minutes of pip's downloads), and the adapters and the
    client they install imported and asked."""
    here = {"/path/to/memstream/dist": str(dist)}
    pip_lines = _install_lines("integrations.md", "pip")
    npm_lines = _install_lines("integrations.md", "npm")
    assert len(pip_lines) >= 2 and len(npm_lines) >= 1, (pip_lines, npm_lines)
    venv = tmp_path / "app"
    _run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    uv = Path(sys.executable).with_name("uv")
    assert uv.exists(), "make installs uv into the virtual environment"
    for line in pip_lines:
        if "/path/to/memstream" not in line:
            continue  # `pip install -e '.[langgraph]'`: the clone's own (make does that)
        words = [_given(word, here) for word in line.split()[2:]]
        _run(uv, "pip", "install", "--quiet", "--python", python, *words)
    said = _run(
        python,
        "-c",
        "from memstream.integrations.langgraph import MemstreamStore\n"
        "from memstream.integrations.openai_agents import MemstreamSession\n"
        "import langgraph, agents\n"
        "print(MemstreamStore.__name__, MemstreamSession.__name__)",
    )
    assert said.split() == ["MemstreamStore", "MemstreamSession"]

    node = shutil.which("node")
    assert node is not None, "Node is installed where the tests run"
    app = tmp_path / "node-app"
    app.mkdir()
    (app / "package.json").write_text(json.dumps({"name": "app", "type": "module"}))
    for line in npm_lines:
        words = [_given(word, here) for word in line.split()[2:]]
        _run("npm", "install", "--no-audit", "--no-fund", "--prefer-offline", *words, cwd=app)
    (app / "check.mjs").write_text(
        'import { MemstreamClient, MemstreamUnreachable } from "@memstream/client";\n'
        'const memory = new MemstreamClient({ url: "http://127.0.0.1:9" });\n'
        "try { await memory.stats(); } catch (e) {\n"
        "  console.log(e instanceof MemstreamUnreachable ? 'unreachable' : String(e)); }\n"
    )
    assert _run(node, "check.mjs", cwd=app).strip() == "unreachable"


def _given(word: str, paths: dict[str, str]) -> str:
    """A word of a docs' line with its placeholder path replaced and its quotes taken off
    (as the shell would)."""
    for placeholder, path in paths.items():
        word = word.replace(placeholder, path)
    return word.strip("'\"")


def test_the_wheel_installs_only_memstream_and_its_client_works_alone(
    dist: Path, tmp_path: Path
) -> None:
    (wheel,) = dist.glob("memstream-*.whl")
    # the name the docs' install lines give is the one `pip wheel` (and `make dist`) makes
    assert f"dist/{wheel.name}[langgraph]" in (ROOT / "docs" / "integrations.md").read_text()
    with zipfile.ZipFile(wheel) as built:
        names = built.namelist()
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top == {"memstream"}, top
    for room in ("streams", "projections", "storage", "adapters", "queries", "events", "text"):
        assert f"memstream/{room}/__init__.py" in names, room
    assert "memstream/adapters/data/minilm-tokenizer.json" in names
    assert "memstream/py.typed" in names  # PEP 561: type checkers read the client's types
    assert "memstream/text/data/place_names.txt" in names
    assert not [name for name in names if name.startswith(("streams/", "projections/"))]

    venv = tmp_path / "app"
    _run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", wheel)
    _run(python, "-m", "pip", "install", "--quiet", "httpx")
    app = tmp_path / "agent-app"
    (app / "models").mkdir(parents=True)  # the app's own `models` package
    (app / "models" / "__init__.py").write_text("OWN = True\n")
    said = _run(
        python,
        "-c",
        "import models; from memstream import MemoryClient, MemstreamUnreachable\n"
        "assert models.OWN\n"
        "client = MemoryClient('http://127.0.0.1:9')\n"
        "try:\n"
        "    client.stats()\n"
        "except MemstreamUnreachable as exc:\n"
        "    print(exc)\n",
        cwd=app,
    )
    assert said.startswith("cannot reach memstream at http://127.0.0.1:9")
    site = Path(
        _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    )
    added = {p.name for p in site.iterdir()} - {p.name for p in site.iterdir() if "httpx" in p.name}
    assert not {"streams", "projections", "storage", "models", "queries"} & added
    # a type checker in the app's environment reads the client's types (py.typed)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--python-executable", str(python), "--no-incremental",
         "-c", "from memstream import MemoryClient\nwrong: int = MemoryClient('http://x')\n"],
        capture_output=True, text=True, timeout=300, cwd=app,
    )  # fmt: skip
    assert "[assignment]" in checked.stdout and "import-untyped" not in checked.stdout, (
        checked.stdout
    )
