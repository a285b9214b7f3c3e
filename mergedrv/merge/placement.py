"""Where rows go in a merged keyed table: the first side's order, rows only
the second side has after their nearest neighbour there (or in key order when
all three versions are sorted, or the first side sorted the table), and
re-padding to the alignment a side chose."""

from __future__ import annotations

import operator
from itertools import repeat
from .. import rx

from .. import model
from ..model import NS, Row, Run, Table
from ..model.groups import label_of
from .keyless import KEYLESS, row_key
from .values import Fallback, Item
from .sides import Side

TYPE_CHECKING = False  # typing is not imported on the driver's path (it costs a few ms)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    Order = Callable[[str], Any]  # a key's sort form: str.casefold, str or _natural
    Pending = Sequence[tuple[int, list[Item]]]  # rows only the second side has: (index in its table, the items)
    Natural = tuple[str | int, ...]  # `_natural`'s form of a key

def reordered(base: list[str], keys: list[str]) -> bool:
    """Did ``keys`` change the relative order of the keys it shares with ``base``?"""
    if keys == base:
        return False
    mine = set(keys)
    known = set(base)
    return list(filter(known.__contains__, keys)) != list(filter(mine.__contains__, base))  # (in C)


_DIGITS = rx.compile(r"(\d+)")


def _natural(key: str) -> Natural:
    """``kind 7`` before ``kind 10``: runs of digits compare as numbers, the rest ignoring case."""
    parts: list[str | int] = list(_DIGITS.split(key.casefold()))
    parts[1::2] = map(int, parts[1::2])
    return tuple(parts)


_ORDERS = (str.casefold, str, _natural)  # ignoring case first: it is what people keep; str: as written


def sorted_by(ks: list[str], order: Order, natural: dict[str, Natural] | None = None, known: set[str] | None = None) -> bool:
    """Are ``ks`` sorted by ``order`` (a stable sort leaves them as they are:
    no step down, checked in one pass)?  ``natural`` keeps the keys'
    `_natural` forms for the other versions of the table; the steps next to
    a key not in ``known`` (the base's) are checked first."""
    if order is str:
        return all(map(operator.le, ks, ks[1:]))
    if order is _natural:  # ruled out cheaply at the first step down ignoring case
        folded = list(map(str.casefold, ks))
        down = list(map(operator.gt, folded, folded[1:]))
        if True in down:
            i = down.index(True)
            if _natural(ks[i]) > _natural(ks[i + 1]):
                return False
        memo = {} if natural is None else natural

        def nat(k: str) -> Natural:
            cur = memo.get(k)
            if cur is None:
                cur = memo[k] = _natural(k)
            return cur

        for i in [i for i, k in enumerate(ks) if k not in known] if known is not None else ():
            if i and nat(ks[i - 1]) > nat(ks[i]) or i + 1 < len(ks) and nat(ks[i]) > nat(ks[i + 1]):
                return False  # an addition out of order: found at once
        prev = None
        for k in ks:  # one pass, stopping at the first step down (a million keys' forms cost seconds)
            cur = nat(k)
            if prev is not None and prev > cur:
                return False
            prev = cur
        return True
    else:
        keyed = list(map(order, ks))
    return all(map(operator.le, keyed, keyed[1:]))


def sort_order(keys: tuple[list[str], list[str], list[str]]) -> Order | None:
    """The order all three versions of a table keep (ignoring case, as
    written, or with numbers compared as numbers), or None if not sorted (or
    the base has fewer than two rows).  A table with keyless rows, such as
    group dividers, is in groups, not sorted."""
    if len(keys[0]) < 2 or any(ks and ks[0][:1] == KEYLESS for ks in keys):
        return None  # (a side left with one row or none is in any order)
    for order in _ORDERS:
        natural: dict[str, Natural] = {}
        known = set(keys[0]) if order is _natural else None
        if all(sorted_by(ks, order, natural, known) for ks in (keys[1], keys[2], keys[0])):  # the sides differ from the base
            return order
    return None


def first_key(new: list[Item]) -> str:
    """The key of a pending row (the second side's row: keyed)."""
    k = new[0].key
    assert k is not None  # (an item made from a keyed table's row)
    return k


