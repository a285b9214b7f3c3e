"""Where rows go in a merged keyed table: the first side's order, rows only
the second side has after their nearest neighbour there (or in key order when
all three versions are sorted, or the first side sorted the table), and
re-padding to the alignment a side chose."""

from __future__ import annotations

import operator
from .. import rx

from .. import model
from ..model import Table
from .keyless import KEYLESS
from .options import Item
from .sides import Side

def reordered(base: list[str], keys: list[str]) -> bool:
    """Did ``keys`` change the relative order of the keys it shares with ``base``?"""
    if keys == base:
        return False
    mine = set(keys)
    known = set(base)
    return list(filter(known.__contains__, keys)) != list(filter(mine.__contains__, base))  # (in C)


_DIGITS = rx.compile(r"(\d+)")


def _natural(key: str) -> tuple:
    """``kind 7`` before ``kind 10``: runs of digits compare as numbers, the rest ignoring case."""
    parts: list = _DIGITS.split(key.casefold())
    parts[1::2] = map(int, parts[1::2])
    return tuple(parts)


_ORDERS = (str.casefold, str, _natural)  # ignoring case first: it is what people keep; str: as written


def _keeps(ks: list[str], order, natural: dict[str, tuple] | None = None, known: set[str] | None = None) -> bool:
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

        def nat(k: str) -> tuple:
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


def _sort_order(keys: tuple[list[str], list[str], list[str]]):
    """The order all three versions of a table keep (ignoring case, as
    written, or with numbers compared as numbers), or None if not sorted (or
    the base has fewer than two rows).  A table with keyless rows, such as
    group dividers, is in groups, not sorted."""
    if len(keys[0]) < 2 or any(ks and ks[0][:1] == KEYLESS for ks in keys):
        return None  # (a side left with one row or none is in any order)
    for order in _ORDERS:
        natural: dict[str, tuple] = {}
        known = set(keys[0]) if order is _natural else None
        if all(_keeps(ks, order, natural, known) for ks in (keys[1], keys[2], keys[0])):  # the sides differ from the base
            return order
    return None


def key_order(keys: tuple[list[str], list[str], list[str]], first: Side, pending=()):
    """The order the rows only the second side has go in: the one all three
    versions keep; or, when the first side sorted the table (it keeps an
    order, the base keeps none), that one; None: after their neighbours.
    A keyless row (a ragged row, a divider) is in no order."""
    order = _sort_order(keys)
    if order is not None:
        return order
    mine, base = keys[first], keys[Side.BASE]
    if len(mine) < 2 or len(base) < 2 or any(k[:1] == KEYLESS for k in mine) or any(new[0].key[:1] == KEYLESS for _, new in pending):
        return None
    if any(_keeps(base, order) for order in _ORDERS):
        return None
    return next((order for order in _ORDERS if _keeps(mine, order)), None)


def insert_after_neighbours(out: list[Item], pending, keys: tuple[list[str], list[str], list[str]], second: Table, first: Side) -> list[Item]:
    """Place rows only ``second`` has: each right after its nearest preceding
    neighbour in ``second`` that survives (rows the first side added right
    there come first), or in key order when all three tables are sorted, or
    the first side sorted it (`key_order`)."""
    o_keys = set(keys[0])
    order = key_order(keys, first, pending)
    if order is not None:
        return _in_key_order(out, pending, order)
    survivors = {item.key for item in out} | {new[0].key for _, new in pending}
    anchored: dict[str | None, list[list[Item]]] = {}
    anchor_lines: dict[str | None, list[bytes]] = {}
    for idx, new in pending:
        anchor = None
        for j in range(idx - 1, -1, -1):
            if second.rows[j].key in survivors:
                anchor = second.rows[j].key
                anchor_lines.setdefault(anchor, second.rows[j].lines)
                break
        anchored.setdefault(anchor, []).append(new)
    at = _anchor_copies(out, anchor_lines)
    result: list[Item] = []
    seen: set[str | None] = set()
    twice: set[str | None] = set()  # keys the second side adds more than once
    for _, new in pending:
        (twice if new[0].key in seen else seen).add(new[0].key)

    def flush(key: str | None) -> None:
        # depth-first over "rows anchored to rows", without recursion: a side
        # may add thousands of rows in a row
        stack = list(reversed(anchored.pop(key, [])))
        while stack:
            new = stack.pop()
            result.extend(new)
            k = new[0].key  # a key added twice: what follows the copy the rows follow in their side
            if k not in twice or new[0].lines == anchor_lines.get(k):
                stack.extend(reversed(anchored.pop(k, [])))

    waiting: str | None = None  # whose anchored rows are due
    due = True
    for i, item in enumerate(out):
        fresh = item.side is first and item.key not in o_keys
        if due and not fresh:
            flush(waiting)
            due = False
        result.append(item)
        if item.key is not None and item.key in anchored and at.get(item.key, i) == i:
            if due:
                flush(waiting)
            waiting, due = item.key, True
    if due:
        flush(waiting)
    for rest in list(anchored):  # anchors that never showed up: keep, at the end
        flush(rest)
    return result


def _anchor_copies(out: list[Item], anchor_lines: dict[str | None, list[bytes]]) -> dict[str, int]:
    """For an anchor key ``out`` holds more than once (a side's duplicate),
    the copy a row follows: the one with the anchor row's text in the side
    that added the row, else the first."""
    copies: dict[str, list[int]] = {}
    for i, item in enumerate(out):
        if item.key in anchor_lines:
            copies.setdefault(item.key, []).append(i)
    return {k: next((i for i in ix if out[i].lines == anchor_lines[k]), ix[0]) for k, ix in copies.items() if len(ix) > 1}


def _in_key_order(out: list[Item], pending, order) -> list[Item]:
    """Rows only the second side has, placed in key order among ``out``."""
    news = sorted((new for _, new in pending), key=lambda n: order(n[0].key))
    merged: list[Item] = []
    n = 0
    for item in out:
        while n < len(news) and item.key is not None and order(news[n][0].key) < order(item.key):
            merged.extend(news[n])
            n += 1
        merged.append(item)
    for rest in news[n:]:
        merged.extend(rest)
    return merged


def _widths(t: Table) -> list[int] | None:
    """The column widths of an aligned table (each column's cells equally
    wide on every line, in characters), else None."""
    widths = None
    for line in (t.header, t.delimiter, *(r.lines[0] for r in t.rows if r.key[:1] != KEYLESS)):
        w = [len(c.decode("utf-8", "replace")) for c in model.split_cells(line, t.column).cells]
        if widths is None:
            widths = w
        elif w != widths:
            return None
    return widths


def realign(o: Table, a: Table, b: Table, out: list[Item]) -> None:
    """When one side re-aligned a table (padded its columns to new widths),
    the rows the merge took from elsewhere (the other side's additions and
    edits, merged rows) get the same padding, where their text fits."""
    ho, ha, hb = ((t.header, t.delimiter) for t in (o, a, b))
    if hb != ho and ha == ho:  # a re-alignment re-pads the header too
        aligned = b
    elif ha != ho and hb == ho:
        aligned = a
    else:
        return
    widths = _widths(aligned)
    if widths is None or widths == _widths(o):
        return
    right = [c.strip().endswith(b":") and not c.strip().startswith(b":") for c in model.split_cells(aligned.delimiter, aligned.column).cells]
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
            item.lines = [model.Cells(cells.prefix, padded, cells.suffix).render()]
