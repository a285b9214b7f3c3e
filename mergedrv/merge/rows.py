"""The decision table (docs/spec.md#merging-a-keyed-table): one key within one
table, from its rows in base, ours and theirs, to a clean row, no row, or a
conflict; rows both sides changed merge cell by cell."""

from __future__ import annotations

from ..model.cells import shown

from .. import model
from ..model import Row
from .duplicates import decide_duplicate
from .keyless import KEYLESS
from .values import Ctx, Item
from .sequence import index as sequence_index, masked
from .sides import Side

TYPE_CHECKING = False  # typing is not imported on the driver's path (it costs a few ms)
if TYPE_CHECKING:
    from typing import TypeVar

    _T = TypeVar("_T")


def _seq(ctx: Ctx) -> int | None:
    """The sequence column of the table being decided (None: none); its cell never counts as a change."""
    return None if ctx.opts.sequence is None else sequence_index(ctx.table, ctx.opts.sequence)


def _text(rows: list[Row] | None, seq: int | None) -> bytes | None:
    return None if not rows else masked(rows[0], seq)


def three(o: _T, a: _T, b: _T) -> _T | None:
    """Three-way choice on whole values; None when both changed differently."""
    if a == o or a == b:
        return b
    if b == o:
        return a
    return None


def three_cell(o: bytes, a: bytes, b: bytes) -> bytes | None:
    """Three-way choice on one cell; a change of padding alone yields."""
    if a == o or a == b:
        return b
    if b == o:
        return a
    if a.strip() == o.strip():
        return b
    if b.strip() == o.strip():
        return a
    if a.strip() == b.strip():
        return a
    return None


def decide(k: str, o: list[Row] | None, a: list[Row] | None, b: list[Row] | None, ctx: Ctx, gid: int) -> list[Item]:
    """The decision table (docs/spec.md#merging-a-keyed-table) for one key within table ``gid``."""
    if k in ctx.plan:
        return decide_duplicate(k, ctx)
    seq = _seq(ctx)
    to, ta, tb = _text(o, seq), _text(a, seq), _text(b, seq)
    if to is None:
        elsewhere = None if ctx.opts.per_table else ctx.keys.occ[Side.BASE].get(k)  # the base has it in another table (per table: another row)
        if ta is None:
            assert b is not None  # (the key is in some version: here theirs)
            if elsewhere:  # theirs moved it here
                return _moved_here(k, elsewhere[0], b[0], Side.THEIRS, ctx)
            return [Item(b[0].lines, k, Side.THEIRS)]
        if tb is None:
            assert a is not None  # (ta is not None: ours has rows)
            if elsewhere:  # ours moved it here
                return _moved_here(k, elsewhere[0], a[0], Side.OURS, ctx)
            return [Item(a[0].lines, k, Side.OURS)]
        if elsewhere and len(elsewhere) == 1:  # both moved it here: the base row is the one they moved
            o, to = elsewhere, _text(elsewhere, seq)
    if to is None:
        assert a is not None and b is not None  # (ta and tb are not None: both sides have rows)
        return _added_twice(k, a[0], b[0], ctx)
    if ta is None and tb is None:
        return []
    assert o is not None  # (to is not None: the base has rows)
    if ta is None or tb is None:
        kept = Side.THEIRS if ta is None else Side.OURS
        rows = b if ta is None else a
        assert rows is not None  # (the side whose text is not None has rows)
        return _deleted(k, o[0], rows[0], kept, ctx, gid)
    assert a is not None and b is not None  # (ta and tb are not None: both sides have rows)
    if ta == to or ta == tb:
        if seq is not None and b[0].text == o[0].text:  # ours renumbered it, theirs left it
            return [Item(a[0].lines, k)]
        return [Item(b[0].lines, k)]
    if tb == to:
        return [Item(a[0].lines, k)]
    return [merge_cells(k, o[0], a[0], b[0], ctx)]


def _added_twice(k: str, a: Row, b: Row, ctx: Ctx) -> list[Item]:
    """Both sides added ``k`` to this table."""
    if masked(a, _seq(ctx)) == masked(b, _seq(ctx)):
        if ctx.opts.strict_additions:
            return [ctx.regions.item([], a.lines, b.lines, "double-definition", k, "both sides added this key (identical rows; strict mode)")]
        if k[:1] != KEYLESS:
            ctx.notes.append(f"{a.line + 1}: note: {shown(k)}: both sides added the same row; kept once")
        return [Item(a.lines, k)]
    why = f"ours (line {a.line + 1}) and theirs (line {b.line + 1}) both add this key with different content"
    if ctx.opts.numbered:
        why += _free_number(k, ctx)
    return [ctx.regions.item([], a.lines, b.lines, "double-definition", k, why)]


