"""Numbered keys as values (mergedrv/numbering.py): which patterns are numbered,
the next free number with the key's width, and the whole-word rewrite of a move."""

from __future__ import annotations

import pytest

from mergedrv import numbering
from mergedrv.config import loads


@pytest.mark.parametrize("pattern, numbered", [
    ("^ADR-[0-9]{4}$", True), (r"^ADR-\d+$", True), ("^(ADR-[0-9]+)$", True), ("^RFC[0-9]{3,}$", True),
    ("^MODEL-[A-Za-z0-9_.-]+$", False), ("^ADR-[0-9]{4}-[a-z]+$", False), (None, False),
    ((("ID", "^ADR-[0-9]{4}$"),), True),
])
def test_a_key_pattern_ending_in_a_run_of_digits_is_numbered(pattern, numbered):
    assert numbering.pattern_is_numbered(pattern) is numbered


def test_numbered_true_marks_a_record_whose_pattern_does_not_say_so():
    cfg = loads('[[record]]\nname = "P"\npath = "p.md"\nkey = "ID"\nnumbered = true\n\n'
                '[[record]]\nname = "Q"\npath = "q.md"\nkey = "ID"\n')
    assert [numbering.is_numbered(r) for r in cfg.records] == [True, False]


def test_the_next_free_number_is_above_the_highest_on_every_side_with_the_keys_width():
    assert numbering.next_free("ADR-0013", ["ADR-0012", "ADR-0013"], ["ADR-0013"]) == "ADR-0014"
    assert numbering.next_free("ADR-0013", ["ADR-0013", "ADR-0020"], ["OTHER-0099"]) == "ADR-0021"  # another prefix is not counted
    assert numbering.next_free("P-7", ["P-7", "P-9"]) == "P-10"
    assert numbering.next_free("ADR-X", ["ADR-0001"]) is None


def test_several_moves_take_successive_numbers_in_number_order():
    assert numbering.moves(["ADR-0014", "ADR-0013"], ["ADR-0013", "ADR-0014"], ["ADR-0013", "ADR-0014"]) == {
        "ADR-0013": "ADR-0015", "ADR-0014": "ADR-0016"}


def test_the_rewrite_replaces_whole_words_only_in_one_pass():
    text = "ADR-0013, (ADR-0013) ADR-00130 XADR-0013 ADR-0013x ADR-0014 [a](0013-use-y.md) docs/0013-use-y.md"
    new, n = numbering.rewrite(text, {"ADR-0013": "ADR-0014", "ADR-0014": "ADR-0015", "0013-use-y.md": "0014-use-y.md"})
    assert new == "ADR-0014, (ADR-0014) ADR-00130 XADR-0013 ADR-0013x ADR-0015 [a](0014-use-y.md) docs/0014-use-y.md"
    assert n == 5


def test_file_names_carry_the_key_or_its_number():
    assert numbering.renamed_name("0013-use-y.md", "ADR-0013", "ADR-0014") == "0014-use-y.md"
    assert numbering.renamed_name("ADR-0013-use-y.md", "ADR-0013", "ADR-0014") == "ADR-0014-use-y.md"
    assert numbering.renamed_name("00130-use-y.md", "ADR-0013", "ADR-0014") is None
    assert numbering.renamed_name("notes.md", "ADR-0013", "ADR-0014") is None
    assert numbering.link_targets("| [ADR-0013](docs/0013-a.md#why) | [x](https://e.org/p) |") == ["docs/0013-a.md", "https://e.org/p"]
