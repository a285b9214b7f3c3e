"""Runs of plain table rows: what a merge changes, and what the parser need not see.

A pipe line at the margin that is not a delimiter row, an empty row, or a
line that could end an HTML block (a *plain row*) can only be one more body
row when it stands between two rows of a table, and only one more line of the
same text between two such lines of prose (no block starts with ``|``).  So
a version whose changes are plain rows among rows has the base's structure,
shifted (`shifted`: no parse for the usual merge), and the inner lines of a
run of folded rows of a skeleton can be left out of a parse (`thinned`: a
table of a million rows costs the parser two).  `tests/test_blocks.py` proves both against
a parse of the whole text.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from .blocks import Structure, TableSpan, _maybe_delim, line_edits

_HTML_ENDS = (b"-->", b"?>", b"]]>", b"</")


def plain_row(line: bytes) -> bool:
    """A plain row (see the module's doc): a pipe line at the margin, no CR
    inside, not a delimiter or an empty row (which the grammar reads as an
    error), nothing that could end an HTML block."""
    return (line[:1] == b"|" and line.endswith(b"\n") and b"\r" not in line[:-2] and bool(line.lstrip(b"|:- \t\r\n"))
            and not any(end in line for end in _HTML_ENDS))


def shifted(old: list[bytes], first: Structure, new: list[bytes]) -> Structure | None:
    """``new``'s structure without parsing, when every line it changed from
    ``old`` (whose structure is ``first``) is a plain row put among the body
    rows of one table at the margin (a row edited, added or deleted in a
    table's middle, or at its end before a blank line): the tables keep their
    shape, shifted.  None otherwise."""
    if first.error_lines:
        return None
    edits = line_edits(old, new)
    tables = first.tables
    last: dict[int, int] = {}  # table -> its last row in ``new``, when an edit ends the table
    k = 0
    heads = set(first.headings)
    for i1, i2, j1, j2 in edits:
        while k < len(tables) and (not tables[k].rows or tables[k].rows[-1] + 1 < i2):
            k += 1
        t = tables[k] if k < len(tables) else None
        if not all(map(plain_row, new[j1:j2])):
            return None
        if t is None or t.header > i2:  # among pipe lines of prose (detached rows): between two of them
            if not (0 < i1 and i2 < len(old) and all(map(plain_row, old[i1 - 1 : i2 + 1]))) or heads.intersection(range(i1 - 1, i2 + 2)):
                return None
            continue
        if t.column or t.has_error or i1 <= t.delimiter:
            return None
        if i2 == t.rows[-1] + 1:  # the table's end: a blank line (or the file's end) still ends it
            if i2 < len(old) and old[i2].strip():
                return None
            last[k] = j2 - 1
        elif _maybe_delim(old[i2]):
            return None
    starts = [e[0] for e in edits]
    shift = list(accumulate(((j2 - j1) - (i2 - i1) for i1, i2, j1, j2 in edits), initial=0))

    def at(line: int) -> int:  # an unchanged line's index in ``new``
        return line + shift[bisect_right(starts, line)]

    out = Structure()
    for n, t in enumerate(tables):
        end = last[n] if n in last else at(t.rows[-1]) if t.rows else -1
        delimiter = at(t.delimiter)
        if t.rows and end <= delimiter:
            return None  # every row deleted
        out.tables.append(TableSpan(at(t.header), delimiter, list(range(delimiter + 1, end + 1)), t.column, t.has_error))
    out.headings = [at(h) for h in first.headings]
    return out


def thinned(skel: list[bytes]) -> list[int] | None:
    """The lines of a skeleton to parse when the inner lines of every run of
    folded rows (``|x``, which can neither start nor end any block) are left
    out; None: all of them."""
    folded = [x == b"|x\n" or x == b"|x\r\n" for x in skel]
    n = len(skel)
    if n < 3 or folded.count(True) < 3:
        return None
    kept = [i for i in range(n) if not (folded[i] and 0 < i < n - 1 and folded[i - 1] and folded[i + 1])]
    return kept if len(kept) < n else None


_RECENT: list[tuple] = []  # the last first versions parsed: (tree, skeleton, starts, lines, structure)


def remember(entry: tuple) -> None:
    """Keep a parsed version for `recent` (the last four)."""
    _RECENT.insert(0, entry)
    del _RECENT[4:]


def recent(lines: list[bytes]) -> tuple[tuple, Structure] | None:
    """A version parsed lately whose structure, shifted, is that of ``lines``
    (a check's parent differs from its index by a few rows): (its entry, the
    structure), or None.  Only versions that begin and end alike are tried."""
    for entry in _RECENT:
        old = entry[3]
        if old[:1] == lines[:1] and old[-1:] == lines[-1:] and abs(len(old) - len(lines)) <= 256:
            found = shifted(old, entry[4], lines)
            if found is not None:
                return entry, found
    return None
