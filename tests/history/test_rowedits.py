"""Range mode's incremental record checks (`history.rowedits`): a version whose
changes are rows edited in place gets the Document `model.parse` builds, and
every edit it cannot prove so is refused (checked whole)."""

from __future__ import annotations

import random

import pytest

from mergedrv import config, model
from mergedrv.history.rowedits import _lines, edited

from tests.checks_helpers import WORKED_CONFIG
from tests.helpers import DATA

CFG = config.loads(WORKED_CONFIG)
MATRIX = (DATA / "model-matrix.f887c34c.md").read_bytes()
ROADMAP = (DATA / "roadmap_v1.d85906ae.md").read_bytes()
BLOOM = b"| `MODEL-TEXT-bloom-bloom-for-causal-lm` |"
ARCEE = b"`MODEL-TEXT-arcee-arcee-for-causal-lm`"


def _parse(data: bytes, record) -> model.Document:
    return model.parse(data, record.key, key_pattern=record.key_pattern)


def _shape(doc: model.Document) -> list:
    """Everything a Document holds, as plain values (a detached run names its owner by block index)."""
    index = {id(b): n for n, b in enumerate(doc.blocks)}
    out: list = [doc.lines, doc.headings]
    for b in doc.blocks:
        if isinstance(b, model.Prose):
            out.append(("prose", b.start, b.end))
            continue
        out.append(("table", b.start, b.end, b.header, b.delimiter, b.column, b.heading, b.columns, b.key_col, b.preamble,
                    b.is_log, b.path, b.key_name, index.get(id(b.detached)) if b.detached is not None else None,
                    [(r.line, r.lines, r.key, r.column) for r in b.rows]))
    return out


def _line(data: bytes, start: bytes) -> bytes:
    return next(x for x in data.split(b"\n") if x.startswith(start))


def _cell(data: bytes, start: bytes, column: int, value: bytes) -> bytes:
    line = _line(data, start)
    cells = line.split(b"|")
    cells[column] = value
    return data.replace(line, b"|".join(cells), 1)


MATRIX_RECORD, ROADMAP_RECORD = CFG.records
EDITS = [  # (what, record, old, new) that must be built without a parse
    ("an owner cell", MATRIX_RECORD, MATRIX, _cell(MATRIX, BLOOM, -2, b" someone ")),
    ("a State cell", MATRIX_RECORD, MATRIX, _cell(MATRIX, BLOOM, 7, b" `SPIKE` ")),
    ("a key renamed", MATRIX_RECORD, MATRIX, MATRIX.replace(BLOOM, b"| `MODEL-TEXT-bloom-renamed` |", 1)),
    ("a key another row has", MATRIX_RECORD, MATRIX, MATRIX.replace(BLOOM, b"| " + ARCEE + b" |", 1)),
    ("a key the pattern refuses", MATRIX_RECORD, MATRIX, MATRIX.replace(BLOOM, b"| `bad key!` |", 1)),
    ("a cell too many", MATRIX_RECORD, MATRIX, MATRIX.replace(_line(MATRIX, BLOOM), _line(MATRIX, BLOOM) + b" extra |", 1)),
    ("two rows", MATRIX_RECORD, MATRIX, _cell(_cell(MATRIX, BLOOM, -2, b" a "), b"| " + ARCEE, -2, b" b ")),
    ("a roadmap row", ROADMAP_RECORD, ROADMAP, _cell(ROADMAP, b"| 2 | `ROAD-V1-C2` |", -2, b" next ")),
]


@pytest.mark.parametrize("what,record,old,new", EDITS, ids=[e[0] for e in EDITS])
def test_an_edited_row_gets_the_document_a_parse_builds(what, record, old, new):
    before = _parse(old, record)
    found = edited(record.path, before, new)
    assert found is not None, what
    doc, changes = found
    assert _shape(doc) == _shape(_parse(new, record))
    assert _shape(before) == _shape(_parse(old, record))  # the parent's Document is left as it was
    assert {c.new.line for c in changes} == {i for i, (a, b) in enumerate(zip(before.lines, doc.lines)) if a != b}


