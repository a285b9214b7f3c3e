"""Derived counts: rollup tables and numbers in prose that count a record's rows.

One computation (`derive`) feeds the `rollup` check, `mergedrv fix` and the
merge driver (`recompute_bytes` after rows are merged, `align` before).  Only
the digits of a declared number are ever rewritten; nothing else moves.
"""

from __future__ import annotations

from collections import Counter
from operator import attrgetter, itemgetter

from . import rx

from . import model
from . import patterns
from .config import Count, Grid, Record, Rollup
from .values import Value

_DIGITS = rx.compile(rb"\d+")


class Number(Value):
    """One declared number in a file: where its digits are (byte offsets
    ``start``-``end``, 1-based ``line``), the value ``found`` and the value
    ``want``ed; ``what`` names it in messages ("rollup 'Total'", "count
    '...'"), ``source`` is ("rollup" | "count", index in the record's list)."""

    __slots__ = ("start", "end", "line", "found", "want", "what", "source")

    def __init__(self, start: int, end: int, line: int, found: int, want: int, what: str, source: tuple[str, int]) -> None:
        self.start = start
        self.end = end
        self.line = line
        self.found = found
        self.want = want
        self.what = what
        self.source = source


class Problem(Value):
    """Something a number rewrite cannot fix: ``line`` 0 means the configuration."""

    __slots__ = ("line", "message", "source")

    def __init__(self, line: int, message: str, source: tuple[str, int]) -> None:
        self.line = line
        self.message = message
        self.source = source


class Derived(Value):
    """The declared numbers of a file and what stops recomputing them."""

    __slots__ = ("numbers", "problems")

    def __init__(self, numbers: list[Number] | None = None, problems: list[Problem] | None = None) -> None:
        self.numbers = [] if numbers is None else numbers
        self.problems = [] if problems is None else problems


def cell_text(cell: bytes) -> str:
    """A cell's text: surrounding space, backticks and ``**`` removed."""
    return cell.decode("utf-8", "replace").replace("`", "").replace("**", "").strip()


def value_is(text: str, want: str) -> bool:
    """``text`` is ``want``, or starts with it and then a non-word character.

    ``ACTIVE (W4 landed)`` is ``ACTIVE``; ``MODEL-TEXT-x`` is ``MODEL-TEXT``;
    ``INVENTORIED`` is not ``INVENTORY``.  Case is ignored.
    """
    t, w = text.casefold(), want.strip().casefold()
    if not w or not t.startswith(w):
        return False
    return len(t) == len(w) or not (t[len(w)].isalnum() or t[len(w)] == "_")


def _word_end(text: str, n: int) -> bool:
    """Does a word end at ``n`` in ``text`` (value_is, with the prefix checked)?"""
    return len(text) == n or not (text[n].isalnum() or text[n] == "_")


def _row_cell(table: model.Table, row: model.Row, index: int) -> bytes | None:
    """One cell of a row: rows of the real matrix run to 40 KB, and the
    counted columns come before the long ones."""
    return model.cell_at(row.lines[0], table.column, index)


def _nth(cells: list[bytes], i: int) -> bytes | None:
    return cells[i] if i < len(cells) else None


