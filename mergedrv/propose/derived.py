"""Derived numbers, references and stated counts `mergedrv init` finds for a proposed record.

Every proposal is tried with the very code the checks run (`derived.derive`),
so a rollup or a count is proposed only when the file already agrees with it.
"""

from __future__ import annotations

import re
from collections import Counter

from pathlib import Path, PurePosixPath

from .. import derived, model
from ..config import Count, Grid, Record, Rollup
from ..values import KeySpec, PatternSpec
from ..git import git_or_none
from .keys import parse_version, row_cells

_TOKEN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*")
_DIGIT = re.compile(rb"[0-9]")
_NUM = re.compile(rb"(?<![\w.,/:#$~-])(\d+)(?![\w.,%:/-]|\.\d)")
_WORD = re.compile(rb"\s*(`[^`\n]{1,40}`|\*\*|[A-Za-z][A-Za-z/'-]*)")
_UNITS = {b"ms", b"s", b"x", b"gb", b"mb", b"kb", b"tok", b"us", b"ns", b"min", b"h", b"k", b"m", b"b", b"th", b"st", b"nd", b"rd", b"px"}
_ROWS = re.compile(r"\b(?:rows?|entries|entry|items?|keys?|records?|IDs?)\b", re.I)
MAX_GROUPS = 16


def _record(rollups=(), counts=(), grids=()) -> Record:
    return Record("X", "x", "x", rollups=list(rollups), counts=list(counts), grids=list(grids))


def _is_count(cell: bytes) -> bool:
    return bool(re.fullmatch(r"\d+", derived.cell_text(cell)))


def rollups(doc: model.Document, rows: derived.Rows, columns: list[str], key: str) -> list[tuple[Rollup, str, bool]]:
    """Rollup tables of ``doc``: a keyless table whose labels are values of a
    record column (or key prefixes) and whose numbers are the row counts
    (with whether a Total row states the count of all rows)."""
    out = []
    for table in doc.tables:
        if table.key_col is not None or not table.heading:
            continue
        header = [derived.cell_text(c) for c in model.split_cells(table.header, table.column).cells]
        body = [model.split_cells(line, table.column).cells for line in table.preamble if b"|" in line[table.column:]]
        if len(body) < 2:
            continue
        numeric = [i for i in range(len(header)) if all(i < len(r) and (_is_count(r[i]) or not r[i].strip()) for r in body)
                   and sum(i < len(r) and _is_count(r[i]) for r in body) >= 2]
        labels = [i for i in range(len(header)) if i not in numeric and header[i]]
        found = _first_rollup(doc, rows, table, header, body, numeric, labels, columns, key)
        if found:
            out.append(found)
    return out


def _first_rollup(doc, rows, table, header, body, numeric, labels, columns, key):
    for li in labels[:2]:
        total = next((derived.cell_text(r[li]) for r in body if li < len(r)
                      and model.normalize_name(derived.cell_text(r[li])) in ("total", "all", "sum")), "Total")
        for ci in numeric:
            if _first_with(doc, Rollup(table.heading, key, header[li], header[ci], total)) is not table:
                continue  # (the table read depends on the heading, label and count alone)
            for group in [key] + [c for c in columns if c != key]:
                rollup = Rollup(table.heading, group, header[li], header[ci], total)
                result = derived.derive(doc, _record(rollups=[rollup]), rows)
                nums = result.numbers
                if len(nums) >= 2 and not result.problems and all(n.found == n.want for n in nums) and sum(n.want > 0 for n in nums) >= 2:
                    has_total = any(n.what.endswith(f"row {total!r}") for n in nums)
                    what = (f"table {table.heading!r} counts rows by {group!r}" + (" (key prefixes)" if group == key else "")
                            + (f"; {len(rows)} rows, the {total} row says {len(rows)}" if has_total else "; no Total row yet"))
                    return rollup, what, has_total
    return None