def ragged_forms(tables: tuple[Table, ...]) -> dict[str, str]:
    """Each keyless row of these versions of a table that GitHub shows as an
    entry (a ragged row: its cell count is not the header's, so the merge
    does not key it, but its key cell holds a name) -> that name, as the
    checks read it: in a sorted list it stands where its name sorts.  For a
    table without group rows (whose keyless rows are dividers, never sorted)."""
    keyed = [k for t in tables for k in map(row_key, t.rows) if k[:1] != KEYLESS]
    spaces = {k[: k.index(NS) + 1] if NS in k else "" for k in keyed}  # a later key column's keys carry its namespace
    if len(spaces) != 1 or any(t.key_col is None for t in tables):
        return {}  # (no keyed row tells which, or the versions disagree)
    prefix = spaces.pop()
    out: dict[str, str] = {}
    for t in tables:
        for r in t.rows:
            k = row_key(r)
            if k[:1] == KEYLESS and type(r) is not Run:
                shown = model.key_of(r.lines[0], t.column, t.key_col)  # type: ignore[arg-type] # (checked above)
                if shown and shown[:1] != KEYLESS:
                    out[k] = prefix + shown
    return out


def _formed(keys: tuple[list[str], list[str], list[str]], forms: dict[str, str] | None) -> tuple[list[str], list[str], list[str]]:
    """``keys`` with each ragged row's name in its place (`ragged_forms`)."""
    if not forms:
        return keys
    return tuple([forms.get(k, k) for k in ks] for ks in keys)  # type: ignore[return-value] # (three lists in, three out)


def key_order(keys: tuple[list[str], list[str], list[str]], first: Side, pending: Pending = (), forms: dict[str, str] | None = None) -> Order | None:
    """The order the rows only the second side has go in: the one all three
    versions keep; or, when the first side sorted the table (it keeps an
    order, the base keeps none), that one; None: after their neighbours.
    A keyless row (a divider, a blank line) is in no order; in a table all
    three versions keep sorted, a ragged row is in the order of the name it
    shows (``forms``: `ragged_forms`), but it makes no side's sorting."""
    order = sort_order(_formed(keys, forms))
    if order is not None:
        return order
    mine, base = keys[first], keys[Side.BASE]
    if len(mine) < 2 or len(base) < 2 or any(k[:1] == KEYLESS for k in mine) or any(first_key(new)[:1] == KEYLESS for _, new in pending):
        return None
    if any(sorted_by(base, order) for order in _ORDERS):
        return None
    return next((order for order in _ORDERS if sorted_by(mine, order)), None)


def insert_after_neighbours(out: list[Item], pending: Pending, keys: tuple[list[str], list[str], list[str]], second: Table, first: Side,
                            grouped: frozenset[str] | None = None, forms: dict[str, str] | None = None) -> list[Item]:
    """Place rows only ``second`` has: each right after its nearest preceding
    neighbour in ``second`` that survives (rows the first side added right
    there come first), or in key order when all three tables are sorted.
    In a table of group rows (``grouped``: `group_rows` of its versions)
    the neighbour is one in the row's own group, or that group's row: a row
    never moves across group rows (`_anchors`)."""
    o_keys = set(keys[0])
    order = key_order(keys, first, pending, forms)
    placed = _in_key_order(out, pending, order, forms or {}) if order is not None else None
    if placed is not None:
        return placed
    anchored, anchor_lines, out_labels, entry_lines = _anchors(out, pending, second, first, grouped)
    by_copy = _split_by_copy(out, anchored, entry_lines)
    result: list[Item] = []
    seen: set[str | None] = set()
    twice: set[str | None] = set()  # keys the second side adds more than once
    copy_lines: dict[str | None, list[list[bytes]]] = {}
    for _, new in pending:
        (twice if new[0].key in seen else seen).add(new[0].key)
        copy_lines.setdefault(new[0].key, []).append(new[0].lines)

    def flush(due_rows: str | None | list[list[Item]]) -> None:
        # depth-first over "rows anchored to rows", without recursion: a side
        # may add thousands of rows in a row
        first_rows = due_rows if isinstance(due_rows, list) else anchored.pop(due_rows, [])
        stack = list(reversed(first_rows))
        while stack:
            new = stack.pop()
            result.extend(new)
            k = new[0].key  # a key added twice: what follows the copy the rows follow in their side
            if k not in twice:
                stack.extend(reversed(anchored.pop(k, [])))
            elif k in anchored:
                stack.extend(reversed(_after_copy(anchored, k, new[0].lines, copy_lines[k], anchor_lines.get(k), entry_lines)))

    waiting: str | None | list[list[Item]] = None  # whose anchored rows are due
    due = True
    for i, item in enumerate(out):
        fresh = item.side is first and item.key not in o_keys and i not in out_labels  # (a group row it added starts another group)
        if due and not fresh:
            flush(waiting)
            due = False
        result.append(item)
        mine: str | None | list[list[Item]] = by_copy.pop(i, None)
        if mine is None and item.key is not None and item.key in anchored:
            mine = item.key
        if mine is not None:
            if due:
                flush(waiting)
            waiting, due = mine, True
    if due:
        flush(waiting)
    for rest in list(anchored):  # anchors that never showed up: keep, at the end
        flush(rest)
    return result


