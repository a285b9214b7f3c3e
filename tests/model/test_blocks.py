"""The skeleton fed to tree-sitter yields the same block structure as the
full text: on the real fixtures and on generated markdown-like input."""

from __future__ import annotations

import bisect

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mergedrv import model
from mergedrv.model import blocks

from tests.helpers import DATA, examples
from tests.model.test_model import markdownish


def shape(lines: list[bytes], fold: bool):
    s = blocks.structure(lines, fold=fold)
    return (
        [(t.header, t.delimiter, list(t.rows), t.column, t.has_error) for t in s.tables],
        s.headings,
        s.error_lines,
    )


def bare_lines(data: bytes) -> list[bytes]:  # lines as the parser takes them
    return model.split_lines(data)


@pytest.mark.parametrize("path", sorted(DATA.glob("*.md")), ids=lambda p: p.name)
def test_skeleton_keeps_structure_of_fixtures(path):
    lines = bare_lines(path.read_bytes())
    assert shape(lines, True) == shape(lines, False)
    assert sum(map(len, blocks.skeleton(lines))) < sum(map(len, lines)) / 4  # it does fold


def test_skeleton_keeps_what_decides_structure():
    long = b"x" * 100
    assert blocks.skeleton_line(b"```" + long, False) == b"```" + long  # a fence: info string matters
    assert blocks.skeleton_line(b"<div " + long, False) == b"<div " + long  # html start
    assert blocks.skeleton_line(long + b" -->", False) == long + b" -->"  # html end
    header = b"| " + long + b" | " + long + b" | b \\| c |"
    assert blocks.skeleton_line(header, True).count(b"|") == header.count(b"|")
    assert blocks.skeleton_line(b"| " + long + b" |", False) == b"| xxxxxx" + b"x"  # a body row: prefix + one byte
    # blank after the last pipe is no cell: it stays blank, not an "x" cell
    assert blocks.skeleton_line(header + b" \t ", True).endswith(b"| \t ")


@pytest.mark.parametrize("tail", [b" ", b"  ", b"\t", b" \r"], ids=repr)
@pytest.mark.parametrize("title", [b"Title", b"A title long enough to be folded"])
def test_a_header_row_with_blank_after_its_last_pipe_is_a_table(tail, title):
    eol = b"\r\n" if tail.endswith(b"\r") else b"\n"
    data = (b"| # | " + title + b" | Solution |" + tail.rstrip(b"\r") + eol + b"|---|---|---|" + eol + b"| 1 | a | b |" + eol)
    lines = bare_lines(data)
    assert shape(lines, True) == shape(lines, False)
    assert [t.header for t in blocks.structure(lines).tables] == [0]  # GitHub shows a table


@st.composite
def long_markdownish(draw) -> bytes:
    """markdownish input whose lines are made long, so they get folded."""
    data = draw(markdownish())
    pad = draw(st.sampled_from([b"", b"a" * 60, b" `code|x` " * 8, "✅ ".encode() * 30]))
    out = []
    for line in data.split(b"\n"):
        if line.strip(b"\r") and draw(st.booleans()):
            core = line.rstrip(b"\r")
            line = core + pad + line[len(core) :]
        out.append(line)
    return b"\n".join(out)


@settings(max_examples=examples(400), deadline=None)
@given(long_markdownish())
@example(b"000\xc2\x80\xc2\x80\xf0\x90\x80\x80\xf0\x90\x80\x80\xf0\x90\x80\x80\xf0\x90\x80\x80\r\r\n" + b"=" * 60)  # a lone CR is a line end to the parser
def test_skeleton_keeps_structure_of_generated_input(data):
    try:
        model.check_modelable(data)
    except model.Unmodelable:
        return
    lines = bare_lines(data)
    assert shape(lines, True) == shape(lines, False)


def cold_and_incremental(versions: list[bytes]):
    lines = [model.split_lines(v) for v in versions]
    together = blocks.structures(lines)
    alone = [blocks.structure(x) for x in lines]

    def flat(s):
        return ([(t.header, t.delimiter, list(t.rows), t.column, t.has_error) for t in s.tables], s.headings, s.error_lines)

    return [flat(s) for s in together], [flat(s) for s in alone]


def test_incremental_parse_matches_a_cold_parse_on_real_revisions():
    old = (DATA / "model-matrix.40ddeb59.md").read_bytes()
    new = (DATA / "model-matrix.f887c34c.md").read_bytes()
    together, alone = cold_and_incremental([old, new, old])
    assert together == alone


@settings(max_examples=examples(300), deadline=None)
@given(long_markdownish(), st.lists(st.tuples(st.integers(0, 40), st.integers(0, 3), markdownish()), max_size=4))
def test_incremental_parse_matches_a_cold_parse_after_edits(data, edits):
    lines = model.split_lines(data)
    for at, drop, insert in edits:
        at = min(at, len(lines))
        lines[at : at + drop] = model.split_lines(insert)
    edited = b"".join(lines)
    for x in (data, edited):
        try:
            model.check_modelable(x)
        except model.Unmodelable:
            return
    together, alone = cold_and_incremental([data, edited])
    assert together == alone


