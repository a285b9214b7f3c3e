"""Validation of a parsed `.mergedrv.toml` against the schema: each section's
table checked key by key (type, requirement, the key's checks), every error
at its line as ``path:line: what; fix``."""

from __future__ import annotations

from .. import rx

from .schema import CHOICE, CHOICES, COLUMNS, GLOBS, GROUP, INSIDE, KEYCOLS, KEYPATS, LABELS, PATTERN, STRINGS, UNIQUE, WHERE, ConfigError, Entry, Key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_MAX_STARS = 4  # per path segment: more makes the glob's regex backtrack badly


class Source:
    """The text being loaded, where its headers and keys are, the values seen
    (for UNIQUE) and the patterns to compile once the rest is valid:
    (section, key, pattern, line, needs a group)."""

    __slots__ = ("path", "text", "seen", "patterns", "_headers")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.seen: dict[tuple[str, str], set[Any]] = {}
        self.patterns: list[tuple[str, str, str, int, bool]] = []
        self._headers: dict[str, list[int]] = {}

    def headers(self, name: str) -> list[int]:
        """The lines of every ``[[name]]`` header (found once per name)."""
        found = self._headers.get(name)
        if found is None:
            found = self._headers[name] = header_lines(self.text, name)
        return found

    def error(self, line: int, key: str, message: str) -> ConfigError:
        """The error at the line of ``key =`` (at or after ``line``)."""
        return ConfigError(self.path, key_line(self.text, line, key), message)


_TYPE_NAMES = {int: "an integer", str: "a string", bool: "true or false", list: "a list", dict: "a table",
               float: "a number"}

def header_lines(text: str, name: str) -> list[int]:
    """1-based line numbers of every ``[[name]]`` header, in order (one pass)."""
    found = rx.compile(r"^[ \t]*\[\[\s*" + rx.escape(name) + r"\s*\]\]", rx.M)
    out = []
    line, pos = 1, 0
    for m in found.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        out.append(line)
    return out


def table_line(text: str, name: str) -> int:
    """The line of the ``[name]`` header (1 when there is none)."""
    m = rx.compile(r"^[ \t]*\[\s*" + rx.escape(name) + r"\s*\]", rx.M).search(text)
    return text.count("\n", 0, m.start()) + 1 if m else 1


def key_line(text: str, start: int, key: str) -> int:
    """The line of ``key =`` at or after line ``start`` (1-based)."""
    lines = text.split("\n")
    assign = rx.compile(r"^\s*" + rx.escape(key) + r"\s*=")
    for i in range(max(start - 1, 0), len(lines)):
        if assign.match(lines[i]):
            return i + 1
    return start


def check_table(src: Source, cls: type[Entry], data: dict[str, Any], line: int) -> None:
    """Every key known and of its type, every required key present."""
    kind = cls.SECTION
    fields = {k.name: k.type for k in cls.KEYS}
    for k, v in data.items():
        if k not in fields:
            known = ", ".join(sorted(fields))
            raise src.error(line, k, f"[{kind}] has no option {k!r}; use one of: {known}")
        want = fields[k]
        if want is int and isinstance(v, bool) or not isinstance(v, want):
            named = " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in (want if isinstance(want, tuple) else (want,)))
            raise src.error(line, k, f"[{kind}] {k} must be {named}, not {_TYPE_NAMES.get(type(v), type(v).__name__)}")
    for key in cls.KEYS:
        if key.required and key.name not in data:
            raise ConfigError(src.path, line, f"[[{kind}]] is missing {key.name!r}; add `{key.name} = ...` under it")


ROUNDS = ((UNIQUE, STRINGS, INSIDE, GLOBS, KEYCOLS, CHOICE), (COLUMNS, WHERE, LABELS), (PATTERN, GROUP, KEYPATS))


def checked(src: Source, section: str, key: Key, value: Any, line: int, only: tuple[str, ...]) -> Any:
    """``value`` after those of ``key``'s checks that are in ``only``, in
    their order (a check may normalize it)."""
    for check in key.checks:
        if check not in only:
            continue
        listed: Any = [value] if isinstance(value, str) else value
        new: Any = value
        if check == STRINGS:
            new = strings(src, section, key.name, value, line)
        elif check == INSIDE:
            inside(src, section, key.name, listed, line)
        elif check == GLOBS:
            globs(src, section, key.name, listed, line)
        elif check in (PATTERN, GROUP):
            src.patterns.append((section, key.name, value, line, check == GROUP))
        elif check == COLUMNS:
            new = columns(src, section, value, line)
        elif check == WHERE:
            new = where(src, section, value, line)
        elif check == LABELS:
            if not all(isinstance(v, str) for v in value.values()):
                raise src.error(line, key.name, f"[{section}] {key.name} maps a section's heading to its label: each value must be a string")
        elif check == UNIQUE:
            unique(src, section, key.name, value, line)
        elif check == KEYCOLS:
            new = keycols(src, section, key.name, value, line)
        elif check == KEYPATS:
            new = keypats(src, section, key.name, value, line)
        elif check == CHOICE:
            choice(src, section, key.name, value, line)
        value = new
    return value


