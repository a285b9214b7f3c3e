"""The record model: a markdown file as prose, keyed tables and log tables.

One parse feeds the merge driver, every check and the anchors.  A Document
keeps every input line as raw bytes, so rendering it back is byte-exact; the
tables are views that say which lines are headers and rows, split into cells
the way GitHub splits them (an escaped ``\\|`` stays inside its cell).
"""

from __future__ import annotations

from itertools import repeat

from .. import rx
from . import blocks
from . import folding
from . import groups
from .cache import UNSEEN, ParseCache
from ..names import normalize_name  # noqa: F401 - also model.normalize_name
from .cells import NS, Cells, any_pattern, cell_at, cell_count, clean_key, key_columns, key_of, pattern_for, plain_key, shown, split_cells, visible_text  # noqa: F401 - the model's cells, used as model.<name>

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator

BOM = b"\xef\xbb\xbf"
_CONFLICT_MARKER = rb"^(?:<{7,}|>{7,})(?: |\r?$)"  # compiled (re's cache) only for a file holding such a run
_HEADING = rx.compile(rb"^[ \t>]*#{1,6}[ \t]*(.*?)[ \t#]*\r?$")


from .document import Document, Prose, Row, Run, Table, Unmodelable  # noqa: E402,F401 - the model's values, used as model.<name>
from ..values import KeySpec, PatternSpec  # noqa: E402,F401 - the record's key columns and patterns, used as model.<name>
from .structure import Structure, TableSpan  # noqa: E402

__all__ = [
    "BOM", "NS", "UNSEEN", "Cells", "Document", "KeySpec", "ParseCache", "PatternSpec", "Prose", "Row", "Run", "Structure", "Table",
    "TableSpan", "Unmodelable", "any_pattern", "blocks", "cell_at", "cell_count", "check_modelable", "clean_key", "folding", "groups",
    "has_run", "key_columns", "key_of", "keys_after", "normalize_name", "parse", "parse_many", "pattern_for", "plain_key", "row_key_of",
    "shown", "split_cells", "split_lines", "visible_text",
]


_LINE = rx.compile(rb"[^\n]*\n|[^\n]+")


def split_lines(data: bytes) -> list[bytes]:
    """Lines with their b"\\n" endings kept; the last may have none."""
    return _LINE.findall(data)


def check_modelable(data: bytes, marker_size: int = 7, new: list[bytes] | None = None) -> None:
    """Raise Unmodelable for input a keyed merge must not touch (a line that
    reads as a conflict marker of ``marker_size`` or of git's default 7).
    ``new``: the lines of ``data`` that a version checked already lacks;
    only they are checked (UTF-8 never spans a newline, a marker is a line)."""
    if b"\0" in data:
        raise Unmodelable("the file contains NUL bytes")
    if new is not None:  # the checks below are line by line: only the new lines can fail them
        part = b"".join(new)
        try:
            part.decode("utf-8")
        except UnicodeDecodeError:
            return check_modelable(data, marker_size)  # the byte of the file the message names
        if marker_size >= 7 and b"<<<<<<<" not in part and b">>>>>>>" not in part:
            return None
        return check_modelable(data, marker_size) if _markers(part, marker_size) else None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unmodelable(f"the file is not valid UTF-8 (byte {exc.start})") from None
    m = _markers(data, marker_size)
    if m:
        line = data.count(b"\n", 0, m.start()) + 1
        raise Unmodelable(f"line {line} already holds a conflict marker", line)
    return None


def has_run(data: bytes, c: bytes) -> bool:
    """Does ``data`` hold seven ``c`` in a row?  (``in`` with the 7-byte run scans at a
    fraction of memchr's speed: the first few ``c`` are looked at one by one instead.)"""
    at = data.find(c)
    for _ in range(160):
        if at < 0:
            return False
        if data.startswith(c * 7, at):
            return True
        at = data.find(c, at + 1)
    return c * 7 in data


