"""Pins as counters when git replays commits (issue #12 item 5): where git
lets the driver know the revisions (a range cherry-pick's sequencer todo, a
rebase's done list or `rebase --apply`'s original commit, `git pull
--rebase`) a key both sides added counts once; where it does not (a single
cherry-pick before git 2.44, `git am -3`) the driver adds both moves, says
so on stderr, and `mergedrv check` / `mergedrv fix` correct the pin after.
Real git, the driver wired in."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import MERGEDRV, git
from tests.merge.test_pins_doubled import ROWS, _pin, _repo, _side

SAME, OTHER = "| K-3 | theirs |\n", "| K-4 | theirs |\n"
CASES = [(SAME, "pin = 3"), (OTHER, "pin = 4")]  # a key both sides added: once; two keys: both moves


def _diverged(tmp_path: Path, theirs_row: str, ours_row: str = "| K-3 | ours |\n") -> Path:
    """main adds ``ours_row`` (pin 2 -> 3, a comment on top); topic has a
    commit touching only other.md, then one adding ``theirs_row`` (pin
    2 -> 3, a comment at the end): both change the configuration, so git
    asks the driver.  main is checked out."""
    from tests.merge.test_pins_doubled import CONFIG

    repo = _repo(tmp_path)
    git(repo, "checkout", "-qb", "topic")
    (repo / "other.md").write_text("x\n")
    git(repo, "add", "other.md")
    git(repo, "commit", "-qm", "prep")
    (repo / "rec.md").write_text(ROWS + theirs_row)
    (repo / ".mergedrv.toml").write_text(CONFIG.format(pin=3, top="", bottom="# theirs\n"))
    git(repo, "commit", "-qam", "add a key\n\nK 2 -> 3")
    git(repo, "checkout", "-q", "main")
    _side(repo, None, ours_row, "# ours\n")
    return repo


def _labels_filled() -> bool:
    """Whether this git fills %S %X %Y for the driver (2.44 and later)."""
    out = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout
    nums = [int(n) for n in out.split()[2].split(".")[:2]]
    return tuple(nums) >= (2, 44)


def _run(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*MERGEDRV, *args], cwd=repo, capture_output=True, text=True)


@pytest.mark.parametrize("theirs_row, pin", CASES)
def test_a_range_cherry_pick_counts_a_key_both_added_once(tmp_path, theirs_row, pin):
    repo = _diverged(tmp_path, theirs_row)
    proc = git(repo, "cherry-pick", "main..topic", check=False)  # prep, then the key
    if theirs_row == SAME:  # a double definition: the record conflicts, the pin is merged
        assert proc.returncode != 0, proc.stdout + proc.stderr
    else:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _pin(repo) == pin, proc.stderr
    assert "without the record's keys" not in proc.stderr


@pytest.mark.parametrize("how", [["rebase", "--apply", "main"], ["rebase", "--merge", "main"], ["pull", "--rebase", "-q", ".", "main"]])
def test_a_rebase_counts_a_key_both_added_once(tmp_path, how):
    repo = _diverged(tmp_path, "| K-3 | ours |\n")  # the same row as main's: kept once, no conflict
    git(repo, "checkout", "-q", "topic")
    proc = git(repo, *how, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _pin(repo) == "pin = 3", proc.stderr
    assert "without the record's keys" not in proc.stderr


def _single_pick(repo: Path) -> subprocess.CompletedProcess:
    return git(repo, "cherry-pick", "topic", check=False)


def _am(repo: Path) -> subprocess.CompletedProcess:
    patch = git(repo, "format-patch", "-1", "--stdout", "topic").stdout
    return git(repo, "am", "-3", "-q", check=False, input=patch)


@pytest.mark.parametrize("replay", [_single_pick, _am], ids=["cherry-pick", "am-3"])
def test_without_revisions_both_moves_count_and_stderr_says_so_then_fix_sets_the_pin(tmp_path, replay):
    repo = _diverged(tmp_path, "| K-3 | ours |\n")  # the same row: git keeps it once
    proc = replay(repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    if replay is _single_pick and _labels_filled():  # git 2.44+: the labels name the commit
        assert _pin(repo) == "pin = 3" and "without the record's keys" not in proc.stderr, proc.stderr
        return
    assert _pin(repo) == "pin = 4"  # both moves: git gave no way to read the keys
    assert "K: counted without the record's keys" in proc.stderr and "mergedrv fix" in proc.stderr, proc.stderr
    check = _run(repo, "check", "--all")  # committed by the replay: HEAD has it, so it is listed as inherited
    assert check.returncode == 1 and "K has 3 keys but its pin is 4" in check.stdout + check.stderr, check.stdout + check.stderr
    fixed = _run(repo, "fix")
    assert _pin(repo) == "pin = 3", fixed.stdout + fixed.stderr
    assert "K pin: 4 -> 3" in fixed.stdout, fixed.stdout
    assert _run(repo, "check").returncode == 0
    again = _run(repo, "fix")  # done once: nothing left to do
    assert "pin" not in again.stdout and _pin(repo) == "pin = 3"


@pytest.mark.parametrize("replay", [_single_pick, _am], ids=["cherry-pick", "am-3"])
def test_without_revisions_two_keys_count_both_moves_and_fix_keeps_them(tmp_path, replay):
    repo = _diverged(tmp_path, OTHER)
    proc = replay(repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    noted = "counted without the record's keys" in proc.stderr
    assert _pin(repo) == "pin = 4" and noted != (replay is _single_pick and _labels_filled()), proc.stderr
    assert _run(repo, "check").returncode == 0
    fixed = _run(repo, "fix")
    assert _pin(repo) == "pin = 4" and "pin" not in fixed.stdout, fixed.stdout


@pytest.mark.parametrize("theirs_row, pin", CASES)
def test_labels_of_git_2_44_name_the_picked_commit(tmp_path, theirs_row, pin):
    # git 2.44 and later fill %S %X %Y: a cherry-pick labels theirs
    # `abc1234 (subject)` and the base `parent of abc1234 (subject)`; the
    # driver reads the commit from them, checked against the versions it got
    repo = _diverged(tmp_path, theirs_row)
    picked = git(repo, "rev-parse", "--short", "topic").stdout.strip()
    label = f"{picked} (add a key)"
    d = tmp_path / "in"
    d.mkdir()
    for name, rev in (("O", "topic^"), ("A", "HEAD"), ("B", "topic")):
        (d / name).write_bytes(subprocess.run(["git", "show", f"{rev}:.mergedrv.toml"], cwd=repo, capture_output=True, check=True).stdout)
    args = ["merge", str(d / "O"), str(d / "A"), str(d / "B"), "-p", ".mergedrv.toml", "-l", "7", "-s", f"parent of {label}", "-x", "HEAD", "-y", label]
    done = _run(repo, *args)
    assert done.returncode == 0, done.stderr
    assert [ln for ln in (d / "A").read_text().splitlines() if ln.startswith("pin")] == [pin]
    assert "without the record's keys" not in done.stderr
    # a label that names a commit whose versions are not these: not trusted
    (d / "A").write_bytes(subprocess.run(["git", "show", "HEAD:.mergedrv.toml"], cwd=repo, capture_output=True, check=True).stdout)
    base = git(repo, "rev-parse", "--short", "main~1").stdout.strip()
    wrong = _run(repo, *args[:-4], "-s", f"parent of {base} (base)", "-x", "HEAD", "-y", f"{base} (base)")
    assert [ln for ln in (d / "A").read_text().splitlines() if ln.startswith("pin")] == ["pin = 4"]
    assert "without the record's keys" in wrong.stderr


@pytest.mark.parametrize("after", ["resolve", "fix"])
def test_a_single_cherry_pick_that_stopped_counts_the_key_once_on_resolve_or_fix(tmp_path, after):
    # a double definition stops the pick; CHERRY_PICK_HEAD names the commit
    # now, so `resolve` (or `fix`) counts the key both sides added once
    repo = _diverged(tmp_path, SAME)
    proc = _single_pick(repo)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    if _labels_filled():
        assert _pin(repo) == "pin = 3"
        return
    assert _pin(repo) == "pin = 4" and "counted without the record's keys" in proc.stderr, proc.stderr
    done = _run(repo, after)
    assert _pin(repo) == "pin = 3", done.stdout + done.stderr


@pytest.mark.parametrize("single", [False, True], ids=["range", "single"])
def test_a_revert_counts_a_key_both_sides_brought_back_once(tmp_path, single):
    # X removes K-2 (pin 2 -> 1), a later commit brings K-2 back (1 -> 2);
    # reverting X brings K-2 back too: one key, so the pin is 2, not 3.  In
    # a range the sequencer's todo names X; alone (before git 2.44) nothing
    # does: 3, a note, and `mergedrv fix` sets 2
    from tests.merge.test_pins_doubled import CONFIG

    repo = _repo(tmp_path)
    (repo / "rec.md").write_text("| ID | S |\n|---|---|\n| K-1 | a |\n")
    (repo / ".mergedrv.toml").write_text(CONFIG.format(pin=1, top="", bottom="# x\n"))
    git(repo, "commit", "-qam", "retire K-2\n\nK 2 -> 1")
    (repo / "other.md").write_text("x\n")
    git(repo, "add", "other.md")
    git(repo, "commit", "-qm", "other")
    (repo / "rec.md").write_text(ROWS)
    (repo / ".mergedrv.toml").write_text(CONFIG.format(pin=2, top="# ours\n", bottom="# x\n"))
    git(repo, "commit", "-qam", "K-2 back\n\nK 1 -> 2")
    proc = git(repo, "revert", "--no-edit", *(["HEAD~2"] if single else ["HEAD~1", "HEAD~2"]), check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    if single and not _labels_filled():
        assert _pin(repo) == "pin = 3" and "counted without the record's keys" in proc.stderr, proc.stderr
        assert "K has 2 keys but its pin is 3" in _run(repo, "check").stdout
        fixed = _run(repo, "fix")
        assert "K pin: 3 -> 2" in fixed.stdout, fixed.stdout + fixed.stderr
    assert _pin(repo) == "pin = 2", proc.stderr
    assert "without the record's keys" not in proc.stderr or single


def test_a_range_cherry_pick_continued_after_a_stop_counts_the_key_once(tmp_path):
    # the first pick stops on a cell both sides changed; after
    # `cherry-pick --continue` the next pick (K-3, added on both sides) is
    # still read from the sequencer's todo
    from tests.merge.test_pins_doubled import CONFIG

    repo = _repo(tmp_path)
    git(repo, "checkout", "-qb", "topic")
    (repo / "rec.md").write_text(ROWS.replace("| a |", "| t |"))
    git(repo, "commit", "-qam", "t1")
    (repo / "rec.md").write_text(ROWS.replace("| a |", "| t |") + "| K-3 | ours |\n")
    (repo / ".mergedrv.toml").write_text(CONFIG.format(pin=3, top="", bottom="# theirs\n"))
    git(repo, "commit", "-qam", "t2\n\nK 2 -> 3")
    git(repo, "checkout", "-q", "main")
    (repo / "rec.md").write_text(ROWS.replace("| a |", "| m |") + "| K-3 | ours |\n")
    (repo / ".mergedrv.toml").write_text(CONFIG.format(pin=3, top="# ours\n", bottom=""))
    git(repo, "commit", "-qam", "m\n\nK 2 -> 3")
    assert git(repo, "cherry-pick", "main..topic", check=False).returncode != 0
    (repo / "rec.md").write_text(ROWS.replace("| a |", "| mt |") + "| K-3 | ours |\n")
    git(repo, "add", "rec.md")
    proc = git(repo, "-c", "core.editor=true", "cherry-pick", "--continue", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _pin(repo) == "pin = 3", proc.stderr
    assert "without the record's keys" not in proc.stderr


def test_resolve_after_git_am_leaves_the_pin_to_fix(tmp_path):
    # no driver: `git am -3` conflicts on the configuration (both sides add
    # a first line) and names no commit; `resolve` adds both moves and says
    # so, and `mergedrv fix` after `git am --continue` counts K-3 once
    from tests.merge.test_pins_doubled import CONFIG

    repo = _repo(tmp_path)
    git(repo, "config", "--unset", "merge.keyed.driver")
    (repo / ".gitattributes").write_text("")
    git(repo, "commit", "-qam", "no driver")
    git(repo, "checkout", "-qb", "topic")
    (repo / "rec.md").write_text(ROWS + "| K-3 | ours |\n")
    (repo / ".mergedrv.toml").write_text(CONFIG.format(pin=3, top="# topic\n", bottom=""))
    git(repo, "commit", "-qam", "add a key\n\nK 2 -> 3")
    git(repo, "checkout", "-q", "main")
    (repo / "rec.md").write_text(ROWS + "| K-3 | ours |\n")
    (repo / ".mergedrv.toml").write_text(CONFIG.format(pin=3, top="# main\n", bottom=""))
    git(repo, "commit", "-qam", "add a key\n\nK 2 -> 3")
    patch = git(repo, "format-patch", "-1", "--stdout", "topic").stdout
    assert git(repo, "am", "-3", check=False, input=patch).returncode != 0
    done = _run(repo, "resolve")
    assert "counted without the record's keys" in done.stderr, done.stdout + done.stderr
    text = (repo / ".mergedrv.toml").read_text()
    assert "pin = 4" in text
    (repo / ".mergedrv.toml").write_text(text.replace(text[: text.index("[[record]]")], "# main\n# topic\n"))
    git(repo, "add", "-A")
    proc = git(repo, "am", "--continue", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fixed = _run(repo, "fix")
    assert _pin(repo) == "pin = 3", fixed.stdout + fixed.stderr
