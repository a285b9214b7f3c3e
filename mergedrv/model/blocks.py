"""Markdown block structure from tree-sitter-markdown: which lines are tables,
table headers, delimiter rows and body rows, and where the headings are.

Only the *block* grammar is used, and it is fed a *skeleton* of the document:
every line keeps its container prefix and the bytes that can change block
structure, while long runs of inline text are folded to one byte.  The
skeleton has exactly the same lines as the input, so line numbers map 1:1 and
the caller never sees skeleton bytes.  `tests/model/test_blocks.py` proves on the
fixtures and on generated text that the skeleton yields the same structure as
parsing the full bytes.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate

from .. import rx
from .edits import common_ends, line_edits  # noqa: F401 - also blocks.line_edits, as tests name it
from .cache import ParseCache
from .folding import recent, shifted, thinned
from .structure import DELIM, Structure, TableSpan, maybe_delim

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any

_PARSER = None


def parser() -> Any:
    """The tree-sitter parser for the markdown block grammar (made once)."""
    global _PARSER
    if _PARSER is None:
        try:
            from ..bindings import load

            ts = load("tree_sitter")
            md = load("tree_sitter_markdown")
        except Exception:  # pragma: no cover - unusual installs
            import tree_sitter as ts
            import tree_sitter_markdown as md
        _PARSER = ts.Parser(ts.Language(md.language()))
    return _PARSER


# --- the skeleton -----------------------------------------------------------

_KEEP_FULL = 24  # lines up to this many bytes are kept as they are
_KEEP_LEAD = 8  # bytes kept after the container prefix / list markers
_LEAD = rx.compile(rb"[ \t>*+\-0-9.)\[\]xX]*")  # container prefix / list markers
_FOLD = rx.compile(rb"[^|\\\r\n]+")
_HTML_END = rb"</(?:script|pre|style|textarea)"  # (re's cache compiles it for a line holding "</")
_FENCE_OR_HTML = rx.compile(rb"[ \t>]*(?:[-*+]|\d+[.)])?[ \t>]*(?:```|~~~|<)")


def _html_end(line: bytes) -> bool:
    """Could this line end an HTML block (types 1-5)?  Such lines stay whole."""
    if b"-->" in line or b"?>" in line or b"]]>" in line:
        return True
    return b"</" in line and rx.compile(_HTML_END, rx.I).search(line) is not None


def _fold_text(m: re.Match[bytes]) -> bytes:
    """A run of inline text as one byte; a blank run stays as it is."""
    return m[0] if m[0].isspace() else b"x"


def skeleton_line(line: bytes, header_like: bool) -> bytes:
    """Fold the inline text of one line (without its b"\\n"); keep what
    decides block structure: the container prefix and the first bytes after
    it, a whole fence, HTML or delimiter line, and a header row's pipes."""
    if len(line) <= _KEEP_FULL or _FENCE_OR_HTML.match(line) or _html_end(line) or _RULE.match(line):
        return line
    if b"\r" in line[:-1]:  # a lone CR inside the line ends a line for the parser: keep it whole
        return line
    if DELIM.match(line):
        return line
    lead = _LEAD.match(line).end() + _KEEP_LEAD  # type: ignore[union-attr] # _LEAD matches the empty string
    head, rest = line[:lead], line[lead:]
    eol = b"\r" if rest.endswith(b"\r") else b""
    if header_like:
        # a header row's cell count must match its delimiter row: keep pipes,
        # and keep blank runs blank (`| a | b | ` ends after its last pipe)
        return head + _FOLD.sub(_fold_text, rest[: len(rest) - len(eol)]) + eol
    # a body row or a paragraph line: its inline text cannot change blocks
    return head + b"x" + eol


_RULE = rx.compile(rb"[ \t>]*([=\-_*~`])[ \t]*(?:\1[ \t]*)*\r?$")  # underline, break, fence


