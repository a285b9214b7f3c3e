"""Logs (append-only ledgers): rows both sides appended are kept, ours
first; an existing row changed or removed on one side is a conflict unless
rows were only added inside the log (a rebase replaying appends)."""

from __future__ import annotations

from ..model import Row, Table
from ..model import split_lines as model_lines
from .values import Ctx, Item
from .rows import three
from .sides import Side


def _is_subsequence(short: list[bytes], long: list[bytes]) -> bool:
    """Does ``long`` hold every line of ``short``, in order?"""
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


def _common_prefix(x: list[bytes], y: list[bytes]) -> int:
    n = 0
    for p, q in zip(x, y):
        if p != q:
            break
        n += 1
    return n


def merge_log(o: Table, a: Table, b: Table, ctx: Ctx) -> list[Item] | None:
    """One log table; None: the header changed on both sides (a whole-table conflict)."""
    head = three([o.header, o.delimiter, *o.preamble], [a.header, a.delimiter, *a.preamble], [b.header, b.delimiter, *b.preamble])
    if head is None:
        return None
    ro, ra, rb = ([r.lines[0] for r in t.rows] for t in (o, a, b))
    n = len(ro)
    if (ra[:n] != ro or rb[:n] != ro) and _is_subsequence(ro, ra) and _is_subsequence(ro, rb):
        # no existing row changed or removed, but rows were added inside
        # the log, as a rebase does when it replays appends onto appends
        return [Item(list(head)), *_interleave(o, a, b)]
    if (ra[:n] != ro or rb[:n] != ro) and (len(ra) < n or len(rb) < n):
        return _rewritten(o, a, b, list(head), ctx)
    if not (_in_place(ro, ra) and _in_place(ro, rb)):
        # a side inserted rows inside the log and changed one: the rows no
        # longer line up by position; merged as git merges their lines
        return _as_text(o, a, b, list(head), ctx)
    items = [Item(list(head))]
    items.extend(_existing(o, a, b, ctx))
    _appended(o, a, b, items, ctx)
    return items


def _in_place(ro: list[bytes], rx: list[bytes]) -> bool:
    """Does every base row ``rx`` kept stand at its own place (so that the
    others were changed in place or appended at the end)?"""
    if rx[: len(ro)] == ro:
        return True
    from difflib import SequenceMatcher

    blocks = SequenceMatcher(None, ro, rx, autojunk=False).get_matching_blocks()
    return all(i == j for i, j, size in blocks if size)


def _as_text(o: Table, a: Table, b: Table, head: list[bytes], ctx: Ctx) -> list[Item]:
    """The log's rows merged as lines by `git merge-file`; if that conflicts, one conflict (`_rewritten`)."""
    from .fallback import merge_text

    ro, ra, rb = (b"".join(ln for r in t.rows for ln in r.lines) for t in (o, a, b))
    merged = merge_text(ro, ra, rb, ctx.regions.markers)
    if merged.conflicts:
        return _rewritten(o, a, b, head, ctx)
    return [Item(head), Item(model_lines(merged.data))]


def _rewritten(o: Table, a: Table, b: Table, head: list[bytes], ctx: Ctx) -> list[Item]:
    """A side changed or removed rows already in the log: one conflict from there on."""
    ro, ra, rb = ([r.lines[0] for r in t.rows] for t in (o, a, b))
    n = len(ro)
    pa = _common_prefix(ro, ra)
    pb = _common_prefix(ro, rb)
    p = min(pa, pb)
    side = Side.OURS if ra[:n] != ro else Side.THEIRS
    row = o.rows[min(pa if side is Side.OURS else pb, n - 1)] if n else None
    where = f" (base line {row.line + 1})" if row is not None else ""
    why = f"{side.label} changed or removed a row that was already in the log{where}; a log only grows at the end"
    keep = [Item(head)]
    for r in o.rows[:p]:
        keep.append(Item(list(r.lines)))

    def tail(t: Table) -> list[bytes]:
        return [ln for r in t.rows[p:] for ln in r.lines]

    keep.append(ctx.regions.item(tail(o), tail(a), tail(b), "log", "-", why, row=False))
    return keep


def _existing(o: Table, a: Table, b: Table, ctx: Ctx) -> list[Item]:
    """The rows already in the log, each merged three-way."""
    n = len(o.rows)
    appended = len(a.rows) > n or len(b.rows) > n
    items = []
    for i in range(n):
        lo, la, lb = o.rows[i].lines, a.rows[i].lines, b.rows[i].lines
        if i == n - 1 and appended:
            # the blank lines before the appended rows are the appending
            # side's (ours' when both appended; theirs' come after ours)
            lines = la if len(a.rows) > n else lb
        else:
            lines = three(lo, la, lb) or la  # a change to the blank lines between rows
        # an existing row one side changed takes that change (`log-append-only`
        # reports it at commit time); changed differently on both: a conflict
        row = three(lo[0], la[0], lb[0])
        if row is None:
            why = f"both sides changed a row that was already in the log (base line {o.rows[i].line + 1}) differently"
            items.append(ctx.regions.item(lo[:1], la[:1], lb[:1], "log", "-", why, row=False))
            items.append(Item(list(lines[1:])))
            continue
        items.append(Item([row, *lines[1:]]))
    return items


def _appended(o: Table, a: Table, b: Table, items: list[Item], ctx: Ctx) -> None:
    """Rows appended: ours', then theirs' new ones."""
    n = len(o.rows)
    appended_a = a.rows[n:]
    appended_b = b.rows[n:]
    seen = {r.lines[0] for r in appended_a}
    for r in appended_a:
        items.append(Item(list(r.lines)))
    extra = [r for r in appended_b if r.lines[0] not in seen]
    for r in appended_b:
        if r.lines[0] in seen:
            ctx.notes.append(f"{r.line + 1}: note: -: both sides appended the same log row; kept once")
    if extra and appended_a:
        # theirs' rows follow ours' the way theirs joined them to the log
        joint = b.rows[n - 1].lines[1:] if n else []
        last = items[-1].lines
        if joint and last and last[-1].strip():
            last.extend(joint)
    for r in extra:
        items.append(Item(list(r.lines)))


def _interleave(o: Table, a: Table, b: Table) -> list[Item]:
    """Ours' rows in ours' order, with each row theirs added placed after
    its neighbour in theirs (after rows ours added there)."""
    in_o = {r.lines[0] for r in o.rows}
    in_a = {r.lines[0] for r in a.rows}
    anchored: dict[bytes | None, list[Row]] = {}
    prev: bytes | None = None
    for r in b.rows:
        line = r.lines[0]
        if line not in in_o and line not in in_a:
            anchored.setdefault(prev, []).append(r)
        prev = line
    out: list[Item] = []

    def flush(anchor: bytes | None) -> None:
        stack = list(reversed(anchored.pop(anchor, [])))
        while stack:
            r = stack.pop()
            out.append(Item(list(r.lines)))
            stack.extend(reversed(anchored.pop(r.lines[0], [])))

    due: bytes | None = None
    waiting = True
    for r in a.rows:
        line = r.lines[0]
        if waiting and line in in_o:  # theirs' rows come before the next base row
            flush(due)
            waiting = False
        out.append(Item(list(r.lines)))
        if line in anchored or line in in_o:
            if waiting:
                flush(due)
            due, waiting = line, True
    flush(due)
    for rest in list(anchored):
        flush(rest)
    return out
