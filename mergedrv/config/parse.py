"""TOML text to a plain table, remembered by the SHA-256 of its bytes in the
user's cache folder (the driver starts once per file: tomllib costs ~8 ms)."""

from __future__ import annotations

import os
import re

from .schema import CONFIG_NAME, ConfigError


def _cache_path(raw: bytes) -> str:
    """Where the parse of exactly these bytes is kept: named by their SHA-256
    (and the Python version, whose tomllib parsed them)."""
    import sys

    try:  # the builtin module: hashlib would load OpenSSL (~5 ms of the driver's start)
        from _sha256 import sha256  # Python 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # Python 3.12+
        except ImportError:
            from hashlib import sha256
    key = sha256(raw).hexdigest()
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "mergedrv", f"config-{sys.version_info[0]}.{sys.version_info[1]}-{key}.marshal")


def _deepest_line(text: str) -> int:
    """The line where brackets nest deepest (the place a too-deep TOML breaks)."""
    depth = best = 0
    line = where = 1
    for ch in text:
        if ch in "[{":
            depth += 1
            if depth > best:
                best, where = depth, line
        elif ch in "]}":
            depth = max(depth - 1, 0)
        elif ch == "\n":
            line += 1
    return where


def parse_toml(text: str, path: str = CONFIG_NAME) -> dict:
    """tomllib.loads, remembered by content in the user's cache folder (see ``_parse``)."""
    return _parse(text, path)[0]


def _parse(text: str, path: str = CONFIG_NAME) -> tuple[dict, bool]:
    """tomllib.loads, remembered by content in the user's cache folder, and
    whether the patterns of this very text were checked already.

    The merge driver starts once per file per merge and importing tomllib
    costs it ~8 ms (RE2, which checks the patterns, ~4 ms); the parsed table
    of a given text never changes, so it is kept with marshal (no code, plain
    data) under the SHA-256 of the exact bytes, with the bytes themselves,
    which must be equal for the entry to count.  Any problem with the cache
    just means parsing again.
    """
    import marshal

    raw = text.encode("utf-8", "surrogatepass")
    cached = _cache_path(raw)
    try:
        with open(cached, "rb") as fh:
            stored = marshal.load(fh)
        if isinstance(stored, tuple) and len(stored) == 3 and stored[0] == raw and isinstance(stored[1], dict):
            return stored[1], stored[2] is True
    except (OSError, EOFError, ValueError, TypeError):
        pass
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise ConfigError(path, int(m.group(1)) if m else 1, f"not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(path, _deepest_line(text), "tables or arrays nested too deeply; flatten them") from None
    _store(cached, raw, data, False)
    return data, False


def _store(cached: str, raw: bytes, data: dict, checked: bool) -> None:
    import marshal

    try:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        tmp = f"{cached}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            marshal.dump((raw, data, checked), fh)
        os.replace(tmp, cached)
    except (OSError, ValueError):  # read-only home, or a value marshal cannot hold
        pass