def skeleton(lines: list[bytes], cache: ParseCache | None = None) -> list[bytes]:
    """Skeleton lines (with their b"\\n") of lines given with their b"\\n"
    (long lines are memoized in ``cache``: versions share their lines)."""
    memos = (cache or ParseCache()).skeletons
    if lines and lines[0].startswith(b"\xef\xbb\xbf"):
        lines = [lines[0][3:], *lines[1:]]  # GitHub and the parser ignore a BOM
    keep = _KEEP_FULL + 1
    # the common case first, a table row at the margin: no block starts
    # with "|", so "|x" reads the same (a row, or paragraph text)
    out = [
        (b"|x\r\n" if line[-2:] == b"\r\n" else b"|x\n" if line[-1:] == b"\n" else b"|x")
        if line[:1] == b"|" and len(line) > 4 and 13 not in line[:-2] else line  # 13: CR (an int: memchr)
        for line in lines
    ]
    bare = [i for i, line in enumerate(lines) if len(line) < 4096 and not line.lstrip(b"|:- \t>\r\n")]
    delims = {i for i in bare if maybe_delim(lines[i])}
    # an empty row (`| | | |`, `| - | | |`) is a row to GitHub, but the
    # grammar reads it as an error that cuts the table off: give it a byte
    for i, line in ((i, lines[i]) for i in bare if lines[i][:1] == b"|" and not lines[i].lstrip(b"|:- \t\r\n") and i not in delims):
        out[i] = b"|x\r\n" if line[-2:] == b"\r\n" else b"|x\n" if line[-1:] == b"\n" else b"|x"
    special = delims | {i - 1 for i in delims}
    if any(line[:1] != b"|" and b"<" in line and _FENCE_OR_HTML.match(line) for line in lines):
        special |= _html_end_lines(lines)  # an HTML block may start: keep its ends whole
    special.update(i for i, line in enumerate(lines) if len(line) > keep and (line[:1] != b"|" or b"\r" in line[:-2]))
    for memo in memos:
        if len(memo) > 400_000:
            memo.clear()
    for i in special:
        if i < 0:
            continue
        line = lines[i]
        if len(line) <= keep:
            out[i] = line
            continue
        header_like = (i + 1) in delims
        memo = memos[header_like]
        skel = memo.get(line)
        if skel is None:
            if line.endswith(b"\n"):
                skel = skeleton_line(line[:-1], header_like) + b"\n"
            else:
                skel = skeleton_line(line, header_like)
            memo[line] = skel
        out[i] = skel
    return out


def _html_end_lines(lines: list[bytes]) -> set[int]:
    """Lines that could end an HTML block (types 1-5): they stay whole.

    Found with one C scan of the whole text per marker, not four per line.
    """
    data = b"".join(lines)
    starts = list(accumulate(map(len, lines), initial=0))
    found: set[int] = set()
    for marker in (b"-->", b"?>", b"]]>", b"</"):
        pos = data.find(marker)
        while pos >= 0:
            i = bisect_right(starts, pos) - 1
            found.add(i)
            pos = data.find(marker, starts[i + 1])
    return found


# --- structure ----------------------------------------------------------------


_CONTAINERS = {
    "document",
    "section",
    "list",
    "list_item",
    "block_quote",
}


def structure(lines: list[bytes], fold: bool = True) -> Structure:
    """Parse lines (with their b"\\n") and report tables, headings, errors.

    ``fold=False`` parses the lines as they are (the tests compare both).
    """
    return structures([lines], fold)[0]


def structure_after(lines: list[bytes], cache: ParseCache) -> Structure:
    """The structure of one more version of the document the last
    `structures` call with ``cache`` parsed, incrementally from that call's
    first tree (the merge's self-check re-reads its result this way)."""
    if cache.first is None:
        return structures([lines], cache=cache)[0]
    tree, skel, starts, first_lines, first = cache.first
    return shifted(first_lines, first, lines) or structures([lines], cache=cache, _first=(tree, skel, starts))[0]


