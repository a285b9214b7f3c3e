"""The installed driver under a real `git merge` whose stderr is full
(/dev/full), a pipe nobody reads (EPIPE) or closed: %A and the exit code are
those of a normal run, for a conflicted merge, a clean merge with a note and
a text fallback with a note, clean or refused (binary) (issue 21, item 1)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import git
from tests.install_helpers import BASE_MODELS, MATRIX, install, matrix, model_row, seed

SCENARIOS = {
    # both add MODEL-TEXT-x, differently: a double definition (exit 1, markers)
    "conflict": (matrix(*BASE_MODELS, model_row("MODEL-TEXT-x", "Ours")), matrix(*BASE_MODELS, model_row("MODEL-TEXT-x", "Theirs"))),
    # both add the same row: clean, with a note on stderr
    "note": (matrix(model_row("MODEL-TEXT-a", "Added"), *BASE_MODELS, model_row("MODEL-TEXT-s", "Same")),
             matrix(*BASE_MODELS, model_row("MODEL-TEXT-s", "Same"))),
    # invalid UTF-8 in theirs: git's text merge instead (clean), said on stderr
    "fallback": (matrix(model_row("MODEL-TEXT-a", "Added"), *BASE_MODELS), matrix(*BASE_MODELS[:3], model_row("MODEL-TEXT-m4", "M4\udcffX"))),
    # a NUL byte in theirs: git refuses to merge it as text; both sides kept in one conflict, said on stderr
    "binary": (matrix(model_row("MODEL-TEXT-a", "Added"), *BASE_MODELS), matrix(*BASE_MODELS[:3], model_row("MODEL-TEXT-m4", "M4\0X"))),
}
CODES = {"conflict": 1, "note": 0, "fallback": 0, "binary": 1}


def _scenario(tmp_path: Path, name: str) -> Path:
    repo = tmp_path / name
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    seed(repo)
    install(repo)
    ours, theirs = SCENARIOS[name]
    for branch, text in (("feature", theirs), ("main", ours)):
        git(repo, "checkout", "-q", *(["-b"] if branch == "feature" else []), branch)
        (repo / MATRIX).write_bytes(text.encode("utf-8", "surrogateescape"))
        git(repo, "commit", "-q", "--no-verify", "-am", branch)
    git(repo, "tag", "ours")
    return repo


def _merge(repo: Path, stderr: str) -> tuple[int, bytes, str]:
    """`git merge feature` with stderr captured, on /dev/full, on a pipe whose
    read end is closed, or closed; the exit code, the merged file and stdout."""
    git(repo, "reset", "-q", "--hard", "ours")
    cmd = ["git", "merge", "--no-edit", "--no-verify", "feature"]  # (the hooks' own findings are not this test's)
    if stderr == "normal":
        proc = subprocess.run(cmd, cwd=repo, capture_output=True)
    elif stderr == "full":
        with open("/dev/full", "wb") as full:
            proc = subprocess.run(cmd, cwd=repo, stdout=subprocess.PIPE, stderr=full)
    elif stderr == "epipe":
        read, write = os.pipe()
        os.close(read)
        try:
            proc = subprocess.run(cmd, cwd=repo, stdout=subprocess.PIPE, stderr=write)
        finally:
            os.close(write)
    else:
        proc = subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh", *cmd], cwd=repo, stdout=subprocess.PIPE)
    return proc.returncode, (repo / MATRIX).read_bytes(), proc.stdout.decode("utf-8", "replace")


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_stream_that_cannot_take_a_message_changes_neither_the_result_nor_the_exit_code(tmp_path, name):
    repo = _scenario(tmp_path, name)
    code, merged, out = _merge(repo, "normal")
    assert code == CODES[name], out
    if name == "conflict":
        assert b"<<<<<<< " in merged and b"Ours" in merged and b"Theirs" in merged
    elif name == "binary":
        assert b"<<<<<<< " in merged and b"Added" in merged and b"M4\0X" in merged
    else:
        assert b"<<<<<<<" not in merged
    for stderr in ("full", "epipe", "closed"):
        got = _merge(repo, stderr)
        assert got[:2] == (code, merged), (stderr, got[2])
        unmerged = git(repo, "ls-files", "-u").stdout
        assert bool(unmerged) == bool(CODES[name]), stderr


def test_the_normal_runs_say_what_the_broken_streams_could_not(tmp_path):
    """The messages the broken streams lose are really written: the tests above see the driver speak."""
    said = {name: _normal_stderr(tmp_path, name) for name in SCENARIOS}
    assert "conflict: double-definition: MODEL-TEXT-x" in said["conflict"]
    assert "MODEL-TEXT-s" in said["note"]
    assert "merged as plain text" in said["fallback"] and "merged as plain text" in said["binary"]


def _normal_stderr(tmp_path: Path, name: str) -> str:
    repo = _scenario(tmp_path, name)
    return subprocess.run(["git", "merge", "--no-edit", "--no-verify", "feature"], cwd=repo, capture_output=True, text=True).stderr


def test_the_marker_size_warning_and_a_config_error_note_cost_nothing_on_a_full_stderr(tmp_path):
    """The driver as git runs it (%O %A %B -p %P -l %L), with too large a
    marker size and a broken configuration: both said, neither on /dev/full
    changes %A or the exit code."""
    from tests.helpers import MERGEDRV

    (tmp_path / ".mergedrv.toml").write_text("[[record]\nname = \n")
    base = matrix(*BASE_MODELS)
    sides = {"O": base, "B": matrix(*BASE_MODELS, model_row("MODEL-TEXT-t", "T"))}
    runs = []
    for stderr in ("normal", "full"):
        for name, text in {**sides, "A": matrix(model_row("MODEL-TEXT-a", "A"), *BASE_MODELS)}.items():
            (tmp_path / name).write_text(text)
        cmd = [*MERGEDRV, "merge", "O", "A", "B", "-p", MATRIX, "-l", "99999"]
        with open("/dev/full" if stderr == "full" else os.devnull, "wb") as sink:
            if stderr == "normal":
                proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
                assert "conflict-marker-size 99999 is too large" in proc.stderr and ".mergedrv.toml" in proc.stderr
            else:
                proc = subprocess.run(cmd, cwd=tmp_path, stdout=sink, stderr=sink)
        runs.append((proc.returncode, (tmp_path / "A").read_bytes()))
    assert runs[0] == runs[1] and runs[0][0] == 0 and b"MODEL-TEXT-t" in runs[0][1]
