"""The driver's decision log: a small, bounded record of the last keyed merges.

One JSON line per merge in `<git dir>/mergedrv/log`: when, which path, the
size and CRC-32 of base, ours, theirs and the result (`mergedrv review`
finds those versions among the blobs git has of the path), the labels, the
conflicts and notes. The file is cut to its newer half when it passes LIMIT
bytes. Writing it never makes a merge fail; it costs ~0.3 ms. MERGEDRV_LOG=0
turns it off.
"""

from __future__ import annotations

import os

LIMIT = 256 * 1024  # bytes; then the older half is dropped
NAME = os.path.join("mergedrv", "log")


def git_dir(cwd: str = ".") -> str | None:
    """The repository's git folder, found without running git (the driver runs at the work tree's top)."""
    env = os.environ.get("GIT_DIR")
    if env:
        return env if os.path.isdir(env) else None
    dot = os.path.join(cwd, ".git")
    if os.path.isdir(dot):
        return dot
    try:
        with open(dot, encoding="utf-8") as fh:  # a linked worktree or submodule: "gitdir: PATH"
            line = fh.readline().strip()
    except OSError:
        return None
    if line.startswith("gitdir:"):
        target = line[7:].strip()
        target = target if os.path.isabs(target) else os.path.join(cwd, target)
        return target if os.path.isdir(target) else None
    return None


def fingerprint(data: bytes) -> str:
    """How the log names a version: its size and CRC-32 (``"251234:1a2b3c4d"``).

    A git blob id would need SHA-1 over every version, and for large files
    hashlib's OpenSSL (2-3 ms of a 250 KB merge); `mergedrv review` finds the
    blob of that size and CRC among the versions git has of the path."""
    import zlib

    return f"{len(data)}:{zlib.crc32(data):08x}"


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _json(value) -> str:
    """JSON for the log's few shapes (str, int, None, lists, a dict), without importing json (~1 ms)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        from . import rx

        return '"' + rx.compile(r'[\\"\x00-\x1f\x7f]').sub(lambda m: _ESCAPES.get(m.group(), "\\u%04x" % ord(m.group())), value) + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_json(str(k))}: {_json(v)}" for k, v in value.items()) + "}"
    return _json(str(value))


def decision(path: str, base: bytes, ours: bytes, theirs: bytes, result, labels: tuple[str, str, str]) -> dict:
    """What one merge did, as the log keeps it (and `mergedrv merge --format json` prints it)."""
    import time

    return {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "path": path,
        "base": fingerprint(base),
        "ours": fingerprint(ours),
        "theirs": fingerprint(theirs),
        "result": fingerprint(result.data),
        "labels": list(labels),
        "conflicts": [[c.line, c.kind, c.key, c.why] for c in result.conflicts[:200]],
        "notes": result.notes[:200],
        "fallback": result.fallback,
    }


def record(path: str, base: bytes, ours: bytes, theirs: bytes, result, labels: tuple[str, str, str]) -> None:
    """Append one merge to the log (called by the driver; every failure is swallowed there)."""
    if os.environ.get("MERGEDRV_LOG") == "0":
        return
    folder = git_dir()
    if folder is None:
        return
    line = (_json(decision(path, base, ours, theirs, result, labels)) + "\n").encode("utf-8", "surrogateescape")
    target = os.path.join(folder, NAME)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    try:
        os.write(fd, line)  # one write: concurrent drivers do not interleave lines
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    if size > LIMIT:
        _trim(target)


def _trim(target: str) -> None:
    with open(target, "rb") as fh:
        data = fh.read()
    keep = data[len(data) // 2 :]
    keep = keep[keep.find(b"\n") + 1 :]
    from .atomic import atomic_write

    atomic_write(target, keep)


def read(folder: str) -> list[dict]:
    """Every logged merge, oldest first (lines that do not parse are skipped)."""
    import json

    try:
        with open(os.path.join(folder, NAME), "rb") as fh:
            raw = fh.read().splitlines()
    except OSError:
        return []
    out = []
    for line in raw:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and "path" in entry:
            out.append(entry)
    return out