_UNSURE = "\x00?"  # the group below a conflict region that holds a group row: no row's
_TRAILING = b" \t\r\n|"


def _may_label(lines: list[bytes]) -> bool:
    """Might one of ``lines`` be a group row (`label_of` decides): one pipe
    once the trailing pipes and blanks are cut, or an escaped pipe?  A
    table without any then costs two passes in C."""
    pipes = map(bytes.count, map(bytes.rstrip, lines, repeat(_TRAILING)), repeat(b"|"))
    return min(pipes, default=2) < 2 or b"\\|" in b"".join(lines)


def group_rows(tables: tuple[Table, ...]) -> frozenset[str] | None:
    """None if no version of a table has group rows (docs/spec.md#group-rows-and-ragged-rows),
    else the labels that label no group (a version has them as an entry's
    key), as `model.groups.qualify` reads them."""
    labels: set[str] = set()
    entries: set[str] = set()
    if len(tables[0].columns) < 2 or not any(_may_label([ln for r in t.rows for ln in r.lines]) for t in tables):
        return None
    for t in tables:
        column, width = t.column, len(t.columns)
        for r in t.rows:
            if type(r) is Run:  # unchanged rows: only their labels matter here
                labels.update(x for x in (label_of(ln, column, width) for ln in r.lines) if x)
                continue
            label = label_of(r.lines[0], column, width)
            if label is not None:
                labels.add(label)
            elif (key := row_key(r))[:1] != KEYLESS:
                entries.add(model.shown(key))
    return frozenset(labels & entries) if labels - entries else None


def _group_ends(entries: Sequence[Row | Item], column: int, width: int, not_labels: frozenset[str]) -> tuple[list[str], set[int]]:
    """The group each of ``entries`` (rows or items, in order) ends in (its
    label; "" above the first group row), and the indexes of those that
    hold a group row."""
    group = ""
    ends: list[str] = []
    labelled: set[int] = set()
    for i, e in enumerate(entries):
        for line in e.lines:
            label = label_of(line, column, width)
            if label is not None and label not in not_labels:
                group = _UNSURE if getattr(e, "conflict", None) is not None else label
                labelled.add(i)
        ends.append(group)
    return ends, labelled


