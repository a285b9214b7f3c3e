"""`mergedrv merge`: git's merge-driver contract, run as a real process."""

from __future__ import annotations

import io
import os
import subprocess
from contextlib import redirect_stderr

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mergedrv.commands import merge as driver

from tests.helpers import MERGEDRV, examples

BASE = b"# R\n\n| ID | v |\n|---|---|\n| `a` | 1 |\n| `b` | 2 |\n\nEnd.\n"
CONFIG = '[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\n'


def setup(tmp_path, base, ours, theirs, config=CONFIG):
    for name, data in (("O.md", base), ("A.md", ours), ("B.md", theirs)):
        (tmp_path / name).write_bytes(data)
    if config is not None:
        (tmp_path / ".mergedrv.toml").write_text(config)


def run(tmp_path, *extra, path="records.md"):
    cmd = [*MERGEDRV, "merge", "O.md", "A.md", "B.md", "-p", path, *extra]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    return proc.returncode, (tmp_path / "A.md").read_bytes(), proc.stderr.decode()


def test_clean_merge_exits_0_and_writes_ours(tmp_path):
    ours = BASE.replace(b"| `b` | 2 |\n", b"| `b` | 2 |\n| `c` | 3 |\n")
    theirs = BASE.replace(b"| `b` | 2 |\n", b"| `b` | 2 |\n| `d` | 4 |\n")
    setup(tmp_path, BASE, ours, theirs)
    rc, out, err = run(tmp_path)
    assert rc == 0 and err == ""
    assert out == BASE.replace(b"| `b` | 2 |\n", b"| `b` | 2 |\n| `c` | 3 |\n| `d` | 4 |\n")
    assert sorted(os.listdir(tmp_path)) == [".mergedrv.toml", "A.md", "B.md", "O.md"]  # no temp file left


def test_double_definition_conflicts_with_one_stderr_line(tmp_path):
    ours = BASE.replace(b"| `b` | 2 |\n", b"| `b` | 2 |\n| `c` | ours |\n")
    theirs = BASE.replace(b"| `b` | 2 |\n", b"| `b` | 2 |\n| `c` | theirs |\n")
    setup(tmp_path, BASE, ours, theirs)
    rc, out, err = run(tmp_path, "-l", "7", "-s", "merged common ancestors", "-x", "HEAD", "-y", "feature")
    assert rc == 1
    assert out.count(b"<<<<<<< HEAD\n") == 1 and b"||||||| merged common ancestors\n" in out and b">>>>>>> feature\n" in out
    assert b"| `c` | ours |\n" in out and b"| `c` | theirs |\n" in out
    assert err.splitlines() == [
        "records.md:7: conflict: double-definition: c: ours (line 7) and theirs (line 7) both add this key with different content"
    ]


def test_literal_placeholders_from_old_git_fall_back_to_labels(tmp_path):
    ours = BASE.replace(b"| `a` | 1 |", b"| `a` | x |")
    theirs = BASE.replace(b"| `a` | 1 |", b"| `a` | y |")
    setup(tmp_path, BASE, ours, theirs)
    rc, out, _ = run(tmp_path, "-l", "%L", "-s", "%S", "-x", "%X", "-y", "%Y")
    assert rc == 1
    assert b"%" not in out
    assert b"<<<<<<< ours\n" in out and b"||||||| base\n" in out and b">>>>>>> theirs\n" in out


def test_marker_size_is_honoured(tmp_path):
    ours = BASE.replace(b"| `a` | 1 |", b"| `a` | x |")
    theirs = BASE.replace(b"| `a` | 1 |", b"| `a` | y |")
    setup(tmp_path, BASE, ours, theirs)
    rc, out, _ = run(tmp_path, "-l", "11")
    assert rc == 1 and b"\n" + b"<" * 11 + b" ours\n" in out and b"\n" + b"=" * 11 + b"\n" in out


def test_undeclared_file_is_merged_exactly_like_git(tmp_path):
    ours = BASE.replace(b"End.", b"End, ours.")
    theirs = BASE.replace(b"# R", b"# Records")
    setup(tmp_path, BASE, ours, theirs, config=None)
    git = subprocess.run(["git", "merge-file", "-p", "A.md", "O.md", "B.md"], cwd=tmp_path, capture_output=True).stdout
    rc, out, err = run(tmp_path)
    assert rc == 0 and out == git


def test_config_error_is_reported_and_merge_still_happens(tmp_path):
    ours = BASE.replace(b"End.", b"End, ours.")
    theirs = BASE.replace(b"# R", b"# Records")
    setup(tmp_path, BASE, ours, theirs, config='[[record]]\nname = "R"\npath = "*.md"\n')
    rc, out, err = run(tmp_path)
    assert rc == 0 and b"# Records" in out and b"End, ours." in out
    assert ".mergedrv.toml:1: [[record]] is missing 'key'" in err


