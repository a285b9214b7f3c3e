"""Rendering: the merged prose with each table's items put back in place of
its placeholder, prose conflicts drawn as regions around the sides' own
tables, line endings and the final newline merged, conflicts numbered."""

from __future__ import annotations

from .. import model
from ..model import Document
from .keyless import KEYLESS, keyless_parts
from .values import Conflict, Ctx, Item, Result
from .prose import NO_EOL, Placeholders, Prose
from .rows import three
from .sides import Side


def edits_landed(rendered: dict[int, list[Item]], ctx: Ctx) -> None:
    """A row one side edited where the other moved it away from is merged
    where it moved to; if that table came out as a whole-table or prose
    conflict (the row not merged there), the edit is kept here instead, as
    a conflict."""
    for gid, k, base_lines, edited, side in ctx.moved:
        mover = side.other
        there = ctx.keys.where[mover].get(k)
        if there is not None and any(it.key == k and it.inside is None for it in rendered.get(there, [])):
            continue
        why = f"{mover.label} moved this row into a table that conflicts; the other side's edit of it is kept here"
        ours, theirs = (edited, []) if side is Side.OURS else ([], edited)
        rendered.setdefault(gid, []).append(ctx.regions.item(base_lines, ours, theirs, "modify-delete", k, why))


def _side_lines(lines: list[bytes], side: Side, ph: Placeholders) -> tuple[list[bytes], bool]:
    """A side's section of a prose conflict with its tables written out: (lines, held a table)."""
    res, had_table = [], False
    for line in lines:
        gid = ph.gid(line)
        if gid is None:
            res.append(line)
        else:
            had_table = True
            table = ph.by_gid[gid][side]
            assert table is not None  # (its placeholder is in this side's lines: the side has the table)
            res.extend(table.lines())
    return res, had_table


def _unended(line: bytes, docs: tuple[Document, Document, Document]) -> bytes:
    """The merged last line without the line ending the merge gave it: a CR
    that a version's own last line (without LF) ends with is a byte of that
    line, kept (``end\\r`` stays ``end\\r``)."""
    bare = line[:-1]
    if bare.endswith(b"\r") and bare not in {d.lines[-1] for d in docs if d.lines and not d.lines[-1].endswith(b"\n")}:
        bare = bare[:-1]
    return bare


_NO_EOL_LINE = NO_EOL + b"\n"


def _no_eol(out: list[bytes], eol: bytes) -> bool:
    """Prose lines that had no LF in their version, their `NO_EOL` mark
    taken off (True if there were any: the prose merge then merged the
    final newline with the last line): the last line of the result stays
    without LF; one that did not end up last (in a conflict region) ends as
    git ends it there (its CR and an LF, or the file's line ending)."""
    if not out or not any(line.endswith(_NO_EOL_LINE) for line in out):
        return False
    for i, line in enumerate(out):
        if line.endswith(_NO_EOL_LINE):
            bare = line[: -len(_NO_EOL_LINE)]
            out[i] = bare if i == len(out) - 1 else bare + (b"\n" if bare.endswith(b"\r") else eol)
    return True


def assemble(prose: Prose, rendered: dict[int, list[Item]], docs: tuple[Document, Document, Document], ctx: Ctx) -> Result:
    """The merged file and its conflicts."""
    out: list[bytes] = []
    conflicts: list[Conflict] = []
    used: set[int] = set()
    ph = prose.placeholders
    eol = ctx.regions.eol
    for h in prose.parts:
        if h.clean is not None:
            for line in h.clean:
                gid = ph.gid(line)
                if gid is None:
                    out.append(line)
                elif gid not in used:
                    used.add(gid)
                    for item in rendered[gid]:
                        if item.conflict is not None:
                            item.conflict.line = len(out) + 1
                            conflicts.append(item.conflict)
                        out.extend(item.lines)
            continue
        ours, t1 = _side_lines(h.ours, Side.OURS, ph)
        base, t2 = _side_lines(h.base, Side.BASE, ph)
        theirs, t3 = _side_lines(h.theirs, Side.THEIRS, ph)
        if t1 or t2 or t3:
            c = Conflict("table", "-", "both sides changed the lines around a table, or where it stands", len(out) + 1)
        else:
            c = Conflict("text", "-", "both sides changed the same lines of prose", len(out) + 1)
        conflicts.append(c)
        out.extend(ctx.regions.lines(base, ours, theirs))
    unended = _no_eol(out, eol)
    for i in range(len(out) - 1):
        if not out[i].endswith(b"\n"):
            out[i] += eol
    # whether the file ends with a newline is merged three-way as well
    # (unless the prose merge merged it, as part of the last line)
    if out and out[-1].endswith(b"\n") and not unended:
        ends = [not d.lines or d.lines[-1].endswith(b"\n") for d in docs]
        if not three(ends[0], ends[1], ends[2]):
            out[-1] = _unended(out[-1], docs)
    for c in conflicts:  # a keyless line's internal name is not for people
        if c.key[:1] == KEYLESS:
            c.why = f"{c.why} (the line without a key: {keyless_parts(c.key)[1]!r})"
            c.key = "-"
        elif model.NS in c.key:  # a later key column's key: its plain value
            c.key = model.shown(c.key)
    conflicts.sort(key=lambda c: c.line)
    if len(out) > 65536:  # bytes.join holds 80 bytes per part while it joins: a million lines in pieces
        out = [b"".join(out[i : i + 65536]) for i in range(0, len(out), 65536)]
    return Result(b"".join(out), conflicts, ctx.notes)
