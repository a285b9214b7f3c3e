"""bench/replay_merges.py, the replay of a repository's real merges: its
classes, and a replay of a small generated history (real git) with a given
configuration and with init's (empty) proposal."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.helpers import commit, git

BENCH = Path(__file__).resolve().parents[1] / "bench" / "replay_merges.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("replay_merges", BENCH)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["replay_merges"] = mod
    spec.loader.exec_module(mod)
    return mod


KEPT, OTHER, GIT = b"| a |\n| b |\n", b"| b |\n| a |\n", b"<<<<<<< ours\n"


@pytest.mark.parametrize("git_clean, git_out, md_clean, md_out, cls", [
    (True, KEPT, True, KEPT, "same"),
    (False, GIT, False, GIT, "same"),
    (True, KEPT, True, KEPT.replace(b"\n", b"  \r\n"), "same"),  # trailing whitespace only
    (False, GIT, True, KEPT, "WIN"),
    (True, KEPT, False, GIT, "WORSE"),
    (True, KEPT, True, OTHER, "WRONG"),
    (True, OTHER, True, KEPT, "better"),
    (False, GIT, True, OTHER, "review-clean"),
    (True, OTHER, True, b"| c |\n", "review-both"),
    (True, OTHER, False, GIT, "review-confl"),
    (False, GIT, False, b"<<<<<<< other\n", "other-confl"),
])
def test_classes(bench, git_clean, git_out, md_clean, md_out, cls):
    assert bench.classify(git_clean, git_out, md_clean, md_out, KEPT) == cls


def test_norm_drops_only_trailing_whitespace(bench):
    assert bench.norm(b"| a |  \r\n| b |\t\n\n\n") == bench.norm(b"| a |\n| b |")
    assert bench.norm(b"| a  | b |\n") != bench.norm(b"| a | b |\n")
    assert bench.norm(b"x\n\ny\n") != bench.norm(b"x\ny\n")


TABLE = "# Plugins\n\n| Name | Repo |\n|---|---|\n{}\nEnd.\n"


def rows(*names: str) -> str:
    return "\n".join(f"| {n} | r/{n} |" for n in names)


def merged(repo: Path, branch: str, kept: str | None) -> None:
    """Merge ``branch`` into main, keeping ``kept`` as README.md (None: git's clean result)."""
    git(repo, "merge", "-q", "--no-ff", "--no-commit", branch, check=False)
    if kept is not None:
        (repo / "README.md").write_text(kept)
        git(repo, "add", "README.md")
    git(repo, "commit", "-q", "--no-edit")


def history(root: Path) -> Path:
    """Three merges of README.md: rows both sides appended (git conflicts,
    the maintainer keeps both: a WIN), rows changed far apart (clean for
    both), and both sides' rows at one place kept in another order than
    the driver's (review-clean)."""
    repo = root / "clone"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "a@b.c")
    git(repo, "config", "user.name", "A")
    names = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta"]
    commit(repo, "base", {"README.md": TABLE.format(rows(*names))})
    steps = [
        lambda ns: (ns + ["ours1"], ns + ["theirs1"], ns + ["ours1", "theirs1"]),
        lambda ns: (["ALPHA"] + ns[1:], ns[:-1] + ["ETA"], None),
        lambda ns: (ns + ["o2"], ns + ["t2"], ns + ["t2", "o2"]),
    ]
    for n, step in enumerate(steps):
        ours, theirs, kept = step(names)
        git(repo, "checkout", "-q", "-b", f"side{n}")
        commit(repo, f"theirs {n}", {"README.md": TABLE.format(rows(*theirs))})
        git(repo, "checkout", "-q", "main")
        commit(repo, f"ours {n}", {"README.md": TABLE.format(rows(*ours))})
        merged(repo, f"side{n}", None if kept is None else TABLE.format(rows(*kept)))
        names = kept or ["ALPHA"] + names[1:-1] + ["ETA"]
    return repo


def test_replay_with_a_configuration(bench, tmp_path):
    repo = history(tmp_path)
    cfg = tmp_path / "cfg.toml"
    cfg.write_text('[[record]]\nname = "P"\npath = "README.md"\nkey = "Name"\n')
    report = bench.replay(repo, config=str(cfg))
    assert report["merges"] == 3 and report["file_merges"] == 3 and report["declared"] == 3
    got = {r["class"] for r in report["rows"]}
    assert report["counts"]["WIN"] == 1 and report["counts"]["same"] == 1 and report["counts"]["review-clean"] == 1, got
    win = next(r for r in report["rows"] if r["class"] == "WIN")
    assert win["exact"] and not win["git_clean"]
    # the driver started as git starts it gives the same classes
    assert [r["class"] for r in bench.replay(repo, config=str(cfg), process=True)["rows"]] == [r["class"] for r in report["rows"]]


def test_replay_with_inits_proposal_and_the_command(bench, tmp_path, capsys):
    repo = history(tmp_path)
    # one proposal per first parent: none before any merge joined rows (the
    # oldest merge is git's), then README.md keyed by Name
    report = bench.replay(repo)
    assert report["proposals"] == 3
    assert [(r["declared"], r["class"]) for r in report["rows"]] == [(True, "review-clean"), (True, "same"), (False, "same")]
    at_head = bench.replay(repo, at_head=True)
    assert at_head["proposals"] == 1 and at_head["declared"] == 3 and at_head["counts"]["WIN"] == 1
    assert not (tmp_path / "clone" / ".mergedrv.toml").exists()
    assert git(repo, "worktree", "list").stdout.count("\n") == 1  # its worktree removed
    cfg = tmp_path / "cfg.toml"
    cfg.write_text('[[record]]\nname = "P"\npath = "README.md"\nkey = "Name"\n')
    assert bench.main([str(repo), "--config", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert "| 1 | 1 | 0 | 0 | 0 | 1 | 0 | 0 | 0 |" in out and "review-clean" in out
    cfg.write_text("[[record]\n")
    assert bench.main([str(repo), "--config", str(cfg)]) == 2
    assert bench.main([str(tmp_path / "nowhere")]) == 2


def test_replay_of_a_folder_of_agendas_with_inits_proposal(bench, tmp_path):
    """One agenda a week, people adding themselves on parallel branches: from
    the third agenda on, init's glob record (keys per file) declares the agenda
    each merge is about, and every merge git conflicted on is a WIN."""
    from tests.agenda_helpers import agenda_history

    repo = agenda_history(tmp_path / "clone", weeks=4, seed=3)
    report = bench.replay(repo)
    counts = report["counts"]
    assert counts["WORSE"] == counts["WRONG"] == 0
    declared = [r for r in report["rows"] if r["declared"]]
    assert declared and all(r["class"] in ("WIN", "other-confl") for r in declared), [r["class"] for r in declared]
    assert counts["WIN"] >= 4 and all(r["exact"] for r in report["rows"] if r["class"] == "WIN")