def _first_with(doc: model.Document, rollup: Rollup):
    """The table `derived` reads for ``rollup``."""
    heading = model.normalize_name(rollup.heading)
    label, count = model.normalize_name(rollup.label), model.normalize_name(rollup.count)
    return next((t for t in doc.tables if model.normalize_name(t.heading) == heading and label in t.columns and count in t.columns), None)


_STOP = {"and", "or", "the", "of", "a", "an", "for", "to", "in", "on", "with", "&"}
GRID_RIGHT = 0.8  # of a grid's cells that must agree with the rows (the rest are named: `fix` sets them)


def _words(text: str) -> set[str]:
    """A label's words, cut to five letters (`outputs` is `output`'s), without fillers."""
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.casefold()) if w not in _STOP}


def _likeness(label: str, heading: str) -> float:
    a, b = _words(label), _words(heading)
    return len(a & b) / len(a | b) if a and b else 0.0


def grids(doc: model.Document, rows: derived.Rows, columns: list[str]) -> list[tuple[Grid, str, list[str]]]:
    """Section grids of ``doc``: a keyless table with one row per section of
    the file (its heading, or a shortened form), a column counting each
    section's rows, columns headed by values of one record column, a Total
    row.  Returns (grid, what was measured, cells that disagree with the rows)."""
    sections: dict[str, int] = {}  # a section's heading -> its rows
    for table, _ in rows.pairs:
        sections[table.heading] = sections.get(table.heading, 0) + 1
    if len(sections) < 2:
        return []
    out = []
    for table in doc.tables:
        if table.key_col is not None:
            continue
        found = _grid_of(doc, rows, table, sections, columns)
        if found:
            out.append(found)
    return out


def _grid_of(doc, rows, table, sections, columns):
    header = [derived.cell_text(c) for c in model.split_cells(table.header, table.column).cells]
    body = [model.split_cells(line, table.column).cells for line in table.preamble if b"|" in line[table.column:]]
    if len(body) < 3:
        return None
    numeric = [i for i in range(len(header)) if header[i] and all(i < len(r) and _is_count(r[i]) for r in body)]
    labels = [i for i in range(len(header)) if header[i] and i not in numeric]
    if not labels or len(numeric) < 3:
        return None
    li = labels[0]
    texts = [derived.cell_text(r[li]) for r in body]
    totals = [t for t in texts if model.normalize_name(t) in ("total", "all", "sum")]
    named = [(t, r) for t, r in zip(texts, body) if t not in totals]
    if len(named) != len(sections):
        return None
    for ri in numeric:
        # each label row to the section it names: the most alike heading, its row count deciding
        pairs = sorted(((like + (int(derived.cell_text(r[ri])) == n), t, h) for t, r in named for h, n in sections.items()
                        if (like := _likeness(t, h)) > 0), reverse=True)
        match: dict[str, str] = {}
        for score, t, h in pairs:
            if score > 0 and t not in match and h not in match.values():
                match[t] = h
        if len(match) != len(sections) or any(int(derived.cell_text(r[ri])) != sections[match[t]] for t, r in named):
            continue
        values = [header[i] for i in numeric if i != ri]
        column = max(columns, key=lambda c: sum(any(derived.value_is(v, h) for v in set(rows.values(c))) for h in values), default=None)
        if column is None or 2 * sum(any(derived.value_is(v, h) for v in set(rows.values(column))) for h in values) < len(values):
            continue
        first = next(t for t in doc.tables if t.key_col is None and model.normalize_name(header[li]) in t.columns
                     and model.normalize_name(header[ri]) in t.columns)
        grid = Grid(column=column, label=header[li], rows=header[ri], total=totals[0] if totals else "Total",
                    heading=table.heading if first is not table else None,
                    labels={h: t for h in sections for t in match if match[t] == h and model.normalize_name(t) != model.normalize_name(h)})
        result = derived.derive(doc, _record(grids=[grid]), rows)
        nums = result.numbers
        wrong = [n for n in nums if n.found != n.want]
        counted = [n for n in nums if n.what.endswith(f"column {grid.rows!r}") or n.what.endswith(f"row {grid.total!r}")
                   or f"row {grid.total!r} " in n.what]
        if result.problems or not nums or any(n.found != n.want for n in counted) or len(wrong) > (1 - GRID_RIGHT) * len(nums):
            continue
        what = (f"the table under {table.heading or 'the top'!r} has a row for each of the {len(sections)} sections"
                + (f" ({len(grid.labels)} by a shortened heading, in `labels`)" if grid.labels else "")
                + f", {grid.rows!r} and {len(values)} {column!r} columns" + (f", a {grid.total} of {len(rows)}" if totals else "")
                + f"; {len(nums) - len(wrong)} of its {len(nums)} cells agree with the rows")
        return grid, what, [f"line {n.line}: {n.what.split(' row ', 1)[1]} says {n.found}, the rows give {n.want}" for n in wrong]
    return None