def _markers(data: bytes, marker_size: int) -> re.Match[bytes] | None:
    """The first line that reads as a conflict marker of ``marker_size`` or of git's default 7."""
    if marker_size < 7:
        n = b"%d" % marker_size
        m = rx.compile(rb"^(?:<{" + n + rb",}|>{" + n + rb",})(?: |\r?$)", rx.M).search(data)
    else:
        m = rx.compile(_CONFLICT_MARKER, rx.M).search(data) if has_run(data, b"<") or has_run(data, b">") else None
    return m


def parse(data: bytes, key: KeySpec = None, log: bool = False, key_pattern: PatternSpec = None, cache: ParseCache | None = None) -> Document:
    """Parse markdown bytes into a Document.

    ``key`` names the key column of keyed tables (matched ignoring case and
    markup), or several: each table is keyed by the first its header holds,
    and keys of a later column are namespaced (`cells.NS`); tables without
    one stay tables with ``key_col = None``.  With
    ``log`` every table is a log table that also takes in the pipe lines that
    follow it after blank lines (ledgers separate rows by blank lines).
    With ``key_pattern`` (the record's), a group label in the key column
    (``| **Core** | | |``: a key that does not match it, every other cell
    empty) is a keyless line of the row above, not a row; and a pipe line
    below a keyed table, past blank lines or prose, whose key matches it and
    whose cell count is the table's, is a detached row of that table (runs
    of them are Tables with ``detached`` set, holding rows only).
    Raises Unmodelable for NUL bytes, invalid UTF-8, conflict markers, or a
    parser error inside a table.  ``cache``: what parses of other versions
    of the file read (`ParseCache`; a new one if None).
    """
    return parse_many([data], key, log, key_pattern, cache=cache)[0]


def parse_many(
    versions: list[bytes], key: KeySpec = None, log: bool = False,
    key_pattern: PatternSpec = None, marker_size: int = 7,
    after: bool = False, runs: bool = False, grouped: groups.Grouping | None = None,
    cache: ParseCache | None = None, ragged_keyless: bool = False,
) -> list[Document]:
    """Parse several versions of one file; all but the first re-parse only
    the lines that differ from the first (tree-sitter's incremental parse).
    With ``after``, each re-parses only what differs from the first version
    of the previous call with the same ``cache`` (the merge reading back its
    result: each Document keeps the ``cache`` that read it).  With
    ``runs`` (a merge's base, ours, theirs; no key pattern), the long
    stretches of rows no side changed are folded into `Run` rows
    (`folding.Fold`), when they read as the whole rows would.  A key that
    stands in several groups of a table (group rows), in a version or over
    the versions, is keyed by its group in every version; ``grouped``
    applies another call's grouping instead (`groups.qualify`).  A ragged
    row (its cell count not its header's) keeps the key GitHub shows, as the
    checks read it; with ``ragged_keyless`` (the merge) it is a keyless line
    (which cell a writer meant as the key would be a guess)."""
    import gc

    cache = cache or ParseCache()

    enabled = gc.isenabled()
    gc.disable()  # millions of small acyclic objects: collecting is pure cost
    try:
        all_lines = _lines(versions, marker_size, after, cache)
        fold = bool(runs and key and not (log or after or key_pattern))  # (recording the sides' edit scripts, for `folding.stretches`)
        structs = [blocks.structure_after(x, cache) for x in all_lines] if after else blocks.structures(all_lines, cache=cache, record=fold)
        _rows_as_ranges(structs)
        spans = folding.stretches(all_lines, cache.shifts) if fold else None
        docs = None
        if spans:
            folds = [folding.Fold(spans)]
            folds += [folding.Fold(None, folds[0], 1), folding.Fold(None, folds[0], 2)]
            docs = [_document(lines, struct, key, log, cache, f, ragged_keyless) for lines, struct, f in zip(all_lines, structs, folds)]
            if folds[0].made and not folding.folds_hold(docs, folds):
                docs = None  # read row by row after all
        if docs is None:
            docs = [_document(lines, struct, key, log, cache, None, ragged_keyless) for lines, struct in zip(all_lines, structs)]
        renamed = key is not None and not log and _renamed_key_columns(docs, structs, key, cache, ragged_keyless)
        _finish(docs, key_pattern, key, log, structs, cache)
        grouping = groups.qualify(docs, grouped) if key and not log else groups.NONE
        if (renamed or grouping[0]) and any(t.runs for d in docs for t in d.tables):
            docs = [_document(lines, struct, key, log, cache, None, ragged_keyless) for lines, struct in zip(all_lines, structs)]  # a run hides keys
            if key is not None:
                _renamed_key_columns(docs, structs, key, cache, ragged_keyless)
            _finish(docs, key_pattern, key, log, structs, cache)
            groups.qualify(docs, grouped)
        return docs
    finally:
        cache.shifts.clear()  # (they hold the versions' lines)
        if enabled:
            gc.enable()


