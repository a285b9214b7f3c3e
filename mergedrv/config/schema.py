"""The one schema of `.mergedrv.toml`: every section's keys, each written once
with its TOML type, default, whether it is required and how it is validated.

The value classes (``Record``, ``Count`` ...) take their fields, defaults and
constructors from their ``KEYS``; ``config.loads`` walks the same ``KEYS``.
"""

from __future__ import annotations

from ..errors import Error
from ..names import CONFIG_NAME, normalize_name  # noqa: F401 - the schema's face

from ..values import PatternSpec, Value

TYPE_CHECKING = False  # typing is not imported at run time (the driver's start)
if TYPE_CHECKING:
    from typing import Any, ClassVar


# How a key's value is validated, after its TOML type.  The checks run in three
# rounds over a section's keys (in KEYS order each): paths first (UNIQUE,
# STRINGS, INSIDE, GLOBS), then the tables (COLUMNS, WHERE), then the patterns
# are queued (PATTERN, GROUP), which are compiled once the whole file is valid.
STRINGS = "strings"  # a list whose items are all strings
INSIDE = "inside"  # paths inside the repository (relative, no `..`)
GLOBS = "globs"  # globs RE2 can match, bounded in wildcards
PATTERN = "pattern"  # an RE2 pattern (compiled once per text, after the rest)
GROUP = "group"  # an RE2 pattern with one (group) around a number
COLUMNS = "columns"  # a table of column name -> RE2 pattern
WHERE = "where"  # a table of column -> string or list of strings
UNIQUE = "unique"  # no two entries of the section share the value
KEYCOLS = "keycols"  # one column name, or a non-empty list of them (a tuple)
KEYPATS = "keypats"  # one RE2 pattern, or a table of key column -> pattern (a tuple of pairs)
CHOICE = "choice"  # one of the key's listed values (``Key.default`` first)
LABELS = "labels"  # a table of string -> string


