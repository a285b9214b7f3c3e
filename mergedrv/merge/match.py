"""Matching tables across versions: which table of ours and of theirs is
which table of the base (a `Group`), by heading path, shared keys, shared
row lines, then position."""

from __future__ import annotations

from itertools import filterfalse

from ..model import Document, Row, Table
from .sides import SIDES, Side

TYPE_CHECKING = False  # typing is not imported on the driver's path (it costs a few ms)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import TypeVar

    _Item = TypeVar("_Item", str, bytes)  # what tables share: keys or row lines

_Ident = tuple[tuple[str, ...], int]  # a table's heading path and its position under it
_Score = tuple[int, bool, int, int]  # (-shared, not the same place, side table, base table)


class Group:
    """One table as it stands in base, ours and theirs (None: absent); index it by `Side`."""

    __slots__ = ("gid", "tables")

    def __init__(self, gid: int, base: Table | None = None, ours: Table | None = None, theirs: Table | None = None) -> None:
        self.gid = gid
        self.tables: list[Table | None] = [base, ours, theirs]

    def __getitem__(self, side: Side) -> Table | None:
        return self.tables[side]

    def __setitem__(self, side: Side, table: Table | None) -> None:
        self.tables[side] = table


def table_text(t: Table | None) -> bytes | None:
    return None if t is None else b"".join(t.lines())


def _identity(tables: list[Table]) -> list[tuple[tuple[str, ...], int]]:
    """Each table's heading path and its position among tables under it."""
    seen: dict[tuple[str, ...], int] = {}
    out = []
    for t in tables:
        n = seen.get(t.path, 0)
        seen[t.path] = n + 1
        out.append((t.path, n))
    return out


class _Base:
    """The base's tables, indexed for matching."""

    def __init__(self, tables: list[Table]) -> None:
        self.tables = tables
        self.ident = _identity(tables)
        self.paths: dict[tuple[str, ...], list[int]] = {}
        for gi, t in enumerate(tables):
            self.paths.setdefault(t.path, []).append(gi)
        self.keys = [set(t.keys()) for t in tables]


def match_tables(base: list[Table], ours: list[Table], theirs: list[Table]) -> list[Group]:
    """Match each side's tables to the base's.

    1. A heading path (every heading above the table) that holds exactly one
       table on both sides names the same table, wherever it moved.
    2. Tables left over (several under one heading, or a renamed heading)
       match by the keys they share, the most shared first.
    3. Then by heading path and position under it; what is left is new, and
       tables new on both sides match by heading path.
    """
    groups = [Group(i, t) for i, t in enumerate(base)]
    o = _Base(base)
    new: dict[_Ident, Group] = {}
    for side, tables in zip(SIDES, (ours, theirs)):
        _match_side(groups, o, side, tables, new)
    return groups


def _match_side(groups: list[Group], o: _Base, side: Side, tables: list[Table], new: dict[_Ident, Group]) -> None:
    idents = _identity(tables)
    t_paths: dict[tuple[str, ...], int] = {}
    for t in tables:
        t_paths[t.path] = t_paths.get(t.path, 0) + 1
    taken: set[int] = set()
    free = set(range(len(o.tables)))
    for ti, t in enumerate(tables):
        home = o.paths.get(t.path, [])
        if t_paths[t.path] == 1 and len(home) == 1:
            groups[home[0]][side] = t
            taken.add(ti)
            free.discard(home[0])
    key_index: dict[str, list[int]] = {}
    for gi in sorted(free):
        for k in o.keys[gi]:
            key_index.setdefault(k, []).append(gi)
    scores = _shared_scores(tables, taken, free, key_index, lambda t: set(t.keys()), idents, o.ident)
    _claim(scores, groups, side, tables, taken, free)
    # tables that share no key (logs, tables of keyless rows) match by
    # the row lines they share before position does: matching by
    # position alone pairs a side's table with another one of the base
    line_index: dict[bytes, list[int]] = {}
    for gi in sorted(free):
        for ln in _row_line_set(o.tables[gi]):
            line_index.setdefault(ln, []).append(gi)
    scores = _shared_scores(tables, taken, free, line_index, _row_line_set, idents, o.ident)
    _claim(scores, groups, side, tables, taken, free)
    by_ident = {o.ident[gi]: gi for gi in free}
    for ti, t in enumerate(tables):
        if ti in taken:
            continue
        gi = by_ident.pop(idents[ti], None)
        if gi is not None:
            groups[gi][side] = t
            continue
        g = new.get(idents[ti])
        if g is None or g[side] is not None:
            g = Group(len(groups))
            groups.append(g)
            new[idents[ti]] = g
        g[side] = t


