"""Markdown block structure from tree-sitter-markdown: which lines are tables,
table headers, delimiter rows and body rows, and where the headings are.

Only the *block* grammar is used, and it is fed a *skeleton* of the document:
every line keeps its container prefix and the bytes that can change block
structure, while long runs of inline text are folded to one byte.  The
skeleton has exactly the same lines as the input, so line numbers map 1:1 and
the caller never sees skeleton bytes.  `tests/test_blocks.py` proves on the
fixtures and on generated text that the skeleton yields the same structure as
parsing the full bytes.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right

_PARSER = None


def _load_binding(package: str):
    """Load `<package>._binding` without running the package's __init__.

    tree_sitter_markdown's __init__ imports importlib.resources (~20 ms) only
    to read query files we never use; tree_sitter's imports typing.  The merge
    driver starts once per file, so those milliseconds are paid on every merge.
    """
    import importlib.machinery as machinery
    import importlib.util as util
    import sys

    name = f"{package}._binding"
    if name in sys.modules:
        return sys.modules[name]
    spec = machinery.PathFinder.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{package} is not installed")
    folder = spec.submodule_search_locations[0]
    for fname in sorted(os.listdir(folder)):
        if fname.startswith("_binding") and fname.endswith((".so", ".pyd")):
            path = os.path.join(folder, fname)
            loader = machinery.ExtensionFileLoader(name, path)
            mod_spec = util.spec_from_file_location(name, path, loader=loader)
            module = util.module_from_spec(mod_spec)
            loader.exec_module(module)
            sys.modules[name] = module
            return module
    raise ImportError(f"{package} has no compiled binding in {folder}")


def parser():
    """The tree-sitter parser for the markdown block grammar (made once)."""
    global _PARSER
    if _PARSER is None:
        try:
            ts = _load_binding("tree_sitter")
            md = _load_binding("tree_sitter_markdown")
        except Exception:  # pragma: no cover - unusual installs
            import tree_sitter as ts  # type: ignore[no-redef]
            import tree_sitter_markdown as md  # type: ignore[no-redef]
        _PARSER = ts.Parser(ts.Language(md.language()))
    return _PARSER


# --- the skeleton -----------------------------------------------------------

_KEEP_FULL = 48  # lines up to this many bytes are kept as they are
_LEAD = re.compile(rb"[ \t>*+\-0-9.)\[\]xX]*")  # container prefix / list markers
_FOLD = re.compile(rb"[^|\\\r\n]+")
_DELIM = re.compile(rb"^[ \t>]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\r?$")
_HTML_END = re.compile(rb"</(?:script|pre|style|textarea)", re.I)


def _html_end(line: bytes) -> bool:
    """Could this line end an HTML block (types 1-5)?  Such lines stay whole."""
    if b"-->" in line or b"?>" in line or b"]]>" in line:
        return True
    return b"</" in line and _HTML_END.search(line) is not None
_FENCE_OR_HTML = re.compile(rb"[ \t>]*(?:[-*+]|\d+[.)])?[ \t>]*(?:```|~~~|<)")


def skeleton_line(line: bytes, header_like: bool) -> bytes:
    """Fold the inline text of one line; keep what decides block structure."""
    if len(line) <= _KEEP_FULL or _FENCE_OR_HTML.match(line) or _html_end(line):
        return line
    if _DELIM.match(line):
        return line
    lead = _LEAD.match(line).end() + 32
    head, rest = line[:lead], line[lead:]
    eol = b"\r" if rest.endswith(b"\r") else b""
    if header_like:
        # a header row's cell count must match its delimiter row: keep pipes
        return head + _FOLD.sub(b"x", rest[: len(rest) - len(eol)]) + eol
    # a body row or a paragraph: only "has text" and "has a pipe" matter
    body = rest[: len(rest) - len(eol)]
    return head + (b"x|x" if b"|" in body else b"x") + eol


_MEMO: dict[tuple[bytes, bool], bytes] = {}  # the three versions share most lines


def skeleton(lines: list[bytes]) -> list[bytes]:
    """The skeleton lines of a document given as lines without b"\\n"."""
    out = []
    n = len(lines)
    memo = _MEMO
    if len(memo) > 200_000:
        memo.clear()
    for i, line in enumerate(lines):
        header_like = i + 1 < n and len(lines[i + 1]) < 4096 and _DELIM.match(lines[i + 1]) is not None
        if len(line) <= _KEEP_FULL:
            out.append(line)
            continue
        key = (line, header_like)
        skel = memo.get(key)
        if skel is None:
            skel = memo[key] = skeleton_line(line, header_like)
        out.append(skel)
    return out


# --- structure ----------------------------------------------------------------


class TableSpan:
    """Lines (0-based) of one pipe table as tree-sitter reads it; ``column``
    is the byte column where the header starts (the container prefix)."""

    __slots__ = ("header", "delimiter", "rows", "column", "has_error")

    def __init__(self, header: int, delimiter: int, rows: list[int], column: int, has_error: bool = False) -> None:
        self.header = header
        self.delimiter = delimiter
        self.rows = rows
        self.column = column
        self.has_error = has_error

    @property
    def end(self) -> int:
        """Line index one past the table's last line."""
        return (self.rows[-1] if self.rows else self.delimiter) + 1


class Structure:
    """Every table, the line of every heading, and parser-error line spans."""

    __slots__ = ("tables", "headings", "error_lines")

    def __init__(self) -> None:
        self.tables: list[TableSpan] = []
        self.headings: list[int] = []
        self.error_lines: list[tuple[int, int]] = []


_CONTAINERS = {
    "document",
    "section",
    "list",
    "list_item",
    "block_quote",
}


def structure(lines: list[bytes], fold: bool = True) -> Structure:
    """Parse the lines (without b"\\n") and report tables, headings, errors.

    ``fold=False`` parses the lines as they are (the tests compare both).
    """
    skel = skeleton(lines) if fold else lines
    tree = parser().parse(b"\n".join(skel))
    starts = [0] * len(skel)
    pos = 0
    for i, line in enumerate(skel):
        starts[i] = pos
        pos += len(line) + 1

    def line_of(byte: int) -> int:
        return bisect_right(starts, byte) - 1

    out = Structure()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "pipe_table":
            header = delimiter = -1
            rows: list[int] = []
            column = 0
            bad = node.has_error
            for child in node.children:
                ck = child.type
                if ck == "pipe_table_header":
                    header = line_of(child.start_byte)
                    column = child.start_byte - starts[header]
                elif ck == "pipe_table_delimiter_row":
                    delimiter = line_of(child.start_byte)
                elif ck == "pipe_table_row":
                    rows.append(line_of(child.start_byte))
                elif ck == "ERROR":
                    bad = True
            if header < 0 or delimiter < 0:
                bad = True
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
