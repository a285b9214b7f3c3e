"""Configuration: `.mergedrv.toml` read (its parse cached by exact text: `cache.py`),
validated against its one schema (`schema.py`, `validate.py`) and matched
against paths (`globs.py`).

Errors name the file, the line and the fix (`ConfigError`), never a traceback.
"""

from __future__ import annotations

import os

from ..values import Value
from .globs import glob_match, is_glob, literal_prefix  # noqa: F401 - part of the configuration's API
from .schema import CONFIG_NAME, SECTIONS, Anchors, Checkpoint, ConfigError, Count, Entry, Grid, Log, MergeOptions, Record, Rollup  # noqa: F401
from . import validate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


class Config(Value):
    """The whole configuration."""

    __slots__ = ("path", "records", "logs", "checkpoints", "merge", "anchors",)

    def __init__(
        self,
        path: str = CONFIG_NAME,
        records: list[Record] | None = None,
        logs: list[Log] | None = None,
        checkpoints: list[Checkpoint] | None = None,
        merge: MergeOptions | None = None,
        anchors: Anchors | None = None,
    ) -> None:
        self.path = path
        self.records = [] if records is None else records
        self.logs = [] if logs is None else logs
        self.checkpoints = [] if checkpoints is None else checkpoints
        self.merge = MergeOptions() if merge is None else merge
        self.anchors = Anchors() if anchors is None else anchors

    def record_for(self, path: str) -> Record | None:
        """The record declaring ``path``; a path a [[log]] names is a log,
        even when a [[record]] glob matches it too."""
        if self.log_for(path) is not None:
            return None
        for record in self.records:
            if glob_match(record.path, path):
                return record
        return None

    def log_for(self, path: str) -> Log | None:
        for log in self.logs:
            if glob_match(log.path, path):
                return log
        return None

    def record_named(self, name: str) -> Record | None:
        for record in self.records:
            if record.name == name:
                return record
        return None


def loads(text: str, path: str = CONFIG_NAME) -> Config:
    """Parse and validate configuration text.  A cached table is validated
    like a fresh parse; one that fails is dropped for tomllib's own (its
    errors are then the text's, never the cache's)."""
    data, fresh = _parse(text, path)
    if not fresh:
        try:
            return _config(text, path, data)
        except ConfigError:
            data, fresh = _parse(text, path, cached=False)
    cfg = _config(text, path, data)
    from . import cache

    cache.put(text, data)  # only a table that passed every check is kept
    return cfg


def _config(text: str, path: str, data: dict) -> Config:
    """The Config of a parsed table, checked key by key and every pattern compiled."""
    _check_sections(path, text, data)
    src = validate.Source(path, text)
    cfg = Config(path=path)
    for name, (cls, many) in SECTIONS.items():
        if name not in data:
            continue
        if many:
            lines = src.headers(cls.HEADER)
            found = [_entry(src, cls, item, lines[i] if i < len(lines) else 1) for i, item in enumerate(data[name])]
            setattr(cfg, _FIELD[name], found)
        else:
            setattr(cfg, name, _entry(src, cls, data[name], validate.table_line(text, cls.HEADER)))
    validate.compile_patterns(src)  # every time: a cached table is validated like a fresh one
    return cfg


_FIELD = {"record": "records", "log": "logs", "checkpoint": "checkpoints"}


def _check_sections(path: str, text: str, data: dict[str, Any]) -> None:
    """Every top-level name a section of the schema, written in its form."""
    forms = [f"[[{k}]]" if many else f"[{k}]" for k, (_, many) in SECTIONS.items()]
    for k, v in data.items():
        if k not in SECTIONS:
            raise ConfigError(path, validate.key_line(text, 1, k) if not isinstance(v, (dict, list)) else 1,
                              f"unknown section {k!r}; use {', '.join(forms[:-1])} or {forms[-1]}")
        many = SECTIONS[k][1]
        if not isinstance(v, list if many else dict):
            form = f"[[{k}]]" if many else f"[{k}]"
            raise ConfigError(path, 1, f"{k!r} must be written as {form}")


def _entry(src: validate.Source, cls: type[Entry], data: dict[str, Any], line: int) -> Any:
    """One section's table as its value class, checked key by key; an array
    of sub-tables (``[[record.count]]``) takes the header lines after ``line``."""
    from bisect import bisect_right

    validate.check_table(src, cls, data, line)
    values: dict[str, Any] = {}
    for only in validate.ROUNDS:
        for key in cls.KEYS:
            if key.sub is None and key.name in data:
                values[key.attr] = validate.checked(src, cls.HEADER, key, values.get(key.attr, data[key.name]), line, only)
    for key in cls.KEYS:
        if key.sub is not None:
            subs = src.headers(key.sub.HEADER)
            first = bisect_right(subs, line)
            values[key.attr] = [_entry(src, key.sub, item, subs[first + j] if first + j < len(subs) else line) for j, item in enumerate(data.get(key.name, []))]
    cls.cross(src.error, values, line)
    return cls(line=line, **values)


