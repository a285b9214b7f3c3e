"""patterns: RE2 matching over many texts equals matching each one; the
required prefix of a pattern is a true prefix of every match."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergedrv import patterns
from tests.helpers import examples

FRAGMENTS = ["^", "$", "MODEL-", "A", "b?", "c*", "d+", "e{0,2}", "[a-z]+", "\\d", "(x|y)", "|", ".", "-", "_", "`", "\\s"]
patterns_ = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=6).map("".join)
texts = st.lists(st.text(alphabet="MODEL-Abcdexy1_` \u00a0\u00e9", max_size=12), max_size=12)


def _valid(pattern: str) -> bool:
    try:
        patterns.compile(pattern)
    except patterns.PatternError:
        return False
    return True


@settings(max_examples=examples(300), deadline=None)
@given(pattern=patterns_, items=texts)
def test_matching_many_equals_searching_each(pattern, items):
    if not _valid(pattern):
        return
    want = [patterns.search(pattern, t) is not None for t in items]
    assert patterns.matching(pattern, items) == want
    assert patterns.matching(pattern, [t.encode("utf-8") for t in items]) == want


@settings(max_examples=examples(300), deadline=None)
@given(pattern=patterns_, items=texts)
def test_every_match_starts_with_the_required_prefix(pattern, items):
    if not _valid(pattern):
        return
    prefix = patterns.required_prefix(pattern)
    for t in items:
        if patterns.search(pattern, t) is not None:
            assert t.startswith(prefix), (pattern, t, prefix)


@pytest.mark.parametrize("pattern, prefix", [
    ("^MODEL-[A-Za-z0-9_.-]+$", "MODEL-"),
    ("^ROAD-V1-[A-Z0-9-]+$", "ROAD-V1-"),
    ("^MODELS?-x", "MODEL"),
    ("^AB*", "A"),
    ("^AB+", "AB"),
    ("^A|^B", ""),
    ("MODEL-", ""),
    ("(?i)^model-", ""),
    ("^\\QMODEL\\E", ""),
])
def test_required_prefix(pattern, prefix):
    assert patterns.required_prefix(pattern) == prefix


def test_too_long_texts_are_none_and_empty_input_is_fine():
    assert patterns.matching("x", ["x" * (patterns.MAX_TEXT + 1), "x"]) == [None, True]
    assert patterns.matching("é", ["é" * patterns.MAX_TEXT]) == [True]  # characters, not bytes
    assert patterns.matching(".*", []) == []
    assert patterns.matching(".*", ["x" * (patterns.MAX_TEXT + 1)]) == [None]