def row_lines_by_children(lines: list[bytes]) -> list[list[int]]:
    """Body-row lines as tree-sitter's row nodes say (the slow, plain way)."""
    skel = blocks.skeleton(lines)
    if skel and not skel[-1].endswith(b"\n"):
        skel[-1] += b"\n"  # as structures() does
    tree = blocks.parser().parse(b"".join(skel))
    starts = blocks._starts(skel)
    out = []

    def visit(node):
        if node.type == "pipe_table":
            rows = [bisect.bisect_right(starts, c.start_byte) - 1 for c in node.children if c.type == "pipe_table_row"]
            out.append(rows)
            return
        for c in node.children:
            visit(c)

    visit(tree.root_node)
    return out


@settings(max_examples=examples(300), deadline=None)
@given(long_markdownish())
def test_table_rows_are_every_line_after_the_delimiter(data):
    try:
        model.check_modelable(data)
    except model.Unmodelable:
        return
    lines = model.split_lines(data)
    assert [list(t.rows) for t in blocks.structure(lines).tables] == row_lines_by_children(lines)


@pytest.mark.parametrize("path", sorted(DATA.glob("*.md")), ids=lambda p: p.name)
def test_table_rows_of_fixtures(path):
    lines = model.split_lines(path.read_bytes())
    assert [list(t.rows) for t in blocks.structure(lines).tables] == row_lines_by_children(lines)


def test_an_empty_row_does_not_cut_the_table_off():
    """tree-sitter-markdown reads `| | | |` as an error that ends the table;
    GitHub shows an empty row. The skeleton gives such a row a byte."""
    text = b"| ID | v | w |\n|---|---|---|\n| a | 1 | 2 |\n| | | |\n| - | | |\n| b | 3 | 4 |\n"
    s = blocks.structure(model.split_lines(text))
    assert [(t.header, t.delimiter, list(t.rows)) for t in s.tables] == [(0, 1, [2, 3, 4, 5])]
    assert s.error_lines == []


# --- a version whose changes are rows among rows: its structure without a parse

_ROWLIKE = [
    b"| `K-new` | " + b"v" * 40 + b" |\n", b"| k9 | " + b"w" * 30 + b" | x |\n", b"|" + b"-" * 40 + b"|\n",
    b"| | | | | | | | | | | | | | | | |\n", b"| ``` " + b"q" * 30 + b" |\n", b"| <div> " + b"h" * 30 + b" |\n",
    b"| short |\n", b"plain text line that is long enough to fold away\n", b"\n", b"===\n", b"---\n", b"# H\n",
    b"| `K-cr` | " + b"r" * 30 + b" |\r\n", b"> | quoted | " + b"y" * 30 + b" |\n",
    # short rows, kept whole by the skeleton
    b"| a |\n", b"|x|\n", b"| \\| |\n", b"| ` |\n", b"|*|\n", b"| [ |\n", b"|<|\n", b"| # |\n", b"|>|\n", b"| 1. |\n",
    b"|    x|\n", b"|\\\n", b"| a | b | c | d | e |\n", b"|-x-|\n", b"| - a |\n", b"|:|a\n", b"| <!-- |\n", b"|```\n", b"|~~~\n",
    b"| --> |\n", b"|</pre>|\n", b"| - |\n", b"| ** |\n", b"| a\r\n", b"| ]]> |\n", b"| ?> |\n",
]


def flat(s):
    return ([(t.header, t.delimiter, list(t.rows), t.column, t.has_error) for t in s.tables], s.headings, s.error_lines)


def cold(lines):
    return flat(blocks.structures([lines], cache=model.ParseCache())[0])  # a parse, not a shift of a version parsed before


@st.composite
def pipe_heavy(draw) -> list[bytes]:
    """Markdown-like lines rich in tables, detached pipe lines, fences, quotes and setext underlines."""
    pieces = [b"| ID | v | w |\n", b"|---|---|---|\n", b"| `K-1` | " + b"a" * 30 + b" | b |\n", b"| `K-2` | " + b"c" * 30 + b" | d |\n",
              b"| K3 | v |\n", b"| K4 | w |\n", b"<!--\n", b"-->\n", b"<pre>\n", b"</pre>\n", b"~~~\n",
              b"| k | e |\n", b"\n", b"prose\n", b"## Heading\n", b"```\n", b"> quote\n", b"- item\n", b"===\n", b"---\n",
              b"<div>\n", b"    | indented | " + b"i" * 30 + b" |\n", b"| `K-3` | " + b"f" * 30 + b" | g |\r\n"]
    return draw(st.lists(st.sampled_from(pieces), max_size=40))


