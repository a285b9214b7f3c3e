"""Cells of a markdown table row, split the way GitHub splits them (an escaped
``\\|`` stays inside its cell), and the keys and names read from them."""

from __future__ import annotations

from .. import rx
from ..names import normalize_name  # noqa: F401 - the model's cells name it too

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..values import KeySpec, PatternSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_PIPE = rx.compile(rb"(?<!\\)\|")


# what GitHub shows of a link, an image, an autolink or inline HTML: its text
_TARGET = r"\(\s*(?:<[^<>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
_LINK = r"!?\[((?:[^\[\]\\]|\\.)*)\](?:" + _TARGET + r"|\[[^\[\]]*\])"
_AUTOLINK = r"<((?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*)|(?:[^<>\s@]+@[^<>\s@]+))>"
_HTML_TAG = r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>"
# compiled when a cell first holds markup (~0.4 ms of every process's start otherwise)
_MARKUP_RX: list[re.Pattern[str]] = []


def visible_text(text: str) -> str:
    """``text`` as GitHub shows it: link and image text without the target,
    an autolink's address, inline HTML without its tags."""
    if "[" not in text and "<" not in text:
        return text
    if not _MARKUP_RX:
        _MARKUP_RX[:] = [rx.compile(_LINK), rx.compile(_AUTOLINK), rx.compile(_HTML_TAG)]
    link, autolink, tag = _MARKUP_RX
    if "[" in text:
        text = link.sub(lambda m: m.group(1), text)
    if "<" in text:
        text = tag.sub("", autolink.sub(lambda m: m.group(1), text))
    return text


def clean_key(cell: bytes) -> str:
    """A key cell's visible text: surrounding whitespace, backticks and **
    removed, a link's or an image's target and inline HTML tags dropped."""
    text = cell.strip()
    if text[:1] == b"`" and text[-1:] == b"`" and b"`" not in text[1:-1] and b"*" not in text:
        return text[1:-1].strip().decode("utf-8", "replace")  # the common `ID` form
    text = cell.decode("utf-8", "replace").strip()
    if "[" in text or "<" in text:
        text = visible_text(text).strip()
    while True:
        stripped = text.strip().strip("`").strip()
        if stripped.startswith("**") and stripped.endswith("**") and len(stripped) >= 4:
            stripped = stripped[2:-2]
        if stripped == text:
            return text
        text = stripped


class Cells:
    """A row line split GitHub-style: prefix | cell | cell ... suffix.

    ``prefix + b"|".join(cells) + suffix`` is the line, byte for byte.
    """

    __slots__ = ("prefix", "cells", "suffix")

    def __init__(self, prefix: bytes, cells: list[bytes], suffix: bytes) -> None:
        self.prefix = prefix
        self.cells = cells
        self.suffix = suffix

    def __repr__(self) -> str:
        return f"Cells({self.prefix!r}, {self.cells!r}, {self.suffix!r})"

    def render(self) -> bytes:
        return self.prefix + b"|".join(self.cells) + self.suffix


_KEY_RX: dict[int, re.Pattern[bytes]] = {}
_CELL = rb"(?:[^|\n]|(?<=\\)\|)*+"  # a pipe after a backslash is text, as `_PIPE` reads it


# a plain first cell (letters, digits, ``_.:/#+-``, single spaces; or that
# in backticks): what `clean_key` makes of it is its text, found in one match
# (compiled at the first key read: 0.2 ms of every process's start otherwise)
_PLAIN_KEY = rb"[ \t]*+\|?[ \t]*(?:`([\w.:/#+-]+)`|([\w.:/#+-]+(?: [\w.:/#+-]+)*))[ \t]*\|"
_PLAIN_RX: list[re.Pattern[bytes]] = []


def plain_key() -> re.Pattern[bytes]:
    """The compiled `_PLAIN_KEY`: group 1 or 2 of a match is the key."""
    if not _PLAIN_RX:
        _PLAIN_RX.append(rx.compile(_PLAIN_KEY, rx.A))
    return _PLAIN_RX[0]


def key_of(line: bytes, column: int, key_col: int) -> str | None:
    """The cleaned key cell of a row line (None if empty or missing): one
    regex match in C instead of splitting a 40 KB row."""
    if key_col == 0:
        m = (_PLAIN_RX[0] if _PLAIN_RX else plain_key()).match(line, column)
        if m is not None:
            return (m.group(1) or m.group(2)).decode("ascii")
    return _key_of(line, column, key_col)


def _key_of(line: bytes, column: int, key_col: int) -> str | None:
    """`key_of` for any cell (`clean_key`)."""
    if key_col == 0:  # the usual case, with bytes.find instead of the regex
        start = column
        while start < len(line) and line[start] in b" \t":
            start += 1
        if line[start : start + 1] == b"|":
            start += 1
        stop = line.find(b"|", start)
        if stop >= 0 and line.find(b"\\", start, stop) < 0:
            return clean_key(line[start:stop]) or None
    pat = _KEY_RX.get(key_col)
    if pat is None:
        pat = _KEY_RX[key_col] = rx.compile(rb"[ \t]*+\|?+(?:" + _CELL + rb"\|){" + str(key_col).encode() + rb"}(" + _CELL + rb")")
    m = pat.match(line, column)
    if m and (m.end() < len(line) and line[m.end()] == 0x7C or key_col == 0 or m.group(1).strip()):
        return clean_key(m.group(1)) or None
    return None


