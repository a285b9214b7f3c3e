"""checkpoint in range mode gives `git diff --name-only`'s verdict on every non-merge commit."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from mergedrv import config, history
from tests.history_helpers import git

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_range.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_range", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("renames", [None, "false", "copies"])
def test_generated_history_matches_git_diff_name_only(tmp_path, renames):
    bench = _bench()
    path = tmp_path / "history"
    root, head = bench.generate(path, 240, seed=11)
    if renames:
        git(path, "config", "diff.renames", renames)
    cfg = config.loads(bench.CONFIG)
    reference = bench.baseline(path, cfg, root, head)
    ours, merges, _ = bench.mergedrv_verdicts(path, cfg, root, head)
    non_merges = [c for c in reference if c not in merges]
    assert len(non_merges) > 200 and len(merges) >= 5
    assert sum(reference[c] for c in non_merges) > 50  # the rule fails often enough to mean something
    assert {c: ours[c] for c in non_merges} == {c: reference[c] for c in non_merges}
    # a rename across the `when` boundary is where a plain tree diff would disagree
    crossing = 0
    for commit in non_merges:
        names = set(git(path, "diff", "--name-only", f"{commit}^", commit).stdout.split())
        tree = set(git(path, "diff", "--no-renames", "--name-only", f"{commit}^", commit).stdout.split())
        crossing += names != tree and bool(history.checkpoint(cfg, names)) != bool(history.checkpoint(cfg, tree))
    assert crossing > 0 if renames != "false" else crossing == 0