def _lines(versions: list[bytes], marker_size: int, after: bool, cache: ParseCache) -> list[list[bytes]]:
    """Each version's lines, checked (`check_modelable`) unless ``after``.  One
    version read after the last one ``cache`` read alone (a range's next
    version of a long file) is split and checked only where they differ."""
    last = cache.last
    if len(versions) == 1 and not after and last is not None and last[2] == marker_size and len(versions[0]) > 4096:
        from .edits import lines_after

        lines, new = lines_after(last[0], last[1], versions[0], split_lines)
        check_modelable(versions[0], marker_size, new)
        all_lines = [lines]
    else:
        all_lines = [split_lines(data) for data in versions]
        if not after:  # (a merge result comes from checked inputs)
            _check_versions(versions, all_lines, marker_size)
    if len(versions) == 1 and not after:
        cache.last = (versions[0], all_lines[0], marker_size)
    return all_lines


def _check_versions(versions: list[bytes], all_lines: list[list[bytes]], marker_size: int) -> None:
    """`check_modelable` on each version; the later ones only on the lines the first lacks."""
    seen: set[bytes] = set()
    for data, lines in zip(versions, all_lines):
        check_modelable(data, marker_size, None if not seen else [x for x in lines if x not in seen])
        seen = seen or set(lines)


def _rows_as_ranges(structs: list[Structure]) -> None:
    """Every table's body rows that are one run of lines kept as a range (a list of a million ints is 36 MB)."""
    for struct in structs:
        for span in struct.tables:
            if type(span.rows) is list and len(span.rows) > 64 and span.rows[-1] - span.rows[0] + 1 == len(span.rows):
                span.rows = range(span.rows[0], span.rows[-1] + 1)


def _renamed_key_columns(docs: list[Document], structs: list[Structure], key: str | tuple[str, ...], cache: ParseCache,
                        ragged_keyless: bool = False) -> bool:
    """Key by position a table of one version whose header renamed the key
    column's cell (``**Role**`` -> ``**Team/Role**``), when another version
    keys the table under the same headings with as many cells and every
    other header cell unchanged (docs/spec.md#tables-across-the-file).  Returns
    whether any table was keyed so."""
    declared = [normalize_name(k) for k in key_columns(key)]
    done = False
    for n, (doc, struct) in enumerate(zip(docs, structs)):
        others = [t for m, d in enumerate(docs) if m != n for t in d.keyed_tables() if t.detached is None]
        for i, t in enumerate(doc.blocks):
            if not isinstance(t, Table) or t.key_col is not None or t.is_log or not others:
                continue
            u = next((u for u in others if _renamed_from(u, t, declared)), None)
            if u is None:
                continue
            span = next(s for s in struct.tables if s.header == t.start)
            k = declared.index(normalize_name(u.key_name))
            assert u.key_col is not None  # (`_renamed_from` holds only keyed tables)
            forced = (u.key_col, u.key_name, f"{u.key_name}{NS}" if k else "")
            table = _table(doc, span, t.end, t.heading, None, False, cache, None, ragged_keyless, forced)
            table.path = t.path
            doc.blocks[i] = table
            done = True
    return _rekeyed_to_the_odd_header(docs, structs, declared, cache, ragged_keyless) or done


