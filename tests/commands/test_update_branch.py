"""`mergedrv update-branch` against a bare repository standing in for the forge (real git)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import git
from tests.install_helpers import BASE_MODELS, BASE_ROAD, LEDGER, LEDGER_TEXT, MATRIX, ROADMAP, commit, keys_at, matrix, mergedrv, model_row, road_row, roadmap

CONFIG = """\
[[record]]
name = "MODEL"
path = ".agents/model-matrix.md"
key = "ID"
key_pattern = '^MODEL-[A-Za-z0-9_.-]+$'
pin = 4

[[record]]
name = "ROAD"
path = ".agents/roadmap.md"
key = "Block"

[[log]]
path = ".agents/parity-ledger.md"
"""


def _pin(text: str, n: int) -> str:
    return text.replace("pin = 4", f"pin = {n}")


@pytest.fixture
def forge(tmp_path) -> dict:
    """A bare 'forge' with main and pull-request branches; main has moved on (pr-a merged)."""
    bare = tmp_path / "forge.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    dev = tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(bare), str(dev))
    git(dev, "switch", "-q", "-c", "main")
    base_files = {".mergedrv.toml": CONFIG, ROADMAP: roadmap(*BASE_ROAD), MATRIX: matrix(*BASE_MODELS), LEDGER: LEDGER_TEXT, "notes.txt": "one\ntwo\n"}
    commit(dev, base_files, "records")
    git(dev, "push", "-q", "origin", "main")

    def branch(name: str, files: dict[str, str]) -> None:
        git(dev, "switch", "-q", "-c", name, "main")
        commit(dev, files, f"{name}\n\nMODEL 4 -> 5" if ".mergedrv.toml" in files else name)
        git(dev, "push", "-q", "origin", name)

    row_a = model_row("MODEL-TEXT-a", "AForCausalLM")
    branch("pr-a", {MATRIX: matrix(*BASE_MODELS, row_a), ".mergedrv.toml": _pin(CONFIG, 5)})
    branch("pr-b", {MATRIX: matrix(*BASE_MODELS, model_row("MODEL-TEXT-b", "BForCausalLM")), ".mergedrv.toml": _pin(CONFIG, 5)})
    branch("pr-clash", {MATRIX: matrix(*BASE_MODELS, model_row("MODEL-TEXT-a", "OtherForCausalLM")), ".mergedrv.toml": _pin(CONFIG, 5)})
    branch("pr-prose", {MATRIX: matrix(*BASE_MODELS, model_row("MODEL-TEXT-c", "CForCausalLM")), ".mergedrv.toml": _pin(CONFIG, 5), "notes.txt": "one\nTWO by pr\n"})
    branch("pr-road", {ROADMAP: roadmap(*BASE_ROAD, road_row(7, "ROAD-V1-C7", "area 7"))})
    branch("protected", {MATRIX: matrix(*BASE_MODELS, model_row("MODEL-TEXT-d", "DForCausalLM")), ".mergedrv.toml": _pin(CONFIG, 5)})
    # the base moves on: pr-a is merged, and main edits notes.txt
    git(dev, "switch", "-q", "main")
    git(dev, "merge", "-q", "--ff-only", "pr-a")
    commit(dev, {"notes.txt": "one\ntwo on main\n", ROADMAP: roadmap(*BASE_ROAD, road_row(6, "ROAD-V1-C6", "area 6"))}, "notes")
    git(dev, "push", "-q", "origin", "main")
    hook = bare / "hooks" / "pre-receive"
    hook.write_text('#!/bin/sh\nwhile read old new ref; do\n  [ "$ref" = refs/heads/protected ] && { echo "protected branch: pushes to $ref are not allowed" >&2; exit 1; }\ndone\nexit 0\n')
    hook.chmod(0o755)
    return {"bare": bare, "tmp": tmp_path}


def _ci_clone(forge: dict, branch: str) -> Path:
    """What a CI job has: a fresh clone with the pull request's branch checked out, no mergedrv install."""
    ci = forge["tmp"] / f"ci-{branch}"
    git(forge["tmp"], "clone", "-q", str(forge["bare"]), str(ci))
    git(ci, "switch", "-q", branch)
    assert git(ci, "config", "--get", "merge.keyed.driver", check=False).returncode == 1
    return ci


def _forge_rev(forge: dict, branch: str) -> str:
    return git(forge["bare"], "rev-parse", branch).stdout.strip()


def test_clean_update_is_pushed_with_both_rows_and_the_pin_counted(forge):
    ci = _ci_clone(forge, "pr-b")
    before = _forge_rev(forge, "pr-b")
    comment = forge["tmp"] / "comment.md"
    proc = mergedrv(ci, "update-branch", "--base", "origin/main", "--comment-file", str(comment))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = _forge_rev(forge, "pr-b")
    assert after != before
    bare = forge["bare"]
    # a merge commit on top of the old head, no force: the old head and main are both ancestors
    assert git(bare, "rev-list", "--parents", "-1", after).stdout.split()[1:] == [before, _forge_rev(forge, "main")]
    keys = keys_at(bare, after, MATRIX, "ID")
    assert keys == [f"MODEL-TEXT-m{i}" for i in range(1, 5)] + ["MODEL-TEXT-b", "MODEL-TEXT-a"]  # ours' row, then theirs' after it
    assert "pin = 6" in git(bare, "show", f"{after}:.mergedrv.toml").stdout
    assert "MODEL pin 5 -> 6" in git(bare, "log", "-1", "--format=%B", after).stdout
    # now the forge's merge button has nothing left to merge in the records
    assert git(bare, "merge-base", "--is-ancestor", "main", after, check=False).returncode == 0
    assert "pushed" in proc.stderr
    text = comment.read_text()
    assert text.startswith("<!-- mergedrv -->") and "pushed" in text
    # and the check of the range is clean
    check = mergedrv(ci, "check", "--base", "origin/main", "--head", "HEAD")
    assert check.returncode == 0, check.stdout + check.stderr
    # running again: up to date, nothing to do
    again = mergedrv(ci, "update-branch", "--base", "origin/main")
    assert again.returncode == 0 and "nothing to do" in again.stderr
    assert _forge_rev(forge, "pr-b") == after


