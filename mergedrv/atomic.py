"""The atomic write: a file replaced whole, so that no reader ever sees a partial
one, and the clean-up of the temporary files of writes that were killed; and
the user's cache folder, read only as regular files."""

from __future__ import annotations

import os


def atomic_write(path: str, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` so that no reader sees a partial file.

    The file keeps its permissions (a new one gets the umask's), unless
    ``mode`` sets them (an executable hook).
    """
    folder = os.path.dirname(os.path.abspath(path))
    clean_stale(folder)
    tmp = os.path.join(folder, f".mergedrv-{os.getpid()}-{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        try:
            os.chmod(tmp, mode if mode is not None else os.stat(path).st_mode & 0o7777)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def clean_stale(folder: str) -> None:
    """Remove the temporary files of writes that were killed (SIGKILL leaves
    ``.mergedrv-PID-XXXXXXXX.tmp`` behind): those whose process is gone, or
    that are older than a day.  Any problem just leaves a file."""
    import time

    try:
        names = [n for n in os.listdir(folder) if n.startswith(".mergedrv-") and n.endswith(".tmp")]
    except OSError:
        return
    for name in names:
        pid, _, rest = name[len(".mergedrv-"):-len(".tmp")].partition("-")
        if not (pid.isascii() and pid.isdigit() and len(rest) == 8):
            continue
        full = os.path.join(folder, name)
        try:
            gone = int(pid) != os.getpid() and not _alive(int(pid))
            if gone or time.time() - os.lstat(full).st_mtime > 86400:
                os.unlink(full)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def cache_dir() -> str | None:
    """``$XDG_CACHE_HOME/mergedrv`` or ``~/.cache/mergedrv``; None where
    neither is an absolute path (a relative XDG_CACHE_HOME is ignored, as
    the XDG spec says; no home: no cache, never a folder in the work tree)."""
    root = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(root):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        root = os.path.join(home, ".cache")
    return os.path.join(root, "mergedrv")


def read_regular(path: str) -> bytes | None:
    """A cache file's bytes, or None: only a regular file is read (a FIFO
    or device there must not block or flood a merge)."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)