class Rows:
    """The keyed rows a record's numbers count, with cell values by column."""

    def __init__(self, pairs: list[tuple[model.Table, model.Row]], cells=None, matching=None) -> None:
        self.pairs = pairs
        self._cell = (lambda t, r, i: _nth(cells(t, r), i)) if cells else _row_cell
        self._matching = matching or patterns.matching  # (pattern, texts) -> hits; the checks' remembers texts
        self._values: dict[str, list[str]] = {}
        self.memo: dict | None = None  # pure answers kept across a range's commits (cell texts, a rollup's groups)
        self.columns: set[str] | None = None  # the columns of the keyed tables the rows come from (None: not known)

    @classmethod
    def of(cls, docs: list[model.Document], cells=None, matching=None) -> Rows:
        rows = cls([(t, r) for d in docs for t in d.keyed_tables() for r in t.rows], cells, matching)
        rows.columns = {c for d in docs for t in d.keyed_tables() for c in t.columns}
        return rows

    def lacks(self, column: str) -> str | None:
        """``column`` when no keyed table the rows come from has it (a typo in
        the configuration: counting by it would count nothing), else None
        (None too without a keyed table: a keyless record says so itself)."""
        if not self.columns or model.normalize_name(column) in self.columns:
            return None
        return column

    def __len__(self) -> int:
        return len(self.pairs)

    def values(self, column: str) -> list[str]:
        """Each row's text in ``column`` ("" where the row has no such cell)."""
        col = model.normalize_name(column)
        if col in self._values:
            return self._values[col]
        out = self._values[col] = []
        if self.memo is not None:  # the checks' cells depend on a row's first line alone: its text is kept by that line
            return self._kept_values(col, out)
        for table, row in self.pairs:
            if col not in table.columns:
                out.append("")
                continue
            i = table.columns.index(col)
            cell = self._cell(table, row, i)
            out.append(cell_text(cell) if cell is not None else "")
        return out

    def _kept_values(self, col: str, out: list[str]) -> list[str]:
        memo = self.memo
        assert memo is not None  # (called with a memo only)
        if len(memo) > 1000:
            memo.clear()
        index: dict[tuple[int, int], tuple[int, dict]] = {}
        for table, row in self.pairs:
            found = index.get((id(table), row.column))
            if found is None:
                i = table.columns.index(col) if col in table.columns else -1
                texts = memo.setdefault(("text", i, row.column), {})
                if len(texts) > 200_000:
                    texts.clear()
                found = index[(id(table), row.column)] = (i, texts)
            i, texts = found
            if i < 0:
                out.append("")
                continue
            text = texts.get(row.lines[0])
            if text is None:
                cell = self._cell(table, row, i)
                text = texts[row.lines[0]] = cell_text(cell) if cell is not None else ""
            out.append(text)
        return out

    def count(self, where: dict[str, list[str]]) -> int:
        """How many rows pass every filter of ``where`` (raises PatternError)."""
        if not where:
            return len(self.pairs)
        from collections import Counter

        # each distinct combination of the filtered columns' values is judged once
        combos = Counter(zip(*(self.values(column) for column in where)))
        keep = [True] * len(combos)
        for n, (column, wants) in enumerate(where.items()):
            values = [c[n] for c in combos]
            passed = [False] * len(values)
            for want in wants:
                negate = want.startswith("!")
                want = want[1:] if negate else want
                if want.startswith("~"):
                    hits = [bool(h) for h in self._matching(want[1:], values)]
                else:
                    hits = [value_is(v, want) for v in values]
                passed = [p or (h != negate) for p, h in zip(passed, hits)]
            keep = [k and p for k, p in zip(keep, passed)]
        return sum(times for k, times in zip(keep, combos.values()) if k)


def _line_starts(doc: model.Document) -> list[int]:
    from itertools import accumulate

    return list(accumulate(map(len, doc.lines), initial=0))


