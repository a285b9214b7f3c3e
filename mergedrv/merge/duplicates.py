"""Keys across the file: each version's rows by key (`Keys`), the plan for
keys defined twice in some input, and keys defined twice by the merge itself
(added in two tables by the two sides)."""

from __future__ import annotations

from ..model.cells import shown

from ..model import Document, Row, Table
from .keyless import KEYLESS, row_key
from .match import Group
from .values import Ctx, Fallback, Item, Regions
from .sides import Side

KEEP = "keep"  # plan: all three versions hold the same rows; kept as they are
CONFLICT = "conflict"  # plan: which row an edit belongs to is never guessed at


def rows_by_key(t: Table) -> dict[str, list[Row]]:
    rows = t.rows
    out: dict[str, list[Row]] = {row_key(r): [r] for r in rows}
    if len(out) < len(rows):  # a key defined twice: every row of it, in order
        out = {}
        for r in rows:
            out.setdefault(row_key(r), []).append(r)
    return out


def _has_keyless(keys: list[str] | dict[str, list[Row]]) -> bool:
    """Does a keyless line's name (`KEYLESS` first) come among ``keys``?
    No key is empty, and only those names sort below "\x01" (`min` in C)."""
    return bool(keys) and min(keys) < "\x01"


class Keys:
    """Each version's rows by key over the whole file (``occ``), per table
    (``by_table``: id(table) -> key -> rows), which table group holds a key
    (``where``), and the keys some version defines twice (``repeated``)."""

    __slots__ = ("occ", "by_table", "where", "repeated")

    def __init__(self, docs: tuple[Document, Document, Document], groups: list[Group], log: bool) -> None:
        self.where: list[dict[str, int]] = [{}, {}, {}]
        for g in groups if len(groups) > 1 else ():  # (one group: no key is in another table)
            for side in Side:
                t = g[side]
                if t is not None and t.key_col is not None:
                    keys = [row_key(r) for r in t.rows]
                    if _has_keyless(keys):
                        keys = [k for k in keys if k[:1] != KEYLESS]
                    if self.where[side]:
                        self.where[side].update(dict.fromkeys(keys, g.gid))
                    else:
                        self.where[side] = dict.fromkeys(keys, g.gid)
        self.by_table: dict[int, dict[str, list[Row]]] = {}
        self.repeated: set[str] = set()
        self.occ = [self._occurrences(d, log) for d in docs]

    def _occurrences(self, doc: Document, log: bool) -> dict[str, list[Row]]:
        """Key -> rows over the whole file; per-table maps kept for the merge."""
        occ: dict[str, list[Row]] = {}
        if log:
            return occ
        tables = doc.keyed_tables()
        for table in tables:
            per = self.by_table[id(table)] = rows_by_key(table)
            if len(tables) == 1 and not _has_keyless(per):
                occ = per  # one table: the same map serves both
                if len(per) == len(table.rows):
                    return occ  # (no key twice)
            else:
                for k, rows in per.items():
                    if k[:1] != KEYLESS:
                        occ.setdefault(k, []).extend(rows)
        self.repeated.update(k for k, rows in occ.items() if len(rows) > 1)
        return occ

    def moved_away(self, side: Side, k: str) -> bool:
        """``side`` holds ``k`` in another table than the base."""
        there, base = self.where[side].get(k), self.where[Side.BASE].get(k)
        return there is not None and base is not None and there != base


