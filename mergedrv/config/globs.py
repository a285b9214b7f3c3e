"""Git-style globs of `.mergedrv.toml` matched against repository paths
(Python's re for a simple glob, RE2 for the rest: no glob can backtrack)."""

from __future__ import annotations

from .. import rx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


_RE2_SPECIAL = frozenset("\\.^$|?*+()[]{}")


_MADE: dict[str, tuple[Any, bool]] = {}


def glob_regex(pattern: str) -> tuple[Any, bool]:
    """The glob as a compiled pattern of the whole path, and whether it is
    Python's (matching str) rather than RE2's (UTF-8 bytes): one or two
    wildcards cannot backtrack much; more are RE2's (linear time: a glob
    from a pull request cannot backtrack)."""
    made = _MADE.get(pattern)
    if made is None:
        if len(_MADE) >= 16384:  # bounded; large enough that a configuration of thousands of globs compiles each once
            _MADE.clear()
        made = _MADE[pattern] = _compiled(pattern)
    return made


def _compiled(pattern: str) -> tuple[Any, bool]:
    from .. import patterns

    out = []
    i = 0
    pat = pattern.lstrip("/")
    # repeated wildcards match nothing more: collapse them first
    pat = rx.compile(r"(?:\*\*/)+").sub("**/", pat)
    pat = rx.compile(r"\*{3,}").sub("**", pat)
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
    if len(rx.compile(r"\*+").findall(pat)) <= 2:
        # one or two wildcards cannot backtrack much: Python's re (RE2 costs
        # the driver's start ~9 ms to import)
        try:
            return rx.compile("".join(out) + r"\Z", rx.S), True
        except Exception:  # noqa: BLE001 - re.error, without importing re
            pass
    return patterns.compile("(?s)" + "".join(out) + r"\z"), False


def is_glob(pattern: str) -> bool:
    """Whether a configured path names several files (wildcards, or a folder ending in /)."""
    return any(c in pattern for c in "*?[") or pattern.endswith("/")


def literal_prefix(pattern: str) -> str:
    """What every path ``pattern`` matches starts with: its text before the
    first wildcard ("" for a pattern without a slash, which matches a file
    name at any depth), so that a sorted listing is searched, not scanned."""
    if "/" not in pattern.rstrip("/"):
        return ""
    pat = pattern.lstrip("/")
    cut = min((i for i in (pat.find(c) for c in "*?[") if i >= 0), default=len(pat))
    return pat[:cut]


def glob_match(pattern: str, path: str) -> bool:
    """Git-style glob: ``*`` within a segment, ``**`` across segments.

    A pattern without a slash matches the file name at any depth, as in
    .gitattributes.  A glob RE2 refuses (checked when the configuration is
    loaded) matches nothing.
    """
    if "*" not in pattern and "?" not in pattern and "[" not in pattern and not pattern.endswith("/"):
        literal = pattern.lstrip("/")  # what the pattern's regex matches, without building it (the driver's start)
        return path == literal or ("/" not in pattern.rstrip("/") and path.rsplit("/", 1)[-1] == literal)
    from ..patterns import PatternError

    try:
        glob, python = glob_regex(pattern)
    except PatternError:
        return False
    raw = path if python else path.encode("utf-8", "surrogateescape")
    if "/" not in pattern.rstrip("/"):
        slash = "/" if isinstance(raw, str) else b"/"
        return glob.match(raw.rsplit(slash, 1)[-1]) is not None or glob.match(raw) is not None  # type: ignore[arg-type]
    return glob.match(raw) is not None
