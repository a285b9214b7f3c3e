"""Keyed tables: one table `Group` merged as a whole (added, deleted, header
and shape changed) and row by row in the order of the side that kept it
(`rows.decide` for each key, `placement` for where rows go)."""

from __future__ import annotations

from ..model import Row, Table
from ..model.cells import shown
from .duplicates import CONFLICT, KEEP, rows_by_key
from .keyless import KEYLESS, row_key
from .match import Group, table_text
from .values import Ctx, Fallback, Item, Unfit
from .placement import group_rows, insert_after_neighbours, ragged_forms, realign, reordered, stray_row
from .rows import decide, three
from .sides import Side


def _empty_like(t: Table) -> Table:
    empty = Table(t.start, t.start, t.header, t.delimiter, t.column, t.heading, t.columns, t.key_col)
    empty.key_name, empty.detached, empty.path = t.key_name, t.detached, t.path
    return empty


def merge_group(g: Group, ctx: Ctx) -> list[Item]:
    """One table as it stands in the three versions, merged to items."""
    o, a, b = g.tables
    present = [t for t in (a, b) if t is not None]
    if o is None and len(present) == 1:
        t = present[0]
        if ctx.opts.log:
            return [Item(t.lines())]
        empty = _empty_like(t)
        return merge_keyed(empty, a or empty, b or empty, g.gid, ctx)
    if a is None or b is None:
        # one side deleted the table; the other kept it where the text
        # merge put it (it may have moved it): deleted if the keeping side
        # left its content alone, else a conflict that shows both
        keep, side = (a, Side.OURS) if a is not None else (b, Side.THEIRS)
        if table_text(keep) == table_text(o):
            return []
        assert keep is not None and o is not None  # (a group some version has, not added by one side alone: handled above)
        why = f"{side.other.label} deleted the table that {side.label} changed"
        ours, theirs = (keep.lines(), []) if side is Side.OURS else ([], keep.lines())
        return [ctx.regions.item(o.lines(), ours, theirs, "table", keep.heading or "-", why, row=False)]
    if o is None:
        if [a.header, a.delimiter] != [b.header, b.delimiter]:
            # added on both sides with different headers: neither header
            # is the base's, so neither replaces the other
            return whole_table_conflict(None, a, b, "both sides added this table with different headers", ctx)
        o = _empty_like(a)
    if ctx.opts.log:
        from .logs import merge_log  # (a keyed record's merge does without it)

        items = merge_log(o, a, b, ctx)
        return items if items is not None else whole_table_conflict(o, a, b, "both sides changed the ledger's header", ctx)
    return merge_keyed(o, a, b, g.gid, ctx)


def whole_table_conflict(o: Table | None, a: Table, b: Table, why: str, ctx: Ctx) -> list[Item]:
    item = ctx.regions.item(o.lines() if o is not None else [], a.lines(), b.lines(), "header", a.heading or "-", why, row=False)
    inside = [{k for k in t.keys() if k[:1] != KEYLESS} if t is not None else set[str]() for t in (o, a, b)]
    item.inside = (inside[0], inside[1], inside[2])
    return [item]


def _items_of(t: Table, side: Side) -> list[Item]:
    """A whole table as items, each row with its key (so that the
    cross-table check still sees them)."""
    return [Item(list(t.head_lines)), *(Item(r.lines, r.key, side) for r in t.rows)]


def merge_head(o: Table, a: Table, b: Table, ctx: Ctx, gid: int = -1) -> tuple[list[Item], bool] | None:
    """Merge header, delimiter and preamble: (items, whether they are the
    whole table).  None: the whole table conflicts."""
    ho, ha, hb = ([t.header, t.delimiter] if t.detached is None else [] for t in (o, a, b))
    # the same columns in the same places (names compared without markup;
    # a renamed column keeps its cells, a swapped or added one does not)
    same_shape = _same_columns(o, a) and _same_columns(o, b)
    items: list[Item] = []
    if ha == ho:
        head = hb
    elif hb == ho or ha == hb:
        head = ha
    elif same_shape:
        head = None
    else:
        return None
    if not same_shape and not (ha == hb):
        return _reshaped(o, a, b, ctx, gid)
    if head is None:
        items.append(ctx.regions.item(ho, ha, hb, "header", a.heading or "-", "both sides changed the table header differently", row=False))
    else:
        if head:
            items.append(Item(list(head)))
    pre = three(o.preamble, a.preamble, b.preamble)
    if pre is None:
        why = "both sides changed the lines under the table header differently"
        items.append(ctx.regions.item(o.preamble, a.preamble, b.preamble, "same-row", "-", why, row=False))
    elif pre:
        items.append(Item(list(pre)))
    return items, False