@pytest.mark.parametrize(
    "mutate, why",
    [
        (lambda d: d.replace(b"| `a` | 1 |", b"| `a` | \xff |"), "not valid UTF-8"),
        (lambda d: d.replace(b"End.", b"<<<<<<< HEAD\nEnd.\n=======\nX\n>>>>>>> x"), "conflict marker"),
    ],
)
def test_unmodelable_input_falls_back_to_git_text_merge(tmp_path, mutate, why):
    ours = mutate(BASE)
    theirs = BASE.replace(b"# R", b"# Records")
    setup(tmp_path, BASE, ours, theirs)
    rc, out, err = run(tmp_path)
    assert rc in (0, 1)
    assert f"merged as plain text: " in err and why in err
    git = subprocess.run(["git", "merge-file", "-p", "--diff3", "-L", "ours", "-L", "base", "-L", "theirs", "A.md", "O.md", "B.md"], cwd=tmp_path, capture_output=True).stdout
    assert out == git


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
@pytest.mark.parametrize("where", ["ours", "theirs", "base-and-ours"])
def test_committed_markers_fall_back_with_gits_exit_code(tmp_path, eol, where):
    """Markers someone committed earlier: git's clean text merge, exit 0 as git."""
    bad = BASE.replace(b"End.", b"<<<<<<< HEAD\nEnd.\n=======\nThe end.\n>>>>>>> old-branch")
    edited = BASE.replace(b"| `b` | 2 |", b"| `b` | 20 |")
    base, ours, theirs = {"ours": (BASE, bad, edited), "theirs": (BASE, edited, bad), "base-and-ours": (bad, bad.replace(b"# R", b"# Records"), bad.replace(b"| `b` | 2 |", b"| `b` | 20 |"))}[where]
    base, ours, theirs = (x.replace(b"\n", eol) for x in (base, ours, theirs))
    setup(tmp_path, base, ours, theirs)
    git = subprocess.run(["git", "merge-file", "-p", "--diff3", "-L", "ours", "-L", "base", "-L", "theirs", "A.md", "O.md", "B.md"], cwd=tmp_path, capture_output=True)
    assert git.returncode == 0
    rc, out, err = run(tmp_path)
    assert (rc, out) == (0, git.stdout), err
    assert "conflict:" not in err


def test_a_real_conflict_next_to_committed_markers_still_exits_1(tmp_path):
    bad = BASE.replace(b"End.", b"<<<<<<< HEAD\nEnd.\n=======\nThe end.\n>>>>>>> old-branch")
    setup(tmp_path, BASE, bad.replace(b"# R", b"# Ours"), BASE.replace(b"# R", b"# Theirs"))
    rc, out, err = run(tmp_path)
    assert rc == 1 and b"# Ours" in out and b"# Theirs" in out


def test_binary_content_keeps_both_sides_in_one_conflict(tmp_path):
    ours = BASE + b"\0binary ours\n"
    theirs = BASE + b"\0binary theirs\n"
    setup(tmp_path, BASE, ours, theirs)
    rc, out, err = run(tmp_path)
    assert rc == 1
    assert b"binary ours" in out and b"binary theirs" in out and out.startswith(b"<<<<<<< ours\n")
    assert "NUL" in err