def _rollup(doc: model.Document, rows: Rows, rollup: Rollup, index: int, starts: list[int], out: Derived) -> bool:
    """Numbers of one rollup table in ``doc``; False if the doc has no such table."""
    heading = model.normalize_name(rollup.heading)
    label, count = model.normalize_name(rollup.label), model.normalize_name(rollup.count)
    source = ("rollup", index)
    if rows.lacks(rollup.group):
        out.problems.append(Problem(0, _lacking(f"rollup {rollup.heading!r}: group", rollup.group), source))
        return True
    tables = [t for t in doc.tables if model.normalize_name(t.heading) == heading and label in t.columns and count in t.columns]
    if not tables:
        return False
    table = tables[0]
    li, ci = table.columns.index(label), table.columns.index(count)
    lines = []
    for n in range(table.start + 2, table.end):
        cells = model.split_cells(doc.lines[n], table.column)
        if b"|" in doc.lines[n][table.column :] and max(li, ci) < len(cells.cells):
            lines.append((n, cells))
    labels = [cell_text(c.cells[li]) for _, c in lines]
    total = model.normalize_name(rollup.total)
    groups = [x for x in labels if model.normalize_name(x) != total]
    tally = dict.fromkeys(groups, 0)
    unlisted: dict[str, int] = {}
    best_of: dict[str, str | None] = rows.memo.setdefault(("best", tuple(groups)), {}) if rows.memo is not None else {}
    folded = [(g, g.strip().casefold()) for g in groups]
    values = rows.values(rollup.group)
    for text, times in Counter(values).items():  # each distinct value once, in the order the rows first hold it
        if text not in best_of:
            t = text.casefold()
            best_of[text] = max((g for g, w in folded if w and t.startswith(w) and _word_end(t, len(w))), key=len, default=None)
        best = best_of[text]
        if best is None:
            unlisted.setdefault(text or "(empty)", rows.pairs[values.index(text)][1].line + 1)
        else:
            tally[best] += times
    has_total = False
    for (n, cells), text in zip(lines, labels):
        m = _DIGITS.search(cells.cells[ci])
        if m is None:
            continue
        offset = starts[n] + len(cells.prefix) + sum(len(c) + 1 for c in cells.cells[:ci])
        if model.normalize_name(text) == total:
            has_total = True
            want = len(rows)
        else:
            want = tally[text]
        what = f"rollup {rollup.heading!r} row {text!r}"
        out.numbers.append(Number(offset + m.start(), offset + m.end(), n + 1, int(m.group()), want, what, source))
    if has_total and unlisted:
        shown = ", ".join(f"{v!r} (line {ln})" for v, ln in list(unlisted.items())[:3])
        more = f" and {len(unlisted) - 3} more" if len(unlisted) > 3 else ""
        out.problems.append(Problem(table.start + 1, f"rollup {rollup.heading!r} lists no row for {rollup.group} {shown}{more}", source))
    return True


def _grid_table(doc: model.Document, grid: Grid) -> model.Table | None:
    """The grid's table: the first unkeyed table with the label and rows columns."""
    label, count = model.normalize_name(grid.label), model.normalize_name(grid.rows)
    heading = model.normalize_name(grid.heading) if grid.heading else None
    for t in doc.tables:
        if t.key_col is None and label in t.columns and count in t.columns:
            if heading is None or model.normalize_name(t.heading) == heading:
                return t
    return None


def _grid_tally(rows: Rows, grid: Grid, values: list[str]) -> dict[str, list[int]]:
    """Per section label (normalized): [rows, count of each value]; "" is all rows."""
    short = {model.normalize_name(k): v for k, v in grid.labels.items()}
    tally: dict[str, list[int]] = {"": [0] * (len(values) + 1)}
    headings = map(attrgetter("heading"), map(itemgetter(0), rows.pairs))
    names: dict[str, str] = {}
    for (heading, text), times in Counter(zip(headings, rows.values(grid.column))).items():  # each distinct pair once, in row order
        name = names.get(heading)
        if name is None:
            name = names[heading] = model.normalize_name(short.get(model.normalize_name(heading), heading))
        hits = [value_is(text, want) for want in values]
        for key in (name, ""):
            counts = tally.setdefault(key, [0] * (len(values) + 1))
            counts[0] += times
            for i, hit in enumerate(hits):
                if hit:
                    counts[i + 1] += times
    return tally


