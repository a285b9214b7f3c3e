"""The case corpus: tests/cases/<group>/<name>/{Base,Ours,Theirs,Expected}.md.

Groups: keyed/ (tables by key), log/ (append-only logs), duplicates/ (a key
defined twice), detached/ (rows outside their table), groups/ (group and
ragged rows), prose_log/ (logs in prose), fixtures/ (cut from real files),
and known-failing/ (what we cannot merge yet: Expected.md is the wanted
result, run as a strict xfail).  Names are unique across groups; a test's id
is group/name.  How to add one: docs/contributing.md.

Each case may hold a case.toml: key (default "ID"), key_pattern, log, strict,
cell_merge, marker_size, conflicts (the expected conflict kinds, in order),
fallback (text the reason must contain: the merge is git's text merge) and,
in known-failing/, why; and a mergedrv.toml, a configuration the case is
merged under as the driver merges case.toml's ``path`` (derived counts,
grids, logs).  Expected holds git's markers where a conflict is right.
Regenerate after a reviewed behaviour change with MERGEDRV_REGEN_CASES=1
(then read the diff!).
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import pytest

from mergedrv import model
from mergedrv.merge import Options, merge
from mergedrv.merge import Markers
from tests.fuzz_gen import git_merge_file

ROOT = Path(__file__).resolve().parents[1] / "cases"
KNOWN_FAILING = "known-failing"


def _case_dirs() -> list[Path]:
    """Every folder with a Base.md, in name order (the fingerprint's order)."""
    return sorted((p.parent for p in ROOT.glob("*/*/Base.md")), key=lambda p: p.name)


ALL_CASES = _case_dirs()
CASES = [p for p in ALL_CASES if p.parent.name != KNOWN_FAILING]
FAILING = [p for p in ALL_CASES if p.parent.name == KNOWN_FAILING]


def case_id(case: Path) -> str:
    return f"{case.parent.name}/{case.name}"


def spec_of(case: Path) -> dict:
    return tomllib.loads((case / "case.toml").read_text()) if (case / "case.toml").exists() else {}


def run_case(case: Path):
    spec = spec_of(case)
    markers = Markers(spec.get("marker_size", 7), "base", "ours", "theirs")
    key = spec.get("key", "ID")
    opts = Options(
        markers=markers,
        key=None if spec.get("log") else tuple(key) if isinstance(key, list) else key,
        log=spec.get("log", False),
        strict_additions=spec.get("strict", False),
        cell_merge=spec.get("cell_merge", True),
    )
    pattern = spec.get("key_pattern")
    opts.key_pattern = tuple(pattern.items()) if isinstance(pattern, dict) else pattern
    base, ours, theirs = ((case / f"{n}.md").read_bytes() for n in ("Base", "Ours", "Theirs"))
    if (case / "mergedrv.toml").exists():  # a configuration: the driver's merge for spec["path"]
        from mergedrv import config
        from mergedrv.merge import merge_path

        cfg = config.loads((case / "mergedrv.toml").read_text())
        return spec, merge_path(spec["path"], base, ours, theirs, cfg, markers)
    return spec, merge(base, ours, theirs, opts)


def opts_key(spec):
    key = spec.get("key", "ID")
    return tuple(key) if isinstance(key, list) else key


def opts_pattern(spec):
    pattern = spec.get("key_pattern")
    return tuple(pattern.items()) if isinstance(pattern, dict) else pattern


def test_corpus_is_large_enough():
    assert len(CASES) >= 30
    assert sum(1 for c in CASES if c.parent.name == "fixtures") >= 5


def test_case_names_are_unique_across_groups():
    names = [c.name for c in ALL_CASES]
    assert sorted({n for n in names if names.count(n) > 1}) == []
    assert not [p for p in ROOT.iterdir() if p.is_dir() and (p / "Base.md").exists()], "a case outside a group"


def check_case(case: Path) -> None:
    """The merge of ``case`` gives Expected.md, its conflicts and fallback."""
    spec, result = run_case(case)
    expected_path = case / "Expected.md"
    if os.environ.get("MERGEDRV_REGEN_CASES") and case.parent.name != KNOWN_FAILING:
        expected_path.write_bytes(result.data)
    if "fallback" in spec:
        assert result.fallback is not None and spec["fallback"] in result.fallback, result.fallback
        base, ours, theirs = ((case / f"{n}.md").read_bytes() for n in ("Base", "Ours", "Theirs"))
        assert result.data == git_merge_file(base, ours, theirs, spec.get("marker_size", 7))[0]
    else:
        assert result.fallback is None, result.fallback
    assert result.data == expected_path.read_bytes()
    assert [c.kind for c in result.conflicts] == spec.get("conflicts", [])
    if not result.conflicts and not spec.get("log") and "fallback" not in spec:
        # a clean result defines no key twice and re-parses as records
        doc = model.parse_many([result.data], opts_key(spec), key_pattern=opts_pattern(spec), ragged_keyless=True)[0]  # as the merge reads it
        keys = [r.key for r in doc.rows()]
        if isinstance(spec.get("key_pattern"), str):  # group labels in the key column are not keys
            keys = [k for k in keys if re.search(spec["key_pattern"], k)]
        base_dups = {k for k in keys if keys.count(k) > 1}
        assert not base_dups or "duplicate" in case.name


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case):
    check_case(case)


def test_known_failing_cases_say_why():
    for case in FAILING:
        assert spec_of(case).get("why"), f"{case_id(case)}: case.toml needs why = \"...\""


@pytest.mark.parametrize("case", FAILING, ids=case_id)
@pytest.mark.xfail(strict=True, reason="a known gap (case.toml's why); passing now? move it to its group")
def test_known_failing_case(case):
    check_case(case)