def _reshaped(o: Table, a: Table, b: Table, ctx: Ctx, gid: int) -> tuple[list[Item], bool] | None:
    """One side reshaped the table: fine only if the other changed no row.
    A row the other side moved to another table leaves here; the reshaping
    side's version of it is merged where it went (or kept here as a
    conflict if that table conflicts: `render.edits_landed`)."""
    other = b if [b.header, b.delimiter] == [o.header, o.delimiter] else a
    base_rows = {row_key(r): r.text for r in o.rows}
    kept = [row_key(r) for r in other.rows]
    if other.preamble != o.preamble or any(base_rows.get(row_key(r)) != r.text for r in other.rows):
        return None  # the other side added or changed rows: they would not fit
    if kept != [k for k in o.keys() if k in set(kept)]:
        return None  # ... or reordered them
    gone = set(base_rows) - set(kept)  # rows the other side deleted: deleted here too
    reshaped = a if other is b else b
    edited = _reshape_edits(o, reshaped, gone)
    if edited:  # ... unless the reshaping side changed them: modify/delete
        return None
    if any(ctx.plan.get(k) == CONFLICT for k in reshaped.keys()):
        return None  # a key defined twice is never guessed at, reshaped or not
    side = Side.OURS if other is b else Side.THEIRS
    for k in reshaped.keys():
        if k not in base_rows:  # moved in by the reshaping side: the other side's edit of it elsewhere does not fit
            was, kept = ctx.keys.occ[Side.BASE].get(k), ctx.keys.occ[side.other].get(k)
            if was and kept and {r.text for r in kept} != {r.text for r in was}:
                return None
    base_of = {r.key: r for r in o.rows}
    for r in reshaped.rows:
        key = row_key(r)
        if key in gone and r.text != base_of[key].text and ctx.keys.moved_away(side.other, key):
            ctx.moved.append((gid, key, base_of[key].lines, r.lines, side))
    items = _items_of(reshaped, side)
    return [it for it in items if it.key not in gone], True


def merge_keyed(o: Table, a: Table, b: Table, gid: int, ctx: Ctx) -> list[Item]:
    """One keyed table (group ``gid``), row by row."""
    head = merge_head(o, a, b, ctx, gid)
    if head is None:
        return whole_table_conflict(o, a, b, "the columns changed on one side while the other changed rows", ctx)
    items, done = head
    if done:
        return items
    tables = (o, a, b)
    maps = [ctx.keys.by_table.get(id(t)) or rows_by_key(t) for t in tables]
    # the order of rows is ours, unless only theirs reordered the table
    first, second = Side.OURS, Side.THEIRS
    keys = (o.keys(), a.keys(), b.keys())
    if not reordered(keys[0], keys[1]) and reordered(keys[0], keys[2]):
        first, second = Side.THEIRS, Side.OURS
    out, placed = _in_first_order(tables[first], first, maps, gid, ctx)
    pending = _only_second(tables[second], second, maps, placed, gid, ctx)
    grouped = group_rows(tables)  # (None: the table has no group rows)
    forms = None  # a ragged row stands where its name sorts (a keyless row's name sorts below every key: `min` finds one in C)
    if pending and grouped is None and any(min(ks)[:1] == KEYLESS for ks in keys if ks):
        forms = ragged_forms(tables)
    if pending and (o.runs or a.runs or b.runs):
        from .runs import placed_alike

        if not placed_alike(keys, tables[first], pending, first, forms):
            raise Unfit("rows placed in key order inside folded rows")
    if pending:
        out = insert_after_neighbours(out, pending, keys, tables[second], first, grouped, forms)
    if not ctx.opts.log:
        out = _rewritten_by_both(keys, o.key_col, out, maps, ctx)
        if pending:
            out = _renamed_by_second(keys, o.key_col, out, maps, ctx, first)
    why = stray_row(out, tables, grouped) if grouped is not None else None
    if why is not None:
        raise Fallback(f"line {a.start + 1}: {why}: rows never move across group rows")
    realign(o, a, b, out)
    return items + out