def test_missing_input_is_a_clear_error_not_a_traceback(tmp_path):
    setup(tmp_path, BASE, BASE, BASE)
    (tmp_path / "B.md").unlink()
    proc = subprocess.run([*MERGEDRV, "merge", "O.md", "A.md", "B.md", "-p", "r.md"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 1
    assert "cannot read theirs (%B) B.md" in proc.stderr and "A.md left as it was" in proc.stderr and "Traceback" not in proc.stderr
    assert (tmp_path / "A.md").read_bytes() == BASE


def test_usage_error_exits_1_for_git():
    proc = subprocess.run([*MERGEDRV, "merge", "only-one"], capture_output=True, text=True)
    assert proc.returncode == 1 and "usage:" in proc.stderr


def test_result_replaces_ours_atomically_and_keeps_its_mode(tmp_path):
    ours = BASE.replace(b"End.", b"End, ours.")
    theirs = BASE.replace(b"# R", b"# Records")
    setup(tmp_path, BASE, ours, theirs)
    os.chmod(tmp_path / "A.md", 0o640)
    before = os.stat(tmp_path / "A.md").st_ino
    rc, out, _ = run(tmp_path)
    assert rc == 0 and os.stat(tmp_path / "A.md").st_ino != before  # renamed over, not rewritten in place
    assert os.stat(tmp_path / "A.md").st_mode & 0o777 == 0o640


# --- fuzz: arbitrary bytes never give a traceback or another exit code ---------

PIECES = [
    b"| ID | v |\n",
    b"|---|---|\n",
    b"| `a` | 1 |\n",
    b"| `a` | 2 |\n",
    b"| `b` | 1 |\n",
    b"plain\n",
    b"\n",
    b"<<<<<<< x\n",
    b"=======\n",
    b">>>>>>> y\n",
    b"```\n",
    b"\xff\xfe\n",
    b"\0\n",
    b"\r\n",
    b"# H\n",
]
chunks = st.lists(st.one_of(st.sampled_from(PIECES), st.binary(max_size=12)), max_size=12).map(b"".join)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunks, chunks, chunks)
def test_fuzz_driver_never_crashes_and_keeps_both_sides(tmp_path, base, ours, theirs):
    setup(tmp_path, base, ours, theirs)
    args = driver.DriverArgs(str(tmp_path / "O.md"), str(tmp_path / "A.md"), str(tmp_path / "B.md"), "r.md", "7", config=str(tmp_path / ".mergedrv.toml"))
    err = io.StringIO()
    with redirect_stderr(err):
        rc = driver.run(args)
    assert rc in (0, 1)
    assert "Traceback" not in err.getvalue()
    out = (tmp_path / "A.md").read_bytes()
    base_lines = set(base.splitlines())
    for side in (ours, theirs):  # what either side added is still there
        for line in side.splitlines():
            if line not in base_lines:
                assert line in out, (line, out)


def test_driver_values_that_look_like_options(tmp_path):
    """%P and the labels are filled in by git and may start with '-'."""
    ours = BASE.replace(b"| `a` | 1 |", b"| `a` | x |")
    theirs = BASE.replace(b"| `a` | 1 |", b"| `a` | y |")
    setup(tmp_path, BASE, ours, theirs, config='[[record]]\nname = "R"\npath = "-notes.md"\nkey = "ID"\n')
    rc, out, err = run(tmp_path, "-x", "-my-branch", path="-notes.md")
    assert rc == 1 and b"<<<<<<< -my-branch\n" in out
    assert err.startswith("-notes.md:5: conflict: same-cell: a:")


def test_a_same_cell_conflict_names_its_column(tmp_path):
    base = b"| ID | State | Owner |\n|---|---|---|\n| a | x | me |\n"
    setup(tmp_path, base, base.replace(b"| x |", b"| y |"), base.replace(b"| x |", b"| z |"),
          config='[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\n')
    rc, out, err = run(tmp_path)
    assert rc == 1 and "same-cell: a: both sides changed column State differently" in err, err
    both = base.replace(b"| x | me |", b"| y | you |")
    setup(tmp_path, base, both, base.replace(b"| x | me |", b"| z | them |"),
          config='[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\n')
    rc, out, err = run(tmp_path)
    assert rc == 1 and "both sides changed columns State, Owner differently" in err, err


def test_a_declared_log_wins_over_a_record_glob(tmp_path):
    ledger = b"# Ledger\n\n| Date | What |\n|---|---|\n| 1 | a |\n"
    setup(tmp_path, ledger, ledger + b"| 2 | ours |\n", ledger + b"| 2 | theirs |\n",
          config='[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\n\n[[log]]\npath = "ledger.md"\n')
    rc, out, err = run(tmp_path, path="ledger.md")
    assert rc == 0 and err == ""
    assert out == ledger + b"| 2 | ours |\n| 2 | theirs |\n"


def test_git_older_than_2_44_gets_git_s_own_labels_in_a_merge(tmp_path):
    """git before 2.44 leaves %X %Y as they are; in `git merge topic` the driver
    labels the sides HEAD and topic, as git's own text merge does."""
    from tests.helpers import diverge, keyed_repo

    repo = keyed_repo(tmp_path / "r", '[[record]]\nname = "K"\npath = "rec.md"\nkey = "ID"\n')
    head = b"| ID | State |\n|---|---|\n| K-1 | open |\n"
    diverge(repo, "rec.md", head, head + b"| K-2 | ours |\n", head + b"| K-2 | theirs |\n")
    proc = subprocess.run(["git", "merge", "topic"], cwd=repo, capture_output=True, text=True)
    text = (repo / "rec.md").read_text()
    assert proc.returncode == 1 and "<<<<<<< HEAD\n" in text and ">>>>>>> topic\n" in text, text
