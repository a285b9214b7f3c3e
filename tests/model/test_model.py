"""The record model: byte-exact rendering, tables in
containers, ragged rows, and what cannot be modelled."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergedrv import model

from tests.helpers import DATA, examples

FIXTURES = sorted(DATA.glob("*.md"))


def keyed(text: str, key: str = "ID") -> model.Document:
    return model.parse(text.encode(), key)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixtures_render_byte_exact(path):
    data = path.read_bytes()
    key = "Block" if "roadmap" in path.name else "ID"
    doc = model.parse(data, key, log="ledger" in path.name)
    assert doc.render() == data
    # every line belongs to exactly one block, in order
    pos = 0
    for block in doc.blocks:
        assert block.start == pos
        pos = block.end
    assert pos == len(doc.lines)


def test_model_matrix_keys_are_the_backticked_ids():
    doc = model.parse((DATA / "model-matrix.f887c34c.md").read_bytes(), "ID")
    keys = [r.key for r in doc.rows()]
    assert len(keys) > 300
    assert "MODEL-TEXT-afmoe-afmoe-for-causal-lm" in keys
    assert all("`" not in k for k in keys)
    text = [t for t in doc.keyed_tables() if t.heading.startswith("MODEL-TEXT")]
    assert len(text) == 1 and text[0].columns[0] == "id"


def test_roadmap_is_keyed_by_its_second_column():
    doc = model.parse((DATA / "roadmap_v1.d85906ae.md").read_bytes(), "Block")
    keys = [r.key for r in doc.rows()]
    assert keys and all(k.startswith("ROAD-V1-") for k in keys[:5])
    assert max(len(line) for line in doc.lines) > 30_000  # 35 KB cells survive


def test_ledger_is_one_log_table_with_ragged_rows_and_blank_separators():
    data = (DATA / "parity-ledger.d85906ae.md").read_bytes()
    doc = model.parse(data, log=True)
    assert doc.render() == data
    logs = doc.tables
    assert len(logs) == 1
    rows = logs[0].rows
    ncols = len(model.split_cells(logs[0].header).cells)
    ragged = [r for r in rows if len(r.cells().cells) != ncols]
    assert len(rows) > 500
    assert len(ragged) >= 40  # real ledgers have them; they stay rows


def test_tables_in_list_items_and_block_quotes():
    text = (
        "- item\n\n  | ID | v |\n  |---|:--:|\n  | k1 | 1 |\n  plain under\n\n"
        "> | ID | v |\n> |---|---:|\n> | k2 | 2 |\n"
    )
    doc = keyed(text)
    tables = doc.keyed_tables()
    assert [t.keys() for t in tables] == [["k1"], ["k2"]]
    assert tables[0].column == 2
    assert tables[0].rows[0].lines == [b"  | k1 | 1 |\n", b"  plain under\n"]  # travels with the row above
    assert doc.render() == text.encode()


def test_fenced_code_full_of_pipes_is_not_a_table():
    text = "```\n| ID | v |\n|---|---|\n| k | 1 |\n```\n"
    doc = keyed(text)
    assert doc.tables == []
    assert doc.render() == text.encode()


def test_tables_split_by_blank_lines_are_separate():
    text = "| ID | v |\n|---|---|\n| a | 1 |\n\n| ID | v |\n|---|---|\n| b | 2 |\n"
    doc = keyed(text)
    assert [t.keys() for t in doc.keyed_tables()] == [["a"], ["b"]]


def test_bom_crlf_emoji_and_huge_lines():
    cell = "✅🚧 " * 12_000  # ~ 84 KB line
    text = "\ufeff| ID | v |\r\n|---|---|\r\n| k1 | " + cell + " |\r\n| k2 | x |\r\n"
    data = text.encode()
    doc = model.parse(data, "ID")
    assert doc.render() == data
    assert doc.keyed_tables()[0].keys() == ["k1", "k2"]


def test_headings_and_row_lookup():
    text = "# Top\n\n## Section A\n\n| ID | v |\n|---|---|\n| a | 1 |\n| b | 2 |\n"
    doc = keyed(text)
    table = doc.keyed_tables()[0]
    assert table.heading == "Section A"
    assert doc.row_at(7).key == "b"
    assert doc.row_at(0) is None
    assert doc.heading_at(7) == "Section A"


def test_key_column_matched_ignoring_case_and_markup():
    doc = keyed("| Name | **Block** |\n|---|---|\n| x | `ROAD-1` |\n", "block")
    assert doc.keyed_tables()[0].keys() == ["ROAD-1"]


@pytest.mark.parametrize(
    "data, why",
    [
        (b"| ID |\n|---|\n| a\0 |\n", "NUL"),
        (b"| ID |\n|---|\n| \xff |\n", "UTF-8"),
        (b"<<<<<<< ours\n| ID |\n=======\n>>>>>>> theirs\n", "conflict marker"),
    ],
)
def test_unmodelable_input_is_refused(data, why):
    with pytest.raises(model.Unmodelable, match=why):
        model.parse(data, "ID")


def test_setext_heading_underline_is_not_a_conflict_marker():
    doc = keyed("Title\n=======\n\n| ID |\n|---|\n| a |\n")
    assert doc.keyed_tables()[0].keys() == ["a"]


# --- property: rendering is byte-exact for any markdown-like input -------------

_PIECES = st.sampled_from(
    [
        "| ID | v |",
        "|---|---|",
        "|:--|--:|",
        "| k1 | a |",
        "| k2 | b \\| c |",
        "| `k3` | ✅ |",
        "plain",
        "",
        "  ",
        "# H",
        "## H2",
        "- item",
        "  | ID | v |",
        "> | ID | v |",
        "> |---|---|",
        "```",
        "~~~",
        "    code | x",
        "<div>",
        "</div>",
        "<!-- c -->",
        "x" * 70 + " | " + "y" * 70,
        "| k4 | " + "z" * 200 + " |",
        "Title",
        "=====",
        "***",
        "1. one",
        "\t| ID |",
        "=" * 60,
        "-" * 60,
        "_" * 60,
        "`" * 30,
        "# " + "h" * 40 + " #",
        "> " * 20 + "| ID | v |",
    ]
)


@st.composite
def markdownish(draw) -> bytes:
    lines = draw(st.lists(st.one_of(_PIECES, st.text(max_size=20)), max_size=25))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(lines)
    if draw(st.booleans()):
        text += eol
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text.encode("utf-8", "surrogatepass")


@settings(max_examples=examples(300), deadline=None)
@given(markdownish(), st.booleans())
def test_any_input_renders_back_byte_exact(data, log):
    try:
        doc = model.parse(data, "ID", log=log)
    except model.Unmodelable:
        return
    assert doc.render() == data
    seen = 0
    for block in doc.blocks:
        assert block.start == seen
        seen = block.end
    assert seen == len(doc.lines)


@settings(max_examples=examples(300), deadline=None)
@given(markdownish(), st.integers(0, 3))
def test_cell_at_is_split_cells_without_the_rest(data, column):
    for line in model.split_lines(data):
        cells = model.split_cells(line, column).cells
        assert model.cell_count(line, column) == len(cells)
        for i in range(len(cells) + 2):
            assert model.cell_at(line, column, i) == (cells[i] if i < len(cells) else None)


def test_a_key_most_rows_share_is_told_and_keys_that_tell_rows_apart_are_not() -> None:
    head = b"| Name | Link |\n|---|---|\n"
    links = model.parse(head + b"".join(b"| n%d | [Link](https://x/%d) |\n" % (i, i) for i in range(5)), "Link")
    assert links.tables[0].shared_key() == ("Link", 5)
    names = model.parse(head + b"".join(b"| n%d | [Link](https://x/%d) |\n" % (i, i) for i in range(5)), "Name")
    assert names.tables[0].shared_key() is None
    three = model.parse(head + b"| a | l |\n| a | l |\n| a | l |\n| b | l |\n| c | l |\n| d | l |\n| e | l |\n", "Name")
    assert three.tables[0].shared_key() is None  # (a duplicate, not a column naming no row: keys-unique's)
