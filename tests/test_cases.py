"""The case corpus: tests/cases/<name>/{Base,Ours,Theirs,Expected}.md.

Each case may hold a case.toml: key (default "ID"), key_pattern, log, strict,
cell_merge, marker_size, and conflicts (the expected conflict kinds, in order);
and a mergedrv.toml, a configuration the case is merged under as the driver
merges case.toml's ``path`` (derived counts, grids, logs).  Expected
holds git's markers where a conflict is right.  Regenerate after a reviewed
behaviour change with MERGEDRV_REGEN_CASES=1 (then read the diff!).
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

CASES = sorted(p for p in (Path(__file__).parent / "cases").iterdir() if p.is_dir())


def run_case(case: Path):
    spec = {}
    if (case / "case.toml").exists():
        spec = tomllib.loads((case / "case.toml").read_text())
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
    assert sum(1 for c in CASES if c.name.startswith("fixture-")) >= 5


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_case(case):
    spec, result = run_case(case)
    expected_path = case / "Expected.md"
    if os.environ.get("MERGEDRV_REGEN_CASES"):
        expected_path.write_bytes(result.data)
    assert result.fallback is None, result.fallback
    assert result.data == expected_path.read_bytes()
    assert [c.kind for c in result.conflicts] == spec.get("conflicts", [])
    if not result.conflicts and not spec.get("log"):
        # a clean result defines no key twice and re-parses as records
        doc = model.parse_many([result.data], opts_key(spec), key_pattern=opts_pattern(spec), ragged=False)[0]  # as the merge reads it
        keys = [r.key for r in doc.rows()]
        if isinstance(spec.get("key_pattern"), str):  # group labels in the key column are not keys
            keys = [k for k in keys if re.search(spec["key_pattern"], k)]
        base_dups = {k for k in keys if keys.count(k) > 1}
        assert not base_dups or "duplicate" in case.name