def _claim(scores: list[_Score], groups: list[Group], side: Side, tables: list[Table], taken: set[int], free: set[int]) -> None:
    """Pair tables by score, the most shared first."""
    for _, _, ti, gi in sorted(scores):
        base = groups[gi][Side.BASE]
        if base is not None and (base.detached is None) != (tables[ti].detached is None):
            continue  # detached rows and a table proper are never one table
        if ti not in taken and gi in free:
            groups[gi][side] = tables[ti]
            taken.add(ti)
            free.discard(gi)


def _row_line_set(t: Table) -> set[bytes]:
    return {ln for r in t.rows for ln in r.lines if ln.strip()}


def _shared_scores(tables: list[Table], taken: set[int], free: set[int], index: dict[_Item, list[int]],
                   items_of: Callable[[Table], Iterable[_Item]], idents: list[_Ident], o_ident: list[_Ident]) -> list[_Score]:
    """(-shared, not the same place, side table, base table) for each pair
    of a side's table left over and a free base table that share items
    (keys or row lines), found through ``index`` (item -> base tables):
    linear in the items, not in the product of the table counts."""
    scores: list[_Score] = []
    if not index:
        return scores
    for ti, t in enumerate(tables):
        if ti in taken:
            continue
        shared: dict[int, int] = {}
        for item in items_of(t):
            for gi in index.get(item, ()):
                if gi in free:
                    shared[gi] = shared.get(gi, 0) + 1
        for gi, n in shared.items():
            scores.append((-n, idents[ti] != o_ident[gi], ti, gi))
    return scores


def rows_turned_prose(docs: tuple[Document, Document, Document], occ: list[dict[str, list[Row]]]) -> str | None:
    """Why a keyed merge would misread the sides, or None: a side that no
    longer has a base row in any keyed table but holds its line outside
    them (a line it inserted, such as ``---``, ``- item`` or ``> x``, ended
    the table there and the rows after it read as prose).  Merged by rows,
    the other side's edits or deletions of them would be lost or would
    conflict for nothing; git's text merge of the file reads them as lines."""
    base = occ[Side.BASE]
    was: set[bytes] | None = None
    for side in SIDES:
        mine = occ[side]
        gone = list(filterfalse(mine.__contains__, base))  # (in C)
        if not gone:
            continue
        now = _outside(docs[side])
        was = _outside(docs[Side.BASE]) if was is None else was  # (a line the base also has as prose, say in an example, is no sign)
        for k in gone:
            if any(r.lines[0].strip() in now and r.lines[0].strip() not in was for r in base[k]):
                return f"{side.label} turned rows of a table into prose (row {k} now outside any table)"
    return None


def prose_turned_rows(docs: tuple[Document, Document, Document], occ: list[dict[str, list[Row]]]) -> str | None:
    """Why a keyed merge would misread the sides, or None: a side whose keyed
    table has a header, or a row the base has no key for, that the base
    holds as a line outside its keyed tables and the side no longer does
    (it mended a delimiter row whose cell count did not match its header,
    or gave a table its key column: the base's text became a table).  The
    prose merge would see that side replace those lines with a table and
    the other side's edits around them conflict for nothing; git's text
    merge of the file reads them as lines."""
    was: set[bytes] | None = None
    for side in SIDES:
        if side is Side.BASE:
            continue
        lines = [t.header.strip() for t in docs[side].keyed_tables()]
        mine = occ[side]
        lines.extend(r.lines[0].strip() for k in filterfalse(occ[Side.BASE].__contains__, mine) for r in mine[k])  # (in C)
        if not lines:
            continue
        was = _outside(docs[Side.BASE]) if was is None else was
        found = [line for line in lines if line in was]
        if found:
            now = _outside(docs[side])
            line = next((x for x in found if x not in now), None)
            if line is not None:
                return f"{side.label} turned prose into a table (its line {line.decode(errors='replace')[:60]!r} was text in the base)"
    return None


def _outside(doc: Document) -> set[bytes]:
    """The stripped lines of a version outside its keyed tables."""
    keyed = {id(t) for t in doc.keyed_tables()}
    return {ln.strip() for b in doc.blocks if id(b) not in keyed for ln in doc.lines[b.start : b.end]}
