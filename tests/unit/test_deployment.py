"""The deployment files say what the code does: docker-compose.yml names real settings and
subcommands and runs the topology's parts as separate services; the Dockerfile builds
the installed package without the checkout's state."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from memstream.cli.commands import _parser
from memstream.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict[str, Any]:
    document = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(document, dict)
    return document


def _memstream_services() -> dict[str, dict[str, Any]]:
    return {
        name: service
        for name, service in _compose()["services"].items()
        if service.get("command", [None])[0] == "memstream"
    }


def test_every_memstream_variable_is_a_setting() -> None:
    fields = {name.upper() for name in Settings.model_fields}
    named = set(re.findall(r"MEMSTREAM_([A-Z0-9_]+)", (ROOT / "docker-compose.yml").read_text()))
    assert named, "the compose file configures memstream"
    assert named - {"API_KEY"} <= fields, named - fields  # API_KEY: the client's, read by CLI


def test_every_command_is_a_subcommand_with_its_options() -> None:
    parser = _parser()
    for name, service in _memstream_services().items():
        args = parser.parse_args(service["command"][1:])  # exits on an unknown option
        assert args.command, name


def test_workers_embedders_and_api_replicas_are_separate_services() -> None:
    commands = {name: s["command"][1] for name, s in _memstream_services().items()}
    assert (
        commands["worker"] == "worker"
        and "--no-embed" in _compose()["services"]["worker"]["command"]
    )
    assert commands["embed"] == "embed"
    assert commands["api"] == "serve"
    services = _compose()["services"]
    assert services["worker"]["deploy"]["replicas"] >= 2
    assert services["api"]["deploy"]["replicas"] >= 2
    for name in ("worker", "embed", "api"):
        assert services[name]["environment"]["MEMSTREAM_KAFKA"] == "kafka:9092"


def test_every_host_reaches_the_keys_without_a_shared_file_system() -> None:
    """The data keys and API keys live in the data location (S3), the data keys sealed
    under a secret the deployment must give; no service mounts a key folder."""
    for name, service in _memstream_services().items():
        environment = service["environment"]
        assert environment["MEMSTREAM_DATA"].startswith("s3://"), name
        assert "MEMSTREAM_DATA_KEYS_DIR" not in environment, name
        assert environment["MEMSTREAM_DATA_KEYS_SECRET"].startswith("${"), name
        assert all("/data-keys" not in v for v in service.get("volumes", [])), name


def test_the_image_installs_the_package_without_the_checkout_state() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "COPY . ." not in dockerfile
    assert "pip install --no-cache-dir ." in dockerfile
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".venv", ".git", "memstream-data", "memstream-state"} <= set(ignored)
    copied = set(re.findall(r"^COPY (\w+) ", dockerfile, re.MULTILINE))
    import tomllib

    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["packages"]
    assert set(packages) <= copied
