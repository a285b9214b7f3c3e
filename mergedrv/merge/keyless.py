"""Keyless lines of a keyed table (group dividers, labels, plain lines under
it): each gets a row of its own with a name (`KEYLESS` ...), and the names a
side moved or edited are paired with the base's, so they merge like rows."""

from __future__ import annotations

from operator import attrgetter

from ..model import NS, Document, Row, Run, Table, cell_count, key_of
from .match import Group
from .sides import SIDES, Side

_LINES = attrgetter("lines")
KEYLESS = "\x00"  # keys of the keyless lines of a keyed table (see split_keyless)


def row_key(r: Row) -> str:
    """The key of a keyed table's row: every row of one carries a key (the
    model keys its rows, `split_keyless` names its keyless lines)."""
    k = r.key
    assert k is not None  # (a keyed table's row: see above)
    return k


def split_keyless(table: Table) -> None:
    """Give each keyless line of a keyed table (a group divider with an empty
    key cell, a group label in the key column (the model makes it keyless), a
    plain line under the table) a row of its own, as GitHub shows it.

    Its key names the keyed row above it and its text; `pair_keyless` then
    follows a line that one side moved (rows added or deleted above it) or
    edited in place, so that such lines merge by the decision table like
    rows: never copied, never a false conflict, an edit on both sides a
    conflict.
    """
    folded = sum(len(r.lines) - 1 for r in table.rows if type(r) is Run) if table.runs else 0  # (a run is rows only)
    if not table.preamble and sum(map(len, map(_LINES, table.rows))) == len(table.rows) + folded:
        return  # nothing without a key: the common large table
    rows: list[Row] = []
    seen: dict[str, int] = {}
    prev = ""

    def keyless(line: bytes, n: int) -> Row:
        text = line.rstrip(b"\r\n").decode("utf-8", "replace")
        name = f"{KEYLESS}{prev}\x01{text}"
        count = seen.get(name, 0)
        seen[name] = count + 1
        return Row(n, [line], f"{name}\x01{count}" if count else name, table.column)

    for j, line in enumerate(table.preamble):  # keyless lines above the first keyed row
        rows.append(keyless(line, table.start + 2 + j))
    table.preamble = []
    for r in table.rows:
        if type(r) is Run:  # rows only, and a row after it
            rows.append(r)
            continue
        rows.append(r if len(r.lines) == 1 else Row(r.line, [r.lines[0]], r.key, r.column))
        prev = r.key
        for j, line in enumerate(r.lines[1:], 1):
            rows.append(keyless(line, r.line + j))
    table.rows = rows


def neighbours(t: Table) -> dict[str, tuple[str, str]]:
    """Each keyless row's nearest keyed rows: (the one above, the one below)."""
    out: dict[str, tuple[str, str]] = {}
    prev = ""
    pending: list[str] = []
    for r in t.rows:
        key = row_key(r)
        if key[:1] == KEYLESS:
            pending.append(key)
            continue
        for k in pending:
            out[k] = (prev, key)
        pending = []
        prev = key
    for k in pending:
        out[k] = (prev, "")
    return out


def keyless_parts(key: str) -> tuple[str, str]:
    """(the keyed row above, the text) of a keyless row's key."""
    prev, _, rest = key[1:].partition("\x01")
    return prev, rest.split("\x01")[0]


