"""Configuration: `.mergedrv.toml` read, validated and matched against paths.

Errors name the file, the line and the fix (`ConfigError`), never a traceback.
"""

from __future__ import annotations

import re
from functools import lru_cache
import os

from .errors import Error
from .values import Value

CONFIG_NAME = ".mergedrv.toml"


class ConfigError(Error):
    """A configuration problem: ``path:line: what; fix``."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line


class Count(Value):
    """A number in prose, or a rollup cell, that counts a record's rows.

    ``where`` filters rows by column: ``{"State": "INVENTORIED"}`` counts the
    rows whose State cell (markup stripped) is the value, or starts with it
    followed by a non-word character (``ACTIVE (W4 landed)`` is ``ACTIVE``); a
    list means any of its values; ``!`` negates; ``~`` searches a pattern.
    ``pattern`` is a regex with one group around the number, matched in prose.
    """

    __slots__ = ("pattern", "where", "offset", "line",)

    def __init__(
        self,
        pattern: str,
        where: dict[str, list[str]] | None = None,
        offset: int = 0,
        line: int = 0,
    ) -> None:
        self.pattern = pattern
        self.where = {} if where is None else where
        self.offset = offset
        self.line = line


class Rollup(Value):
    """A table that counts a record's rows grouped by one column: it sits
    under ``heading``; ``group`` is the record column rows are grouped by,
    ``label`` and ``count`` the rollup's columns, ``total`` its total row."""

    __slots__ = ("heading", "group", "label", "count", "total", "line",)

    def __init__(
        self,
        heading: str,
        group: str,
        label: str,
        count: str,
        total: str = "Total",
        line: int = 0,
    ) -> None:
        self.heading = heading
        self.group = group
        self.label = label
        self.count = count
        self.total = total
        self.line = line


class Record(Value):
    """A ``[[record]]``: which files, their key column and what checks them."""

    __slots__ = ("name", "path", "key", "key_pattern", "pin", "refs", "ref_files", "columns", "retired", "counts", "rollups", "line",)

    def __init__(
        self,
        name: str,
        path: str,
        key: str,
        key_pattern: str | None = None,
        pin: int | None = None,
        refs: list[str] | None = None,
        ref_files: list[str] | None = None,
        columns: dict[str, str] | None = None,
        retired: str | None = None,
        counts: list[Count] | None = None,
        rollups: list[Rollup] | None = None,
        line: int = 0,
    ) -> None:
        self.name = name
        self.path = path
        self.key = key
        self.key_pattern = key_pattern
        self.pin = pin
        self.refs = [] if refs is None else refs
        self.ref_files = [] if ref_files is None else ref_files
        self.columns = {} if columns is None else columns
        self.retired = retired
        self.counts = [] if counts is None else counts
        self.rollups = [] if rollups is None else rollups
        self.line = line


class Log(Value):
    """A ``[[log]]``: an append-only file."""

    __slots__ = ("path", "line",)

    def __init__(
        self,
        path: str,
        line: int = 0,
    ) -> None:
        self.path = path
        self.line = line


class Checkpoint(Value):
    """A ``[[checkpoint]]``: changing a ``when`` path requires every ``require`` doc."""

    __slots__ = ("when", "require", "line",)

    def __init__(
        self,
        when: list[str],
        require: list[str],
        line: int = 0,
    ) -> None:
        self.when = when
        self.require = require
        self.line = line


class MergeOptions(Value):
    """``[merge]``: identical double additions conflict (strict); cell merging."""

    __slots__ = ("strict_additions", "cell_merge",)

    def __init__(
        self,
        strict_additions: bool = False,
        cell_merge: bool = True,
    ) -> None:
        self.strict_additions = strict_additions
        self.cell_merge = cell_merge


class Anchors(Value):
    """``[anchors]``: the upstream cited, its pin, and which files and rows."""

    __slots__ = ("upstream", "pin", "pin_file", "pin_pattern", "files", "exclude", "show", "line",)

    def __init__(
        self,
        upstream: str | None = None,
        pin: str | None = None,
        pin_file: str | None = None,
        pin_pattern: str | None = None,
        files: list[str] | None = None,
        exclude: list[str] | None = None,
        show: list[str] | None = None,
        line: int = 0,
    ) -> None:
        self.upstream = upstream
        self.pin = pin
        self.pin_file = pin_file
        self.pin_pattern = pin_pattern
        self.files = [] if files is None else files
        self.exclude = [] if exclude is None else exclude
        self.show = [] if show is None else show
        self.line = line


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


# --- globs ------------------------------------------------------------------