def _filters(rows: derived.Rows, columns: list[str]) -> list[tuple[dict, int, str]]:
    """(where, count, description) for all rows and each categorical value."""
    out: list[tuple[dict, int, str]] = [({}, len(rows), "all rows")]
    for col in columns:
        values = rows.values(col)
        tokens = Counter(m.group() for v in values if (m := _TOKEN.match(v)))
        if not tokens or len(tokens) > MAX_GROUPS or sum(tokens.values()) < 0.8 * len(values):
            continue
        for tok in tokens:
            n = rows.count({col: [tok]})
            if n in (0, len(rows)):
                continue  # the same rows as all of them, or none
            out.append(({col: tok}, n, f"rows whose {col} is {tok}"))
            out.append(({col: "!" + tok}, len(rows) - n, f"rows whose {col} is not {tok}"))
    return out


def counts(doc: model.Document, rows: derived.Rows, columns: list[str]) -> list[tuple[Count, str]]:
    """Numbers in the prose of ``doc`` that equal one row count, unambiguously."""
    filters = _filters(rows, columns)
    data = b"".join(doc.lines)
    keyed = [(t.start, t.end) for t in doc.tables]
    starts = [0]
    for line in doc.lines:
        starts.append(starts[-1] + len(line))
    out: list[tuple[Count, str]] = []
    seen: set[str] = set()
    inside = {n for s, e in keyed for n in range(s, e)}
    for n, line in enumerate(doc.lines):
        if n in inside or _DIGIT.search(line) is None:  # (an ASCII digit: what str.isdigit finds of the line's ASCII)
            continue
        # the paragraph's lines before and after this one: its words may wrap onto them
        before = doc.lines[n - 1] if n and _prose_line(doc.lines[n - 1], n - 1, inside) else b""
        after = doc.lines[n + 1] if n + 1 < len(doc.lines) and _prose_line(doc.lines[n + 1], n + 1, inside) else b""
        text = line.rstrip(b"\r\n") + (b"\n" + after.rstrip(b"\r\n") if after else b"")
        for m in _NUM.finditer(text, 0, len(line.rstrip(b"\r\n"))):
            value = int(m.group(1))
            hits = [f for f in filters if f[1] == value]
            if not hits or value < 3 or (hits[0][0] and value < 10):
                continue
            words = _after(text, m.end())
            if words is None:
                continue
            pattern = r"(\d+)" + words
            if pattern in seen:
                continue
            window = text[m.end() : m.end() + 80].decode("utf-8", "replace")
            start = len(before.rstrip(b"\r\n")) + 1 if before else 0
            joined = (before.rstrip(b"\r\n") + b"\n" if before else b"") + text
            around = joined[max(0, start + m.start() - 60) : start + m.end() + 80].decode("utf-8", "replace")
            # a filtered count names its value nearby; a total says "rows"
            named = [f for f in hits if (_token_of(f) in around if f[0] else _ROWS.search(window))]
            if len(named) > 1:  # `READY` holds 12, and 12 are not DONE: the value written wins
                named = [f for f in named if not any(v.startswith("!") for v in f[0].values())] or named
            if len(named) != 1:
                continue
            seen.add(pattern)
            where, count, what = named[0]
            c = Count(pattern, {k: [v] for k, v in where.items()})
            result = derived.derive(doc, _record(counts=[c]), rows)
            if result.numbers and not result.problems and all(x.found == x.want for x in result.numbers):
                out.append((c, f"line {n + 1} says {value}: the number of {what}"))
    return out