def _last_row(data: bytes) -> bytes:
    """The last row of the matrix's first keyed table (a blank line follows it)."""
    doc = _parse(data, MATRIX_RECORD)
    return doc.keyed_tables()[0].rows[-1].lines[0]


REFUSED = [  # edits whose Document is not proven by the row edit alone: checked whole
    ("a key emptied", MATRIX.replace(BLOOM, b"|  |", 1)),
    ("a row turned into a label", MATRIX.replace(_line(MATRIX, BLOOM), b"| **Group** |" + b" |" * 8, 1)),
    ("a row inserted", MATRIX.replace(_line(MATRIX, BLOOM), _line(MATRIX, BLOOM) + b"\n" + _line(MATRIX, BLOOM), 1)),
    ("a row deleted", MATRIX.replace(_line(MATRIX, BLOOM) + b"\n", b"", 1)),
    ("a header edited", MATRIX.replace(b"| ID | Item / architecture aliases |", b"| ID | Item |", 1)),
    ("a rollup table's count", MATRIX.replace(b"| **Total** | **326** |", b"| **Total** | **327** |", 1)),
    ("a prose line", MATRIX.replace(b"architecture rows are inventoried", b"architecture rows are listed", 1)),
    ("a row turned into a delimiter", MATRIX.replace(_line(MATRIX, BLOOM), b"|---|---|", 1)),
    ("a row given a conflict marker", MATRIX.replace(_line(MATRIX, BLOOM), _line(MATRIX, BLOOM) + b" <<<<<<< x |", 1)),
    ("a row given a NUL", MATRIX.replace(_line(MATRIX, BLOOM), _line(MATRIX, BLOOM) + b" \0 |", 1)),
    ("a row given a byte that is not UTF-8", MATRIX.replace(_line(MATRIX, BLOOM), _line(MATRIX, BLOOM) + b" \xff |", 1)),
    ("an HTML end in a row", MATRIX.replace(_line(MATRIX, BLOOM), _line(MATRIX, BLOOM) + b" --> |", 1)),
    ("a row indented", MATRIX.replace(_line(MATRIX, BLOOM), b" " + _line(MATRIX, BLOOM), 1)),
]


@pytest.mark.parametrize("what,new", REFUSED, ids=[e[0] for e in REFUSED])
def test_an_edit_the_row_alone_cannot_prove_is_refused(what, new):
    assert edited(MATRIX_RECORD.path, _parse(MATRIX, MATRIX_RECORD), new) is None, what


def test_random_cell_edits_build_what_a_parse_builds_or_are_refused():
    """Random edits of random rows' cells (keys, patterns, pipes, labels,
    markers): each built Document is a parse's, byte for byte."""
    rng = random.Random(13)
    before = _parse(MATRIX, MATRIX_RECORD)
    rows = [r for t in before.keyed_tables() for r in t.rows]
    values = [b"", b" ", b" x ", b" `MODEL-TEXT-x` ", b" **Group** ", b" a \\| b ", b" ` ", b"<!--", b" `INVENTORIED` ", b"|", b" \xc3\xa9 "]
    built = 0
    for _ in range(150):
        data = MATRIX
        for row in rng.sample(rows, rng.choice([1, 1, 2, 3])):
            cells = row.lines[0].split(b"|")
            for _ in range(rng.choice([1, 2])):
                cells[rng.randrange(len(cells))] = rng.choice(values)
            data = data.replace(row.lines[0], b"|".join(cells), 1)
        try:
            want = _parse(data, MATRIX_RECORD)
        except model.Unmodelable:
            assert edited(MATRIX_RECORD.path, before, data) is None
            continue
        found = edited(MATRIX_RECORD.path, before, data)
        if found is not None:
            built += 1
            assert _shape(found[0]) == _shape(want)
    assert built > 50  # most such edits are built, not refused