def _rekeyed_to_the_odd_header(docs: list[Document], structs: list[Structure], declared: list[str], cache: ParseCache,
                               ragged_keyless: bool) -> bool:
    """Three versions of a table (the same place among the tables under the
    same headings, as many cells, the key in the same column, most keys
    alike), where one version's header names that column as another
    declared key (``**Role**`` -> ``**Team/Role**``, both in ``key``) and
    no table there is keyed so in the other two: those two are keyed as
    that one, whose header the merge keeps (the other two agree, so it is
    the one that changed), so each row keeps its identity across the rename."""
    if len(docs) != 3 or len(declared) < 2:
        return False  # (a merge's three versions, a record with several key columns)
    done = False
    places = [_places(d) for d in docs]
    for n in range(3):
        rest = [m for m in range(3) if m != n]
        for at, t in places[n].items():
            if t.key_col is None or normalize_name(t.key_name) not in declared:
                continue
            twins = [places[m].get(at) for m in rest]
            if not all(u is not None and _keyed_otherwise(u, t, declared) for u in twins):
                continue
            if len({u.key_name for u in twins if u is not None}) != 1:
                continue
            if any(u.key_name == t.key_name for m in rest for u in places[m].values() if u.path == t.path):
                continue  # (the other versions key a table there as this one: two tables, no rename)
            forced = (t.key_col, t.key_name, f"{t.key_name}{NS}" if declared.index(normalize_name(t.key_name)) else "")
            for m, u in zip(rest, twins):
                assert u is not None  # (checked above)
                doc, struct = docs[m], structs[m]
                i = next(i for i, b in enumerate(doc.blocks) if b is u)
                span = next(sp for sp in struct.tables if sp.header == u.start)
                table = _table(doc, span, u.end, u.heading, None, False, cache, None, ragged_keyless, forced)
                table.path = u.path
                doc.blocks[i] = table
                places[m][at] = table
                done = True
    return done


def _places(doc: Document) -> dict[tuple[tuple[str, ...], int], Table]:
    """Each keyed table (no detached rows) by its heading path and its place among the tables under it."""
    out: dict[tuple[tuple[str, ...], int], Table] = {}
    seen: dict[tuple[str, ...], int] = {}
    for t in doc.keyed_tables():
        if t.detached is None:
            n = seen.get(t.path, 0)
            seen[t.path] = n + 1
            out[(t.path, n)] = t
    return out


def _keyed_otherwise(u: Table, t: Table, declared: list[str]) -> bool:
    """Is ``u`` table ``t`` keyed in the same column under another declared
    key column's name, most of its keys the same once their namespace is set aside?"""
    if not (u.key_col == t.key_col and len(u.columns) == len(t.columns) and u.key_name != t.key_name
            and normalize_name(u.key_name) in declared and t.key_col is not None and t.columns[t.key_col] not in u.columns):
        return False
    mine, theirs = _bare_keys(t), _bare_keys(u)
    return bool(mine) and 2 * len(mine & theirs) >= min(len(mine), len(theirs))


def _bare_keys(t: Table) -> set[str]:
    """The keys of ``t``'s rows without its key column's namespace."""
    prefix = f"{t.key_name}{NS}"
    return {r.key.removeprefix(prefix) for r in t.rows if r.key is not None}


def _renamed_from(u: Table, t: Table, declared: list[str]) -> bool:
    """Is ``t`` keyed table ``u`` with only its key column's header cell renamed (to no other column's name)?"""
    k = u.key_col
    if u.path != t.path or len(u.columns) != len(t.columns) or k is None:
        return False
    new = t.columns[k]
    if new in declared or new in u.columns or not new:
        return False
    return all(x == y for j, (x, y) in enumerate(zip(u.columns, t.columns)) if j != k)


def _finish(docs: list[Document], key_pattern: PatternSpec, key: KeySpec, log: bool, structs: list[Structure], cache: ParseCache) -> None:
    """Detached rows and group labels of a record with a key pattern."""
    if key_pattern and not log:
        from .detached import detach

        detach(docs, key_pattern, key, cache, structs)
        _fold_labels(docs, key_pattern, cache)