def _token_of(found: tuple[dict, int, str]) -> str:
    return next(iter(found[0].values()), "").lstrip("!")


def _prose_line(line: bytes, n: int, inside: set[int]) -> bool:
    """A line of a paragraph's running text (not blank, a table, a heading or a fence)."""
    text = line.strip()
    return bool(text) and n not in inside and not text.startswith((b"#", b"|", b"```", b"~~~"))


def _after(line: bytes, pos: int) -> str | None:
    """A literal pattern for the two or three words after a number (or the one
    word naming rows that ends a sentence: `11 rows.`), or None.

    The words may wrap onto the next line (``line`` holds it after a LF):
    then every space between them is ``\\s+``, so the pattern still matches
    when the paragraph is re-wrapped."""
    parts = []
    rest = line[pos:]
    m = re.match(rb"\s+", rest)
    if not m:
        return None
    for _ in range(3):
        w = _WORD.match(rest)
        if not w:
            break
        parts.append(w.group(0))
        rest = rest[w.end():]
    text = b"".join(parts)
    first = text.split()[0].lower() if text.strip() else b""
    if len(parts) == 1 and _ROWS.fullmatch(first.decode("ascii", "replace")) and re.match(rb"[.!?;:)]|\s*$", rest):
        pass  # a sentence ending in the rows it counts: "The tracker holds 11 rows."
    elif len(parts) < 2 or first in _UNITS or first.startswith(b"%"):
        return None
    wrapped = b"\n" in text
    out = []
    for gap, word in re.findall(rb"(\s*)(\S+)", text):
        out.append(("\\s+" if wrapped else " " * len(gap)) if gap else "")
        out.append(re.escape(word.decode("utf-8", "replace")).replace("\\`", "`").replace("\\-", "-"))
    return "".join(out)


def ref_columns(docs: list[model.Document], key: str | tuple[str, ...], rx: re.Pattern, universe: set[str]) -> list[tuple[str, int, int]]:
    """(column header, cells naming keys, of those naming no key) for columns
    of the record's tables, not its key, whose ID-looking words are keys."""
    found: dict[str, list[int]] = {}
    shown: dict[str, str] = {}
    want = {model.normalize_name(k) for k in ((key,) if isinstance(key, str) else key)}
    for doc in docs:
        for table in doc.tables:
            header = [derived.cell_text(c) for c in model.split_cells(table.header, table.column).cells]
            lines = [ln for row in table.rows for ln in row.lines] if table.rows else table.preamble
            split = [model.split_cells(line, table.column).cells if b"|" in line[table.column:] else [] for line in lines]
            for i, name in enumerate(table.columns):
                if name in want or not name:
                    continue
                tally = found.setdefault(name, [0, 0, 0])
                shown.setdefault(name, header[i] if i < len(header) else name)
                for cells in split:
                    cell = cells[i] if i < len(cells) else None
                    if not cell or not cell.strip():
                        continue
                    tally[2] += 1
                    text = cell.decode("utf-8", "replace")
                    ids = [w for w in (_spans(text) or re.split(r"[\s,;()\[\]]+", text.replace("**", ""))) if rx.match(w)]
                    tally[0] += sum(w in universe for w in ids)
                    tally[1] += sum(w not in universe for w in ids)
    return [(shown[n], hit, miss) for n, (hit, miss, cells) in found.items()
            if hit >= 2 and miss == 0 and hit >= 0.5 * cells]


def _spans(text: str) -> list[str]:
    parts = text.split("`")
    spans = parts[1::2] if len(parts) % 2 else parts[1:-1:2]
    return [s.strip() for s in spans if s.strip()]


