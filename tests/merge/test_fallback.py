"""merge/fallback.py: the virtual ancestor of a criss-cross merge, git's text merge through the one runner."""

from __future__ import annotations

from mergedrv.merge import virtual_base


def test_virtual_base_replaces_inner_conflicts_by_their_base():
    inner = (
        b"| ID | v |\n|---|---|\n"
        b"<<<<<<<<< ours\n| A | x |\n||||||||| base\n| A | 1 |\n=========\n| A | y |\n>>>>>>>>> theirs\n"
        b"| B | 2 |\n"
    )
    assert virtual_base(inner) == b"| ID | v |\n|---|---|\n| A | 1 |\n| B | 2 |\n"
    no_base = inner.replace(b"||||||||| base\n| A | 1 |\n", b"")
    assert virtual_base(no_base) == b"| ID | v |\n|---|---|\n| B | 2 |\n"


def test_the_text_merge_runs_git_merge_file_through_the_one_runner(tmp_path):
    # both sides changed one line of an undeclared file: git's text merge,
    # started by mergedrv.spawn (the one process runner), not by subprocess
    from tests.helpers import loaded_by

    for name, data in (("O.txt", b"a\nb\nc\n"), ("A.txt", b"a\nours\nc\n"), ("B.txt", b"a\ntheirs\nc\n")):
        (tmp_path / name).write_bytes(data)
    proc, loaded = loaded_by(tmp_path, ["merge", "O.txt", "A.txt", "B.txt", "-p", "notes.txt"])
    assert proc.returncode == 1, proc.stderr
    assert (tmp_path / "A.txt").read_bytes() == (
        b"a\n<<<<<<< ours\nours\n||||||| base\nb\n=======\ntheirs\n>>>>>>> theirs\nc\n"
    )
    assert "mergedrv.spawn" in loaded and "subprocess" not in loaded