def pair_keyless(o: Table, x: Table) -> None:
    """Rename the keyless rows one side (``x``) moved or edited to the base's
    names: a line whose text is unchanged but which now follows another row
    (rows were added or deleted above it) is the same line; a new line right
    where a base line went missing is that line, edited."""
    base = {rk: r for r in o.rows if (rk := row_key(r))[:1] == KEYLESS}
    if not base:
        return
    have = {r.key for r in x.rows}
    missing = [k for k in base if k not in have]
    fresh = [r for r in x.rows if (rk := row_key(r))[:1] == KEYLESS and rk not in base]
    if not missing or not fresh:
        return
    claimed: set[int] = set()
    o_near, x_near = neighbours(o), neighbours(x)
    # indexes (text -> missing base lines, row above -> fresh lines) keep
    # this linear: thousands of renamed group dividers are common
    by_text: dict[str, list[str]] = {}
    for k in missing:
        by_text.setdefault(keyless_parts(k)[1], []).append(k)
    gone: set[str] = set()
    for n, r in enumerate(fresh):  # moved: the same text, the base copy it sits nearest to
        key = row_key(r)
        copies = [c for c in by_text.get(keyless_parts(key)[1], ()) if c not in gone]
        if not copies:
            continue
        prev, nxt = x_near[key]
        k = max(copies, key=lambda c: (o_near[c][1] == nxt) * 2 + (o_near[c][0] == prev))
        r.key = k
        claimed.add(n)
        gone.add(k)
    by_prev: dict[str, list[int]] = {}
    for n, r in enumerate(fresh):
        if n not in claimed:
            by_prev.setdefault(keyless_parts(row_key(r))[0], []).append(n)
    for prev_list in by_prev.values():
        prev_list.reverse()  # popped from the end: the first fresh line first
    for k in missing:  # edited in place: a new line under the same row
        if k in gone:
            continue
        waiting = by_prev.get(keyless_parts(k)[0])
        if waiting:
            n = waiting.pop()
            fresh[n].key = k
            claimed.add(n)


def pair_added(o: Table | None, a: Table, b: Table) -> None:
    """A ragged row both sides added (not in the base), once each, under
    different rows: one addition (theirs' takes ours' name), kept once
    where ours put it, as the same keyed row added on both sides is."""
    base = {r.lines[0] for r in o.rows} if o is not None else set()

    def added(t: Table) -> dict[bytes, Row]:
        rows = [r for r in t.rows if row_key(r)[:1] == KEYLESS and r.lines[0] not in base and _ragged(r.lines[0], t)]
        texts = [r.lines[0] for r in rows]
        return {r.lines[0]: r for r in rows if texts.count(r.lines[0]) == 1}

    mine = added(a)
    if not mine:
        return
    for text, r in added(b).items():
        if text in mine and r.key != mine[text].key:
            r.key = mine[text].key


def prepare(docs: tuple[Document, Document, Document], groups: list[Group]) -> None:
    """Split every keyed table's keyless lines into rows, pair each side's
    with the base's, and the ragged rows both sides added with each other."""
    for d in docs:
        for t in d.keyed_tables():
            split_keyless(t)
    for g in groups:
        o = g[Side.BASE]
        if o is not None and o.key_col is not None:
            for side in SIDES:
                t = g[side]
                if t is not None and t.key_col is not None:
                    pair_keyless(o, t)
        a, b = g[Side.OURS], g[Side.THEIRS]
        if a is not None and b is not None and a.key_col is not None and b.key_col is not None:
            pair_added(o, a, b)


def _ragged(line: bytes, t: Table) -> bool:
    """A pipe line of a keyed table whose cell count is not its header's."""
    return line.find(b"|", t.column) >= 0 and cell_count(line, t.column) != len(t.columns)


def _between(lines: list[bytes], before: bytes | None, after: bytes | None) -> tuple[int, list[bytes]] | None:
    """Where and which lines a side holds between ``before`` and ``after``
    (None: the table's start or end), or None if it no longer holds them so."""
    starts = [0] if before is None else [j + 1 for j, x in enumerate(lines) if x == before]
    for j in starts:
        if after is None:
            return j, lines[j:]
        try:
            return j, lines[j : lines.index(after, j)]
        except ValueError:
            continue
    return None


def _keyed_above(lines: list[bytes], at: int, keyed: set[bytes]) -> bytes | None:
    """The nearest keyed row line above index ``at`` (None: none)."""
    return next((lines[j] for j in range(at - 1, -1, -1) if lines[j] in keyed), None)


