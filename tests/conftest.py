"""Shared fixtures: a real embedded broker for the session, stores in tmp_path."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memstream.testing import embedded_broker
from storage.lance_store import ProjectionStore


@pytest.fixture(scope="session")
def broker() -> Iterator[str]:
    """Bootstrap address of a real Tansu broker shared by the session's broker tests."""
    with embedded_broker() as bootstrap:
        yield bootstrap


@pytest.fixture
def store(tmp_path: Path) -> ProjectionStore:
    return ProjectionStore(str(tmp_path / "projections"))


@pytest.fixture
def epoch() -> str:
    return "20240101T000000Z-test0000"


@pytest.fixture
def received_at() -> datetime:
    return datetime(2024, 6, 1, 9, 30, tzinfo=UTC)
