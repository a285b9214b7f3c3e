"""The skeleton fed to tree-sitter yields the same block structure as the
full text: on the real fixtures and on generated markdown-like input."""

from __future__ import annotations

import bisect

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mergedrv import blocks, model

from .helpers import DATA
from .test_model import markdownish


def shape(lines: list[bytes], fold: bool):
    s = blocks.structure(lines, fold=fold)
    return (
        [(t.header, t.delimiter, t.rows, t.column, t.has_error) for t in s.tables],
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


@settings(max_examples=400, deadline=None)
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
        return ([(t.header, t.delimiter, t.rows, t.column, t.has_error) for t in s.tables], s.headings, s.error_lines)

    return [flat(s) for s in together], [flat(s) for s in alone]


def test_incremental_parse_matches_a_cold_parse_on_real_revisions():
    old = (DATA / "model-matrix.40ddeb59.md").read_bytes()
    new = (DATA / "model-matrix.f887c34c.md").read_bytes()
    together, alone = cold_and_incremental([old, new, old])
    assert together == alone


@settings(max_examples=300, deadline=None)
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


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"a\n", b"b\n", b"c\n", b"\n"]), max_size=20), st.lists(st.sampled_from([b"a\n", b"b\n", b"c\n", b"d\n", b"\n"]), max_size=20))
def test_line_edits_is_a_valid_edit_script(old, new):
    rebuilt = []
    pos = 0
    for i1, i2, j1, j2 in blocks.line_edits(old, new):
        assert i1 >= pos
        rebuilt += old[pos:i1] + new[j1:j2]
        pos = i2
    rebuilt += old[pos:]
    assert rebuilt == new


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


@settings(max_examples=300, deadline=None)
@given(long_markdownish())
def test_table_rows_are_every_line_after_the_delimiter(data):
    try:
        model.check_modelable(data)
    except model.Unmodelable:
        return
    lines = model.split_lines(data)
    assert [t.rows for t in blocks.structure(lines).tables] == row_lines_by_children(lines)


@pytest.mark.parametrize("path", sorted(DATA.glob("*.md")), ids=lambda p: p.name)
def test_table_rows_of_fixtures(path):
    lines = model.split_lines(path.read_bytes())
    assert [t.rows for t in blocks.structure(lines).tables] == row_lines_by_children(lines)


def test_an_empty_row_does_not_cut_the_table_off():
    """tree-sitter-markdown reads `| | | |` as an error that ends the table;
    GitHub shows an empty row. The skeleton gives such a row a byte."""
    text = b"| ID | v | w |\n|---|---|---|\n| a | 1 | 2 |\n| | | |\n| - | | |\n| b | 3 | 4 |\n"
    s = blocks.structure(model.split_lines(text))
    assert [(t.header, t.delimiter, t.rows) for t in s.tables] == [(0, 1, [2, 3, 4, 5])]
    assert s.error_lines == []
