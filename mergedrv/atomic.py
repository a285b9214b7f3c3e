"""The atomic write: a file replaced whole, so that no reader ever sees a partial
one, and the clean-up of the temporary files of writes that were killed."""

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