def unique(src: Source, section: str, key: str, value: Any, line: int) -> None:
    seen = src.seen.setdefault((section, key), set())
    if value in seen:
        raise src.error(line, key, f"{section} {key} {value!r} is used twice; give each [[{section}]] its own {key}")
    seen.add(value)


def keycols(src: Source, kind: str, key: str, value: Any, line: int) -> str | tuple[str, ...]:
    """One key column, or several in order (a tuple: hashable, like the rest)."""
    if isinstance(value, str):
        if not value.strip():
            raise src.error(line, key, f"[{kind}] {key} is empty; name the key column, e.g. key = \"ID\"")
        return value
    if not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise src.error(line, key, f"[{kind}] {key} must be a column name or a non-empty list of them, e.g. key = [\"Block\", \"#\"]")
    if len({v.strip().casefold() for v in value}) < len(value):
        raise src.error(line, key, f"[{kind}] {key} lists a column twice; name each key column once")
    return tuple(value)


def keypats(src: Source, kind: str, key: str, value: Any, line: int) -> str | tuple[tuple[str, str], ...]:
    """One pattern for every key column, or a table of column -> pattern."""
    if isinstance(value, str):
        src.patterns.append((kind, key, value, line, False))
        return value
    out = []
    for col, pat in value.items():
        if not isinstance(pat, str):
            raise src.error(line, key, f"[{kind}] {key} {col!r} must be a regular expression string")
        src.patterns.append((kind, key, pat, line, False))
        out.append((str(col), pat))
    return tuple(out)


def choice(src: Source, kind: str, key: str, value: Any, line: int) -> None:
    allowed = CHOICES[(kind, key)]
    if value not in allowed:
        raise src.error(line, key, f"[{kind}] {key} {value!r} is not one of: {', '.join(repr(a) for a in allowed)}")


def strings(src: Source, kind: str, key: str, value: list[Any], line: int) -> list[str]:
    if not all(isinstance(v, str) for v in value):
        raise src.error(line, key, f"[{kind}] {key} must be a list of strings")
    return list(value)


def columns(src: Source, kind: str, value: dict[str, Any], line: int) -> dict[str, str]:
    """Column name -> RE2 pattern (compiled with the other patterns)."""
    out: dict[str, str] = {}
    for col, pat in value.items():
        if not isinstance(pat, str):
            raise src.error(line, col, f"[{kind}.columns] {col} must be a regular expression string")
        src.patterns.append((f"{kind}.columns", col, pat, line, False))
        out[col] = pat
    return out


def where(src: Source, kind: str, value: dict[str, Any], line: int) -> dict[str, list[str]]:
    """Column -> the values it is filtered by (one string is a list of one)."""
    out = {str(a): [b] if isinstance(b, str) else b for a, b in value.items()}
    if not all(isinstance(v, list) and v and all(isinstance(x, str) for x in v) for v in out.values()):
        raise src.error(line, "where", f"[{kind}] where values must be strings or lists of strings")
    return out


def globs(src: Source, kind: str, key: str, values: list[str], line: int) -> list[str]:
    """Globs from a file any pull request can change: bounded in wildcards."""
    from ..patterns import PatternError
    from .globs import glob_regex, is_glob

    for value in values:
        for segment in value.replace("**", "").split("/"):
            if segment.count("*") > _MAX_STARS:
                raise src.error(line, key, f"[{kind}] {key} {value!r} has more than {_MAX_STARS} '*' in one path segment; simplify the glob")
        try:
            if is_glob(value):  # a plain path is matched as text, never as a pattern
                glob_regex(value)
        except PatternError as exc:
            raise src.error(line, key, f"[{kind}] {key} {value!r} is not a glob RE2 can match: {exc}") from None
    return values


def inside(src: Source, kind: str, key: str, values: list[str], line: int) -> list[str]:
    """Paths from a file any pull request can change: each names a file
    inside the repository (relative, no `..`), never one outside it."""
    for value in values:
        parts = value.replace("\\", "/").split("/")
        if value.startswith("/") or ".." in parts or "\0" in value or (value[:1].isalpha() and value[1:2] == ":" and value[2:3] in ("", "/", "\\")):
            raise src.error(line, key, f"[{kind}] {key} {value!r} is not a path inside the repository; write it relative to the repository's top, without '..' or a leading '/'")
    return values


def compile_patterns(src: Source) -> None:
    """Every configured pattern compiled with RE2 (the one engine of every
    configured pattern); a ConfigError at the pattern's line if RE2 refuses
    it, or if a counting pattern lacks its (group)."""
    from .. import patterns

    for kind, key, value, line, group in src.patterns:
        try:
            compiled = patterns.compile(value)
        except patterns.PatternError as exc:
            raise src.error(line, key, f"[{kind}] {key} is not a valid regular expression: {exc}") from None
        if compiled.groups < 1 and group:
            raise src.error(line, key, f"[{kind}] {key} needs one (group) around the number")