def structures(versions: list[list[bytes]], fold: bool = True, cache: ParseCache | None = None, record: bool = False,
               _first: Any = None) -> list[Structure]:
    """Structures of several versions of one document: the first is parsed
    from scratch (or shifted from a version ``cache`` parsed lately), the
    others incrementally from its tree (only the lines that differ are
    re-parsed).  With ``record``, the edit scripts of the versions placed
    without a parse are kept in ``cache.shifts`` (`folding.stretches`)."""
    cache = cache or ParseCache()
    shifts = cache.shifts if record else None
    out: list[Structure] = []
    first: Any = _first  # (tree, skeleton, line starts) of the first version
    for lines in versions:
        hit = recent(lines, cache.recent, shifts) if fold and not out and _first is None else None  # a check's parent, a range's next commit
        if hit is not None and hit[0][0] is not None:
            cache.first = hit[0]
            first = hit[0][:3]
        elif hit is not None:  # a version `split` placed: it has no tree to parse the others from
            cache.first = None
        found = hit[1] if hit else shifted(versions[0], out[0], lines, shifts) if fold and out and _first is None else None
        if found is None and fold and len(versions) == 1 and _first is None and not record:
            found = split(lines, cache)
            if found is not None:
                cache.first = None
                cache.remember((None, None, None, lines, found))
        if found is not None:
            out.append(found)
            continue
        if fold:
            skel = skeleton(lines, cache)
        else:
            skel = list(lines)
            if skel and skel[0].startswith(b"\xef\xbb\xbf"):
                skel[0] = skel[0][3:]
        if skel and not skel[-1].endswith(b"\n"):
            skel[-1] += b"\n"  # the grammar misreads some last lines without one
        kept = thinned(skel) if fold else None  # the inner lines of runs of rows cost the parser time and memory only
        tree, struct, parsed = _parse(skel, first, kept)
        if tree is None:  # the grammar stumbled on the thinned text: the whole of it decides
            tree, struct, parsed = _parse(skel, first, None)
        if first is None:
            first = (tree, *parsed)
        out.append(struct)
        if fold and len(out) == 1 and _first is None:
            cache.first = (*first, lines, struct)
            cache.remember(cache.first)
    return out


SPLIT_MIN = 400  # lines: a shorter version is parsed whole (a split saves nothing)


def split(lines: list[bytes], cache: ParseCache) -> Structure | None:
    """``lines``' structure from that of a version parsed lately (`ParseCache.recent`)
    when both share their lines above a heading and below another (a log
    appended to, one section of a long file edited): the old structure
    there, and only the lines between parsed.  None when no version shares
    enough.

    Each cut is an ATX heading at the margin after a blank line that the old
    parse read as a heading: nothing open (a fence, an HTML block, a list, a
    quote) reaches it, and nothing below it changes how the lines above
    read.  The lines between are parsed up to and with the lower heading,
    which must read as a heading there too (`tests/model/test_split.py`
    compares with whole parses)."""
    if len(lines) < SPLIT_MIN:
        return None
    for entry in cache.recent:
        old, struct = entry[3], entry[4]
        if struct.error_lines or len(old) < SPLIT_MIN:
            continue
        found = _split_from(old, struct, lines)
        if found is not None:
            return found
    return None


def _split_from(old: list[bytes], struct: Structure, lines: list[bytes]) -> Structure | None:
    top, tail, _ = common_ends(old, lines)  # the shared head's length, where old's shared tail starts
    bottom = len(old) - tail
    if top == len(old) == len(lines):
        return None  # the same lines: `recent` shifts them
    a, b = cuts_around(old, struct.headings, top, len(old) - bottom)
    delta = len(lines) - len(old)
    end = b + delta + 1 if b is not None else len(lines)
    if a + (len(old) - b if b is not None else 0) < SPLIT_MIN // 2:
        return None  # too little kept to be worth it
    mid = structures([lines[a:end]], cache=ParseCache())[0]
    if mid.error_lines:
        return None
    if b is not None and (mid.headings[-1:] != [end - 1 - a] or any(t.end > end - 1 - a for t in mid.tables)):
        return None  # the lower heading does not read as one after the new lines: no cut there
    out = Structure()
    out.tables = [t for t in struct.tables if t.end <= a]
    out.tables += [TableSpan(t.header + a, t.delimiter + a, _moved(t.rows, a), t.column, t.has_error) for t in mid.tables]
    out.headings = [h for h in struct.headings if h < a] + [h + a for h in mid.headings if h + a < end - 1 or b is None]
    if b is not None:
        out.tables += [TableSpan(t.header + delta, t.delimiter + delta, _moved(t.rows, delta), t.column, t.has_error)
                       for t in struct.tables if t.header > b]
        out.headings += [h + delta for h in struct.headings if h >= b]
    return out


def cuts_around(lines: list[bytes], headings: list[int], top: int, tail: int) -> tuple[int, int | None]:
    """(the last cut above line ``top``, or 0; the first cut below line ``tail``,
    or None): the nearest `_cut_at` headings, looked for from the changed
    lines outwards (``headings``: in order)."""
    n = bisect_left(headings, top) - 1
    while n >= 0 and not _cut_at(lines, headings[n]):
        n -= 1
    k = bisect_right(headings, tail)
    while k < len(headings) and not _cut_at(lines, headings[k]):
        k += 1
    return (headings[n] if n >= 0 else 0), (headings[k] if k < len(headings) else None)


