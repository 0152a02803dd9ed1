"""Free-space checks on real filesystems: the publish reserve and room for a copy."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memstream.storage.headroom import Headroom


def test_the_reserve_names_the_folder_and_its_free_space(tmp_path: Path) -> None:
    assert Headroom([tmp_path], min_free=0).shortage() is None
    refused = Headroom([tmp_path], min_free=10**18).shortage()
    assert refused is not None and str(tmp_path) in refused and "free" in refused


def test_a_copy_of_a_folder_larger_than_the_free_space_is_refused(
    small_filesystem: Callable[[str], Path],
) -> None:
    disk = small_filesystem("1m")
    tables = disk / "tables"
    tables.mkdir()
    (tables / "data").write_bytes(b"x" * 600_000)  # more than what is left free
    assert Headroom([disk], min_free=0).shortage() is None
    refused = Headroom([disk], min_free=0).shortage_for_copy_of(tables)
    assert refused is not None and "needed" in refused
    (tables / "data").write_bytes(b"x" * 100_000)
    assert Headroom([disk], min_free=0).shortage_for_copy_of(tables) is None