def test_the_lines_of_a_version_are_split_only_where_it_differs():
    rng = random.Random(7)
    for trial in range(1500):
        old = MATRIX if trial % 3 else bytes(rng.choice(b"ab\n") for _ in range(rng.randint(0, 300)))
        new = bytearray(old)
        for _ in range(rng.randint(0, 3)):
            at = rng.randint(0, len(new))
            op = rng.random()
            if op < 0.4 and at < len(new):
                new[at] = rng.choice(b"xy\n")
            elif op < 0.7:
                new[at:at] = bytes(rng.choice(b"xy\n") for _ in range(rng.randint(1, 5)))
            else:
                del new[at : at + rng.randint(1, 5)]
        lines, want = model.split_lines(old), model.split_lines(bytes(new))
        got = _lines(lines, bytes(new))
        assert (got[0] if got else None) == (want if len(want) == len(lines) else None), trial
        if got is not None:  # the lines outside the middle are the old ones
            assert got[0][: got[1]] == lines[: got[1]] and got[0][got[2] :] == lines[got[2] :]


SMALL = (b"# R\n\n| ID | v |\n|---|---|\n| **Group** | |\n| `MODEL-a` | 1 |\n| `MODEL-b` | 2 |\n\nprose\n\n"
         b"| `MODEL-c` | 3 |\n| `MODEL-d` | 4 |\n\n## Blocks\n\n| Block | w |\n|---|---|\n| `B1` | x |\n| `B2` | y |\n")
SMALL_EDITS = [
    ("a row under a label", b"| `MODEL-a` | 1 |", b"| `MODEL-a` | 10 |"),
    ("a key renamed under a label", b"| `MODEL-a` | 1 |", b"| `MODEL-z` | 1 |"),
    ("the row above detached rows", b"| `MODEL-b` | 2 |", b"| `MODEL-b` | 20 |"),
    ("a row of the second key column", b"| `B1` | x |", b"| `B9` | x |"),
    ("the file's last row", b"| `B2` | y |", b"| `B2` | yy |"),
]


@pytest.mark.parametrize("what,old,new", SMALL_EDITS, ids=[e[0] for e in SMALL_EDITS])
def test_labels_detached_rows_and_key_namespaces_come_out_as_a_parse_reads_them(what, old, new):
    key, pattern = ("ID", "Block"), (("ID", "^MODEL-"), ("Block", "^B"))
    before = model.parse(SMALL, key, key_pattern=pattern)
    assert any(t.detached is not None for t in before.tables) and before.keyed_tables()[-1].rows[0].key.startswith("Block")
    data = SMALL.replace(old, new, 1)
    found = edited("r.md", before, data)
    assert found is not None
    assert _shape(found[0]) == _shape(model.parse(data, key, key_pattern=pattern))


def test_a_detached_row_edited_is_refused():
    key, pattern = ("ID", "Block"), (("ID", "^MODEL-"), ("Block", "^B"))
    before = model.parse(SMALL, key, key_pattern=pattern)
    assert edited("r.md", before, SMALL.replace(b"| `MODEL-c` | 3 |", b"| `MODEL-c` | 3 | 4 |", 1)) is None


def test_a_row_above_a_line_that_could_be_a_delimiter_is_refused():
    """A row of three cells over a two-cell delimiter line: edited to two cells
    it would start a table of its own (the parse proves nothing else)."""
    data = b"| ID | v |\n|---|---|\n| `MODEL-a` | 1 | 3 |\n|---|---|\n| `MODEL-b` | 2 |\n"
    before = model.parse(data, "ID", key_pattern="^MODEL-")
    assert [r.key for r in before.rows()] == ["MODEL-a", "---", "MODEL-b"]
    new = data.replace(b"| 1 | 3 |", b"| 10 |")
    assert [r.key for r in model.parse(new, "ID", key_pattern="^MODEL-").rows()] == []  # a table of its own, keyed by no ID
    assert edited("r.md", before, new) is None


def test_a_last_line_without_a_newline_that_goes_on_is_split_again():
    for old, new in [(MATRIX + b"tail", MATRIX + b"tail and more"), (MATRIX[:-1], MATRIX[:-1] + b" more"),
                     (b"x" * 5000, b"x" * 5000 + b"y"), (b"x" * 5000, b"x" * 4999 + b"\n"),
                     (b"a\n" + b"x" * 4094, b"a\n" + b"x" * 4094 + b"y")]:  # all of it shared, to the byte
        lines = model.split_lines(old)
        want = model.split_lines(new)
        got = _lines(lines, new)
        assert (got[0] if got else None) == (want if len(want) == len(lines) else None)