def _free_number(k: str, ctx: Ctx) -> str:
    """What a double definition of a numbered key says: the next free number and the command that moves it."""
    from ..numbering import next_free

    free = next_free(k, *(occ.keys() for occ in ctx.keys.occ))
    if free is None:
        return ""
    theirs = ctx.regions.markers.theirs
    if theirs in ("", "theirs"):  # no branch name (a rebase, or git < 2.44)
        return (f"; {shown(free)} is the next free number: on the branch that should move, `mergedrv renumber --onto <branch>`"
                " (the branch it merges into) moves its row there")
    return (f"; {shown(free)} is the next free number: `mergedrv renumber --onto {theirs}` moves this branch's row there"
            f" (or run `mergedrv renumber --onto <this branch>` on {theirs}), then merge again")


def _deleted(k: str, o: Row, kept: Row, side: Side, ctx: Ctx, gid: int) -> list[Item]:
    """The other side deleted ``k``; ``side`` kept it as ``kept``."""
    if masked(kept, _seq(ctx)) == masked(o, _seq(ctx)):
        return []
    if not ctx.opts.per_table and ctx.keys.moved_away(side.other, k):  # the deleting side moved it: decided there (checked in render.edits_landed)
        ctx.moved.append((gid, k, o.lines, kept.lines, side))
        return []
    why = f"{side.other.label} deleted the row that {side.label} changed ({side.label} line {kept.line + 1})"
    ours, theirs = (kept.lines, []) if side is Side.OURS else ([], kept.lines)
    return [ctx.regions.item(o.lines, ours, theirs, "modify-delete", k, why)]


def _moved_here(k: str, o: Row, moved: Row, mover: Side, ctx: Ctx) -> list[Item]:
    """``mover`` moved ``k`` into this table: the row lands here, with the
    other side's edit (made where it was) merged in."""
    other = mover.other
    kept = ctx.keys.occ[other].get(k)
    if kept is None:  # the other side deleted it
        if moved.text == o.text:
            return []
        why = f"{other.label} deleted the row that {mover.label} moved to another table and changed (line {moved.line + 1})"
        ours, theirs = (moved.lines, []) if mover is Side.OURS else ([], moved.lines)
        return [ctx.regions.item(o.lines, ours, theirs, "modify-delete", k, why)]
    if ctx.keys.moved_away(other, k) or len(kept) != 1:
        return [Item(moved.lines, k, mover)]  # both moved it: the cross-table check decides
    edited = kept[0]
    if edited.text == o.text or edited.text == moved.text:
        return [Item(moved.lines, k, mover)]
    if moved.text == o.text:
        return [Item(edited.lines, k, mover)]
    a, b = (edited, moved) if mover is Side.THEIRS else (moved, edited)
    return [merge_cells(k, o, a, b, ctx)]


def _cells_named(clash: list[int], ctx: Ctx) -> str:
    """``column State``, ``columns State, Owner``: the clashing cells by their header names."""
    if not clash:
        return "the row edges"
    table = ctx.table
    shown: list[str] = []
    if table is not None:
        shown = [c.decode("utf-8", "replace").strip().strip("*`").strip() for c in model.split_cells(table.header, table.column).cells]
    names = [shown[i] if i < len(shown) and shown[i] else f"#{i + 1}" for i in clash]
    return f"column{'s' if len(names) > 1 else ''} {', '.join(names)}"


def merge_cells(k: str, o: Row, a: Row, b: Row, ctx: Ctx) -> Item:
    """A row both sides changed: cell by cell, or a conflict."""

    def conflict(kind: str, why: str) -> Item:
        return ctx.regions.item(o.lines, a.lines, b.lines, kind, k, why)

    if not ctx.opts.cell_merge:
        return conflict("same-row", "both sides changed this row (cell merging is off)")
    if k[:1] == KEYLESS:  # a line without a key has no cells to line up by
        return conflict("same-row", "both sides changed this line differently")
    co, ca, cb = o.cells(), a.cells(), b.cells()
    if not (len(co.cells) == len(ca.cells) == len(cb.cells)):
        return conflict("same-row", "both sides changed this row and their cell counts differ")
    cells = []
    clash = []
    seq = _seq(ctx)
    for i, (x, y, z) in enumerate(zip(co.cells, ca.cells, cb.cells)):
        m = three_cell(x, y, z)
        if m is None and i == seq:
            m = y  # a sequence number: renumbered after the merge
        if m is None:
            clash.append(i)
            cells.append(y)
        else:
            cells.append(m)
    prefix = three_cell(co.prefix, ca.prefix, cb.prefix)
    suffix = three_cell(co.suffix, ca.suffix, cb.suffix)
    tail = three(o.lines[1:], a.lines[1:], b.lines[1:])
    if clash or prefix is None or suffix is None or tail is None:
        return conflict("same-cell", f"both sides changed {_cells_named(clash, ctx)} differently")
    line = model.Cells(prefix, cells, suffix).render()
    return Item([line, *tail], k)
