"""The hooks' file writer on a real filesystem: it writes below its root and nowhere
else, whatever links stand in the way, and reaches a root that is itself behind a link
(a workspace opened through one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memstream.hooks.errors import UnsafePath
from memstream.hooks.files import remove_file, write_file


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "victim").write_text("mine")
    return project, outside


def test_a_root_reached_through_a_link_is_written_below(places: tuple[Path, Path]) -> None:
    project, _ = places
    link = project.parent / "opened-through-a-link"
    link.symlink_to(project, target_is_directory=True)
    written = write_file(link, link / ".cursor" / "rules" / "memstream.mdc", "block")
    assert written == project.resolve() / ".cursor" / "rules" / "memstream.mdc"
    assert written.read_text() == "block"
    remove_file(link, link / ".cursor" / "rules" / "memstream.mdc")
    assert not written.exists()


@pytest.mark.parametrize("relative", [False, True])
def test_a_linked_target_or_folder_is_refused_and_nothing_outside_changes(
    places: tuple[Path, Path], relative: bool
) -> None:
    project, outside = places
    victim = outside / "victim"
    target = project / "settings.json"
    target.symlink_to(Path("..") / "outside" / "victim" if relative else victim)
    with pytest.raises(UnsafePath, match="is a link or not a regular file"):
        write_file(project, target, "x")
    (project / ".codex").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePath, match="is a link or not a folder"):
        write_file(project, project / ".codex" / "victim", "x")
    with pytest.raises(UnsafePath, match="is a link or not a folder"):
        remove_file(project, project / ".codex" / "victim")
    assert victim.read_text() == "mine" and sorted(p.name for p in outside.iterdir()) == ["victim"]


def test_a_planted_partial_name_is_never_written_through(places: tuple[Path, Path]) -> None:
    project, outside = places
    (project / "hooks.json.partial").symlink_to(outside / "victim")
    write_file(project, project / "hooks.json", "{}")
    assert (project / "hooks.json").read_text() == "{}"
    assert (outside / "victim").read_text() == "mine"
    assert [p.name for p in project.iterdir() if p.name.endswith(".partial")] == [
        "hooks.json.partial"
    ]  # its own temporary file renamed into place, none left behind


def test_a_target_outside_its_root_is_refused(places: tuple[Path, Path]) -> None:
    project, outside = places
    with pytest.raises(UnsafePath, match="is outside"):
        write_file(project, project / ".." / "outside" / "victim", "x")
    assert (outside / "victim").read_text() == "mine"
