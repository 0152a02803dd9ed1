"""The installed package adds one top-level name, ``memstream``, and its Python client
works in an environment that holds nothing but the client's own dependencies: an agent
app with a ``models`` or ``storage`` package of its own can install memstream beside it.

The wheel is built from this checkout, installed into an empty virtual environment with
httpx (and what httpx needs) from the package index, and asked."""

from __future__ import annotations

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


def test_the_wheel_installs_only_memstream_and_its_client_works_alone(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", dist, ROOT)
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