def _anchors(out: list[Item], pending: Pending, second: Table, first: Side, not_labels: frozenset[str] | None
             ) -> tuple[dict[str | None, list[list[Item]]], dict[str | None, list[bytes]], set[int], dict[int, list[bytes]]]:
    """Where each pending row goes: (anchor key -> the rows placed after it
    (None: the table's start), anchor key -> its lines in ``second``, the
    indexes of ``out`` that hold a group row, id of each pending row's
    items -> its anchor's lines in ``second``).  An anchor is the row's
    nearest preceding neighbour in ``second`` that survives; in a table of
    group rows, one that stands in the row's group in ``out`` too (a
    neighbour the first side moved to another group is passed over), or the
    group's row.  When that group row is gone or in conflict, where the row
    goes is not guessed at: `Fallback`."""
    survivors = {item.key for item in out} | {new[0].key for _, new in pending}
    anchored: dict[str | None, list[list[Item]]] = {}
    anchor_lines: dict[str | None, list[bytes]] = {}
    entry_lines: dict[int, list[bytes]] = {}
    ends: list[str] = []
    out_labels: set[int] = set()
    if not_labels is not None:
        column, width = second.column, len(second.columns)
        ends, labelled = _group_ends(second.rows, column, width, not_labels)
        out_ends, out_labels = _group_ends(out, column, width, not_labels)
        group_of = {item.key: g for item, g in zip(out, out_ends)}
        fresh = {new[0].key for _, new in pending}
    for idx, new in pending:
        anchor = None
        for j in range(idx - 1, -1, -1):
            k = second.rows[j].key
            if k in survivors and (not ends or k in fresh or group_of.get(k) == ends[idx - 1]):
                anchor = k
                anchor_lines.setdefault(anchor, second.rows[j].lines)
                entry_lines[id(new)] = second.rows[j].lines
                break
            if ends and j in labelled:
                row = second.rows[idx]
                raise Fallback(f"line {row.line + 1}: {model.shown(row_key(row))}: {first.other.label} put it under the group row {ends[j]}, "
                               "which the other side deleted or changed: which group it goes in is not guessed at")
        anchored.setdefault(anchor, []).append(new)
    return anchored, anchor_lines, out_labels, entry_lines


def stray_row(out: list[Item], versions: tuple[Table, Table, Table], not_labels: frozenset[str]) -> str | None:
    """Why the merged rows ``out`` of a table of group rows move a row
    across group rows (it stands in a group neither side has it in: one
    side added it to a group whose row the other deleted, say), or None.
    Rows below a conflicted group row are in the group the conflict shows."""
    t = versions[0]
    column, width = t.column, len(t.columns)
    where: dict[str, set[str]] = {}
    for side in (Side.OURS, Side.THEIRS):
        rows = versions[side].rows
        for r, g in zip(rows, _group_ends(rows, column, width, not_labels)[0]):
            where.setdefault(row_key(r), set()).add(g)
    for item, g in zip(out, _group_ends(out, column, width, not_labels)[0]):
        if item.conflict is None and g != _UNSURE and item.key in where and g not in where[item.key]:
            groups = " or ".join(sorted(x or "(above the first group row)" for x in where[item.key]))
            return f"{model.shown(item.key)}: the merge would put it in group {g or '(above the first group row)'}, the sides have it in {groups}"
    return None


def _after_copy(anchored: dict[str | None, list[list[Item]]], k: str | None, lines: list[bytes], copies: list[list[bytes]],
                first: list[bytes] | None, entry_lines: dict[int, list[bytes]]) -> list[list[Item]]:
    """The rows anchored on the copy of key ``k`` (one the second side adds
    more than once) whose text is ``lines``, taken out of ``anchored``: those
    whose anchor row has that text, and, after the copy the first of them
    follows (``first``), those whose anchor is no copy's text."""
    mine: list[list[Item]] = []
    rest: list[list[Item]] = []
    for new in anchored.pop(k):
        at = entry_lines.get(id(new))
        (mine if at == lines or (lines == first and at not in copies) else rest).append(new)
    if rest:
        anchored[k] = rest
    return mine


def _split_by_copy(out: list[Item], anchored: dict[str | None, list[list[Item]]],
                   entry_lines: dict[int, list[bytes]]) -> dict[int, list[list[Item]]]:
    """For an anchor key ``out`` holds more than once (a duplicate some side
    kept), the rows anchored on it by the copy each follows in the side that
    added it: the copy with that anchor row's text, else the first (index
    in ``out`` -> rows, in their order; those keys leave ``anchored``)."""
    copies: dict[str | None, list[int]] = {}
    for i, item in enumerate(out):
        if item.key in anchored:
            copies.setdefault(item.key, []).append(i)
    by_copy: dict[int, list[list[Item]]] = {}
    for k, ix in copies.items():
        if len(ix) > 1:
            for new in anchored.pop(k):
                lines = entry_lines.get(id(new))
                by_copy.setdefault(next((i for i in ix if out[i].lines == lines), ix[0]), []).append(new)
    return by_copy


