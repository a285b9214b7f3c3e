"""Cells: GitHub cell splitting (an escaped pipe stays inside), key cleaning
(a key is the cell's visible text) and the regex key reader agreeing with the split."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergedrv import model
from tests.helpers import examples


def test_cells_split_like_github():
    cells = model.split_cells(b"| a \\| b | `c|d` | e |\n")
    assert cells.cells == [b" a \\| b ", b" `c", b"d` ", b" e "]
    assert cells.render() == b"| a \\| b | `c|d` | e |\n"
    no_edges = model.split_cells(b"a | b")
    assert no_edges.cells == [b"a ", b" b"] and no_edges.render() == b"a | b"
    crlf = model.split_cells(b"| x | y |  \r\n")
    assert crlf.cells == [b" x ", b" y "] and crlf.suffix == b"|  \r\n"


def test_key_cleaning():
    assert model.clean_key(b" `MODEL-X` ") == "MODEL-X"
    assert model.clean_key(b" **`K-1`** ") == "K-1"
    assert model.clean_key(b"   ") == ""


@pytest.mark.parametrize(
    "cell, key",
    [
        (b"[ADR-003](./ADR-003-cli.md)", "ADR-003"),
        (b'[ADR-003](./a.md "a title")', "ADR-003"),
        (b"[ADR-003](<./with space.md> 'title')", "ADR-003"),
        (b"[ADR-003](./a_(b).md)", "ADR-003"),
        (b"![logo](img/logo.png)", "logo"),
        (b"**[`K-1`](./k1.md)**", "K-1"),
        (b"[K-1][ref]", "K-1"),
        (b"[K-1][]", "K-1"),
        (b"<https://example.org/x>", "https://example.org/x"),
        (b'<a href="./x.md" title="y">K-2</a>', "K-2"),
        (b"<code>K-3</code>", "K-3"),
        (b"[WIP] plain brackets", "[WIP] plain brackets"),
        (b"`[x](y)`", "[x](y)"),  # a code span shows its text as it is
    ],
)
def test_a_key_is_the_cells_visible_text(cell, key):
    assert model.clean_key(cell) == key


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.sampled_from([b"|", b"\\", b" ", b"\t", b"\r", b"a", b"\x0c", b"`", b"b"]), max_size=10).map(b"".join),
       st.sampled_from([b"", b"\n", b"\r\n"]), st.integers(0, 1), st.integers(0, 2))
def test_key_of_is_the_cleaned_cell_split_cells_gives(body, ending, column, key_col):
    """The driver reads keys with a regex (no split of a 40 KB row): it must
    agree with split_cells on escaped pipes, stray CRs and ragged rows."""
    line = body + ending
    cells = model.split_cells(line, column).cells
    want = (model.clean_key(cells[key_col]) or None) if key_col < len(cells) else None
    assert model.key_of(line, column, key_col) == want


def test_cell_count_agrees_with_split_cells_on_odd_blanks():
    for line in (b"\x0c| a |", b"| a |\x0c", b"| a |\r \n", b"| a \\| b |", b"| a \\\\| b |", b"|", b"", b"| a | b |\r\n"):
        assert model.cell_count(line) == len(model.split_cells(line).cells), line


def test_a_plain_key_cell_read_in_one_match_is_the_cleaned_cell():
    # the one-match reading of a plain first cell against the general one
    import random

    from mergedrv.model.cells import _key_of, key_of

    rnd = random.Random(11)
    parts = [b" ", b"\t", b"|", b"`", b"*", b"[", b"]", b"<", b">", b"\\", b"a", b"K", b"7", b"-", b".", b"_", b":", b"/",
             b"#", b"+", b"\x1c", b"\xc2\xa0", b"\r", b"\n", b"(", b"\xc3\xa9"]
    plain = 0
    for _ in range(60000):
        line = (b"| " if rnd.random() < 0.5 else b"") + b"".join(rnd.choice(parts) for _ in range(rnd.randint(0, 12)))
        column = rnd.choice([0, 0, 1, 2])
        assert key_of(line, column, 0) == _key_of(line, column, 0), (line, column)
        plain += key_of(line, column, 0) is not None
    assert plain > 5000
