"""Pins as counters beside a double definition (issue #12 item 5): when both
sides add the same key, the merged record holds it once (kept once, or one
double-definition conflict), so the pin both sides moved counts it once, in
the driver as in `mergedrv fix`.  Real git, the driver wired in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import git, keyed_repo

ROWS = "| ID | S |\n|---|---|\n| K-1 | a |\n| K-2 | b |\n"
CONFIG = '{top}[[record]]\nname = "K"\npath = "rec.md"\nkey = "ID"\npin = {pin}\n\n[merge]\ncell_merge = true\n{bottom}'


def _repo(tmp_path: Path) -> Path:
    repo = keyed_repo(tmp_path / "repo", CONFIG.format(pin=2, top="", bottom=""), "*.md merge=keyed\n.mergedrv.toml merge=keyed\n")
    (repo / "rec.md").write_text(ROWS)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


def _side(repo: Path, branch: str | None, row: str, extra: str) -> None:
    """Add ``row`` and move the pin 2 -> 3; ``extra`` (a comment: at the top
    on main, at the end on a branch) makes the two configurations differ
    elsewhere, so that git calls the driver on it."""
    if branch:
        git(repo, "checkout", "-qb", branch)
    (repo / "rec.md").write_text(ROWS + row)
    (repo / ".mergedrv.toml").write_text(CONFIG.format(pin=3, top=extra if branch is None else "", bottom=extra if branch else ""))
    git(repo, "commit", "-qam", f"add {row.split('|')[1].strip()}\n\nK 2 -> 3")
    if branch:
        git(repo, "checkout", "-q", "main")


def _pin(repo: Path) -> str:
    text = (repo / ".mergedrv.toml").read_text()
    assert "<<<<<<<" not in text, text
    return next(line for line in text.splitlines() if line.startswith("pin"))


@pytest.mark.parametrize(
    "ours_row, theirs_row, pin, conflicted",
    [
        ("| K-3 | same |\n", "| K-3 | same |\n", "pin = 3", False),  # the same row: kept once
        ("| K-3 | ours |\n", "| K-3 | theirs |\n", "pin = 3", True),  # a double definition: one conflict
        ("| K-3 | ours |\n", "| K-4 | theirs |\n", "pin = 4", False),  # two keys: both moves count
    ],
)
def test_merge_counts_a_key_both_sides_added_once_in_the_pin(tmp_path, ours_row, theirs_row, pin, conflicted):
    repo = _repo(tmp_path)
    _side(repo, "topic", theirs_row, "# theirs\n")
    _side(repo, None, ours_row, "# ours\n")
    proc = git(repo, "merge", "--no-edit", "topic", check=False)
    assert (proc.returncode != 0) == conflicted, proc.stdout + proc.stderr
    assert _pin(repo) == pin
    assert "# ours" in (repo / ".mergedrv.toml").read_text() and "# theirs" in (repo / ".mergedrv.toml").read_text()


@pytest.mark.parametrize(
    "ours_row, theirs_row, pin",
    [("| K-3 | same |\n", "| K-3 | same |\n", "pin = 3"), ("| K-3 | ours |\n", "| K-4 | theirs |\n", "pin = 4")],
)
def test_rebase_counts_a_key_both_sides_added_once_in_the_pin(tmp_path, ours_row, theirs_row, pin):
    repo = _repo(tmp_path)
    _side(repo, "topic", theirs_row, "# theirs\n")
    _side(repo, None, ours_row, "# ours\n")
    git(repo, "checkout", "-q", "topic")
    proc = git(repo, "rebase", "main", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _pin(repo) == pin


def test_fix_counts_a_double_definition_once(tmp_path):
    # identical configurations on both sides: git takes them without the
    # driver (pin 3); `mergedrv fix` then counts the key both added once
    import subprocess

    from tests.helpers import MERGEDRV

    repo = _repo(tmp_path)
    _side(repo, "topic", "| K-3 | theirs |\n", "")
    _side(repo, None, "| K-3 | ours |\n", "")
    git(repo, "merge", "--no-edit", "topic", check=False)
    subprocess.run([*MERGEDRV, "fix"], cwd=repo, capture_output=True, text=True)
    assert _pin(repo) == "pin = 3"


@pytest.mark.parametrize("theirs_row, pin", [("| K-3 | theirs |\n", "pin = 3"), ("| K-4 | theirs |\n", "pin = 4")])
def test_resolve_counts_a_key_both_sides_added_once_in_the_pin(tmp_path, theirs_row, pin):
    # no driver in this clone: git merges the configurations as text (both
    # pins 2 -> 3: 3) and conflicts in the record; `resolve` merges the
    # record by key and recounts the pin as the driver would
    import subprocess

    from tests.helpers import MERGEDRV

    repo = _repo(tmp_path)
    git(repo, "config", "--unset", "merge.keyed.driver")
    (repo / ".gitattributes").write_text("")
    git(repo, "commit", "-qam", "no driver")
    _side(repo, "topic", theirs_row, "# theirs\n")
    _side(repo, None, "| K-3 | ours |\n", "# ours\n")
    proc = git(repo, "merge", "--no-edit", "topic", check=False)
    assert proc.returncode != 0 and "pin = 3" in (repo / ".mergedrv.toml").read_text(), proc.stdout
    done = subprocess.run([*MERGEDRV, "resolve"], cwd=repo, capture_output=True, text=True)
    assert _pin(repo) == pin, done.stdout + done.stderr



@pytest.mark.parametrize("op", ["merge", "rebase", "cherry-pick"])
@pytest.mark.parametrize("theirs_row, pin", [("| K-3 | theirs |\n", "pin = 3"), ("| K-4 | theirs |\n", "pin = 4")])
def test_resolve_counts_a_key_both_sides_added_once_in_a_conflicted_config(tmp_path, op, theirs_row, pin):
    # no driver in this clone: both sides move the pin 2 -> 3 and add a
    # different first line to the configuration, so git conflicts on it;
    # `resolve` merges it first (pins as counters), the key both added once
    import subprocess

    from tests.helpers import MERGEDRV

    repo = _repo(tmp_path)
    git(repo, "config", "--unset", "merge.keyed.driver")
    (repo / ".gitattributes").write_text("")
    git(repo, "commit", "-qam", "no driver")
    for branch, row in (("topic", theirs_row), (None, "| K-3 | ours |\n")):
        if branch:
            git(repo, "checkout", "-qb", branch)
        (repo / "rec.md").write_text(ROWS + row)
        (repo / ".mergedrv.toml").write_text(CONFIG.format(pin=3, top=f"# {branch or 'main'}\n", bottom=""))
        git(repo, "commit", "-qam", "add a key\n\nK 2 -> 3")
        git(repo, "checkout", "-q", "main")
    if op == "merge":
        proc = git(repo, "merge", "--no-edit", "topic", check=False)
    elif op == "rebase":
        git(repo, "checkout", "-q", "topic")
        proc = git(repo, "rebase", "main", check=False)
    else:
        proc = git(repo, "cherry-pick", "topic", check=False)
    assert proc.returncode != 0 and "<<<<<<<" in (repo / ".mergedrv.toml").read_text(), proc.stdout + proc.stderr
    done = subprocess.run([*MERGEDRV, "resolve"], cwd=repo, capture_output=True, text=True)
    assert [ln for ln in (repo / ".mergedrv.toml").read_text().splitlines() if ln.startswith("pin")] == [pin], done.stdout + done.stderr


def test_resolve_merges_a_pin_conflict_counting_a_key_both_added_once(tmp_path):
    # no driver: main adds K-3 (2 -> 3), topic adds K-3 and K-4 (2 -> 4); git
    # conflicts on the pin line; `resolve` gives 2 + 1 + 2 - 1 = 4 and merges
    # the record with it, clean
    import subprocess

    from tests.helpers import MERGEDRV

    repo = _repo(tmp_path)
    git(repo, "config", "--unset", "merge.keyed.driver")
    (repo / ".gitattributes").write_text("")
    git(repo, "commit", "-qam", "no driver")
    for branch, rows, pin in (("topic", "| K-3 | same |\n| K-4 | t |\n", 4), (None, "| K-3 | same |\n", 3)):
        if branch:
            git(repo, "checkout", "-qb", branch)
        (repo / "rec.md").write_text(ROWS + rows)
        (repo / ".mergedrv.toml").write_text(CONFIG.format(pin=pin, top="", bottom=""))
        git(repo, "commit", "-qam", f"add keys\n\nK 2 -> {pin}")
        git(repo, "checkout", "-q", "main")
    proc = git(repo, "merge", "--no-edit", "topic", check=False)
    assert proc.returncode != 0, proc.stdout
    done = subprocess.run([*MERGEDRV, "resolve", "--add"], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0 and _pin(repo) == "pin = 4", done.stdout + done.stderr
    assert (repo / "rec.md").read_text() == ROWS + "| K-3 | same |\n| K-4 | t |\n"
