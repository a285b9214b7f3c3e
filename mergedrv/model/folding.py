"""Runs of plain table rows: what a merge changes, and what the parser need not see.

A pipe line at the margin that is not a delimiter row, an empty row, or a
line that could end an HTML block (a *plain row*) can only be one more body
row when it stands between two rows of a table, and only one more line of the
same text between two such lines of prose (no block starts with ``|``).  So
a version whose changes are plain rows among rows has the base's structure,
shifted (`shifted`: no parse for the usual merge), and the inner lines of a
run of folded rows of a skeleton can be left out of a parse (`thinned`: a
table of a million rows costs the parser two).  `tests/model/test_blocks.py` proves both against
a parse of the whole text.

A merge's stretches of rows that neither side changed are folded too
(`stretches`, `Fold`, `fold_rows`): each becomes one `Run` entry of its
table, so the record model and the merge cost a few objects where a million
rows would cost millions; `folds_hold` says when they read as the rows
would (`tests/merge/test_runs.py` compares the merges both ways).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from .document import Document, Row, Run, Table
from .edits import line_edits, scanned_edits
from .structure import Structure, TableSpan, maybe_delim

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .cache import Parsed

Edit = tuple[int, int, int, int]
Shift = tuple[list[bytes], list[bytes], list[Edit]]  # (old, new, the edit script) of a structure `shifted` found
Span = tuple[int, int, int, int]  # a stretch no side changed: (lo, hi, ours' offset, theirs')
Made = tuple[int, int, int, int, Run]  # a run the base made: its span and the `Run`

_HTML_ENDS = (b"-->", b"?>", b"]]>", b"</")


def plain_row(line: bytes) -> bool:
    """A plain row (see the module's doc): a pipe line at the margin, no CR
    inside, not a delimiter or an empty row (which the grammar reads as an
    error), nothing that could end an HTML block."""
    return (line[:1] == b"|" and line.endswith(b"\n") and b"\r" not in line[:-2] and bool(line.lstrip(b"|:- \t\r\n"))
            and not any(end in line for end in _HTML_ENDS))


def shifted(old: list[bytes], first: Structure, new: list[bytes], shifts: list[Shift] | None = None) -> Structure | None:
    """``new``'s structure without parsing, when every line it changed from
    ``old`` (whose structure is ``first``) is a plain row put among the body
    rows of one table at the margin (a row edited, added or deleted in a
    table's middle, or at its end before a blank line): the tables keep their
    shape, shifted.  None otherwise.  ``shifts``: where to keep (old, new,
    the edit script) of a structure so found (`stretches` reads them)."""
    if first.error_lines:
        return None
    edits = scanned_edits(old, new) or line_edits(old, new)
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
        elif maybe_delim(old[i2]):
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
        rows = range(delimiter + 1, end + 1)  # (a list of a million ints is 36 MB)
        out.tables.append(TableSpan(at(t.header), delimiter, rows, t.column, t.has_error))
    out.headings = [at(h) for h in first.headings]
    if shifts is not None:
        shifts.append((old, new, edits))
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


MIN_LINES = 4096  # a shorter file is merged row by row: folding costs more than it saves
MIN_RUN = 64  # rows of a stretch no side changed before they are folded into one `Run`


def stretches(versions: list[list[bytes]], shifts: list[Shift]) -> list[Span] | None:
    """The base's line ranges that neither side changed, each within one
    unchanged stretch of both sides: (lo, hi, ours' offset, theirs'), when
    both sides' structures are the base's, shifted (`shifted`: every line
    they changed is a plain row among rows, its script kept in ``shifts``,
    which this empties); else None."""
    base = versions[0]
    if len(versions) != 3 or len(base) < MIN_LINES:
        shifts.clear()
        return None
    per = []
    for side in versions[1:]:
        edits = next((e for o, n, e in shifts if o is base and n is side), None)
        if edits is None:
            shifts.clear()
            return None
        per.append(_equal(edits, len(base)))
    shifts.clear()
    for side, same in zip(versions[1:], per):  # a side's lines it left alone are the base's (one copy in memory)
        for lo, hi, d in same:
            if side[lo + d : hi + d] != base[lo:hi]:  # (never, the edit script says; in C)
                return None
            side[lo + d : hi + d] = base[lo:hi]
    out = []
    a, b = per
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi - lo >= MIN_RUN:
            out.append((lo, hi, a[i][2], b[j][2]))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def _equal(edits: list[tuple[int, int, int, int]], n: int) -> list[tuple[int, int, int]]:
    """The stretches an edit script leaves alone: (lo, hi, offset of the new version's line)."""
    out = []
    start = delta = 0
    for i1, i2, _, j2 in edits:
        if i1 > start:
            out.append((start, i1, delta))
        start, delta = i2, j2 - i2
    if n > start:
        out.append((start, n, delta))
    return out


def recent(lines: list[bytes], parsed: list[Parsed], shifts: list[Shift] | None = None) -> tuple[Parsed, Structure] | None:
    """A version ``parsed`` lately (`cache.ParseCache.recent`) whose
    structure, shifted, is that of ``lines`` (a check's parent differs from
    its index by a few rows): (its entry, the structure), or None.  Only
    versions that begin and end alike are tried."""
    for entry in parsed:
        old = entry[3]
        if old[:1] == lines[:1] and old[-1:] == lines[-1:] and abs(len(old) - len(lines)) <= 256:
            found = shifted(old, entry[4], lines, shifts)
            if found is not None:
                return entry, found
    return None


class Fold:
    """How a merge's parse folds one version's rows: the base (``base``
    None) finds runs in the ``spans`` of `stretches` and records them in
    ``made``, with their inner keys in ``elided``; a side folds the same
    lines, shifted.  ``bad``: a fold that would not read like the rows."""

    __slots__ = ("spans", "made", "elided", "base", "side", "bad", "done", "pos")

    def __init__(self, spans: list[tuple[int, int, int, int]] | None, base: Fold | None = None, side: int = 0) -> None:
        self.spans: list[tuple[Any, ...]] = list(spans or [])  # the base's `Span`s; a side's (lo, hi, the base's `Run`)
        self.made: list[Made] = []
        self.elided: set[str] = set()
        self.base, self.side, self.bad, self.done, self.pos = base, side, False, 0, 0  # pos: the first span not behind the tables read

    def ranges(self) -> list[tuple[Any, ...]]:
        """The spans to fold here: the base's stretches, or the runs it made, shifted to this side."""
        if self.base is not None and not self.spans and self.base.made:
            self.spans = [(a + d[self.side - 1], b + d[self.side - 1], run) for a, b, *d, run in self.base.made]  # (the base's `Run`)
        return self.spans


def fold_rows(table: Table, lines: list[bytes], first: int, end: int, key_at: Callable[[bytes], str | None],
              keys_of: Callable[[list[bytes]], list[str | None]], fold: Fold) -> None:
    """Read the body lines ``first``..``end`` of a keyed table into its rows
    as `model` does (``key_at``: a line's key, ``keys_of``: those of lines), each span of ``fold`` in it as one `Run` (the base:
    each stretch of at least `MIN_RUN` keyed rows, but its last, which stays
    a row of its own: nothing keyless can follow a run)."""
    rows, column, preamble = table.rows, table.column, table.preamble

    def one(i: int) -> None:
        k = key_at(lines[i])
        if k is None:
            (rows[-1].lines if rows else preamble).append(lines[i])
        else:
            rows.append(Row(i, [lines[i]], k, column))

    i = first
    spans = fold.ranges()
    while fold.pos < len(spans) and spans[fold.pos][1] <= first:  # (the tables come in order)
        fold.pos += 1
    for span in spans[fold.pos :]:
        if span[0] >= end:
            break
        lo, hi = max(span[0], first), min(span[1], end)
        if fold.base is not None and (lo, hi) != span[:2]:
            fold.bad = True  # a side's run outside the body of its table
        for j in range(i, lo):
            one(j)
        if fold.base is None:
            _fold_stretch(table, lines, lo, hi, keys_of, fold, span)
        else:  # the base's lines (`stretches` made them the same objects): its run's list
            rows.append(Run(lo, span[2].lines, span[2].key, column))
            table.runs += 1
            fold.done += 1
        i = hi
    for j in range(i, end):
        one(j)


def _fold_stretch(table: Table, lines: list[bytes], lo: int, hi: int, keys_of: Callable[[list[bytes]], list[str | None]], fold: Fold,
                  span: tuple[Any, ...]) -> None:
    """The base's lines ``lo``..``hi`` (no side changed them): each stretch
    of keyed rows long enough as a `Run` and its last row; the rest as rows."""
    rows, column = table.rows, table.column
    keys = keys_of(lines[lo:hi])
    cuts = [n for n, k in enumerate(keys) if k is None]
    start = 0
    for stop in [*cuts, len(keys)]:
        if stop - start >= MIN_RUN:
            folded = Run(lo + start, lines[lo + start : lo + stop - 1], keys[start], column)
            rows.append(folded)
            table.runs += 1
            inner = keys[start + 1 : stop - 1]
            before = len(fold.elided)
            fold.elided.update(inner)  # type: ignore[arg-type] # inside a stretch of keyed rows: each a str
            if len(fold.elided) - before != len(inner):
                fold.bad = True  # a key twice in the base
            fold.made.append((lo + start, lo + stop - 1, span[2], span[3], folded))
            rows.append(Row(lo + stop - 1, [lines[lo + stop - 1]], keys[stop - 1], column))
        else:
            rows.extend(Row(j, [lines[j]], keys[j - lo], column) for j in range(lo + start, lo + stop))
        if stop < len(keys):  # a line without a key: a line of the row above
            (rows[-1].lines if rows else table.preamble).append(lines[lo + stop])
        start = stop + 1


def folds_hold(docs: list[Document], folds: list[Fold]) -> bool:
    """Do the folded versions read as the whole rows would?  Every run the
    base made folded in both sides, no inner key of a run anywhere else (as
    a row of any keyed table of any version), a run's own key once in each
    version, and each table holding runs
    the only one under its headings (matched to the sides by them alone)."""
    base = folds[0]
    if any(f.bad for f in folds) or any(f.done != len(base.made) for f in folds[1:]):
        return False
    elided = base.elided
    tables = docs[0].keyed_tables()
    paths: dict[tuple[str, ...], int] = {}
    for t in tables:
        paths[t.path] = paths.get(t.path, 0) + 1
    if any(t.runs and paths[t.path] > 1 for t in tables):
        return False
    for doc in docs:
        keys = [r.key for t in doc.keyed_tables() for r in t.rows]
        if not elided.isdisjoint(keys):
            return False
        runs = {r.key for t in doc.keyed_tables() if t.runs for r in t.rows if type(r) is Run}
        if len(runs) < sum(t.runs for t in doc.keyed_tables()) or sum(k in runs for k in keys) > len(runs):
            return False  # a run's key once in each version: no plan for a key defined twice meets a run
    docs[0].elided = elided
    return True
