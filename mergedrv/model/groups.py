"""Group rows of a keyed table (docs/spec.md#group-rows-and-ragged-rows): the labels, each row's group,
and the keys that stand in several groups, keyed by group (``label GS value``)."""

from __future__ import annotations

from .. import rx
from .cells import GS, NS, clean_key, shown
from .document import Document, Row, Run, Table

# what a merge's versions agreed on (`qualify`): the keys keyed by group, and
# the labels that are no group row (a value a version has as an entry's key)
Grouping = tuple[frozenset[str], frozenset[str]]
NONE: Grouping = (frozenset(), frozenset())


def label_of(line: bytes, column: int, width: int = 3) -> str | None:
    """The group label a table line carries (its first cell's visible text,
    every other cell empty), or None.  Under a header of fewer than three
    cells (``width``), where an entry with an empty value reads the same,
    only a label written in bold or without the empty cells is one."""
    text = line[column:].rstrip(b" \t\r\n|").lstrip(b" \t")
    if text[:1] != b"|" or text[-1:] == b"\\":
        return None  # a plain line under a table, a row written without pipes, an escaped last pipe
    head = text[1:]
    if b"|" in head and (b"\\|" not in head or head.replace(b"\\|", b"").find(b"|") >= 0):
        return None  # a second cell holds something
    if width < 3 and not head.strip().startswith(b"**") and line.count(b"|") - line.count(b"\\|") > 2:
        return None
    return clean_key(head) or None


def table_lines(t: Table) -> list[bytes]:
    """Every body line of ``t`` (none for a one-column table: each of its rows would read as a label)."""
    return [*t.preamble, *(ln for r in t.rows for ln in r.lines)] if len(t.columns) > 1 else []


def keyed_rows(table: Table, not_labels: frozenset[str] = frozenset()) -> list[tuple[Row, str]]:
    """Each keyed row of ``table`` with the label of its group ("" above the
    first group row; a group row itself is in no group)."""
    if len(table.columns) < 2:
        return [(r, "") for r in table.rows]

    def label(line: bytes) -> str | None:
        found = label_of(line, column, width)
        return None if found in not_labels else found

    column, width, group, out = table.column, len(table.columns), "", []
    for line in table.preamble:
        group = label(line) or group
    for r in table.rows:
        own = label(r.lines[0]) if type(r) is not Run else None
        out.append((r, "" if own is not None else group))
        group = own or group
        for line in r.lines if type(r) is Run else r.lines[1:]:
            group = label(line) or group
    return out


# a line that may be a group row (`label_of` decides): a pipe, a first cell, then pipes and blanks only
# (after a newline: the scan jumps from one to the next, where ^ in multi-line mode tries every byte)
_MAYBE = rb"\n[ \t>]*+\|[^|\n]*+\|?+[ \t|]*+\r?\n"


def _maybe_labels(doc: Document, t: Table) -> bool:
    """Could a body line of ``t`` be a group row?  (One C scan of its lines.)"""
    if len(t.columns) < 2 or t.end <= t.body:
        return False
    return rx.compile(_MAYBE).search(b"".join([b"\n", *doc.lines[t.body : t.end], b"\n"])) is not None


def _entries_and_labels(docs: list[Document]) -> tuple[set[str], set[str]]:
    """The keys of rows that are no group row, and the group labels, over ``docs``
    (no keys when there is no label)."""
    labels: set[str] = set()
    for doc in docs:
        for t in doc.keyed_tables():
            if _maybe_labels(doc, t):
                labels.update(x for x in (label_of(ln, t.column, len(t.columns)) for ln in table_lines(t)) if x)
    if not labels:
        return set(), labels
    keys: set[str] = set()
    for doc in docs:
        for t in doc.keyed_tables():
            keys.update(shown(r.key) for r in t.rows if type(r) is Run or label_of(r.lines[0], t.column, len(t.columns)) is None)  # type: ignore[arg-type]
    return keys, labels


def qualify(docs: list[Document], given: Grouping | None = None) -> Grouping:
    """Key by their group, the same way in every version, the rows whose key
    stands in more than one group of a table in some version (a row one
    side moves to another group is moved, as any row).  A label that
    a version has as an entry's key (a row with its cells filled in) labels
    no group.  ``given``: a grouping to apply as it is (the merge's, to its
    result).  Returns the grouping (also each ``doc.grouped``); where it is
    ambiguous, ``doc.ambiguous`` says why."""
    if given is None:
        if not any(_repeats(t) for doc in docs for t in doc.keyed_tables()):
            return NONE  # (no key twice in a table: no key stands in two groups; in C)
        keys, labels = _entries_and_labels(docs)
        if not labels:
            return NONE
        not_labels = frozenset(labels & keys)
        repeated: set[str] = set()
        for doc in docs:
            for t in doc.keyed_tables():
                if not _repeats(t):
                    continue
                seen: dict[str, set[str]] = {}
                for r, group in keyed_rows(t, not_labels):
                    seen.setdefault(r.key, set()).add(group)  # type: ignore[arg-type] # a keyed row's key is a str
                repeated.update(k for k, groups in seen.items() if len(groups) > 1)
        given = (frozenset(repeated), not_labels)
    found, not_labels = given
    for doc in docs:
        doc.grouped = given
        for t in doc.keyed_tables() if found else ():
            if not found.isdisjoint(r.key for r in t.rows):
                doc.ambiguous = doc.ambiguous or _qualified(t, found, not_labels)
    return given


def _repeats(t: Table) -> bool:
    """Does a key stand twice among the rows of ``t``?"""
    keys = [r.key for r in t.rows]
    return len(set(keys)) < len(keys)


def grouped_key(key: str, group: str) -> str:
    """``key`` as the row of group ``group`` is keyed (a declared column's namespace kept first)."""
    space, sep, value = key.rpartition(NS)
    return f"{space}{sep}{group}{GS}{value}"


def _qualified(t: Table, found: frozenset[str], not_labels: frozenset[str]) -> str | None:
    """Key the rows of ``t`` whose key is in ``found`` by their group; why
    that is ambiguous (a label or such a key twice in one group), or None."""
    seen: set[str] = set()
    why = None
    for r, group in keyed_rows(t, not_labels):
        if group and r.key in found:
            r.key = grouped_key(r.key, group)
            if r.key in seen and why is None:
                why = f"line {r.line + 1}: {shown(r.key)} stands twice in group {group}"
            seen.add(r.key)
    labels: dict[str, int] = {}
    for line in table_lines(t):
        label = label_of(line, t.column, len(t.columns))
        if label is not None and label not in not_labels:
            labels[label] = labels.get(label, 0) + 1
    twice = sorted(k for k, n in labels.items() if n > 1)
    if twice and why is None:
        why = f"line {t.start + 1}: the group label {twice[0]} stands twice in one table"
    return None if why is None else f"{why}: which group a repeated key belongs to is not guessed at"
