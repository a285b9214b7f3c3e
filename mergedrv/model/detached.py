"""Detached rows (issue #12): a pipe line below a keyed table, separated from
it by blank lines or prose, whose key cell matches the record's key pattern
and whose cell count is the table's, is an entry of that table.

GitHub shows such a line as text, but the file's writers meant a row: the
model keys it where it stands.  Each run of consecutive detached rows becomes
a `Table` holding rows only (``detached`` names the table above, whose header
it shares), so the merge, the checks and the anchors treat it as a table of
the record; its lines stay in place, byte for byte.  The scan below a table
stops at the next table, the next heading or a code fence.
"""

from __future__ import annotations

from .. import rx

from .cells import NS, cell_count, key_columns, key_of, pattern_for, shown
from .document import Document, Prose, Row, Table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..values import KeySpec
    from .cache import ParseCache
    from .structure import Structure

DETACHED = "\x00detached rows"  # the last part of a detached run's heading path
_FENCE = rx.compile(rb"^[ \t>]{0,8}(?:```|~~~)")


def detach(docs: list[Document], key_pattern: str | tuple[tuple[str, str], ...], key: KeySpec, cache: ParseCache,
           structs: list[Structure] | None = None) -> None:
    """Turn the detached rows of every document into detached tables
    (``cache``: each line's key and each key's match, read once)."""
    first = key_columns(key)[:1]
    for doc in docs:
        if any(isinstance(b, Prose) for b in doc.blocks) and doc.keyed_tables():
            _detach(doc, key_pattern, first[0] if first else "", cache)


def _detach(doc: Document, key_pattern: str | tuple[tuple[str, str], ...], first: str, cache: ParseCache) -> None:
    out: list[Prose | Table] = []
    owner: Table | None = None
    heads = {line for line, _ in doc.headings}
    for block in doc.blocks:
        if isinstance(block, Table):
            out.append(block)
            owner = block if block.key_col is not None and not block.is_log else None
            continue
        pattern = pattern_for(key_pattern, owner.key_name) if owner is not None else None
        if owner is None or not pattern:
            out.append(block)
            continue
        prefix = "" if owner.key_name == first else f"{owner.key_name}{NS}"
        out.extend(_split(doc, block, owner, pattern, prefix, heads, cache))
    doc.blocks = out


def _candidates(doc: Document, block: Prose, owner: Table, prefix: str, heads: set[int], cache: ParseCache) -> dict[int, str]:
    """Line -> key of the pipe lines in ``block`` that have the owner's cell
    count (before the first heading or code fence).  A line's key as a
    detached row of a table shape (column, key column, width) is read once:
    the three versions of a merge (and its result) share nearly all their lines."""
    found: dict[int, str] = {}
    width = len(owner.columns)
    col = owner.column
    memo = cache.line_keys.setdefault((col, owner.key_col or 0, width), {})
    if len(memo) > 100_000:
        memo.clear()
    for i in range(block.start, block.end):
        line = doc.lines[i]
        if i in heads or line[:3] in (b"```", b"~~~") or _FENCE.match(line):
            break
        k = memo.get(line, "")
        if k == "":
            k = memo[line] = _key(line, col, owner.key_col or 0, width)
        if k is not None:
            found[i] = prefix + k
    return found


def _key(line: bytes, col: int, key_col: int, width: int) -> str | None:
    """The key of a pipe line with ``width`` cells, else None."""
    if line[col:].lstrip(b" \t")[:1] != b"|" or line[:col].strip(b" \t>"):
        return None
    if cell_count(line, col) != width:
        return None
    return key_of(line, col, key_col)


def _split(doc: Document, block: Prose, owner: Table, pattern: str, prefix: str, heads: set[int], cache: ParseCache) -> list[Prose | Table]:
    from .. import patterns

    found = _candidates(doc, block, owner, prefix, heads, cache)
    if not found:
        return [block]
    known = cache.hits.setdefault(pattern, {})  # a key's match against the pattern
    if len(known) > 100_000:
        known.clear()
    new = list({shown(k) for k in found.values()} - known.keys())
    if new:
        try:
            known.update(zip(new, patterns.matching(pattern, new)))
        except patterns.PatternError:
            return [block]
    rows = [i for i, k in found.items() if known[shown(k)]]
    if not rows:
        return [block]
    out: list[Prose | Table] = []
    pos = block.start
    run: list[int] = []
    for i in rows + [-1]:
        if run and i != run[-1] + 1:
            if run[0] > pos:
                out.append(Prose(pos, run[0]))
            out.append(_table(doc, owner, run, found))
            pos = run[-1] + 1
            run = []
        run.append(i)
    if pos < block.end:
        out.append(Prose(pos, block.end))
    return out


def _table(doc: Document, owner: Table, run: list[int], keys: dict[int, str]) -> Table:
    t = Table(run[0], run[-1] + 1, owner.header, owner.delimiter, owner.column, doc.heading_at(run[0]), owner.columns, owner.key_col)
    t.path = (*owner.path, DETACHED)  # never matched by heading with the table proper
    t.key_name = owner.key_name
    t.detached = owner
    t.rows = [Row(i, [doc.lines[i]], keys[i], owner.column) for i in run]
    return t
