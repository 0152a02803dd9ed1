"""The files the hooks and their installer write, written only where they were meant to
go, and the transcripts they read, read only from where their host keeps them.

A cloned repository can hold links anywhere, ``.partial`` names included, so nothing
here follows one: every folder from the root down is opened with ``O_NOFOLLOW`` relative
to the one above it (made when missing), the new text goes to a file created in the
target's folder with a random name, exclusively, and is renamed onto the target in that
same folder. A folder or target that is a link, or not what it should be, is refused
with an :class:`UnsafePath` naming it.

The one link followed is the user's own, in their own configuration (a settings file
kept in a dotfiles checkout): with ``links_inside_root``, a target that is a link
resolving inside the same root is written at the place it resolves to.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

from memstream.hooks.errors import UnsafePath

__all__ = ["UnsafePath", "inside", "remove_file", "write_file"]

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def inside(path: Path, root: Path) -> bool:
    """Whether ``path``, links resolved, is ``root`` (resolved) or lies below it."""
    return path.resolve().is_relative_to(root.resolve())


def write_file(root: Path, target: Path, text: str, *, links_inside_root: bool = False) -> Path:
    """Write ``text`` to ``target``, which must lie below ``root``, as described in the
    module docstring; answers the path written.

    Raises:
        UnsafePath: a folder or the target is a link (or not a folder, not a file), or
            the target is outside ``root``.
        OSError: the file could not be written (no room, no right).
    """
    relative = _below(root, target)
    root = root.resolve()  # the root itself may be reached through a link: its owner's
    target = root / relative
    if links_inside_root and target.is_symlink():
        resolved = target.resolve()
        if not resolved.is_relative_to(root):
            raise UnsafePath(f"{target} is a link to outside {root}: left as it is")
        target = resolved
    with _folder(root, target.parent.relative_to(root).parts, create=True) as folder:
        _refuse_a_link(folder, target)
        temporary = f".{target.name}.{secrets.token_hex(8)}.partial"
        descriptor = os.open(temporary, _NEW_FILE, 0o644, dir_fd=folder)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, target.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=folder)
            raise
    return target


def remove_file(root: Path, target: Path) -> None:
    """Remove ``target`` below ``root`` when it is there: only a file or a link itself,
    never through a linked folder (:class:`UnsafePath` then)."""
    relative = _below(root, target)
    root = root.resolve()
    target = root / relative
    parts = target.parent.relative_to(root).parts
    with contextlib.suppress(FileNotFoundError), _folder(root, parts, create=False) as folder:
        os.unlink(target.name, dir_fd=folder)


def _below(root: Path, target: Path) -> Path:
    """Where ``target`` lies below ``root``, both as given (links not resolved), as a
    relative path; refused unless it lies below it."""
    absolute = Path(os.path.abspath(target.expanduser()))
    base = Path(os.path.abspath(root.expanduser()))
    if not absolute.is_relative_to(base) or absolute == base:
        raise UnsafePath(f"{target} is outside {root}: left as it is")
    return absolute.relative_to(base)


@contextlib.contextmanager
def _folder(root: Path, parts: tuple[str, ...], *, create: bool) -> Iterator[int]:
    """A descriptor of ``root/parts...``, each folder opened without following a link
    (made when missing and ``create``)."""
    descriptor = os.open(root, _DIRECTORY)
    try:
        walked = root
        for part in parts:
            walked = walked / part
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=descriptor)
            try:
                inner = os.open(part, _DIRECTORY, dir_fd=descriptor)
            except OSError as exc:
                if exc.errno in {errno.ELOOP, errno.ENOTDIR}:
                    raise UnsafePath(f"{walked} is a link or not a folder: left as it is") from None
                raise
            os.close(descriptor)
            descriptor = inner
        yield descriptor
    finally:
        os.close(descriptor)


def _refuse_a_link(folder: int, target: Path) -> None:
    try:
        status = os.stat(target.name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not _is_regular(status.st_mode):
        raise UnsafePath(f"{target} is a link or not a regular file: left as it is")


def _is_regular(mode: int) -> bool:
    return stat.S_ISREG(mode)