def plan(keys: Keys, groups: list[Group], notes: list[str], per_table: bool = False) -> dict[str, object]:
    """Keys defined twice in some input, unless each version holds the key
    once in each of the same tables (`_once_a_table`): KEEP when all three versions
    hold the same rows (an old duplicate nobody touched, noted on stderr);
    a side when only that side touched the key (the other left its rows
    exactly as the base has them): that side's rows, as they are
    (`mergedrv check` reports the duplicate); else CONFLICT: which row
    the other side's edit belongs to is never guessed at."""
    o, a, b = keys.occ
    out: dict[str, object] = {}

    def placed(side: Side, k: str) -> list[tuple[int, bytes]]:  # (table, row) of each copy: a move is a change
        found: list[tuple[int, bytes]] = []
        for g in groups:
            t = g[side]
            if t is not None:
                found.extend((g.gid, r.text) for r in keys.by_table.get(id(t), {}).get(k, []))
        return found

    added = {g.gid for g in groups if g[Side.BASE] is None and (g[Side.OURS] is None or g[Side.THEIRS] is None)}
    for k in keys.repeated:
        to, ta, tb = (placed(side, k) for side in Side)
        if _once_a_table((to, ta, tb), added) or (per_table and _at_most_once_a_table((to, ta, tb))):
            continue  # (each table's row of it is that table's own: merged there, as any key)
        if to == ta == tb:
            out[k] = KEEP
            first = a[k][0].line + 1
            notes.append(f"{first}: note: {shown(k)}: defined {len(ta)} times in all three versions; kept as is (see `mergedrv check`)")
        elif to == tb or to == ta:
            side = Side.THEIRS if to == ta else Side.OURS
            out[k] = side
            rows = keys.occ[side].get(k, [])
            if len(rows) > 1:
                name = side.label
                notes.append(
                    f"{rows[0].line + 1}: note: {shown(k)}: defined {len(rows)} times in {name}, which alone changed it; {name}' rows kept (see `mergedrv check`)"
                )
        else:
            why = (_copied_into_added_table(k, (to, ta, tb), groups) or _shared_by_most_rows(k, groups)
                   or (per_table and _in_two_tables(k, (to, ta, tb))))
            if why:
                raise Fallback(why)
            out[k] = CONFLICT
    return out


def _shared_by_most_rows(k: str, groups: list[Group]) -> str | None:
    """Why a key both sides touched is git's to merge, or None: most rows of
    a table share it (`Table.shared_key`: a column of `[Link](...)` cells,
    whose key is the link's text), so its key column names no row, and each
    edit of such a row would be one conflict over all of them."""
    for g in groups:
        for t in g.tables:
            if t is None:
                continue
            shared = t.shared_key()
            if shared is not None and shared[0] == k:
                return f"line {t.start + 1}: key {shown(k)} stands in {shared[1]} of the table's {len(t.rows)} rows: its key column names no row"
    return None


def _in_two_tables(k: str, placed: tuple[list[tuple[int, bytes]], ...]) -> str:
    """Why a key per table that a version holds twice in one table, and
    that both sides touched, is git's to merge ("" if it is not): it also
    stands in another table, whose rows one conflict over the key would
    gather and move (git's text merge keeps each table's lines in place)."""
    if any(len({gid for gid, _ in p}) > 1 for p in placed):
        return f"key {shown(k)} is twice in one table and also in another (key_scope = \"table\"): one conflict over it would move the other table's row"
    return ""


def _at_most_once_a_table(placed: tuple[list[tuple[int, bytes]], ...]) -> bool:
    """Does no version hold the key twice in one table?  With keys per table
    (`key_scope = "table"`) each table's row of it is then its own, deleted,
    added or edited there alone."""
    return all(len({gid for gid, _ in p}) == len(p) for p in placed)


def _once_a_table(placed: tuple[list[tuple[int, bytes]], ...], added: set[int]) -> bool:
    """Does each version hold the key once in each of the same tables (a key
    repeated across tables, as `key_scope = "table"` allows)?  Then which row
    an edit belongs to is no guess: the row of that key in that table.  When
    the base holds it in two tables or more, a table one side added
    (``added``: groups only that side has) may hold it too: that row is
    the new table's own (no other side's edit is for it)."""
    if not _at_most_once_a_table(placed):
        return False
    gids = [[gid for gid, _ in p] for p in placed]
    if len(gids[0]) >= 2:
        gids = [[g for g in x if g not in added] for x in gids]
    return gids[0] == gids[1] == gids[2]