_RE2_SPECIAL = frozenset("\\.^$|?*+()[]{}")


@lru_cache(maxsize=256)
def _glob_regex(pattern: str):
    """The glob as an RE2 pattern (linear time: a glob from a pull request
    cannot backtrack), matching UTF-8 bytes of the whole path."""
    from . import rx as patterns

    out = []
    i = 0
    pat = pattern.lstrip("/")
    # repeated wildcards match nothing more: collapse them first
    pat = re.sub(r"(?:\*\*/)+", "**/", pat)
    pat = re.sub(r"\*{3,}", "**", pat)
    while i < len(pat):
        c = pat[i]
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pat.find("]", i + 1)
            if j < 0:
                out.append("\\[")
                i += 1
            else:
                body = pat[i + 1 : j].replace("\\", "\\\\").replace("[", "\\[")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j + 1
        else:
            out.append("\\" + c if c in _RE2_SPECIAL else c)
            i += 1
    if pat.endswith("/"):
        out.append(".*")
    if len(re.findall(r"\*+", pat)) <= 2:
        # one or two wildcards cannot backtrack much: Python's re, which the
        # driver has loaded already (RE2 costs its start ~9 ms to import)
        try:
            return re.compile("".join(out) + r"\Z", re.S)
        except re.error:
            pass
    return patterns.compile("(?s)" + "".join(out) + r"\z")


def is_glob(pattern: str) -> bool:
    """Whether a configured path names several files (wildcards, or a folder ending in /)."""
    return any(c in pattern for c in "*?[") or pattern.endswith("/")


def glob_match(pattern: str, path: str) -> bool:
    """Git-style glob: ``*`` within a segment, ``**`` across segments.

    A pattern without a slash matches the file name at any depth, as in
    .gitattributes.  A glob RE2 refuses (checked when the configuration is
    loaded) matches nothing.
    """
    from .rx import PatternError

    try:
        rx = _glob_regex(pattern)
    except PatternError:
        return False
    raw = path if isinstance(rx, re.Pattern) else path.encode("utf-8", "surrogateescape")
    if "/" not in pattern.rstrip("/"):
        slash = "/" if isinstance(raw, str) else b"/"
        return rx.match(raw.rsplit(slash, 1)[-1]) is not None or rx.match(raw) is not None
    return rx.match(raw) is not None


# --- loading ----------------------------------------------------------------

_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "record": {
        "name": str,
        "path": str,
        "key": str,
        "key_pattern": str,
        "pin": int,
        "refs": list,
        "ref_files": list,
        "columns": dict,
        "retired": str,
        "count": list,
        "rollup": list,
    },
    "log": {"path": str},
    "checkpoint": {"when": list, "require": list},
    "merge": {"strict_additions": bool, "cell_merge": bool},
    "anchors": {"upstream": str, "pin": str, "pin_file": str, "pin_pattern": str, "files": list, "exclude": list, "show": list},
    "count": {"pattern": str, "where": dict, "offset": int},
    "rollup": {"heading": str, "group": str, "label": str, "count": str, "total": str},
}
_REQUIRED = {
    "record": ("name", "path", "key"),
    "log": ("path",),
    "checkpoint": ("when", "require"),
    "count": ("pattern",),
    "rollup": ("heading", "group", "label", "count"),
}
_TOP = {"record": list, "log": list, "checkpoint": list, "merge": dict, "anchors": dict}


def _header_lines(text: str, name: str) -> list[int]:
    """1-based line numbers of every ``[[name]]`` header, in order (one pass)."""
    rx = re.compile(r"^[ \t]*\[\[\s*" + re.escape(name) + r"\s*\]\]", re.M)
    out = []
    line, pos = 1, 0
    for m in rx.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        out.append(line)
    return out