def _in_key_order(out: list[Item], pending: Pending, order: Order, forms: dict[str, str]) -> list[Item] | None:
    """Rows only the second side has, placed in key order among ``out`` (a
    ragged row by the name it shows: ``forms``); None when one sorts equal
    to a row there (``OSCAR`` and ``Oscar`` ignoring case, two ragged rows
    showing one name): key order cannot tell which goes first, its author's
    neighbour can."""
    def form(k: str) -> str:
        return forms.get(k, k)

    news = sorted((new for _, new in pending), key=lambda n: order(form(first_key(n))))
    merged: list[Item] = []
    n = 0
    for item in out:
        if n < len(news) and item.key is not None:
            here = order(form(item.key))
            while n < len(news) and (mine := order(form(first_key(news[n])))) <= here:
                if mine == here:
                    return None
                merged.extend(news[n])
                n += 1
        merged.append(item)
    for rest in news[n:]:
        merged.extend(rest)
    return merged


def _widths(t: Table) -> list[int] | None:
    """The column widths of an aligned table (each column's cells equally
    wide on every line, in characters), else None."""
    widths: list[int] | None = None
    for line in (t.header, t.delimiter, *(r.lines[0] for r in t.rows if row_key(r)[:1] != KEYLESS)):
        w = [len(c.decode("utf-8", "replace")) for c in model.split_cells(line, t.column).cells]
        if widths is None:
            widths = w
        elif w != widths:
            return None
    return widths


def _repadded(o: Table, aligned: Table, widths: list[int]) -> bool:
    """Did ``aligned`` (every line ``widths`` wide) re-pad a row of the base:
    does it hold a base row's key whose base line had other widths?  A side
    that re-padded its header alone (to the widths its rows already had)
    re-aligned nothing the other side wrote."""
    held = {r.key for r in aligned.rows if r.key is not None}
    for r in o.rows:
        if r.key in held and r.key is not None and r.key[:1] != KEYLESS:
            if [len(c.decode("utf-8", "replace")) for c in model.split_cells(r.lines[0], o.column).cells] != widths:
                return True
    return False


def realign(o: Table, a: Table, b: Table, out: list[Item]) -> None:
    """When one side re-aligned a table (padded its header and rows to new
    widths: `_repadded`), the rows the merge took from elsewhere (the other side's additions and
    edits, merged rows) get the same padding, where their text fits."""
    ho, ha, hb = ((t.header, t.delimiter) for t in (o, a, b))
    if hb != ho and ha == ho:  # a re-alignment re-pads the header too
        aligned = b
    elif ha != ho and hb == ho:
        aligned = a
    else:
        return
    widths = _widths(aligned)
    if widths is None or widths == _widths(o) or not _repadded(o, aligned, widths):
        return
    right = [c.strip().endswith(b":") and not c.strip().startswith(b":") for c in model.split_cells(aligned.delimiter, aligned.column).cells]
    closing = model.split_cells(aligned.header, aligned.column).suffix.rstrip(b"\r\n")  # its closing pipe, or none
    known = {r.lines[0] for r in aligned.rows}
    for item in out:
        if item.conflict is not None or item.key is None or item.key[:1] == KEYLESS or len(item.lines) != 1 or item.lines[0] in known:
            continue
        cells = model.split_cells(item.lines[0], aligned.column)
        if len(cells.cells) != len(widths):
            continue
        padded = []
        for cell, width, r in zip(cells.cells, widths, right):
            text = cell.strip()
            room = width - 2 - len(text.decode("utf-8", "replace"))
            if room < 0:
                break
            padded.append(b" " + (b" " * room + text if r else text + b" " * room) + b" ")
        else:
            ending = cells.suffix[len(cells.suffix.rstrip(b"\r\n")):]
            item.lines = [model.Cells(cells.prefix, padded, closing + ending).render()]