def _copied_into_added_table(k: str, placed: tuple[list[tuple[int, bytes]], ...], groups: list[Group]) -> str | None:
    """Why a key one side defines twice is git's to merge, or None: that side
    kept the base's row where the base has it (once, as the other side
    does) and copied it into tables only it has (a table it added, or a
    stale copy a botched merge left).  The other side's edit belongs to the
    base's row, whose line the copying side left in place: git's text merge
    applies it there and keeps the copies, where the keyed merge cannot
    tell which copy the edit is for (``placed``: each version's (table, row)
    copies of ``k``, as `plan` reads them)."""
    base = {gid for gid, _ in placed[Side.BASE]}
    if len(placed[Side.BASE]) != 1:
        return None
    for side in (Side.OURS, Side.THEIRS):
        mine, other = placed[side], placed[side.other]
        if len(other) > 1 or any(gid not in base for gid, _ in other):
            continue
        alone = {g.gid for g in groups if g[Side.BASE] is None and g[side.other] is None}
        home = [gid for gid, _ in mine if gid in base]
        if len(home) == 1 and len(mine) > 1 and all(gid in base or gid in alone for gid, _ in mine):
            return f"{side.label} copied row {shown(k)} into a table only it has, and the other side changed the row"
    return None


def decide_duplicate(k: str, ctx: Ctx) -> list[Item]:
    """A key with a plan, met where the rows are decided one by one."""
    if ctx.plan[k] != CONFLICT:  # KEEP: only reached for rows theirs has in this table and ours has not
        return []
    if k in ctx.emitted:
        return []
    ctx.emitted.add(k)
    return [_duplicate_conflict(k, ctx.keys, ctx.regions)]


def _duplicate_conflict(k: str, keys: Keys, regions: Regions) -> Item:
    o, a, b = (x.get(k, []) for x in keys.occ)
    where = []
    for side, rows in zip(Side, (o, a, b)):
        if len(rows) > 1:
            where.append(f"{side.label} defines it {len(rows)} times (lines {', '.join(str(r.line + 1) for r in rows)})")
    why = "; ".join(where) + "; not guessed at"
    lo, la, lb = ([ln for r in rows for ln in r.lines] for rows in (o, a, b))
    return regions.item(lo, la, lb, "duplicate-key", k, why)


def _hidden(rendered: dict[int, list[Item]]) -> dict[Side, set[str]]:
    """Keys a side adds inside a whole-table conflict (they count as defined there)."""
    hidden: dict[Side, set[str]] = {Side.OURS: set(), Side.THEIRS: set()}
    for items in rendered.values():
        for item in items:
            if item.inside is not None:
                base_keys, ours_keys, theirs_keys = item.inside
                hidden[Side.OURS] |= ours_keys - base_keys
                hidden[Side.THEIRS] |= theirs_keys - base_keys
    return hidden


def across_tables(rendered: dict[int, list[Item]], ctx: Ctx) -> None:
    """A key added in two different tables by the two sides is a double
    definition (unless keys are per table: `key_scope = "table"`)."""
    if ctx.opts.per_table:
        return  # (each table's row of it is that table's own)
    keys = [item.key for items in rendered.values() for item in items
            if item.conflict is None and item.key is not None and item.key[:1] != KEYLESS]
    count: dict[str, int] = {}
    if len(set(keys)) < len(keys):  # (only a key met twice is counted)
        for k in keys:
            count[k] = count.get(k, 0) + 1
    o, a, b = ctx.keys.occ
    hidden = _hidden(rendered)
    regions = ctx.regions
    for items in rendered.values():
        for i, item in enumerate(items):
            k = item.key
            if item.conflict is not None or k is None or k[:1] == KEYLESS or k in o or item.side is None:
                continue
            mine = item.side
            if k in hidden[mine.other]:
                why = f"{mine.label} adds this key here and {mine.other.label} adds it inside a table that conflicts"
                ours = item.lines if mine is Side.OURS else []
                theirs = item.lines if mine is Side.THEIRS else []
                items[i] = regions.item([], ours, theirs, "double-definition", k, why)
    for k, n in count.items():
        if n <= 1 or k in ctx.plan or n <= max(len(a.get(k, [])), len(b.get(k, []))):
            continue
        lines_a = ", ".join(str(r.line + 1) for r in a.get(k, []))
        lines_b = ", ".join(str(r.line + 1) for r in b.get(k, []))
        why = f"ours (line {lines_a}) and theirs (line {lines_b}) define this key in different tables"
        for items in rendered.values():
            for i, item in enumerate(items):
                if item.key != k or item.conflict is not None:
                    continue
                ours = item.lines if item.side in (Side.OURS, None) else []
                theirs = item.lines if item.side in (Side.THEIRS, None) else []
                items[i] = regions.item([], ours, theirs, "double-definition", k, why)