def test_double_definition_is_reported_and_nothing_pushed(forge):
    ci = _ci_clone(forge, "pr-clash")
    before = _forge_rev(forge, "pr-clash")
    head = git(ci, "rev-parse", "HEAD").stdout.strip()
    comment = forge["tmp"] / "comment.md"
    proc = mergedrv(ci, "update-branch", "--base", "origin/main", "--comment-file", str(comment))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{MATRIX}:") and ": double-definition: MODEL-TEXT-a: " in lines[0], lines
    assert _forge_rev(forge, "pr-clash") == before
    assert git(ci, "rev-parse", "HEAD").stdout.strip() == head
    assert git(ci, "status", "--porcelain").stdout == ""
    assert not (ci / ".git" / "MERGE_HEAD").exists()
    text = comment.read_text()
    assert text.startswith("<!-- mergedrv -->") and lines[0] in text and "nothing was pushed" in text


def test_a_conflict_outside_the_records_is_left_to_people(forge):
    ci = _ci_clone(forge, "pr-prose")
    before = _forge_rev(forge, "pr-prose")
    proc = mergedrv(ci, "update-branch", "--base", "origin/main")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == ["notes.txt:2: text: -: not a record: git could not merge it; left to people"]
    assert "left to people" in proc.stderr
    assert _forge_rev(forge, "pr-prose") == before
    assert git(ci, "rev-parse", "HEAD").stdout.strip() == before
    assert git(ci, "status", "--porcelain").stdout == ""


def test_a_branch_the_remote_refuses_is_not_forced(forge):
    ci = _ci_clone(forge, "protected")
    before = _forge_rev(forge, "protected")
    proc = mergedrv(ci, "update-branch", "--base", "origin/main")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "the remote refused the push to origin protected" in err[0] and "protected branch" in err[0], err
    assert "Traceback" not in proc.stderr
    assert _forge_rev(forge, "protected") == before
    assert git(ci, "rev-parse", "HEAD").stdout.strip() == before


def test_rebase_onto_the_base_resolves_by_key_without_pushing(forge):
    ci = _ci_clone(forge, "pr-road")
    before = _forge_rev(forge, "pr-road")
    proc = mergedrv(ci, "update-branch", "--base", "origin/main", "--rebase", "--no-push")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert git(ci, "rev-parse", "HEAD^").stdout.strip() == _forge_rev(forge, "main")
    assert keys_at(ci, "HEAD", ROADMAP, "Block")[-2:] == ["ROAD-V1-C6", "ROAD-V1-C7"]
    assert _forge_rev(forge, "pr-road") == before


def test_rebase_does_not_hide_pins_both_sides_moved(forge):
    # replayed onto main, pr-b's 4 -> 5 meets main's 5: git keeps 5 for 6 keys; the checks say so
    ci = _ci_clone(forge, "pr-b")
    before = _forge_rev(forge, "pr-b")
    proc = mergedrv(ci, "update-branch", "--base", "origin/main", "--rebase")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert any(": ratchet: MODEL has 6 keys but its pin is 5" in line for line in proc.stdout.splitlines()), proc.stdout
    assert git(ci, "rev-parse", "HEAD").stdout.strip() == before == _forge_rev(forge, "pr-b")


def test_usage_errors_are_one_line(forge):
    ci = _ci_clone(forge, "pr-b")
    (ci / MATRIX).write_text("dirty\n")
    proc = mergedrv(ci, "update-branch", "--base", "origin/main")
    assert proc.returncode == 2 and "uncommitted changes" in proc.stderr and "Traceback" not in proc.stderr
    git(ci, "checkout", "--", MATRIX)
    proc = mergedrv(ci, "update-branch", "--base", "origin/nope")
    assert proc.returncode == 2 and "origin/nope: no such commit" in proc.stderr


def test_an_error_still_writes_the_comment(forge):
    # the one error handler prints the line; the command has written the comment before it
    ci = _ci_clone(forge, "pr-b")
    comment = forge["tmp"] / "comment.md"
    proc = mergedrv(ci, "update-branch", "--base", "origin/nope", "--comment-file", str(comment))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines() == ["mergedrv update-branch: origin/nope: no such commit (fetch it first: git fetch origin)"]
    assert comment.read_text() == (
        "<!-- mergedrv -->\n\n**mergedrv** could not update this branch:\n\n```\norigin/nope: no such commit (fetch it first: git fetch origin)\n```\n"
    )
