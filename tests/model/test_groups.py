"""The record model's group rows and ragged rows (SPEC "Group rows", "Ragged
rows"): which lines label groups, which keys are keyed by their group, and
that a ragged row has no key; and the merge's fallbacks where either is unsure."""

from __future__ import annotations

from mergedrv import model
from mergedrv.model.groups import label_of
from mergedrv.merge import Options, merge

MATRIX = b"""# Compliance

| Feature | Status | Since |
|---|---|---|
| **Zipkin** | | |
| Span export | yes | 1.0 |
| Sampling | no | |
| Jaeger ||
| Span export | yes | 1.1 |
| Baggage | yes | 1.3 |
"""


def test_group_labels_are_a_first_cell_alone():
    assert label_of(b"| **Zipkin** | | |\n", 0) == "Zipkin"
    assert label_of(b"| Zipkin |||\n", 0) == "Zipkin"
    assert label_of(b"  | Zipkin | |\r\n", 2) == "Zipkin"
    assert label_of(b"| Zipkin | yes | |\n", 0) is None
    assert label_of(b"| | | |\n", 0) is None
    assert label_of(b"Zipkin\n", 0) is None  # a plain line under a table
    # under two columns an entry with an empty value reads the same: only bold or one cell
    assert label_of(b"| K-93 | |\n", 0, 2) is None
    assert label_of(b"| **Core** | |\n", 0, 2) == "Core"
    assert label_of(b"| Core |\n", 0, 2) == "Core"


def test_a_key_repeated_across_groups_is_keyed_by_its_group():
    doc = model.parse_many([MATRIX], "Feature", ragged_keyless=True)[0]  # as the merge reads it
    keys = [model.shown(r.key) for r in doc.rows()]
    assert keys == ["Zipkin", "Span export", "Sampling", "Span export", "Baggage"]
    checked = [model.shown(r.key) for r in model.parse(MATRIX, "Feature").rows()]  # as the checks do: the ragged label row too
    assert checked == ["Zipkin", "Span export", "Sampling", "Jaeger", "Span export", "Baggage"]
    raw = [r.key for r in doc.rows()]
    assert len(set(raw)) == len(raw)  # two groups, two keys
    assert raw[1] != raw[4] and raw[2] == "Sampling"  # only the repeated key carries its group
    merged = [model.shown(r.key) for r in model.parse_many([MATRIX], "Feature", ragged_keyless=True)[0].rows()]
    assert merged == ["Zipkin", "Span export", "Sampling", "Span export", "Baggage"]  # as the merge reads it


def test_a_label_written_as_an_entry_in_another_version_labels_nothing():
    filled = MATRIX.replace(b"| **Zipkin** | | |", b"| **Zipkin** | all | 1.0 |")
    docs = model.parse_many([MATRIX, filled], "Feature")
    assert all(d.grouped[1] == {"Zipkin"} for d in docs)  # in both versions
    keys = [r.key for r in docs[0].rows()]
    assert keys[1] == "Span export" and keys[3] != "Span export"  # above Jaeger: in no group


def test_a_ragged_row_has_no_key_in_a_merge_and_its_shown_key_in_the_checks():
    data = b"| # | Name | Link |\n|---|---|---|\n| 1 | Alpha | a |\n| Beta | b |\n| 3 | Gamma | c | extra |\n"
    doc = model.parse_many([data], "Name", ragged_keyless=True)[0]
    assert [r.key for r in doc.rows()] == ["Alpha"]
    assert doc.render() == data  # kept byte for byte, as lines of the row above
    assert model.keys_after(data, "Name", model.ParseCache()) == ["Alpha"]  # the self-check reads it back so
    # the checks read the cell GitHub shows in the key column: still an entry
    # (counted, its key unique), and table-shape names it
    assert [r.key for r in model.parse(data, "Name").rows()] == ["Alpha", "b", "Gamma"]


def test_a_label_twice_in_a_table_with_a_repeated_key_falls_back():
    base = MATRIX + b"| **Zipkin** | | |\n| Sampling | yes | 2.0 |\n"
    ours = base.replace(b"| Baggage | yes | 1.3 |", b"| Baggage | no | |")
    theirs = base.replace(b"| Sampling | no | |", b"| Sampling | no | 1.9 |")
    result = merge(base, ours, theirs, Options(key="Feature"))
    assert result.fallback is not None and "group label Zipkin stands twice" in result.fallback
    assert b"| Baggage | no | |" in result.data and b"| Sampling | no | 1.9 |" in result.data  # git's merge, both sides kept


def test_a_ragged_row_completed_on_one_side_and_deleted_on_the_other_falls_back():
    base = b"# T\n\n| # | Name | Link |\n|---|---|---|\n| 1 | Alpha | a |\n| Beta | b |\n| 3 | Gamma | c |\n"
    ours = base.replace(b"| Beta | b |", b"| 2 | Beta | b |")
    theirs = base.replace(b"| Beta | b |\n", b"")
    for a, b in ((ours, theirs), (theirs, ours)):
        result = merge(base, a, b, Options(key="Name"))
        assert result.fallback is not None and "ragged row" in result.fallback
        assert result.conflicts and b"| 2 | Beta | b |" in result.data  # git's conflict: the deletion is not lost


COMPLIANCE = b"""# Compliance

| Feature | Status | Since |
|---|---|---|
| **Zipkin** | | |
| Span export | yes |  |
| Span links | yes |  |
| **Jaeger** | | |
| Span export | yes |  |
| Error Status mapping | yes |  |
| **OTLP** | | |
| Span export | yes |  |
"""


def test_a_row_added_to_a_group_the_other_side_deleted_falls_back():
    # ours adds under Jaeger; theirs deletes the whole group: a clean merge
    # would put the row after Zipkin's last row, in another group
    ours = COMPLIANCE.replace(b"| Error Status mapping | yes |  |\n", b"| Error Status mapping | yes |  |\n| Baggage | yes |  |\n")
    theirs = COMPLIANCE.replace(b"| **Jaeger** | | |\n| Span export | yes |  |\n| Error Status mapping | yes |  |\n", b"")
    for a, b in ((ours, theirs), (theirs, ours)):
        result = merge(COMPLIANCE, a, b, Options(key="Feature"))
        assert result.fallback is not None and "group row" in result.fallback and "Jaeger" in result.fallback, result.fallback
        assert b"| Baggage | yes |  |" in result.data  # git's merge: the added row kept


def test_a_row_added_at_a_groups_end_stays_before_a_group_the_other_side_added_there():
    # ours adds a row at Jaeger's end; theirs adds a new group right after
    # Jaeger's last row: the row stays in Jaeger, above the new group row
    ours = COMPLIANCE.replace(b"| Error Status mapping | yes |  |\n", b"| Error Status mapping | yes |  |\n| Baggage | yes |  |\n")
    theirs = COMPLIANCE.replace(b"| **OTLP** | | |\n", b"| **Tempo** | | |\n| Sampling | no |  |\n| **OTLP** | | |\n")
    want = ours.replace(b"| **OTLP** | | |\n", b"| **Tempo** | | |\n| Sampling | no |  |\n| **OTLP** | | |\n")
    for a, b in ((ours, theirs), (theirs, ours)):
        result = merge(COMPLIANCE, a, b, Options(key="Feature"))
        assert result.fallback is None and not result.conflicts
        assert result.data == want
