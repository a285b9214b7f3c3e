"""The atomic write: a whole file replaced, its mode kept, no temporary file
left; a killed write's temporary file removed, never a file merely named like one."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mergedrv.atomic import atomic_write, cache_dir

from tests.helpers import git


def test_atomic_write_keeps_a_files_mode_and_gives_a_new_one_the_umasks(tmp_path):
    old = os.umask(0o022)
    try:
        new = tmp_path / "new.txt"
        atomic_write(str(new), b"x")
        assert stat.S_IMODE(new.stat().st_mode) == 0o644 and new.read_bytes() == b"x"
        new.chmod(0o600)
        atomic_write(str(new), b"y")
        assert stat.S_IMODE(new.stat().st_mode) == 0o600
        hook = tmp_path / "hook"
        atomic_write(str(hook), b"#!/bin/sh\n", mode=0o755)
        assert stat.S_IMODE(hook.stat().st_mode) == 0o755
        assert sorted(p.name for p in tmp_path.iterdir()) == ["hook", "new.txt"]  # no temporary file left
    finally:
        os.umask(old)


# --- only mergedrv's own temporary files are removed (issue 21, item 3) ------

KILLED_WRITE = """
import os, signal, sys
from mergedrv import atomic
def killed(src, dst):  # the write is done; the process dies before its rename
    os.kill(os.getpid(), signal.SIGKILL)
atomic.os.replace = killed
atomic.atomic_write(sys.argv[1], b"x" * 5000)
"""


def _killed_write(target: Path) -> Path:
    """A real write by mergedrv, killed (SIGKILL) before its rename: the temporary file it leaves."""
    before = set(os.listdir(target.parent))
    proc = subprocess.run([sys.executable, "-c", KILLED_WRITE, str(target)], capture_output=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    (left,) = set(os.listdir(target.parent)) - before
    return target.parent / left


def _temps(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.startswith(".mergedrv-"))


def test_a_killed_writes_temporary_file_is_removed_by_the_next_write(tmp_path):
    left = _killed_write(tmp_path / "a.md")
    assert left.name.startswith(".mergedrv-") and left.read_bytes() == b"x" * 5000
    atomic_write(str(tmp_path / "b.md"), b"b")
    assert _temps(tmp_path) == []
    assert os.listdir(cache_dir() + "/writes") == []  # and its journal entry


def test_a_tracked_file_named_like_a_temporary_file_survives(repo):
    names = [".mergedrv-999999-abcdefgh.tmp", ".mergedrv-999999-0123456789abcdef.tmp"]
    for name in names:
        (repo / name).write_text("tracked\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "files named like temporary files")
    left = _killed_write(repo / "a.md")  # a real stale one beside them goes
    atomic_write(str(repo / "b.md"), b"b")
    assert _temps(repo) == sorted(names) and not left.exists()
    assert git(repo, "status", "--porcelain").stdout.split("\n")[:-1] == ["?? b.md"]


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user takes root")
def test_another_users_temporary_file_survives(tmp_path):
    left = _killed_write(tmp_path / "a.md")
    os.chown(left, 4242, 4242)
    atomic_write(str(tmp_path / "b.md"), b"b")
    assert left.exists()


def test_a_temporary_file_replaced_after_the_kill_survives(tmp_path):
    """The entry records the very file (device and inode): a file put at its
    name afterwards (a checkout of one so named) is not the one it recorded."""
    left = _killed_write(tmp_path / "a.md")
    left.rename(tmp_path / "kept")  # (its inode stays in use)
    left.write_bytes(b"someone else's\n")
    atomic_write(str(tmp_path / "b.md"), b"b")
    assert left.read_bytes() == b"someone else's\n"


def test_nothing_of_another_process_is_removed_without_a_private_cache_folder(tmp_path, monkeypatch):
    left = _killed_write(tmp_path / "a.md")
    os.chmod(cache_dir() + "/writes", 0o777)  # others could write entries: not trusted
    atomic_write(str(tmp_path / "b.md"), b"b")
    assert left.exists()
