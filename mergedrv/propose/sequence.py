"""init's `sequence` proposal: a column that numbers the rows of every table
holding it exactly 1..n, in every version of the file read."""

from __future__ import annotations

from .. import model
from ..merge.sequence import in_sequence
from .keys import parse_version


def _columns(doc: model.Document, key: str) -> list[str]:
    """Header names (as written) of the columns beside the key column in the tables ``key`` keys."""
    out: list[str] = []
    for t in doc.keyed_tables():
        if t.key_name != key or t.detached is not None:
            continue
        for i, cell in enumerate(model.split_cells(t.header, t.column).cells):
            name = cell.decode("utf-8", "replace").strip().strip("*`").strip()
            if i != t.key_col and name and name not in out:
                out.append(name)
    return out


def _holds(doc: model.Document, key: str, name: str) -> int | None:
    """Rows numbered 1..n in column ``name`` over the tables holding it; None if a table does not."""
    tables = [t for t in doc.keyed_tables() if t.key_name == key and t.detached is None and model.normalize_name(name) in t.columns]
    if not all(in_sequence(t, name) for t in tables):
        return None
    return sum(len(t.rows) for t in tables)


def propose_sequence(p, doc: model.Document, older: list[bytes]) -> None:
    """Set ``p.sequence`` (and say why) for the first column numbering its rows 1..n now and in every older version read."""
    for name in _columns(doc, p.key):
        rows = _holds(doc, p.key, name)
        if not rows or rows < 2:
            continue
        ok = True
        for data in older:
            try:
                old = parse_version(data, p.key_spec(), p.pattern_spec())
            except model.Unmodelable:
                continue
            if _holds(old, p.key, name) is None:
                ok = False
                break
        if ok:
            p.sequence = name
            p.why.append(f"sequence = {name!r}: the column numbers each table's rows 1..n in all {len(older) + 1} versions read;"
                         " a merge renumbers it, and it never conflicts.")
            return


def rekey_sequence(p, data: bytes, older: list[bytes]) -> None:
    """A key column of numbers that only number the rows 1..n, in every
    version read, is a sequence, not a key: key the record by the next column
    whose values are unique in every version read (``propose_sequence`` then
    proposes the numbers' column as its ``sequence``)."""
    from . import keys as initkeys

    if p.more or p.cand is None or p.cand.kind != "number":
        return
    try:
        doc = model.parse(data)
    except model.Unmodelable:
        return
    for alt in initkeys.candidates(doc):
        # (a column of unique names need not be named like a key here: the numbers beside it are no key)
        if alt.name == p.cand.name or alt.kind not in ("id", "name") or alt.empty or len(set(alt.keys)) != len(alt.keys):
            continue
        if len(alt.keys) != len(p.cand.keys):
            continue
        if not all(initkeys.unique_in(v, alt.name)[0] is not False for v in older):
            continue
        if all(_numbers_rows(v, alt.header, p.cand.header) for v in [data, *older]):
            p.key, p.cand, p.keys = alt.header, alt, list(alt.keys)
            return


def _numbers_rows(data: bytes, key: str, name: str) -> bool:
    """Keyed by ``key``, column ``name`` numbers the rows 1..n in every table holding it (an unreadable version counts)."""
    try:
        doc = parse_version(data, key)
    except model.Unmodelable:
        return True
    return bool(_holds(doc, key, name))
