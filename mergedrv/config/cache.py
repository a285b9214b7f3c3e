"""The parse cache of `.mergedrv.toml`: a text's TOML table kept as JSON in a
folder only this user can write, used only for that exact text.

Why it is safe (issue #17): the folder (``<cache>/mergedrv/config``) is
made 0700 and checked at every use through file descriptors (not a symlink,
owned by this uid, no group or world bits; its parent owned by this uid and
writable by no one else), else nothing is read or written.  An entry is read
with a size bound; JSON cannot allocate more than its input; every error
is a miss.  An entry holds the whole source text and is used only when that
text equals, character for character, the text just read; its table must be
plain TOML data, and is then validated like a fresh parse (the schema, and
every pattern compiled again).  The name (CRC-32 of the text) decides nothing.
"""

from __future__ import annotations

import os

LIMIT = 1 << 20  # bytes of one entry read at most (a configuration is a few KB)
DEPTH = 64  # nesting of a cached table at most
_VERSION = 1

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _folder_fd(create: bool) -> int | None:
    """An open descriptor of the cache folder if it is this user's own (see
    the module doc), made 0700 when missing and ``create``; else None."""
    import stat

    from ..atomic import cache_dir

    parent = cache_dir()
    if parent is None:
        return None
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    uid = os.getuid()
    fds: list[int] = []
    try:
        if create:
            os.makedirs(parent, mode=0o700, exist_ok=True)
        fds.append(os.open(parent, flags))
        st = os.fstat(fds[0])
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or st.st_mode & 0o022:
            return None
        if create:
            try:
                os.mkdir("config", 0o700, dir_fd=fds[0])
            except FileExistsError:
                pass
        fds.append(os.open("config", flags, dir_fd=fds[0]))
        st = os.fstat(fds[1])
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or st.st_mode & 0o077:
            return None
        return fds.pop()
    except (OSError, ValueError):
        return None
    finally:
        for fd in fds:
            os.close(fd)


def _name(text: str) -> str:
    import sys
    import zlib

    crc = zlib.crc32(text.encode("utf-8", "surrogatepass"))
    return f"{sys.version_info[0]}.{sys.version_info[1]}-{crc:08x}-{len(text)}.json"


def _plain(value: Any, depth: int = 0) -> bool:
    """Is ``value`` TOML's plain data (tables of str keys, arrays, str, int,
    float, bool), nested at most DEPTH deep?"""
    if isinstance(value, (str, bool, int, float)):
        return True
    if depth >= DEPTH:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v, depth + 1) for v in value)
    return False


def get(text: str) -> dict | None:
    """The table kept for exactly ``text``, or None (any doubt is a miss)."""
    import stat

    folder = _folder_fd(False)
    if folder is None:
        return None
    try:
        fd = os.open(_name(text), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0), dir_fd=folder)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_size > LIMIT:
                return None
            raw = os.read(fd, LIMIT + 1)
        finally:
            os.close(fd)
        if len(raw) > LIMIT:
            return None
        import json

        entry = json.loads(raw.decode("utf-8"))
        if not (isinstance(entry, dict) and entry.get("version") == _VERSION and entry.get("text") == text):
            return None
        data = entry.get("data")
        return data if isinstance(data, dict) and _plain(data) else None
    except Exception:  # noqa: BLE001 - MemoryError, RecursionError, ValueError, OSError...: only a miss
        return None
    finally:
        os.close(folder)


def put(text: str, data: dict) -> None:
    """Keep ``data`` as the table of ``text`` (atomically; any failure: nothing kept)."""
    folder = _folder_fd(True)
    if folder is None:
        return
    tmp = f".{os.getpid()}.tmp"
    try:
        import json

        raw = json.dumps({"version": _VERSION, "text": text, "data": data}, allow_nan=True).encode("ascii")
        if len(raw) > LIMIT:
            return
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600, dir_fd=folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.replace(tmp, _name(text), src_dir_fd=folder, dst_dir_fd=folder)
    except Exception:  # noqa: BLE001 - a value JSON cannot hold (a date), a full disk: nothing kept
        try:
            os.unlink(tmp, dir_fd=folder)
        except OSError:
            pass
    finally:
        os.close(folder)