def _fold_labels(docs: list[Document], key_pattern: str | tuple[tuple[str, str], ...], cache: ParseCache) -> None:
    """Make each group label row a keyless line of the row above it (or of the
    table's preamble).  Labels are told apart with RE2 (the pattern comes from
    a file any pull request can change); a pattern RE2 refuses labels nothing."""
    from .. import patterns

    unpatterned: set[str | None] = set()
    for name in {t.key_name for d in docs for t in d.keyed_tables()}:
        pattern = pattern_for(key_pattern, name)
        if not pattern:
            continue
        keys = list({r.key for d in docs for t in d.keyed_tables() if t.key_name == name for r in t.rows})
        memo = cache.labels.setdefault(pattern, {})  # key -> its match (versions of a record share most keys)
        if len(memo) > 100_000:
            memo.clear()
        unknown = [k for k in keys if k not in memo]
        try:
            if unknown:
                memo.update(zip(unknown, patterns.matching(pattern, [shown(k) for k in unknown])))  # type: ignore[arg-type] # a keyed row's key is a str
        except patterns.PatternError:
            continue
        hits = [memo[k] for k in keys]  # type: ignore[index] # a keyed row's key is a str
        unpatterned.update(k for k, hit in zip(keys, hits) if hit is False)
    if not unpatterned:
        return
    for doc in docs:
        for table in doc.keyed_tables():
            if table.detached is not None:
                continue  # a detached row matches by definition
            rows: list[Row] = []
            for r in table.rows:
                if r.key in unpatterned and len(r.lines[0]) <= 512 and all(
                    not c.strip() for i, c in enumerate(r.cells().cells) if i != table.key_col
                ):
                    (rows[-1].lines if rows else table.preamble).extend(r.lines)
                else:
                    rows.append(r)
            table.rows = rows


