"""The merge's values: `Options` (how to merge one file, built in one call),
`Markers`, `Result`, `Conflict`, the exceptions a stage raises (`Fallback`,
`Unfit`), the `Item` a table stage emits, `Regions` (the one helper that draws
a conflict region and makes its item) and `Ctx`, what the table stages share."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported on the driver's path (it costs a few ms)
if TYPE_CHECKING:
    from typing import Any

    from ..values import KeySpec, PatternSpec

from .sides import Side


class Markers:
    """Conflict-marker size and the three labels (base, ours, theirs)."""

    __slots__ = ("size", "base", "ours", "theirs")

    def __init__(self, size: int = 7, base: str = "base", ours: str = "ours", theirs: str = "theirs") -> None:
        self.size = size
        self.base = base
        self.ours = ours
        self.theirs = theirs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Markers) and (self.size, self.base, self.ours, self.theirs) == (
            other.size,
            other.base,
            other.ours,
            other.theirs,
        )

    def __repr__(self) -> str:
        return f"Markers({self.size}, {self.base!r}, {self.ours!r}, {self.theirs!r})"

    def block(self, base: list[bytes], ours: list[bytes], theirs: list[bytes], eol: bytes = b"\n") -> list[bytes]:
        """A diff3-style conflict block (drawn ours, base, theirs); every section line ends with a newline."""
        n = self.size

        def section(lines: list[bytes]) -> list[bytes]:
            if lines and not lines[-1].endswith(b"\n"):
                return [*lines[:-1], lines[-1] + eol]
            return list(lines)

        def marker(ch: bytes, label: str) -> bytes:
            text = ch * n
            if label:
                text += b" " + label.encode("utf-8", "replace")
            return text + eol

        return [
            marker(b"<", self.ours),
            *section(ours),
            marker(b"|", self.base),
            *section(base),
            marker(b"=", ""),
            *section(theirs),
            marker(b">", self.theirs),
        ]


class Conflict:
    """One conflict: ``kind`` (double-definition, same-cell, same-row,
    modify-delete, duplicate-key, header, table, log, text), the key ("-" if
    none), why, and the 1-based line of its first marker in the result."""

    __slots__ = ("kind", "key", "why", "line")

    def __init__(self, kind: str, key: str, why: str, line: int = 0) -> None:
        self.kind = kind
        self.key = key
        self.why = why
        self.line = line

    def __repr__(self) -> str:
        return f"Conflict({self.kind!r}, {self.key!r}, {self.why!r}, line={self.line})"


class Options:
    """How to merge one file: markers, the key column (None: plain text), log
    mode, strict additions, cell merging, the record's ``key_pattern`` (a row
    whose key cell does not match it and whose other cells are empty is a
    group divider, not a key) and ``counts``: the record whose derived counts
    are recomputed after a clean keyed merge (None: none declared);
    ``sequence``: the record's sequence column (renumbered 1..n after the
    merge), ``numbered``: its keys end in a number."""

    __slots__ = ("markers", "key", "log", "strict_additions", "cell_merge", "key_pattern", "counts", "sequence", "numbered", "per_table")

    def __init__(
        self,
        markers: Markers | None = None,
        key: KeySpec = None,
        log: bool = False,
        strict_additions: bool = False,
        cell_merge: bool = True,
        key_pattern: PatternSpec = None,
        counts: Any = None,
        sequence: str | None = None,
        numbered: bool = False,
    ) -> None:
        self.markers = markers or Markers()
        self.key = key
        self.log = log
        self.strict_additions = strict_additions
        self.cell_merge = cell_merge
        self.key_pattern = key_pattern
        self.counts = counts
        self.sequence = sequence
        self.numbered = numbered
        self.per_table = False  # key_scope = "table": a key names a row of its table, so two tables may each hold it


class Result:
    """Merged bytes, conflicts, notes (``line: message`` for stderr) and, when
    the whole file was merged as text, why."""

    __slots__ = ("data", "conflicts", "notes", "fallback")

    def __init__(self, data: bytes, conflicts: list[Conflict] | None = None, notes: list[str] | None = None, fallback: str | None = None) -> None:
        self.data = data
        self.conflicts = conflicts or []
        self.notes = notes or []
        self.fallback = fallback


class Fallback(Exception):
    """Raised by a stage: merge the whole file as text; ``why`` says why
    (None: plain text, nothing to report)."""

    def __init__(self, why: str | None = None) -> None:
        super().__init__(why)
        self.why = why


class Unfit(Exception):
    """Raised by a stage meeting folded rows (`model.Run`) whose merge would
    not be that of their rows (rows placed in key order): read the versions
    row by row and merge again."""


class Item:
    """Lines a table merge emits: a clean row (``side`` says where it came
    from, None: both) or, with ``conflict`` set, a conflict region."""

    __slots__ = ("lines", "key", "side", "conflict", "inside")

    def __init__(self, lines: list[bytes], key: str | None = None, side: Side | None = None, conflict: Conflict | None = None) -> None:
        self.lines = lines
        self.key = key
        self.side = side
        self.conflict = conflict
        self.inside: tuple[set[str], set[str], set[str]] | None = None  # keys of a whole-table conflict (base, ours, theirs)


class Regions:
    """Draws this file's conflict regions: its markers and line ending."""

    __slots__ = ("markers", "eol")

    def __init__(self, markers: Markers, eol: bytes) -> None:
        self.markers = markers
        self.eol = eol

    def lines(self, base: list[bytes], ours: list[bytes], theirs: list[bytes]) -> list[bytes]:
        return self.markers.block(base, ours, theirs, self.eol)

    def item(self, base: list[bytes], ours: list[bytes], theirs: list[bytes], kind: str, key: str, why: str, row: bool = True) -> Item:
        """A conflict region and its item; ``row``: the item holds the key's row (else a table's lines)."""
        return Item(self.lines(base, ours, theirs), key if row else None, None, Conflict(kind, key, why))


class Ctx:
    """What every table stage reads: the options, the conflict `Regions`, each
    version's `Keys` and the duplicate plan (key -> KEEP, CONFLICT or the side
    whose rows are taken); and what they add to: ``emitted`` (duplicate
    conflicts drawn), ``notes`` and ``moved`` (rows one side edited where the
    other moved them away from: (table, key, base lines, edited lines, editing side))."""

    __slots__ = ("opts", "regions", "keys", "plan", "emitted", "notes", "moved", "table")

    def __init__(self, opts: Options, regions: Regions, keys: Any, plan: dict[str, Any], notes: list[str]) -> None:
        self.opts = opts
        self.regions = regions
        self.keys = keys
        self.plan = plan
        self.emitted: set[str] = set()
        self.notes = notes
        self.moved: list[tuple[int, str, list[bytes], list[bytes], Side]] = []
        self.table: Any = None  # the table whose rows are being decided (its header names a cell's column)