def held(older: list[bytes], key: KeySpec, key_pattern: PatternSpec, rollup: Rollup | None = None, count: Count | None = None) -> tuple[int, int]:
    """(older versions where the rollup or count was right, versions that had it)."""
    record = _record(rollups=[rollup] if rollup else [], counts=[count] if count else [])
    right = present = 0
    for data in older:
        try:
            doc = parse_version(data, key, key_pattern)
        except model.Unmodelable:
            continue
        result = derived.derive(doc, record, derived.Rows.of([doc], row_cells))  # (each row's cells split once for the run)
        if result.numbers:
            present += 1
            right += not result.problems and all(n.found == n.want for n in result.numbers)
    return right, present


def checker_lines(root: Path) -> list[tuple[str, int, str]]:
    """(path, line, text) of the lines holding a number in the repository's own
    scripts (`scripts/`, `tools/`, `ci/`, or a file named check*): where a
    checker states an expected count."""
    out = git_or_none(root, "ls-files", "-z", "--", "scripts/*", "tools/*", "ci/*", "*check*")
    found = []
    for name in sorted({p.decode("utf-8", "surrogateescape") for p in (out or b"").split(b"\0") if p}):
        if name.endswith((".md", ".markdown")) or not name.endswith((".py", ".sh", ".js", ".ts", ".rb", ".pl", ".mjs", ".toml", ".yml", ".yaml")):
            continue
        try:
            if (root / name).stat().st_size > 1_000_000:
                continue
            text = (root / name).read_text("utf-8", "replace")
        except OSError:
            continue
        found += [(name, i + 1, line) for i, line in enumerate(text.splitlines()) if re.search(r"\d", line)]
    return found


def stated_at(path: str, n: int, lines: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """The (path, line, text) of `checker_lines` where a checker of the repository expects ``n`` rows of the file
    at ``path``: a line naming the file (or its first word with ROWS or COUNT) and the number; the first alone."""
    stem = PurePosixPath(path).stem.lower()
    word = re.split(r"[-_. ]", stem)[0]
    names = re.compile(rf"{re.escape(stem)}|{re.escape(stem.replace('-', '_'))}|\b{re.escape(word)}[_ ]?(?:rows|count|keys|entries)\b", re.I)
    num = re.compile(rf"(?<![\w.]){n}(?![\w.])")
    return [(name, line, text) for name, line, text in lines if num.search(text) and names.search(text)][:1]


def stated_in(path: str, n: int, lines: list[tuple[str, int, str]]) -> list[str]:
    """`stated_at` as the pin's reason: ``path:line expects n``."""
    return [f"{name}:{line} expects {n}" for name, line, _ in stated_at(path, n, lines)]


_RE2_SPECIAL = frozenset("\\.^$*+?()[]{}|")


def _literal(text: str) -> str:
    """``text`` as an RE2 pattern matching it, each run of white space ``\\s+``."""
    return "".join(r"\s+" if part.isspace() else "".join("\\" + c if c in _RE2_SPECIAL else c for c in part)
                   for part in re.split(r"(\s+)", text) if part)


def line_pattern(text: str, n: int) -> str | None:
    """A count pattern for the one line ``text`` stating ``n``: its text
    escaped, the number a group (``(\\d+)``), each run of white space
    ``\\s+``; None where the line holds the number twice."""
    stripped = text.strip()
    found = list(re.finditer(rf"(?<![\w.]){n}(?![\w.])", stripped))
    if len(found) != 1:
        return None
    return _literal(stripped[: found[0].start()]) + r"(\d+)" + _literal(stripped[found[0].end():])


def checker_count(data: bytes, name: str, line: int, text: str, n: int, rows: derived.Rows) -> Count | None:
    """A ``[[record.count]]`` of the checker file ``name`` (its bytes ``data``)
    for the constant ``n`` its line ``line`` (``text``) states: the pattern
    `line_pattern` builds, when it matches that line alone in the file, and
    the rows give ``n`` (None otherwise: the pin's comment says it)."""
    pattern = line_pattern(text, n)
    if pattern is None:
        return None
    count = Count(pattern, file=name)
    result = derived.derive_file(data, name, _record(counts=[count]), rows)
    if result.problems or [(x.line, x.found, x.want) for x in result.numbers] != [(line, n, n)]:
        return None
    return count
