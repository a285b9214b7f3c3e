"""The atomic write: a whole file replaced, its mode kept, no temporary file left."""

from __future__ import annotations

import os
import stat

from mergedrv.atomic import atomic_write


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