def _cut_at(lines: list[bytes], h: int) -> bool:
    """Is line ``h`` an ATX heading at the margin with a blank line (or the file's start) above?"""
    line = lines[h]
    return line[:1] == b"#" and _ATX.match(line) is not None and (h == 0 or not lines[h - 1].strip())


_ATX = rx.compile(rb"#{1,6}(?:[ \t]|\r?\n|$)")


def _moved(rows: list[int] | range, by: int) -> list[int] | range:
    if type(rows) is range:
        return range(rows.start + by, rows.stop + by)
    return [r + by for r in rows]


def _parse(skel: list[bytes], first: Any, kept: list[int] | None) -> tuple[Any, Structure, tuple[list[bytes], list[int]]]:
    """Parse a skeleton (only its ``kept`` lines), incrementally from the
    ``first`` version's (tree, skeleton, starts): (tree, structure, (the
    skeleton parsed, its line starts)); the tree is None if a thinned parse
    met a parser error."""
    if kept is not None:
        skel = [skel[i] for i in kept]
        if not skel[-1].endswith(b"\n"):
            skel[-1] += b"\n"
    starts = _starts(skel)
    source = b"".join(skel)
    if first is None:
        tree = parser().parse(source)
    else:
        first_tree, first_skel, first_starts = first
        old = first_tree.copy()
        for i1, i2, j1, j2 in reversed(line_edits(first_skel, skel)):
            start = first_starts[i1]
            old_end = first_starts[i2]
            new_end = start + (starts[j2] - starts[j1])
            old.edit(start, old_end, new_end, (i1, 0), (i2, 0), (i1 + j2 - j1, 0))
        tree = parser().parse(source, old)
    struct = _walk(tree, starts)
    if kept is None:
        return tree, struct, (skel, starts)
    if struct.error_lines or any(t.has_error for t in struct.tables):
        return None, struct, (skel, starts)
    return tree, _widened(struct, kept), (skel, starts)


def _widened(thin: Structure, kept: list[int]) -> Structure:
    """The structure of the whole lines from that of the ``kept`` ones (the
    lines dropped between two kept rows are rows of the same table)."""
    out = Structure()
    for t in thin.tables:
        delimiter = kept[t.delimiter]
        rows = list(range(delimiter + 1, kept[t.rows[-1]] + 1)) if t.rows else []
        out.tables.append(TableSpan(kept[t.header], delimiter, rows, t.column, t.has_error))
    out.headings = [kept[h] for h in thin.headings]
    out.error_lines = [(kept[a], kept[b]) for a, b in thin.error_lines]
    return out


def _starts(skel: list[bytes]) -> list[int]:
    """Byte offset of every line, plus the total length at the end."""
    return list(accumulate(map(len, skel), initial=0))


def _walk(tree: Any, starts: list[int]) -> Structure:
    nlines = len(starts) - 1

    def line_of(byte: int) -> int:
        return min(bisect_right(starts, byte) - 1, max(nlines - 1, 0))

    out = Structure()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "pipe_table":
            # every line after the delimiter row, up to the table's end, is a
            # body row: no need to visit (and box) 100k row nodes
            header = delimiter = -1
            column = 0
            bad = node.has_error
            count = node.child_count
            for k in range(min(count, 4)):
                child = node.child(k)
                ck = child.type
                if ck == "pipe_table_header":
                    header = line_of(child.start_byte)
                    column = child.start_byte - starts[header]
                elif ck == "pipe_table_delimiter_row":
                    delimiter = line_of(child.start_byte)
            rows: list[int] = []
            if header < 0 or delimiter < 0:
                bad = True
            elif count > 2:
                last = node.child(count - 1)
                while last.type == "block_continuation" and last.prev_sibling is not None:
                    last = last.prev_sibling
                if last.type == "pipe_table_row":
                    rows = list(range(delimiter + 1, line_of(last.start_byte) + 1))
            out.tables.append(TableSpan(header, delimiter, rows, column, bad))
        elif kind in ("atx_heading", "setext_heading"):
            out.headings.append(line_of(node.start_byte))
        elif kind == "ERROR":
            out.error_lines.append((line_of(node.start_byte), line_of(max(node.end_byte - 1, node.start_byte))))
        elif kind in _CONTAINERS:
            stack.extend(reversed(node.children))
    out.tables.sort(key=lambda t: t.header)
    out.headings.sort()
    return out