def _grid(doc: model.Document, rows: Rows, grid: Grid, index: int, starts: list[int], out: Derived) -> bool:
    """Numbers of one section grid in ``doc``; False if the doc has none."""
    if rows.lacks(grid.column):
        out.problems.append(Problem(0, _lacking(f"grid {grid.label!r}:", grid.column), ("grid", index)))
        return True
    table = _grid_table(doc, grid)
    if table is None:
        return False
    source = ("grid", index)
    li, ri = table.columns.index(model.normalize_name(grid.label)), table.columns.index(model.normalize_name(grid.rows))
    head = model.split_cells(table.header, table.column).cells
    value_cols = [i for i in range(len(head)) if i not in (li, ri)]
    names = [cell_text(head[i]) for i in value_cols]
    tally = _grid_tally(rows, grid, names)
    total = model.normalize_name(grid.total)
    listed = set()
    for n in range(table.start + 2, table.end):
        cells = model.split_cells(doc.lines[n], table.column)
        if b"|" not in doc.lines[n][table.column :] or li >= len(cells.cells):
            continue
        text = cell_text(cells.cells[li])
        name = model.normalize_name(text)
        key = "" if name == total else name
        listed.add(key)
        counts = tally.get(key)
        if counts is None:
            out.problems.append(Problem(n + 1, f"grid {grid.column!r} row {text!r} names no section of the file (give its heading a label in `labels`)", source))
            continue
        offset = starts[n] + len(cells.prefix)
        for col, i in [(grid.rows, ri), *zip(names, value_cols)]:
            if i < len(cells.cells):
                m = _DIGITS.search(cells.cells[i])
                if m is not None:
                    want = counts[0] if i == ri else counts[value_cols.index(i) + 1]
                    at = offset + sum(len(c) + 1 for c in cells.cells[:i])
                    what = f"grid {grid.column!r} row {text!r} column {col!r}"
                    out.numbers.append(Number(at + m.start(), at + m.end(), n + 1, int(m.group()), want, what, source))
    missing = [k for k in tally if k and k not in listed]
    if missing:
        out.problems.append(Problem(table.start + 1, f"grid {grid.column!r} lists no row for the section {missing[0]!r}", source))
    return True


def _count(keyed: list[tuple[int, int]], data: bytes, rows: Rows, count: Count, index: int, starts: list[int], out: Derived) -> None:
    """Numbers in ``data`` that ``count.pattern`` finds outside the ``keyed``
    tables' lines ([start, end) of each; none in a counted file)."""
    from .captures import captures

    source = ("count", index)
    lacking = next((c for c in count.where if rows.lacks(c)), None)
    if lacking is not None:
        out.problems.append(Problem(0, _lacking(f"count '{count.pattern}': where", lacking), source))
        return
    try:
        compiled = patterns.compile(count.pattern)
        want = rows.count(count.where) + count.offset
    except patterns.PatternError as exc:
        out.problems.append(Problem(0, str(exc), source))
        return
    if compiled.groups < 1:
        out.problems.append(Problem(0, f"count pattern '{count.pattern}' needs one (group) around the number", source))
        return
    for begin, end, digits in captures(compiled, count.pattern, data, starts, keyed):
        line = _line_of(starts, begin)
        if any(s <= line < e for s, e in keyed):
            continue
        if not digits.isdigit():
            out.problems.append(Problem(line + 1, f"count pattern '{count.pattern}' captured {digits.decode('utf-8', 'replace')!r}, not a number", source))
            continue
        out.numbers.append(Number(begin, end, line + 1, int(digits), want, f"count '{count.pattern}'", source))


def file_starts(data: bytes) -> list[int]:
    """The offset of each line's start in a counted file's bytes (`derive_file`)."""
    starts = [0]
    at = data.find(b"\n")
    while at >= 0:
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    return starts


def derive_file(data: bytes, path: str, record: Record, rows: Rows, starts: list[int] | None = None) -> Derived:
    """The numbers of ``record``'s counts that name ``path`` (``[[record.count]]
    file``), found in its bytes ``data``: any text, searched whole (no table
    is left out), each counting ``rows`` (the record's, across its files).
    ``starts``: `file_starts(data)`, when the caller keeps it."""
    out = Derived()
    mine = [(i, c) for i, c in enumerate(record.counts) if c.path() == path]
    if mine:
        starts = starts if starts is not None else file_starts(data)
        for i, count in mine:
            _count([], data, rows, count, i, starts, out)
    return out