def _in_first_order(table: Table, first: Side, maps: list[dict[str, list[Row]]], gid: int, ctx: Ctx) -> tuple[list[Item], set[str]]:
    """1. Rows in the first side's order: (items, keys decided)."""
    out: list[Item] = []
    placed: set[str] = set()
    plan = ctx.plan
    ctx.table = table
    om, sm = maps[Side.BASE], maps[first.other]
    oget, sget, add, put = om.get, sm.get, placed.add, out.append
    for row in table.rows:
        k = row.key
        assert k is not None  # (a keyed table's row)
        ro, rs = oget(k), sget(k)
        if ro is not None and rs is not None and len(ro) == 1 == len(rs) and k not in plan and k not in placed:
            if ro[0].lines == row.lines == rs[0].lines:  # the common case: untouched
                add(k)
                put(Item(row.lines, k))
                continue
        planned = plan.get(k)
        if planned == KEEP:
            placed.add(k)  # untouched duplicates stay where they are
            out.append(Item(row.lines, k))
            continue
        if isinstance(planned, Side):  # one side alone touched a duplicate: its rows
            if planned is first:
                placed.add(k)
                out.append(Item(row.lines, k, first))
            elif rs is not None and k not in placed and len(rs) == 1 == len(maps[first].get(k) or ()):
                placed.add(k)  # held once here by both: the other side's row, where this side has it
                out.append(Item(rs[0].lines, k, planned))
            continue
        if k in placed:
            continue
        placed.add(k)
        out.extend(decide(k, om.get(k), maps[Side.OURS].get(k), maps[Side.THEIRS].get(k), ctx, gid))
    return out, placed


def _only_second(table: Table, second: Side, maps: list[dict[str, list[Row]]], placed: set[str], gid: int, ctx: Ctx) -> list[tuple[int, list[Item]]]:
    """2. Rows only the other side still has, each with its index there."""
    pending: list[tuple[int, list[Item]]] = []
    for idx, row in enumerate(table.rows):
        k = row.key
        assert k is not None  # (a keyed table's row)
        planned = ctx.plan.get(k)
        if isinstance(planned, Side):
            if planned is second and k not in placed:  # each copy after its neighbour there (unless placed in the first's order)
                pending.append((idx, [Item(row.lines, k, second)]))
            continue
        if k in placed:
            continue
        placed.add(k)
        rows = [m.get(k) for m in maps]
        rows[second.other] = None
        new = decide(k, rows[0], rows[1], rows[2], ctx, gid)
        if new:
            pending.append((idx, new))
    return pending


