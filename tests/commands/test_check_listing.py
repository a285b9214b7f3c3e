"""`mergedrv check` lists the working tree once per run: the git processes it
spawns, counted by a logging `git` on PATH in a real repository, do not grow
with the number of configured records (issue 21, item 5)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.helpers import MERGEDRV, git


def _repo(path: Path, records: int) -> Path:
    """A committed repository with ``records`` record files; odd ones named by a glob."""
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    config = []
    for i in range(records):
        name = f"records/r{i:03d}.md"
        (path / "records").mkdir(exist_ok=True)
        (path / name).write_text(f"# R{i}\n\n| ID | Name |\n|---|---|\n| `R{i}-1` | one |\n| `R{i}-2` | two |\n")
        config.append(f'[[record]]\nname = "R{i}"\npath = "{f"records/r{i:03d}*.md" if i % 2 else name}"\nkey = "ID"\n')
    (path / ".mergedrv.toml").write_text("\n".join(config))
    git(path, "add", "-A")
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "records")
    return path


def _git_calls(repo: Path, tmp_path: Path) -> list[str]:
    """The git commands one `mergedrv check` runs, as a wrapper on PATH logs them."""
    bin_dir = tmp_path / f"bin-{repo.name}"
    bin_dir.mkdir()
    log = tmp_path / f"{repo.name}.log"
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$1" >> "{log}"\nexec "{shutil.which("git")}" "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run([*MERGEDRV, "check"], cwd=repo, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return log.read_text().split() if log.exists() else []


def test_check_spawns_as_many_git_processes_for_80_records_as_for_4(tmp_path):
    few = _git_calls(_repo(tmp_path / "few", 4), tmp_path)
    many = _git_calls(_repo(tmp_path / "many", 80), tmp_path)
    assert many == few
    assert many.count("ls-files") <= 1


def test_a_glob_still_finds_every_file_it_names_and_only_those(tmp_path):
    repo = _repo(tmp_path / "r", 4)
    (repo / "records" / "r001-extra.md").write_text("# x\n\n| ID | Name |\n|---|---|\n| `X` | a |\n| `X` | b |\n")
    (repo / "records" / "r0010.md").write_text("# y\n\n| ID | Name |\n|---|---|\n| `Y` | a |\n| `Y` | b |\n")
    (repo / "other").mkdir()
    (repo / "other" / "r001.md").write_text("# z\n\n| ID | Name |\n|---|---|\n| `Z` | a |\n| `Z` | b |\n")
    proc = subprocess.run([*MERGEDRV, "check"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 1
    flagged = sorted({line.split(":")[0] for line in proc.stdout.splitlines() if "keys-unique" in line})
    assert flagged == ["records/r001-extra.md", "records/r0010.md"]