def ragged_changed_on_both(groups: list[Group]) -> str | None:
    """Why a keyed merge of ragged rows would guess, or None.  A ragged row
    (`model.row_key_of`) is merged as a keyless line, which travels with
    the keyed row above it: when both sides no longer hold it and one of
    them put something else in its place, either a keyed row (the row
    with its missing cell added, say) or under another keyed row than the
    base's, git's text merge conflicts there, while by rows the deletion
    would be lost and the new line stay."""
    for g in groups:
        o, a, b = g.tables
        if o is None or a is None or b is None or o.key_col is None or o.detached is not None:
            continue
        loose = [*o.preamble, *(ln for r in o.rows if type(r) is not Run for ln in r.lines[1:])]  # a ragged row is keyless
        if not any(_ragged(ln, o) for ln in loose):
            continue
        base = [*o.preamble, *(ln for r in o.rows for ln in r.lines)]
        sides = [[*t.preamble, *(ln for r in t.rows for ln in r.lines)] for t in (a, b)]
        keyed = [{r.lines[0] for r in t.rows} for t in (o, a, b)]
        have = [set(x) for x in sides]
        for i, line in enumerate(base):
            if line in have[0] or line in have[1] or not _ragged(line, o):
                continue
            before = base[i - 1] if i else None
            after = base[i + 1] if i + 1 < len(base) else None
            above = _keyed_above(base, i, keyed[0])
            for x, rows in zip(sides, keyed[1:]):
                put = _between(x, before, after)
                if put is None or put[1] and (any(ln in rows for ln in put[1]) or _keyed_above(x, put[0], rows) != above):
                    return f"line {o.body + i + 1}: a ragged row (its cell count is not its header's) changed on both sides"
    return None


def ragged_keys_keyed_elsewhere(docs: tuple[Document, Document, Document], groups: list[Group]) -> str | None:
    """Why a keyed merge would guess where a ragged row stands for an entry,
    or None: a ragged line (no key in the merge) whose key cell, as GitHub
    shows it, is the key of a keyed row in some version (a row moved under a
    header of another cell count, a cell added or dropped on one side while
    the other edited it).  Merged as a keyless line, that entry's edits on
    the other side would be lost; git's text merge keeps both.  A side that
    left the file as the base has it takes nothing from it, and a ragged
    line each version holds as often in the same table has no edit to lose:
    no guess."""
    if docs[0].lines in (docs[1].lines, docs[2].lines):
        return None
    keys: set[str] = set()
    for d in docs:
        for t in d.keyed_tables():
            keys.update(r.key for r in t.rows if type(r) is not Run and r.key is not None)
    ragged = [_ragged_keys(d, {id(g[side]): g.gid for g in groups if g[side] is not None}) for d, side in zip(docs, Side)]
    for found in ragged:
        for at, (named, count) in found.items():
            if named not in keys:
                continue
            if at[0] is None or any(other.get(at, ("", 0))[1] != count for other in ragged):
                k = at[2]
                return f"a ragged row (its cell count is not its header's) carries key {k}, which another version keys: which entry it is would be a guess"
    return None


def _ragged_keys(doc: Document, gid_of: dict[int, int]) -> dict[tuple[int | None, bytes, str], tuple[str, int]]:
    """(table group, line, key) -> (the key as the model names it, how many
    times the table holds the line), for each ragged line of ``doc``'s keyed
    tables whose key cell holds a key."""
    out: dict[tuple[int | None, bytes, str], tuple[str, int]] = {}
    for t in doc.keyed_tables():
        if t.key_col is None or t.detached is not None:
            continue
        named = t.key_name + NS  # a later key column's keys carry its name (`model`)
        prefix = named if any(r.key and r.key.startswith(named) for r in t.rows if type(r) is not Run) else ""
        loose = [*t.preamble, *(ln for r in t.rows if type(r) is not Run for ln in r.lines[1:])]
        gid = gid_of.get(id(t))
        for ln in loose:
            if _ragged(ln, t):
                k = key_of(ln, t.column, t.key_col)
                if k is not None:
                    at = (gid, ln, k)
                    out[at] = (prefix + k, out[at][1] + 1 if at in out else 1)
    return out
