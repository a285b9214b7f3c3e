"""Files mixing CRLF and LF (issue #10 item 4) through the driver and real
git: merged by key, each line with its own ending byte for byte; the shape
that cannot be (a table's last row whose CR/LF both sides changed apart) is
git's text merge, said on stderr."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.fuzz_gen import git_merge_file
from tests.helpers import MERGEDRV, git, keyed_repo

CASES = Path(__file__).resolve().parents[1] / "cases" / "keyed"
CONFIG = '[[record]]\nname = "K"\npath = "rec.md"\nkey = "ID"\n'


def _drive(tmp_path: Path, base: bytes, ours: bytes, theirs: bytes) -> tuple[int, bytes, str]:
    for name, data in (("O", base), ("A", ours), ("B", theirs)):
        (tmp_path / name).write_bytes(data)
    (tmp_path / ".mergedrv.toml").write_text(CONFIG)
    proc = subprocess.run([*MERGEDRV, "merge", "O", "A", "B", "-p", "rec.md", "-l", "7"], cwd=tmp_path, capture_output=True)
    assert b"Traceback" not in proc.stderr
    return proc.returncode, (tmp_path / "A").read_bytes(), proc.stderr.decode()


def test_the_driver_merges_mixed_endings_by_key(tmp_path):
    for case in sorted(CASES.glob("mixed-endings-*")):
        sub = tmp_path / case.name
        sub.mkdir()
        base, ours, theirs = ((case / f"{n}.md").read_bytes() for n in ("Base", "Ours", "Theirs"))
        rc, out, err = _drive(sub, base, ours, theirs)
        assert out == (case / "Expected.md").read_bytes(), case.name
        assert "merged as plain text" not in err, err
        assert rc == (1 if (case / "case.toml").exists() else 0), (case.name, err)


def test_the_driver_falls_back_for_a_last_row_whose_cr_lf_both_sides_changed_apart(tmp_path):
    table = b"| ID | S |\r\n|---|---|\n| K-1 | a |\r\n| K-2 | a"
    base, ours, theirs = table + b" |\r\n", table.replace(b"| K-1 | a |", b"| K-1 | b |") + b" |", table + b"z |\r"
    rc, out, err = _drive(tmp_path, base, ours, theirs)
    data, git_rc = git_merge_file(base, ours, theirs, 7)
    assert (out, rc) == (data, 1 if git_rc else 0)
    assert "merged as plain text: both sides changed the last line differently, one only in its CR/LF ending" in err


def test_git_merge_of_mixed_endings_keeps_each_lines_ending(tmp_path):
    repo = keyed_repo(tmp_path / "repo", CONFIG, "*.md merge=keyed -text\n")
    case = CASES / "mixed-endings-rows-added-both-sides"
    (repo / "rec.md").write_bytes((case / "Base.md").read_bytes())
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "topic")
    (repo / "rec.md").write_bytes((case / "Theirs.md").read_bytes())
    git(repo, "commit", "-qam", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / "rec.md").write_bytes((case / "Ours.md").read_bytes())
    git(repo, "commit", "-qam", "ours")
    proc = git(repo, "merge", "--no-edit", "topic", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / "rec.md").read_bytes() == (case / "Expected.md").read_bytes()
    assert b"| K-4 | new | ours-crlf |\r\n" in (repo / "rec.md").read_bytes() and b"| K-5 | new | theirs-lf |\n" in (repo / "rec.md").read_bytes()