@settings(max_examples=examples(1500), deadline=None)
@example([b"| `K-1` | " + b"a" * 30 + b" | b |\n", b"|---|---|---|\n"], [(1, 0, [b"| k9 | " + b"w" * 30 + b" | x |\n"])])  # a header made
@example([b"<!--\n", b"| a |\n", b"| b |\n", b"|---|\n", b"# H\n"], [(2, 0, [b"| --> |\n"])])  # a comment ended
@given(pipe_heavy(), st.lists(st.tuples(st.integers(0, 45), st.integers(0, 2), st.lists(st.sampled_from(_ROWLIKE), max_size=3)), max_size=4))
def test_rows_put_among_rows_give_the_structure_a_parse_gives(lines, edits):
    new = list(lines)
    for at, drop, insert in edits:
        at = min(at, len(new))
        new[at : at + drop] = insert
    for x in (lines, new):
        try:
            model.check_modelable(b"".join(x))
        except model.Unmodelable:
            return
    first = blocks.structures([lines])[0]
    quick = blocks.shifted(lines, first, new)
    if quick is not None:
        assert flat(quick) == cold(new)
    assert [flat(s) for s in blocks.structures([lines, new])] == [cold(lines), cold(new)]


@pytest.mark.parametrize("name", ["model-matrix.f887c34c.md", "coordination.d85906ae.md"])
def test_row_edits_of_the_fixtures_take_the_shortcut_and_match_a_parse(name):
    import random

    lines = model.split_lines((DATA / name).read_bytes())
    first = blocks.structures([lines])[0]
    rows = [i for t in first.tables for i in t.rows if len(lines[i]) > 30]
    detached = [i for i, x in enumerate(lines) if x.startswith(b"| `CLAIM-") and i not in set(rows)]
    rng = random.Random(7)
    taken = 0
    for _ in range(60):
        new = list(lines)
        for at in sorted(rng.sample(rows + detached, 3), reverse=True):
            kind = rng.randrange(3)
            if kind == 0:
                new[at] = new[at].replace(b"|", b"| x", 1)
            elif kind == 1:
                new.insert(at + 1, b"| `K-" + str(at).encode() + b"` | " + b"n" * 30 + b" |\n")
            else:
                del new[at]
        quick = blocks.shifted(lines, first, new)
        taken += quick is not None
        assert flat(quick or blocks.structures([new])[0]) == cold(new)
    assert taken > 30  # the common merge edits do not re-parse


@settings(max_examples=examples(600), deadline=None)
@example([b"<!--\n", b"| a |\n", b"| --> |\n", b"| b |\n", b"|---|\n", b"# H\n"])  # the line ending a comment is parsed
@example([b"| ID | v |\n", b"|---|---|\n", *[b"| K%d | v |\n" % i for i in range(50)], b"\n", b"| K | x |\n", b"| a |\n", b"| b |\n", b"===\n"])
@given(st.lists(st.sampled_from([*_ROWLIKE, b"| ID | v | w |\n", b"|---|---|---|\n", b"<!--\n", b"<div>\n", b"```\n", b"\n", b"# H\n", b"===\n",
                                 b"| K3 | v |\n", b"| K4 | w |\n", b"| K5 | x |\n", b"> q\n", b"- i\n", b"text\n"]), max_size=50))
def test_runs_of_rows_left_out_of_the_parse_change_no_structure(lines):
    try:
        model.check_modelable(b"".join(lines))
    except model.Unmodelable:
        return
    skel = blocks.skeleton(lines)  # the skeleton parsed whole, no line left out
    if skel and not skel[-1].endswith(b"\n"):
        skel[-1] += b"\n"
    whole = blocks._walk(blocks.parser().parse(b"".join(skel)), blocks._starts(skel))
    assert cold(lines) == flat(whole)


def test_a_table_of_many_short_rows_is_parsed_as_a_few():
    from mergedrv.model.folding import thinned

    lines = [b"| ID | v |\n", b"|---|---|\n", *[b"| K%d | v |\n" % i for i in range(10000)], b"\n", b"end\n"]
    kept = thinned(blocks.skeleton(lines))
    assert kept is not None and len(kept) == 6
    assert shape(lines, True) == ([(0, 1, list(range(2, 10002)), 0, False)], [], [])


def test_a_version_parsed_after_a_near_one_is_shifted_from_it_and_matches_a_parse():
    from mergedrv.model import folding

    lines = model.split_lines((DATA / "model-matrix.f887c34c.md").read_bytes())
    rows = [i for t in blocks.structures([lines])[0].tables for i in t.rows]
    parent = list(lines)
    parent[rows[40]] = parent[rows[40]].replace(b"|", b"| y", 1)
    del parent[rows[7]]
    cache = model.ParseCache()
    blocks.structures([lines], cache=cache)
    calls = []
    real = blocks._parse
    blocks._parse = lambda *a: calls.append(1) or real(*a)
    try:
        again = blocks.structures([parent], cache=cache)[0]
    finally:
        blocks._parse = real
    assert calls == [] and flat(again) == cold(parent)
    other = model.split_lines((DATA / "coordination.d85906ae.md").read_bytes())
    assert folding.recent(other, cache.recent) is None  # another file is parsed
