"""checkpoint in range mode gives `git diff --name-only`'s verdict on every non-merge commit,
and tree_changes lists what `git diff-tree` lists."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mergedrv import config, history
from mergedrv.git import repository
from tests.helpers import examples, git

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_range.py"


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


# --- tree_changes against `git diff-tree` -------------------------------------

# Paths that collide as file and folder ("d" and "d/x"), nest, and include a
# name that is not UTF-8.
PATHS = [b"a", b"b.md", b"d", b"d/x", b"d/y", b"d/e/z", b"d/e", b"q/\xff.md", b"q"]
MODES = ["100644", "100755", "120000", "160000"]
BLOBS = ["one\n", "two\n"]


def _consistent(entries: dict[bytes, tuple[str, int]]) -> dict[bytes, tuple[str, int]]:
    """Drop entries that sit under another entry's path (a file cannot be a folder)."""
    return {p: v for p, v in entries.items() if not any(p.startswith(o + b"/") for o in entries)}


trees = st.dictionaries(st.sampled_from(PATHS), st.tuples(st.sampled_from(MODES), st.integers(0, 1)), max_size=7).map(_consistent)


def _write_tree(repo: Path, entries: dict[bytes, tuple[str, int]], blobs: list[str], n: int) -> str:
    lines = b""
    for path, (mode, content) in entries.items():
        sha = ("%040x" % (content + 1)) if mode == "160000" else blobs[content]
        lines += f"{mode} {sha}\t".encode() + path + b"\0"
    env = {**os.environ, "GIT_INDEX_FILE": str(repo / ".git" / f"index-{n}")}
    subprocess.run(["git", "update-index", "-z", "--index-info"], cwd=repo, input=lines, env=env, check=True)
    return subprocess.run(["git", "write-tree"], cwd=repo, env=env, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture(scope="module")
def tree_repo(tmp_path_factory):
    path = tmp_path_factory.mktemp("trees")
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    blobs = [subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=path, input=b.encode(), capture_output=True,
                            check=True).stdout.decode().strip() for b in BLOBS]
    return path, blobs


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(old=trees, new=trees)
def test_tree_changes_lists_what_git_diff_tree_lists(tree_repo, old, new):
    """Modes, symlinks, submodules, a file replaced by a folder and a name
    that is not UTF-8: the same paths and status letters as git."""
    path, blobs = tree_repo
    a, b = _write_tree(path, old, blobs, 1), _write_tree(path, new, blobs, 2)
    raw = subprocess.run(["git", "diff-tree", "-r", "--no-renames", "--name-status", "-z", a, b], cwd=path,
                         capture_output=True, check=True).stdout.split(b"\0")
    expected = {raw[i + 1].decode("utf-8", "surrogateescape"): raw[i].decode() for i in range(0, len(raw) - 1, 2)}
    r = repository(path)
    assert history.tree_changes(r[a], r[b]) == expected
    empty = subprocess.run(["git", "diff-tree", "-r", "--name-only", "-z", history.EMPTY_TREE, b], cwd=path,
                           capture_output=True, check=True).stdout.split(b"\0")
    assert history.tree_changes(None, r[b]) == {p.decode("utf-8", "surrogateescape"): "A" for p in empty if p}
