"""Derived counts: recompute, align, filters; never a lost byte; hostile patterns."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergedrv import captures, config, derived, model
from mergedrv import patterns

from tests.helpers import DATA, examples

MATRIX = (DATA / "model-matrix.f887c34c.md").read_bytes()

SMALL = b"""# Things

**3 things are listed**; 1 is past `NEW`.

| State | Rows |
|---|---|
| NEW | 2 |
| DONE | 1 |
| **Total** | **3** |

| ID | State |
|---|---|
| T-1 | `NEW` |
| T-2 | `NEW` (waiting) |
| T-3 | `DONE` |
"""

SMALL_CONFIG = r"""
[[record]]
name = "T"
path = "t.md"
key = "ID"
[[record.rollup]]
heading = "Things"
group = "State"
label = "State"
count = "Rows"
[[record.count]]
pattern = '(\d+) things are listed'
[[record.count]]
pattern = '(\d+) is past `NEW`'
where = { State = "!NEW" }
"""


def record(text: str = SMALL_CONFIG) -> config.Record:
    return config.loads(text).records[0]


def worked() -> config.Record:
    from tests.checks_helpers import WORKED_CONFIG

    return config.loads(WORKED_CONFIG).records[0]


def test_the_real_matrix_is_its_own_fixed_point():
    assert derived.recompute_bytes(MATRIX, worked()) == MATRIX


def test_recompute_after_adding_rows():
    data = SMALL + b"| T-4 | `DONE` |\n| T-5 | `NEW` |\n"
    out = derived.recompute_bytes(data, record())
    assert b"**5 things are listed**; 2 is past `NEW`." in out
    assert b"| NEW | 3 |\n| DONE | 2 |\n| **Total** | **5** |" in out
    assert len(out.splitlines()) == len(data.splitlines())


def test_value_is_reads_the_leading_word():
    assert derived.value_is("ACTIVE (W4 landed)", "ACTIVE")
    assert derived.value_is("MODEL-TEXT-afmoe", "MODEL-TEXT")
    assert not derived.value_is("INVENTORIED", "INVENTORY")
    assert not derived.value_is("DONE_X", "DONE")
    assert derived.value_is("done", "DONE")


def test_where_filters_lists_negation_and_patterns():
    doc = model.parse(SMALL, "ID")
    rows = derived.Rows.of([doc])
    assert rows.count({"State": ["NEW"]}) == 2
    assert rows.count({"State": ["!NEW"]}) == 1
    assert rows.count({"State": ["NEW", "DONE"]}) == 3
    assert rows.count({"ID": ["~-[12]$"]}) == 2
    assert rows.count({"ID": ["~-[12]$"], "State": ["DONE"]}) == 0
    assert rows.count({"Missing": ["!x"]}) == 3


def test_align_sets_a_side_back_to_the_base_numbers():
    side = SMALL.replace(b"| NEW | 2 |", b"| NEW | 7 |").replace(b"**3 things", b"**9 things")
    assert derived.align(SMALL, side, record()) == SMALL
    # a side that declares other numbers is left alone
    other = SMALL.replace(b"1 is past `NEW`", b"one is past `NEW`")
    assert derived.align(SMALL, other, record()) == other


def test_recompute_never_loses_content_on_bad_input():
    for data in (b"\x00\x01", b"\xff\xfe", b"<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n", b""):
        assert derived.recompute_bytes(data, record()) == data


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.sampled_from(["NEW", "DONE", "`NEW` (x)", "GONE", "", "a|b"]), max_size=12), st.binary(max_size=40))
def test_recompute_only_rewrites_digits(states, noise):
    rows = b"".join(b"| T-%d | %s |\n" % (i, s.encode()) for i, s in enumerate(states, 10))
    data = SMALL + rows + noise
    out = derived.recompute_bytes(data, record())
    strip = lambda b: bytes(c for c in b if not 48 <= c <= 57)  # noqa: E731
    assert strip(out) == strip(data)
    again = derived.recompute_bytes(out, record())
    assert again == out


def _match_pathological():
    # catastrophic for a backtracking engine; RE2 answers in linear time
    text = "a" * 50_000 + "!"
    assert patterns.matching(r"^(a+)+$", [text, "aaa"]) == [False, True]
    assert patterns.matching(r"(\w+\s?)+$", [text, "ab cd"]) == [False, True]


def test_a_pathological_pattern_is_answered():
    _match_pathological()  # a backtracking engine would not return


@pytest.mark.perf
def test_a_pathological_pattern_is_bounded():
    start = time.perf_counter()
    _match_pathological()
    assert time.perf_counter() - start < 2


def test_unsupported_and_oversized_patterns_are_errors_not_tracebacks():
    import pytest

    with pytest.raises(patterns.PatternError, match="look-around"):
        patterns.compile(r"(?<=a)b")
    with pytest.raises(patterns.PatternError):
        patterns.compile(r"((a{100}){100}){100}")
    assert patterns.matching("x", ["x" * (patterns.MAX_TEXT + 1)]) == [None]


def test_a_bad_count_pattern_is_a_problem_and_recompute_keeps_the_file():
    bad = SMALL_CONFIG.replace(r"'(\d+) things are listed'", r"'(?<=\*\*)(\d+) things'")
    with pytest.raises(config.ConfigError, match=r":12: \[record.count\] pattern is not a valid regular expression"):
        record(bad)  # one engine: RE2 refuses it where the configuration is loaded
    rec = record()
    rec.counts[0].pattern = r"(?<=\*\*)(\d+) things"  # a Record built without loading: still no traceback
    bad = rec
    found = derived.derive(model.parse(SMALL, "ID"), bad)
    assert any("cannot be used" in p.message for p in found.problems)
    assert derived.recompute_bytes(SMALL.replace(b"| NEW | 2 |", b"| NEW | 5 |"), bad).count(b"| NEW | 2 |") == 1


_DOC = (b"# T\n\n12 rows here, 3 rows there; x 7 rows\n\n| ID | N |\n|---|---|\n| `A-1` | 5 rows 6 rows |\n| `A-2` | 9 rows |\n\n"
        b"after: 4 rows\n| x | y |\n|---|---|\n| 8 rows | 1 |\n\nend 2 rows\n2\n rows 10 rows")


@pytest.mark.parametrize("pattern", [r"(\d+) rows", r"\b(\d*) rows", r"(\d+)", r"(\d*)", r"(x?)", r"rows(\s*)(\d+)",
                                     r"(\d+)\s+rows", r"(\d+)[^x]rows", r"^(\d+)", r"(\d+) rows$", r"(?s)(\d+).rows",
                                     r"\*\*(\d+) category/target rows\*\*", r"(\d+) are past `INVENTORIED`", r"(\d)|rows"])
@pytest.mark.parametrize("tail", [b"", b"\n"])
def test_count_captures_outside_keyed_tables_are_those_of_the_whole_text(pattern: str, tail: bytes) -> None:
    # derived._captures runs a one-line pattern on the lines outside keyed tables alone: the captures
    # it keeps must be the whole text's, those that start in a keyed table left out
    data = _DOC + tail
    doc = model.parse(data, "ID")
    starts = derived._line_starts(doc)
    keyed = [(t.start, t.end) for t in doc.keyed_tables()]
    assert keyed
    compiled = patterns.compile(pattern)

    def outside(found):
        return [c for c in found if not any(s <= derived._line_of(starts, c[0]) < e for s, e in keyed)]

    whole = [(m.start(1), m.end(1), m.group(1)) for m in compiled.finditer(data) if m.start(1) >= 0]
    assert outside(list(captures.captures(compiled, pattern, data, starts, keyed))) == outside(whole)
    if pattern in (r"(\d+) rows", r"\b(\d*) rows"):
        assert captures.one_line(pattern)
    if "\\s" in pattern or "[^" in pattern or "^" in pattern or "$" in pattern or "(?" in pattern:
        assert not captures.one_line(pattern)


def test_count_captures_on_the_real_matrix_are_those_of_the_whole_text() -> None:
    from tests.checks_helpers import WORKED_CONFIG

    record = config.loads(WORKED_CONFIG).records[0]
    data = (DATA / "model-matrix.f887c34c.md").read_bytes()
    doc = model.parse(data, record.key, key_pattern=record.key_pattern)
    starts = derived._line_starts(doc)
    keyed = [(t.start, t.end) for t in doc.keyed_tables()]
    for count in record.counts:
        assert captures.one_line(count.pattern)
        compiled = patterns.compile(count.pattern)
        whole = [(m.start(1), m.end(1), m.group(1)) for m in compiled.finditer(data) if m.start(1) >= 0]
        whole = [c for c in whole if not any(s <= derived._line_of(starts, c[0]) < e for s, e in keyed)]
        assert list(captures.captures(compiled, count.pattern, data, starts, keyed)) == whole and whole