class ConfigError(Error):
    """A configuration problem: ``path:line: what; fix``."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}" if line > 0 else f"{path}: {message}")
        self.path = path
        self.line = line


class Key:
    """One key of a section: its TOML name, TOML type, default (a list or
    table default is copied for each value), whether it is required, its
    checks, the attribute it fills (``attr``, its name unless given) and, for
    an array of sub-tables, their section (``sub``)."""

    __slots__ = ("name", "type", "default", "required", "checks", "attr", "sub")

    def __init__(
        self,
        name: str,
        type: type,  # noqa: A002 - the TOML type
        default: Any = None,
        *,
        required: bool = False,
        checks: tuple[str, ...] = (),
        attr: str | None = None,
        sub: type[Entry] | None = None,
    ) -> None:
        self.name = name
        self.type = type
        self.default = default
        self.required = required
        self.checks = checks
        self.attr = attr or name
        self.sub = sub

    def fresh_default(self) -> Any:
        return self.default.copy() if isinstance(self.default, (list, dict)) else self.default


CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("record", "detached_rows"): ("report", "keep"),
    ("record", "key_scope"): ("record", "file", "table"),
}


class Entry(Value):
    """A section's value: its fields are its ``KEYS``' attributes and ``line``
    (where the section starts); positional arguments follow that order."""

    SECTION: ClassVar[str] = ""  # the name in messages: [SECTION] key ...
    HEADER: ClassVar[str] = ""  # the [[HEADER]] / [HEADER] a line number is looked up by
    KEYS: ClassVar[tuple[Key, ...]] = ()
    __slots__ = ()

    @classmethod
    def cross(cls, err: Any, values: dict[str, Any], line: int) -> None:
        """Checks between keys of one section (``err(line, key, message)``
        makes the error at a key's line); none by default."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = self.__slots__
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes at most {len(names)} arguments")
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k == "line" and k not in names:
                continue  # a section without a line ([merge])
            if k not in names or k in given:
                raise TypeError(f"{type(self).__name__} got an unexpected or repeated argument {k!r}")
            given[k] = v
        for key in self.KEYS:
            if key.attr in given:
                value = given[key.attr]
                setattr(self, key.attr, key.fresh_default() if value is None and isinstance(key.default, (list, dict)) else value)
            elif key.required:
                raise TypeError(f"{type(self).__name__} needs {key.attr!r}")
            else:
                setattr(self, key.attr, key.fresh_default())
        if "line" in names:  # where the section starts (all but [merge])
            setattr(self, "line", given.get("line", 0))


def _slots(keys: tuple[Key, ...], line: bool = True) -> tuple[str, ...]:
    return (*(k.attr for k in keys), "line") if line else tuple(k.attr for k in keys)


class Count(Entry):
    """A number in prose, or a rollup cell, that counts a record's rows.

    ``where`` filters rows by column: ``{"State": "INVENTORIED"}`` counts the
    rows whose State cell (markup stripped) is the value, or starts with it
    followed by a non-word character (``ACTIVE (W4 landed)`` is ``ACTIVE``); a
    list means any of its values; ``!`` negates; ``~`` searches a pattern.
    ``pattern`` is a regex with one group around the number, matched in prose;
    with ``file`` (another tracked file, any text: a checker script's
    constant), matched in that file's whole text instead.
    """

    SECTION, HEADER = "count", "record.count"
    KEYS = (
        Key("pattern", str, required=True, checks=(GROUP,)),
        Key("where", dict, {}, checks=(WHERE,)),
        Key("offset", int, 0),
        Key("file", str, checks=(INSIDE,)),
    )
    __slots__ = _slots(KEYS)
    if TYPE_CHECKING:
        pattern: str
        where: dict[str, list[str]]
        offset: int
        file: str | None
        line: int

    def path(self) -> str | None:
        """The file the pattern is searched in, as the snapshot names it (None: the record's own files)."""
        return self.file.lstrip("/") if self.file else None


class Rollup(Entry):
    """A table that counts a record's rows grouped by one column: it sits
    under ``heading``; ``group`` is the record column rows are grouped by,
    ``label`` and ``count`` the rollup's columns, ``total`` its total row."""

    SECTION, HEADER = "rollup", "record.rollup"
    KEYS = (
        Key("heading", str, required=True),
        Key("group", str, required=True),
        Key("label", str, required=True),
        Key("count", str, required=True),
        Key("total", str, "Total"),
    )
    __slots__ = _slots(KEYS)
    if TYPE_CHECKING:
        heading: str
        group: str
        label: str
        count: str
        total: str
        line: int


class Grid(Entry):
    """A section grid: one row per section of the file (its heading, or the
    short form ``labels`` gives), a column counting the section's rows
    (``rows``), one column per value of the record column ``column`` (the
    header cell is the value: ``| `PARTIAL` |``) and a ``total`` row.  The grid
    is the table whose header holds ``label`` and ``rows`` (under ``heading``
    if given)."""

    SECTION, HEADER = "grid", "record.grid"
    KEYS = (
        Key("column", str, required=True),
        Key("heading", str),
        Key("label", str, "Area"),
        Key("rows", str, "Rows"),
        Key("total", str, "Total"),
        Key("labels", dict, {}, checks=(LABELS,)),
    )
    __slots__ = _slots(KEYS)
    if TYPE_CHECKING:
        column: str
        heading: str | None
        label: str
        rows: str
        total: str
        labels: dict[str, str]
        line: int


class Record(Entry):
    """A ``[[record]]``: which files, their key column and what checks them."""

    SECTION = HEADER = "record"
    KEYS = (
        Key("name", str, required=True, checks=(UNIQUE,)),
        Key("path", str, required=True, checks=(INSIDE, GLOBS)),
        Key("key", (str, list), required=True, checks=(KEYCOLS,)),  # type: ignore[arg-type] # one column or several
        Key("key_pattern", (str, dict), checks=(KEYPATS,)),  # type: ignore[arg-type] # one pattern or one per key column
        Key("pin", int),
        Key("pin_column", str),
        Key("detached_rows", str, "report", checks=(CHOICE,)),
        # key_scope: where a key must be unique: across the record's files
        # ("record"), within each file ("file": a folder of agendas) or
        # within each table ("table": a list by category, an entry in two)
        Key("key_scope", str, "record", checks=(CHOICE,)),
        Key("refs", list, [], checks=(STRINGS,)),
        Key("ref_files", list, [], checks=(STRINGS, INSIDE, GLOBS)),
        Key("columns", dict, {}, checks=(COLUMNS,)),
        Key("retired", str, checks=(INSIDE,)),
        # sequence: a column numbering each table's rows 1..n in table order;
        # renumbered after every keyed merge, never a conflict or a cell change
        Key("sequence", str),
        # numbered: the keys end in a number (ADR-0013) even if key_pattern
        # does not say so; a key_pattern ending in digits implies it
        Key("numbered", bool, False),
        Key("count", list, [], attr="counts", sub=Count),
        Key("rollup", list, [], attr="rollups", sub=Rollup),
        Key("grid", list, [], attr="grids", sub=Grid),
    )
    __slots__ = _slots(KEYS)
    if TYPE_CHECKING:
        name: str
        path: str
        key: str | tuple[str, ...]
        key_pattern: PatternSpec
        pin: int | None
        pin_column: str | None
        detached_rows: str
        key_scope: str
        refs: list[str]
        ref_files: list[str]
        columns: dict[str, str]
        retired: str | None
        sequence: str | None
        numbered: bool
        counts: list[Count]
        rollups: list[Rollup]
        grids: list[Grid]
        line: int

    @classmethod
    def cross(cls, err: Any, values: dict[str, Any], line: int) -> None:
        """A per-column key_pattern or a pin_column names a declared key column; a sequence column is none of them."""
        key = values.get("key")
        cols = (key,) if isinstance(key, str) else tuple(key or ())
        declared = {normalize_name(k) for k in cols}
        shown = ", ".join(repr(k) for k in cols)
        pats = values.get("key_pattern")
        for name, _ in pats if isinstance(pats, tuple) else ():
            if normalize_name(name) not in declared:
                raise err(line, "key_pattern", f"[record] key_pattern names column {name!r}, which is not a key column; use one of: {shown}")
        pin_column = values.get("pin_column")
        if pin_column is not None and normalize_name(pin_column) not in declared:
            raise err(line, "pin_column", f"[record] pin_column {pin_column!r} is not a key column; use one of: {shown}")
        scope = values.get("key_scope")
        if scope in ("file", "table"):
            for what in ("pin", "retired"):
                if values.get(what) is not None:
                    raise err(line, what, f"[record] {what} holds the keys of the whole record, but key_scope = \"{scope}\" makes a key "
                              f"unique only within each {scope} (the same key in several); drop {what} or key_scope")
        sequence = values.get("sequence")
        if sequence is not None and normalize_name(sequence) in declared:
            raise err(line, "sequence", f"[record] sequence {sequence!r} is a key column: a sequence column only numbers the rows "
                      "(renumbered on merge), a key names them; key the rows by another column")

    def key_columns(self) -> tuple[str, ...]:
        """The declared key columns, in order."""
        return (self.key,) if isinstance(self.key, str) else tuple(self.key)

    def per_file(self) -> bool:
        """Whether keys are unique within each file only (``key_scope = "file"``)."""
        return self.key_scope == "file"

    def per_table(self) -> bool:
        """Whether keys are unique within each table only (``key_scope = "table"``)."""
        return self.key_scope == "table"

    def counted_files(self) -> list[str]:
        """The other files its counts are searched in (``[[record.count]] file``), each once, in order."""
        return list(dict.fromkeys(p for p in (c.path() for c in self.counts) if p is not None))

    def pin_counts(self) -> str:
        """The key column whose keys the pin counts (the first by default)."""
        return self.pin_column or self.key_columns()[0]


class Log(Entry):
    """A ``[[log]]``: an append-only file."""

    SECTION = HEADER = "log"
    KEYS = (Key("path", str, required=True, checks=(INSIDE, GLOBS)),)
    __slots__ = _slots(KEYS)
    if TYPE_CHECKING:
        path: str
        line: int


class Checkpoint(Entry):
    """A ``[[checkpoint]]``: changing a ``when`` path requires every ``require`` doc."""

    SECTION = HEADER = "checkpoint"
    KEYS = (
        Key("when", list, required=True, checks=(STRINGS, INSIDE, GLOBS)),
        Key("require", list, required=True, checks=(STRINGS, INSIDE, GLOBS)),
    )
    __slots__ = _slots(KEYS)
    if TYPE_CHECKING:
        when: list[str]
        require: list[str]
        line: int


class MergeOptions(Entry):
    """``[merge]``: identical double additions conflict (strict); cell merging."""

    SECTION = HEADER = "merge"
    KEYS = (
        Key("strict_additions", bool, False),
        Key("cell_merge", bool, True),
    )
    __slots__ = _slots(KEYS, line=False)
    if TYPE_CHECKING:
        strict_additions: bool
        cell_merge: bool


class Anchors(Entry):
    """``[anchors]``: the upstream cited, its pin, and which files and rows."""

    SECTION = HEADER = "anchors"
    KEYS = (
        Key("upstream", str),
        Key("pin", str),
        Key("pin_file", str, checks=(INSIDE,)),
        Key("pin_pattern", str, checks=(PATTERN,)),
        Key("files", list, [], checks=(STRINGS, INSIDE, GLOBS)),
        Key("exclude", list, [], checks=(STRINGS,)),
        Key("show", list, [], checks=(STRINGS,)),
    )
    __slots__ = _slots(KEYS)
    if TYPE_CHECKING:
        upstream: str | None
        pin: str | None
        pin_file: str | None
        pin_pattern: str | None
        files: list[str]
        exclude: list[str]
        show: list[str]
        line: int


# The top-level sections: an array of tables ([[name]]) or one table ([name]).
SECTIONS: dict[str, tuple[type[Entry], bool]] = {
    "record": (Record, True),
    "log": (Log, True),
    "checkpoint": (Checkpoint, True),
    "merge": (MergeOptions, False),
    "anchors": (Anchors, False),
}