def merge_options(cfg: Config, path: str, strict: bool = False, cell_merge: bool = True) -> dict[str, Any]:
    """The keywords of ``merge.Options`` for ``path`` (besides markers) in one
    call: the record's key and key pattern, log mode, strict additions and cell
    merging (the command line's ``strict`` / ``cell_merge`` and ``[merge]``)."""
    record = cfg.record_for(path)
    return {
        "key": record.key if record is not None else None,
        "key_pattern": record.key_pattern if record is not None else None,
        "log": record is None and cfg.log_for(path) is not None,
        "strict_additions": strict or cfg.merge.strict_additions,
        "cell_merge": cell_merge and cfg.merge.cell_merge,
    }


# --- TOML text to a plain table ----------------------------------------------


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
    """tomllib.loads (or the cached table of this exact text, see ``_parse``)."""
    return _parse(text, path)[0]


def _parse(text: str, path: str = CONFIG_NAME, cached: bool = True) -> tuple[dict, bool]:
    """tomllib.loads, and whether it was parsed now (False: the table kept
    for this exact text in `cache.py`, which the caller validates all the same).

    The merge driver starts once per file per merge and importing tomllib
    costs it ~6 ms; any problem with the cache just means parsing again.
    """
    from . import cache

    kept = cache.get(text) if cached else None
    if kept is not None:
        return kept, False
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        import re

        marker = _conflict_marker(text)
        if marker:
            raise ConfigError(path, marker, "holds conflict markers at line "
                              f"{marker}; resolve it first (edit it, or `git checkout --ours/--theirs {path}`), then `git add` it") from None
        m = re.search(r"line (\d+)", str(exc))
        raise ConfigError(path, int(m.group(1)) if m else 1, f"not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(path, _deepest_line(text), "tables or arrays nested too deeply; flatten them") from None
    return data, True


def _conflict_marker(text: str) -> int:
    """The line of the first conflict marker git leaves (``<<<<<<<``, ``=======``,
    ``>>>>>>>``, ``|||||||`` at a line's start), 0 when there is none."""
    for n, line in enumerate(text.split("\n"), 1):
        head, rest = line[:7], line[7:]
        if head in ("<<<<<<<", ">>>>>>>", "|||||||") and (not rest or rest[0] in " \r"):
            return n
        if head == "=======" and not rest.strip():
            return n
    return 0


def read(path: str | os.PathLike, shown: str | None = None) -> bytes:
    """A configuration file's bytes; a missing file is a ConfigError (named ``shown``)."""
    full = os.path.abspath(path)
    top = os.path.realpath(os.path.dirname(full))
    if os.path.basename(full) == CONFIG_NAME and os.path.islink(full) and os.path.commonpath([top, os.path.realpath(full)]) != top:
        raise ConfigError(shown or str(path), 0, "a symlink to a file outside the repository; mergedrv reads no file outside it: make it a file")
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        raise ConfigError(shown or str(path), 0, "no such file; run `mergedrv init` to write one") from None


def load_bytes(data: bytes, path: str = CONFIG_NAME, shown: str | None = None) -> Config:
    """Parse and validate configuration bytes (``shown`` names them if they are not UTF-8)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(shown or path, line, f"the file is not UTF-8 (byte 0x{data[exc.start]:02x})") from None
    return loads(text, path)


def load(path: str | os.PathLike) -> Config:
    """Read a configuration file; a missing file is a ConfigError."""
    return load_bytes(read(path), str(path))


def find(start: str | os.PathLike[str] = ".") -> Path | None:
    """The `.mergedrv.toml` (a Path) at the top of the working tree holding
    ``start``, or None."""
    found = find_path(start)
    if found is None:
        return None
    from pathlib import Path

    return Path(found)


def find_path(start: str | os.PathLike = ".") -> str | None:
    """``find`` as a plain string, without importing pathlib (driver start-up)."""
    d = os.path.realpath(start)
    while True:
        candidate = os.path.join(d, CONFIG_NAME)
        if os.path.isfile(candidate):
            return candidate
        if os.path.exists(os.path.join(d, ".git")):
            return None
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent
