"""Which column of a file's tables holds stable keys, and a tight pattern for them.

Used by `mergedrv init`.  A key column is a column name of the file (every
table having it is keyed by it, as the record model reads it) whose values
are present in nearly every row and never repeated; options, parameters,
benchmark results and placeholder templates are refused by their headers and
cells.  Keys may be IDs (`ENG-KV-1`), numbers, names, file names or link
text; IDs get a pattern listing their prefix families.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace

from .. import model
from ..names import plain_spaces

# header names that say "key", best first
KEY_NAMES = ("id", "key", "#", "kind", "identifier", "no", "no.", "№", "number", "num", "code", "slug", "ref",
             "adr", "rfc", "pep", "proposal", "ticket", "issue", "name", "file", "filename", "path", "api", "title")
ID_WORDS = ("id", "key", "#", "identifier", "no", "no.", "№", "number", "num")  # a header ending in one names a key
OPTION_HEADERS = {"option", "options", "flag", "flags", "parameter", "parameters", "param", "params", "argument",
                  "arguments", "arg", "args", "setting", "settings", "variable", "variables", "env", "env var",
                  "environment variable", "cmake option", "config", "configuration", "field", "fields", "property",
                  "properties", "attribute", "command", "commands", "cli flag", "switch", "knob", "input", "inputs"}
OPTION_COLUMNS = {"default", "default value", "defaults", "type", "allowed values", "values", "required"}
ID_SHAPE = re.compile(r"^([A-Za-z][A-Za-z0-9]*)([-_])([A-Za-z0-9][A-Za-z0-9_.\-/+:]*)$")
LINK = re.compile(r"^\[([^\]]+)\]\([^)]*\)$")
PLACEHOLDER = re.compile(r"^(?:<[^>]*>|\{[^}]*\}|\.\.\.|…|x{2,}|tbd|todo|n/?a|none|-+|—|–|\?+|example\S*|foo|bar|"
                         r".*(?:YYYY|XXX|NNN|000X).*)$", re.I)
# how a core matching one of PLACEHOLDER's alternatives but the last opens: its first character, or its
# first two in any case (re.I: no character but the ASCII letter itself matches these letters ignoring case)
_PLACEHOLDER_ONE = frozenset("<{-—–?…")
_PLACEHOLDER_TWO = frozenset(x + y for pair in ("ex", "xx", "tb", "to", "n/", "na", "no", "fo", "ba", "..")
                             for x in {pair[0], pair[0].upper()} for y in {pair[1], pair[1].upper()})
_PLACEHOLDER_IN = ("YYYY", "XXX", "NNN", "000X")  # its last: a core holding one of these, ignoring case
_UPPER = str.maketrans("xyn", "XYN")  # (no other character matches X, Y or N ignoring case)
DATE = re.compile(r"^\d{4}-\d{2}(?:-\d{2})?\b")
NUMBER = re.compile(r"^[~≈<>+-]?\d[\d,]*(?:\.\d+)?\s*(?:%|x|×|ms|s|us|µs|ns|gb|mb|kb|tok/s|t/s|b|k|m)?$", re.I)
INTEGER = re.compile(r"^\d+$")
VERSION = re.compile(r"^v?\d+(?:\.(?:\d+|x))+(?:[-+ ][A-Za-z0-9.]+)?$", re.I)  # `1.21`, `v0.19.0`, `0.9.x`, `1.17 LTS`
RELEASE_WORDS = ("release", "releases", "version", "versions", "series")  # a header ending in one may list releases
KEY_CHARS = "A-Za-z0-9_.-"
MAX_KEY = 64
MAX_PREFIXES = 12
NOTE = r" \([^()]*\)"  # a note after an ID: ` (formerly 0046)`, ` (draft)`
BY_CATEGORY = 3  # tables of names, one a category, that make a list by category


def core(key: str) -> str:
    """The key as people write it elsewhere: link text for ``[ADR-1](x.md)``."""
    m = LINK.match(key)
    return m.group(1).strip().strip("`*").strip() if m else key


@dataclass(slots=True)
class Candidate:
    """One column name of a file, read as a key column."""

    header: str
    name: str
    keys: list[str] = field(default_factory=list)  # cleaned key cells, file order
    empty: int = 0
    labels: int = 0
    first: bool = False
    tables: int = 0
    kind: str = ""  # "id", "number", "name" or "title" (unique text of many words)
    refused: str = ""  # why not, or ""
    slip: str = ""  # the one older version read that held a value twice
    merged: int = 0  # merges that joined changes to its tables' rows from both sides
    dups: tuple[str, ...] = ()  # values the file holds twice, a finding each, not a reason to drop the table: one, or one in a hundred rows of a long list
    groups: list[tuple[int, str]] = field(default_factory=list)  # (table, group label) of each key, parallel to keys
    older: int = 0  # a further key column: the older versions read that hold it
    per_table: bool = False  # unique within each table, a few keys in two tables (key_scope = "table")
    if_merged: bool = False  # refused as options alone (its name, a `Default` column): a key where merges show a table people merge
    sibling: bool = False  # a further key column: first in tables with the columns of the key's tables after it (`_siblings`)

    @property
    def dup(self) -> str:
        """The first value the file holds twice ("" if none)."""
        return self.dups[0] if self.dups else ""

    @property
    def rank(self) -> int:
        if self.name in KEY_NAMES:
            return KEY_NAMES.index(self.name)
        last = self.name.rsplit(" ", 1)[-1]
        if last in ID_WORDS:  # `FIP #`, `Vote No.`, `Client ID`: named like a key (a `Markdown Code` is no code of a row)
            return KEY_NAMES.index(last)
        return len(KEY_NAMES) + (0 if self.first else 1)

    def cores(self) -> list[str]:
        return [core(k) for k in self.keys]


_MARKS = re.compile(r"[`*_]")


def _text(cell: bytes) -> str:
    return _MARKS.sub("", cell.decode("utf-8", "replace")).strip()


def _header_text(cell: bytes) -> str:
    """A header cell's text as a proposal names the column: `_text`, its
    `&nbsp;` padding one space (a key column matches as `normalize_name` does)."""
    return _MARKS.sub("", plain_spaces(cell.decode("utf-8", "replace"))).strip()


_OF: dict[int, tuple[model.Document, list]] = {}  # id(doc) -> (doc, its tables_of)


def tables_of(doc: model.Document) -> list[tuple[model.Table, list[str], list[list[bytes]]]]:
    """(table, header texts, body cells) of every table (read once per Document)."""
    hit = _OF.get(id(doc))
    if hit is not None and hit[0] is doc:
        return hit[1]
    if len(_OF) > 256:
        _OF.clear()
    out: list[tuple[model.Table, list[str], list[list[bytes]]]] = []
    _OF[id(doc)] = (doc, out)
    for table in doc.tables:
        header = [_header_text(c) for c in model.split_cells(table.header, table.column).cells]
        lines = [line for row in table.rows for line in row.lines] if table.rows else table.preamble
        body = [_cells(line, table.column) for line in lines if b"|" in line[table.column:]]
        out.append((table, header, body))
    return out


_CELLS: dict[tuple[bytes, int], list[bytes]] = {}  # (a row's line, its table's column) -> its cells, for the run: the versions share their rows


def _cells(line: bytes, column: int) -> list[bytes]:
    found = _CELLS.get((line, column))
    if found is None:
        if len(_CELLS) > 200_000:
            _CELLS.clear()
        found = _CELLS[(line, column)] = model.split_cells(line, column).cells
    return found


def row_cells(table: model.Table, row: model.Row) -> list[bytes]:
    """A keyed row's cells, as `model.Row.cells` splits them, from the split its
    line got as a body line of the unkeyed parse (`derived.Rows`' ``cells``: a
    40 KB row is not scanned again for each column counted)."""
    return _cells(row.lines[0], row.column)


def options_table(doc: model.Document) -> str:
    """Why a table of ``doc`` lists options or parameters ("" if none does)."""
    for table in doc.tables:
        names = set(table.columns)
        if names & OPTION_COLUMNS or (table.columns and table.columns[0] in OPTION_HEADERS):
            return f"its table under {table.heading or 'the top'!r} lists options or parameters"
    return ""


def _numeric_share(body: list[list[bytes]], skip: int, header: list[str] | None = None) -> float:
    """The share of the cells after column ``skip`` (before it, when it is the
    last) that are measurements: what a row measures comes first and its
    figures follow, while a schedule's timebox or a stage before its topic
    describes the row (integers alone count only when they are three quarters
    of the cells).  A column named like a release (`Kubernetes Version`)
    holding only version numbers (`1.37`) names releases: not counted."""
    filled, nums, fractions = _tallies(body)
    part = range(skip + 1, len(filled)) if skip + 1 < len(filled) else range(0, skip)
    names = _version_columns(header, body) if header else set()
    cols = [i for i in part if i not in names]
    cells: int = sum(filled[i] for i in cols)
    numbers: int = sum(nums[i] for i in cols)
    share = numbers / cells if cells else 0.0
    if share >= 0.75 or any(fractions[i] for i in cols):
        return share
    return 0.0


def _version_columns(header: list[str], body: list[list[bytes]]) -> set[int]:
    """Columns whose header ends in a release word (`Kubernetes Version`,
    `Helm release`) and whose filled cells are all version numbers."""
    out = set()
    for i, h in enumerate(header):
        if model.normalize_name(h).rsplit(" ", 1)[-1] not in RELEASE_WORDS:
            continue
        cells = [_text(row[i]) for row in body if i < len(row) and row[i].strip()]
        if cells and all(VERSION.match(c) for c in cells):
            out.add(i)
    return out


_TALLIES: dict[int, tuple[list, tuple[list[int], list[int], list[int]]]] = {}  # id(body) -> (body, tallies)


def _tallies(body: list[list[bytes]]) -> tuple[list[int], list[int], list[int]]:
    """Per column of a table's body: cells not empty, measurements, measurements
    that are not integers alone (counted once per table, for every column asked about)."""
    hit = _TALLIES.get(id(body))
    if hit is not None and hit[0] is body:
        return hit[1]
    width = max((len(row) for row in body), default=0)
    filled, nums, fractions = [0] * width, [0] * width, [0] * width
    kinds = _KINDS
    if len(kinds) > 200_000:
        kinds.clear()
    for row in body:
        for i, c in enumerate(row):
            kind = kinds.get(c)
            if kind is None:
                kind = kinds[c] = _kind(c)
            if kind:
                filled[i] += 1
                nums[i] += kind > 1
                fractions[i] += kind > 2
    if len(_TALLIES) > 4096:
        _TALLIES.clear()
    _TALLIES[id(body)] = (body, (filled, nums, fractions))
    return filled, nums, fractions


_KINDS: dict[bytes, int] = {}  # a cell -> `_kind`, for the run: the versions share their cells


def _kind(cell: bytes) -> int:
    """0 an empty cell, 1 text, 2 an integer measurement, 3 another measurement."""
    if not cell.strip():
        return 0
    text = _text(cell)
    if not NUMBER.match(text):
        return 1
    return 2 if INTEGER.match(text.replace(",", "")) else 3


def _refusal(cand: Candidate, tables, second: bool = False, options: bool = True) -> str:
    """Why ``cand`` is not a key column ("" if it is one).  A ``second`` key
    column (of the tables the first one does not key) may also be a first
    column of numbers (a queue's `Priority`), never a column of a table of counts.
    A column refused as options alone (its name, a `Default` column: read
    again with ``options`` False) gets ``cand.if_merged``, for history to weigh."""
    keys, cores = cand.keys, cand.cores()
    n = len(keys)
    why, optional = _tables_refusal(cand, tables, second, options)
    if optional:
        probe = replace(cand, keys=list(keys), groups=list(cand.groups))
        if not _refusal(probe, tables, second, options=False):
            cand.if_merged, cand.kind, cand.dups, cand.per_table = True, probe.kind, probe.dups, probe.per_table
    if why:
        return why
    ids = sum(bool(ID_SHAPE.match(c)) and c[:1].isupper() for c in cores)
    if n < 2 or (n < 3 and cand.rank >= KEY_NAMES.index("name") and ids < n):  # IDs are keys even on two rows
        return f"column {cand.header!r} has {n} value{'s' * (n != 1)}"
    if cand.empty > 0.1 * (n + cand.empty):
        return f"column {cand.header!r} is empty in {cand.empty} of {n + cand.empty} rows"
    twice = repeated(cand)
    if twice and not cand.labels and cand.tables > 1 and ids < 0.8 * n:  # (an ID in two tables is a double)
        twice = _per_table(cand, twice, cores)
    scoped = Counter(zip((t for t, _ in cand.groups), keys)) if cand.per_table else Counter((0, k) for k in keys)
    if twice and n >= 4 and len(twice) <= max(1, n // 100) and max(scoped.values()) == 2:
        cand.dups = tuple(twice)  # slips: keys-unique reports them
    elif twice:
        return f"column {cand.header!r} holds {twice[0]!r} twice"
    if _placeholder(cores):
        return f"column {cand.header!r} holds a placeholder ({next(c for c in cores if PLACEHOLDER.match(c))!r}): a template"
    sentences = sum((len(c) > MAX_KEY and " " in c) or len(c.split()) > 8 for c in cores) > 0.1 * n
    if sentences and (n < 3 or sum(c.endswith(".") for c in cores) >= 0.3 * n):  # descriptions, not titles
        return f"column {cand.header!r} holds sentences, not keys"
    if sum(bool(DATE.match(c)) for c in cores) >= 0.5 * n:
        return f"column {cand.header!r} holds dates"
    if sum(c.startswith("-") or ("=" in c and "://" not in c) for c in cores) >= 0.3 * n:  # (a URL's query is no option)
        return f"column {cand.header!r} holds command-line options"
    ints = sum(bool(INTEGER.match(c)) for c in cores)
    if ints >= 0.8 * n and cand.rank < KEY_NAMES.index("name"):
        cand.kind = "number"
        return ""
    if ints == n:
        cand.kind = "number"
        if cand.rank >= KEY_NAMES.index("name") and not (second and cand.first):
            return f"column {cand.header!r} holds numbers but is not named like a key"
        return ""
    if sum(bool(NUMBER.match(c)) for c in cores) >= max(1, 0.1 * n) and not _releases(cand, cores):  # (one name such as `0x` in a long list is a name)
        return f"column {cand.header!r} holds measurements"
    if sentences:  # unique titles (an agenda's topics): a key only where history shows rows added by many
        cand.kind = "title"
    else:
        fams = len(families(cores))  # (IDs share a prefix: `BLOB_GAS_PER_BLOB`, `COLD_SLOAD_COST` are a spec's constants, names)
        cand.kind = "id" if ids >= 0.8 * n and fams <= min(MAX_PREFIXES, max(1, n / 3)) else "name"
    if cand.kind == "name" and cand.rank > len(KEY_NAMES) and not cand.first:
        return f"column {cand.header!r} holds names but is neither named like a key nor first"
    if not second and cand.kind != "id" and cand.tables >= BY_CATEGORY and not cand.labels and not cand.dups \
            and not _releases(cand, cores):  # (a release moves from table to table: upcoming, supported, old)
        cand.per_table = True  # a list by category: an entry may come to be listed under two (key_scope = "table")
    return ""


def _tables_refusal(cand: Candidate, tables, second: bool, options: bool) -> tuple[str, bool]:
    """Why ``cand``'s name or its tables' headers refuse it (options, unless
    not ``options``; measurements: most cells numbers), and whether for options."""
    if options and cand.name in OPTION_HEADERS:
        return f"column {cand.header!r} names options or parameters", True
    numbered = _numbered(cand.cores()) and cand.rank < KEY_NAMES.index("name")
    for _, header, body in tables:
        found = _option_columns({model.normalize_name(h) for h in header}, cand.name, numbered) if options else []
        if found:
            return f"a table with column {cand.header!r} lists options (it has a {found[0]!r} column)", True
        if (len(header) > 2 or second) and _numeric_share(body, [model.normalize_name(h) for h in header].index(cand.name), header) >= 0.5:
            return f"a table with column {cand.header!r} holds measurements (most cells are numbers)", False
    return "", False


def _releases(cand: Candidate, cores: list[str]) -> bool:
    """Is ``cand`` a first column named like a release (`Release`, `Helm
    Version`, `release series`) holding only version numbers (`1.21`,
    `v0.19.0`, `1.17 LTS`)?  A release table's keys, not measurements."""
    return cand.first and cand.name.rsplit(" ", 1)[-1] in RELEASE_WORDS and all(VERSION.match(c) for c in cores)


def _per_table(cand: Candidate, twice: list[str], cores: list[str]) -> list[str]:
    """The values ``cand`` holds twice, read table by table where that makes
    it a key: entries listed under two categories (a few), or numbers named
    like a key counted anew in each table (ethereum/pm's EL and CL calls);
    then ``cand.per_table`` is set."""
    inner = repeated(cand, per_table=True)
    n = len(cores)
    numbers = not inner and cand.rank < KEY_NAMES.index("name") and sum(bool(INTEGER.match(c)) for c in cores) >= 0.8 * n
    if len(inner) < len(twice) and (len(twice) <= max(1, 0.05 * n) or numbers):
        cand.per_table = True
        return inner
    return twice


def _option_columns(names: set[str], key: str, numbered: bool) -> list[str]:
    """The columns of a table (its header ``names``) that make it a table of
    options for key column ``key``.  A key column named `type` lists types,
    unless a `Field` beside it is an option; numbered proposals' `Type`
    (Standards Track, Informational) is no parameter's."""
    if not (names - {key}) & OPTION_HEADERS:
        names = names - {key}
    return sorted(names & OPTION_COLUMNS - ({"type"} if numbered else set()))


def _numbered(cores: list[str]) -> bool:
    """Are most of ``cores`` numbers or IDs (`0011`, `TIP-465`), as parameters never are?"""
    return sum(bool(INTEGER.match(c) or ID_SHAPE.match(c) or _WORD_NUMBER.match(c)) for c in cores) >= 0.8 * max(len(cores), 1)


_WORD_NUMBER = re.compile(r"^[A-Za-z]+(?:\s|&nbsp;)+\d+$")  # `TIP&nbsp;10`, `PEP 8`


def _placeholder(cores: list[str]) -> bool:
    """Does a core match PLACEHOLDER?  Its last alternative is one search of the cores joined a line
    each (none holds a line ending); a core matching one of the others opens as _PLACEHOLDER_ONE or
    _PLACEHOLDER_TWO say, so only cores opening so are matched."""
    if any("\n" in c for c in cores):
        return any(PLACEHOLDER.match(c) for c in cores)
    joined = "\n".join(cores).translate(_UPPER)
    if any(w in joined for w in _PLACEHOLDER_IN):
        return True
    one, two = _PLACEHOLDER_ONE, _PLACEHOLDER_TWO
    return any((c[:1] in one or c[:2] in two) and PLACEHOLDER.match(c) for c in cores)


def repeated(cand: Candidate, per_table: bool | None = None) -> list[str]:
    """The values ``cand`` holds twice within one group (keys may repeat
    across group rows), or within one table (``per_table``, by default the
    candidate's own ``per_table``)."""
    if cand.per_table if per_table is None else per_table:
        seen = Counter(zip((t for t, _ in cand.groups), cand.keys))
        return list(dict.fromkeys(str(k[1]) for k, c in seen.items() if c > 1))
    seen = Counter(zip(cand.groups, cand.keys)) if cand.labels else Counter(cand.keys)
    return list(dict.fromkeys(str(k[1] if cand.labels else k) for k, c in seen.items() if c > 1))


def candidates(doc: model.Document, without: tuple[str, ...] = ()) -> list[Candidate]:
    """Every column name of ``doc`` read as a key column, best first; the
    refused ones carry why.  With ``without`` (key columns already chosen),
    only the tables holding none of them are read, for a further key column:
    it must be named like a key, or be a first column of numbers."""
    every = tables_of(doc)
    tables = [t for t in every if not set(without) & set(t[0].columns)]
    found = _collect(tables)
    for cand in found.values():
        mine = [t for t in tables if cand.name in t[0].columns]
        cand.refused = _refusal(cand, mine, second=bool(without))
        if without and not cand.refused and cand.rank >= len(KEY_NAMES) and not (cand.first and cand.kind == "number"):
            cand.sibling = cand.first and cand.kind == "name" and _siblings(cand.name, mine, every, without)
            if not cand.sibling:
                cand.refused = f"column {cand.header!r} is neither named like a key nor a first column of numbers"
    return sorted(found.values(), key=lambda c: (bool(c.refused), c.kind != "id", c.rank, not c.first, -len(c.keys), c.name))


def _siblings(name: str, mine, every, keyed_by: tuple[str, ...]) -> bool:
    """Is each table of column ``name`` (``mine``) a sibling of a table a
    chosen key column keys: the same columns after its first, two or more
    (a list split by category, each table's first column named after its
    category: `Algoritmos`, `Estruturas de Dados`, then `C | C++ | Java`)?"""
    def rest(columns, key: str) -> tuple[str, ...] | None:
        return tuple(columns[1:]) if columns and columns[0] == key and len(columns) >= 3 else None

    keyed = {rest(t.columns, k) for t, _, _ in every for k in keyed_by if k in t.columns}
    keyed.discard(None)
    return bool(mine) and all(rest(t.columns, name) in keyed for t, _, _ in mine)


def column_of(doc: model.Document, name: str) -> Candidate | None:
    """Column ``name`` of ``doc`` read as a key column, as `candidates` reads
    it (refused or not), without reading its other columns (None: no table has it)."""
    mine = [t for t in tables_of(doc) if name in t[0].columns]
    cand = _collect(mine, name).get(name)
    if cand is not None:
        cand.refused = _refusal(cand, mine)
    return cand


_KEYS: dict[bytes, str] = {}  # a cell -> its key text (`model.clean_key`), for the run: the versions share their cells
_FILLED: dict[int, tuple[list, list[int]]] = {}  # id(body) -> (body, each row's cells not empty)


def _key_of(cell: bytes) -> str:
    key = _KEYS.get(cell)
    if key is None:
        if len(_KEYS) > 200_000:
            _KEYS.clear()
        key = _KEYS[cell] = model.clean_key(cell) if cell.strip() else ""
    return key


def _filled(body: list[list[bytes]]) -> list[int]:
    """How many cells of each row of ``body`` are not empty (counted once per table, for every column read)."""
    hit = _FILLED.get(id(body))
    if hit is not None and hit[0] is body:
        return hit[1]
    if len(_FILLED) > 4096:
        _FILLED.clear()
    out = [sum(1 for c in cells if c.strip()) for cells in body]
    _FILLED[id(body)] = (body, out)
    return out


def _lead(body: list[list[bytes]]) -> int:
    """The first column whose cells hold text, where a column of images alone
    (``<img src=...>``, no text to key by) comes before a column of their URLs
    (a badge table); else 0 (the column beside the images describes them)."""
    width = max((len(cells) for cells in body), default=0)
    lead = next((i for i in range(width) if any(i < len(cells) and _key_of(cells[i]) for cells in body)), 0)
    urls = sum(lead < len(cells) and "://" in _key_of(cells[lead]) for cells in body)
    return lead if urls >= 0.8 * max(len(body), 1) else 0


def _collect(tables, only: str = "") -> dict[str, Candidate]:
    """Each column of ``tables`` read as a key column (``only``: that one alone)."""
    found: dict[str, Candidate] = {}
    for n, (table, header, body) in enumerate(tables):
        filled = None
        lead = _lead(body)
        for i, name in enumerate(table.columns):
            if not name or (only and name != only):
                continue
            cand = found.setdefault(name, Candidate(header[i] if i < len(header) else name, name))
            cand.tables += 1
            cand.first = cand.first or i == lead
            group = ""
            filled = filled or _filled(body)
            for cells, full in zip(body, filled):
                key = _key_of(cells[i]) if i < len(cells) else ""
                if not key:
                    cand.empty += 1
                elif len(cells) > 1 and full == 1:  # (its own cell is the one not empty)
                    cand.labels += 1  # a group label: its rows below, up to the next, are a group
                    group = key
                else:
                    cand.keys.append(key)
                    cand.groups.append((n, group))
    return found


_TABLES: dict[bytes, list | None] = {}  # a version's text -> its tables (None: unreadable), for the run
_COLUMNS: dict[tuple[bytes, tuple[str, ...], str], Candidate | None] = {}  # (text, without, column) -> that column read as keys


_CACHES: dict[bytes, model.ParseCache] = {}  # an older version's text -> the parse cache of its file's version today


def continuing(cache: model.ParseCache, older: list[bytes]) -> None:
    """Parse the ``older`` versions of a file (`parse_version`) incrementally
    from the tree of its version today, which ``cache`` parsed."""
    if len(_CACHES) > 2048:
        _CACHES.clear()
    for data in older:
        _CACHES[data] = cache


_KEYED: dict[tuple, model.Document | model.Unmodelable] = {}  # (text, key, key_pattern) -> its keyed Document, for the run


def parse_version(data: bytes, key: model.KeySpec = None, key_pattern: model.PatternSpec = None) -> model.Document:
    """A version's Document as `model.parse` reads it (Unmodelable as it
    raises); an older version of a file (`continuing`) re-parses only the
    lines that differ from the version today, or none when only rows changed.
    Keyed by a record's columns it is parsed once, however many of the
    record's rollups, counts and sequences ask about it (none changes it)."""
    if key is None:
        return _parse_version(data, key, key_pattern)
    memo = (data, key, key_pattern)
    found = _KEYED.get(memo)
    if found is None:
        if len(_KEYED) > 256:
            _KEYED.clear()
        try:
            found = _KEYED[memo] = _parse_version(data, key, key_pattern)
        except model.Unmodelable as exc:
            found = _KEYED[memo] = exc
    if isinstance(found, model.Unmodelable):
        raise found
    return found


def _parse_version(data: bytes, key: model.KeySpec = None, key_pattern: model.PatternSpec = None) -> model.Document:
    cache = _CACHES.get(data)
    if cache is None or cache.first is None:
        return model.parse(data, key=key, key_pattern=key_pattern)
    model.check_modelable(data)
    return model.parse_many([data], key, key_pattern=key_pattern, after=True, cache=cache)[0]


def tables_in(data: bytes) -> list | None:
    """``tables_of`` a version's text, parsed once (None: unreadable)."""
    if data not in _TABLES:
        if len(_TABLES) > 512:
            _TABLES.clear()
        try:
            _TABLES[data] = tables_of(parse_version(data))
        except model.Unmodelable:
            _TABLES[data] = None
    return _TABLES[data]


def column_in(data: bytes, name: str, without: tuple[str, ...] = ()) -> Candidate | None:
    """Column ``name`` of a version's tables holding none of ``without``, read
    as a key column once however often it is asked about (None: no such
    column, or unreadable)."""
    tables = tables_in(data)
    if tables is None:
        return None
    if (data, without, name) not in _COLUMNS:
        if len(_COLUMNS) > 2048:
            _COLUMNS.clear()
        mine = [t for t in tables if not set(without) & set(t[0].columns)]
        _COLUMNS[(data, without, name)] = _collect(mine, name).get(name)
    return _COLUMNS[(data, without, name)]


def keys_in(data: bytes, name: str, without: tuple[str, ...] = (), parsed: dict | None = None) -> list[str] | None:
    """The keys column ``name`` holds in a version, in the tables holding none
    of ``without`` (None: no such column, or unreadable); ``parsed`` keeps
    each version's tables for the next column asked about."""
    cand = column_in(data, name, without)
    return None if cand is None else cand.keys


def former_names(keys: list[str], older: list[bytes], declared: set[str]) -> list[str]:
    """The header names older versions gave the column that holds these
    keys (a key column renamed: `Language` -> `Tool / Language`): a column
    three or more of whose values, and three in five of them, are keys of
    today's, under a name ``declared`` (normalized) does not hold."""
    want = {core(k) for k in keys}
    out: list[str] = []
    for data in older:
        for t, header, body in tables_in(data) or ():
            for i, name in enumerate(t.columns):
                if not name or name in declared or i >= len(header) or header[i] in out:
                    continue
                values = [v for v in (core(model.clean_key(cells[i])) for cells in body if i < len(cells)) if v]
                if len(values) >= 3 and 5 * sum(v in want for v in values) >= 3 * len(values):
                    out.append(header[i])
                    declared = declared | {name}
    return out


def rows_in(data: bytes, name: str, parsed: dict) -> frozenset | None:
    """The body lines of the tables of a version holding column ``name`` (None: unreadable)."""
    tables = tables_in(data)
    if tables is None:
        return None
    return frozenset(b"|".join(c.strip() for c in cells) for t, _, body in tables if name in t.columns for cells in body)


def unique_in(data: bytes, name: str, allowed: tuple[str, ...] = (), per_table: bool = False,
              slips: bool = False) -> tuple[bool | None, int]:
    """Whether column ``name`` of a version holds no key twice (within a
    table: ``per_table``) but ``allowed`` (None: no such column, or
    unreadable), and how many keys it holds.  With ``slips``, values a long
    list holds twice as rarely as `few_slips` says count as unique."""
    cand = column_in(data, name)
    if cand is None:
        return None, 0
    twice = [k for k in repeated(cand, per_table) if k not in allowed]
    return not twice or (slips and few_slips(cand, twice, per_table)), len(cand.keys)


def few_slips(cand: Candidate, twice: list[str], per_table: bool) -> bool:
    """Are the values ``twice`` that an older version's ``cand`` repeats
    slips, a finding each rather than evidence against the column: at most
    one in a hundred rows of a long list, each held twice (`_refusal`'s rule
    for the tree; in a short table a value twice in two versions read is
    evidence)."""
    n = len(cand.keys)
    if n < 100 or len(twice) > n // 100:
        return False
    if per_table:
        scoped = Counter(zip((t for t, _ in cand.groups), cand.keys))
    else:
        scoped = Counter(zip(cand.groups, cand.keys)) if cand.labels else Counter((0, k) for k in cand.keys)
    return max(scoped.values()) == 2


# --- patterns -------------------------------------------------------------------


def families(cores: list[str], depth: int = 1) -> Counter:
    """Counter of the ID prefixes (first ``depth`` segments and separator) of ``cores``."""
    out: Counter = Counter()
    for c in cores:
        m = ID_SHAPE.match(c)
        if not m:
            continue
        if depth == 1:
            out[m.group(1) + m.group(2)] += 1
            continue
        segs = re.split(r"([-_])", c)
        # segments with their separators: depth segments, never the whole key
        n = min(depth, (len(segs) - 1) // 2)
        out["".join(segs[: 2 * n])] += 1
    return out


def _common(cores: list[str], prefix: str) -> str:
    """The longest run of whole segments after ``prefix`` that every core shares (last segment excluded)."""
    split = [re.split(r"([-_])", c[len(prefix):]) for c in cores if c.startswith(prefix)]
    out = prefix
    i = 0
    while split and all(len(s) > i + 2 for s in split):
        seg = {tuple(s[i : i + 2]) for s in split}
        if len(seg) != 1:
            break
        out += "".join(seg.pop())
        i += 2
    return out


def _tail_class(cores: list[str], alts: list[str]) -> str:
    extra: set[str] = set()
    for c in cores:
        if not ID_SHAPE.match(c):
            continue
        alt = next((a for a in alts if c.startswith(a)), None)
        if alt is not None:
            extra.update(ch for ch in c[len(alt):] if not (ch.isascii() and (ch.isalnum() or ch in "_.-")))
    extra_s = "".join(sorted(re.escape(ch) if ch in "\\]^[" else ch for ch in extra if not ch.isspace()))
    return f"[{KEY_CHARS[:-1]}{extra_s}-]+" if extra_s else f"[{KEY_CHARS}]+"


def key_pattern(keys: list[str], depth: int = 1) -> tuple[str, list[str], list[str]]:
    """(pattern, prefix alternatives, keys it does not match) for ID keys.

    The alternatives are the keys' prefix families, each as long as all its
    keys share; keys that are not ID-shaped do not widen it."""
    cores = [core(k) for k in keys]
    fams = families(cores, depth)
    alts = sorted({_common([c for c in cores if c.startswith(f)], f) for f in fams})
    # a family that is a prefix of another's common part keeps the shorter one only
    alts = [a for a in alts if not any(b != a and a.startswith(b) for b in alts)]
    sep = {a[-1] for a in alts}
    tail = _tail_class(cores, alts)
    if len(sep) == 1:
        body = alts[0][:-1] if len(alts) == 1 else "(?:" + "|".join(a[:-1] for a in alts) + ")"
        body = _escape(body) if len(alts) == 1 else "(?:" + "|".join(_escape(a[:-1]) for a in alts) + ")"
        idpart = body + _escape(sep.pop()) + tail
    else:
        idpart = "(?:" + "|".join(_escape(a) for a in alts) + ")" + tail
    noted = re.compile("^" + idpart + NOTE + "$")
    if any(noted.match(c) and not re.match("^" + idpart + "$", c) for c in cores):  # `CAP-0046-01 (formerly 0046)`
        idpart += "(?:" + NOTE + ")?"
    linked = sum(bool(LINK.match(k)) for k in keys)
    if linked and linked == len(keys):
        pattern = r"^\[" + idpart + r"\]\([^)]*\)$"
    elif linked:
        pattern = r"^(?:" + idpart + r"|\[" + idpart + r"\]\([^)]*\))$"
    else:
        pattern = "^" + idpart + "$"
    rx = re.compile(pattern)
    return pattern, alts, [k for k in keys if not rx.match(k)]


def _escape(text: str) -> str:
    return re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", text)