class _Places:
    """Where each key of one version's table stands: the key between two
    neighbours, found in one lookup (a key held twice stands nowhere)."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys
        at: dict[str, int] = {}
        for j, k in enumerate(keys):
            at[k] = -1 if k in at else j
        self.at = at

    def between(self, before: str | None, after: str | None) -> str | None:
        """The one key right after ``before`` and right before ``after`` (None: the table's edge, or no such key)."""
        keys = self.keys
        if before is None:
            j = 0
        else:
            j = self.at.get(before, -1)
            if j < 0:
                return None
            j += 1
        if j >= len(keys):
            return None
        nxt = keys[j + 1] if j + 1 < len(keys) else None
        return keys[j] if nxt == after else None

    def first_after(self, before: str | None, after: str | None) -> str | None:
        """The key right after ``before`` when ``after`` comes later (None:
        the table's edge; rows may have been added between them)."""
        keys = self.keys
        j = 0 if before is None else self.at.get(before, -1) + 1
        if j <= 0 and before is not None or j >= len(keys):
            return None
        return keys[j] if after is None or self.at.get(after, -1) > j else None


def _keeps_a_cell(old: Row, new: Row, key_col: int | None) -> bool:
    """``new`` is ``old`` rewritten, not replaced: as many cells, and a cell
    besides the key that is not empty and the same in both."""
    co, cn = old.cells().cells, new.cells().cells
    return len(co) == len(cn) and any(i != key_col and x.strip() and x.strip() == y.strip() for i, (x, y) in enumerate(zip(co, cn)))


def _rewritten_by_both(keys: tuple[list[str], list[str], list[str]], key_col: int | None, out: list[Item], maps: list[dict[str, list[Row]]],
                       ctx: Ctx) -> list[Item]:
    """A base row whose key cell both sides rewrote differently (an edited
    title, a renamed ID) would come out as two rows: it is one row changed
    on both sides, a conflict as in git's text merge.  Found by place: each
    side's new key sits where the base's key was, between the same
    neighbours, and keeps one of its other cells."""
    ko = keys[Side.BASE]
    occ, plan = ctx.keys.occ, ctx.plan
    gone = [i for i, k in enumerate(ko) if k[:1] != KEYLESS and k not in plan and k not in occ[Side.OURS] and k not in occ[Side.THEIRS]]
    if not gone:
        return out
    places_a, places_b = _Places(keys[Side.OURS]), _Places(keys[Side.THEIRS])
    pairs: dict[str, tuple[str, str]] = {}
    for i in gone:
        k, before, after = ko[i], (ko[i - 1] if i else None), (ko[i + 1] if i + 1 < len(ko) else None)
        x, y = places_a.between(before, after), places_b.between(before, after)
        if x is None or y is None or x == y or any(z[:1] == KEYLESS or z in plan or z in occ[Side.BASE] for z in (x, y)) or x in occ[Side.THEIRS] or y in occ[Side.OURS]:
            continue
        base_rows, ours, theirs = maps[Side.BASE].get(k), maps[Side.OURS].get(x), maps[Side.THEIRS].get(y)
        if not (base_rows and ours and theirs and len(base_rows) == len(ours) == len(theirs) == 1):
            continue
        if _keeps_a_cell(base_rows[0], ours[0], key_col) and _keeps_a_cell(base_rows[0], theirs[0], key_col):
            pairs[x] = (k, y)
    if not pairs:
        return out
    drop = {y for _, y in pairs.values()}
    result: list[Item] = []
    for item in out:
        if item.conflict is None and item.key in drop and item.side is Side.THEIRS:
            continue
        hit = pairs.get(item.key) if item.conflict is None and item.side is Side.OURS else None  # type: ignore[arg-type]
        if hit is None:
            result.append(item)
            continue
        k, y = hit
        ours, theirs = maps[Side.OURS][item.key][0], maps[Side.THEIRS][y][0]  # type: ignore[index]
        why = (f"both sides rewrote this row's key: ours to {shown(item.key)} (line {ours.line + 1}), "  # type: ignore[arg-type]
               f"theirs to {shown(y)} (line {theirs.line + 1})")
        result.append(ctx.regions.item(maps[Side.BASE][k][0].lines, ours.lines, theirs.lines, "same-row", k, why))
    return result


def _renamed_by_second(keys: tuple[list[str], list[str], list[str]], key_col: int | None, out: list[Item], maps: list[dict[str, list[Row]]],
                       ctx: Ctx, first: Side) -> list[Item]:
    """A base row whose key cell the second side alone rewrote in place (a
    name's typo fixed) stands where the base row stood in the first side's
    order, with the rows the second side added after it, not after the rows
    the first side added below that row (placed after its neighbour, the
    renamed row would come after them).  Found by place, as
    `_rewritten_by_both`: the new key is the first row after the base key's
    neighbour above, and is that row renamed (`_renamed`)."""
    second = first.other
    ko, kf = keys[Side.BASE], keys[first]
    occ, plan = ctx.keys.occ, ctx.plan
    placed = {it.key for it in out}
    gone = [i for i, k in enumerate(ko) if k[:1] != KEYLESS and k not in plan and k in occ[first] and k not in occ[second] and k not in placed]
    if not gone:
        return out
    places_s, places_f = _Places(keys[second]), _Places(kf)
    moves: dict[str, str | None] = {}  # the new key -> the key it goes right after (None: the table's start)
    for i in gone:
        k, before, after = ko[i], (ko[i - 1] if i else None), (ko[i + 1] if i + 1 < len(ko) else None)
        y = places_s.first_after(before, after)  # (the second side may have added rows below it)
        if y is None or y[:1] == KEYLESS or y in plan or y in occ[Side.BASE] or y in occ[first]:
            continue
        base_rows, new = maps[Side.BASE].get(k), maps[second].get(y)
        at = places_f.at.get(k, -1)
        if not (base_rows and new and len(base_rows) == len(new) == 1 and at >= 0 and _renamed(base_rows[0], new[0], k, y, key_col)):
            continue
        moves[y] = kf[at - 1] if at else None
    return _moved_after(out, moves, second, occ[Side.BASE]) if moves else out


def _renamed(old: Row, new: Row, k: str, y: str, key_col: int | None) -> bool:
    """``new`` is ``old`` with its key corrected, not another row put in its
    place: every other cell the same, and the keys alike (a typo, a case, a
    trailing dot: at least 80% the same ignoring case)."""
    from difflib import SequenceMatcher  # (only for a row one side replaced in place)

    co, cn = old.cells().cells, new.cells().cells
    if len(co) != len(cn) or any(i != key_col and x.strip() != y_.strip() for i, (x, y_) in enumerate(zip(co, cn))):
        return False
    return SequenceMatcher(None, k.casefold(), y.casefold(), autojunk=False).ratio() >= 0.8


def _moved_after(out: list[Item], moves: dict[str, str | None], second: Side, in_base: dict[str, list[Row]]) -> list[Item]:
    """``out`` with each ``moves`` key's item, and the rows of ``second`` new
    to the base (``in_base``: its keys) right after it (those it added below that row), right after
    the item of the key it names: where it stood.  A key held twice in
    ``out``, or an anchor that is not there, moves nothing."""
    count: dict[str | None, int] = {}
    for it in out:
        count[it.key] = count.get(it.key, 0) + 1
    for y, anchor in moves.items():
        if count.get(y) != 1 or (anchor is not None and count.get(anchor) != 1):
            continue
        at = next(i for i, it in enumerate(out) if it.key == y)
        if out[at].conflict is not None or out[at].side is not second:
            continue
        end = at + 1
        while end < len(out) and out[end].conflict is None and out[end].side is second and out[end].key not in in_base and out[end].key not in moves:
            end += 1
        block, rest = out[at:end], out[:at] + out[end:]
        to = 0 if anchor is None else next(i for i, it in enumerate(rest) if it.key == anchor) + 1
        out = rest[:to] + block + rest[to:]
    return out


def _same_columns(o: Table, t: Table) -> bool:
    """``t`` has ``o``'s columns in ``o``'s order (renames allowed in place)."""
    if len(o.columns) != len(t.columns) or o.key_col != t.key_col:
        return False
    kept = set(o.columns) & set(t.columns)
    if not all(x == y for x, y in zip(o.columns, t.columns) if x in kept and y in kept):
        return False  # columns swapped or moved
    renamed = [i for i, (x, y) in enumerate(zip(o.columns, t.columns)) if x != y]
    if not renamed:
        return True
    # a column renamed and its cells rewritten too is a replaced column
    base = {r.key: r for r in o.rows}
    common = [(base[r.key], r) for r in t.rows if r.key in base]
    for i in renamed:
        changed = 0
        for ro, rt in common:
            co, ct = ro.cells().cells, rt.cells().cells
            if i < len(co) and i < len(ct) and co[i].strip() != ct[i].strip():
                changed += 1
        if common and changed * 2 > len(common):
            return False
    return True


def _reshape_edits(o: Table, t: Table, gone: set[str]) -> list[str]:
    """Keys in ``gone`` (deleted by the other side) whose row the reshaping
    side ``t`` changed beyond its new shape: a cell of a kept column edited,
    or a new column's cell holding more than the value that column holds in
    every row (a fill value such as ``-``)."""
    if not gone:
        return []
    base = {r.key: r for r in o.rows}
    o_index = {name: i for i, name in reversed(list(enumerate(o.columns)))}
    rows = [r for r in t.rows if r.key in gone and r.key in base]
    if not rows:
        return []
    cells_of = {id(r): [c.strip() for c in r.cells().cells] for r in t.rows}
    fill: dict[int, bytes | None] = {}
    for i, name in enumerate(t.columns):
        if name not in o_index:
            values = {cells[i] if i < len(cells) else b"" for cells in cells_of.values()}
            fill[i] = values.pop() if len(values) == 1 else None
    out = []
    for r in rows:
        old = [c.strip() for c in base[r.key].cells().cells]
        new = cells_of[id(r)]
        for i, name in enumerate(t.columns):
            cell = new[i] if i < len(new) else b""
            if name in o_index:
                j = o_index[name]
                if cell != (old[j] if j < len(old) else b""):
                    break
            elif cell and cell != fill.get(i):
                break
        else:
            continue
        out.append(row_key(r))
    return out
