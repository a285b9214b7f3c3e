"""Shared fixtures: real git repositories in temporary folders."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
MERGEDRV = [sys.executable, "-m", "mergedrv"]


def git(cwd, *args, check=True, env=None, input=None) -> subprocess.CompletedProcess:
    """Run git in ``cwd``; returns the completed process (text mode)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check, env=full_env, input=input)


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch, tmp_path_factory):
    """Isolate tests from the user's git config and give commits an author."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.com")
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n")


@pytest.fixture
def repo(tmp_path) -> Path:
    """An empty git repository on branch main."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return path


def driver_command() -> str:
    """The merge-driver command line for git config, using this interpreter."""
    return f"'{sys.executable}' -m mergedrv merge %O %A %B -p %P -l %L -s %S -x %X -y %Y"
