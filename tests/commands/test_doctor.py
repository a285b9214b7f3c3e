"""`mergedrv doctor`: what is really in effect in a clone (real git, real hooks)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from tests.helpers import git
from tests.install_helpers import CONFIG, commit, install, mergedrv, seed


def _installed(repo: Path) -> None:
    seed(repo)
    install(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "records merge by key")


def _problems(proc) -> list[str]:
    return [line for line in proc.stdout.splitlines() if line.startswith("problem: ")]


def test_a_healthy_clone_passes_and_ci_writes_nothing(repo):
    _installed(repo)
    proc = mergedrv(repo, "doctor")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "all in effect" in proc.stderr
    before = sorted(str(p.relative_to(repo)) + str(p.stat().st_mtime_ns) for p in repo.rglob("*") if p.is_file())
    proc = mergedrv(repo, "doctor", "--ci")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(str(p.relative_to(repo)) + str(p.stat().st_mtime_ns) for p in repo.rglob("*") if p.is_file()) == before


def test_a_record_added_without_its_attribute_line(repo):
    _installed(repo)
    extra = '\n[[record]]\nname = "TODO"\npath = "docs/todo.md"\nkey = "ID"\n'
    commit(repo, {".mergedrv.toml": CONFIG + extra, "docs/todo.md": "| ID | What |\n|---|---|\n| T-1 | x |\n"}, "a new record")
    for args in (["doctor"], ["doctor", "--ci"]):
        proc = mergedrv(repo, *args)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        problems = _problems(proc)
        assert len(problems) == 2, problems
        assert problems[0].startswith("problem: docs/todo.md: no merge attribute in effect, not merge=keyed")
        assert problems[0].endswith("fix: mergedrv install (writes the .gitattributes block from .mergedrv.toml), then commit .gitattributes")
        assert "the committed mergedrv block does not match .mergedrv.toml: it lacks 'docs/todo.md merge=keyed'" in problems[1]
    # the fix it names works
    install(repo)
    git(repo, "commit", "-q", "--no-verify", "-am", "attributes")
    assert mergedrv(repo, "doctor").returncode == 0


def test_a_moved_virtual_environment(repo, tmp_path):
    _installed(repo)
    # a "virtual environment" whose mergedrv is a real runnable command, wired in as install wires it
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    exe = venv / "mergedrv"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mergedrv "$@"\n')
    exe.chmod(0o755)
    git(repo, "config", "merge.keyed.driver", f"{exe} merge %O %A %B -p %P -l %L -s %S -x %X -y %Y")
    hooks = repo / ".git" / "hooks"
    for hook in hooks.iterdir():
        if hook.is_file():
            hook.write_text(hook.read_text().replace(shutil.which("mergedrv", path=str(Path(sys.executable).parent)) or "", str(exe)))
    assert mergedrv(repo, "doctor").returncode == 0
    os.rename(tmp_path / "venv", tmp_path / "venv-moved")
    proc = mergedrv(repo, "doctor")
    assert proc.returncode == 1
    problems = _problems(proc)
    assert len(problems) == 2, problems
    assert problems[0] == f"problem: merge.keyed.driver: {exe} does not exist (a moved or deleted virtual environment?); fix: mergedrv install (from where mergedrv is installed now)"
    assert problems[1].startswith(f"problem: the hooks run {exe}: {exe} does not exist")
    assert mergedrv(repo, "doctor", "--ci").returncode == 0  # nothing committed is wrong


def test_core_hooks_path_bypassing_the_installed_hooks(repo):
    _installed(repo)
    (repo / ".husky").mkdir()
    git(repo, "config", "core.hooksPath", ".husky")
    proc = mergedrv(repo, "doctor")
    assert proc.returncode == 1
    [problem] = _problems(proc)
    assert "are not in .husky (core.hooksPath = .husky bypasses the mergedrv hooks installed in .git/hooks)" in problem
    assert problem.endswith("or git config --unset core.hooksPath")
    install(repo)
    assert mergedrv(repo, "doctor").returncode == 0


def test_outside_a_repository(tmp_path):
    proc = mergedrv(tmp_path, "doctor")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "not inside a git working tree" in proc.stderr


def test_a_record_whose_path_matches_no_file(repo):
    _installed(repo)
    extra = '\n[[record]]\nname = "NOPE"\npath = "docs/nope.md"\nkey = "ID"\n\n[[log]]\npath = "logs/*.md"\n'
    commit(repo, {".mergedrv.toml": CONFIG + extra}, "a record of a file that is not there")
    refused = mergedrv(repo, "install")  # install refuses it, naming the line; doctor reports it where install was not rerun
    assert refused.returncode == 2 and ".mergedrv.toml:17: NOPE: path 'docs/nope.md' names no file git tracks" in refused.stderr, refused.stderr
    line = (CONFIG + extra).splitlines().index("[[record]]", len(CONFIG.splitlines())) + 1
    for args in (["doctor"], ["doctor", "--ci"]):
        proc = mergedrv(repo, *args)
        problems = _problems(proc)
        assert proc.returncode == 1 and len(problems) >= 2, proc.stdout + proc.stderr
        assert all("attribute" in p for p in problems[2:]), problems  # install refused, so the attributes are missing too
        assert problems[0].startswith(f"problem: .mergedrv.toml:{line}: [record] NOPE: path 'docs/nope.md' matches no tracked file"), problems
        assert "[log]: path 'logs/*.md' matches no tracked file" in problems[1], problems