def cell_at(line: bytes, column: int, index: int) -> bytes | None:
    """Cell ``index`` of a table line, as `split_cells` gives it (None if the
    row is shorter), without splitting or copying the rest of a 40 KB row."""
    start = column
    while start < len(line) and line[start] in b" \t":
        start += 1
    if line[start : start + 1] == b"|":
        start += 1
    pos = start
    pipes = 0
    for m in _PIPE.finditer(line, start):
        if pipes == index:
            return line[pos : m.start()]
        pos = m.end()
        pipes += 1
    # no pipe after cell ``index``: it is the last cell, unless a closing pipe
    # already ended the row
    rest = line[pos:]
    if rest.endswith(b"\n"):  # the line ending, as `_cell_bounds` reads it
        rest = rest[:-1]
        rest = rest[:-1] if rest.endswith(b"\r") else rest
    if index == pipes and (pipes == 0 or rest.strip(b" \t")):
        return rest
    return None


def _cell_bounds(line: bytes, column: int) -> tuple[int, int]:
    """Where the cells of a table line start and stop: after the indent and the
    leading pipe, before the closing pipe (and its trailing blanks) or the line ending."""
    end = len(line)
    if line.endswith(b"\n"):
        end -= 1
        if line[:end].endswith(b"\r"):
            end -= 1
    start = column
    while start < end and line[start] in b" \t":
        start += 1
    if start < end and line[start] == 0x7C:  # leading pipe
        start += 1
    stop = end
    while stop > start and line[stop - 1] in b" \t":
        stop -= 1
    if stop > start and line[stop - 1] == 0x7C and (stop - 2 < start or line[stop - 2] != 0x5C):
        stop -= 1
    else:
        stop = end  # no closing pipe: trailing space belongs to the last cell
    return start, stop


def split_cells(line: bytes, column: int = 0) -> Cells:
    """Split a table line (with or without its line ending) into cells."""
    start, stop = _cell_bounds(line, column)
    return Cells(line[:start], _PIPE.split(line[start:stop]), line[stop:])


def cell_count(line: bytes, column: int = 0) -> int:
    """``len(split_cells(line, column).cells)`` without building the cells."""
    if b"\\" not in line:  # (no escaped pipe: the bounds as `_cell_bounds` finds them, in C)
        body = line[column:]
        if body.endswith(b"\n"):
            body = body[:-2] if body.endswith(b"\r\n") else body[:-1]
        body = body.strip(b" \t")
        n = body.count(b"|") + 1
        if body[:1] == b"|":
            n -= 1
            body = body[1:].rstrip(b" \t")
        return n - 1 if body[-1:] == b"|" else n
    start, stop = _cell_bounds(line, column)
    body = line[start:stop]
    return body.count(b"|") - body.count(b"\\|") + 1  # a pipe after a backslash separates nothing


# --- several key columns (issue #12) ----------------------------------------
# A record may name several key columns; each table is keyed by the first of
# them its header holds, and keys are unique within one column's namespace.
# The first column's keys are their plain value; another column's carry its
# name and NS before the value (``#\x1fC5``), so a `#` value never meets a
# `Block` value; `shown` gives back the plain value for messages.
NS = "\x1f"
# A key repeated across the groups of a table (`groups`) carries its group's
# label and GS before the value (after a column's namespace): ``Zipkin\x1dSpan``.
GS = "\x1d"


def key_columns(key: KeySpec | list[str]) -> tuple[str, ...]:
    """The declared key columns, in order (one string is one column)."""
    if key is None:
        return ()
    return (key,) if isinstance(key, str) else tuple(key)


def shown(key: str) -> str:
    """A key as the file writes it (without its column's namespace or its group)."""
    if NS in key:
        key = key.rpartition(NS)[2]
    return key.rpartition(GS)[2] if GS in key else key


def namespace(key: str) -> str | None:
    """The declared column a key belongs to (None: the first column)."""
    return key.partition(NS)[0] if NS in key else None


def pattern_for(key_pattern: PatternSpec, column: str) -> str | None:
    """The key pattern of declared key column ``column``: one pattern applies
    to every column; a table of them gives each column its own (a column it
    does not name has none)."""
    if key_pattern is None or isinstance(key_pattern, str):
        return key_pattern
    want = normalize_name(column)
    for name, pattern in key_pattern:
        if normalize_name(name) == want:
            return pattern
    return None


def any_pattern(key_pattern: PatternSpec) -> str | None:
    """One pattern matching a key of any column (refs: which words are IDs)."""
    if key_pattern is None or isinstance(key_pattern, str):
        return key_pattern
    pats = [p for _, p in key_pattern]
    return pats[0] if len(pats) == 1 else "|".join(f"(?:{p})" for p in pats) if pats else None
