"""The skeleton fed to tree-sitter yields the same block structure as the
full text: on the real fixtures and on generated markdown-like input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergedrv import blocks, model

from .conftest import DATA
from .test_model import markdownish


def shape(lines: list[bytes], fold: bool):
    s = blocks.structure(lines, fold=fold)
    return (
        [(t.header, t.delimiter, t.rows, t.column, t.has_error) for t in s.tables],
        s.headings,
        s.error_lines,
    )


def bare_lines(data: bytes) -> list[bytes]:
    lines = [line.rstrip(b"\n") for line in model.split_lines(data)]
    if lines and lines[0].startswith(model.BOM):
        lines[0] = lines[0][3:]
    return lines


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
    assert blocks.skeleton_line(b"| " + long + b" |", False).endswith(b"x|x")


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
def test_skeleton_keeps_structure_of_generated_input(data):
    try:
        model.check_modelable(data)
    except model.Unmodelable:
        return
    lines = bare_lines(data)
    assert shape(lines, True) == shape(lines, False)