def keys_after(data: bytes, key: KeySpec, cache: ParseCache) -> list[str]:
    """The key of every keyed row of ``data``, read as `parse_many` with
    ``after`` and ``cache`` reads one more version (no key pattern), without
    making its rows (the merge's result read back).  Raises Unmodelable as it does."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        lines = split_lines(data)
        doc = _document(lines, blocks.structure_after(lines, cache), key, False, cache, _KEYS_ONLY, ragged_keyless=True)
        return [k for t in doc.keyed_tables() for k in t.rows]  # type: ignore[misc] # (keys, read so)
    finally:
        if enabled:
            gc.enable()


_KEYS_ONLY = folding.Fold(None)  # `_table`: a keyed table's rows are only their keys


def _document(lines: list[bytes], struct: Structure, key: KeySpec, log: bool, cache: ParseCache,
              fold: folding.Fold | None = None, ragged_keyless: bool = False) -> Document:
    headings = []
    levels = []
    memo = cache.headings  # an ATX heading line -> (its text, its level): versions share their headings
    if len(memo) > 100_000:
        memo.clear()
    for hline in struct.headings:
        line = lines[hline]
        known = memo.get(line)
        if known is None:
            m = _HEADING.match(line)
            text = m.group(1) if m else line  # setext: the node starts at its text
            if m:
                known = memo[line] = (text.decode("utf-8", "replace").strip(), len(line.lstrip(b" \t>")) - len(line.lstrip(b" \t>").lstrip(b"#")))
            else:
                under = lines[hline + 1] if hline + 1 < len(lines) else b""
                known = (text.decode("utf-8", "replace").strip(), 1 if under.lstrip(b" \t>")[:1] == b"=" else 2)
        headings.append((hline, known[0]))
        levels.append(known[1])
    doc = Document(lines, [], headings)
    doc.cache = cache
    want = tuple((normalize_name(k), k) for k in key_columns(key)) or None
    pos = 0
    hi = 0
    heading = ""
    path: list[tuple[int, str]] = []  # the headings a table sits under, outermost first
    for n, span in enumerate(struct.tables):
        if span.header < pos:
            raise Unmodelable(f"line {span.header + 1}: overlapping tables")
        for bad_start, bad_end in struct.error_lines:
            if bad_start < span.end and bad_end >= span.header:
                raise Unmodelable(f"line {span.header + 1}: the markdown parser reports an error inside a table")
        if span.has_error:
            raise Unmodelable(f"line {span.header + 1}: the markdown parser reports an error inside a table")
        while hi < len(headings) and headings[hi][0] < span.header:
            heading = headings[hi][1]
            while path and path[-1][0] >= levels[hi]:
                path.pop()
            path.append((levels[hi], heading))
            hi += 1
        end = span.end
        if log:
            stop = struct.tables[n + 1].header if n + 1 < len(struct.tables) else len(lines)
            end = _log_extent(lines, end, span.column, stop)
        if span.header > pos:
            doc.blocks.append(Prose(pos, span.header))
        table = _table(doc, span, end, heading, want, log, cache, fold, ragged_keyless)
        table.path = tuple(text for _, text in path)
        doc.blocks.append(table)
        pos = end
    if pos < len(lines):
        doc.blocks.append(Prose(pos, len(lines)))
    return doc


def _log_extent(lines: list[bytes], end: int, column: int, stop: int) -> int:
    """Extend a log table over blank lines and the pipe lines after them, up
    to ``stop`` (the next table's header)."""
    last = end
    i = end
    while i < stop:
        text = lines[i][column:].strip()
        if not text:
            i += 1
            continue
        if text.startswith(b"|"):
            i += 1
            last = i
            continue
        break
    return last


def _columns(header: bytes, column: int, cache: ParseCache) -> list[str]:
    """A header line's normalized column names (the versions share their headers: each is read once)."""
    memo = cache.columns  # (header line, its cells' column) -> normalized names
    names = memo.get((header, column))
    if names is None:
        if len(memo) > 4096:
            memo.clear()
        names = memo[header, column] = [normalize_name(c.decode("utf-8", "replace")) for c in split_cells(header, column).cells]
    return list(names)


def _table(doc: Document, span: TableSpan, end: int, heading: str, want: tuple[tuple[str, str], ...] | None, log: bool,
           cache: ParseCache, fold: folding.Fold | None = None, ragged_keyless: bool = False,
           forced: tuple[int, str, str] | None = None) -> Table:
    """The table at ``span``, keyed by the first of ``want`` its header holds, or by ``forced`` (key column, name, namespace)."""
    lines = doc.lines
    bom = len(BOM) if span.header == 0 and lines[0].startswith(BOM) else 0
    columns = _columns(lines[span.header], span.column + bom, cache)
    key_col: int | None = None
    prefix = ""
    key_name = ""
    if forced is not None:
        key_col, key_name, prefix = forced
    for n, (norm, name) in enumerate(want if want is not None and not log and forced is None else ()):
        if norm in columns:
            key_col, key_name = columns.index(norm), name
            prefix = f"{name}{NS}" if n else ""
            break
    table = Table(
        start=span.header,
        end=end,
        header=lines[span.header],
        delimiter=lines[span.delimiter],
        column=span.column,
        heading=heading,
        columns=columns,
        key_col=key_col,
        is_log=log,
    )
    table.key_name = key_name
    first_body = span.delimiter + 1
    # lines between header and delimiter cannot exist in GFM, but keep bytes
    if span.delimiter != span.header + 1:
        raise Unmodelable(f"line {span.header + 1}: table header and delimiter are not adjacent")
    column = span.column
    rows = table.rows
    if log or key_col is None:
        for i in range(first_body, end):
            line = lines[i]
            if not line.strip() and log:
                (rows[-1].lines if rows else table.preamble).append(line)
            elif log:
                rows.append(Row(i, [line], None, column))
            else:
                table.preamble.append(line)  # not keyed: the body is opaque
        return table
    ncols = len(columns) if ragged_keyless else 0  # merging, a ragged row (another cell count) has no key: its key cell is a guess
    memo = table.key_memo = cache.key_memo((column, key_col, prefix, ncols), len(lines))
    get, add = memo.get, rows.append
    if fold is not None:
        _folded(table, lines, first_body, end, memo, key_col, prefix, fold, ncols)
        return table
    for i, line in enumerate(lines[first_body:end], first_body):
        row_key = get(line, UNSEEN)
        if row_key is UNSEEN:
            row_key = memo[line] = row_key_of(line, column, key_col, prefix, ncols)
        if row_key is None:
            (rows[-1].lines if rows else table.preamble).append(line)
        else:
            add(Row(i, [line], row_key, column))  # type: ignore[arg-type] # a str: the memo's values are str or None
    return table


def row_key_of(line: bytes, column: int, key_col: int, prefix: str, ncols: int) -> str | None:
    """A body line's key (namespaced by ``prefix``), or None: no pipe, an
    empty key cell, or, given the header's cell count ``ncols`` (a merge's
    parse; 0: any count), a ragged row (which cell is the key would be a
    guess, so it is merged as a keyless line, as text within its table)."""
    if line.find(b"|", column) < 0:
        return None
    row_key = key_of(line, column, key_col)
    if row_key is None or ncols and cell_count(line, column) != ncols:
        return None
    return prefix + row_key if prefix else row_key


def _fitting(lines: list[bytes], table: Table) -> list[bool] | None:
    """Which ``lines`` surely have the header's cell count: as many pipes,
    none escaped, a leading and a closing one, under a header at the margin
    written so (found in C, line by line; None: such a header is not there)."""
    header = table.header
    if table.column or b"\\" in header or not header.startswith(b"|") or not header.rstrip(b" \t\r\n").endswith(b"|"):
        return None
    pipes = header.count(b"|")
    ends = (b"|\n", b"|\r\n", b"|")
    return [bool(c == pipes and s and e and not x) for c, s, e, x in zip(
        map(bytes.count, lines, repeat(b"|")), map(bytes.startswith, lines, repeat(b"|")),
        map(bytes.endswith, lines, repeat(ends)), map(bytes.__contains__, lines, repeat(b"\\")))]


def _folded(table: Table, lines: list[bytes], first: int, end: int, memo: dict[bytes, str | None], key_col: int, prefix: str,
            fold: folding.Fold, ncols: int) -> None:
    """`_table`'s reading of the body rows with a fold: runs (`folding.fold_rows`), or keys only
    (``ncols``: as `row_key_of` takes it)."""
    column, get = table.column, memo.get

    def key_at(line: bytes) -> str | None:
        row_key = get(line, UNSEEN)
        if row_key is UNSEEN:
            row_key = memo[line] = row_key_of(line, column, key_col, prefix, ncols)
        return row_key  # type: ignore[return-value] # the memo's values are str or None

    def keys_of(seg: list[bytes]) -> list[str | None]:
        """`key_at` of each line: the memo's in C, a plain first cell in one match (`cells.key_of`)."""
        keys: list[object] = list(map(get, seg, repeat(UNSEEN)))
        if UNSEEN not in keys:
            return keys  # type: ignore[return-value] # the memo's values are str or None
        missed = [n for n, k in enumerate(keys) if k is UNSEEN]
        plain = plain_key().match if key_col == 0 else None
        fit = _fitting([seg[n] for n in missed], table) if plain is not None and ncols > 0 else None
        for j, n in enumerate(missed):
            m = plain(seg[n], column) if plain is not None else None  # (a match has a pipe after the cell)
            if m is None or not (ncols == 0 or fit is not None and fit[j] or cell_count(seg[n], column) == ncols):
                keys[n] = key_at(seg[n])
            else:
                keys[n] = prefix + (m.group(1) or m.group(2)).decode("ascii")
        memo.update(zip([seg[n] for n in missed], [keys[n] for n in missed]))  # type: ignore[misc] # each a str or None now
        return keys  # type: ignore[return-value] # each a str or None now

    if fold is _KEYS_ONLY:
        table.rows = [k for k in keys_of(lines[first:end]) if k is not None]  # type: ignore[misc] # keys only
    else:
        folding.fold_rows(table, lines, first, end, key_at, keys_of, fold)