def _lacking(what: str, column: str) -> str:
    return (f"{what} column {column!r} is the header of no keyed table of the record, so it would count no row "
            f"and nothing is judged or fixed; name a column of the record's table (matched ignoring case and markup)")


def _line_of(starts: list[int], offset: int) -> int:
    """0-based line holding byte ``offset``."""
    lo, hi = 0, len(starts) - 1
    while lo < hi - 1:
        mid = (lo + hi) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid
    return lo


def derive(doc: model.Document, record: Record, rows: Rows | None = None) -> Derived:
    """Every declared number of ``record`` found in ``doc``, with its right value
    (the counts that name another file are `derive_file`'s).

    ``rows`` are the rows counted (default: the keyed rows of ``doc``; a record
    spread over several files passes all of them).  A rollup missing from the
    file is not a problem here: the caller knows whether another file has it.
    """
    rows = rows if rows is not None else Rows.of([doc])
    out = Derived()
    starts = _line_starts(doc)
    for i, rollup in enumerate(record.rollups):
        _rollup(doc, rows, rollup, i, starts, out)
    for i, grid in enumerate(record.grids):
        _grid(doc, rows, grid, i, starts, out)
    if any(c.file is None for c in record.counts):
        data = b"".join(doc.lines)
        keyed = [(t.start, t.end) for t in doc.keyed_tables()]
        for i, count in enumerate(record.counts):
            if count.file is None:  # (a count of another file is `derive_file`'s)
                _count(keyed, data, rows, count, i, starts, out)
    return out


def rewrite(data: bytes, numbers: list[Number], value) -> bytes:
    """``data`` with each number's digits replaced by ``value(number)``."""
    out = bytearray(data)
    for n in sorted(numbers, key=lambda n: n.start, reverse=True):
        new = value(n)
        if new != n.found and new >= 0:
            out[n.start : n.end] = str(new).encode()
    return bytes(out)


def recompute_bytes(data: bytes, record: Record) -> bytes:
    """``data`` with its rollups and prose counts recomputed from its rows.

    Never loses content: on any problem the input comes back unchanged.
    """
    try:
        doc = model.parse(data, record.key, key_pattern=record.key_pattern)
        found = derive(doc, record)
        return rewrite(data, found.numbers, lambda n: n.want)
    except Exception:  # a merge must not fail for a derived number
        return data


def align(base: bytes, side: bytes, record: Record) -> bytes:
    """``side`` with each declared number set back to its value in ``base``.

    Run on both sides before a merge, it keeps derived numbers out of the
    text merge (two branches that each bump 326 to 327 no longer touch the
    same line); `recompute_bytes` then sets them from the merged rows.
    Numbers are paired by declaration and order; if the two versions do not
    declare the same numbers, ``side`` comes back unchanged.
    """
    return align_sides(base, [side], record)[0]


def align_sides(base: bytes, sides: list[bytes], record: Record) -> list[bytes]:
    """`align` for several sides: the base is parsed and derived once, and
    the sides are parsed incrementally from it."""
    try:
        docs = model.parse_many([base, *sides], record.key, key_pattern=record.key_pattern)
        old = derive(docs[0], record).numbers
    except Exception:
        return list(sides)
    out = []
    for data, doc in zip(sides, docs[1:]):
        try:
            new = derive(doc, record).numbers
            if [n.source for n in old] != [n.source for n in new]:
                out.append(data)
                continue
            values = {id(n): o.found for o, n in zip(old, new)}
            out.append(rewrite(data, new, lambda n: values[id(n)]))
        except Exception:
            out.append(data)
    return out