def _table_line(text: str, name: str) -> int:
    """The line of the ``[name]`` header (1 when there is none)."""
    m = re.search(r"^[ \t]*\[\s*" + re.escape(name) + r"\s*\]", text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else 1


def _key_line(text: str, start: int, key: str) -> int:
    """The line of ``key =`` at or after line ``start`` (1-based)."""
    lines = text.split("\n")
    rx = re.compile(r"^\s*" + re.escape(key) + r"\s*=")
    for i in range(max(start - 1, 0), len(lines)):
        if rx.match(lines[i]):
            return i + 1
    return start


def _check_table(path: str, text: str, kind: str, data: dict, line: int) -> None:
    fields = _FIELDS[kind]
    for k, v in data.items():
        if k not in fields:
            known = ", ".join(sorted(fields))
            raise ConfigError(path, _key_line(text, line, k), f"[{kind}] has no option {k!r}; use one of: {known}")
        want = fields[k]
        if want is int and isinstance(v, bool) or not isinstance(v, want):
            tname = want.__name__ if isinstance(want, type) else "/".join(t.__name__ for t in want)
            raise ConfigError(path, _key_line(text, line, k), f"[{kind}] {k} must be a {tname}, not {type(v).__name__}")
    for k in _REQUIRED.get(kind, ()):
        if k not in data:
            raise ConfigError(path, line, f"[[{kind}]] is missing {k!r}; add `{k} = ...` under it")


def _strings(path: str, text: str, kind: str, key: str, value: list, line: int) -> list[str]:
    if not all(isinstance(v, str) for v in value):
        raise ConfigError(path, _key_line(text, line, key), f"[{kind}] {key} must be a list of strings")
    return list(value)


_MAX_STARS = 4  # per path segment: more makes the glob's regex backtrack badly


def _globs(path: str, text: str, kind: str, key: str, values: list[str], line: int) -> list[str]:
    """Globs from a file any pull request can change: bounded in wildcards."""
    from .rx import PatternError

    for value in values:
        for segment in value.replace("**", "").split("/"):
            if segment.count("*") > _MAX_STARS:
                raise ConfigError(path, _key_line(text, line, key), f"[{kind}] {key} {value!r} has more than {_MAX_STARS} '*' in one path segment; simplify the glob")
        try:
            _glob_regex(value)
        except PatternError as exc:
            raise ConfigError(path, _key_line(text, line, key), f"[{kind}] {key} {value!r} is not a glob RE2 can match: {exc}") from None
    return values


def _pattern(path: str, text: str, kind: str, key: str, value: str, line: int):
    """A configured pattern compiled with RE2 (the one engine of every
    configured pattern); a ConfigError at the pattern's line if RE2 refuses it."""
    from . import rx as patterns

    try:
        return patterns.compile(value)
    except patterns.PatternError as exc:
        raise ConfigError(path, _key_line(text, line, key), f"[{kind}] {key} is not a valid regular expression: {exc}") from None


def _inside(path: str, text: str, kind: str, key: str, values: list[str], line: int) -> list[str]:
    """Paths from a file any pull request can change: each names a file
    inside the repository (relative, no `..`), never one outside it."""
    for value in values:
        parts = value.replace("\\", "/").split("/")
        if value.startswith("/") or ".." in parts or "\0" in value or (value[:1].isalpha() and value[1:2] == ":" and value[2:3] in ("", "/", "\\")):
            raise ConfigError(path, _key_line(text, line, key),
                              f"[{kind}] {key} {value!r} is not a path inside the repository; write it relative to the repository's top, without '..' or a leading '/'")
    return values


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


def loads(text: str, path: str = CONFIG_NAME) -> Config:
    """Parse and validate configuration text."""
    data, checked = _parse(text, path)
    patterns: list[tuple[str, str, str, int, bool]] = []  # (kind, key, pattern, line, needs a group), checked last
    cfg = Config(path=path)
    for k, v in data.items():
        if k not in _TOP:
            raise ConfigError(path, _key_line(text, 1, k) if not isinstance(v, (dict, list)) else 1,
                              f"unknown section {k!r}; use [[record]], [[log]], [[checkpoint]], [merge] or [anchors]")
        if not isinstance(v, _TOP[k]):
            form = f"[[{k}]]" if _TOP[k] is list else f"[{k}]"
            raise ConfigError(path, 1, f"{k!r} must be written as {form}")
    from bisect import bisect_right

    rec_lines = _header_lines(text, "record")
    count_lines = _header_lines(text, "record.count")
    rollup_lines = _header_lines(text, "record.rollup")
    names: set[str] = set()
    for i, item in enumerate(data.get("record", [])):
        line = rec_lines[i] if i < len(rec_lines) else 1
        _check_table(path, text, "record", item, line)
        name = item["name"]
        if name in names:
            raise ConfigError(path, _key_line(text, line, "name"), f"record name {name!r} is used twice; give each [[record]] its own name")
        names.add(name)
        record = Record(
            name=name,
            path=_globs(path, text, "record", "path", _inside(path, text, "record", "path", [item["path"]], line), line)[0],
            key=item["key"],
            key_pattern=item.get("key_pattern"),
            pin=item.get("pin"),
            refs=_strings(path, text, "record", "refs", item.get("refs", []), line),
            ref_files=_globs(path, text, "record", "ref_files", _inside(path, text, "record", "ref_files", _strings(path, text, "record", "ref_files", item.get("ref_files", []), line), line), line),
            retired=_inside(path, text, "record", "retired", [item["retired"]], line)[0] if "retired" in item else None,
            line=line,
        )
        for col, pat in item.get("columns", {}).items():
            if not isinstance(pat, str):
                raise ConfigError(path, _key_line(text, line, col), f"[record.columns] {col} must be a regular expression string")
            patterns.append(("record.columns", col, pat, line, False))
            record.columns[col] = pat
        if record.key_pattern is not None:
            patterns.append(("record", "key_pattern", record.key_pattern, line, False))
        sub_lines = count_lines[bisect_right(count_lines, line):]
        for j, c in enumerate(item.get("count", [])):
            cline = sub_lines[j] if j < len(sub_lines) else line
            _check_table(path, text, "count", c, cline)
            patterns.append(("record.count", "pattern", c["pattern"], cline, True))
            where = {str(a): [b] if isinstance(b, str) else b for a, b in c.get("where", {}).items()}
            if not all(isinstance(v, list) and v and all(isinstance(x, str) for x in v) for v in where.values()):
                raise ConfigError(path, _key_line(text, cline, "where"), "[record.count] where values must be strings or lists of strings")
            record.counts.append(Count(c["pattern"], where, c.get("offset", 0), cline))
        sub_lines = rollup_lines[bisect_right(rollup_lines, line):]
        for j, r in enumerate(item.get("rollup", [])):
            rline = sub_lines[j] if j < len(sub_lines) else line
            _check_table(path, text, "rollup", r, rline)
            record.rollups.append(Rollup(r["heading"], r["group"], r["label"], r["count"], r.get("total", "Total"), rline))
        cfg.records.append(record)
    log_lines = _header_lines(text, "log")
    for i, item in enumerate(data.get("log", [])):
        line = log_lines[i] if i < len(log_lines) else 1
        _check_table(path, text, "log", item, line)
        cfg.logs.append(Log(_globs(path, text, "log", "path", _inside(path, text, "log", "path", [item["path"]], line), line)[0], line))
    cp_lines = _header_lines(text, "checkpoint")
    for i, item in enumerate(data.get("checkpoint", [])):
        line = cp_lines[i] if i < len(cp_lines) else 1
        _check_table(path, text, "checkpoint", item, line)
        cfg.checkpoints.append(
            Checkpoint(
                _globs(path, text, "checkpoint", "when", _inside(path, text, "checkpoint", "when", _strings(path, text, "checkpoint", "when", item["when"], line), line), line),
                _globs(path, text, "checkpoint", "require", _inside(path, text, "checkpoint", "require", _strings(path, text, "checkpoint", "require", item["require"], line), line), line),
                line,
            )
        )
    if "merge" in data:
        _check_table(path, text, "merge", data["merge"], 1)
        cfg.merge = MergeOptions(**data["merge"])
    if "anchors" in data:
        a = data["anchors"]
        aline = _table_line(text, "anchors")
        _check_table(path, text, "anchors", a, aline)
        if "pin_pattern" in a:
            patterns.append(("anchors", "pin_pattern", a["pin_pattern"], aline, False))
        cfg.anchors = Anchors(
            upstream=a.get("upstream"),
            pin=a.get("pin"),
            pin_file=_inside(path, text, "anchors", "pin_file", [a["pin_file"]], aline)[0] if "pin_file" in a else None,
            pin_pattern=a.get("pin_pattern"),
            files=_globs(path, text, "anchors", "files", _inside(path, text, "anchors", "files", _strings(path, text, "anchors", "files", a.get("files", []), aline), aline), aline),
            exclude=_strings(path, text, "anchors", "exclude", a.get("exclude", []), aline),
            show=_strings(path, text, "anchors", "show", a.get("show", []), aline),
            line=aline,
        )
    if not checked:  # RE2 once per text: the cache remembers that its patterns compiled
        for kind, key, value, line, group in patterns:
            if _pattern(path, text, kind, key, value, line).groups < 1 and group:
                raise ConfigError(path, _key_line(text, line, key), f"[{kind}] {key} needs one (group) around the number")
        _store(_cache_path(text.encode("utf-8", "surrogatepass")), text.encode("utf-8", "surrogatepass"), data, True)
    return cfg


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
    except UnicodeDecodeError:
        raise ConfigError(shown or path, 1, "the file is not UTF-8") from None
    return loads(text, path)


def load(path: str | os.PathLike) -> Config:
    """Read a configuration file; a missing file is a ConfigError."""
    return load_bytes(read(path), str(path))


def find(start: str | os.PathLike = "."):
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
