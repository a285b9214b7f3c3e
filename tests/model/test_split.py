"""`blocks.split`: a version's structure from a version parsed before it, the
lines between two shared headings parsed alone, is the structure a whole
parse finds: on the real state log and on generated sections."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mergedrv import model
from mergedrv.model import blocks

from tests.helpers import DATA, examples
from tests.model.test_model import markdownish


def shape(s):
    return ([(t.header, t.delimiter, list(t.rows), t.column, t.has_error) for t in s.tables], s.headings, s.error_lines)


def after(old: bytes, new: bytes):
    """(the structure of ``new`` parsed after ``old`` with one cache, whether it was split)."""
    cache = model.ParseCache()
    blocks.structures([model.split_lines(old)], cache=cache)
    got = blocks.structures([model.split_lines(new)], cache=cache)[0]
    return got, cache.first is None


def whole(data: bytes):
    return blocks.structures([model.split_lines(data)])[0]


STATE = (DATA / "state.trimmed.d85906ae.md").read_bytes()
ENTRY = b"\n## 2026-07-25 - a new entry\n\nText of the entry.\n\n| ID | State |\n|---|---|\n| `MODEL-X` | DONE |\n"


def test_an_entry_appended_to_the_real_state_log_is_split_and_reads_as_a_whole_parse():
    new = STATE + ENTRY
    got, split = after(STATE, new)
    assert split
    assert shape(got) == shape(whole(new))
    assert got.tables and got.tables[-1].header == len(model.split_lines(new)) - 3  # the appended table is found


def test_a_section_edited_in_the_middle_is_split_and_reads_as_a_whole_parse():
    lines = model.split_lines(STATE)
    heads = [h for h in whole(STATE).headings if lines[h].startswith(b"## ")]
    at = heads[len(heads) // 2] + 2
    new = b"".join(lines[:at] + [b"| A | B |\n", b"|---|---|\n", b"| 1 | 2 | 3 |\n", b"\n"] + lines[at:])
    got, split = after(STATE, new)
    assert split
    assert shape(got) == shape(whole(new))


def test_a_fence_opened_in_the_middle_reaches_past_the_lower_heading():
    """An unclosed fence makes every heading below it code: the lower cut is
    refused, and the rest is parsed with the fence."""
    lines = model.split_lines(STATE + ENTRY)
    heads = [h for h in whole(STATE).headings if lines[h].startswith(b"## ")]
    at = heads[len(heads) // 2] + 2
    new = b"".join(lines[:at] + [b"```\n", b"\n"] + lines[at:])
    got, _ = after(STATE + ENTRY, new)
    assert shape(got) == shape(whole(new))
    assert not got.tables or got.tables[-1].header < at  # the appended table is inside the fence now


def _sections(draw, n: int) -> list[bytes]:
    return [b"## section %d\n\n" % i + draw(markdownish()) + b"\n\n" for i in range(n)]


@st.composite
def edited(draw):
    """(old, new): sections of generated markdown, one replaced, inserted or appended."""
    old = _sections(draw, draw(st.integers(2, 6)))
    new = list(old)
    at = draw(st.integers(0, len(new)))
    piece = b"## new\n\n" + draw(markdownish()) + b"\n\n"
    if at < len(new) and draw(st.booleans()):
        new[at] = piece
    else:
        new.insert(at, piece)
    head = draw(st.sampled_from([b"", b"# Log\n\n", b"<!--\n\n", b"```\n\n", b"- item\n\n"]))
    return head + b"".join(old), head + b"".join(new)


@settings(max_examples=examples(300), deadline=None)
@given(edited())
def test_split_reads_generated_sections_as_a_whole_parse(pair):
    old, new = pair
    try:
        model.check_modelable(old)
        model.check_modelable(new)
    except model.Unmodelable:
        return
    least = blocks.SPLIT_MIN
    blocks.SPLIT_MIN = 4  # small documents split too
    try:
        got, _ = after(old, new)
    finally:
        blocks.SPLIT_MIN = least
    assert shape(got) == shape(whole(new))


def test_a_small_document_split_on_its_headings_reads_as_a_whole_parse():
    """(the property above, on a document that must split: a section edited between two others)"""
    old = b"".join(b"## s%d\n\n| A | B |\n|---|---|\n| %d | x |\n\ntext\n\n" % (i, i) for i in range(6))
    new = old.replace(b"| 3 | x |\n\ntext\n", b"| 3 | x |\n\nother text\n\n| C |\n|---|\n| 1 | 2 |\n")
    least = blocks.SPLIT_MIN
    blocks.SPLIT_MIN = 4
    try:
        got, split = after(old, new)
    finally:
        blocks.SPLIT_MIN = least
    assert split and shape(got) == shape(whole(new))


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from([b"## h\n", b"\n", b"text\n", b"# top\n", b"##no\n", b"| a |\n"]), min_size=1, max_size=40), st.data())
def test_the_cuts_nearest_the_change_are_those_of_every_cut(lines, data):
    # blocks.cuts_around looks from the changed lines outwards; it must pick what the nearest of all cuts is
    headings = sorted(data.draw(st.sets(st.integers(0, len(lines) - 1))))
    top = data.draw(st.integers(0, len(lines)))
    tail = data.draw(st.integers(0, len(lines)))
    cuts = [h for h in headings if blocks._cut_at(lines, h)]
    want = (max((h for h in cuts if h < top), default=0), min((h for h in cuts if h > tail), default=None))
    assert blocks.cuts_around(lines, headings, top, tail) == want
