"""mergedrv's own regular expressions (Python's `re`), compiled once per machine.

The driver starts once per file per merge, and importing `re` costs it ~4 ms
(`re`'s compiler and parser, enum, functools): more than its whole merge of
a small file.  So the program `re` compiles for each of our patterns is kept
in the user's cache folder (marshal: plain data, with the CRC-32 of the
table) and handed to `_sre`, the engine `re` itself compiles to; a pattern
not kept yet, a damaged file, or a Python whose engine differs, is compiled
by `re` as usual.  Ground floor: of mergedrv it imports only `atomic`
(where caches go).  The patterns of `.mergedrv.toml` are not compiled here (they
are RE2's: `patterns`).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any, AnyStr

# re's flags, as plain ints (re.I, re.M, re.S, re.A): `re.RegexFlag` is an enum
I = 2  # noqa: E741 - re's own name
M = 8
S = 16
A = 256

LIMIT = 256  # patterns kept (the file is read at every start): those a process used first
LONGEST = 1_000  # characters of a pattern worth keeping

_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}
_KEPT: dict[tuple[Any, int], tuple] | None = None  # (pattern, flags) -> what _sre.compile takes after them
_MADE: dict[tuple[Any, int], Any] = {}
_NEW: list[tuple[Any, int]] = []  # kept by this process, not written yet


def escape(text: AnyStr) -> AnyStr:
    """``re.escape``."""
    if isinstance(text, str):
        return text.translate(_SPECIAL)
    return str(text, "latin1").translate(_SPECIAL).encode("latin1")


def compile(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:  # noqa: A001 - mirrors re.compile
    """``re.compile(pattern, flags)``: the same `re.Pattern`, made from the
    kept program when there is one."""
    key = (pattern, flags)
    made = _MADE.get(key)
    if made is None:
        made = _MADE[key] = _from_kept(key) or _compiled(key)
    return made


def _cache_file() -> str | None:
    import _sre

    from .atomic import cache_dir

    folder = cache_dir()
    v = sys.version_info
    return None if folder is None else os.path.join(folder, f"rx-{v[0]}.{v[1]}.{v[2]}-{_sre.MAGIC}-{_sre.CODESIZE}.marshal")


def _from_kept(key: tuple[Any, int]) -> Any:
    global _KEPT
    if _KEPT is None:
        _KEPT = _load()
    args = _KEPT.get(key)
    if args is None:
        return None
    import _sre

    try:
        return _sre.compile(key[0], *args)
    except Exception:  # noqa: BLE001 - a damaged entry: re compiles it again
        return None


def _load() -> dict:
    """The kept table: the file holds (CRC-32 of the table's bytes, those
    bytes), so a file damaged into other valid programs is not used."""
    import marshal
    import zlib

    from .atomic import read_regular

    target = _cache_file()
    raw = read_regular(target) if target is not None else None
    try:
        crc, payload = marshal.loads(raw) if raw else (None, b"")
        table = marshal.loads(payload) if isinstance(payload, bytes) and zlib.crc32(payload) == crc else None
    except (EOFError, ValueError, TypeError):
        table = None
    return table if isinstance(table, dict) else {}


def _compiled(key: tuple[Any, int]) -> Any:
    """``re.compile``, and its program kept when `_sre` rebuilds exactly that pattern from it."""
    import re

    pattern, flags = key
    made = re.compile(pattern, flags)
    try:
        import _sre
        from re import _compiler, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(pattern, flags)
        groups = [None] * parsed.state.groups
        for name, i in parsed.state.groupdict.items():
            groups[i] = name
        args = (flags | parsed.state.flags, [int(op) for op in _compiler._code(parsed, flags)], parsed.state.groups - 1,
                dict(parsed.state.groupdict), tuple(groups))
        if _sre.compile(pattern, *args) == made:
            _keep(key, args)
    except Exception:  # noqa: BLE001 - another Python's re: nothing is kept, nothing lost
        pass
    return made


def _keep(key: tuple[Any, int], args: tuple) -> None:
    """Keep a program; the file is written once, as the process ends."""
    assert _KEPT is not None
    if len(key[0]) > LONGEST:
        return
    if not _NEW:
        import atexit

        atexit.register(_save)
    _KEPT[key] = args
    _NEW.append(key)


def _save() -> None:
    """Write the kept programs, at most LIMIT: those this process used
    first, in the order it used them (mergedrv's own, compiled as its
    modules load, come first), then the others kept before (patterns of
    configurations long gone, or of many globs, never crowd out the driver's own)."""
    import marshal
    import zlib
    from itertools import islice

    kept = _KEPT or {}
    used = {k: kept[k] for k in _MADE if k in kept}
    table = dict(islice({**used, **kept}.items(), LIMIT))
    target = _cache_file()
    if target is None:
        return
    tmp = f"{target}.{os.getpid()}.tmp"
    try:
        payload = marshal.dumps(table)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(tmp, "wb") as fh:
            marshal.dump((zlib.crc32(payload), payload), fh)
        os.replace(tmp, target)
    except (OSError, ValueError):  # a read-only home: compiled again next time
        try:
            os.unlink(tmp)
        except OSError:
            pass
